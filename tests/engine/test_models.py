"""Model training (engine/models): every family fits and answers probabilities, seeds decide
everything, cancel and progress work, many MLPs trained as one batch equal the same MLPs
trained one by one, and an MLP on tiny random data overfits. Tiny sizes, CPU."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.models import (
    FAMILIES,
    MLPModel,
    ReferenceTask,
    TrainingSpec,
    reference_tasks,
    softmax,
    tasks_from_masks,
    train_many_mlps,
    train_model,
)
from engine.runtime import CancelToken, JobCancelled, Progress, RecordingProgress, rng

K = 3
FAST = {"mlp": dict(epochs=20, batch_size=32, hidden=(16,)),
        "logistic": dict(max_iter=50),
        "random_forest": dict(n_estimators=12, max_depth=6),
        "gradient_boosting": dict(n_estimators=8, max_depth=3)}


def _data(n=150, d=8, k=K, seed=0, noise=0.5):
    """Learnable data: the label is the argmax of a fixed linear map plus noise."""
    g = rng(seed, "test-models")
    X = g.normal(size=(n, d)).astype(np.float32)
    W = g.normal(size=(d, k))
    y = np.argmax(X @ W + noise * g.normal(size=(n, k)), axis=1).astype(np.int64)
    return X, y


def _spec(family, **kw):
    return TrainingSpec(family=family, **{**FAST[family], **kw})


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_fits_and_rows_sum_to_one(family):
    X, y = _data()
    model = train_model(_spec(family), X, y, K)
    p = model.predict_proba(X)
    assert p.shape == (len(X), K) and p.dtype == np.float64
    assert np.all(p >= 0) and np.allclose(p.sum(axis=1), 1.0, atol=1e-9)
    assert model.accuracy(X, y) > 0.6                 # learnt something (chance is 1/3)
    z = model.logits(X)
    if model.has_logits:
        assert z.shape == (len(X), K)
        assert np.allclose(softmax(z), p, atol=1e-6)
    else:
        assert z is None
    phi = model.confidence_logit(X, y)
    py = np.clip(p[np.arange(len(y)), y], 1e-15, 1 - 1e-15)
    assert np.allclose(phi, np.log(py) - np.log1p(-py), atol=1e-4)
    assert model.details["n_train"] == len(X) and model.details["runtime_s"] >= 0


@pytest.mark.parametrize("family", ["logistic", "random_forest", "gradient_boosting"])
def test_class_missing_from_training_rows_gets_a_zero_column(family):
    X, y = _data()
    keep = y != 2
    model = train_model(_spec(family), X[keep], y[keep], K)
    p = model.predict_proba(X)
    assert p.shape == (len(X), K) and np.allclose(p.sum(axis=1), 1.0)
    assert np.all(p[:, 2] == 0.0)
    if model.has_logits:
        assert np.all(np.isfinite(model.logits(X)))


@pytest.mark.parametrize("family", FAMILIES)
def test_same_seed_same_probabilities(family):
    X, y = _data()
    a = train_model(_spec(family, seed=3), X, y, K).predict_proba(X)
    b = train_model(_spec(family, seed=3), X, y, K).predict_proba(X)
    assert np.array_equal(a, b)
    if family in ("mlp", "random_forest"):
        c = train_model(_spec(family, seed=4), X, y, K).predict_proba(X)
        assert not np.allclose(a, c)


def _cancel_on_first_report():
    token = CancelToken()
    calls = []

    def callback(fraction, message):
        calls.append(fraction)
        if fraction > 0:
            token.cancel()

    return token, Progress(callback), calls


@pytest.mark.parametrize("family", FAMILIES)
def test_cancel_raises_job_cancelled(family, monkeypatch):
    import engine.models.sklearn_models as skm

    monkeypatch.setattr(skm, "CHUNK_LBFGS", 1)        # tiny data converges in one chunk
    X, y = _data()
    token, progress, calls = _cancel_on_first_report()
    with pytest.raises(JobCancelled):
        train_model(_spec(family, epochs=50 if family == "mlp" else None), X, y, K,
                    progress=progress, cancel=token)
    assert calls and max(calls) < 1.0                  # stopped before the end


def test_cancel_stops_batched_training():
    X, y = _data()
    token, progress, _ = _cancel_on_first_report()
    with pytest.raises(JobCancelled):
        train_many_mlps(_spec("mlp", epochs=50), X, y, K, reference_tasks(4, 0, len(X)),
                        progress=progress, cancel=token)


@pytest.mark.parametrize("family", FAMILIES)
def test_progress_goes_from_0_to_1(family):
    X, y = _data()
    rec = RecordingProgress()
    train_model(_spec(family), X, y, K, progress=Progress(rec))
    fractions = [f for f, _ in rec.calls]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert all(b >= a for a, b in zip(fractions, fractions[1:], strict=False))
    assert all(isinstance(m, str) for _, m in rec.calls)


def test_single_and_batched_models_refuse_a_wrong_width_with_one_sentence():
    """One feature-count check for every fitted model (issue 19: two copies, two wordings)."""
    X, y = _data()
    single = train_model(_spec("mlp", epochs=1), X, y, K)
    batched = train_many_mlps(_spec("mlp", epochs=1), X, y, K, reference_tasks(2, 0, len(X)))
    sentences = []
    for model in (single, batched):
        with pytest.raises(ValueError) as err:
            model.predict_proba(X[:, :3])
        sentences.append(str(err.value))
    assert sentences[0] == sentences[1] == (
        f"The model expects {X.shape[1]} feature columns (one row per record); got an array "
        f"of shape (150, 3).")


@pytest.mark.parametrize("optimizer", ["adam", "adamw", "sgd"])
@pytest.mark.parametrize("sizes", [(60, 100, 45), (80, 80, 80)])
def test_batched_equals_one_by_one(optimizer, sizes):
    """Unequal subsets (some models sit out the last steps of an epoch) and equal ones."""
    X, y = _data(n=150)
    g = rng(1, "masks")
    masks = np.zeros((len(sizes), len(X)), dtype=bool)
    for r, size in enumerate(sizes):
        masks[r, g.choice(len(X), size=size, replace=False)] = True
    spec = _spec("mlp", optimizer=optimizer, weight_decay=1e-3, batch_size=32, epochs=5,
                 hidden=(12, 8), activation="tanh", seed=11)
    batch = train_many_mlps(spec, X, y, K, masks)
    probs = batch.predict_proba(X)
    assert probs.shape == (len(sizes), len(X), K)
    assert np.array_equal(batch.membership(len(X)), masks)
    for r, task in enumerate(batch.tasks):
        alone = train_model(replace(spec, seed=task.seed), X[task.rows], y[task.rows], K)
        np.testing.assert_allclose(alone.predict_proba(X), probs[r], atol=1e-5)
        np.testing.assert_allclose(alone.details["history"]["loss"],
                                   batch.details["history"]["loss"][r], atol=1e-5)
        np.testing.assert_allclose(batch.model(r).predict_proba(X), probs[r], atol=1e-6)


def test_any_subset_of_a_campaign_trains_the_same_models():
    X, y = _data()
    tasks = reference_tasks(4, 9, len(X))
    spec = _spec("mlp")
    full = train_many_mlps(spec, X, y, K, tasks)
    part = train_many_mlps(spec, X, y, K, tasks=[tasks[2]])
    np.testing.assert_allclose(part.predict_proba(X)[0], full.predict_proba(X)[2], atol=1e-5)
    grouped = train_many_mlps(spec, X, y, K, tasks, group_size=3)
    np.testing.assert_allclose(grouped.predict_proba(X), full.predict_proba(X), atol=1e-5)


def test_reference_task_designs_and_seeds():
    n, r = 101, 8
    tasks = reference_tasks(r, 5, n)
    masks = np.stack([t.mask(n) for t in tasks])
    assert np.all(masks.sum(axis=0) == r // 2)        # balanced: every record in half the models
    assert len({t.seed for t in tasks}) == r
    assert [t.seed for t in reference_tasks(r, 5, n)] == [t.seed for t in tasks]
    fixed = reference_tasks(r, 5, n, design="fixed_size", fraction=0.3)
    assert {t.rows.size for t in fixed} == {30}
    assert all(np.all(np.diff(t.rows) > 0) for t in fixed)
    again = ReferenceTask.from_dict(tasks[3].to_dict())
    assert again.seed == tasks[3].seed and np.array_equal(again.rows, tasks[3].rows)
    same = tasks_from_masks(masks, 5)
    assert [t.seed for t in same] == [t.seed for t in tasks]
    with pytest.raises(ValueError):
        reference_tasks(1, 0, n)                      # a balanced design needs 2+ models


def test_small_mlp_overfits_random_labels():
    g = rng(2, "overfit")
    X = g.normal(size=(120, 20)).astype(np.float32)
    y = g.integers(0, 4, 120)
    spec = TrainingSpec(hidden=(64,), epochs=150, batch_size=16, lr=3e-3, seed=1)
    model = train_model(spec, X[:60], y[:60], 4)
    train_acc, test_acc = model.accuracy(X[:60], y[:60]), model.accuracy(X[60:], y[60:])
    assert train_acc >= 0.95 and test_acc <= 0.5
    assert train_acc - test_acc >= 0.45
    losses = model.details["history"]["loss"]
    assert len(losses) == 150 and losses[-1] < losses[0] / 5


def test_batched_predictions_stream_in_chunks(monkeypatch):
    import engine.models.mlp as mlp

    X, y = _data()
    batch = train_many_mlps(_spec("mlp"), X, y, K, reference_tasks(3, 1, len(X)))
    whole = batch.predict_proba(X)
    phi = batch.confidence_logit(X, y)
    monkeypatch.setattr(mlp, "_PREDICT_BUDGET", 3 * 16 * 4 * 7)     # 7 rows per chunk
    np.testing.assert_allclose(batch.predict_proba(X), whole, atol=1e-6)   # float32 rounding
    np.testing.assert_allclose(batch.confidence_logit(X, y), phi, atol=1e-5)
    py = whole[:, np.arange(len(y)), y]
    np.testing.assert_allclose(phi, np.log(py) - np.log1p(-py), atol=1e-5)
    sub = batch.predict_proba(X, models=[2, 0])
    np.testing.assert_allclose(sub, whole[[2, 0]], atol=1e-6)


def test_soft_targets_equal_to_one_hot_train_like_hard_labels():
    X, y = _data()
    spec = _spec("mlp")
    hard = train_model(spec, X, y, K)
    soft = train_model(replace(spec, soft_label_weight=1.0), X, y, K,
                       soft_targets=np.eye(K)[y])
    np.testing.assert_allclose(soft.predict_proba(X), hard.predict_proba(X), atol=1e-5)
    blurred = train_model(replace(spec, soft_label_weight=1.0), X, y, K,
                          soft_targets=np.full((len(X), K), 1.0 / K))
    assert blurred.predict_proba(X).max() < hard.predict_proba(X).max()


def test_custom_loss_hook_replaces_the_loss():
    import torch

    seen = []

    def loss(logits, y, soft, temperature):
        seen.append(tuple(logits.shape))
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                 y.reshape(-1), reduction="none"
                                                 ).view(logits.shape[:-1])

    X, y = _data()
    custom = train_model(_spec("mlp", loss=loss), X, y, K)
    plain = train_model(_spec("mlp"), X, y, K)
    assert seen and seen[0] == (1, 32, K)
    np.testing.assert_allclose(custom.predict_proba(X), plain.predict_proba(X), atol=1e-6)


def test_mlp_weights_round_trip_without_pickles(tmp_path):
    X, y = _data()
    model = train_model(_spec("mlp"), X, y, K)
    np.savez(tmp_path / "w.npz", **model.state_arrays())
    with np.load(tmp_path / "w.npz", allow_pickle=False) as f:
        again = MLPModel.from_state_arrays(model.spec, dict(f), device="cpu")
    np.testing.assert_allclose(again.predict_proba(X), model.predict_proba(X), atol=1e-12)


def test_purchase_architecture_is_paper_004s():
    spec = TrainingSpec(architecture="purchase").resolved()
    assert spec.layer_sizes(600, 100) == (600, 1024, 512, 256, 128, 100)
    assert spec.activation == "tanh" and spec.optimizer == "adam" and spec.lr == 1e-3
    g = rng(0, "purchase-arch")
    X = (g.random((40, 600)) < 0.2).astype(np.float32)
    y = g.integers(0, 100, 40)
    model = train_model(replace(spec, epochs=1, batch_size=20), X, y, 100)
    assert [tuple(w.shape) for w, _ in model.params] == [(600, 1024), (1024, 512), (512, 256),
                                                         (256, 128), (128, 100)]
    assert np.allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_spec_round_trip_defaults_and_checks():
    spec = TrainingSpec(family="mlp", hidden=(32, 16), epochs=3, weight_decay=1e-4, seed=7)
    assert TrainingSpec.from_dict(spec.to_dict()) == spec
    assert TrainingSpec(family="gradient_boosting").resolved().lr == 0.1
    assert TrainingSpec(family="random_forest").resolved().n_estimators == 100
    assert TrainingSpec(optimizer="sgd").resolved().lr == 1e-2
    assert "1024-512-256-128 tanh" in TrainingSpec(architecture="purchase").describe()
    for bad in (dict(family="svm"), dict(architecture="huge"), dict(epochs=-1),
                dict(optimizer="lbfgs"), dict(lr=0.0), dict(soft_label_weight=2.0)):
        with pytest.raises(ValueError):
            TrainingSpec(**bad).resolved()
    with pytest.raises(ValueError):
        TrainingSpec.from_dict({"family": "mlp", "epoch": 3})


def test_bad_training_data_is_refused_in_a_sentence():
    X, y = _data()
    with pytest.raises(ValueError, match="Labels must lie"):
        train_model(_spec("mlp"), X, y + 5, K)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing or infinite"):
        train_model(_spec("logistic"), Xn, y, K)
    with pytest.raises(ValueError, match="only one class"):
        train_model(_spec("logistic"), X, np.zeros_like(y), K)
    with pytest.raises(ValueError, match="Soft targets"):
        train_model(_spec("random_forest"), X, y, K, soft_targets=np.eye(K)[y])
    with pytest.raises(NotImplementedError):
        train_model(_spec("mlp", clip_norm=1.0, noise_multiplier=1.0), X, y, K)
    with pytest.raises(ValueError, match="feature columns"):
        train_model(_spec("mlp"), X, y, K).predict_proba(X[:, :3])
    with pytest.raises(ValueError, match="Batched training is for MLPs"):
        train_many_mlps(_spec("logistic"), X, y, K, reference_tasks(2, 0, len(X)))
