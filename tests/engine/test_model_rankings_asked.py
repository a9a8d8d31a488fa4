"""A predictions run runs what the officer asked for (issue 31 item 5): an every-record
ranking comes only with its metric in ``attacks``, and the verdict's headline is always one of
the attacks asked for."""

from __future__ import annotations

import numpy as np
import pytest

from engine.attacks.model.metric import RANKING_SUFFIX
from engine.audits.model import DEFAULT_ATTACKS, ModelConfig, run
from engine.games.model_measure import ranking_metrics


@pytest.fixture(scope="module")
def leaky_file(tmp_path_factory):
    """Members far surer than non-members, so an every-record ranking outdoes BTTA and, when
    it was added unasked, took the headline."""
    from engine.data.predictions import write_predictions_csv

    g = np.random.default_rng(5)
    n, k = 2000, 4
    labels = g.integers(0, k, n)
    member = np.arange(n) % 2 == 0
    logits = g.normal(0, 1, (n, k))
    logits[np.arange(n), labels] += np.where(member, 4.0, 1.0)
    path = tmp_path_factory.mktemp("asked") / "preds.csv"
    return write_predictions_csv(path, labels=labels, member=member, logits=logits)


def test_btta_alone_gets_no_ranking_and_the_headline_is_btta(leaky_file):
    r = run(ModelConfig(source="predictions", predictions=str(leaky_file),
                        prediction_kind="logits", attacks=("btta",))).to_dict()
    names = [a["name"] for a in r["attacks"]]
    assert names == ["btta"]
    assert not any(n.endswith(RANKING_SUFFIX) for n in names)
    assert r["verdict"]["headline"]["name"] == "btta"
    assert r["exposed_records"] and {e["attack"] for e in r["exposed_records"]} == {"btta"}
    assert not any("every record, no threshold" in w for w in r["warnings"])


def test_a_metric_asked_for_brings_its_ranking_and_no_other(leaky_file):
    r = run(ModelConfig(source="predictions", predictions=str(leaky_file),
                        prediction_kind="logits", attacks=("btta", "entropy"))).to_dict()
    names = [a["name"] for a in r["attacks"]]
    assert names == ["btta", "metric_entropy", "entropy_all_records"]
    assert r["verdict"]["headline"]["name"] in names
    assert any("every record, no threshold" in w for w in r["warnings"])


def test_which_rankings_each_attack_list_brings():
    assert ranking_metrics(("btta",)) == ()
    assert ranking_metrics(DEFAULT_ATTACKS) == ("confidence", "modified_entropy")
    assert ranking_metrics(("top1", "confidence", "entropy", "modified_entropy")) == (
        "confidence", "entropy", "modified_entropy", "top1")
    assert ranking_metrics(("confidence", "entropy"), loss_only=True) == ("confidence",)
