"""Claims of issue 8 about membership inference on *trained* models (papers 001 and 004 §4,
Carlini et al. 2022 for LiRA, Zarifzadeh et al. 2024 for RMIA).

`test_btta_claims.py` checks BTTA's closed forms and Shokri ≈ BTTA on simulated outputs; here
every model is a real MLP trained by ``engine.models.train_many_mlps`` and every number comes
from the attacks of ``engine.attacks.model`` and the shared metric layer
(``engine.attacks.model.base.evaluate``: DeLong AUC intervals, Clopper–Pearson accuracy
intervals, the TPR-at-FPR interval that carries the threshold's uncertainty too).

The data: a purchase-style table (``engine.data.purchase.generate_purchase``: 200 binary
features, 20 classes of purchase styles). Two worlds, each one stacked training batch:

* **overfit** — every model trains on 1,000 records (50 per class) for 30 epochs: the audited
  model (on a random half of a 2,000-record audit universe), 4 shadow models (on halves of the
  attacker's own 2,000 records), 16 reference models (balanced halves of the universe, for
  LiRA and RMIA) and 6 *control* models trained on halves of 2,000 further records that are
  neither audited nor the attacker's. Training accuracy 0.98–0.995, test accuracy 0.63–0.68
  (nine seeds).
* **less overfit** — the same recipe on 4,000 records (200 per class) for 8 epochs: the
  audited model and 2 shadow models. Training accuracy 0.84–0.88, test accuracy 0.73–0.79.

Every interval is at 95 %. Thresholds always come from shadow or reference models, never from
the audited records. Comparisons of two attacks on the same audited records are paired where
the claim is about accuracy (per-record correctness, a one-sided z at 1 %, as in
`test_btta_claims.py`). Sizes were chosen to keep this file within its time budget (about
20 s on two shared CPU cores); ``build_world`` takes any table (X, y, k), so the claims can be
re-run on other data and seeds from a script. Every test passed at seeds 11 and 1–8; the
docstrings give the measured ranges and what was seen on other tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from engine.attacks.model import btta, cbtta, label_only, lira, metric, ml_leaks, rmia
from engine.attacks.model import shadow as shokri
from engine.attacks.model.base import (
    AttackOutcome,
    ModelOutputs,
    ReferenceOutputs,
    correct,
    evaluate,
)

pytestmark = pytest.mark.slow

SEED = 11
DATA = {"n_features": 200, "n_classes": 20, "contrast": 0.6}
OVERFIT = {"members": 1000, "epochs": 30, "shadows": 4, "references": 16, "controls": 6}
LESS_OVERFIT = {"members": 4000, "epochs": 8, "shadows": 2, "references": 0, "controls": 0}
HIDDEN = (128,)
CONFIDENCE = 0.95
FPR = 0.01
SHOKRI_EPOCHS = 150
CBTTA_PARTITIONS = ("PTL", "PPL", "PTC", "PPC", "PTL+PTC", "PPL+PPC")   # the audit's choices
Z_ONE_SIDED = stats.norm.ppf(0.99)          # 2.33: "better" / "not worse" at 1 %


# --------------------------------------------------------------------------- worlds

@dataclass
class World:
    """One training batch: the audited model, the attacker's models and the controls."""

    target: ModelOutputs               # audited model on the universe; member = truth
    shadow: ModelOutputs               # pooled shadow outputs on the attacker's records
    refs: ReferenceOutputs | None      # reference models on the universe
    controls: list[ModelOutputs]       # models that never saw the universe; member = a
                                       # random half of the universe, labelled "members"
    train_accuracy: float
    test_accuracy: float
    seed: int


def purchase_table(seed: int, n: int):
    from engine.data.purchase import generate_purchase

    d = generate_purchase(seed, n, **DATA)
    return d.X, d.y, d.n_classes


def build_world(X, y, k: int, seed: int, *, members: int, epochs: int, shadows: int,
                references: int = 0, controls: int = 0, hidden=HIDDEN) -> World:
    """Split a table into the audit universe (2·members records, half of them trained on),
    the attacker's population (2·members) and, with controls, 2·members outside records; train
    every model as one stacked batch (same recipe for all) and read their outputs."""
    from engine.models import TrainingSpec, reference_tasks, train_many_mlps
    from engine.runtime import rng, torch_threads

    g = rng(seed, "model-claims", "split")
    n_u = 2 * members
    need = 2 * n_u + (n_u if controls else 0)
    if len(y) < need:
        raise ValueError(f"need {need} records, got {len(y)}")
    order = g.permutation(len(y))[:need]
    uni, pop, out = order[:n_u], order[n_u:2 * n_u], order[2 * n_u:]
    inside = np.zeros(n_u, dtype=bool)
    inside[g.permutation(n_u)[:members]] = True
    rows = np.r_[uni, pop, out]
    blocks = {"uni": slice(0, n_u), "pop": slice(n_u, 2 * n_u), "out": slice(2 * n_u, need)}

    def in_block(block: str, mask_block: np.ndarray) -> np.ndarray:
        m = np.zeros(need, dtype=bool)
        m[blocks[block]] = mask_block
        return m

    masks = [in_block("uni", inside)]
    masks += [in_block("pop", t.mask(n_u)) for t in
              reference_tasks(shadows, seed + 1, n_u, design="fixed_size")]
    if references:
        masks += [in_block("uni", t.mask(n_u)) for t in
                  reference_tasks(references, seed + 2, n_u, design="balanced")]
    if controls:
        masks += [in_block("out", t.mask(n_u)) for t in
                  reference_tasks(controls, seed + 3, n_u, design="fixed_size")]
    masks = np.array(masks)
    spec = TrainingSpec(family="mlp", hidden=tuple(hidden), epochs=epochs, seed=seed)
    # One thread: these steps are too small to repay a second one, and on shared CI cores a
    # second thread waits for the other jobs (measured here: 2 s of CPU on one thread against
    # 5.5 s on two for 27 models × 1,000 records × 10 epochs).
    with torch_threads(1):
        models = train_many_mlps(spec, X[rows], y[rows], k, masks)
        probs = models.predict_proba(X[rows[:2 * n_u]])      # (M, universe + population, k)
    y_u, y_p = y[uni], y[pop]
    s0, r0, c0 = 1, 1 + shadows, 1 + shadows + references
    target = ModelOutputs(probs[0, :n_u], y_u, inside)
    shadow_out = ReferenceOutputs(probs[s0:r0, n_u:], masks[s0:r0, blocks["pop"]]
                                  ).to_shadow(y_p)
    refs = (ReferenceOutputs(probs[r0:c0, :n_u], masks[r0:c0, blocks["uni"]])
            if references else None)
    ctrl = []
    for j in range(controls):
        fake = np.zeros(n_u, dtype=bool)
        fake[rng(seed, "model-claims", "fake-members", j).permutation(n_u)[:members]] = True
        ctrl.append(ModelOutputs(probs[c0 + j, :n_u], y_u, fake))
    ok = correct(target.probs, target.labels)
    return World(target, shadow_out, refs, ctrl, float(ok[inside].mean()),
                 float(ok[~inside].mean()), seed)


@pytest.fixture(scope="module")
def table():
    n = 2 * 2 * LESS_OVERFIT["members"]
    return purchase_table(SEED, max(n, 6 * OVERFIT["members"]))


@pytest.fixture(scope="module")
def overfit(table):
    return build_world(*table, SEED, **OVERFIT)


@pytest.fixture(scope="module")
def less_overfit(table):
    return build_world(*table, SEED + 100, **LESS_OVERFIT)


# --------------------------------------------------------------------------- helpers

def result(outcome, member) -> dict:
    return evaluate(outcome, member, delta=0.0, confidence=CONFIDENCE, fpr_targets=(FPR,))


def tpr_entry(res: dict) -> dict:
    return next(r for r in res["tpr_at_fpr"] if abs(r["fpr_target"] - FPR) < 1e-12)


def paired_z(a_right: np.ndarray, b_right: np.ndarray) -> float:
    """z of the mean per-record difference in correctness (a − b) on the same records."""
    d = a_right.astype(float) - b_right.astype(float)
    se = d.std(ddof=1) / np.sqrt(d.size)
    if se > 0:
        return float(d.mean() / se)
    return 0.0 if d.mean() == 0 else float(np.sign(d.mean()) * np.inf)


def right(outcome, member) -> np.ndarray:
    return np.asarray(outcome.decisions) == np.asarray(member)


def network_attacks(w: World) -> dict[str, list[AttackOutcome]]:
    """Shokri's and ML-Leaks' (MLP and logistic) outcomes on the audited model and on every
    control model.

    Both attacks fit their classifiers on the shadow outputs only and then score each record
    on its own, so all models' records are scored in one call (one fit, seeded — the same
    numbers as one call per model at a fraction of the cost) and split afterwards."""
    models = [w.target, *w.controls]
    stacked = ModelOutputs(np.concatenate([o.probs for o in models]),
                           np.concatenate([o.labels for o in models]))
    cuts = np.cumsum([o.n for o in models])[:-1]
    out = {}
    for o in (shokri.attack(stacked, w.shadow, epochs=SHOKRI_EPOCHS, seed=w.seed),
              ml_leaks.attack(stacked, w.shadow, seed=w.seed),
              ml_leaks.attack(stacked, w.shadow, classifier="logistic")):
        out[o.name] = [AttackOutcome(o.name, o.label, s, o.threshold, o.details, decisions=d)
                       for s, d in zip(np.split(o.scores, cuts), np.split(o.decisions, cuts),
                                       strict=True)]
    return out


@pytest.fixture(scope="module")
def networks(overfit):
    return network_attacks(overfit)


def shadow_attacks(target: ModelOutputs, shadow_out: ModelOutputs) -> list:
    """The attacks that need only shadow outputs and cost nothing to fit: metric attacks with
    shadow thresholds, BTTA with shadow accuracies."""
    outs = metric.run(target, shadow_out)
    outs.append(btta.attack(target, btta.params_from_outputs(shadow_out),
                            source="shadow models"))
    return outs


# --------------------------------------------------------------------------- claim 1

def test_more_overfit_model_is_more_vulnerable(overfit, less_overfit):
    """Less data and more epochs ⇒ a larger generalization gap and a more vulnerable model.

    Each world's attacker trains shadow models with that world's recipe. Fixed attack: the
    confidence attack with class thresholds (Song & Mittal; paper 004 §4.4.1) — its AUC
    interval on the overfit model lies entirely above its interval on the less overfit one.
    The strongest shadow-only attack (metric attacks and BTTA, the highest AUC in each world)
    separates the same way. Measured over nine seeds: confidence AUC 0.77–0.82 against
    0.57–0.59.

    The claim needs a recipe change that changes the overfitting: on the mixed credit table
    (binary label, 24 encoded features) both recipes give train ≈ test accuracy (0.83/0.82 and
    0.81/0.81) and the two AUC intervals overlap around 0.5–0.53, as they should.
    """
    res = {}
    for name, w in (("overfit", overfit), ("less", less_overfit)):
        res[name] = {o.name: result(o, w.target.member)
                     for o in shadow_attacks(w.target, w.shadow)}
    gap_a = overfit.train_accuracy - overfit.test_accuracy
    gap_b = less_overfit.train_accuracy - less_overfit.test_accuracy
    assert gap_a > gap_b, (gap_a, gap_b)
    hi, lo = res["overfit"]["metric_confidence"], res["less"]["metric_confidence"]
    assert hi["auc_ci"][0] > lo["auc_ci"][1], (hi["auc"], hi["auc_ci"], lo["auc"], lo["auc_ci"])
    best_hi = max(res["overfit"].values(), key=lambda r: r["auc"])
    best_lo = max(res["less"].values(), key=lambda r: r["auc"])
    assert best_hi["auc_ci"][0] > best_lo["auc_ci"][1], (best_hi["name"], best_hi["auc_ci"],
                                                         best_lo["name"], best_lo["auc_ci"])


# --------------------------------------------------------------------------- claim 2

# The audit's reference attacks as it runs them (LiRA's variance "auto": global below 64
# reference models), and LiRA with a per-record variance asked for explicitly.
REFERENCE_ATTACKS = {
    "lira_online": lambda t, r: lira.attack(t, r, online=True),
    "lira_offline": lambda t, r: lira.attack(t, r, online=False),
    "rmia_offline": lambda t, r: rmia.attack(t, r, online=False),
    "rmia_online": lambda t, r: rmia.attack(t, r, online=True),
}
PER_EXAMPLE_LIRA = {
    "lira_online_per_example": lambda t, r: lira.attack(t, r, online=True,
                                                        variance="per_example"),
    "lira_offline_per_example": lambda t, r: lira.attack(t, r, online=False,
                                                         variance="per_example"),
}


def metric_tpr_upper(name: str, res: dict, target: ModelOutputs) -> float:
    """Upper end of a metric attack's TPR at FPR 1 %.

    The metric layer's interval, except for the correctness attack: its score takes two
    values, so its ROC is the segment (0, 0)–(p1, p0) and at FPR t its TPR is at most
    t·p0/p1 (randomising between the two rules) — bounded with the Clopper–Pearson intervals
    of the training accuracy p0 and the test accuracy p1. The metric layer's interval, built
    for ROCs with thresholds everywhere, jumps to the next ROC point (p1, p0) instead.
    """
    if name != "metric_correctness":
        return tpr_entry(res)["tpr_ci"][1]
    gap = label_only.generalization_gap(target, CONFIDENCE)
    return min(1.0, FPR * gap["train_accuracy_ci"][1] / gap["test_accuracy_ci"][0])


def test_lira_and_rmia_beat_every_metric_attack_at_low_fpr(overfit):
    """On the overfit MLP, the lower end of LiRA's and RMIA's TPR-at-1 %-FPR interval lies
    above the upper end of every metric attack's (correctness, confidence, entropy, modified
    entropy, top-1): per-record calibration against reference models finds members that a
    global or per-class threshold cannot tell from confidently classified non-members.

    LiRA with a per-record variance from 16 reference models (8 "in" and 8 "out" φ's per
    record) is checked more weakly: its measured TPR at 1 % FPR exceeds the upper end of every
    metric attack's interval, but the lower end of its own interval need not — the records
    whose σ comes out small give a few non-members extreme scores, and the interval's lower end
    is read at about 0.3 % FPR, where those sit (at seeds 3, 7 and 8 of nine its lower end,
    0.07–0.10, was below the metric upper end, 0.08–0.10; its measured TPR was 0.22–0.37
    against 0.35–0.50 for the defaults). That is why LiRA's default pools the variance below 64
    reference models.

    Measured over nine seeds: lower ends 0.16–0.38 against metric upper ends 0.05–0.10. Where
    it does not hold, and why: with 100 classes and 10 training records per class (purchase-
    style, 600 features) the confidence, entropy and top-1 attacks already find every member
    at 1 % FPR, so nothing can exceed them; on a weakly fitted model (make_classification,
    train/test accuracy 0.64/0.41) LiRA and RMIA find 2–4 times as many members (0.07–0.12
    against 0.02–0.03) but 1,000 non-members cannot separate the intervals.
    """
    t = overfit.target
    metrics = {o.name: result(o, t.member) for o in metric.run(t, overfit.shadow)}
    assert len(metrics) == len(metric.METRICS)
    ceiling = {n: metric_tpr_upper(n, r, t) for n, r in metrics.items()}
    worst = max(ceiling, key=ceiling.get)
    for name, fn in {**REFERENCE_ATTACKS, **PER_EXAMPLE_LIRA}.items():
        res = result(fn(t, overfit.refs), t.member)
        entry = tpr_entry(res)
        assert entry["measurable"]
        if name in PER_EXAMPLE_LIRA:
            assert entry["tpr"] > ceiling[worst], (name, entry["tpr"], worst, ceiling[worst])
        else:
            assert entry["tpr_ci"][0] > ceiling[worst], (name, entry["tpr"], entry["tpr_ci"],
                                                          worst, ceiling[worst])


# --------------------------------------------------------------------------- claim 3

def label_only_outputs(o: ModelOutputs) -> ModelOutputs:
    """The same model behind an API that returns only its predicted class (one-hot)."""
    hard = np.zeros_like(o.probs)
    hard[np.arange(o.n), np.argmax(o.probs, axis=1)] = 1.0
    return ModelOutputs(hard, o.labels, o.member, o.group)


def test_shokri_is_close_to_btta_without_signal_beyond_the_gap(overfit):
    """Paper 001 §"Comparison of BTTA to SMA": where a model's outputs carry no signal beyond
    the generalization gap, the shadow-model attack does about as well as BTTA.

    The model: the overfit MLP behind a label-only API (it returns the predicted class as a
    one-hot vector; shadow models likewise). Given the true class, the attacker then sees
    whether the model is right and, when wrong, which wrong class it named. The model labels
    (almost) every training record correctly, so a wrong answer means "non-member" whatever
    the wrong class; the only signal left is correctness per class — the per-class gap —
    and at prior ½ with training accuracy above test accuracy in every class the Bayes rule
    on it is BTTA's "correct ⇒ member" (paper 001 Thm 1, Thm 3 with the partition by true
    label). So Shokri's per-class attack networks can at best reproduce BTTA: on the same
    records Shokri is not significantly more accurate (paired z < 2.33), and each one's
    accuracy lies in the other's interval. (Shokri is often a few records *less* accurate:
    its networks also learn from thin (class, wrong label) cells where a few shadow members
    happened to share a wrong label — noise, not signal — so the paired test is one-sided.
    Measured over nine seeds it disagreed with BTTA on 2–4 of 2,000 records, z from −2.0 to
    −0.6.) `test_attacks_that_see_confidence_beat_btta` shows that the same comparison on the
    full probability vectors does separate.
    """
    t = overfit.target
    hard_t, hard_s = label_only_outputs(t), label_only_outputs(overfit.shadow)
    sma = shokri.attack(hard_t, hard_s, epochs=SHOKRI_EPOCHS, seed=overfit.seed)
    base = btta.attack(hard_t, btta.params_from_outputs(hard_s), source="shadow models")
    r_sma, r_base = result(sma, t.member), result(base, t.member)
    z = paired_z(right(sma, t.member), right(base, t.member))
    assert z < Z_ONE_SIDED, (r_sma["accuracy"], r_base["accuracy"], z)
    assert r_sma["accuracy_ci"][0] <= r_base["accuracy"] <= r_sma["accuracy_ci"][1]
    assert r_base["accuracy_ci"][0] <= r_sma["accuracy"] <= r_base["accuracy_ci"][1]


# --------------------------------------------------------------------------- claim 4

def control_attacks(w: World, networks: dict) -> dict[str, list]:
    """Every attack of the library on every control model: {name: [outcome per control]}."""
    out: dict[str, list] = {name: list(per_model[1:]) for name, per_model in networks.items()}
    for c in w.controls:
        outs = shadow_attacks(c, w.shadow)
        outs += [cbtta.attack(c, cbtta.fit(w.shadow, part)) for part in CBTTA_PARTITIONS]
        outs.append(label_only.attack(c))
        named = {o.name: o for o in outs}
        named.update({name: fn(c, w.refs) for name, fn in
                      {**REFERENCE_ATTACKS, **PER_EXAMPLE_LIRA}.items()})
        for name, o in named.items():
            out.setdefault(name, []).append(o)
    return out


def test_every_attack_is_at_chance_on_models_that_never_saw_the_records(overfit, networks):
    """Non-member-only control: each control model trained on other records, and a random
    half of the audited records is labelled "members". Nothing distinguishes the two halves,
    so every attack's true AUC is ½, its true TPR at 1 % FPR is 1 % and its balanced accuracy
    at its own threshold ½.

    The intervals cover those values with probability ≥ 95 % each, so over the controls
    (independent models and labellings) an attack may miss a few times: per attack and per
    quantity the number of misses must stay within the 99.99 % quantile of Binomial(controls,
    5 %) (3 of 6), and the AUC's deviations pooled over controls (Stouffer's z of
    (AUC − ½)/SE, SE from the DeLong interval) must stay within the two-sided 0.1 % level,
    Bonferroni-corrected over the attacks (|z| < 4.1 for 22 attacks). Checks of different
    attacks on one control are correlated (same labelling), hence per-attack bounds rather
    than one pooled count. Measured over nine seeds: at most 2 misses for any attack and
    quantity, largest |z| 1.76; the same controls with the real members put in fail at once.
    """
    outs = control_attacks(overfit, networks)
    n_c = len(overfit.controls)
    assert n_c >= 5 and len(outs) >= 15
    allowed = int(stats.binom.ppf(1 - 1e-4, n_c, 1 - CONFIDENCE))
    z_max = stats.norm.isf(0.001 / (2 * len(outs)))
    zq = stats.norm.ppf(0.5 + CONFIDENCE / 2)
    for name, per_control in outs.items():
        assert len(per_control) == n_c, name
        miss = {"auc": 0, "tpr": 0, "accuracy": 0}
        z = []
        for c, o in zip(overfit.controls, per_control, strict=True):
            r = result(o, c.member)
            lo, hi = r["auc_ci"]
            miss["auc"] += not lo <= 0.5 <= hi
            t_lo, t_hi = tpr_entry(r)["tpr_ci"]
            miss["tpr"] += not t_lo <= FPR <= t_hi
            a_lo, a_hi = r["accuracy_ci"]
            miss["accuracy"] += not a_lo <= 0.5 <= a_hi
            se = (hi - lo) / (2 * zq)
            z.append((r["auc"] - 0.5) / se if se > 0 else 0.0)
        assert max(miss.values()) <= allowed, (name, miss, allowed)
        stouffer = float(np.sum(z) / np.sqrt(n_c))
        assert abs(stouffer) < z_max, (name, stouffer, z)


# --------------------------------------------------------------------------- claim 5

def test_cbtta_is_at_least_as_accurate_as_btta(overfit):
    """Paper 001 Thm 3: CBTTA is the most accurate attack given its partition, so it is at
    least as accurate as BTTA. Both are fitted on the same shadow models and scored on the same
    audited records; for every partition CBTTA's accuracy interval reaches BTTA's accuracy and
    CBTTA is not significantly less accurate (paired z > −2.33).

    Thm 3 is about exact parameters; here they are estimated per part from 4 shadow models, and
    where the parts are thin and their gaps small the estimates are noise. On this data every
    partition passed at nine seeds (z ≥ −0.1), but on other tables it need not: with a
    make_classification table (10 classes, 5 % flipped labels, train/test accuracy 0.64/0.41)
    PPL+PPC came out significantly less accurate at one seed of three (z = −2.73), and on
    purchase-style data with distinct classes (test accuracy 0.98, gap 0.02) PTL and PPL fell
    just below BTTA's accuracy interval at one seed (0.489 against 0.511).
    """
    t = overfit.target
    base = btta.attack(t, btta.params_from_outputs(overfit.shadow), source="shadow models")
    r_base = result(base, t.member)
    ok_base = right(base, t.member)
    for part in CBTTA_PARTITIONS:
        o = cbtta.attack(t, cbtta.fit(overfit.shadow, part))
        r = result(o, t.member)
        z = paired_z(right(o, t.member), ok_base)
        assert r["accuracy_ci"][1] >= r_base["accuracy"], (part, r["accuracy"], r_base)
        assert z > -Z_ONE_SIDED, (part, r["accuracy"], r_base["accuracy"], z)


# --------------------------------------------------------------------------- contrast

def test_attacks_that_see_confidence_beat_btta(overfit, networks):
    """Where the outputs carry a signal beyond the generalization gap — the overfit MLP's
    members get near-certain outputs, its correctly labelled non-members less so — the attacks
    that read confidence are significantly more accurate than BTTA on the same records (paired
    z > 2.33): Shokri on the full probability vectors, CBTTA with the confidence partitions PTC
    and PPC (paper 001 Table 2: PTC 0.777, PPC 0.778, SMA 0.793 against BTTA's 0.746). This is
    what gives claims 3 and 5 their power: the same comparisons do separate when there is
    something to find. Measured over nine seeds: z = 3.1–7.8 (Shokri), 5.9–9.7 (PTC),
    5.4–9.0 (PPC).

    A property of this model, not of every model: on a weakly fitted one (make_classification,
    train/test accuracy 0.64/0.41, where the gap is nearly all there is) neither Shokri nor PTC
    beat BTTA at any of three seeds.
    """
    t = overfit.target
    base = btta.attack(t, btta.params_from_outputs(overfit.shadow), source="shadow models")
    ok_base = right(base, t.member)
    z = {"shokri": paired_z(right(networks["shokri"][0], t.member), ok_base)}
    for part in ("PTC", "PPC"):
        z[part] = paired_z(right(cbtta.attack(t, cbtta.fit(overfit.shadow, part)), t.member),
                           ok_base)
    assert min(z.values()) > Z_ONE_SIDED, z
