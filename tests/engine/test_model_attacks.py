"""The model-attack library (engine.attacks.model) on synthetic model outputs.

Fast checks: every attack beats chance where members get more confident outputs, is at chance
where members and non-members get outputs from the same law, never reads the evaluation truth,
and chooses its threshold on shadow/reference data only; LiRA online beats offline when records
differ in difficulty and memorisation; LiRA and RMIA stay finite with probabilities 0 and 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit

from engine.attacks.model import (
    attribute,
    base,
    btta,
    cbtta,
    label_only,
    lira,
    metric,
    ml_leaks,
    rmia,
    shadow,
)
from engine.attacks.model.base import ModelOutputs, ReferenceOutputs
from engine.data.errors import InputError
from engine.metrics import auc_score, roc_curve

K = 5
EPOCHS = 80            # attack networks: enough to learn a 1-D signal, fast on one thread


# --------------------------------------------------------------------------- synthetic outputs

def softmax_outputs(n: int, boost: float, seed: int, k: int = K, member=None) -> ModelOutputs:
    """Logits N(0, 1) with the true class raised by 1 + boost·member: members get more
    confident, more often correct outputs when boost > 0; boost = 0 gives one law for both."""
    g = np.random.default_rng(seed)
    y = g.integers(0, k, n)
    m = g.random(n) < 0.5 if member is None else np.asarray(member, dtype=bool)
    z = g.normal(0.0, 1.0, (n, k))
    z[np.arange(n), y] += 1.0 + boost * m
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return ModelOutputs(p / p.sum(axis=1, keepdims=True), y, m)


def probs_from_phi(phi: np.ndarray, y: np.ndarray, k: int = K) -> np.ndarray:
    """Probabilities with true-class logit φ and the rest spread evenly."""
    py = expit(phi)
    p = np.repeat(((1.0 - py) / (k - 1))[..., None], k, axis=-1)
    idx = np.broadcast_to(y[..., None], p.shape[:-1] + (1,))
    np.put_along_axis(p, idx, py[..., None], axis=-1)
    return p


def reference_setting(n: int, r: int, seed: int, shift_hi: float = 3.0, target_member=None,
                      ref_member=None):
    """Per-record difficulty d ~ N(0, 1.5²) and memorisation s ~ U(0, shift_hi): a model that
    trained on record i gives it φ = d_i + s_i + noise, one that did not φ = d_i + noise."""
    g = np.random.default_rng(seed)
    d = g.normal(0, 1.5, n)
    s = g.uniform(0, shift_hi, n)
    y = g.integers(0, K, n)
    m = g.random(n) < 0.5
    rin = g.random((r, n)) < 0.5
    if target_member is not None:
        m[:] = target_member
    if ref_member is not None:
        rin[:] = ref_member
    phi_t = d + s * m + g.normal(0, 0.5, n)
    phi_r = d + s * rin + g.normal(0, 0.5, (r, n))
    return (ModelOutputs(probs_from_phi(phi_t, y), y, m),
            ReferenceOutputs(probs_from_phi(phi_r, y), rin))


def tpr_at(scores, member, fpr_max):
    fpr, tpr, _ = roc_curve(scores, member)
    return float(tpr[fpr <= fpr_max + 1e-12].max())


def auc_ci(outcome, member, confidence=0.95):
    res = base.evaluate(outcome, member, delta=1e-5, confidence=confidence,
                        fpr_targets=(0.01,))
    return res["auc"], res["auc_ci"], res


def all_attacks(target: ModelOutputs, shadow_out: ModelOutputs, refs: ReferenceOutputs):
    """Every membership attack of the library, configured small."""
    outs = metric.run(target, shadow_out)
    outs.append(btta.attack(target, btta.params_from_outputs(shadow_out), source="shadow"))
    outs.append(cbtta.attack(target, cbtta.fit(shadow_out, "PTC")))
    outs.append(cbtta.attack(target, cbtta.fit(shadow_out, "PTL")))
    outs.append(ml_leaks.attack(target, shadow_out, classifier="logistic"))
    outs.append(ml_leaks.attack(target, shadow_out, epochs=EPOCHS))
    outs.append(shadow.attack(target, shadow_out, epochs=EPOCHS, hidden=(16, 16)))
    outs.append(label_only.attack(target))
    for online in (True, False):
        outs.append(lira.attack(target, refs, online=online))
        outs.append(rmia.attack(target, refs, online=online))
    return outs


def _with_labels(member, labels, seed, boost=1.5):
    """Another model's outputs on the same records (same labels, own noise)."""
    g = np.random.default_rng(seed)
    n = labels.size
    z = g.normal(0.0, 1.0, (n, K))
    z[np.arange(n), labels] += 1.0 + boost * np.asarray(member)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def leaky():
    """Members get more confident outputs: target, shadow and reference models alike."""
    n, r = 3000, 8
    target = softmax_outputs(n, 1.5, 1)
    shadow_out = softmax_outputs(n, 1.5, 2)
    rin = np.random.default_rng(3).random((r, n)) < 0.5
    refs = ReferenceOutputs(np.stack([_with_labels(rin[i], target.labels, 200 + i)
                                      for i in range(r)]), rin)
    return target, shadow_out, refs, all_attacks(target, shadow_out, refs)


@pytest.fixture(scope="module")
def null():
    """Members and non-members get outputs from one law (no leak at all)."""
    n, r = 3000, 8
    target = softmax_outputs(n, 0.0, 11)
    shadow_out = softmax_outputs(n, 0.0, 12)
    g = np.random.default_rng(13)
    rin = g.random((r, n)) < 0.5
    refs = ReferenceOutputs(np.stack([_with_labels(rin[i], target.labels, 300 + i, boost=0.0)
                                      for i in range(r)]), rin)
    return target, shadow_out, refs, all_attacks(target, shadow_out, refs)


# --------------------------------------------------------------------------- every attack

def test_every_attack_beats_chance_when_members_are_more_confident(leaky):
    target, _, _, outs = leaky
    assert len({o.name for o in outs}) == len(outs)
    for o in outs:
        auc, ci, res = auc_ci(o, target.member)
        assert ci[0] > 0.5, (o.name, auc, ci)
        # The attack's own rule (threshold from shadow/reference data) beats guessing too.
        assert res["accuracy_ci"][0] > 0.5, (o.name, res["accuracy"], res["accuracy_ci"])
        assert o.decisions.dtype == bool and o.decisions.shape == (target.n,)


def test_every_attack_is_at_chance_when_outputs_do_not_depend_on_membership(null):
    target, _, _, outs = null
    for o in outs:
        auc, ci, res = auc_ci(o, target.member, confidence=0.999)
        assert ci[0] <= 0.5 <= ci[1], (o.name, auc, ci)
        lo, hi = res["accuracy_ci"]
        assert lo <= 0.5 + 1e-9 and hi >= 0.5 - 1e-9, (o.name, res["accuracy"], lo, hi)


def test_no_attack_reads_the_evaluation_truth(leaky):
    """The same outputs without a member column give the same scores and thresholds."""
    target, shadow_out, refs, outs = leaky
    blind = ModelOutputs(target.probs, target.labels)
    again = all_attacks(blind, shadow_out, refs)
    for a, b in zip(outs, again, strict=True):
        assert a.name == b.name
        np.testing.assert_allclose(a.scores, b.scores, rtol=0, atol=1e-12)
        assert a.threshold == b.threshold
        assert np.array_equal(a.decisions, b.decisions)


def test_thresholds_come_from_shadow_data_not_from_the_audited_scores():
    """Shadow members are much more confident than the target's: the shadow-optimal threshold
    is far from the target-optimal one, and the attack uses the shadow's."""
    shadow_out = softmax_outputs(4000, 4.0, 21)
    target = softmax_outputs(4000, 1.0, 22)
    th = metric.fit_thresholds(shadow_out, "confidence", class_dependent=False)
    o = metric.attack(target, th)
    assert o.threshold == 0.0
    tau = th.global_threshold
    np.testing.assert_allclose(o.raw - o.scores, tau)
    from engine.metrics import best_balanced_accuracy_threshold
    tau_target = best_balanced_accuracy_threshold(o.raw, target.member)
    assert abs(tau - tau_target) > 0.05
    assert tau == base.best_threshold(metric.metric_values(shadow_out.probs, shadow_out.labels,
                                                           "confidence"), shadow_out.member)
    # Replacing the audited outputs changes nothing about the thresholds.
    other = softmax_outputs(4000, 0.0, 23)
    assert metric.attack(other, th).details["global_threshold"] == o.details["global_threshold"]


def test_reference_attacks_choose_thresholds_without_the_audited_model():
    target, refs = reference_setting(2000, 8, 31)
    other, _ = reference_setting(2000, 8, 32)
    other = ModelOutputs(other.probs, target.labels)
    for fn in (lambda t: lira.attack(t, refs), lambda t: lira.attack(t, refs, online=False),
               lambda t: rmia.attack(t, refs, online=True)):
        assert fn(target).threshold == fn(other).threshold


def test_class_dependent_thresholds_fall_back_for_thin_classes():
    s = softmax_outputs(3000, 2.0, 41)
    keep = ~((s.labels == 0) & (np.arange(s.n) % 50 != 0))       # class 0: ~12 records
    thin = s.subset(keep)
    th = metric.fit_thresholds(thin, "entropy", min_class_records=10)
    assert np.isnan(th.per_class[0]) and not np.isnan(th.per_class[1:]).any()
    o = metric.attack(softmax_outputs(500, 2.0, 42), th)
    assert o.details["classes_using_global_threshold"] == 1


# --------------------------------------------------------------------------- metric values

def test_metric_values_match_their_definitions():
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3]])
    y = np.array([0, 2])
    assert metric.metric_values(p, y, "correctness").tolist() == [1.0, 0.0]
    assert metric.metric_values(p, y, "confidence").tolist() == [0.7, 0.3]
    assert metric.metric_values(p, y, "top1").tolist() == [0.7, 0.6]
    h = -(p * np.log(p)).sum(axis=1)
    np.testing.assert_allclose(metric.metric_values(p, y, "entropy"), -h)
    # Song & Mittal: Mentr = −(1 − p_y) log p_y − Σ_{i≠y} p_i log(1 − p_i).
    m0 = -(0.3 * math.log(0.7)) - (0.2 * math.log(0.8) + 0.1 * math.log(0.9))
    m1 = -(0.7 * math.log(0.3)) - (0.1 * math.log(0.9) + 0.6 * math.log(0.4))
    np.testing.assert_allclose(metric.metric_values(p, y, "modified_entropy"), [-m0, -m1])


def test_metrics_are_finite_for_probabilities_zero_and_one():
    p = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    y = np.array([0, 0])
    for m in metric.METRICS:
        assert np.all(np.isfinite(metric.metric_values(p, y, m))), m


# --------------------------------------------------------------------------- BTTA

def test_btta_cases_and_closed_forms():
    c3 = btta.BTTAParams(0.95, 0.7, 0.5)
    e = btta.expected_metrics(c3)
    assert e["case"] == 3
    assert e["accuracy"] == pytest.approx(0.5 * 0.95 + 0.5 * 0.3)
    assert e["precision"] == pytest.approx(0.95 / (0.95 + 0.7))
    assert e["recall"] == pytest.approx(0.95)
    assert btta.roc_bound(c3)["point"] == {"fpr": pytest.approx(0.7), "tpr": pytest.approx(0.95)}

    c1 = btta.BTTAParams(0.9, 0.8, 0.8)
    e = btta.expected_metrics(c1)
    assert e["case"] == 1 and e["accuracy"] == pytest.approx(0.8)
    assert e["recall"] == 1.0 and e["precision"] == pytest.approx(0.8)

    c2 = btta.BTTAParams(0.9, 0.8, 0.2)
    e = btta.expected_metrics(c2)
    assert e["case"] == 2 and e["accuracy"] == pytest.approx(0.8) and e["recall"] == 0.0
    assert e["precision"] is None and "never" in e["precision_undefined_reason"]

    c4 = btta.BTTAParams(0.5, 0.9, 0.5)
    assert btta.expected_metrics(c4)["case"] == 4 and "warning" in btta.expected_metrics(c4)


def test_btta_bound_is_thm2_and_dominates_its_simpler_expression():
    g = np.linspace(0, 1, 21)
    for p0 in g:
        for p1 in g[g <= p0]:
            for q in (0.1, 0.3, 0.5, 0.7, 0.9):
                p = btta.BTTAParams(p0, p1, q)
                x = btta.accuracy_bound(p)
                assert x == pytest.approx(max(q, 1 - q, q * p0 + (1 - q) * (1 - p1)))
                assert x == pytest.approx(btta.expected_metrics(p)["accuracy"])
                assert x >= btta.thm2_gap_bound(p) - 1e-12 >= 0.5 - 1e-12


def test_btta_scores_reproduce_algorithm_1():
    for p in (btta.BTTAParams(0.95, 0.7, 0.5), btta.BTTAParams(0.9, 0.8, 0.8),
              btta.BTTAParams(0.9, 0.8, 0.2), btta.BTTAParams(0.6, 0.6, 0.5)):
        bits = np.array([True, False])
        scores, dec = btta.scores_from_correctness(bits, p)
        rule = btta.decision_rule(p)
        assert dec.tolist() == [rule[0], rule[1]]
        assert ((scores >= 0.5) == dec).all()


def test_btta_roc_lines():
    p = btta.BTTAParams(0.95, 0.7, 0.5)
    b = btta.roc_bound(p)
    assert b["curve"] == {"fpr": [0.0, 0.7, 1.0], "tpr": [0.0, 0.95, 1.0]}
    (f0, t0), (f1, t1) = b["balanced_line"]
    # TPR = FPR + (p0 − p1) through the rule's point.
    assert t0 - f0 == pytest.approx(0.25) and t1 - f1 == pytest.approx(0.25)
    assert "62.5%" in b["statement"]          # in %, as every page writes an accuracy


# --------------------------------------------------------------------------- CBTTA

def test_cbtta_confidence_bins_follow_the_paper():
    # PTC: [0, 1/n), …, [(n−1)/n, 1]; PPC: [1/m, 1] in n bins of width (m − 1)/(mn).
    p = np.array([[0.05, 0.95, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25],
                  [0.4, 0.3, 0.2, 0.1]])
    y = np.array([1, 0, 2, 0])
    ptc, _ = cbtta.part_ids(p, y, "PTC", n_bins=10)
    assert ptc.tolist() == [9, 9, 2, 4]
    ppc, _ = cbtta.part_ids(p, y, "PPC", n_bins=3)      # width 0.25: [.25,.5) [.5,.75) [.75,1]
    assert ppc.tolist() == [2, 2, 0, 0]
    combo, comps = cbtta.part_ids(p, y, "PTL+PTC", n_bins=10)
    assert cbtta.describe_part(int(combo[0]), comps, 4, 10) == \
        "true label 1 & confidence in the true label in [0.9, 1]"


def test_cbtta_falls_back_to_global_btta_for_thin_parts():
    s = softmax_outputs(2000, 2.0, 51, k=40)               # ~50 records per label
    model = cbtta.fit(s, "PTL+PTC", min_part_records=30)
    est = model.estimated()
    assert est.any() and (~est).any()
    o = cbtta.attack(softmax_outputs(1000, 2.0, 52, k=40), model)
    assert o.details["n_parts_global_fallback"] == int((~est).sum())
    assert o.details["target_records_in_fallback_parts"] > 0
    with pytest.raises(ValueError):
        cbtta.fit(s, "PTL+XYZ")


def test_cbtta_partition_by_correctness_is_btta():
    s = softmax_outputs(3000, 1.5, 61)
    t = softmax_outputs(3000, 1.5, 62)
    a = cbtta.attack(t, cbtta.fit(s, "correct"))
    b = btta.attack(t, btta.params_from_outputs(s))
    assert np.array_equal(a.decisions, b.decisions)
    np.testing.assert_allclose(a.scores, b.scores)


# --------------------------------------------------------------------------- LiRA / RMIA

def test_lira_online_beats_offline_when_records_differ_in_memorisation():
    target, refs = reference_setting(6000, 16, 71)
    on = lira.attack(target, refs, online=True)
    off = lira.attack(target, refs, online=False)
    a_on, a_off = auc_score(on.scores, target.member), auc_score(off.scores, target.member)
    assert a_on > a_off + 0.01
    assert tpr_at(on.scores, target.member, 0.01) >= tpr_at(off.scores, target.member, 0.01)
    # Both beat the confidence metric, which ignores the per-record difficulty.
    conf = metric.run(target, refs.to_shadow(target.labels), ["confidence"])[0]
    assert a_off > auc_score(conf.scores, target.member) + 0.05


def test_lira_default_variance_is_global_with_few_reference_models():
    """With R reference models each record has about R/2 in and out φ's; a per-record σ from
    so few is noisy, and records whose σ comes out small get extreme scores — non-members
    among them crowd the low-FPR end. The default ("auto") pools the variance below 64
    reference models (Carlini et al. 2022's advice for few models) and keeps the attack's
    name; from 64 on it is per record."""
    target, refs = reference_setting(6000, 8, 73)
    for online in (True, False):
        auto = lira.attack(target, refs, online=online)
        pooled = lira.attack(target, refs, online=online, variance="global")
        per = lira.attack(target, refs, online=online, variance="per_example")
        np.testing.assert_array_equal(auto.scores, pooled.scores)
        assert auto.threshold == pooled.threshold
        assert auto.name == per.name == ("lira_online" if online else "lira_offline")
        assert auto.details["variance"] == "global"
        assert auto.details["variance_requested"] == "auto"
        # Noise of one law for every record (σ = 0.5): the pooled σ is right, the per-record
        # ones from 4 samples are not, and it shows at 1 % FPR (0.5 against 0.1 here).
        assert tpr_at(auto.scores, target.member, 0.01) > \
            2 * tpr_at(per.scores, target.member, 0.01) + 0.05
    many_t, many = reference_setting(500, lira.PER_EXAMPLE_FROM, 74)
    auto = lira.attack(many_t, many)
    assert auto.details["variance"] == "per_example"
    np.testing.assert_array_equal(auto.scores,
                                  lira.attack(many_t, many, variance="per_example").scores)
    with pytest.raises(ValueError):
        lira.attack(target, refs, variance="median")


@pytest.mark.parametrize("variance", lira.VARIANCES)
def test_lira_and_rmia_are_finite_with_probabilities_zero_and_one(variance):
    target, refs = reference_setting(800, 6, 81)
    p = target.probs.copy()
    p[:40] = 0.0
    p[:20, 0] = 1.0
    p[20:40, 1] = 1.0
    rp = refs.probs.copy()
    rp[:, :30] = 0.0
    rp[:, :30, 2] = 1.0
    t = ModelOutputs(p, target.labels, target.member)
    r = ReferenceOutputs(rp, refs.member)
    for o in (lira.attack(t, r, online=True, variance=variance),
              lira.attack(t, r, online=False, variance=variance),
              rmia.attack(t, r, online=True), rmia.attack(t, r, online=False)):
        assert np.all(np.isfinite(o.scores)) and np.isfinite(o.threshold), o.name
    phi = lira.logit_confidence(np.array([[1.0, 0.0], [0.0, 1.0], [1 - 1e-12, 1e-12]]),
                                np.array([0, 0, 0]))
    assert np.all(np.isfinite(phi)) and phi[0] > 60 and phi[1] < -60
    assert phi[2] == pytest.approx(math.log((1 - 1e-12) / 1e-12), rel=1e-6)


def test_lira_logit_from_logits_agrees_with_probabilities():
    g = np.random.default_rng(5)
    z = g.normal(0, 3, (200, 6))
    y = g.integers(0, 6, 200)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(lira.logit_confidence(p, y),
                               lira.logit_confidence_from_logits(z, y), atol=1e-8)


def test_rmia_counts_match_brute_force_without_a_pairwise_matrix():
    g = np.random.default_rng(7)
    lx, lz = g.normal(size=257), g.normal(size=300)
    lz[:5] = lx[:5] - np.log(2.0)                      # exact ties: strict ">" γ
    brute = (np.exp(lx[:, None] - lz[None, :]) > 2.0).mean(axis=1)
    np.testing.assert_allclose(rmia.dominated_fraction(lx, lz, 2.0, chunk=16), brute)


def test_rmia_non_member_scores_are_calibrated_against_the_population():
    """Offline, a non-member and the population z's are scored alike (from models that did
    not train on them), so about a share u of non-members score above 1 − u."""
    target, refs = reference_setting(4000, 8, 91)
    pop_t, pop_r = reference_setting(4000, 8, 92, target_member=False, ref_member=False)
    o = rmia.attack(target, refs, online=False, gamma=1.0, population=(pop_t, pop_r))
    assert 0.0 <= o.scores.min() and o.scores.max() <= 1.0
    assert o.details["population"] == "population records"
    non = o.scores[~target.member]
    for u in (0.1, 0.3, 0.5):
        assert abs(np.mean(non > 1 - u) - u) < 0.05, u
    assert auc_score(o.scores, target.member) > 0.8


def test_rmia_offline_tunes_a_on_a_reference_model():
    target, refs = reference_setting(2000, 6, 95)
    o = rmia.attack(target, refs, online=False)
    assert o.details["a"] in rmia.A_GRID and len(o.details["a_grid_auc"]) == rmia.A_GRID.size
    assert rmia.attack(target, refs, online=False, a=0.5).details["a_source"] == "given"


# --------------------------------------------------------------------------- others

def test_shokri_uses_a_global_model_for_thin_classes():
    s = softmax_outputs(2000, 2.0, 101)
    keep = ~((s.labels == 3) & (np.arange(s.n) % 20 != 0))
    o = shadow.attack(softmax_outputs(1000, 2.0, 102), s.subset(keep), epochs=EPOCHS,
                      hidden=(16,))
    assert o.details["classes_using_global_model"] == 1
    assert o.details["target_records_scored_by_global_model"] > 0


def test_ml_leaks_features_are_sorted_top_posteriors():
    p = np.array([[0.1, 0.6, 0.3], [0.5, 0.5, 0.0]])
    assert ml_leaks.top_posteriors(p, 3).tolist() == [[0.6, 0.3, 0.1], [0.5, 0.5, 0.0]]
    assert ml_leaks.top_posteriors(p[:, :2] / p[:, :2].sum(1, keepdims=True), 3).shape == (2, 3)


def test_generalization_gap_overall_and_per_class():
    t = softmax_outputs(4000, 1.5, 111)
    gap = label_only.generalization_gap(t)
    c = base.correct(t.probs, t.labels)
    assert gap["gap"] == pytest.approx(c[t.member].mean() - c[~t.member].mean())
    assert len(gap["per_class"]) == K and gap["gap"] > 0.2
    lo, hi = gap["train_accuracy_ci"]
    assert lo <= gap["train_accuracy"] <= hi


def test_attribute_inference_reports_the_model_beside_the_data_only_baseline():
    """The sensitive bit shifts the model's output; the known feature is weakly related to it.
    With the model's outputs the attack beats its data-only baseline."""
    g = np.random.default_rng(121)

    def records(n):
        s = g.random(n) < 0.5
        known = (s + g.normal(0, 2.0, n))[:, None]
        z = g.normal(0, 1, (n, 3))
        z[:, 0] += 1.5 * s
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        return attribute.AttributeData(known, p, s.astype(int))

    train, test = records(3000), records(3000)
    o = attribute.attack(train, attribute.AttributeData(test.known, test.probs, None))
    a_model = auc_score(o.scores("model"), test.sensitive == 1)
    a_base = auc_score(o.scores("baseline"), test.sensitive == 1)
    assert a_model > a_base + 0.1 and a_base > 0.5
    sc, lab, cl = o.one_vs_rest(test.sensitive)
    assert sc.size == lab.size == cl.size == 2 * test.sensitive.size and lab.sum() == 3000
    assert o.predictions().shape == (3000,)


def test_supervised_split_keeps_evaluation_records_out_of_the_attacker_data():
    t = softmax_outputs(1000, 1.0, 131)
    known, rest = base.supervised_split(t, 0.3, seed=1)
    assert known.n == int(round(0.3 * t.member.sum())) + int(round(0.3 * (~t.member).sum()))
    assert rest.sum() == t.n - known.n


def test_bad_outputs_are_refused_in_plain_words():
    with pytest.raises(InputError, match="NaN"):
        ModelOutputs(np.array([[np.nan, 1.0]]), np.array([0]))
    with pytest.raises(InputError, match="sum to 1"):
        ModelOutputs(np.array([[0.2, 0.2]]), np.array([0]))
    with pytest.raises(InputError, match="class indices"):
        ModelOutputs(np.array([[0.5, 0.5]]), np.array([2]))
    with pytest.raises(InputError, match="member"):
        metric.fit_thresholds(ModelOutputs(np.array([[0.5, 0.5]]), np.array([0])), "entropy")
