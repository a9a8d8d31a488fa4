"""Export of a (defended) model: weights as safetensors, a JSON model card, predictions as CSV —
never pickle (ARCHITECTURE §1: the app never loads pickles).

* :func:`export_model` writes ``NAME.safetensors`` (tensors ``W0, b0, W1, …``, float32, W of
  shape (inputs, outputs): logits = act(… act(x W0 + b0) …) W_L + b_L) and ``NAME.json``, the
  model card: architecture and training settings, the defence and its setting, the training
  data's hash, the measured risk, the weights file's hash and the software versions.
* :func:`load_model` reads them back (checking the weights' hash first) as an MLPModel.
* :func:`export_predictions` writes the model's probabilities per record with label and
  membership — the CSV the model audit's "bring your own predictions" path reads, so an
  exported model can be re-audited without the app retraining it.

Each file is written under a temporary name and renamed into place (engine.atomic_write): an
export stopped at any moment leaves no torn file.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from pathlib import Path

import numpy as np

from engine.atomic_write import atomic_path, write_text
from engine.data.errors import InputError
from engine.data.paths import require_regular_file, resolve_path
from engine.data.predictions import write_predictions_csv
from engine.data.text_input import read_text
from engine.models import MLPModel, TrainingSpec
from engine.results.result import file_sha256, software_versions, to_plain

# safetensors is imported inside the functions that use it: heavy, and needed only when a model
# trains or is read (docs/dev/layers.md).

CARD_FORMAT = "privacy-risk-auditor model card"
CARD_VERSION = 1


def training_data_sha256(X, y) -> str:
    """SHA-256 of the training records as the model saw them: shape, float32 features and
    int64 labels, row by row (the same data give the same hash on every machine)."""
    X = np.ascontiguousarray(X, dtype=np.float32)
    y = np.ascontiguousarray(y, dtype=np.int64)
    h = hashlib.sha256()
    h.update(f"pra-training-data-v1:{X.shape[0]}x{X.shape[1]}".encode())
    h.update(X.astype("<f4", copy=False).tobytes())
    h.update(y.astype("<i8", copy=False).tobytes())
    return h.hexdigest()


def export_model(model, path: str | Path, *, training_data: dict | str,
                 measured_risk: dict | None = None, class_labels=(), feature_names=(),
                 extra: dict | None = None) -> dict:
    """Write the weights (``path``, .safetensors) and the model card (same name, .json).

    ``training_data``: the training data's SHA-256 (:func:`training_data_sha256`) or a dict
    holding it under ``"sha256"`` with counts. Returns ``{"weights": Path, "card": Path}``.
    """
    from safetensors.numpy import save_file


    if not isinstance(model, MLPModel):
        raise InputError("Only neural-network (MLP) models are exported as weights; export "
                         "this model's predictions instead.", key="model")
    path = Path(path)
    if path.suffix != ".safetensors":
        path = path.with_suffix(".safetensors")
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: np.ascontiguousarray(v) for k, v in model.state_arrays().items()}
    defence = dict((model.details or {}).get("defence", {"name": "none"}))
    # One metadata entry, its JSON sorted: safetensors keeps metadata in a hash map whose
    # order changes from run to run, so several entries made the same weights hash
    # differently and a model card could not be reproduced bit for bit.
    with atomic_path(path) as tmp:        # never a torn weights file (engine.atomic_write)
        save_file(arrays, str(tmp), metadata={"pra": json.dumps(
            {"format": "pra-mlp", "card": path.with_suffix(".json").name,
             "defence": str(defence.get("name", "none"))}, sort_keys=True)})
    data = {"sha256": training_data} if isinstance(training_data, str) else dict(training_data)
    if "sha256" not in data:
        raise ValueError("training_data needs the data's sha256")
    spec = model.spec.resolved()
    layers = [int(arrays["W0"].shape[0])] + [int(arrays[f"W{i}"].shape[1])
                                              for i in range(len(model.params))]
    card = {
        "format": CARD_FORMAT, "version": CARD_VERSION,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "model": {"family": "mlp", "layers": layers, "activation": spec.activation,
                  "description": spec.describe(), "training_settings": spec.to_dict(),
                  "classes": int(model.n_classes), "class_labels": [str(c) for c in class_labels],
                  "features": int(model.n_features),
                  "feature_names": [str(c) for c in feature_names]},
        "weights": {"file": path.name, "format": "safetensors", "sha256": file_sha256(path),
                    "tensors": {k: list(v.shape) for k, v in arrays.items()},
                    "layout": "W_i has shape (inputs, outputs); logits = h W + b; hidden "
                              f"layers use {spec.activation}; softmax gives the probabilities"},
        "defence": defence,
        "training_data": data,
        "measured_risk": measured_risk or {},
        "software": software_versions(model.device),
    }
    if extra:
        card.update(extra)
    card_path = path.with_suffix(".json")
    write_text(card_path, json.dumps(to_plain(card), indent=2, ensure_ascii=False) + "\n")
    return {"weights": path, "card": card_path}


def load_model(card_path: str | Path, *, device: str | None = None):
    """The MLPModel a model card describes (weights from its safetensors file, hash checked)."""
    from safetensors.numpy import load_file


    card_path = resolve_path(card_path)
    try:
        card = json.loads(read_text(card_path, kind="model card", save_as="the model card "
                                    "this app wrote").text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{card_path}: cannot be read as a model card ({exc}).",
                         source=str(card_path)) from None
    if card.get("format") != CARD_FORMAT:
        raise InputError(f"{card_path}: is not a Privacy Risk Auditor model card.",
                         source=str(card_path))
    weights = card_path.parent / card["weights"]["file"]
    require_regular_file(weights, "weights file",
                         missing=f"the weights file of {card_path.name} is missing; keep the "
                                 "two files together.")
    if file_sha256(weights) != card["weights"]["sha256"]:
        raise InputError(f"{weights}: does not match the hash in its model card (the file was "
                         "changed or replaced).", source=str(weights))
    spec = TrainingSpec.from_dict(card["model"]["training_settings"])
    details = {"defence": card.get("defence", {}), "card": str(card_path)}
    return MLPModel.from_state_arrays(spec, load_file(str(weights)), device=device,
                                      details=details)


def export_predictions(model, X, y, member, path: str | Path, *, class_names=None,
                       ids=None) -> Path:
    """The model's probabilities on (X, y) with membership, as the CSV that
    engine.data.predictions.load_predictions_csv reads (``label``, ``member``, ``p_<class>``)."""
    names = [str(c) for c in class_names] if class_names else None
    probs = model.predict_proba(X)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        write_predictions_csv(tmp, labels=np.asarray(y), member=np.asarray(member),
                              probs=probs, class_names=names, ids=ids)
    return path
