"""The officer's frame (issue 34 item 4): each audit's findings mapped to the three risks of the
Article 29 opinion (WP216 §3), and the DPIA list (engine.findings.article29).

The saved sample projects (tests/data/projects, real runs of each audit type) give the
demo-shaped results; the hand-built ones pin one reading each: an attack at chance is "not
found at this size" and says what the size could have seen (never "no risk"); the verdict's
corrected evidence, where the result has it, decides over the uncorrected interval; a result
without a membership game says linkability was not tested; the decision line says who signed,
or that no decision is recorded.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from engine.findings.article29 import (
    DPIA_TITLE,
    FOUND,
    NO_DECISION,
    NOT_FOUND,
    NOT_TESTED,
    RISKS,
    TITLE,
    article29_risks,
    article29_text,
    dpia_items,
)
from engine.results.loaded import load_result
from engine.signoff import sign

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"
POLICY = {"name": "default", "fpr": 0.01, "high_tpr": 0.1, "medium_tpr": 0.02,
          "high_accuracy": 0.75, "medium_accuracy": 0.6}


def sample(audit_type: str) -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text("utf-8"))["result"]


def by_risk(result) -> dict:
    return {f.risk: f for f in article29_risks(result)}


def entry(name: str, acc: float, ci, *, tpr=None, tpr_ci=None, measurable=True,
          n_pos: int = 1000, n_neg: int = 1000) -> dict:
    rows = [] if tpr is None else [{"fpr_target": 0.01, "tpr": tpr, "tpr_ci": list(tpr_ci),
                                    "measurable": measurable}]
    return {"name": name, "label": name, "accuracy": acc, "accuracy_ci": list(ci), "auc": acc,
            "n_positive": n_pos, "n_negative": n_neg, "tpr_at_fpr": rows, "details": {}}


def evidence(tests) -> dict:
    """A verdict's evidence block of (attack, figure, counted) tests (engine.evidence)."""
    return {"method": "Holm", "alpha": 0.025, "m": len(tests), "sentence": "Weighed.",
            "tests": [{"attack": a, "label": a, "figure": f, "value": 0.5, "baseline": 0.5,
                       "p_value": 1e-4 if c else 0.4, "adjusted_p": 1e-3 if c else 1.0,
                       "counted": c} for a, f, c in tests]}


def mechanism_result(attacks, tests=None, optimum=None) -> dict:
    theory = {}
    if optimum is not None:
        theory["optimal_attacker"] = {"accuracy": optimum,
                                      "tpr_at_fpr": [{"fpr": 0.01, "tpr": 0.011}]}
    verdict = {"level": "low", "policy": "default", "policy_rules": ["Low otherwise."],
               "reasons": ["Nothing counted."]}
    if tests is not None:
        verdict["evidence"] = evidence(tests)
    return {"audit_type": "mechanism", "name": "Hand-built", "seed": 1,
            "config": {"policy": POLICY, "confidence": 0.95}, "attacks": attacks,
            "baselines": [], "theory": theory, "verdict": verdict}


# --------------------------------------------------------------------------- each audit type

def test_every_audit_type_gives_the_three_risks_in_order():
    for audit_type in ("mechanism", "location", "aggregates", "model"):
        risks = article29_risks(sample(audit_type))
        assert tuple(f.risk for f in risks) == RISKS
        assert all(f.level in (FOUND, NOT_FOUND, NOT_TESTED) and f.sentence for f in risks)


def test_count_tables_map_proofs_to_singling_out_and_inference_and_membership_to_linkability():
    result = sample("aggregates")
    th = result["theory"]
    risks = by_risk(result)
    # The sample's tables prove the value of 9 of its 20 unique targets, all of them right.
    assert th["deterministic"]["correct"] > 0
    single = risks["singling_out"]
    assert single.level == FOUND
    assert f"{th['deterministic']['correct']:,} of the {th['deterministic']['targets']:,}" \
        in single.sentence
    figures = dict(single.figures)
    assert figures["People unique on the details the attacker knows"].startswith(
        f"{th['game']['unique_records']:,} of {th['game']['records']:,}")
    infer = risks["inference"]
    assert infer.level == FOUND and "desia_deterministic_only" in infer.source_attacks
    # Its best-guess figure is quoted with its interval against chance (the sample predates
    # the verdict's evidence: the interval above chance is the test, said as uncorrected).
    assert any("best guess right" in k and "interval" in v for k, v in infer.figures)
    assert "not corrected" in infer.sentence
    # The membership game: its one attack cannot be told from guessing, but the tables prove
    # presence for some targets — a proof, so linkability is found.
    mem = th["membership"]
    assert mem["proved_correct"] > 0
    link = risks["linkability"]
    assert link.level == FOUND and "prove" in link.sentence
    assert dict(link.figures)["Presence proved by the tables"].startswith(
        f"{mem['proved']} of {mem['targets']}")


def test_count_tables_membership_game_at_chance_without_proofs_is_not_found():
    result = sample("aggregates")
    result["theory"]["membership"]["proved"] = 0
    result["theory"]["membership"]["proved_correct"] = 0
    link = by_risk(result)["linkability"]
    assert link.level == NOT_FOUND
    assert "not evidence that the risk is absent" in link.sentence


def test_a_result_without_a_membership_game_has_linkability_not_tested():
    result = sample("aggregates")
    del result["theory"]["membership"]
    link = by_risk(result)["linkability"]
    assert link.level == NOT_TESTED
    assert "membership game" in link.sentence and "was not played" in link.sentence


def test_count_tables_without_the_proof_search_say_singling_out_was_not_tested():
    result = sample("aggregates")
    del result["theory"]["deterministic"]
    assert by_risk(result)["singling_out"].level == NOT_TESTED


def test_location_links_a_trace_and_counts_the_people_who_stand_out():
    result = sample("location")
    risks = by_risk(result)
    assert risks["linkability"].level == FOUND
    labels = [k for k, _ in risks["linkability"].figures]
    assert any(k.startswith("The informed attacker (exact theory)") for k in labels)
    exposed = result["exposed_records"][0]
    single = risks["singling_out"]
    assert single.level == (FOUND if exposed["count"] else NOT_FOUND)
    assert f"{exposed['count']:,} of {exposed['population']:,}" in single.sentence
    assert risks["inference"].level == NOT_TESTED


def test_mechanism_is_a_membership_game_only():
    risks = by_risk(sample("mechanism"))
    assert risks["linkability"].level == FOUND
    assert any(k.startswith("The most the ε allows any attacker")
               for k, _ in risks["linkability"].figures)
    assert risks["singling_out"].level == NOT_TESTED
    assert risks["inference"].level == NOT_TESTED


def test_model_membership_and_an_unmeasurable_low_rate():
    result = sample("model")
    risks = by_risk(result)
    assert risks["linkability"].level == FOUND
    # Every attack's TPR at the policy's 1 % is unmeasurable in the sample (too few
    # non-members): singling out is not found at this size, and the sentence says why.
    rows = [r for a in result["attacks"] for r in a["tpr_at_fpr"] if r["fpr_target"] == 0.01]
    assert rows and not any(r.get("measurable", True) for r in rows)
    single = risks["singling_out"]
    assert single.level == NOT_FOUND and "can be measured: too few" in single.sentence
    # No sensitive feature named: attribute inference was not run.
    assert "attribute_inference" not in result["theory"]
    assert risks["inference"].level == NOT_TESTED


def test_model_members_picked_out_at_a_low_rate_single_them_out():
    result = sample("model")
    attack = result["attacks"][0]
    attack["tpr_at_fpr"] = [{"fpr_target": 0.01, "tpr": 0.2, "tpr_ci": [0.12, 0.3],
                             "measurable": True}]
    single = by_risk(result)["singling_out"]
    assert single.level == FOUND and attack["name"] in single.source_attacks
    # The same rate whose interval reaches down to the false-alarm rate is not found.
    attack["tpr_at_fpr"][0]["tpr_ci"] = [0.005, 0.3]
    single = by_risk(result)["singling_out"]
    assert single.level == NOT_FOUND and "reaches down to 0.5%" in single.sentence


def test_model_attribute_inference_is_judged_against_the_obvious_guess():
    result = sample("model")
    group = {"model": {"accuracy": 0.8, "accuracy_ci": [0.75, 0.85]},
             "baseline": {"accuracy": 0.6, "accuracy_ci": [0.55, 0.65]},
             "real_people": {"scaled_score": 0.3, "scaled_score_ci": [0.1, 0.5],
                             "obvious_guess": {"value": "no", "accuracy": 0.7}}}
    result["theory"]["attribute_inference"] = {"feature": "smoker", "members": group,
                                               "non_members": copy.deepcopy(group)}
    infer = by_risk(result)["inference"]
    assert infer.level == FOUND and "smoker" in infer.sentence
    group["real_people"]["scaled_score_ci"] = [-0.1, 0.5]
    assert by_risk(result)["inference"].level == NOT_FOUND


# --------------------------------------------------------------------------- never "no risk"

def test_an_attack_at_chance_is_not_found_at_this_size_and_never_no_risk():
    result = mechanism_result([entry("np_optimal", 0.505, (0.49, 0.52))],
                              tests=[("np_optimal", "accuracy", False)], optimum=0.52)
    link = by_risk(result)["linkability"]
    assert link.level == NOT_FOUND
    assert "no risk" not in link.sentence.lower()
    assert "not evidence that the risk is absent" in link.sentence
    # What this many trials could have seen: the smallest accuracy they detect, above ½.
    seen = re.search(r"With 2,000 trials, an attack would have had to be right at least "
                     r"([\d.]+)%", link.sentence)
    assert seen and 50.0 < float(seen.group(1)) < 60.0
    # More trials see a smaller gain.
    bigger = mechanism_result([entry("np_optimal", 0.505, (0.49, 0.52), n_pos=50_000,
                                     n_neg=50_000)],
                              tests=[("np_optimal", "accuracy", False)], optimum=0.52)
    more = re.search(r"right at least ([\d.]+)%", by_risk(bigger)["linkability"].sentence)
    assert float(more.group(1)) < float(seen.group(1))


def test_the_verdicts_corrected_evidence_decides_over_the_interval():
    # Its interval lies above ½, but Holm's correction did not count it: not found.
    attacks = [entry("np_optimal", 0.56, (0.53, 0.59))]
    assert by_risk(mechanism_result(attacks, tests=[("np_optimal", "accuracy", False)])
                   )["linkability"].level == NOT_FOUND
    found = by_risk(mechanism_result(attacks, tests=[("np_optimal", "accuracy", True)]))
    assert found["linkability"].level == FOUND
    assert "correcting for the 1 test the verdict" in found["linkability"].sentence
    # A result saved before the evidence: the interval above ½ counts, said as uncorrected.
    old = by_risk(mechanism_result(attacks))["linkability"]
    assert old.level == FOUND and "not corrected" in old.sentence


def test_an_exact_optimum_at_the_medium_line_is_found_without_a_measured_attack():
    result = mechanism_result([entry("np_optimal", 0.505, (0.49, 0.52))],
                              tests=[("np_optimal", "accuracy", False)], optimum=0.7)
    link = by_risk(result)["linkability"]
    assert link.level == FOUND and "computed exactly" in link.sentence


def test_an_unknown_audit_type_is_not_tested_on_every_risk():
    risks = article29_risks({"audit_type": "toy", "name": "x"})
    assert [f.level for f in risks] == [NOT_TESTED] * 3


# --------------------------------------------------------------------------- the DPIA list

def test_dpia_list_names_the_four_things_and_no_decision_yet():
    result = sample("mechanism")
    items = dpia_items(result)
    labels = [i.label for i in items]
    assert labels[1].startswith("Risks found") and labels[2:] == [
        "Measures compared", "Residual risk", "Decision"]
    text = dict((i.label, i.text) for i in items)
    assert text["Residual risk"].startswith(f"{result['verdict']['level'].upper()} risk")
    assert "interval" in text["Residual risk"]
    # The mechanism's what-if sweep is a measure compared, from the result itself.
    assert "What-if" in text["Measures compared"]
    assert text["Decision"].startswith(NO_DECISION)


def test_dpia_decision_line_says_who_signed_and_when_the_result_changed():
    result = sample("aggregates")
    s = sign(result, decision="approve_with_conditions", conditions="Yearly tables only.",
             reviewer="Jane Roe", role="DPO", date="2026-11-28", rationale="Reviewed.")
    signed = {**result, "signoff": s.to_dict()}
    decision = dpia_items(signed)[-1]
    assert decision.label == "Decision"
    assert decision.text.startswith("Approved with conditions by Jane Roe (DPO) on 2026-11-28")
    assert "Yearly tables only." in decision.text and "But:" not in decision.text
    # A result changed after signing: the decision line says the signature no longer holds.
    changed = {**signed, "name": "Another release"}
    assert "But:" in dpia_items(changed)[-1].text
    # The loaded result reads the same (the typed sign-off, not the dict).
    assert dpia_items(load_result(signed))[-1] == decision


def test_dpia_measures_compared_come_from_a_comparison_when_given():
    from engine.compare.types import CandidateRow, Comparison, CostFigure, RiskFigure

    def row(i, label, value, meets):
        return CandidateRow(index=i, label=label, overrides={}, status="finished", error=None,
                            risk=RiskFigure(metric="accuracy", label="Attacker right",
                                            value=value, ci=(value - 0.02, value + 0.02),
                                            baseline=0.5, sentence=""),
                            cost=CostFigure(metric="mae", label="Error per count", value=1.5,
                                            unit="people", sentence=""),
                            verdict_level="low", verdict_sentence="", meets_policy=meets,
                            result_sha256=None, folder=None)
    comparison = Comparison(audit_type="mechanism", name="ε candidates", seed=1,
                            rows=(row(1, "ε = 0.5", 0.55, True), row(2, "ε = 2", 0.8, False)),
                            pairs=(), best=1, best_sentence="ε = 0.5 is the most useful.",
                            sentence="", policy={})
    text = dict((i.label, i.text) for i in dpia_items(sample("mechanism"), comparison))
    measures = text["Measures compared"]
    assert measures.startswith("ε candidates: ε = 0.5: Attacker right 55.0%")
    assert "does not meet the policy" in measures and "ε = 0.5 is the most useful." in measures


def test_copy_text_holds_the_three_risks_and_the_dpia_list():
    text = article29_text(sample("location"))
    assert text.startswith(TITLE)
    for label in ("Singling out:", "Linkability:", "Inference:", DPIA_TITLE, "Decision:"):
        assert label in text


# --------------------------------------------------------------------------- the report

@pytest.mark.parametrize("audit_type", ["mechanism", "aggregates"])
def test_the_report_prints_the_section_after_the_decision_page(audit_type):
    from reportlab.platypus import Paragraph

    from engine.report.pdf import build_story
    from engine.report.sections_decision import DECISION_TITLE

    story = build_story(sample(audit_type))
    titles = [f.outline[0] for f in story if isinstance(f, Paragraph) and getattr(
        f, "outline", None)]
    assert titles.index(DECISION_TITLE) < titles.index(TITLE) < titles.index(DPIA_TITLE)


def test_linkability_quotes_the_verdicts_strongest_attack_among_those_that_count():
    attacks = [entry("np_optimal", 0.7, (0.68, 0.72)), entry("naive_sum", 0.65, (0.63, 0.67))]
    result = mechanism_result(attacks, tests=[("np_optimal", "accuracy", True),
                                              ("naive_sum", "accuracy", True)])
    result["verdict"]["headline"] = {"fpr": 0.01, "name": "naive_sum", "label": "naive_sum",
                                     "level": "medium"}
    assert by_risk(result)["linkability"].source_attacks == ("naive_sum",)
    del result["verdict"]["headline"]        # rebuilt from the attacks: the more accurate one
    assert by_risk(result)["linkability"].source_attacks == ("np_optimal",)
