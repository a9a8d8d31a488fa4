"""MLPs as stacks of R models: one trainer for a single model (R = 1) and for many.

Every weight tensor carries a leading model axis: layer ℓ is ``W (R, in, out)`` and
``b (R, out)``, and a training step is one batched matrix product per layer
(``torch.baddbmm``) over R different mini-batches — model r sees only its own rows. A single
model is the case R = 1, so the target model, shadow models and reference models all run the
same code, and a model trained in a batch of R gets the same weights as when trained alone
(to float rounding; tests/engine/test_models.py checks it).

Per model r, with its own seed s_r:

* initial weights from ``torch_generator(s_r, "mlp", "init")`` — PyTorch's default
  ``U(−1/√fan_in, 1/√fan_in)`` for weights and biases, drawn layer by layer on the CPU (the
  same numbers on every device);
* each epoch a permutation of its rows from ``torch_generator(s_r, "mlp", "batches")``, cut
  into batches of ``batch_size`` (the last one shorter);
* the mean per-sample loss over its batch, and a step of PyTorch's own Adam / AdamW / SGD
  (fused where the device has it). These update each element on its own, so one optimiser
  over the stacked tensors steps every model independently — as long as all models take the
  same steps. When the subsets differ enough in size that some model's epoch has fewer
  batches than the longest one, that model sits out the extra steps: each model's weights are
  then separate leaf tensors viewing the stacked memory (no copy), and a model without a
  gradient is left untouched by the optimiser, moments and step count included.

Defence hooks (spec.py): soft targets with ``soft_label_weight`` and ``temperature``, label
smoothing, weight decay and a custom per-sample ``loss``. For a sweep of one knob in one stack
(engine.defences): ``weight_decays`` gives every model its own L2 strength, and
``snapshot_epochs`` keeps the weights after chosen epochs (early stopping at several epoch
counts from one run: a model trained for e epochs is the run's state after epoch e, since the
batch order of the first e epochs does not depend on how many follow).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from engine.models.spec import TrainingSpec
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, torch_generator, torch_threads

# torch is imported inside the functions that use it: heavy, and needed only when a model
# trains or is read (docs/dev/layers.md).

_PREDICT_BUDGET = 64 * 2**20     # bytes of activations per prediction chunk
_SMALL_STEP = 30_000_000         # multiply-adds per CPU training step below which 1 thread wins


@dataclass(frozen=True)
class Convergence:
    """Train past ``spec.epochs`` until the loss has converged — paper 004 Alg. 1 step 3 and
    Alg. 2 step 6 train the distilled student "until the training converges".

    Per model r: ``floors[r]`` is the least value its mean training loss can take (for a
    cross-entropy against targets q, the mean entropy H(q) of the targets: the loss minus it is
    the mean KL(q ‖ p) between targets and outputs, the *excess*). The excess the model must get
    down to is ``shares[r] · tolerance + (1 − shares[r]) · max(recipe_excess, e_r)``, where e_r
    is its own excess after ``spec.epochs`` (the audited recipe) and ``recipe_excess`` the
    excess the recipe leaves when it trains on hard labels (KCD: its teachers' final training
    loss — they are trained exactly as the audited model). ``shares[r] = 1`` asks for a fit of
    the targets to within ``tolerance`` nats on average; ``shares[r] = 0`` for no more than the
    recipe gives, so KCD's α = 0 student stops where the undefended model does (§3.2: it
    "becomes the same as the unprotected ML"); in between, the share of the loss that comes
    from soft labels is held to the tolerance and the hard-label share to the recipe's own
    standard — a student with α = 0.5 is not trained to memorise its hard labels further than
    the audited model did. KCD passes α, the weight of the soft labels in Eq. 1.

    A model also counts as converged when its excess stopped falling — the mean over the last
    ``window`` epochs above ``1 − plateau`` times the mean over the ``window`` epochs before
    (a network too small to reproduce its targets to ``tolerance``) — and training ends after
    ``max_epochs`` in any case. Every model is checked after each epoch from ``spec.epochs`` on
    and keeps the weights it had when it converged (the others train on).
    """

    floors: tuple[float, ...]
    shares: tuple[float, ...]
    recipe_excess: float = 0.0
    tolerance: float = 0.002
    max_epochs: int = 2000
    window: int = 50
    plateau: float = 0.01

    def check(self, n_models: int, epochs: int) -> None:
        if len(self.floors) != n_models or len(self.shares) != n_models:
            raise ValueError(f"Convergence needs one floor and one share per model ({n_models}).")
        if not all(0.0 <= float(a) <= 1.0 for a in self.shares):
            raise ValueError("Convergence shares must lie in [0, 1].")
        if not self.tolerance > 0 or self.window < 1 or not 0.0 <= self.plateau < 1.0:
            raise ValueError("Convergence needs a positive tolerance and window and a plateau "
                             "share in [0, 1).")
        if int(self.max_epochs) < int(epochs):
            raise ValueError(f"Convergence's max_epochs ({self.max_epochs}) is below the "
                             f"recipe's {epochs} epochs.")


def _converged(conv: Convergence, excess: list[float], target: float) -> str | None:
    """Why a model has converged after the epochs in ``excess`` (its excess per epoch), or
    None: "tolerance" (within its target), "plateau" (no longer falling)."""
    if excess[-1] <= target:
        return "tolerance"
    w = int(conv.window)
    if len(excess) >= 2 * w:
        recent = float(np.mean(excess[-w:]))
        before = float(np.mean(excess[-2 * w:-w]))
        if recent > (1.0 - float(conv.plateau)) * before:
            return "plateau"
    return None


def activation_fn(torch, name: str):
    return {"relu": torch.relu, "tanh": torch.tanh}[name]


def macs_per_row(sizes: Sequence[int]) -> int:
    """Multiply-adds of one forward pass of one row (the backward pass costs about twice)."""
    return int(sum(a * b for a, b in zip(sizes[:-1], sizes[1:], strict=False)))


def init_parameters(sizes: Sequence[int], seeds: Sequence[int], device) -> list:
    """Stacked initial weights ``[W_0 (R, in, out), b_0 (R, out), W_1, …]`` on ``device``."""
    import torch

    per_model = []
    for seed in seeds:
        gen = torch_generator(int(seed), "mlp", "init")
        tensors = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=False):
            bound = 1.0 / math.sqrt(fan_in)
            tensors.append((torch.rand((fan_in, fan_out), generator=gen) * 2.0 - 1.0) * bound)
            tensors.append((torch.rand((fan_out,), generator=gen) * 2.0 - 1.0) * bound)
        per_model.append(tensors)
    return [torch.stack([m[i] for m in per_model]).to(device) for i in range(len(per_model[0]))]


def _stacked_view_function():
    import torch

    class StackedView(torch.autograd.Function):
        """The stacked tensor S (R, …) as a function of its per-model slices S[0], …, S[R−1]
        (leaf tensors that share S's memory): forward returns S itself (no copy), backward
        hands each slice its part of the gradient (views, no copy)."""

        @staticmethod
        def forward(ctx, stacked, *slices):
            return stacked.view_as(stacked)

        @staticmethod
        def backward(ctx, grad):
            return (None, *grad.unbind(0))

    return StackedView


def pairs(flat: list) -> list[tuple]:
    """``[(W_0, b_0), (W_1, b_1), …]`` from ``[W_0, b_0, W_1, …]``."""
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]


def forward(params, x, activation: str):
    """Logits ``(R, B, k)`` of the stacked models on their own rows ``x (R, B, d)``."""
    import torch

    act = activation_fn(torch, activation)
    h = x
    last = len(params) - 1
    for i, (w, b) in enumerate(params):
        h = torch.baddbmm(b.unsqueeze(1), h, w)
        if i < last:
            h = act(h)
    return h


def forward_shared(params, x, activation: str):
    """Logits ``(R, B, k)`` of every model on the same rows ``x (B, d)``.

    The first layer is one matrix product ``x @ [W_1 … W_R]`` — x is never copied R times.
    """
    import torch

    act = activation_fn(torch, activation)
    w0, b0 = params[0]
    r, d, h0 = w0.shape
    h = (x @ w0.permute(1, 0, 2).reshape(d, r * h0)).view(x.shape[0], r, h0)
    h = h.permute(1, 0, 2) + b0.unsqueeze(1)
    last = len(params) - 1
    if last == 0:
        return h
    h = act(h)
    for i, (w, b) in enumerate(params[1:], start=1):
        h = torch.baddbmm(b.unsqueeze(1), h, w)
        if i < last:
            h = act(h)
    return h


def per_sample_loss(spec: TrainingSpec, logits, y, soft=None):
    """Per-sample training loss, shape ``logits.shape[:-1]``.

    Cross-entropy with the true labels (``label_smoothing``); with soft targets,
    ``(1 − α)·CE(y) + α·CE(soft, softmax(logits / T))``, α = ``soft_label_weight``,
    T = ``temperature``. ``spec.loss`` replaces all of it when set.
    """
    import torch
    import torch.nn.functional as F

    if spec.loss is not None:
        return spec.loss(logits, y, soft, spec.temperature)
    k = logits.shape[-1]
    flat = logits.reshape(-1, k)
    hard = F.cross_entropy(flat, y.reshape(-1), reduction="none",
                           label_smoothing=float(spec.label_smoothing))
    if soft is None:
        return hard.view(logits.shape[:-1])
    alpha = float(spec.soft_label_weight)
    soft_term = -(soft.reshape(-1, k) * torch.log_softmax(flat / float(spec.temperature), dim=-1)
                  ).sum(dim=-1)
    return ((1.0 - alpha) * hard + alpha * soft_term).view(logits.shape[:-1])


def make_optimizer(spec: TrainingSpec, leaves: list):
    """PyTorch's own optimiser for ``spec`` over the per-model parameter tensors — fused
    (one pass per tensor) where the device supports it, else the default implementation."""
    import torch

    kind = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "sgd": torch.optim.SGD}
    kwargs = {"lr": float(spec.lr), "weight_decay": float(spec.weight_decay)}
    if spec.optimizer == "sgd":
        kwargs["momentum"] = float(spec.momentum)
    try:
        return kind[spec.optimizer](leaves, fused=True, **kwargs)
    except (RuntimeError, TypeError, ValueError):
        return kind[spec.optimizer](leaves, **kwargs)


def _feature_tensor(X, dev):
    """X on the device: as uint8 when every value is a whole number in 0 … 255 (binary and
    one-hot data: a quarter of the memory, and batches gather 4× fewer bytes), else float32."""
    import torch

    X = np.asarray(X)
    small_ints = X.size > 0 and bool(np.all((X >= 0) & (X <= 255) & (X == np.floor(X))))
    dtype = np.uint8 if small_ints else np.float32
    return torch.as_tensor(np.ascontiguousarray(X, dtype=dtype)).to(dev)


def _epoch_order(rows_t: list, gens: list, batch: int, steps: int):
    """(R, steps·batch) row indices (padding 0) and 0/1 weights, one permutation per model."""
    import torch

    r = len(rows_t)
    order = torch.zeros((r, steps * batch), dtype=torch.long)
    weight = torch.zeros((r, steps * batch), dtype=torch.float32)
    for i, (rows, gen) in enumerate(zip(rows_t, gens, strict=True)):
        perm = torch.randperm(rows.numel(), generator=gen)
        order[i, : rows.numel()] = rows[perm]
        weight[i, : rows.numel()] = 1.0
    return order, weight


def train_stacked(spec: TrainingSpec, X, y, n_classes: int, rows: Sequence[np.ndarray],
                  seeds: Sequence[int], *, device, soft_targets=None, what: str = "model",
                  weight_decays: Sequence[float] | None = None,
                  snapshot_epochs: Sequence[int] = (), converge: Convergence | None = None,
                  progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER):
    """Train R = len(rows) MLPs at once; model r on rows ``rows[r]`` of (X, y), seed ``seeds[r]``.

    ``spec`` must be resolved (:meth:`TrainingSpec.resolved`). Returns ``(params, history)``:
    the stacked parameters (detached, on ``device``) and ``{"loss": (R, epochs) list}`` of each
    model's mean training loss per epoch. Cancel is checked before every step; progress is
    reported as the fraction of steps done (about 20 times an epoch).

    ``weight_decays``: one L2 strength per model, used in place of ``spec.weight_decay`` and
    applied as the optimiser would (added to the gradient for adam/sgd, decoupled for adamw).
    ``snapshot_epochs``: epochs (1 … epochs) after which the stacked parameters are copied into
    ``history["snapshots"][epoch]``.
    ``converge``: train each model past ``spec.epochs`` until its loss has converged
    (:class:`Convergence`); the history then also holds ``"epochs"`` (per model, the epochs it
    trained) and ``"converged"`` (per model, "tolerance", "plateau", "recipe" when
    ``spec.epochs`` sufficed, or "max_epochs"), and ``"loss"`` lists each model's own epochs.
    """
    import torch


    dev = torch.device(device)
    n, d = X.shape
    sizes = spec.layer_sizes(d, n_classes)
    n_models = len(rows)
    if n_models != len(seeds):
        raise ValueError("rows and seeds must have one entry per model")
    counts = [int(len(r)) for r in rows]
    if min(counts, default=0) < 1:
        raise ValueError("every model needs at least one training row")
    batch = int(min(spec.batch_size, max(counts)))
    steps = max(math.ceil(c / batch) for c in counts)
    epochs = int(spec.epochs)
    if converge is not None:
        converge.check(n_models, epochs)
        if snapshot_epochs:
            raise ValueError("Snapshots and training until convergence cannot be combined.")
    last_epoch = epochs if converge is None else int(converge.max_epochs)
    work = n_models * batch * macs_per_row(sizes)
    threads = 1 if dev.type == "cpu" and work < _SMALL_STEP else None
    with torch_threads(threads):
        x_t = _feature_tensor(X, dev)
        y_t = torch.as_tensor(np.asarray(y, dtype=np.int64)).to(dev)
        soft_t = (None if soft_targets is None
                  else torch.as_tensor(np.asarray(soft_targets, dtype=np.float32)).to(dev))
        stacked = init_parameters(sizes, seeds, dev)
        # Same number of steps per epoch for every model (equal-size subsets, one model):
        # the stacked tensors are the leaves and one fused optimiser call per tensor steps all
        # models (the update is element-wise and their step counts stay equal). Otherwise a
        # model can sit out a step, so each model's weights are separate leaf tensors viewing
        # the stacked memory, stepped with their own moments and step count.
        uniform = len({math.ceil(c / batch) for c in counts}) == 1
        decay = _per_model_decay(spec, weight_decays, n_models, dev)
        if decay is not None:
            spec = replace(spec, weight_decay=0.0)   # the optimiser must not decay twice
        snapshots: dict[int, list] = {}
        wanted = {int(e) for e in snapshot_epochs}
        if any(not 1 <= e <= epochs for e in wanted):
            raise ValueError(f"Snapshot epochs must lie in 1 … {epochs}; got {sorted(wanted)}.")
        if uniform:
            leaves = None
            opt = make_optimizer(spec, [t.requires_grad_(True) for t in stacked])
        else:
            leaves = [[t[r].requires_grad_(True) for t in stacked] for r in range(n_models)]
            view = _stacked_view_function()
            opt = make_optimizer(spec, [t for tensors in leaves for t in tensors])
        rows_t = [torch.as_tensor(np.asarray(r, dtype=np.int64)) for r in rows]
        gens = [torch_generator(int(s), "mlp", "batches") for s in seeds]
        history = []                                   # per epoch: (R,) mean losses
        report_every = max(1, steps // 20)
        total = max(1, last_epoch * steps)
        label = f"{n_models} {what}s" if n_models > 1 else f"the {what}"
        progress(0.0, f"Training {label}")
        # Training until convergence: per model, the epoch it stopped at, why, and its weights
        # then (a stopped model's slice of the stack keeps moving with the others' steps —
        # the optimiser updates each element on its own — and is put back at the end).
        stopped_at: list[int | None] = [None] * n_models
        why: list[str | None] = [None] * n_models
        kept: dict[int, list] = {}
        targets: list[float] = []
        excess: list[np.ndarray] = []                  # per epoch from spec.epochs: loss − floor
        floors = None if converge is None else np.asarray(converge.floors, dtype=np.float64)
        epoch = 0
        while epoch < last_epoch:
            order, weight = _epoch_order(rows_t, gens, batch, steps)
            order, weight = order.to(dev), weight.to(dev)
            per_step = weight.view(n_models, steps, batch).sum(dim=2)      # rows per model/step
            sitting_out = (per_step == 0).cpu().numpy()                    # (R, steps)
            epoch_loss = torch.zeros(n_models, dtype=torch.float64, device=dev)
            for s in range(steps):
                cancel.check()
                lo, hi = s * batch, (s + 1) * batch
                idx = order[:, lo:hi].reshape(-1)
                xb = x_t.index_select(0, idx).view(n_models, batch, d).to(torch.float32)
                params = pairs(stacked if uniform else
                               [view.apply(t, *(m[i] for m in leaves))
                                for i, t in enumerate(stacked)])
                logits = forward(params, xb, spec.activation)
                losses = per_sample_loss(
                    spec, logits, y_t.index_select(0, idx).view(n_models, batch),
                    None if soft_t is None
                    else soft_t.index_select(0, idx).view(n_models, batch, n_classes))
                cnt = per_step[:, s]
                model_loss = (losses * weight[:, lo:hi]).sum(dim=1) / cnt.clamp(min=1.0)
                opt.zero_grad(set_to_none=True)
                model_loss.sum().backward()
                cancel.check()      # a step of 26 wide MLPs is about a second on a CPU
                if not uniform:
                    for r in np.flatnonzero(sitting_out[:, s]):
                        for t in leaves[r]:        # no step for a model whose epoch is over
                            t.grad = None
                if decay is not None:
                    _apply_decay(spec, decay, stacked, leaves, sitting_out[:, s])
                opt.step()
                epoch_loss += model_loss.detach().double() * cnt.double()
                done = epoch * steps + s + 1
                if (s + 1) % report_every == 0 or s + 1 == steps:
                    progress(done / total, f"Training {label}: epoch {epoch + 1} of {epochs}"
                             if converge is None else f"Training {label} until converged: "
                             f"epoch {epoch + 1} (at most {last_epoch})")
            history.append((epoch_loss / torch.as_tensor(counts, dtype=torch.float64,
                                                          device=dev)).cpu().numpy())
            epoch += 1
            if epoch in wanted:
                snapshots[epoch] = pairs([t.detach().clone() for t in stacked])
            if converge is None or epoch < epochs:
                continue
            excess.append(history[-1] - floors)
            if epoch == epochs:
                targets = [float(a) * float(converge.tolerance) + (1.0 - float(a))
                           * max(float(converge.recipe_excess), float(e))
                           for a, e in zip(converge.shares, excess[-1], strict=True)]
            for r in range(n_models):
                if stopped_at[r] is not None:
                    continue
                reason = _converged(converge, [float(e[r]) for e in excess], targets[r])
                if reason is not None:
                    stopped_at[r], why[r] = epoch, ("recipe" if epoch == epochs else reason)
                    kept[r] = [t[r].detach().clone() for t in stacked]
            if all(e is not None for e in stopped_at):
                break
        if last_epoch == 0:
            progress(1.0, f"Training {label}: no epochs")
        elif converge is not None:
            progress(1.0, f"Training {label}: done after {epoch} epochs")
    if kept:
        with torch.no_grad():
            for r, tensors in kept.items():
                for t, v in zip(stacked, tensors, strict=True):
                    t[r].copy_(v)
    detached = pairs([t.detach().clone() for t in stacked])
    losses = np.asarray(history, dtype=np.float64).reshape(len(history), n_models).T
    if converge is None:
        out = {"loss": losses.tolist()}
    else:
        trained = [epoch if e is None else e for e in stopped_at]
        out = {"loss": [losses[r, :trained[r]].tolist() for r in range(n_models)],
               "epochs": trained,
               "converged": [w if w is not None else "max_epochs" for w in why]}
    if wanted:
        out["snapshots"] = snapshots
    return detached, out


def _per_model_decay(spec: TrainingSpec, weight_decays, n_models: int, dev):
    """(R,) float32 tensor of per-model L2 strengths on ``dev``, or None when not given."""
    if weight_decays is None:
        return None
    import torch

    values = np.asarray(weight_decays, dtype=np.float64).reshape(-1)
    if values.size != n_models:
        raise ValueError(f"weight_decays needs one value per model ({n_models}); got "
                         f"{values.size}.")
    if not np.all(np.isfinite(values)) or (values < 0).any():
        raise ValueError("Weight decays must be non-negative numbers.")
    return torch.as_tensor(values, dtype=torch.float32, device=dev)


def _apply_decay(spec: TrainingSpec, decay, stacked, leaves, sitting_out) -> None:
    """Per-model L2 before the optimiser step, as torch's optimisers apply ``weight_decay``:
    ``grad += λ_r·θ`` for adam and sgd (coupled), ``θ *= 1 − lr·λ_r`` for adamw (decoupled).
    A model sitting out this step (``sitting_out[r]``) is left alone, decay included."""
    import torch

    decoupled = spec.optimizer == "adamw"
    with torch.no_grad():
        if leaves is None:
            for t in stacked:
                lam = decay.view((-1,) + (1,) * (t.dim() - 1))
                if decoupled:
                    t.mul_(1.0 - float(spec.lr) * lam)
                else:
                    t.grad.add_(t * lam)
            return
        for r, tensors in enumerate(leaves):
            if sitting_out[r]:
                continue
            lam = float(decay[r])
            for t in tensors:
                if decoupled:
                    t.mul_(1.0 - float(spec.lr) * lam)
                else:
                    t.grad.add_(t, alpha=lam)


def iter_logits(params, activation: str, X, *, models: Sequence[int] | None = None,
                cancel: CancelToken = NEVER):
    """Yield ``(lo, hi, logits)`` — float64 ``(R', hi − lo, k)`` — over row chunks of X sized
    so that no chunk holds more than about 64 MiB of activations (never (R, n, hidden))."""
    import torch

    if models is not None:
        sel = torch.as_tensor(list(models), dtype=torch.long, device=params[0][0].device)
        params = [(w.index_select(0, sel), b.index_select(0, sel)) for w, b in params]
    dev = params[0][0].device
    n_models = params[0][0].shape[0]
    widest = max(w.shape[2] for w, _ in params)
    n = int(X.shape[0])
    chunk = max(1, int(_PREDICT_BUDGET // (4 * n_models * widest)))
    with torch.inference_mode():
        for lo in range(0, n, chunk):
            cancel.check()
            hi = min(n, lo + chunk)
            x = torch.as_tensor(np.ascontiguousarray(X[lo:hi], dtype=np.float32)).to(dev)
            yield lo, hi, forward_shared(params, x, activation).double().cpu().numpy()


def predict_logits(params, activation: str, X, *, models: Sequence[int] | None = None,
                   cancel: CancelToken = NEVER) -> np.ndarray:
    """float64 logits ``(R', n, k)`` of the stacked models on every row of X (chunked)."""
    n_models = params[0][0].shape[0] if models is None else len(list(models))
    k = params[-1][0].shape[2]
    out = np.empty((n_models, int(X.shape[0]), k), dtype=np.float64)
    for lo, hi, z in iter_logits(params, activation, X, models=models, cancel=cancel):
        out[:, lo:hi] = z
    return out
