"""The disclosure rules inside the count-table audit (issue 34 item 2): two constructed
releases whose answers are known by construction — every rule passes yet the counts prove the
target's value, and a cell of 3 people fails the threshold in a release that says nothing
about the sensitive value — run through the real audit; the block read back by the typed
loader; the report's section; the published-table case."""

from __future__ import annotations

import copy
import re

import pytest

from engine.audits.aggregates import AggregatesConfig, run
from engine.report.pdf import build_story
from engine.results.loaded import load_result

SCHEMA = {"schema_version": 1, "columns": [
    {"name": "a", "role": "quasi_identifier", "kind": "categorical",
     "categories": ["x", "y", "z"]},
    {"name": "b", "role": "quasi_identifier", "kind": "categorical", "categories": ["p", "q"]},
    {"name": "c", "role": "quasi_identifier", "kind": "categorical",
     "categories": ["c0", "c1", "c2", "c3", "c4"]},
    {"name": "s", "role": "sensitive", "kind": "categorical", "categories": ["no", "yes"]}]}


def _csv(path, rows, unique=()):
    """Rows (a, b, s, k): k people with c = c0; then ``unique`` rows (a, b, s), each with its
    own c (c1, c2, …): people unique on their quasi-identifiers whom no cell tells apart
    (the game attacks targets unique on their quasi-identifiers; scoring needs a few)."""
    lines = [f"{a},{b},c0,{s}\n" for a, b, s, k in rows for _ in range(k)]
    lines += [f"{a},{b},c{i},{s}\n" for i, (a, b, s) in enumerate(unique, 1)]
    path.write_text("a,b,c,s\n" + "".join(lines), encoding="utf-8")
    return path


def _two_values_of_a() -> dict:
    return {**SCHEMA, "columns": [{**SCHEMA["columns"][0], "categories": ["x", "y"]},
                                  *SCHEMA["columns"][1:]]}


def _config(tmp_path, data, queries, schema=None, **kw) -> AggregatesConfig:
    qpath = tmp_path / "queries.csv"
    qpath.write_text("label,a,b,s\n" + "".join(f"{lab},{a},{b},{s}\n"
                                               for lab, a, b, s in queries), encoding="utf-8")
    return AggregatesConfig.from_dict({
        "data": str(data), "schema": schema or SCHEMA, "sensitive": "s", "release": "custom",
        "release_options": {"path": str(qpath)}, "fraction": 0,
        "attacks": ["desia_deterministic_only"], "membership": False, "max_targets": 5,
        "solver_time_limit": 20, **kw})


def _text(result, include_records=False) -> str:
    from reportlab.platypus import Paragraph, Table

    out: list[str] = []

    def walk(f):
        if isinstance(f, Paragraph):
            out.append(f.getPlainText())
        elif isinstance(f, Table):
            for row in f._cellvalues:
                for cell in row:
                    for c in cell if isinstance(cell, (list, tuple)) else [cell]:
                        walk(c)
        for attr in ("_content", "_flowables"):
            for c in getattr(f, attr, None) or []:
                walk(c)

    for f in build_story(result, include_records):
        walk(f)
    return re.sub(r"\s+", " ", " ".join(out))


@pytest.mark.slow
def test_every_rule_passes_yet_the_counts_prove_the_value(tmp_path):
    """The target (x, p) is the only person with a = x and b = p (a takes x or y). Every
    cell holds at least 10 people, none is zero, no group is all one value, and no two nested
    cells differ by fewer than 10 — yet (x, p, no) = (x, no) − [(q, no) − (y, q, no)]
    = 10 − (20 − 10) = 0, and with the target's value re-drawn to "no" (x, p, yes) = 0 the same
    way, so the counts prove it either way."""
    data = _csv(tmp_path / "d.csv", [("x", "p", "yes", 1), ("x", "q", "no", 10),
                                     ("x", "q", "yes", 11), ("y", "q", "no", 10),
                                     ("y", "q", "yes", 10), ("y", "p", "no", 10),
                                     ("y", "p", "yes", 10)],
                [("y", "p", "no"), ("y", "p", "yes"), ("y", "p", "no"), ("y", "p", "yes")])
    queries = [("x-no", "x", "", "no"), ("q-no", "", "q", "no"), ("yq-no", "y", "q", "no"),
               ("x-yes", "x", "", "yes"), ("q-yes", "", "q", "yes"),
               ("yq-yes", "y", "q", "yes")]
    result = run(_config(tmp_path, data, queries, _two_values_of_a())).to_dict()
    block = result["theory"]["rules"]
    assert block["summary"]["passes"] and block["summary"]["failed_cells"] == 0
    assert block["summary"]["cells"] == 6
    assert len(result["exposed_records"]) == 1 and result["exposed_records"][0]["value_correct"]
    # the other four (y, p) people: nothing in the cells tells their values (the release
    # never splits (y, p) by value), and the attack falls back on a uniform guess
    assert [t["agreement"] for t in block["targets"]] == ["rules_pass_attack_proves"] + \
        ["both_pass"] * 4
    assert block["targets"][0]["target"] == "record 1"          # the first row of the file
    assert block["disagreement"]["rules_pass_attack_proves"] == 1
    rules = load_result(result).theory.rules
    assert rules is not None and rules.disagreement.rules_pass_attack_proves == 1
    assert "follows the attacks" in rules.followed_sentence
    text = _text(result)
    assert "The rules officers apply, beside the attacks" in text
    assert "The rules pass, yet the attack proves the value (1)" in text and "record 1" in text
    # An audit that listed records keeps the cells' labels (they spell out the person's
    # quasi-identifiers): printed only in a report with records included.
    listed = copy.deepcopy(result)
    listed["theory"]["rules"]["cells_listed"] = True
    listed["theory"]["rules"]["targets"][0]["cells"] = ["x-no", "x-yes"]
    assert "x-no; x-yes" not in _text(listed) and "2 named in result.json" in _text(listed)
    assert "x-no; x-yes" in _text(listed, include_records=True)


@pytest.mark.slow
def test_a_cell_of_three_fails_yet_no_attack_can_use_it(tmp_path):
    """The release counts people by a alone (no sensitive value in any cell) with Laplace
    noise: the cell a = z holds 3 people of mixed values, under the threshold, and the tables
    carry nothing about s, so no attack can prove or confidently find the target's value."""
    data = _csv(tmp_path / "d.csv", [("z", "p", "yes", 1), ("z", "q", "no", 1),
                                     ("z", "q", "yes", 1), ("x", "p", "no", 15),
                                     ("x", "p", "yes", 15), ("x", "q", "no", 15),
                                     ("x", "q", "yes", 15), ("y", "p", "no", 15),
                                     ("y", "p", "yes", 15), ("y", "q", "no", 15),
                                     ("y", "q", "yes", 15)],
                [("x", "p", "no"), ("x", "q", "yes"), ("y", "q", "no")])
    queries = [("x", "x", "", ""), ("y", "y", "", ""), ("z", "z", "", "")]
    config = _config(tmp_path, data, queries, mechanism="laplace", epsilon=0.5,
                     rules={"policy_follows": "both"})
    result = run(config).to_dict()
    block = result["theory"]["rules"]
    assert block["summary"]["failed_cells"] == 1
    assert block["cells"][0]["failed"] == ["threshold"] and block["cells"][0]["count"] == 3
    # the three others sit in cells of 60 and more: the rules pass, and so do the attacks
    assert [t["agreement"] for t in block["targets"]] == ["rules_fail_no_attack"] + \
        ["both_pass"] * 3
    assert block["targets"][0]["failed"] == ["threshold"]
    assert block["disagreement"]["rules_fail_no_attack"] == 1
    # the policy follows the stricter of the two: the failing rules make it high, and say so
    assert result["verdict"]["level"] == "high"
    assert "the attacks alone" in result["verdict"]["reasons"][-1]


@pytest.mark.slow
def test_rules_off_write_no_block_and_leave_the_rest_alone(tmp_path):
    data = _csv(tmp_path / "d.csv", [("z", "p", "yes", 1), ("x", "q", "no", 15),
                                     ("x", "q", "yes", 15), ("y", "p", "no", 15),
                                     ("y", "p", "yes", 15)],
                [("x", "q", "no"), ("y", "p", "yes"), ("x", "q", "yes")])
    queries = [("x-no", "x", "", "no"), ("x-yes", "x", "", "yes"), ("y", "y", "", ""),
               ("z", "z", "", "")]
    on = run(_config(tmp_path, data, queries)).to_dict()
    off = run(_config(tmp_path, data, queries, rules={"enabled": False})).to_dict()
    assert off["theory"]["rules"] is None and load_result(off).theory.rules is None
    assert on["theory"]["rules"] is not None
    for key in ("attacks", "exposed_records", "verdict", "summary"):
        assert on[key] == off[key], key
    assert _without_clock({k: v for k, v in on["theory"].items() if k != "rules"}) == \
        _without_clock({k: v for k, v in off["theory"].items() if k != "rules"})


def _without_clock(value):
    """Every key ending in "_s" (seconds measured, as tests/engine/test_determinism.py)."""
    if isinstance(value, dict):
        return {k: None if k.endswith("_s") else _without_clock(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


def test_a_value_column_that_is_not_a_number_is_named(tmp_path):
    from engine.data.errors import InputError

    data = _csv(tmp_path / "d.csv", [("z", "p", "yes", 1), ("x", "q", "no", 15),
                                     ("y", "p", "yes", 15)])
    with pytest.raises(InputError) as err:      # checked with the config, before the game
        _config(tmp_path, data, [("x", "x", "", "")], rules={"value_column": "b"})
    assert err.value.key == "rules.value_column" and "'b'" in str(err.value)


@pytest.mark.slow
def test_a_published_table_is_checked_on_its_counts_alone():
    """release = "published": the audit holds no one behind the table, so the rules run on
    the published counts, dominance and p % say they need the microdata, and no person is
    compared."""
    from engine.audits.aggregates import SAMPLE_AUXILIARY, SAMPLE_BLOCK, demo_config

    cfg = AggregatesConfig(data=str(SAMPLE_AUXILIARY), schema=demo_config().schema,
                           release="published",
                           release_options={"path": str(SAMPLE_BLOCK.parent /
                                                        "sample_published_p_tables.csv")},
                           published_records=450, max_targets=5, membership=False,
                           attacks=("desia_deterministic_only",),
                           rules={"value_column": "age"})
    block = load_result(run(cfg).to_dict()).theory.rules
    assert not block.from_microdata and block.summary.cells == 460
    assert not block.summary.ran("dominance") and not block.summary.ran("p_ratio")
    assert "need the microdata" in block.summary.sentence
    assert block.targets == () and "published" in block.disagreement.sentence
    # the failing cells are the published cells of 1 to 9 people (and the zeros)
    small = [c for c in block.cells if "threshold" in c.failed]
    assert small and all(1 <= c.count < 10 for c in small)
