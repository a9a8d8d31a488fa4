"""The entropy metrics keep their precision where a probability is next to 0 or 1 (issue 31
item 4).

Modified entropy (Song & Mittal 2021; paper 004 §4.4.1) was computed with ``1 − F_y`` by
subtraction and logs of values floored at 1e-30: where the true class's probability rounds to
1.0 every such record scored exactly 0 (1,158 tied records on a real taxi model), and the
every-record ranking read TPR 0 at 1 % false positives. The values are checked here against
a 60-digit reference (mpmath) built from the same rows, with the large entry taken as one
minus the others' mass — what a float64 softmax knows about it.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from engine.attacks.model.metric import metric_values

DIGITS = 60
REL = 1e-12


def _row(k: int, top: int, others: dict[int, float]) -> np.ndarray:
    """A probability row of float64s: the given small entries, and at ``top`` one minus their
    sum, rounded to float64 as a softmax or an export writes it (1.0 when they are tiny)."""
    row = np.zeros(k)
    for i, v in others.items():
        row[i] = v
    row[top] = float(1 - mpmath.fsum(mpmath.mpf(v) for v in others.values()))
    return row


def _reference(k: int, top: int, others: dict[int, float], y: int) -> tuple[float, float]:
    """(−H, −Mentr) at 60 digits, the top entry exactly 1 − Σ others (not its rounding)."""
    with mpmath.workdps(DIGITS):
        f = [mpmath.mpf(others.get(i, 0.0)) for i in range(k)]
        f[top] = 1 - mpmath.fsum(f[i] for i in range(k) if i != top)

        def xlogx(x):
            return mpmath.mpf(0) if x == 0 else x * mpmath.log(x)

        neg_h = mpmath.fsum(xlogx(x) for x in f)
        mentr = -(1 - f[y]) * mpmath.log(f[y]) - mpmath.fsum(
            f[i] * mpmath.log(1 - f[i]) for i in range(k) if i != y)
        return float(neg_h), float(-mentr)


CASES = [
    # (k, top, others, true class): id
    pytest.param(2, 1, {0: 1e-17}, 1, id="binary, F_y = 1 - 1e-17 (rounds to 1.0)"),
    pytest.param(2, 1, {0: 1e-17}, 0, id="binary, confident and wrong"),
    pytest.param(3, 1, {0: 5e-13, 2: 5e-13}, 1, id="F_y = 1 - 1e-12"),
    pytest.param(3, 0, {1: 1e-300, 2: 3e-17}, 0, id="others 1e-300 and 3e-17"),
    pytest.param(3, 0, {1: 1e-300, 2: 3e-17}, 1, id="F_y = 1e-300"),
    pytest.param(3, 0, {1: 2.5e-9, 2: 7.5e-9}, 0, id="F_y = 1 - 1e-8"),
    pytest.param(4, 2, {0: 0.1, 1: 0.05, 3: 0.25}, 3, id="an ordinary row"),
    pytest.param(5, 4, {0: 1e-20, 1: 2e-19, 2: 3e-18, 3: 4e-17}, 4, id="five classes, tiny rest"),
]


@pytest.mark.parametrize("k, top, others, y", CASES)
def test_entropies_match_a_high_precision_reference(k, top, others, y):
    probs = _row(k, top, others)[None, :]
    labels = np.array([y])
    want_h, want_m = _reference(k, top, others, y)
    got_h = float(metric_values(probs, labels, "entropy")[0])
    got_m = float(metric_values(probs, labels, "modified_entropy")[0])
    assert got_h == pytest.approx(want_h, rel=REL, abs=1e-300)
    assert got_m == pytest.approx(want_m, rel=REL, abs=1e-300)


def test_zero_and_one_give_finite_ordered_values():
    """Exact 0 and 1 stay finite, and a probability of 1e-300 for the true class is still
    above an exact 0 (a floor at 1e-30 made them equal)."""
    probs = np.array([[0.0, 1.0, 0.0], [1e-300, 1.0, 0.0], [1e-40, 1.0, 0.0],
                      [1.0, 0.0, 0.0]])
    labels = np.array([0, 0, 0, 0])
    for m in ("entropy", "modified_entropy"):
        v = metric_values(probs, labels, m)
        assert np.all(np.isfinite(v)), m
    mentr = metric_values(probs, labels, "modified_entropy")
    assert mentr[0] < mentr[1] < mentr[2] < mentr[3] == 0.0


@pytest.mark.parametrize("k", [2, 3, 10])
def test_records_whose_other_classes_differ_below_1e_16_keep_their_order(k):
    """Twenty records the model is sure of: the other classes together hold j·1e-18, so the
    true class's probability is 1.0 in float64 for each. Less mass elsewhere is a surer model
    and a higher (member-like) score — one distinct score per record, none tied at 0."""
    mass = np.arange(1, 21) * 1e-18
    probs = np.zeros((mass.size, k))
    probs[:, 0] = 1.0
    probs[:, 1:] = (mass / (k - 1))[:, None]
    labels = np.zeros(mass.size, dtype=np.int64)
    assert np.all(probs[:, 0] == 1.0)
    for m in ("entropy", "modified_entropy"):
        v = metric_values(probs, labels, m)
        assert np.all(np.diff(v) < 0), m


def test_the_every_record_ranking_of_a_sure_model_reads_its_low_false_positive_end(tmp_path):
    """A predictions file where most members' true class is 1.0 once written (the rest of the
    row below 1e-16): the modified-entropy ranking over every record equals an independent
    ranking by the other class's probability (for two classes Mentr = −2·s·log(1 − s), rising
    with s), and its TPR at 1 % false positives is measured and above 0."""
    from sklearn.metrics import roc_auc_score

    from engine.audits.model import ModelConfig, run
    from engine.data.predictions import load_predictions_csv, write_predictions_csv
    from engine.headline import tpr_at

    g = np.random.default_rng(31)
    n = 4000
    member = np.arange(n) % 2 == 0
    labels = g.integers(0, 2, n)
    # The other class's mass, log-uniform: members 1e-19 … 1e-15, non-members 1e-18 … 1e-6.
    s = np.where(member, 10.0 ** g.uniform(-19, -15, n), 10.0 ** g.uniform(-18, -6, n))
    probs = np.empty((n, 2))
    probs[np.arange(n), labels] = 1.0 - s
    probs[np.arange(n), 1 - labels] = s
    path = write_predictions_csv(tmp_path / "sure.csv", labels=labels, member=member,
                                 probs=probs)
    read = load_predictions_csv(path, kind="probabilities")
    rest = read.probs[np.arange(n), 1 - read.labels]
    assert np.sum(read.probs[np.arange(n), read.labels] == 1.0) > n // 4
    r = run(ModelConfig(source="predictions", predictions=str(path),
                        attacks=("modified_entropy",))).to_dict()
    ranked = next(a for a in r["attacks"] if a["name"] == "modified_entropy_all_records")
    assert ranked["auc"] == pytest.approx(roc_auc_score(read.member, -rest), abs=1e-9)
    row = tpr_at(ranked, 0.01)
    assert row["measurable"] and row["tpr"] > 0.0
