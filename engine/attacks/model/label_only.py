"""Label-only gap attack (Yeom et al. 2018; paper 004 §2.2 and §4.4: "black-box MIA with only
labels"), and the generalization gap it exploits.

The attacker sees only the predicted label and reports "member" iff it is correct. Its
expected TPR is the training accuracy p0 and its FPR the test accuracy p1, so its advantage is
the generalization gap p0 − p1 — exactly BTTA's Case-3 rule at prior ½ (paper 001). No
threshold is learnt: the rule is fixed.

:func:`generalization_gap` gives the gap overall and per true class for the results page; it
reads the membership truth, so it is an evaluation quantity, never an attack input.
"""

from __future__ import annotations

import numpy as np

from engine.attacks.model.base import ModelOutputs, correct
from engine.attacks.outcome import AttackOutcome
from engine.metrics import clopper_pearson, difference_ci

LABEL = "Label-only gap attack: correct label ⇒ member (Yeom et al. 2018)"


def attack(target: ModelOutputs) -> AttackOutcome:
    c = correct(target.probs, target.labels).astype(np.float64)
    return AttackOutcome("label_only_gap", LABEL, c, 0.5, {
        "paper": "004 §4.4 (label-only); Yeom et al. 2018; = BTTA Case 3 (paper 001)",
        "statistic": "1 if the predicted label is the true label, else 0",
        "threshold_source": "fixed rule (correct ⇒ member)",
    })


def generalization_gap(outputs: ModelOutputs, confidence: float = 0.95) -> dict:
    """Training accuracy, test accuracy and their gap, overall and per true class, with
    Clopper–Pearson intervals on the two accuracies and a MOVER interval on the gap
    (engine.metrics.difference_ci). Evaluation only: reads ``member``."""
    member = outputs.require_membership("outputs for the generalization gap")
    c = correct(outputs.probs, outputs.labels)

    def block(mask) -> dict:
        m, o = mask & member, mask & ~member
        n_in, n_out = int(m.sum()), int(o.sum())
        row = {"n_members": n_in, "n_non_members": n_out}
        if n_in:
            row["train_accuracy"] = float(c[m].mean())
            row["train_accuracy_ci"] = list(clopper_pearson(int(c[m].sum()), n_in, confidence))
        if n_out:
            row["test_accuracy"] = float(c[o].mean())
            row["test_accuracy_ci"] = list(clopper_pearson(int(c[o].sum()), n_out, confidence))
        if n_in and n_out:
            row["gap"], ci = difference_ci(int(c[m].sum()), n_in, int(c[o].sum()), n_out,
                                           confidence)
            row["gap_ci"] = list(ci)
        return row

    out = block(np.ones(outputs.n, dtype=bool))
    out["per_class"] = [{"class": int(k), **block(outputs.labels == k)}
                        for k in range(outputs.n_classes)]
    return out
