"""Claims of issue 9 about the model defences (engine/defences) that hold at test sizes.

**DP-SGD never shows more leakage than its accountant allows.** A model trained with DP-SGD
at (ε, δ) by the accountant must not let any attack certify an empirical ε lower bound above ε
at the same δ (paper 002 Thm 1 / Cor. 1: an (ε, δ)-DP mechanism keeps every attack's
TPR ≤ e^ε·FPR + δ and TNR ≤ e^ε·FNR + δ; the bound uses one-sided Clopper–Pearson limits at a
threshold chosen on a separate split, engine.auditing). Every number here comes from
``engine.defences.tradeoff`` itself — the trade-off's 8 supervised attacks (paper 004 §4.3),
δ = 1e-5 as it states it, the largest bound over the attacks, 95 % confidence each — over three
seeds (the seed decides the data, the split, the initial weights, Poisson batches and noise).

What makes the check able to fail. An empirical bound can never exceed what a *perfect*
attack certifies on the records it is measured on: with the audit's 1,600 members and 1,600
non-members, half known to the attacker and half of the rest used to choose the threshold,
that is about ln(400 / 3.7) ≈ 4.7. A claim above it (e.g. DP-SGD with σ = 0.5 / 1 / 2 for 30
epochs on these records: ε ≈ 60 / 14 / 5) passes whatever the model leaks — so the claim tested
here is DP-SGD with a target of **ε = 2** (the engine finds σ ≈ 1.64 for 10 epochs, batch 64),
and ``test_the_dp_check_can_fail`` shows on the same seeds that

* a perfect attack would certify more than 2 at these counts;
* the undefended model (same records, attacks and δ) certifies 3.7–4.4 (seeds 1–8), and
* a DP-SGD run with everything but the noise (σ = 0.01: the same clipping, Poisson sampling,
  optimiser and epochs) certifies 4.16–4.63 (seeds 1–8) — so had ``dp_sgd`` dropped its noise
  while reporting the accountant's ε = 2, the claim test would fail on every seed.

Measured (seeds 1–8; the test runs 1–3 to stay within its time): the accountant's ε is 1.99;
the ε = 2 model's bound is 0.00 on seeds 1, 2, 4, 5, 7 and 0.09 / 0.07 / 0.14 on seeds 3 / 6 / 8;
its test accuracy is 1.4–1.8 %
(100 classes: chance) — at 1,600 records DP-SGD at ε = 2 learns
almost nothing, and that, too, is private. The bound is the largest of 8 attacks' bounds, each
valid with 95 % probability; it is not corrected for taking the largest, so a failure would
first be checked for that before being called a bug (at these sizes the DP model's bounds are
so far below 2 that the point does not arise).

**Undefended models are at least as exposed as DP-SGD models.** The strongest attack's AUC
and its balanced accuracy on the undefended model are above the DP-SGD model's, intervals
apart, on every seed (seeds 1–8: AUC 0.980–0.984, lower ends ≥ 0.974, against 0.558–0.598,
upper ends ≤ 0.625; balanced accuracy 0.926–0.938, lower ends ≥ 0.912, against 0.539–0.576,
upper ends ≤ 0.601). The undefended model's test accuracy is 0.44–0.50.

Runtime: about 30 s on two shared cores (one is used) (three models — DP-SGD's per-sample gradients are
most of it — and 24 attack runs per seed).

KCD (paper 004 Alg. 2) and the trade-off chart: see the docstring of ``kcd_sweeps`` below.
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow

SEEDS = (1, 2, 3)
RECORDS = 4000                # synthetic purchase-style records (600 binary features, 100 classes)
ATTACKER_FRACTION = 0.2       # 3,200 audited records: 1,600 members, 1,600 non-members
EPOCHS = 10
BATCH = 64
TARGET_EPSILON = 2.0
NO_NOISE = 0.01               # σ of the "DP-SGD without its noise" control


@pytest.fixture(scope="module")
def sweeps():
    """One trade-off per seed: no defence, DP-SGD at target ε = 2, DP-SGD at σ = 0.01."""
    from engine.audits.model import ModelConfig
    from engine.defences import tradeoff

    out = {}
    for seed in SEEDS:
        config = ModelConfig(synthetic="purchase", synthetic_records=RECORDS,
                             attacker_fraction=ATTACKER_FRACTION, epochs=EPOCHS,
                             batch_size=BATCH, seed=seed)
        # σ = 0.01 gives ε ≈ 1.4e6; engine.mechanisms.tradeoff.dp_region_tpr_upper then computes
        # e^ε · 0 = inf · 0 at FPR 0 (a NaN and a RuntimeWarning; the claims here do not use
        # the region).
        with np.errstate(invalid="ignore"):
            res = tradeoff(config, [("dp_sgd", {"target_epsilon": TARGET_EPSILON}),
                                    ("dp_sgd", {"noise_multiplier": NO_NOISE})])
        out[seed] = res
    return out


def _rows(res):
    none, dp, no_noise = res.rows
    assert (none["defence"], dp["defence"], no_noise["defence"]) == ("none", "dp_sgd", "dp_sgd")
    return none, dp, no_noise


def _rdp_epsilon(sigma: float, q: float, steps: int, delta: float) -> float:
    """Opacus's RDP accountant, called directly (not through engine.defences)."""
    import warnings

    from opacus.accountants import RDPAccountant

    acc = RDPAccountant()
    acc.history = [(sigma, q, steps)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(acc.get_epsilon(delta=delta))


def _perfect_attack_bound(res, delta: float) -> float:
    """The largest ε lower bound any attack could certify on the records the trade-off
    evaluates (the half the attacker does not know), at δ: engine.auditing on scores that
    separate members from non-members perfectly."""
    from engine.attacks.model.base import ModelOutputs, supervised_split
    from engine.auditing import empirical_epsilon_lower_bound
    from engine.defences.tradeoff import KNOWN_FRACTION

    member = np.asarray(res.member, dtype=bool)
    k = int(res.y.max()) + 1
    target = ModelOutputs(np.full((member.size, k), 1.0 / k), res.y, member)
    _, evaluated = supervised_split(target, KNOWN_FRACTION, res.info["seed"])
    m = member[evaluated]
    return empirical_epsilon_lower_bound(m.astype(float), m, delta=delta,
                                         confidence=res.info["confidence"])["value"]


def test_dp_sgd_empirical_epsilon_never_exceeds_its_accountant_epsilon(sweeps):
    from engine.defences.dpsgd import sampling

    for seed, res in sweeps.items():
        _, dp, _ = _rows(res)
        check = dp["dp"]
        delta = res.info["delta"]
        # The bound and the accountant are at the δ the trade-off states.
        assert delta == pytest.approx(1e-5)
        assert check["delta"] == delta and dp["risk"]["epsilon"]["delta"] == delta
        # The accountant's ε: what Opacus gives for the σ used, the sampling rate and the
        # steps of these records — and within the target.
        sigma = dp["defence_details"]["noise_multiplier"]
        q, steps = sampling(res.info["data"]["members"], BATCH, EPOCHS)
        eps = check["accountant_epsilon"]
        assert eps == pytest.approx(_rdp_epsilon(sigma, q, steps, delta), rel=1e-6)
        assert eps <= TARGET_EPSILON + 0.01
        # The bound is the largest over the trade-off's attacks (all 8 ran).
        bounds = [a["epsilon_lower_bound"] for a in dp["attacks"]]
        assert len(bounds) == 8
        assert check["empirical_epsilon_lower_bound"] == max(bounds)
        # The claim.
        assert check["empirical_epsilon_lower_bound"] <= eps, (seed, check)
        assert check["within_claim"]
        assert check["testable"] and check["verdict"] == "consistent with the claim"


def test_the_dp_check_can_fail(sweeps):
    for seed, res in sweeps.items():
        none, dp, no_noise = _rows(res)
        eps = dp["dp"]["accountant_epsilon"]
        delta = res.info["delta"]
        # A perfect attack could certify more than the claim at these counts ...
        assert _perfect_attack_bound(res, delta) > eps, seed
        # ... the same attacks do certify more on the model trained without a defence ...
        assert none["risk"]["epsilon"]["value"] > eps, (seed, none["risk"]["epsilon"])
        # ... and on DP-SGD without its noise: had dp_sgd skipped the noise while reporting
        # ε = 2, the claim above would fail.
        assert no_noise["risk"]["epsilon"]["value"] > eps, (seed, no_noise["risk"]["epsilon"])
        # (That model's own claim, ε in the millions, is of course kept.)
        assert no_noise["dp"]["within_claim"]
        assert not no_noise["dp"]["testable"]            # ... and untestable, and says so


def test_undefended_model_is_at_least_as_exposed_as_dp_sgd(sweeps):
    for seed, res in sweeps.items():
        none, dp, _ = _rows(res)
        for metric in ("auc", "accuracy"):
            undefended, defended = none["risk"][metric], dp["risk"][metric]
            assert undefended["ci"][0] > defended["ci"][1], (seed, metric, undefended, defended)


# --------------------------------------------------------------------------- KCD, the chart

KCD_SEEDS = (1, 2, 3)
KCD_TABLE = {"n_records": 2500, "n_features": 200, "n_classes": 20, "contrast": 0.6}
KCD_SETTINGS = [("kcd", 0.0), ("kcd", 0.5), ("kcd", 1.0), ("l2", 1e-3), ("l2", 0.03),
                ("l2", 0.05), ("dmp", 1.0)]


@pytest.fixture(scope="module")
def kcd_sweeps(tmp_path_factory):
    """One trade-off per seed on a purchase-style table with enough records per class for KCD's
    teachers to generalise (``engine.data.purchase.generate_purchase``: 200 binary features,
    20 classes — paper 001's Purchase-20 shape; written to CSV and read back as a user's file).
    attacker_fraction 0.2: 1,000 members (50 per class), 1,000 non-members and 500 held-out
    records (DMP's reference set); the audit's default model (here 200-128-20, ReLU,
    Adam, 30 epochs, batch 128). Settings: no defence, KCD α = 0, 0.5, 1 (5 teachers), L2
    λ = 1e-3, 0.03, 0.05, DMP T = 1. About 8 s of CPU per seed.

    Why not the app's default data (600 features, 100 classes, 4,000 records: 10 members per
    class)? There the teachers' soft labels are nearly uniform (mean top probability 0.11,
    held-out accuracy 0.38) and none of paper 004's KCD claims but (c) and (e) hold — the
    measurements, and why, are in docs/methods/defences.md. Claims that do not hold at any size
    we could run — (a) "KCD α = 1 brings the attack within a few points of 0.5" and (b) "KCD and
    DMP are comparable on attack success" — have no test here.

    Measured, seeds 1–5 (the tests run 1–3): undefended test accuracy 0.62–0.71, strongest
    attack's balanced accuracy 0.727–0.741; KCD α = 1 0.597–0.669 and 0.640–0.662; DMP
    0.581–0.643 and 0.562–0.612; L2 λ = 0.05 0.360–0.481 and 0.616–0.644.
    """
    import pandas as pd

    from engine.audits.model import ModelConfig
    from engine.data.purchase import generate_purchase
    from engine.defences import tradeoff

    out = {}
    for seed in KCD_SEEDS:
        data = generate_purchase(seed, **KCD_TABLE)
        frame = pd.DataFrame(data.X.astype(np.int8), columns=list(data.feature_names))
        frame["label"] = data.y
        path = tmp_path_factory.mktemp(f"kcd{seed}") / "purchase20.csv"
        frame.to_csv(path, index=False)
        config = ModelConfig(data=str(path), label="label", attacker_fraction=0.2, seed=seed)
        res = tradeoff(config, KCD_SETTINGS)
        assert res.info["data"]["members"] == 1000 and res.info["data"]["non_members"] == 1000
        out[seed] = {r["label"]: r for r in res.rows}
    return out


def _risk(row, metric="accuracy"):
    """(estimate, lower, upper) of the strongest attack's metric on a trade-off row."""
    r = row["risk"][metric]
    return r["value"], r["ci"][0], r["ci"][1]


def _falls(rows, metric="accuracy") -> bool:
    """Claim (c) on a sequence of rows in order of a knob: no step *up* beyond the previous
    point's 95 % interval, and the last point's interval entirely below the first's."""
    values = [_risk(r, metric) for r in rows]
    no_rise = all(b[0] <= a[2] for a, b in zip(values, values[1:], strict=False))
    return no_rise and values[-1][2] < values[0][1]


def test_kcd_attack_success_falls_as_alpha_rises(kcd_sweeps):
    """Claim (c), paper 004 §3.2 ("α can tune the privacy-utility trade-off"): the strongest
    attack's balanced accuracy falls along α = 0, 0.5, 1, α = 1's interval wholly below
    α = 0's. Measured, seeds 1–5: 0.727–0.741 → 0.691–0.711 → 0.640–0.662; the gap between
    α = 1's upper and α = 0's lower limit 0.019–0.028. (AUC falls the same way, 0.773–0.797 →
    0.696–0.715, but its intervals are only 0.002 apart on seed 2, so it is not asserted.)
    At 10 members per class (the app's default data) it holds as well (0.998, 1.000, 0.988,
    0.891 at α = 0, 0.5, 0.9, 1: the first steps saturate, within their intervals).

    Able to fail: a knob that does not protect fails the same check — L2 at λ = 1e-3 leaves the
    attack where it was (0.719–0.741 against the undefended 0.727–0.741)."""
    for seed, rows in kcd_sweeps.items():
        alphas = [rows[f"KCD α = {a}"] for a in ("0", "0.5", "1")]
        assert _falls(alphas), (seed, [_risk(r) for r in alphas])
        # α = 0 is the undefended model (§3.2), so the curve starts at the undefended point
        # (the same weights up to the float rounding of a stack: tests/engine/test_defences.py).
        assert _risk(alphas[0]) == pytest.approx(_risk(rows["No defence"]), abs=0.005)
        # The control: a setting that changes nothing is not "falling".
        assert not _falls([rows["No defence"], rows["L2 λ = 0.001"]]), seed


def _strictly_more_exposed(a, b, metric) -> bool:
    """Row ``b``'s strongest-attack estimate above the upper end of row ``a``'s interval."""
    return _risk(b, metric)[0] > _risk(a, metric)[2]


def test_undefended_model_is_the_most_vulnerable_point(kcd_sweeps):
    """Claim (e), for the chart's balanced-accuracy and AUC axes: no defended setting's
    strongest attack lies above the upper end of the undefended model's 95 % interval.
    Measured, seeds 1–5: the undefended estimate is the largest or tied (L2 λ = 1e-3 0.001
    above it on seed 4, well inside its interval; KCD α = 0 is the same model).

    **Not on the TPR-at-1 %-FPR axis** (the chart's default): KCD α = 1 has the *higher*
    estimate on every seed measured (0.070–0.142 against 0.026–0.062 here; 0.245–0.294 against
    0.112–0.151 on the 100-class data with 40 members per class), intervals overlapping —
    8 of 8 in one direction, so that part of the claim is recorded as not holding
    (docs/methods/defences.md), not tested.

    Able to fail: with KCD α = 1 or DMP in the undefended model's place the check fails (the
    undefended model is above their upper limits)."""
    for seed, rows in kcd_sweeps.items():
        none = rows["No defence"]
        for metric in ("accuracy", "auc"):
            for label, row in rows.items():
                assert not _strictly_more_exposed(none, row, metric), (seed, metric, label)
            for stand_in in ("KCD α = 1", "DMP T = 1"):
                assert _strictly_more_exposed(rows[stand_in], none, metric), \
                    (seed, metric, stand_in)


def _accuracy_at(points, attack: float) -> float:
    """Test accuracy of a defence's curve at a given attack balanced accuracy: linear between
    the two settings that bracket it (``points``: (attack, accuracy) pairs)."""
    points = sorted(points)
    for (a0, u0), (a1, u1) in zip(points, points[1:], strict=False):
        if a0 <= attack <= a1:
            return u0 if a1 == a0 else u0 + (u1 - u0) * (attack - a0) / (a1 - a0)
    raise AssertionError(f"no two settings bracket attack accuracy {attack:.3f}: {points}")


def test_kcd_costs_less_accuracy_than_l2_at_the_same_attack_accuracy(kcd_sweeps):
    """Claim (a), second half: at the strongest attack's balanced accuracy KCD α = 1 reaches,
    the L2 curve (λ = 1e-3, 0.03, 0.05, interpolated linearly between the two that bracket it)
    has lower test accuracy. Measured margins (KCD − L2), seeds 1–5: 0.053, 0.118, 0.084,
    0.111, 0.027 — positive every time but, one seed at a time, inside the accuracy intervals
    (±0.03 on 1,000 non-members); the assertion is on the estimates. The first half of (a) —
    the attack brought "within a few points of 0.5" — does not hold (0.640–0.662 here) and is
    not tested.

    Where it fails: on the app's default data (100 classes, 10 members per class) L2 wins —
    KCD α = 1 0.170 test accuracy at attack 0.891, L2 ≈ 0.33 there (seed 7). Here, as a control
    that the comparison is not true of any defence: L2 λ = 0.03 against the KCD curve
    (α = 0.5, 1) does *not* cost less than KCD."""
    for seed, rows in kcd_sweeps.items():
        kcd1 = rows["KCD α = 1"]
        l2 = [rows[f"L2 λ = {lam}"] for lam in ("0.001", "0.03", "0.05")]
        curve = [(_risk(r)[0], r["test_accuracy"]) for r in l2]
        at = _accuracy_at(curve, _risk(kcd1)[0])
        assert kcd1["test_accuracy"] > at, (seed, kcd1["test_accuracy"], at)
        # Control: the same comparison the other way round fails.
        kcd_curve = [(_risk(rows[f"KCD α = {a}"])[0], rows[f"KCD α = {a}"]["test_accuracy"])
                     for a in ("0.5", "1")]
        l2_03 = rows["L2 λ = 0.03"]
        assert not l2_03["test_accuracy"] > _accuracy_at(kcd_curve, _risk(l2_03)[0]), seed
