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
Claims (a) first half and (b) do not hold on the synthetic tables; they are strict xfails
here (docs/methods/defences.md has the numbers).

**On your own data.** ``PRA_CLAIMS_DATA=path/to/table.csv`` (and ``PRA_CLAIMS_LABEL=column``
unless the label column is called label/class/target/y) runs every claim of this file on that
table instead of the synthetic ones, read by engine.data.tabular's loader exactly as the app
reads a user's file (one record per row; categorical columns one-hot coded, numbers
standardised; an id column ignored; a 0/1 ``member`` column, if present, fixes the members,
otherwise a seeded split): attacker_fraction 0.2, seeds 1–3, the recipes above. E.g.::

    PRA_CLAIMS_DATA=~/purchase100.csv PRA_CLAIMS_LABEL=label \
        python -m pytest tests/claims/test_defence_claims.py

The claims are asserted as they are; their controls (the evidence that a check can fail)
need data where, e.g., the undefended model is detectably exposed — where a control does not
hold on the user's table the test is *skipped* with the reason, since the check then says
nothing; the KCD claims all need the undefended model to be detectably exposed (the lower end
of its strongest attack's balanced-accuracy interval above 0.55) and skip where it is not —
there is nothing for a defence to lower (measured: the bundled mixed_sample.csv, 2,000 credit
records, is such a table: balanced accuracy 0.52). The two claims that fail on the synthetic
tables are plain tests there: they may hold on the user's data. KCD needs every class to have at least 5 training records (its 5
teachers); DMP's reference set is the held-out fifth of the table.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

# The longest claims left in `make test` (KCD's and DP-SGD's seeded sweeps, shared by every test
# here through module fixtures: ~45 % of tests/claims' CPU time measured at load 13): run by
# `make test-claims` (issue 18).
pytestmark = [pytest.mark.slow, pytest.mark.claims]

# A user's own table instead of the synthetic ones (module docstring, "On your own data").
CLAIMS_DATA = os.environ.get("PRA_CLAIMS_DATA", "").strip()
CLAIMS_LABEL = os.environ.get("PRA_CLAIMS_LABEL", "").strip()

SEEDS = (1, 2, 3)
RECORDS = 4000                # synthetic purchase-style records (600 binary features, 100 classes)
ATTACKER_FRACTION = 0.2       # 3,200 audited records: 1,600 members, 1,600 non-members
EPOCHS = 10
BATCH = 64
TARGET_EPSILON = 2.0
NO_NOISE = 0.01               # σ of the "DP-SGD without its noise" control


@pytest.fixture(scope="module")
def user_table():
    """The user's table (PRA_CLAIMS_DATA, label column PRA_CLAIMS_LABEL or a column named
    label/class/target/y), read once through engine.data.tabular's loader so that a file the
    app would refuse fails here with the app's own sentence; None without it."""
    if not CLAIMS_DATA:
        return None
    from engine.data.tabular import load_tabular_csv

    return load_tabular_csv(CLAIMS_DATA, label=CLAIMS_LABEL or None)


def _power(ok: bool, why: str) -> None:
    """A control — evidence that a check *can* fail on these data. Asserted on the synthetic
    tables (where it was measured to hold); on a user's table where it does not hold the check
    has no power there, and the test is skipped saying so rather than passed silently."""
    if ok:
        return
    if CLAIMS_DATA:
        pytest.skip(f"{CLAIMS_DATA}: {why} — the check cannot fail on these data, so it says "
                    "nothing about them.")
    raise AssertionError(why)


@pytest.fixture(scope="module")
def sweeps(user_table):
    """One trade-off per seed: no defence, DP-SGD at target ε = 2, DP-SGD at σ = 0.01 — on the
    synthetic purchase table, or on the user's table (PRA_CLAIMS_DATA)."""
    from engine.audits.model import ModelConfig
    from engine.defences import tradeoff

    out = {}
    for seed in SEEDS:
        if user_table is not None:
            config = ModelConfig(data=CLAIMS_DATA, label=CLAIMS_LABEL,
                                 attacker_fraction=ATTACKER_FRACTION, epochs=EPOCHS,
                                 batch_size=BATCH, seed=seed)
        else:
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
        # The bound and the accountant are at the δ the trade-off states (1e-5, or 1/(10 n)
        # for more than 10,000 members).
        assert delta == pytest.approx(min(1e-5, 1.0 / (10 * res.info["data"]["members"])))
        assert check["delta"] == delta and dp["risk"]["epsilon"]["delta"] == delta
        # The accountant's ε: what Opacus gives for the σ used, the sampling rate and the
        # steps of these records — and within the target.
        sigma = dp["defence_details"]["noise_multiplier"]
        q, steps = sampling(res.info["data"]["members"], BATCH, EPOCHS)
        eps = check["accountant_epsilon"]
        assert eps == pytest.approx(_rdp_epsilon(sigma, q, steps, delta), rel=1e-6)
        assert eps <= TARGET_EPSILON + 0.01
        # The bound is the largest over the trade-off's attacks (all 8 ran), each at the
        # Bonferroni level, so that the largest is a 95 % bound for all 8 together.
        assert len(dp["attacks"]) == 8
        assert check["attacks_together"] == 8 and check["confidence"] == pytest.approx(0.95)
        assert dp["risk"]["epsilon"]["per_attack_confidence"] == pytest.approx(1 - 0.05 / 8)
        assert check["empirical_epsilon_lower_bound"] == dp["risk"]["epsilon"]["value"]
        # The claim.
        assert check["empirical_epsilon_lower_bound"] <= eps, (seed, check)
        assert check["within_claim"]
        assert check["testable"] and check["verdict"] == "consistent with the claim"


def test_the_dp_check_can_fail(sweeps):
    for res in sweeps.values():
        _, _, no_noise = _rows(res)
        # (The noiseless model's own claim, ε in the millions, is of course kept ...)
        assert no_noise["dp"]["within_claim"]
        assert not no_noise["dp"]["testable"]            # ... and untestable, and says so
    for seed, res in sweeps.items():
        none, dp, no_noise = _rows(res)
        eps = dp["dp"]["accountant_epsilon"]
        delta = res.info["delta"]
        # A perfect attack could certify more than the claim at these counts ...
        _power(_perfect_attack_bound(res, delta) > eps,
               f"seed {seed}: even a perfect attack could not certify ε > {eps:.2f} on "
               f"{res.info['data']['members']} members")
        # ... the same attacks do certify more on the model trained without a defence ...
        _power(none["risk"]["epsilon"]["value"] > eps,
               f"seed {seed}: the undefended model's bound is only "
               f"{none['risk']['epsilon']['value']:.2f}")
        # ... and on DP-SGD without its noise: had dp_sgd skipped the noise while reporting
        # ε = 2, the claim above would fail.
        _power(no_noise["risk"]["epsilon"]["value"] > eps,
               f"seed {seed}: DP-SGD without noise certifies only "
               f"{no_noise['risk']['epsilon']['value']:.2f}")


def test_undefended_model_is_at_least_as_exposed_as_dp_sgd(sweeps):
    """The claim: DP-SGD's strongest attack is nowhere above the undefended model's 95 %
    interval. On the synthetic data the two are intervals apart (the power: measured above); on
    a user's table that is asserted too unless the undefended model is not detectably exposed
    there."""
    for seed, res in sweeps.items():
        none, dp, _ = _rows(res)
        for metric in ("auc", "accuracy"):
            undefended, defended = none["risk"][metric], dp["risk"][metric]
            assert defended["value"] <= undefended["ci"][1], (seed, metric, undefended, defended)
    for seed, res in sweeps.items():
        none, dp, _ = _rows(res)
        for metric in ("auc", "accuracy"):
            undefended, defended = none["risk"][metric], dp["risk"][metric]
            _power(undefended["ci"][0] > defended["ci"][1],
                   f"seed {seed}: the undefended model's {metric} {undefended['value']:.3f} "
                   f"{undefended['ci']} is not above DP-SGD's {defended['ci']}")


# --------------------------------------------------------------------------- KCD, the chart

KCD_SEEDS = (1, 2, 3)
# Purchase100's own construction (engine.data.purchase.generate_purchase_kmeans): customers
# from 40 latent purchase styles, labelled by k-means into 20 classes — the label is a function
# of the purchases, as in the real data.
KCD_TABLE = {"n_records": 2500, "n_features": 200, "n_classes": 20, "contrast": 0.6,
             "labels": "kmeans"}
# KCD at α = 0 is the undefended model (§3.2; tests/engine/test_defences.py checks it), so
# the α curve starts at "No defence" and α = 0 is not trained again.
KCD_SETTINGS = [("kcd", 0.5), ("kcd", 1.0), ("l2", 1e-3), ("l2", 0.03), ("l2", 0.05),
                ("l2", 0.1), ("dmp", 1.0)]
FEW_POINTS = 0.05             # "within a few points of 0.5": balanced accuracy ≤ 0.55


@pytest.fixture(scope="module")
def kcd_sweeps(tmp_path_factory, user_table):
    """One trade-off per seed (``engine.defences.tradeoff``, the function the app runs) on
    Purchase100's construction at a size this machine can test: ``generate_purchase(seed,
    2500, 200, 20, labels="kmeans")`` — 200 binary purchase features, customers drawn from 40
    latent styles and labelled by k-means into 20 classes (paper 001's Purchase-20 shape),
    written to CSV and read back as a user's file; or the user's own table (PRA_CLAIMS_DATA).
    attacker_fraction 0.2: 1,000 members (50 per class on average), 1,000 non-members and 500
    held-out records (DMP's reference set); the audit's default model (200-128-20, ReLU, Adam,
    30 epochs, batch 128). Settings: no defence (= KCD α = 0), KCD α = 0.5, 1 (5 teachers;
    students trained until they converge, Alg. 2 step 6), L2 λ = 1e-3, 0.03, 0.05, 0.1, DMP
    T = 1 (its student trained until it converges, Alg. 1 step 3).

    Why k-means labels: in the default construction labels are drawn first and purchases from
    the class, so part of every label is noise the purchases cannot explain and a model that
    fits its members must memorise it; Purchase100's labels are k-means clusters of the
    purchases (Shokri et al. 2017). Measured, both give the same verdicts at this size
    (docs/methods/defences.md).

    Measured, seeds 1–8 (the tests run 1–3; test accuracy / strongest attack's balanced
    accuracy / TPR at 1 % FPR): undefended 0.581–0.637 / 0.786–0.831 / 0.056–0.132; KCD α = 1
    0.442–0.489 / 0.560–0.583 / 0.026–0.046 (student 816–945 epochs); KCD α = 0.5 0.578–0.617 /
    0.778–0.812 / 0.034–0.140; L2 λ = 1e-3 0.587–0.640 / 0.778–0.833, λ = 0.03 0.481–0.580 /
    0.683–0.755, λ = 0.05 0.322–0.377 / 0.646–0.685, λ = 0.1 0.055–0.108 / 0.525–0.553; DMP
    T = 1 0.582–0.625 / 0.746–0.795 (student 171–182 epochs). About 12 s per seed on an idle
    core, most of it the KCD student's ~900 epochs.
    """
    import pandas as pd

    from engine.audits.model import ModelConfig
    from engine.data.purchase import generate_purchase
    from engine.defences import tradeoff

    out = {}
    for seed in KCD_SEEDS:
        if user_table is not None:
            path, label = CLAIMS_DATA, CLAIMS_LABEL
        else:
            data = generate_purchase(seed, **KCD_TABLE)
            frame = pd.DataFrame(data.X.astype(np.int8), columns=list(data.feature_names))
            frame["label"] = data.y
            path = tmp_path_factory.mktemp(f"kcd{seed}") / "purchase20_kmeans.csv"
            frame.to_csv(path, index=False)
            label = "label"
        config = ModelConfig(data=str(path), label=label, attacker_fraction=0.2, seed=seed)
        res = tradeoff(config, KCD_SETTINGS)
        if user_table is None:
            assert res.info["data"]["members"] == 1000
            assert res.info["data"]["non_members"] == 1000
        rows = {r["label"]: r for r in res.rows}
        for a in ("0.5", "1"):                 # Alg. 2 step 6: the students converged
            d = rows[f"KCD α = {a}"]["defence_details"]
            assert d["student_converged"] in ("recipe", "tolerance", "plateau"), d
        out[seed] = rows
    return out


def _risk(row, metric="accuracy"):
    """(estimate, lower, upper) of the strongest attack's metric on a trade-off row
    (``metric`` "tpr": TPR at the policy's FPR, 1 %)."""
    r = row["risk"][metric]
    return r["value"], r["ci"][0], r["ci"][1]


def _require_exposure(kcd_sweeps) -> None:
    """The power every KCD claim needs: the undefended model's strongest attack detectably
    more than a few points above chance (the lower end of its balanced-accuracy interval above
    0.5 + FEW_POINTS; 0.759–0.806 on the synthetic table) — otherwise there is nothing for a
    defence to lower, and "falls", "within a few points" or "costs less than L2 at the same
    attack accuracy" say nothing."""
    for seed, rows in kcd_sweeps.items():
        low = _risk(rows["No defence"])[1]
        _power(low > 0.5 + FEW_POINTS,
               f"seed {seed}: the undefended model is not detectably exposed (strongest "
               f"attack's balanced accuracy {_risk(rows['No defence'])[0]:.3f}, lower end "
               f"{low:.3f})")


def _falls(rows, metric="accuracy") -> bool:
    """Claim (c) on a sequence of rows in order of a knob: no step *up* beyond the previous
    point's 95 % interval, and the last point's interval entirely below the first's."""
    values = [_risk(r, metric) for r in rows]
    no_rise = all(b[0] <= a[2] for a, b in zip(values, values[1:], strict=False))
    return no_rise and values[-1][2] < values[0][1]


def test_kcd_attack_success_falls_as_alpha_rises(kcd_sweeps):
    """Claim (c), paper 004 §3.2 ("α can tune the privacy-utility trade-off"): the strongest
    attack's balanced accuracy falls along α = 0 (the undefended model), 0.5, 1, α = 1's
    interval wholly below α = 0's. Measured, seeds 1–8: 0.786–0.831 → 0.778–0.812 →
    0.560–0.583; α = 1's upper limit is 0.16–0.20 below α = 0's lower limit. (Before the
    students were trained to convergence: α = 1 at 0.683–0.729, 0.04–0.08 below.)

    Able to fail: a knob that does not protect fails the same check — L2 at λ = 1e-3 leaves the
    attack where it was (0.778–0.833 against the undefended 0.786–0.831)."""
    for seed, rows in kcd_sweeps.items():
        values = [_risk(rows[k]) for k in ("No defence", "KCD α = 0.5", "KCD α = 1")]
        assert all(b[0] <= a[2] for a, b in zip(values, values[1:], strict=False)), \
            (seed, values)                                 # no step up, on any data
    _require_exposure(kcd_sweeps)
    for seed, rows in kcd_sweeps.items():
        alphas = [rows["No defence"], rows["KCD α = 0.5"], rows["KCD α = 1"]]
        assert _falls(alphas), (seed, [_risk(r) for r in alphas])
    for seed, rows in kcd_sweeps.items():
        # The control: a setting that changes nothing is not "falling".
        _power(not _falls([rows["No defence"], rows["L2 λ = 0.001"]]),
               f"seed {seed}: L2 λ = 1e-3 'falls' below the undefended model")


def _strictly_more_exposed(a, b, metric) -> bool:
    """Row ``b``'s strongest-attack estimate above the upper end of row ``a``'s interval."""
    return _risk(b, metric)[0] > _risk(a, metric)[2]


def test_undefended_model_is_the_most_vulnerable_point(kcd_sweeps):
    """Claim (e), on the chart's axes — balanced accuracy, AUC and TPR at 1 % FPR (the chart's
    default): no defended setting's strongest attack lies above the upper end of the undefended
    model's 95 % interval. Measured, seeds 1–8: on balanced accuracy and AUC the undefended
    estimate is the largest or tied (L2 λ = 1e-3 up to 0.003 above it, inside its interval); on
    TPR at 1 % FPR KCD α = 1 is *below* the undefended model on every seed (0.026–0.046
    against 0.056–0.132) — before its student was trained to convergence it was above it on 4
    of 8 (docs/methods/defences.md); KCD α = 0.5 and L2 λ = 1e-3 are up to 0.026 above it on
    seeds 5 and 7, inside its interval.

    Able to fail: with KCD α = 1 in the undefended model's place the check fails on balanced
    accuracy and AUC on every seed (the undefended model is above its upper limit). TPR at 1 %
    FPR on 500 evaluated non-members has intervals about ±0.1 wide, so there the check can
    fail only where the difference is large: with KCD α = 1 in the undefended model's place it
    fails on seeds 1, 3, 4, 5, 6, 8, not on 2 and 7; the control asks for one seed at least."""
    for seed, rows in kcd_sweeps.items():
        none = rows["No defence"]
        for metric in ("accuracy", "auc", "tpr"):
            for label, row in rows.items():
                assert not _strictly_more_exposed(none, row, metric), (seed, metric, label)
    for seed, rows in kcd_sweeps.items():
        for metric in ("accuracy", "auc"):
            _power(_strictly_more_exposed(rows["KCD α = 1"], rows["No defence"], metric),
                   f"seed {seed}: the undefended model's {metric} is not above KCD α = 1's "
                   "upper limit")
    _power(any(_strictly_more_exposed(rows["KCD α = 1"], rows["No defence"], "tpr")
               for rows in kcd_sweeps.values()),
           "on no seed is the undefended model's TPR at 1 % FPR above KCD α = 1's upper limit")


def _accuracy_at(points, attack: float) -> float:
    """Test accuracy of a defence's curve at a given attack balanced accuracy: linear between
    the two settings that bracket it (``points``: (attack, accuracy) pairs). Outside the
    settings' range, the accuracy of the nearest end: below its lowest attack the curve is not
    known to get there at all, so the comparison is with its most private setting (beating it
    on accuracy at a lower attack is beating the whole curve); above its highest, with its
    least private one. On the synthetic table the L2 settings bracket KCD on every seed."""
    points = sorted(points)
    if attack <= points[0][0]:
        return points[0][1]
    if attack >= points[-1][0]:
        return points[-1][1]
    for (a0, u0), (a1, u1) in zip(points, points[1:], strict=False):
        if a0 <= attack <= a1:
            return u0 if a1 == a0 else u0 + (u1 - u0) * (attack - a0) / (a1 - a0)
    raise AssertionError(f"cannot place attack accuracy {attack:.3f} on {points}")


def test_kcd_costs_less_accuracy_than_l2_at_the_same_attack_accuracy(kcd_sweeps):
    """Claim (a), second half: at the strongest attack's balanced accuracy KCD α = 1 reaches,
    the L2 curve (λ = 1e-3, 0.03, 0.05, 0.1, interpolated linearly between the two that
    bracket it) has lower test accuracy. Measured margins (KCD − L2), seeds 1–8: 0.284, 0.373,
    0.370, 0.320, 0.248, 0.355, 0.295, 0.325 (KCD 0.442–0.489; L2 0.105–0.234 there) — far
    outside the accuracy intervals (±0.03 on 1,000 non-members).

    Control, that the check is not true of any pair: L2 λ = 0.05 against the KCD curve
    (α = 0.5, 1) does *not* cost less than KCD (0.322–0.377 against the KCD curve's
    0.493–0.537 there). At milder settings the two curves meet: L2 λ = 0.03 is 0.002–0.011
    *above* the KCD curve on seeds 2, 4 and 5."""
    _require_exposure(kcd_sweeps)
    for seed, rows in kcd_sweeps.items():
        kcd1 = rows["KCD α = 1"]
        l2 = [rows[f"L2 λ = {lam}"] for lam in ("0.001", "0.03", "0.05", "0.1")]
        curve = [(_risk(r)[0], r["test_accuracy"]) for r in l2]
        at = _accuracy_at(curve, _risk(kcd1)[0])
        assert kcd1["test_accuracy"] > at, (seed, kcd1["test_accuracy"], at)
    for seed, rows in kcd_sweeps.items():
        kcd_curve = [(_risk(r)[0], r["test_accuracy"])
                     for r in (rows["KCD α = 0.5"], rows["KCD α = 1"])]
        l2_05 = rows["L2 λ = 0.05"]
        _power(not l2_05["test_accuracy"] > _accuracy_at(kcd_curve, _risk(l2_05)[0]),
               f"seed {seed}: L2 λ = 0.05 costs less than the KCD curve too")


# Claims that do not hold on the synthetic tables (measured, docs/methods/defences.md): kept as
# checks that must fail there (strict xfail: if they start holding the test says so) and run
# as plain tests on a user's table (PRA_CLAIMS_DATA), where they may hold.
_NOT_ON_SYNTHETIC = pytest.mark.xfail(
    not CLAIMS_DATA, strict=True,
    reason="does not hold on the synthetic purchase tables at test sizes "
           "(docs/methods/defences.md, 'claims (a)–(e)')")


@_NOT_ON_SYNTHETIC
def test_kcd_brings_the_attack_within_a_few_points_of_chance(kcd_sweeps):
    """Claim (a), first half: KCD α = 1 brings the strongest attack's balanced accuracy within a
    few points (``FEW_POINTS`` = 0.05, fixed before measuring) of 0.5. Measured, k-means
    table, seeds 1–8: 0.560–0.583, lower ends 0.529–0.552 (with membership permuted — nothing to
    find — the largest of the 8 attacks reads 0.503–0.522, so the selection explains at most
    0.02 of it); prototype table 0.556–0.573. It holds with 200 members per class (0.538, 0.541;
    49–157 s a seed, too slow for this file). Does not hold on any seed at this size."""
    _require_exposure(kcd_sweeps)
    for seed, rows in kcd_sweeps.items():
        assert _risk(rows["KCD α = 1"])[0] <= 0.5 + FEW_POINTS, (seed, _risk(rows["KCD α = 1"]))


@_NOT_ON_SYNTHETIC
def test_kcd_and_dmp_are_comparable(kcd_sweeps):
    """Claim (b): KCD α = 1 and DMP T = 1 comparable within their 95 % intervals on test
    accuracy and on the strongest attack's balanced accuracy. Measured, k-means table, seeds
    1–8: test accuracy KCD 0.442–0.489 against DMP 0.582–0.625, balanced accuracy 0.560–0.583
    against 0.746–0.795 — intervals apart on both, on every seed: DMP's student, trained to
    convergence on 500 reference records, reproduces its teacher (the undefended model; right
    on 98–99.5 % of the members it never saw). Before the fix DMP's student, under-trained,
    was at 0.440–0.496 / 0.638–0.678 — early stopping rather than distillation."""
    _require_exposure(kcd_sweeps)
    for seed, rows in kcd_sweeps.items():
        k, d = rows["KCD α = 1"], rows["DMP T = 1"]
        for a, b in ((k["test_accuracy_ci"], d["test_accuracy_ci"]),
                     (k["risk"]["accuracy"]["ci"], d["risk"]["accuracy"]["ci"])):
            assert a[0] <= b[1] and b[0] <= a[1], (seed, a, b)
