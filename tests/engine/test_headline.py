"""One headline (issue 19 item 3, issue 20 items 3–5): the strongest attack and its figures
are chosen once, a rate that is not measurable is never quoted as a number, and the verdict
reads the same figures every place quotes."""

from __future__ import annotations

import re

import numpy as np
import pytest

from engine.headline import headline, headline_of_result, not_measurable_sentence, tpr_at
from engine.policy import VerdictPolicy

POLICY = VerdictPolicy()


def attack(name, *, tpr=0.0, measurable=True, accuracy=0.5, auc=0.5, n_negative=1000,
           fpr=0.01):
    return {"name": name, "label": f"{name.title()} attack: details", "auc": auc,
            "auc_ci": [auc - 0.05, auc + 0.05], "accuracy": accuracy,
            "accuracy_ci": [accuracy - 0.05, accuracy + 0.05], "n_negative": n_negative,
            "tpr_at_fpr": [{"fpr_target": 0.001, "tpr": tpr / 2, "measurable": measurable},
                           {"fpr_target": fpr, "tpr": tpr, "tpr_ci": [0.0, 1.0],
                            "measurable": measurable}]}


def test_tpr_at_reads_both_key_names_and_rates_written_another_way():
    a = {"tpr_at_fpr": [{"fpr_target": 1 / 100, "tpr": 0.3}]}
    theory = {"tpr_at_fpr": [{"fpr": 0.01 * (1 + 1e-12), "tpr": 0.4}]}
    assert tpr_at(a, 0.01)["tpr"] == 0.3
    assert tpr_at(theory, 0.01)["tpr"] == 0.4
    assert tpr_at(a, 0.001) is None and tpr_at({}, 0.01) is None


def test_a_rate_that_is_not_measurable_is_never_quoted():
    # Every attack measured TPR 1.0 but with too few negatives (issue 20 item 3).
    attacks = [attack("one", tpr=1.0, measurable=False, accuracy=0.9, n_negative=100),
               attack("two", tpr=1.0, measurable=False, accuracy=0.8, n_negative=100)]
    h = headline(attacks, POLICY)
    assert h.name == "one" and h.tpr is None and not h.tpr_measurable
    assert h.verdict_tpr_measured is None
    text = h.tpr_text()
    assert "cannot be measured" in text and "300" in text and "100" in text
    assert "%" not in text.replace("1%", "")       # no rate quoted, only the 1 % setting
    level, reasons = POLICY.level(h.verdict_tpr_measured, h.verdict_accuracy)
    assert level == "high"
    assert not any(re.search(r"spots \d", r) for r in reasons)
    assert any("could not be measured" in r for r in reasons)


def test_the_strongest_is_ranked_by_the_policy_not_by_auc():
    # A ranks first by AUC; B's own figures reach "high" at the policy's rate.
    a = attack("a", tpr=0.05, accuracy=0.70, auc=0.80)
    b = attack("b", tpr=0.12, accuracy=0.62, auc=0.70)
    h = headline([a, b], POLICY)
    assert h.name == "b" and h.level == "high" and h.tpr == 0.12
    # The verdict still reads the best of each figure, and says where each came from.
    assert h.verdict_tpr == 0.12 and h.verdict_accuracy == 0.70
    assert h.tpr_from.startswith("B attack") and h.accuracy_from.startswith("A attack")


def test_verdict_figures_are_the_best_measured_over_every_attack_or_the_exact_optimum():
    g = np.random.default_rng(5)
    for _ in range(200):
        attacks = [attack(f"x{i}", tpr=float(g.random()), measurable=bool(g.random() < 0.7),
                          accuracy=float(0.5 + g.random() / 2), auc=float(g.random()))
                   for i in range(int(g.integers(1, 6)))]
        opt_tpr = float(g.random()) if g.random() < 0.5 else None
        h = headline(attacks, POLICY, optimum_tpr=opt_tpr)
        measured = [a["tpr_at_fpr"][1]["tpr"] for a in attacks if a["tpr_at_fpr"][1]["measurable"]]
        # The exact optimum, where there is one, is the verdict's figure even below a
        # measured attack: a simulated figure is never quoted above a proven maximum (issue 32
        # item 6).
        if opt_tpr is not None:
            measured = [opt_tpr]
        assert h.verdict_tpr == pytest.approx(max(measured, default=0.0))
        assert (h.verdict_tpr_measured is None) == (not measured)
        assert h.verdict_accuracy == max(a["accuracy"] for a in attacks)
        # The quoted attack's own level is the highest any single attack reaches.
        levels = [POLICY.level(a["tpr_at_fpr"][1]["tpr"] if a["tpr_at_fpr"][1]["measurable"]
                               else 0.0, a["accuracy"])[0] for a in attacks]
        order = ("low", "medium", "high")
        assert order.index(h.level) == max(order.index(v) for v in levels)


def test_a_saved_result_reads_its_stored_headline_or_rebuilds_it():
    attacks = [attack("a", tpr=0.05, accuracy=0.7), attack("b", tpr=0.2, accuracy=0.6)]
    stored = headline(attacks, POLICY).to_dict()
    result = {"attacks": attacks, "config": {"policy": POLICY.to_dict()},
              "verdict": {"level": "high", "headline": stored}}
    assert headline_of_result(result).to_dict() == stored
    del result["verdict"]["headline"]
    assert headline_of_result(result).name == "b"
    assert headline_of_result({"attacks": []}) is None
    result["verdict"] = {"headline": {"fpr": "junk", "nonsense": 1}}    # damaged: rebuilt
    assert headline_of_result(result).name in {"a", "b"}


def test_the_not_measurable_sentence_says_what_it_takes():
    text = not_measurable_sentence(120, 0.001, "test releases without the person")
    assert "3,000 test releases without the person" in text and "120" in text


def test_location_summary_never_prints_a_rate_it_could_not_measure():
    # 200 test releases (100 without the person) cannot certify 1 % false accusations; the
    # auxiliary attacker has no exact optimum to fall back on (issue 20 item 3).
    from engine.audits import location as L
    from tests.engine.test_location_audit import SMALL

    config = L.LocationConfig(**{**SMALL, "test_aggregates": 200, "attacker": "auxiliary",
                                 "attacks": ("one_threshold", "two_threshold")})
    result = L.run(config).to_dict()
    rows = [r for a in result["attacks"] for r in a["tpr_at_fpr"] if r["fpr_target"] == 0.01]
    assert rows and not any(r["measurable"] for r in rows)
    assert "cannot be measured" in result["summary"]
    assert not re.search(r"spots \d", result["summary"])
    assert any("could not be measured" in r for r in result["verdict"]["reasons"])
    assert result["verdict"]["headline"]["tpr"] is None


def test_the_report_and_the_screen_read_rates_through_tpr_at():
    """Issue 19 item 5: every table cell looks a rate up with :func:`tpr_at`, so a row keyed
    ``fpr`` (theory's curves, a defence's risk) or ``fpr_target`` (an attack) is found the
    same way everywhere; before, each place read one key name with its own tolerance and
    printed a dash (or nothing) for the other."""
    from engine.report.sections import theory_tpr, tpr_cell

    attack_keyed_fpr = {"name": "a", "tpr_at_fpr": [{"fpr": 0.01, "tpr": 0.3,
                                                      "tpr_ci": [0.2, 0.4]}]}
    theory_keyed_target = {"tpr_at_fpr": [{"fpr_target": 0.01, "tpr": 0.4}]}
    assert "30" in tpr_cell(attack_keyed_fpr, 0.01, "non-members")
    assert theory_tpr(theory_keyed_target, 0.01) == 0.4
