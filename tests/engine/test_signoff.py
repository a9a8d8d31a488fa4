"""The sign-off (issue 34 item 3): the result's SHA-256 fingerprint, signing with each field
checked, the check against a changed result, the typed result, the project file and the PDF."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from engine.data.errors import InputError
from engine.project import Project, load_project, save_project
from engine.results.loaded import load_result
from engine.results.result import AuditResult, to_plain
from engine.signoff import DECISIONS, SignOff, check, result_sha256, sign

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"
TODAY = _dt.date.today().isoformat()


def saved(audit_type: str = "mechanism") -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text(encoding="utf-8"))


def result_of(audit_type: str = "mechanism") -> dict:
    return saved(audit_type)["result"]


def signed(result: dict, **changes) -> SignOff:
    fields = dict(decision="approve_with_conditions", conditions="Yearly tables only.",
                  reviewer="Jane Roe", role="DPO", date=TODAY, rationale="Low risk at ε = 1.")
    return sign(result, **{**fields, **changes})


def reordered(value):
    """``value`` with every table's keys in reverse order (the same content)."""
    if isinstance(value, dict):
        return {k: reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reordered(v) for v in value]
    return value


# --------------------------------------------------------------------------- the fingerprint

def test_the_hash_is_the_sha256_of_the_canonical_json():
    r = {"b": 1, "a": [1.5, "é"]}
    want = hashlib.sha256('{"a":[1.5,"é"],"b":1}'.encode()).hexdigest()
    assert result_sha256(r) == want


def test_the_hash_does_not_depend_on_key_order():
    r = result_of()
    assert list(reordered(r)) != list(r)
    assert result_sha256(reordered(r)) == result_sha256(r)


def test_the_hash_of_a_result_is_that_of_the_result_json_it_was_written_to(tmp_path):
    ar = AuditResult.from_dict(result_of())
    ar.write_json(tmp_path / "result.json")
    back = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert result_sha256(back) == result_sha256(ar.to_dict())
    # A fresh dict with what a run holds before result.json (numpy values, tuples, NaN) hashes
    # as the JSON it becomes.
    fresh = {**ar.to_dict(), "theory": {"p": np.float64(0.25), "n": np.int64(3),
                                        "pair": (1, 2), "gap": float("nan"),
                                        "grid": np.array([0.5, 1.0])}}
    (tmp_path / "fresh.json").write_text(json.dumps(to_plain(fresh)), encoding="utf-8")
    read = json.loads((tmp_path / "fresh.json").read_text(encoding="utf-8"))
    assert result_sha256(read) == result_sha256(fresh)
    assert result_sha256(load_result(read)) == result_sha256(read)      # a loaded result too


def test_the_officers_additions_are_not_signed_and_a_figure_is():
    r = result_of()
    base = result_sha256(r)
    added = {**r, "decision_log": [{"time": "t", "text": "ok"}], "signoff": {"x": 1},
             "signoff_history": [{"y": 2}]}
    assert result_sha256(added) == base
    assert result_sha256({**r, "runtime_s": r["runtime_s"] + 1}) != base
    deep = json.loads(json.dumps(r))
    deep["verdict"]["level"] = "low" if r["verdict"]["level"] != "low" else "high"
    assert result_sha256(deep) != base
    assert result_sha256({**r, "summary": r["summary"] + " "}) != base


# --------------------------------------------------------------------------- signing

def test_a_signoff_records_the_result_and_the_fields():
    r = result_of()
    s = signed(r, reviewer="  Jane   Roe ")
    assert s.result_sha256 == result_sha256(r)
    assert (s.decision, s.reviewer, s.role, s.date) == ("approve_with_conditions", "Jane Roe",
                                                       "DPO", TODAY)
    assert s.audit_type == "mechanism" and s.release == r["name"]
    assert s.verdict == r["verdict"]["level"]
    assert s.past_label == "Approved with conditions" and s.who == "Jane Roe (DPO)"
    assert SignOff.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    # Conditions belong to a conditional approval only.
    assert signed(r, decision="approve").conditions == ""


@pytest.mark.parametrize("changes, key, words", [
    (dict(reviewer="   "), "signoff.reviewer", "Type the reviewer's name before signing."),
    (dict(conditions=""), "signoff.conditions", "Write the conditions of the approval"),
    (dict(decision="maybe"), "signoff.decision", "Choose a decision"),
    (dict(decision=""), "signoff.decision", "Choose a decision"),
    (dict(date="28/11/2026"), "signoff.date", "written as year-month-day"),
    (dict(date="2026-02-30"), "signoff.date", "written as year-month-day"),
    (dict(date="2999-01-01"), "signoff.date", "is in the future"),
    (dict(reviewer="x" * 201), "signoff.reviewer", "shorten it to at most 200"),
])
def test_sign_refuses_a_wrong_field_with_a_sentence_naming_it(changes, key, words):
    with pytest.raises(InputError) as caught:
        signed(result_of(), **changes)
    assert caught.value.key == key
    assert words in str(caught.value)
    assert len(caught.value.one_line().splitlines()) == 1


def test_sign_without_a_result_says_to_run_first():
    for nothing in (None, {}):
        with pytest.raises(InputError, match="run the audit first"):
            signed(nothing)


def test_check_matches_the_signed_result_and_names_a_changed_one():
    r = result_of()
    s = signed(r)
    assert check(s, r) is None
    assert check(s, reordered(r)) is None
    assert check(s, {**r, "decision_log": [{"time": "t", "text": "later note"}]}) is None
    assert check(None, r) is None
    changed = {**r, "summary": "Edited by hand."}
    problem = check(s, changed)
    assert problem is not None and "no longer matches" in problem and "Jane Roe (DPO)" in problem
    assert result_sha256(changed)[:12] in problem and s.result_sha256[:12] in problem
    assert "no longer in the project" in check(s, None)


@pytest.mark.parametrize("damage", [
    {"decision": "approved"}, {"reviewer": 3}, {"result_sha256": "abc"}, {"date": None}])
def test_a_damaged_signoff_is_a_sentence(damage):
    d = {**signed(result_of()).to_dict(), **damage}
    with pytest.raises(InputError) as caught:
        SignOff.from_dict(d, "x.praudit.json")
    assert caught.value.one_line().startswith("x.praudit.json: the sign-off")
    with pytest.raises(InputError):
        SignOff.from_dict(["not", "a", "table"])


def test_the_typed_result_reads_the_signoff_and_its_history():
    r = result_of()
    s, earlier = signed(r), signed(r, decision="reject", reviewer="Sam Poe")
    loaded = load_result({**r, "signoff": s.to_dict(),
                          "signoff_history": [earlier.to_dict(), {"junk": 1}]})
    assert loaded.signoff == s
    assert loaded.signoff_history == (earlier,)                # the unreadable one left out
    assert "signoff" not in loaded.extra and "signoff_history" not in loaded.extra
    old = load_result(r)                                      # a result from before issue 34
    assert old.signoff is None and old.signoff_history == ()
    assert load_result({**r, "signoff": {"decision": "x"}}).signoff is None
    assert set(DECISIONS) == {"approve", "approve_with_conditions", "reject"}


# --------------------------------------------------------------------------- the project

def test_a_project_keeps_its_signoff_and_history_through_save_and_open(tmp_path):
    data = saved()
    project = Project(audit_type="mechanism", config=data["config"], result=data["result"])
    project.signoff = signed(project.result).to_dict()
    path = save_project(tmp_path / "p.praudit.json", project)
    back = load_project(path)
    assert back.signoff == project.signoff and back.signoff_problem is None
    back.supersede_signoff(config=back.config)
    assert back.signoff is None and len(back.history) == 1
    entry = back.history[0]
    assert entry["signoff"] == project.signoff and entry["config"] == back.config
    assert entry["result_sha256"] == project.signoff["result_sha256"] and entry["superseded_at"]
    save_project(path, back)
    again = load_project(path)
    assert again.signoff is None and again.history == back.history


def test_an_old_project_without_a_signoff_opens_unchanged():
    project = load_project(PROJECTS / "mechanism.praudit.json")
    assert "signoff" not in saved()
    assert project.signoff is None and project.history == [] and project.signoff_problem is None


def test_a_project_whose_result_changed_after_signing_opens_with_a_sentence(tmp_path):
    data = saved()
    data["signoff"] = signed(data["result"]).to_dict()
    data["result"]["summary"] = "Edited after signing."
    path = tmp_path / "edited.praudit.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    project = load_project(path)
    assert project.signoff is not None
    assert project.signoff_problem.startswith(f"{path}: The result no longer matches")


@pytest.mark.parametrize("field, value, words", [
    ("signoff", "yes", "the sign-off must be a table"),
    ("signoff", {"decision": "approve"}, "the sign-off's conditions must be text"),
    ("history", {"a": 1}, "'history' must be a list of signed versions"),
    ("history", [{"config": {}, "signoff": {"decision": "approve"}}], "in its signed history"),
])
def test_a_damaged_signoff_in_a_project_is_refused_with_a_sentence(tmp_path, field, value,
                                                                   words):
    data = {**saved(), field: value}
    path = tmp_path / "bad.praudit.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_project(path)
    line = caught.value.one_line()
    assert line.startswith(f"{path}: is damaged") and words in line, line
    assert len(line.splitlines()) == 1


# --------------------------------------------------------------------------- the report

def pdf_text(result: dict, path: Path) -> str:
    pypdf = pytest.importorskip("pypdf")
    from engine.report.pdf import write_report

    write_report(result, path)
    text = "\n".join(p.extract_text() or "" for p in pypdf.PdfReader(str(path)).pages)
    return re.sub(r"\s+", " ", text)


def test_the_report_prints_the_decision_on_the_cover_and_its_page(tmp_path):
    # The location result names its target: the report withholds it, yet the result it checks
    # against the signature is the one signed.
    r = result_of("location")
    s = signed(r, rationale="Low risk <b>&amp; ε = 1.")            # printed as typed
    earlier = signed(r, decision="reject", reviewer="Sam Poe", role="")
    text = pdf_text({**r, "signoff": s.to_dict(), "signoff_history": [earlier.to_dict()]},
                    tmp_path / "signed.pdf")
    cover = (f"Decision: Approved with conditions — by Jane Roe (DPO), {TODAY}; result "
             f"SHA-256 {s.result_sha256[:12]}…")
    assert cover in text
    assert text.index(cover) < text.index("2. What was audited")
    page = text[text.index("Decision and sign-off"):]
    for words in ("Approve with conditions", "Yearly tables only.", "Jane Roe", "DPO", TODAY,
                  "Low risk <b>&amp; ε = 1.", s.result_sha256, "The fingerprints match",
                  "Earlier signed versions", "Rejected by Sam Poe"):
        assert words in page, words
    assert text.index("7. Verdict") < text.index("Decision and sign-off") < text.index(
        "8. Limitations")


def test_the_report_says_not_signed_and_a_changed_result(tmp_path):
    r = result_of()
    text = pdf_text(r, tmp_path / "unsigned.pdf")
    assert "Not signed: no decision has been recorded on this result." in text
    s = signed(r)
    changed = {**r, "summary": "Edited after signing.", "signoff": s.to_dict()}
    text = pdf_text(changed, tmp_path / "changed.pdf")
    assert "this report's result does not match the signed one" in text
    assert "The fingerprints do not match." in text and result_sha256(changed) in text
