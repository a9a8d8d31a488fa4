"""The count-tables audit's PDF report section (engine/report/aggregates.py).

Built from a hand-made result.json that follows docs/dev/aggregates_result_contract.md (the
attack entries come from the shared ``evaluate_attack`` on small simulated games), with and
without its optional parts (membership game, sweeps, published table, DP noise), and once from
a real, tiny run of ``engine.audits.aggregates.run``. Exposed records carry labels that appear
nowhere else, so the text shows whether the report printed them.
"""

from __future__ import annotations

import copy
import math
import re

import numpy as np
import pytest

from engine.auditing import evaluate_attack
from engine.audits.registry import AUDIT_TYPES
from engine.metrics import clopper_pearson
from engine.plots import series
from engine.policy import VerdictPolicy
from engine.report import write_report
from engine.report.aggregates import AggregatesSections, chance_corrected
from engine.report.pdf import build_story
from engine.report.sections import SECTION_TITLES
from engine.report.styles import fmt3, fmt_count, fmt_eps, fmt_pct

try:
    from pypdf import PdfReader
except ImportError:  # pragma: no cover - pypdf is a test dependency; fall back to the story
    PdfReader = None

VALUES = ["White", "Black", "Asian", "Other"]
T = 40                      # targets of the attribute game
EPS = 0.5                   # ε per count of the noisy variant
SENS = 3.0
FPR_TARGETS = (0.001, 0.01, 0.1)
SECRET_QI = "block=B-4711 ZQX"          # labels that only an exposed-record listing holds
SECRET_CELL = "P12X: sex=Female, age=97 ZQX"
SECRET_VALUE = "Asian (proved) ZQX"
SECRET_QI_2 = "block=B-0815 WQY"
SECRET_CELL_2 = "P12Y: sex=Male, age=101 WQY"


def _aia_attack(name: str, label: str, strength: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    k = len(VALUES)
    truth = rng.integers(0, k, T)
    scores = rng.normal(0, 1, (T, k))
    scores[np.arange(T), truth] += strength
    member = np.zeros((T, k), bool)
    member[np.arange(T), truth] = True
    top1 = scores.argmax(1) == truth
    lo, hi = clopper_pearson(int(top1.sum()), T, 0.95)
    ex = evaluate_attack(name, label, scores[10:].ravel(), member[10:].ravel(), delta=0.0,
                         fpr_targets=FPR_TARGETS)
    return evaluate_attack(
        name, label, scores.ravel(), member.ravel(), delta=0.0, fpr_targets=FPR_TARGETS,
        details={"game": "aia", "paper": "003", "top1_accuracy": float(top1.mean()),
                 "top1_accuracy_ci": [lo, hi], "chance": 1 / k,
                 "excluding_determined": {"auc": ex["auc"], "auc_ci": ex["auc_ci"],
                                          "targets": T - 10}})


def _mia_attack(name: str, label: str, strength: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    member = rng.integers(0, 2, T).astype(bool)
    scores = rng.normal(0, 1, T) + strength * member
    return evaluate_attack(name, label, scores, member, delta=0.0, fpr_targets=FPR_TARGETS,
                           details={"game": "mia", "paper": "003"})


def _sweep(parameter: str, values: list[float], strength: list[float]) -> dict:
    names = {"desia": "DeSIA: deterministic then stochastic module (paper 003 §3)",
             "cip_rand": "CIP-rand reconstruction + neighbourhood vote (paper 003 §2.5)"}
    attacks = {}
    for j, name in enumerate(names):
        rows = []
        for s in strength:
            auc = 0.5 + 0.45 * (1 - math.exp(-s)) * (1 - 0.2 * j)
            rows.append({"auc": auc, "auc_ci": [auc - 0.06, min(1.0, auc + 0.06)],
                         "top1_accuracy": 0.25 + auc / 4,
                         "top1_accuracy_ci": [0.2, 0.6]})
        attacks[name] = rows
    out = {"parameter": parameter, "values": values,
           "queries": [max(1, round(v * 100)) for v in values] if parameter == "fraction"
           else [25] * len(values),
           "determined_share": [min(1.0, 0.02 * s) for s in strength],
           "attacks": attacks, "labels": names}
    if parameter == "epsilon":
        out["noise_scale"] = [1 / v for v in values]
    return out


def _dp_block(eps_release: float) -> dict:
    k = len(VALUES)
    e2 = 2 * eps_release
    fpr = np.unique(np.r_[0.0, np.geomspace(1e-5, 1.0, 200)])
    upper = np.minimum.reduce([np.ones_like(fpr), np.exp(e2) * fpr,
                               1 - np.exp(-e2) * (1 - fpr)])
    return {"epsilon_release": eps_release, "epsilon_change": e2, "delta": 0.0,
            "sensitivity": SENS, "budget": "per_query",
            "aia_top1_bound": math.exp(e2) / (math.exp(e2) + k - 1),
            "mia_accuracy_bound": math.exp(e2) / (1 + math.exp(e2)),
            "dp_region": {"epsilon": e2, "delta": 0.0, "fpr": fpr.tolist(),
                          "tpr_upper": upper.tolist()},
            "note": "Laplace noise of scale 2 on every count; sensitivity 3 (exact)."}


def _exposed(listed: bool) -> list[dict]:
    recs = []
    for qi, cell, value, ok in ((SECRET_QI, SECRET_CELL, SECRET_VALUE, True),
                                (SECRET_QI_2, SECRET_CELL_2, "White", True),
                                (SECRET_QI, SECRET_CELL_2, "Black", False)):
        recs.append({"record": {"block": qi, "sex": "Female"} if listed else "(redacted)",
                     "value": value if listed else "(redacted)", "value_correct": ok,
                     "pinning_cells": [cell, "P1: total"],
                     "tables": sorted({cell.split(":")[0], "P1"})})
    return recs


def contract_result(*, membership: bool = True, sweeps: bool = True, published: bool = False,
                    noise: bool = True, listed: bool = True) -> dict:
    """A result.json of the count-tables audit, by hand, to the contract."""
    from engine.audits.aggregates import AggregatesConfig

    cfg = AggregatesConfig(name="Block <B> & co", mechanism="laplace" if noise else "none",
                           epsilon=EPS, list_exposed_records=listed,
                           sweep_fractions=(0.05, 0.25, 1.0) if sweeps else (),
                           sweep_epsilons=(10.0, 1.0, 0.1) if sweeps else ()).to_dict()
    attacks = [
        _aia_attack("desia", "DeSIA: deterministic then stochastic module (paper 003 §3)",
                    2.0, 1),
        _aia_attack("cip_rand", "CIP-rand reconstruction + neighbourhood vote (paper 003 §2.5)",
                    1.0, 2),
        _aia_attack("data_only", "Data-only guess: the most frequent value among similar "
                    "auxiliary records", 0.1, 3),
    ]
    policy = VerdictPolicy()
    best = max(chance_corrected(a["details"]["top1_accuracy"], 0.25) for a in attacks)
    level, reasons = policy.level(0.0, best)
    tables = [{"table": t, "cells": c} for t, c in
              (("P1", 1), ("P6", 4), ("P12X", 9), ("P12Y", 7), ("P12A", 3), ("P12B", 2),
               ("P12C", 1), ("P12D", 2), ("P12E", 1), ("P12F", 1))]
    theory = {
        "game": {"sensitive": "race", "values": VALUES, "chance": 0.25,
                 "quasi_identifiers": ["block", "sex", "age", "hispanic"], "records": 120,
                 "auxiliary_records": 900, "auxiliary_source": "synthetic",
                 "unique_records": 77, "targets": T},
        "release": {"kind": "p_tables", "fraction": 0.25, "queries": 30, "candidates": 412,
                    "tables": tables, "sensitivity": SENS, "sensitivity_exact": True,
                    "mechanism": "laplace" if noise else "none",
                    "epsilon": EPS if noise else None, "delta": None, "budget": "per_query",
                    "noise_scale": 1 / EPS if noise else 0.0,
                    "preview": [{"table": "P6", "label": f"P6: race=cell {i}", "count": i}
                                for i in range(20)]},
        "dp": _dp_block(SENS * EPS) if noise else None,
        "deterministic": {"targets": T, "determined": 3, "correct": 2, "time_limited": 1,
                          "settled_by": {"witness table": 36, "released zeros": 2,
                                         "solver": 1},
                          "median_s": 0.042, "p95_s": 0.31},
        "membership": None,
        "sweeps": {},
    }
    if membership:
        theory["membership"] = {
            "attacks": [_mia_attack("desia_mia", "DeSIA-MIA: deterministic membership check, "
                                    "then the stochastic module (§6.2)", 1.5, 4),
                        _mia_attack("cip_rand_mia", "CIP-rand reconstruction MIA: share of "
                                    "reconstructions holding the record (§6.3)", 0.3, 5)],
            "targets": T, "proved": 6, "proved_correct": 6}
    if sweeps:
        theory["sweeps"] = {"fraction": _sweep("fraction", [0.05, 0.25, 1.0], [0.5, 1, 3]),
                            "noise": _sweep("epsilon", [10.0, 1.0, 0.1], [3, 1, 0.1])}
    exposed = _exposed(listed)
    if published:   # as run() gives it: no membership game, values of unknown truth
        theory["published"] = {"path": "tables/published <2020>.csv", "rows": 57,
                               "records": 131, "consistent": True, "candidates": 64,
                               "determined": 3, "note": "Checked with the auxiliary sample."}
        theory["release"].update(kind="published", fraction=None, queries=57, candidates=57)
        theory["game"]["auxiliary_source"] = "published_sample"
        theory["membership"] = None
        for r in exposed:
            r["value_correct"] = None
    return {
        "schema_version": 1, "audit_type": "aggregates", "name": cfg["name"], "seed": 7,
        "created": "2025-11-21T04:46:12+00:00", "config": cfg, "config_sha256": "ab" * 32,
        "inputs": [], "software": {"app": "0.1.0", "python": "3.11", "device": "cpu"},
        "runtime_s": 12.5,
        "summary": "Someone who knows a person's block, sex, age and Hispanic origin can name "
                   "their race from these tables far more often than by chance.",
        "attacks": attacks,
        "baselines": [{"name": "random_guess", "label": "Random guess (no information)",
                       "n_positive": T, "n_negative": 3 * T, "auc": 0.5, "accuracy": 0.5,
                       "advantage": 0.0,
                       "tpr_at_fpr": [{"fpr_target": t, "tpr": t} for t in FPR_TARGETS]}],
        "theory": theory,
        "exposed_records": exposed,
        "verdict": {"level": level, "policy": policy.name, "policy_rules": policy.rules(),
                    "reasons": reasons},
        "warnings": ["Only 40 targets were attacked: intervals are wide."],
    }


def story_text(result: dict, include_records: bool = False) -> str:
    """The text of every Paragraph (and table cell) of the story, tags stripped."""
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


def pdf_text(result: dict, path, include_records: bool = False) -> str:
    write_report(result, path, include_records=include_records)
    assert path.read_bytes()[:5] == b"%PDF-"
    if PdfReader is None:  # pragma: no cover
        return story_text(result, include_records)
    reader = PdfReader(str(path))
    text = " ".join(p.extract_text() or "" for p in reader.pages)
    return re.sub(r"\s+", " ", text.replace("\u2206", "Δ"))   # Symbol's Delta reads as ∆


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    result = contract_result()
    path = tmp_path_factory.mktemp("agg") / "full.pdf"
    return result, pdf_text(result, path)


def test_registered_for_the_aggregates_audit():
    assert AUDIT_TYPES["aggregates"].sections() is AggregatesSections


def test_sections_in_order_with_the_count_table_subsections(full):
    result, text = full
    at = [text.find(f"{i}. {title}") for i, title in enumerate(SECTION_TITLES, 1)]
    assert all(p >= 0 for p in at) and at == sorted(at), dict(zip(SECTION_TITLES, at,
                                                                  strict=True))
    assert "Aggregate-statistics attribute-inference audit" in text
    assert "Block <B> & co" in text
    ordered = ["What was released:", "The released tables", "What the attacker sees",
               "What the attacker knows", "How the game is played", "The membership game",
               "DeSIA: proof first, then learning", "How the attacks are measured",
               "How well each attack ranks the true value",
               "How often each attack names the right value",
               "What the tables prove on their own", "ROC curves of the attribute game",
               "The membership game (paper 003 §6)",
               "The privacy guarantee of the release", "Measured attacks against the DP bound",
               "What if more or fewer counts were released?", "What if more noise were added?",
               "Which tables to coarsen or suppress first"]
    pos = [text.find(s) for s in ordered]
    assert all(p >= 0 for p in pos), dict(zip(ordered, pos, strict=True))
    assert pos == sorted(pos), dict(zip(ordered, pos, strict=True))
    # Membership-game wording of the shared sections does not leak into the attribute game.
    assert "people present found" not in text.split("The membership game (paper 003 §6)")[0]
    assert "Empirical ε lower bound" not in text


def test_release_game_and_verdict_numbers(full):
    result, text = full
    th = result["theory"]
    rel, dp = th["release"], th["dp"]
    assert f"{fmt_count(rel['queries'])} counts drawn at random from the " \
           f"{fmt_count(rel['candidates'])} cells of 10 Census-style contingency tables" in text
    assert "m/|D| = 0.25 for |D| = 120 people" in text
    assert f"scale {1 / EPS:.4g}" in text and f"ε = {fmt_eps(EPS)} per released count" in text
    assert "at most Δ = 3 released counts" in text
    assert f"ε = {fmt_eps(dp['epsilon_release'])}-DP for adding or removing one person" in text
    assert "race: 4 values" in text and "White, Black, Asian, Other" in text
    assert "guessing blindly" in text or "naming a value blindly is right 25.0%" in text
    level = result["verdict"]["level"]
    assert f"Verdict: {level.upper()} risk" in text
    assert re.sub(r"\s+", " ", result["summary"]) in text
    assert "Only 40 targets were attacked" in text


def test_attack_tables_hold_auc_tpr_top1_and_chance(full):
    result, text = full
    for a in result["attacks"]:
        d = a["details"]
        assert fmt3(a["auc"]) in text
        assert f"[{fmt3(a['auc_ci'][0])}, {fmt3(a['auc_ci'][1])}]" in text
        assert fmt_pct(d["top1_accuracy"]) in text
        lo, hi = d["top1_accuracy_ci"]
        assert f"[{fmt_pct(lo)}, {fmt_pct(hi)}]" in text
        # In percent, as the verdict quotes the best-guess score.
        assert fmt_pct(chance_corrected(d["top1_accuracy"], d["chance"])) in text
        assert fmt_pct(a["accuracy"]) in text       # the yes/no decisions' balanced accuracy
        assert fmt3(d["excluding_determined"]["auc"]) in text
        ten = next(r for r in a["tpr_at_fpr"] if r["fpr_target"] == 0.1)
        assert ten["measurable"] and fmt_pct(ten["tpr"]) in text
    assert "TPR at 10.0% FPR" in text and "TPR at 0.1% FPR" in text
    assert "not measurable" in text and "needs ≥ 300 wrong-value pairs" in text
    assert "Chance 1/|V|" in text and "25.0%" in text
    assert "0.5 + (top-1 − chance) / (2·(1 − chance))" in text
    best = max(result["attacks"], key=lambda a: a["details"]["top1_accuracy"])
    n_right = round(best["details"]["top1_accuracy"] * T)
    assert f"for {n_right} of the {T} targets" in text


def test_deterministic_membership_and_dp_comparison(full):
    result, text = full
    th = result["theory"]
    assert "Proved by the tables 3 (7.5%)" in text
    assert "Of which right 2" in text and "Solves cut by the time limit 1" in text
    assert ("How each target was settled 36 left open by a witness table; 2 proved by counts "
            "of zero; 1 settled by the solver") in text
    assert "median 0.042 s, 95th percentile 0.31 s" in text
    assert "1 proved value(s) were wrong" in text
    assert "The tables alone proved 6 of the memberships (all of them right)" in text
    for a in th["membership"]["attacks"]:
        assert fmt3(a["auc"]) in text and fmt_pct(a["accuracy"]) in text
    assert "ROC of the membership game, log-log axes" in text
    region = th["dp"]["dp_region"]       # the legend's words are the screen's (plot series)
    assert (f"ε = {series.number_words(region['epsilon'])}, δ = "
            f"{series.number_words(region.get('delta') or 0.0)})-DP: an attack must stay") in text
    assert f"Shaded: what ε' = {fmt_eps(th['dp']['epsilon_change'])} permits" in text
    assert f"ε' for changing one person's value {fmt_eps(th['dp']['epsilon_change'])}" in text
    assert fmt_pct(th["dp"]["aia_top1_bound"]) in text
    assert fmt_pct(th["dp"]["mia_accuracy_bound"]) in text
    assert "below the bound" in text or "consistent with the bound" in text


def test_sweeps_published_and_tables_to_coarsen(full):
    result, text = full
    assert "AUC against the share of counts released (paper 003 Fig. 6)" in text
    assert "AUC against the noise, ε per count (paper 003 Fig. 8)" in text
    assert "audited: m/|D| = 0.25" in text and f"audited: ε = {fmt_eps(EPS)}" in text
    for sw in result["theory"]["sweeps"].values():
        for rows in sw["attacks"].values():
            assert fmt3(rows[-1]["auc"]) in text
    assert "3 records are provably determined by the tables (3 of the 40 targets" in text
    assert "2 of these values are right" in text
    # Per table, most exposed records first: P1 counts all three, P12Y two, P12X one.
    assert "P1 3 100.0% 1 P12Y 2 66.7% 7 P12X 1 33.3% 9" in text


def test_exposed_records_withheld_without_include_records(full, tmp_path):
    result, text = full
    assert result["exposed_records"][0]["record"]["block"] == SECRET_QI   # the result has them
    for secret in (SECRET_QI, SECRET_CELL, SECRET_VALUE, SECRET_QI_2, SECRET_CELL_2, "ZQX",
                   "WQY"):
        assert secret not in text
    assert "The records themselves are not listed" in text
    assert "Released cells that pin it down" not in text


def test_exposed_records_listed_with_include_records(tmp_path):
    result = contract_result()
    text = pdf_text(result, tmp_path / "listed.pdf", include_records=True)
    for secret in (SECRET_QI, SECRET_CELL, SECRET_VALUE, SECRET_QI_2, SECRET_CELL_2):
        assert secret in text
    assert "Treat this page as personal data" in text
    assert "— wrong" in text and "— right" in text


def test_include_records_cannot_add_what_the_result_redacted(tmp_path):
    result = contract_result(listed=False)
    text = pdf_text(result, tmp_path / "redacted.pdf", include_records=True)
    assert SECRET_QI not in text and SECRET_VALUE not in text
    assert SECRET_CELL in text            # the cells are in the result either way
    assert "list_exposed_records = false" in text
    text = story_text(result, include_records=False)
    assert SECRET_CELL not in text and "ZQX" not in text


def test_published_table_findings(tmp_path):
    result = contract_result(published=True, membership=False, sweeps=False)
    text = pdf_text(result, tmp_path / "published.pdf")
    assert "an already-published table of 57 counts about |D| = 131 people" in text
    assert "The published table (tables/published <2020>.csv, 57 counts" in text
    assert "is consistent" in text and "Of which pinned down 3" in text
    assert "3 combinations of quasi-identifiers are pinned down by the published table" in text
    assert "Whether the values are right cannot be checked" in text
    assert SECRET_QI not in text


@pytest.mark.parametrize("parts", [
    dict(membership=False, sweeps=False, published=False, noise=False),
    dict(membership=True, sweeps=False, published=False, noise=False),
    dict(membership=False, sweeps=True, published=False, noise=True),
    dict(membership=False, sweeps=False, published=True, noise=True),
    dict(membership=True, sweeps=True, published=False, noise=True),
])
def test_optional_parts_appear_only_when_present(tmp_path, parts):
    result = contract_result(**parts)
    text = pdf_text(result, tmp_path / "part.pdf")
    assert ("The membership game (paper 003 §6)" in text) == parts["membership"]
    assert ("What if more noise were added?" in text) == parts["sweeps"]
    assert ("The published table" in text) == parts["published"]
    assert ("The privacy guarantee of the release" in text) == parts["noise"]
    if not parts["noise"]:
        assert "No noise was added: the counts are exact" in text
        assert "as exact counts: no noise was added" in text
        assert "Permitted by" not in text


def test_sparse_result_does_not_crash(tmp_path):
    """Nulls and missing blocks (an older or cancelled result) still give a report."""
    result = contract_result(membership=False, sweeps=False, noise=False)
    result["attacks"][0]["details"]["excluding_determined"] = None
    result["attacks"][1]["details"].pop("top1_accuracy")
    result["attacks"][2]["auc_ci"] = None
    result["theory"]["release"]["preview"] = []
    result["theory"]["deterministic"].update(determined=0, correct=0)
    result["exposed_records"] = []
    text = pdf_text(result, tmp_path / "sparse.pdf")
    assert "as in the first table (no target proved)" in text
    result["theory"]["deterministic"] = {}
    assert "No record is provably determined by the tables" in text
    result["theory"] = {}
    result["attacks"] = []
    text = pdf_text(result, tmp_path / "empty.pdf")
    assert "No attack results are recorded" in text


def test_many_attacks_keep_five_on_the_chart(tmp_path):
    from engine.attacks.aggregates import LABELS

    result = contract_result(membership=False, sweeps=False)
    base = result["attacks"][0]
    names = ["desia", "desia_no_verification", "desia_no_uniqueness", "desia_stochastic_only",
             "desia_deterministic_only", "cip_rand", "cip_init", "likelihood", "data_only"]
    result["attacks"] = [dict(copy.deepcopy(base), name=n, label=LABELS[n]) for n in names]
    text = pdf_text(result, tmp_path / "many.pdf")
    assert "Not drawn (five line styles only" in text
    for n in names:
        assert LABELS[n].split(" (")[0] in text


def test_sweep_chart_survives_empty_and_single_values():
    from engine.report.charts import attack_sweep_chart

    for values, attacks in (([], {}), ([0.25], {"desia": [{"auc": 0.7, "auc_ci": [0.6, 0.8]}]}),
                            ([1, 2], {"desia": [{"auc": None}, {"auc": 0.3,
                                                               "auc_ci": [0.1, 0.5]}]})):
        d = attack_sweep_chart(values, attacks, {}, title="t", x_title="x", current=0.25)
        assert d.width > 0


@pytest.fixture(scope="module")
def real_result():
    from engine.audits.aggregates import AggregatesConfig, run

    config = AggregatesConfig(census_records=60, census_auxiliary=400, max_targets=4,
                              n_shadow=300, reconstructions=2, membership=False,
                              attacks=("desia", "data_only"))
    return run(config).to_dict()


def test_report_from_a_real_tiny_run(real_result, tmp_path):
    result = real_result
    text = pdf_text(result, tmp_path / "real.pdf")
    th = result["theory"]
    assert "Aggregate-statistics attribute-inference audit" in text
    assert f"{fmt_count(th['release']['queries'])} counts drawn at random" in text
    for a in result["attacks"]:
        assert fmt3(a["auc"]) in text
        assert fmt_pct(a["details"]["top1_accuracy"]) in text
    assert f"Targets checked {th['deterministic']['targets']}" in text
    for w in result["warnings"]:
        assert re.sub(r"\s+", " ", w)[:60] in text


def test_config_reference_lists_every_count_tables_key():
    import dataclasses
    import pathlib

    from engine.audits.aggregates import AggregatesConfig

    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "config_reference.md"
           ).read_text(encoding="utf-8")
    section = doc.split('## Count tables (`audit_type = "aggregates"`)')[1].split("\n## ")[0]
    for f in dataclasses.fields(AggregatesConfig):
        if f.name != "policy":
            assert f"| `{f.name}` |" in section, f.name
    assert "| `audit_type` |" in section and "`[policy]`" in section
