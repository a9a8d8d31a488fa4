"""The model audit's engine (issue 8; not registered yet): both intake paths end to end on
small synthetic data, seeds, and sentences for bad settings."""

from __future__ import annotations

import numpy as np
import pytest

from engine.audits.model import ModelConfig, run
from engine.data.errors import InputError

SMALL = dict(synthetic_records=1200, epochs=15, shadow_models=3, reference_models=4,
             attacks=("btta", "cbtta", "confidence", "ml_leaks", "lira_online", "rmia"))


@pytest.fixture(scope="module")
def small_result():
    return run(ModelConfig(**SMALL)).to_dict()


def test_training_path_fills_the_result(small_result):
    r = small_result
    assert r["audit_type"] == "model"
    names = [a["name"] for a in r["attacks"]]
    assert names[0] == "btta" and "lira_online" in names and len(names) == 6
    m = r["theory"]["model"]
    assert m["train_accuracy"] > m["test_accuracy"]        # 100 classes, few records: overfit
    bound = r["theory"]["btta_bound"]
    p = bound["params"]
    assert bound["balanced_accuracy_bound"] == pytest.approx(
        0.5 + 0.5 * abs(p["p0_train_accuracy"] - p["p1_test_accuracy"]))
    assert r["exposed_records"] and r["exposed_records"][0]["rank"] == 1
    assert "label" not in r["exposed_records"][0]           # values only when asked
    assert r["verdict"]["level"] in ("low", "medium", "high")


def test_same_config_same_numbers(small_result):
    again = run(ModelConfig(**SMALL)).to_dict()
    assert [a["auc"] for a in again["attacks"]] == [a["auc"] for a in small_result["attacks"]]


def test_predictions_path_with_the_supervised_attacker(tmp_path):
    from engine.data.predictions import write_predictions_csv

    g = np.random.default_rng(0)
    n, k = 400, 5
    labels = g.integers(0, k, n)
    member = np.arange(n) % 2 == 0
    logits = g.normal(0, 1, (n, k))
    logits[np.arange(n), labels] += np.where(member, 3.0, 1.0)   # members: surer
    path = write_predictions_csv(tmp_path / "preds.csv", labels=labels, member=member,
                                 logits=logits)
    r = run(ModelConfig(source="predictions", predictions=str(path), prediction_kind="logits",
                        attacks=("btta", "confidence", "lira_online"))).to_dict()
    assert [a["name"] for a in r["attacks"]] == ["btta", "metric_confidence"]
    assert r["theory"]["threat_model"] == "supervised"
    conf = r["attacks"][1]
    assert conf["auc_ci"][0] > 0.5 and conf["n_positive"] + conf["n_negative"] < n
    assert any("LiRA and RMIA" in w for w in r["warnings"])


def test_config_errors_are_sentences():
    with pytest.raises(InputError, match="'predictions'"):
        ModelConfig.from_dict({"audit_type": "model", "source": "predictions"})
    with pytest.raises(InputError, match="'attacks'"):
        ModelConfig.from_dict({"audit_type": "model", "attacks": ["magic"]})
