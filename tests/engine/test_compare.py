"""Comparing candidate releases (engine.compare, issue 34 item 1): the sentences bad input
gets, one seed for every candidate, determinism, streaming with Cancel, projects side by side,
the pair rule, the report and the command line."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from engine.compare import (
    CandidateRow,
    Comparison,
    RiskFigure,
    compare_projects,
    compare_results,
    load_candidates,
    read_comparison,
    run_comparison,
)
from engine.compare.summary import pair_tests
from engine.data.errors import InputError
from engine.project import Project, save_project
from engine.results.result import file_sha256
from engine.runtime import CancelToken, JobCancelled, Progress
from engine.signoff import result_sha256
from tests.engine.compare_helpers import spec_text, tiny_set


def _spec(tmp_path, text: str):
    p = tmp_path / "spec.toml"
    p.write_text(text, encoding="utf-8")
    return p


# ----------------------------------------------------------------------- bad input: sentences

def test_one_candidate_is_a_sentence(tmp_path):
    with pytest.raises(InputError, match=r"at least 2 candidate releases and this one has 1"):
        load_candidates(_spec(tmp_path, spec_text('label = "a"\nepsilon = 1.0')))


def test_nine_candidates_is_a_sentence(tmp_path):
    bodies = [f'label = "e{i}"\nepsilon = {0.1 * (i + 1):.1f}' for i in range(9)]
    with pytest.raises(InputError, match=r"at most 8 candidate releases and this one has 9"):
        load_candidates(_spec(tmp_path, spec_text(*bodies)))


def test_a_key_the_audit_does_not_have_names_it_and_the_controllable_keys(tmp_path):
    text = spec_text('label = "a"\nepsilon = 1.0', 'label = "b"\nepsilonn = 2.0')
    with pytest.raises(InputError) as err:
        load_candidates(_spec(tmp_path, text))
    assert "“epsilonn”" in str(err.value) and "location audit does not have" in str(err.value)
    assert "epsilon" in str(err.value).split("controls are")[1]
    assert err.value.key == "epsilonn"


def test_an_unknown_key_of_the_spec_is_a_sentence(tmp_path):
    top = 'colour = "red"\n' + spec_text('label = "a"\nepsilon = 1.0', 'label = "b"\nepsilon = 2.0')
    with pytest.raises(InputError, match=r"unknown key “colour”; a comparison spec has"):
        load_candidates(_spec(tmp_path, top))


def test_a_candidate_may_not_change_the_seed(tmp_path):
    text = spec_text('label = "a"\nepsilon = 1.0', 'label = "b"\nseed = 4')
    with pytest.raises(InputError, match="changes the seed; every candidate runs with the "
                                         "base's seed"):
        load_candidates(_spec(tmp_path, text))


def test_two_labels_alike_and_two_candidates_alike_are_sentences(tmp_path):
    with pytest.raises(InputError, match="are both called “a”"):
        load_candidates(_spec(tmp_path, spec_text('label = "a"\nepsilon = 1.0',
                                                  'label = "a"\nepsilon = 2.0')))
    # 0.5 is the base's own ε (the location default): candidate b changes nothing from a
    with pytest.raises(InputError, match="“a” and “b” have the same settings"):
        load_candidates(_spec(tmp_path, spec_text('label = "a"\nepsilon = 0.5',
                                                  'label = "b"')))


def test_a_bad_value_names_the_candidate(tmp_path):
    text = spec_text('label = "a"\nepsilon = 1.0', 'label = "b"\nepsilon = -1.0')
    with pytest.raises(InputError, match="candidate “b”") as err:
        load_candidates(_spec(tmp_path, text))
    assert err.value.key == "epsilon"


def test_the_example_spec_loads():
    from engine.data.paths import APP_FOLDER
    cset = load_candidates(APP_FOLDER / "resources" / "configs" / "compare_location_epsilon.toml")
    assert cset.audit_type == "location" and 2 <= len(cset.candidates) <= 8


# ----------------------------------------------------------------------- one seed

def test_every_candidate_runs_with_the_base_seed():
    cset = tiny_set()
    configs = cset.configs()
    assert {c.seed for c in configs} == {3}
    assert [c.epsilon for c in configs] == [0.1, 0.5, 1.0, 2.0]


# ----------------------------------------------------------------------- runs (tiny)

@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp")
    return out, run_comparison(tiny_set(), out)


def test_each_candidate_streams_its_result_and_the_comparison_is_written(ran):
    out, comparison = ran
    assert [r.status for r in comparison.rows] == ["finished"] * 4
    for r in comparison.rows:
        data = json.loads((out / r.folder / "result.json").read_text(encoding="utf-8"))
        assert data["seed"] == 3 and data["config"]["epsilon"] == r.overrides["epsilon"]
        assert r.result_sha256 == result_sha256(data)      # what a sign-off of it records
    assert read_comparison(out) == comparison


def _without_timings(d: dict) -> dict:
    for row in d["rows"]:
        row.pop("runtime_s")
        row.pop("result_sha256")      # result.json holds its own run time and creation time
    return d


def test_same_spec_gives_the_same_comparison(ran, tmp_path):
    out, first = ran
    again = run_comparison(tiny_set(), tmp_path / "again")
    assert _without_timings(again.to_dict()) == _without_timings(first.to_dict())


def test_cancel_after_the_first_candidate_keeps_it_and_marks_the_rest(tmp_path):
    token = CancelToken()

    def watch(fraction, message):
        if message.startswith("Candidate 2 of 3"):
            token.cancel()

    with pytest.raises(JobCancelled):
        run_comparison(tiny_set((0.1, 0.5, 1.0)), tmp_path, progress=Progress(watch),
                       cancel=token)
    saved = read_comparison(tmp_path)
    assert [r.status for r in saved.rows] == ["finished", "cancelled", "cancelled"]
    assert (tmp_path / "candidate-1" / "result.json").is_file()
    assert not (tmp_path / "candidate-2").exists()


def test_a_failing_candidate_is_marked_and_the_others_kept(tmp_path, monkeypatch):
    import engine.compare.run as run_module

    real = run_module.run_audit

    def flaky(config, **kw):
        if config.epsilon == 0.5:
            raise InputError("planted failure for the test.")
        return real(config, **kw)

    monkeypatch.setattr(run_module, "run_audit", flaky)
    comparison = run_comparison(tiny_set((0.1, 0.5)), tmp_path)
    assert [r.status for r in comparison.rows] == ["finished", "failed"]
    assert "planted failure" in comparison.rows[1].error
    assert comparison.pairs == ()


# ----------------------------------------------------------------------- saved projects

def _project(path, result: dict, audit_type: str = "location"):
    save_project(path, Project(audit_type=audit_type, config=result["config"], result=result,
                               name=path.name.split(".")[0]))
    return path


def test_projects_side_by_side_and_a_changed_data_file(ran, tmp_path):
    out, comparison = ran
    results = [json.loads((out / r.folder / "result.json").read_text(encoding="utf-8"))
               for r in comparison.rows[:2]]
    a = _project(tmp_path / "a.praudit.json", results[0])
    b = _project(tmp_path / "b.praudit.json", results[1])
    side = compare_projects([a, b])
    assert [r.risk for r in side.rows] == [r.risk for r in comparison.rows[:2]]
    # b's result lists a data file: unchanged it compares, changed it is refused
    data = tmp_path / "traces.csv"
    data.write_text("user_id,site,epoch\n1,1,1\n", encoding="utf-8")
    results[1]["inputs"] = [{"path": str(data), "sha256": file_sha256(data), "bytes": 22}]
    _project(b, results[1])
    compare_projects([a, b])
    data.write_text("user_id,site,epoch\n1,1,2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"traces.csv has changed since the result was "
                                         r"computed.*run the audit again"):
        compare_projects([a, b])


def test_projects_of_two_audit_types_are_refused(ran, tmp_path):
    from engine.audits.mechanism import MechanismConfig, run
    out, comparison = ran
    loc = json.loads((out / comparison.rows[0].folder / "result.json").read_text("utf-8"))
    mech = run(MechanismConfig(trials=200, sweep="observations")).to_dict()
    a = _project(tmp_path / "a.praudit.json", loc)
    b = _project(tmp_path / "b.praudit.json", mech, "mechanism")
    with pytest.raises(InputError, match="is a mechanism audit and a.praudit.json a location "
                                         "audit; only projects of one audit type"):
        compare_projects([a, b])


# ----------------------------------------------------------------------- the pair rule

def _row(i, lo, hi, level="low", cost=1.0):
    from engine.compare import CostFigure
    return CandidateRow(index=i, label=f"c{i}", overrides={}, status="finished", error=None,
                        risk=RiskFigure("accuracy", "acc", (lo + hi) / 2, (lo, hi), 0.5, ""),
                        cost=CostFigure("mean_abs_error", "err", cost, "count", ""),
                        verdict_level=level, verdict_sentence="", meets_policy=level == "low",
                        result_sha256=None, folder=None)


def test_overlapping_intervals_cannot_be_told_apart_and_disjoint_ones_can():
    pairs = pair_tests([_row(1, 0.50, 0.60), _row(2, 0.58, 0.70), _row(3, 0.69, 0.80)])
    told = {(p.a, p.b): p.distinguishable for p in pairs}
    assert told == {(1, 2): False, (1, 3): True, (2, 3): False}
    assert "cannot be told apart at this size" in pairs[0].sentence
    assert "“c1” is the safer" in pairs[1].sentence


def test_best_is_the_cheapest_that_meets_the_policy(ran):
    _, comparison = ran
    ok = [r for r in comparison.rows if r.meets_policy]
    if ok:
        best = min(ok, key=lambda r: r.cost.value)
        assert comparison.best == best.index and f"“{best.label}”" in comparison.best_sentence
    else:
        assert comparison.best is None and "None of the candidates" in comparison.best_sentence
    assert all(r.meets_policy == (r.verdict_level == "low") for r in comparison.rows)


def test_compare_results_of_labels_alone_defaults_to_pending():
    c = compare_results(["a", "b"], [None, None])
    assert [r.status for r in c.rows] == ["pending", "pending"] and c.best is None
    assert Comparison.from_dict(c.to_dict()) == c


# ----------------------------------------------------------------------- report, CLI

def test_the_report_is_a_pdf_with_the_signoff(ran, tmp_path):
    from engine.report.comparison import build_story, write_comparison_report
    _, comparison = ran
    sign = SimpleNamespace(decision="approve", reviewer="A. Officer", role="DPO",
                           date="2026-11-28", conditions="",
                           result_sha256=comparison.rows[0].result_sha256)
    path = write_comparison_report(comparison, tmp_path / "c.pdf", signoff=sign)
    assert path.read_bytes().startswith(b"%PDF")
    text = re.sub(r"<[^>]+>", "", " ".join(getattr(f, "text", "")
                                           for f in build_story(comparison, sign)))
    assert "Approved by A. Officer, DPO" in text and comparison.rows[0].label in text


def test_cli_compare_exit_0_on_a_small_spec_and_2_on_a_bad_one(tmp_path, capsys):
    from main import main
    good = _spec(tmp_path, spec_text('label = "a"\nepsilon = 0.2', 'label = "b"\nepsilon = 2.0'))
    assert main(["compare", str(good), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    for name in ("comparison.json", "comparison.pdf", "candidate-1/result.json",
                 "candidate-2/result.json"):
        assert (tmp_path / "out" / name).is_file()
    bad = tmp_path / "bad.toml"
    bad.write_text(spec_text('label = "a"\nepsilon = 0.2'), encoding="utf-8")
    assert main(["compare", str(bad), "--out", str(tmp_path / "out2"), "--quiet"]) == 2
    assert "at least 2 candidate releases" in capsys.readouterr().err
