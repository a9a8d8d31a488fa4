"""What every model attack receives and returns.

The attacks read a model's *outputs* only — class probabilities per record, the records' true
labels — never the model itself, so the same code audits a model trained in the app and a
"bring your own predictions" CSV from R, SAS or XGBoost (issue 8).

* :class:`ModelOutputs` — one model's outputs on some records, with membership where it is known
  (shadow models: known to the attacker; the target: evaluation truth only, never read by an
  attack).
* :class:`ReferenceOutputs` — R reference models' outputs on the *same* records as the target,
  with which records each trained on (LiRA, RMIA; Carlini et al. 2022's "shadow models").
* :class:`~engine.attacks.outcome.AttackOutcome` (shared with the location attacks) — a score
  per record (higher = member, as in engine.metrics) and the
  threshold the attack's own rule chose on data the evaluation does not contain.

Threat models in plain words are in :data:`THREAT_MODELS` (paper 004 §4.3 for "supervised").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.attacks.outcome import AttackOutcome
from engine.auditing import evaluate_attack
from engine.data.errors import InputError
from engine.runtime import rng, torch_generator, torch_threads

# Smallest probability used inside logarithms: float64 keeps log(1e-300) finite, but model
# outputs come as float32 (smallest normal 1.2e-38) and exact 0/1 from calibrated trees, so we
# clip at a value every input type can represent. log(1e-30) = −69: finite, and far below any
# probability a real model distinguishes from 0.
PROB_FLOOR = 1e-30
ROW_SUM_TOLERANCE = 1e-2

THREAT_MODELS = {
    "accuracy_only": "The attacker knows only the model's accuracy on its training data and on "
                     "other data, and the share of records that were used for training "
                     "(paper 001: BTTA). It sees whether the model labels each record correctly.",
    "shadow": "The attacker has other records from the same population and trains look-alike "
              "('shadow') models on part of them, so it knows which records those models saw "
              "(Shokri et al. 2017; paper 001's SMA; ML-Leaks).",
    "reference": "As 'shadow', but the look-alike ('reference') models are trained on random "
                 "halves of a pool that contains the audited records, and the attacker "
                 "compares the model's confidence on each record with theirs (LiRA, RMIA).",
    "supervised": "The attacker knows some of the training records and some records that "
                  "were not used, and queries the model on them (paper 004 §4.3, 'supervised "
                  "inference', Nasr et al. 2019).",
}


# --------------------------------------------------------------------------- inputs

def _check_probs(probs: np.ndarray, what: str) -> np.ndarray:
    p = np.asarray(probs)
    # float32 stays float32 (R reference models × n records × k classes can be large);
    # attacks convert the slices they use to float64.
    if p.dtype not in (np.float32, np.float64):
        p = p.astype(np.float64)
    if not np.all(np.isfinite(p)):
        raise InputError(f"The {what} contain NaN or infinite values; remove those rows or "
                         "export the model's probabilities again.")
    if np.any(p < 0) or np.any(p > 1 + 1e-9):
        raise InputError(f"The {what} must lie between 0 and 1 (probabilities, not logits).")
    s = p.sum(axis=-1)
    if np.any(np.abs(s - 1.0) > ROW_SUM_TOLERANCE):
        bad = int(np.argmax(np.abs(s - 1.0).reshape(-1)))
        raise InputError(f"The {what} do not sum to 1 per record (e.g. row {bad} sums to "
                         f"{s.reshape(-1)[bad]:.4g}); give softmax probabilities, or logits "
                         "so the intake can convert them.")
    return np.clip(p, 0.0, 1.0) if (p.min(initial=0.0) < 0 or p.max(initial=0.0) > 1) else p


@dataclass(frozen=True)
class ModelOutputs:
    """One model's outputs on n records.

    ``member`` is the membership truth where it is known: for shadow models it is attacker
    knowledge; for the audited (target) model it is evaluation truth that no attack reads.
    ``group`` says which shadow model produced each row (several shadow models pooled).
    """

    probs: np.ndarray                    # (n, k) class probabilities, rows sum to 1
    labels: np.ndarray                   # (n,) int true labels in [0, k)
    member: np.ndarray | None = None     # (n,) bool
    group: np.ndarray | None = None      # (n,) int shadow-model id

    def __post_init__(self):
        p = _check_probs(self.probs, "model outputs")
        if p.ndim != 2:
            raise InputError("Model outputs must be a table: one row per record, one column "
                             "per class.")
        y = np.asarray(self.labels).reshape(-1)
        if y.size != p.shape[0]:
            raise InputError(f"{p.shape[0]} output rows but {y.size} labels.")
        if y.size and (y.min() < 0 or y.max() >= p.shape[1]):
            raise InputError(f"Labels must be class indices 0..{p.shape[1] - 1}.")
        object.__setattr__(self, "probs", p)
        object.__setattr__(self, "labels", y.astype(np.int64))
        for name in ("member", "group"):
            v = getattr(self, name)
            if v is not None:
                v = np.asarray(v).reshape(-1)
                if v.size != y.size:
                    raise InputError(f"'{name}' has {v.size} entries for {y.size} records.")
                object.__setattr__(self, name, v.astype(bool if name == "member" else np.int64))

    @property
    def n(self) -> int:
        return int(self.labels.size)

    @property
    def n_classes(self) -> int:
        return int(self.probs.shape[1])

    def subset(self, mask) -> ModelOutputs:
        return ModelOutputs(self.probs[mask], self.labels[mask],
                            None if self.member is None else self.member[mask],
                            None if self.group is None else self.group[mask])

    def require_membership(self, who: str) -> np.ndarray:
        if self.member is None:
            raise InputError(f"The {who} need a member column (which records the model was "
                             "trained on).")
        if self.member.all() or not self.member.any():
            raise InputError(f"The {who} need both training members and non-members.")
        return self.member


@dataclass(frozen=True)
class ReferenceOutputs:
    """R reference models' outputs on the same n records as the target (LiRA, RMIA).

    ``member[r, i]`` is True when reference model r was trained on record i ("IN").
    """

    probs: np.ndarray                    # (R, n, k)
    member: np.ndarray                   # (R, n) bool

    def __post_init__(self):
        p = np.asarray(self.probs)
        if p.ndim != 3:
            raise InputError("Reference outputs must have shape (models, records, classes).")
        p = _check_probs(p, "reference-model outputs")
        m = np.asarray(self.member).astype(bool)
        if m.shape != p.shape[:2]:
            raise InputError(f"Reference membership has shape {m.shape}, outputs {p.shape[:2]}.")
        object.__setattr__(self, "probs", p)
        object.__setattr__(self, "member", m)

    @property
    def n_models(self) -> int:
        return int(self.probs.shape[0])

    def to_shadow(self, labels) -> ModelOutputs:
        """All (model, record) pairs as shadow outputs with known membership — for attacks
        that learn thresholds or classifiers from in/out examples (metric, ML-Leaks, Shokri)."""
        r, n, k = self.probs.shape
        return ModelOutputs(self.probs.reshape(r * n, k), np.tile(np.asarray(labels), r),
                            self.member.reshape(-1), np.repeat(np.arange(r), n))


def true_class_prob(probs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """p_y for (n, k) or (R, n, k) outputs; shape (n,) or (R, n)."""
    y = np.asarray(labels, dtype=np.int64)
    p = np.asarray(probs)
    idx = np.broadcast_to(y[..., None], p.shape[:-1] + (1,))
    return np.take_along_axis(p, idx, axis=-1)[..., 0]


def correct(probs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """M(x) = y with M(x) the arg-max label (paper 001 §BTTA: the set A)."""
    return np.argmax(probs, axis=-1) == np.asarray(labels)


# --------------------------------------------------------------------------- results

def evaluate(outcome: AttackOutcome, member, *, delta: float, **kwargs) -> dict:
    """The shared metric layer (engine.auditing.evaluate_attack) for one outcome: balanced
    accuracy and advantage at the attack's own threshold, measured on every record."""
    return evaluate_attack(outcome.name, outcome.label, outcome.scores, member, delta=delta,
                           accuracy_threshold=outcome.threshold, details=outcome.details,
                           **kwargs)


# --------------------------------------------------------------------------- thresholds

def best_threshold(scores: np.ndarray, labels: np.ndarray) -> float:
    """Threshold maximising balanced accuracy (TPR − FPR) of ``score >= t`` on *these*
    (shadow/reference) scores.

    Returns the midpoint between the chosen score and the next lower distinct score, so scores
    of new records that fall between two shadow scores are split evenly rather than always
    counted as members. At least one record is predicted member (as in engine.metrics).
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError("need shadow members and non-members to choose a threshold")
    order = np.argsort(-s, kind="mergesort")
    ss, yy = s[order], y[order]
    last = np.r_[np.nonzero(np.diff(ss))[0], ss.size - 1]     # last index of each score run
    gain = np.cumsum(yy)[last] / n_pos - np.cumsum(~yy)[last] / n_neg
    i = int(np.argmax(gain))
    if i + 1 < last.size:
        return float(0.5 * (ss[last[i]] + ss[last[i + 1]]))
    return float(ss[last[i]])


def balanced_weights(member: np.ndarray) -> np.ndarray:
    """Per-record weights giving members and non-members equal total weight (the attack
    classifiers then estimate the posterior at prior ½, whose ½ threshold maximises balanced
    accuracy)."""
    m = np.asarray(member, dtype=bool)
    w = np.empty(m.size)
    w[m] = 0.5 / max(m.sum(), 1)
    w[~m] = 0.5 / max((~m).sum(), 1)
    return w * m.size


# Share of a predictions file's members (and non-members) the attacker knows without shadow
# predictions (paper 004 §4.3); the model audit and its cost model read it here.
SUPERVISED_KNOWN = 0.5


def supervised_split(target: ModelOutputs, known_fraction: float = SUPERVISED_KNOWN,
                     seed: int = 0):
    """Paper 004 §4.3 ("supervised inference"): the attacker knows a share of the members and
    of the non-members. Returns ``(known, evaluate_mask)``: the known records as attacker data
    (ModelOutputs with membership) and the mask of the records left for evaluation — thresholds
    and classifiers are fitted on ``known`` only."""
    member = target.require_membership("audited outputs")
    g = rng(seed, "supervised-split")
    known = np.zeros(target.n, dtype=bool)
    for cls in (True, False):
        idx = np.nonzero(member == cls)[0]
        take = g.choice(idx, size=int(round(known_fraction * idx.size)), replace=False)
        known[take] = True
    return target.subset(known), ~known


# --------------------------------------------------------------------------- group MLPs

def fit_group_mlps(x: np.ndarray, y: np.ndarray, w: np.ndarray, *, hidden=(50, 50),
                   epochs: int = 300, lr: float = 1e-2, weight_decay: float = 1e-4,
                   validation: float = 0.2, check_every: int = 10, patience: int = 5,
                   seed: int = 0, device: str = "cpu", cancel=None) -> dict:
    """Train G independent binary MLP classifiers at once (one per class for the Shokri attack,
    G = 1 for ML-Leaks).

    ``x`` (G, N, d), ``y`` (G, N) 0/1, ``w`` (G, N) weights (0 marks padding). The G networks
    have stacked weights (G, d_in, d_out) and run as batched matrix products, so 100 per-class
    attack models cost about as much as one (issue 8, "Speed"); full-batch Adam, ReLU hidden
    layers (paper 001 §Experimental Setup: two hidden layers of 50). Features are standardised
    per group.

    Early stopping per group: a share ``validation`` of each group's records is held out, the
    held-out loss is checked every ``check_every`` epochs and each group keeps the parameters of
    its best check (a per-class attack model sees a few hundred shadow records of a
    100-dimensional vector and overfits them within a few dozen epochs). Training ends after
    ``epochs`` or when no group improved for ``patience`` checks. Returns the parameters as a
    dict of tensors for :func:`predict_group_mlps`.
    """
    # Small networks train several times faster on one CPU thread than on two (runtime.py's
    # torch_threads note; measured here: 2.5 s against 11 s for ML-Leaks on 4,000 records).
    with torch_threads(1 if str(device).startswith("cpu") else None):
        return _fit_group_mlps(x, y, w, hidden=hidden, epochs=epochs, lr=lr,
                               weight_decay=weight_decay, validation=validation,
                               check_every=check_every, patience=patience, seed=seed,
                               device=device, cancel=cancel)


def _fit_group_mlps(x, y, w, *, hidden, epochs, lr, weight_decay, validation, check_every,
                    patience, seed, device, cancel):
    import torch

    w = np.asarray(w, dtype=np.float64)
    held = np.zeros(w.shape, dtype=bool)
    if validation > 0:
        held = (rng(seed, "group-mlp-validation").random(w.shape) < validation) & (w > 0)
    w_train = np.where(held, 0.0, w)
    w_val = np.where(held, w, 0.0)

    xt = torch.as_tensor(np.ascontiguousarray(x, dtype=np.float32), device=device)
    yt = torch.as_tensor(np.ascontiguousarray(y, dtype=np.float32), device=device)
    wt = torch.as_tensor(np.ascontiguousarray(w_train, dtype=np.float32), device=device)
    wv = torch.as_tensor(np.ascontiguousarray(w_val, dtype=np.float32), device=device)
    wsum = wt.sum(dim=1, keepdim=True).clamp_min(1e-12)
    mean = (xt * wt[..., None]).sum(dim=1, keepdim=True) / wsum[..., None]
    var = (((xt - mean) ** 2) * wt[..., None]).sum(dim=1, keepdim=True) / wsum[..., None]
    std = var.sqrt().clamp_min(1e-6)
    xs = (xt - mean) / std
    g_count, _, d = xt.shape
    gen = torch_generator(seed, "group-mlp")
    sizes = [d, *hidden, 1]
    params = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        bound = 1.0 / np.sqrt(a)                 # PyTorch's default Linear initialisation
        wgt = (torch.rand((g_count, a, b), generator=gen) * 2 - 1) * bound
        bias = (torch.rand((g_count, 1, b), generator=gen) * 2 - 1) * bound
        params += [wgt.to(device).requires_grad_(), bias.to(device).requires_grad_()]
    opt = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    norm_w = wt / wsum                            # each group's loss is its weighted mean
    has_val = wv.sum(dim=1) > 0
    norm_v = wv / wv.sum(dim=1, keepdim=True).clamp_min(1e-12)
    best = [p.detach().clone() for p in params]
    best_loss = torch.full((g_count,), float("inf"), device=device)
    stale = 0

    def bce(logits):
        return torch.nn.functional.binary_cross_entropy_with_logits(logits, yt,
                                                                    reduction="none")

    for epoch in range(1, epochs + 1):
        if cancel is not None and epoch % 50 == 0:
            cancel.check()
        opt.zero_grad()
        # Summing the per-group means trains the groups independently: no parameter is shared.
        (bce(_forward(params, xs)) * norm_w).sum().backward()
        opt.step()
        if validation > 0 and (epoch % check_every == 0 or epoch == epochs):
            with torch.no_grad():
                v = (bce(_forward(params, xs)) * norm_v).sum(dim=1)
                better = (v < best_loss) | ~has_val    # no held-out record: keep the last
                best_loss = torch.where(better, v, best_loss)
                for b, p in zip(best, params, strict=True):
                    b[better] = p.detach()[better]
            stale = 0 if bool((better & has_val).any()) else stale + 1
            if stale >= patience:
                break
    final = best if validation > 0 else [p.detach() for p in params]
    return {"params": final, "mean": mean, "std": std, "device": device,
            "epochs_run": epoch}


def _forward(params, xs):
    import torch

    h = xs
    for i in range(0, len(params) - 2, 2):
        h = torch.relu(torch.baddbmm(params[i + 1], h, params[i]))
    return torch.baddbmm(params[-1], h, params[-2])[..., 0]


def predict_group_mlps(model: dict, x: np.ndarray) -> np.ndarray:
    """P(member) from each group's network for ``x`` (G, M, d); returns (G, M)."""
    import torch

    with torch.no_grad():
        xt = torch.as_tensor(np.ascontiguousarray(x, dtype=np.float32), device=model["device"])
        xs = (xt - model["mean"]) / model["std"]
        return torch.sigmoid(_forward(model["params"], xs)).double().cpu().numpy()
