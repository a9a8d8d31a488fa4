"""The audit's strongest attacks re-run on the defended models (issue 22 item 1; issue 20
item 1): LiRA and RMIA on every setting with reference models trained under that setting's
defence, seeded from the config; the recommendation judged on the strongest attack of each
setting, LiRA included; sentences that name only the attacks that ran; cancel reaching the
defended reference models; the estimate counting them. Tiny sizes, CPU."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.attacks.model.base import ReferenceOutputs
from engine.audits.model import ModelConfig
from engine.defences.audit import attacks_run, attacks_sentence, summary_sentence
from engine.defences.config import DefenceConfig, cost_in_models
from engine.defences.tradeoff import RiskLimit, measure, recommend, tradeoff
from engine.runtime import CancelToken, JobCancelled, Progress, rng

SETTINGS = [("l2", 1e-2), ("early_stopping", 2)]
SUPERVISED = ("confidence", "top1")
REFERENCE = ("lira_online", "rmia")
LIMIT = RiskLimit("tpr", 0.02)


def _config(tmp_path, seed=7, n=200, d=6, k=3) -> ModelConfig:
    g = rng(0, "test-defences-reference")
    X = g.normal(size=(n, d))
    y = np.argmax(X @ g.normal(size=(d, k)) + 0.7 * g.normal(size=(n, k)), axis=1)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(d)])
    frame["label"] = np.array(["a", "b", "c"])[y]
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    return ModelConfig(data=str(path), label="label", epochs=3, batch_size=32, seed=seed)


def _sweep(config, n_ref=2, **kw):
    return tradeoff(config, SETTINGS, attacks=SUPERVISED, delta=1e-4, reference_models=n_ref,
                    reference_attacks=REFERENCE, **kw)


def _block(trade, limit=LIMIT) -> dict:
    """What run_defences stores, without the audit around it."""
    out = trade.to_dict()
    out["recommendation"] = recommend(out["rows"], limit)
    out["limit"] = {"text": limit.describe()}
    return out


@pytest.fixture(scope="module")
def defended(tmp_path_factory):
    config = _config(tmp_path_factory.mktemp("defended"))
    return config, _sweep(config)


def test_lira_and_rmia_run_on_every_setting_with_defended_reference_models(defended):
    _, trade = defended
    assert [r["defence"] for r in trade.rows] == ["none", "l2", "early_stopping"]
    for row in trade.rows:
        # the undefended row runs the same attacks as the defended ones
        assert row["attacks_run"] == ["metric_confidence", "metric_top1", "lira_online",
                                      "rmia_offline"], row["label"]
        assert row["reference_models"] == 2
        assert row["risk"]["epsilon"]["attacks_together"] == 4
        assert row["strongest"]["name"] in row["attacks_run"]
    assert trade.info["reference_models"] == 2
    assert trade.info["reference_attacks"] == list(REFERENCE)
    assert trade.info["reference_attacks_skipped"] is None
    # Reference models trained under each defence: the settings' LiRA scores differ (the same
    # reference models for every setting would not make them so on each setting).
    lira = [next(a for a in r["attacks"] if a["name"] == "lira_online")["auc"]
            for r in trade.rows]
    assert len(set(lira)) == len(lira)


def test_same_config_and_seed_give_the_same_numbers(defended, tmp_path):
    config, trade = defended
    again = _sweep(config)
    for a, b in zip(trade.rows, again.rows, strict=True):
        assert a["attacks"] == b["attacks"] and a["risk"] == b["risk"]
    other = _sweep(_config(tmp_path, seed=8))
    assert [a["auc"] for a in other.rows[1]["attacks"]] != \
        [a["auc"] for a in trade.rows[1]["attacks"]]


class _Fixed:
    """A 'model' whose outputs are given (measure() only queries it)."""

    def __init__(self, probs):
        self.probs = probs

    def predict_proba(self, X):
        return self.probs


def _probs_with_phi(phi, labels, k=2):
    """(n, k) outputs whose logit confidence in the true class is ``phi``."""
    p = 1.0 / (1.0 + np.exp(-phi))
    out = np.empty((phi.size, k))
    out[:] = ((1.0 - p) / (k - 1))[:, None]
    out[np.arange(phi.size), labels] = p
    return out


def test_the_recommendation_uses_the_strongest_attack_per_setting_lira_included():
    """No defence leaks to every attack. Setting A (more accurate than B) leaks only through
    a per-record likelihood ratio: each record has its own typical confidence, so class
    thresholds see noise, but reference models that trained on it or not tell LiRA exactly
    where the record sits. Setting B leaks to nobody. Judged on the supervised attacks, A is
    recommended; with LiRA re-run on every setting, B."""
    g = np.random.default_rng(4)
    n, R = 4000, 8
    labels = g.integers(0, 2, n)
    inside = np.zeros(n, bool)
    inside[g.permutation(n)[: n // 2]] = True
    base = g.normal(0.0, 3.0, n)                      # each record's own confidence level
    config = ModelConfig(seed=1)
    ref_in = np.zeros((R, n), bool)
    for i in range(n):
        ref_in[g.permutation(R)[: R // 2], i] = True

    def setting(shift, spread):
        level = base * spread
        target = _probs_with_phi(level + shift * np.where(inside, 1.0, -1.0), labels)
        ref_phi = level[None, :] + shift * np.where(ref_in, 1.0, -1.0) \
            + g.normal(0, 0.05, (R, n))
        refs = ReferenceOutputs(np.stack([_probs_with_phi(p, labels) for p in ref_phi]),
                                ref_in)
        return target, refs

    rows = []
    # (shift, spread of the records' own levels, test accuracy): no defence, A, B
    for index, (shift, spread, acc) in enumerate([(2.0, 0.1, 0.80), (1.0, 3.0, 0.78),
                                                  (0.0, 3.0, 0.70)]):
        target, refs = setting(shift, spread)
        rows.append((index, acc, target, refs))

    def judged(with_reference: bool):
        out = []
        for index, acc, target, refs in rows:
            m = measure(config, _Fixed(target), np.zeros((n, 1)), labels, inside,
                        attacks=("confidence",), delta=1e-5, fpr_targets=(0.01,),
                        references=refs if with_reference else None,
                        reference_attacks=("lira_online",))
            out.append({"index": index, "defence": "none" if index == 0 else "l2",
                        "label": ["No defence", "Setting A", "Setting B"][index],
                        **m, "test_accuracy": acc})
        return out

    limit = RiskLimit("tpr", 0.05)
    weak = judged(False)
    assert recommend(weak, limit)["label"] == "Setting A"
    strong = judged(True)
    a = strong[1]
    assert a["strongest"]["name"] == "lira_online"
    assert a["risk"]["tpr"]["attack"] == "lira_online" and a["risk"]["tpr"]["value"] > 0.5
    rec = recommend(strong, limit)
    assert rec["label"] == "Setting B", rec["statement"]
    # the attack credited for B's risk ran on B
    assert rec["attack"] in attacks_run({"rows": strong})


def test_sentences_name_only_the_attacks_that_ran(defended, tmp_path):
    _, trade = defended
    block = _block(trade)
    names = attacks_run(block)
    assert len(names) == 4 and names[2].startswith("LiRA online") \
        and names[3].startswith("RMIA"), names
    text = attacks_sentence(block)
    assert text.startswith("Every setting, the model with no defence included, was attacked "
                           "by the same 4 attacks:")
    for name in names:
        assert name in text
    assert "trained again as 2 reference models with the same defence" in text
    # never an attack that did not run (issue 20: "Prediction entropy" was credited)
    for absent in ("entropy", "Entropy", "ML-Leaks", "Bayesian"):
        assert absent not in text and absent not in block["recommendation"]["statement"]
    rec = block["recommendation"]
    credited = rec["attack"] if rec["met"] else None
    assert credited is None or credited in names
    assert "those that train copies of the model included" in summary_sentence(block)

    # Switched off: said plainly, on every setting, the undefended one included.
    off = _block(_sweep(trade_config(tmp_path), n_ref=0))
    assert all(r["reference_models"] == 0 for r in off["rows"])
    assert all("lira" not in " ".join(r["attacks_run"]) for r in off["rows"])
    words = attacks_sentence(off)
    assert "were not re-run on any setting (they were switched off for the defences)" in words
    assert "LiRA" in words and "RMIA" in words          # named as not run, never as run
    assert attacks_run(off) == names[:2]
    assert "not re-run on the defences" in summary_sentence(off)


def trade_config(tmp_path) -> ModelConfig:
    return _config(tmp_path)


def test_too_few_records_for_defended_reference_models_is_said(defended):
    """When the reference models could not be trained under some defence (tradeoff() then
    sets every row's reference models to 0 and says why), the sentence says the strongest
    attacks were not re-run, and why."""
    import copy

    _, trade = defended
    block = copy.deepcopy(_block(trade))
    block.update(reference_models=0, reference_attacks=[],
                 reference_attacks_skipped="too few records")
    for row in block["rows"]:
        row["reference_models"] = 0
    text = attacks_sentence(block)
    assert "were not re-run on any setting (there are too few records to train reference " \
        "models under every defence)" in text
    assert "trained again as" not in text


def test_cancel_stops_during_the_defended_reference_models(tmp_path):
    config = _config(tmp_path)
    token = CancelToken()
    seen = []

    def report(fraction, message):
        seen.append(message)
        if message.startswith("Reference model 1 of 2"):
            token.cancel()

    with pytest.raises(JobCancelled):
        _sweep(config, progress=Progress(report), cancel=token)
    assert any(m.startswith("Reference model 1 of 2") for m in seen)
    assert not any(m.startswith(("Reference model 2 of 2", "Attacking")) for m in seen)


def test_the_cost_counts_the_defended_reference_models():
    from engine.estimates.model import defence_seconds, estimate

    d = DefenceConfig(enabled=True, reference_models=4)
    off = DefenceConfig(enabled=True, reference_models=0)
    lira = ("confidence", "lira_online")
    assert cost_in_models(d, lira) == {k: 5 * v for k, v in cost_in_models(off, lira).items()}
    # an audit without LiRA or RMIA trains no defended reference models
    assert cost_in_models(d, ("confidence",)) == cost_in_models(off, lira)
    with_ref = ModelConfig(attacks=lira, defences=d)
    without = ModelConfig(attacks=lira, defences=off)
    more, less = defence_seconds(with_ref), defence_seconds(without)
    assert set(more) == set(less) and all(more[k] > less[k] for k in less)
    # every training counts five times (the sweep and its four reference copies)
    assert sum(more.values()) > 3 * sum(less.values())
    part = next(p for p in estimate(with_ref).parts if p.name == "defences")
    assert "each trained again as 4 reference models" in part.what
    assert part.setting == "defences.reference_models"
    with pytest.raises(Exception, match="at least 2"):
        DefenceConfig.from_dict({"reference_models": 1})


def test_the_report_says_which_attackers_judged_the_defences(defended):
    """The report's defences text (engine/report/defences.py): the attacks that ran, the attacker who trains
    copies under each defence, and the limitation — or plainly that LiRA/RMIA were not
    re-run."""
    import copy

    from engine.report.defences import (
        defences_attacks_text,
        defences_reference_attacker_text,
        defences_threat_limitation,
    )

    _, trade = defended
    block = _block(trade)
    assert defences_attacks_text(block) == attacks_sentence(block)
    assert "trained again as 2 copies with the same defence" in \
        defences_reference_attacker_text(block)
    assert "(LiRA, RMIA) with 2 copies per setting trained under the same defence" in \
        defences_threat_limitation(block)
    off = copy.deepcopy(block)
    off.update(reference_models=0, reference_attacks=[], reference_attacks_skipped="switched off")
    for row in off["rows"]:
        row["reference_models"] = 0
    assert defences_reference_attacker_text(off) == ""
    assert "were not re-run on them" in defences_threat_limitation(off)
