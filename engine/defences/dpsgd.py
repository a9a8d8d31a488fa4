"""DP-SGD (Abadi et al. 2016) through Opacus: Poisson sampling, per-sample gradient clipping,
Gaussian noise and the accountant's ε at the user's δ, so a model trained "with ε = 3" can be
audited against its own claim (issue 9; paper 002 Thm 1). The training recipe is the audited
model's except the learning rate (:func:`dp_recipe`, :data:`DP_LR`). Method, the reasons for
the learning rate and what was measured not to help: docs/methods/defences.md (DP-SGD) and
docs/methods/defence_notes.md (DP-SGD).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

from engine.data.errors import InputError, given_value
from engine.defences.common import check_inputs, check_positive
from engine.models import MLPModel, TrainingSpec
from engine.models.mlp import init_parameters
from engine.models.spec import OPTIMIZERS
from engine.runtime import (
    NEVER,
    NO_PROGRESS,
    CancelToken,
    Progress,
    Stopwatch,
    torch_generator,
    torch_threads,
)
from engine.runtime import device as default_device

# torch and Opacus are imported inside the functions that use them: heavy, and needed only when a model
# trains or is read (docs/dev/layers.md).

ACCOUNTANTS = ("rdp", "prv")
DEFAULT_DELTA = 1e-5
DEFAULT_CLIP_NORM = 1.0
# Learning rates for DP-SGD when the user states none (module docstring): Adam's per unit step,
# SGD's per unit of the clipping norm (the step is lr / C times the clipped, noised mean).
DP_LR = {"adam": 1e-2, "adamw": 1e-2, "sgd": 0.1}
OPACUS_VERSION = "1.6.0"


def sampling(n_records: int, batch_size: int, epochs: int) -> tuple[float, int]:
    """(q, T): Poisson sampling rate and number of steps, as Opacus derives them from a data
    loader of ``batch_size`` over ``n_records`` (q = 1 / ⌈n / B⌉, T = epochs · ⌈n / B⌉)."""
    per_epoch = math.ceil(int(n_records) / max(1, min(int(batch_size), int(n_records))))
    return 1.0 / per_epoch, int(epochs) * per_epoch


def accountant_epsilon(noise_multiplier: float, sample_rate: float, steps: int, delta: float,
                       accountant: str = "rdp") -> float:
    """ε after ``steps`` of the subsampled Gaussian mechanism at ``delta`` (Opacus's
    accountant; RDP: Mironov 2017 with Mironov, Talwar & Zhang 2019's subsampling bound)."""
    from opacus.accountants import create_accountant

    if steps <= 0:
        return 0.0
    acc = create_accountant(mechanism=accountant)
    acc.history = [(float(noise_multiplier), float(sample_rate), int(steps))]
    with warnings.catch_warnings():
        # "Optimal order is the largest alpha": the RDP bound is then valid but loose (very
        # small noise); it is still the accountant's ε.
        warnings.simplefilter("ignore")
        return float(acc.get_epsilon(delta=float(delta)))


def noise_for_epsilon(target_epsilon: float, delta: float, sample_rate: float, steps: int,
                      accountant: str = "rdp") -> float:
    """The smallest noise multiplier σ (to Opacus's 0.01 tolerance in ε) whose ε after
    ``steps`` is at most ``target_epsilon``; InputError with a way forward when none is."""
    from opacus.accountants.utils import get_noise_multiplier

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(get_noise_multiplier(target_epsilon=float(target_epsilon),
                                              target_delta=float(delta), sample_rate=sample_rate,
                                              steps=int(steps), accountant=accountant))
    except ValueError:
        raise InputError(f"DP-SGD cannot reach ε = {target_epsilon:g} at δ = {delta:g} in "
                         f"{steps} steps: even a noise multiplier of a million does not get "
                         "there. Allow a larger ε or δ, train fewer epochs, or use larger "
                         "batches.", key="target_epsilon") from None


def _max_epochs(noise_multiplier, sample_rate, per_epoch, delta, target, accountant, most):
    """Largest number of epochs ≤ ``most`` whose ε stays at most ``target`` (0 if none)."""
    lo, hi = 0, int(most)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if accountant_epsilon(noise_multiplier, sample_rate, mid * per_epoch, delta,
                              accountant) <= target:
            lo = mid
        else:
            hi = mid - 1
    return lo


def check_delta(delta, n_records: int) -> float:
    try:
        d = float(delta)
    except (TypeError, ValueError):
        raise InputError(f"DP-SGD's δ must be a number between 0 and 1; got {given_value(delta)}.",
                         key="delta") from None
    if not 0.0 < d < 1.0:
        raise InputError(f"DP-SGD's δ must lie strictly between 0 and 1 (typically well below "
                         f"1 / {n_records} records); got {given_value(delta)}.", key="delta")
    return d


def plan(n_records: int, spec: TrainingSpec, *, noise_multiplier: float | None = None,
         target_epsilon: float | None = None, delta: float = DEFAULT_DELTA,
         accountant: str = "rdp") -> dict:
    """Check a DP-SGD setting before training and fill in what follows from it: the noise
    multiplier for a target ε, or the ε of a noise multiplier. A target ε the given epochs
    cannot meet at the given noise is an InputError with the two ways forward (more noise,
    or fewer epochs)."""
    spec = spec.resolved()
    if accountant not in ACCOUNTANTS:
        raise InputError(f"Unknown privacy accountant {given_value(accountant)}; choose one of "
                         f"{', '.join(ACCOUNTANTS)}.", key="accountant")
    delta = check_delta(delta, n_records)
    if noise_multiplier is None and target_epsilon is None:
        raise InputError("DP-SGD needs a noise multiplier or a target ε.",
                         key="noise_multiplier")
    q, steps = sampling(n_records, spec.batch_size, spec.epochs)
    per_epoch = round(1.0 / q)
    if target_epsilon is not None:
        target_epsilon = check_positive(target_epsilon, "target_epsilon", "The target ε")
    if noise_multiplier is None:
        noise_multiplier = noise_for_epsilon(target_epsilon, delta, q, steps, accountant)
    noise_multiplier = check_positive(noise_multiplier, "noise_multiplier",
                                      "DP-SGD's noise multiplier (noise std / clipping norm)")
    eps = accountant_epsilon(noise_multiplier, q, steps, delta, accountant)
    if target_epsilon is not None and eps > target_epsilon * (1 + 1e-6) + 0.01:
        most = _max_epochs(noise_multiplier, q, per_epoch, delta, target_epsilon, accountant,
                           spec.epochs)
        try:
            need = f"raise the noise multiplier to at least " \
                   f"{noise_for_epsilon(target_epsilon, delta, q, steps, accountant):.3g}"
        except InputError:
            need = "no noise multiplier reaches it at these epochs"
        fewer = (f"train at most {most} epoch{'s' if most != 1 else ''}" if most >= 1 else
                 "not even one epoch stays within it")
        raise InputError(f"With noise multiplier {noise_multiplier:g} and {spec.epochs} epochs "
                         f"({steps} steps, sampling rate {q:.3g}) the accountant gives ε = "
                         f"{eps:.3g} at δ = {delta:g}, above the target ε = {target_epsilon:g}: "
                         f"{need}, or {fewer}.", key="target_epsilon")
    warning = None
    if delta >= 1.0 / n_records:
        warning = (f"δ = {delta:g} is not below 1 / {n_records} records: a mechanism that "
                   "publishes a few records in the clear can meet such a guarantee.")
    return {"noise_multiplier": float(noise_multiplier), "epsilon": eps, "delta": delta,
            "sample_rate": q, "steps": steps, "epochs": int(spec.epochs),
            "accountant": accountant, "target_epsilon": target_epsilon, "warning": warning}


def dp_recipe(spec: TrainingSpec, *, clip_norm: float = DEFAULT_CLIP_NORM,
              batch_size: int | None = None, epochs: int | None = None,
              lr: float | None = None, optimizer: str | None = None) -> tuple[TrainingSpec, dict]:
    """The resolved spec DP-SGD trains with, and where each of its settings came from
    (``"argument"``, ``"spec"`` or ``"dp default"``): an argument wins; then the spec's
    optimiser, expected batch size and epochs; the spec's learning rate only when the spec
    states one (``spec.lr`` not None) for the optimiser used, else :data:`DP_LR` (SGD's divided
    by ``clip_norm``). InputError naming the argument when a value cannot work."""
    if not isinstance(spec, TrainingSpec):
        raise TypeError("spec must be a TrainingSpec")
    source = {}
    if optimizer is not None and optimizer not in OPTIMIZERS:
        raise InputError(f"Unknown optimizer {given_value(optimizer)} for DP-SGD; choose one of "
                         f"{', '.join(OPTIMIZERS)}.", key="optimizer")
    opt = spec.optimizer if optimizer is None else optimizer
    source["optimizer"] = "spec" if optimizer is None else "argument"
    if lr is not None:
        rate = check_positive(lr, "lr", "DP-SGD's learning rate")
        source["lr"] = "argument"
    elif spec.lr is not None and opt == spec.optimizer:
        rate = float(spec.lr)
        source["lr"] = "spec"
    else:
        rate = DP_LR[opt] / (float(clip_norm) if opt == "sgd" else 1.0)
        source["lr"] = "dp default"
    fill = {"optimizer": opt, "lr": rate}
    for name, value, what in (("batch_size", batch_size, "expected batch size"),
                              ("epochs", epochs, "number of epochs")):
        source[name] = "spec" if value is None else "argument"
        if value is None:
            continue
        ok = isinstance(value, int | float) and not isinstance(value, bool) \
            and float(value).is_integer() and value >= (0 if name == "epochs" else 1)
        if not ok:
            need = "a non-negative" if name == "epochs" else "a positive"
            raise InputError(f"DP-SGD's {what} must be {need} whole number; got {given_value(value)}.",
                             key=name)
        fill[name] = int(value)
    try:
        return replace(spec, **fill).resolved(), source
    except ValueError as exc:
        raise InputError(str(exc), key="spec") from None


def _module(sizes, activation: str, init: list):
    """torch.nn MLP equal to engine.models.mlp's network, starting from ``init`` (the stacked
    initial weights of one model: ``[W_0 (1, in, out), b_0 (1, out), …]``)."""
    import torch
    import torch.nn as nn

    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=False)):
        lin = nn.Linear(a, b)
        with torch.no_grad():
            lin.weight.copy_(init[2 * i][0].T)       # engine.models.mlp keeps W as (in, out)
            lin.bias.copy_(init[2 * i + 1][0])
        layers.append(lin)
        if i < len(sizes) - 2:
            layers.append(nn.Tanh() if activation == "tanh" else nn.ReLU())
    return nn.Sequential(*layers)


def dp_sgd(X, y, n_classes: int, spec: TrainingSpec, *, noise_multiplier: float | None = None,
           target_epsilon: float | None = None, delta: float = DEFAULT_DELTA,
           clip_norm: float = DEFAULT_CLIP_NORM, accountant: str = "rdp", seed: int = 0,
           device: str | None = None, progress: Progress = NO_PROGRESS,
           cancel: CancelToken = NEVER, batch_size: int | None = None,
           epochs: int | None = None, lr: float | None = None,
           optimizer: str | None = None) -> MLPModel:
    """An MLP trained with DP-SGD (module docstring). Give ``noise_multiplier`` σ, or
    ``target_epsilon`` (σ is then the smallest that reaches it at ``delta`` in the epochs
    trained), or both (checked: the accountant's ε at σ must not exceed the target).
    ``batch_size`` (expected Poisson batch), ``epochs``, ``lr`` and ``optimizer`` override the
    recipe of :func:`dp_recipe` (the spec's, with a learning rate for clipped, noised
    gradients when the spec states none). ``details["defence"]["epsilon"]`` is the
    accountant's ε for the steps taken; the returned model's spec records the recipe used."""
    import torch
    import torch.nn.functional as F


    clip_norm = check_positive(clip_norm, "clip_norm", "DP-SGD's clipping norm")
    X, y, _ = check_inputs(X, y, n_classes, spec, "dp_sgd")
    spec, source = dp_recipe(spec, clip_norm=clip_norm, batch_size=batch_size, epochs=epochs,
                             lr=lr, optimizer=optimizer)
    setting = plan(y.size, spec, noise_multiplier=noise_multiplier,
                   target_epsilon=target_epsilon, delta=delta, accountant=accountant)
    sigma = setting["noise_multiplier"]
    clock = Stopwatch()
    dev = torch.device(device or default_device())
    sizes = spec.layer_sizes(X.shape[1], n_classes)
    init = init_parameters(sizes, [int(seed)], "cpu")
    batch = int(min(spec.batch_size, y.size))
    with warnings.catch_warnings(), torch_threads(1 if dev.type == "cpu" else None):
        # Opacus warns that secure_mode is off (reproducible noise is the point here) and about
        # backward hooks on inputs that need no gradient; neither is actionable.
        warnings.simplefilter("ignore")
        from opacus import PrivacyEngine

        module = _module(sizes, spec.activation, init).to(dev)
        kind = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "sgd": torch.optim.SGD}
        kwargs = {"lr": float(spec.lr), "weight_decay": float(spec.weight_decay)}
        if spec.optimizer == "sgd":
            kwargs["momentum"] = float(spec.momentum)
        optimizer = kind[spec.optimizer](module.parameters(), **kwargs)
        data = torch.utils.data.TensorDataset(torch.as_tensor(X), torch.as_tensor(y))
        loader = torch.utils.data.DataLoader(
            data, batch_size=batch, generator=torch_generator(int(seed), "dp-sgd", "sampling"))
        engine = PrivacyEngine(accountant=accountant, secure_mode=False)
        private, optimizer, loader = engine.make_private(
            module=module, optimizer=optimizer, data_loader=loader, noise_multiplier=sigma,
            max_grad_norm=clip_norm, poisson_sampling=True,
            noise_generator=torch_generator(int(seed), "dp-sgd", "noise",
                                            device_name=str(dev)))
        epochs = int(spec.epochs)
        losses, taken = [], 0
        progress(0.0, "Training with DP-SGD")
        for epoch in range(epochs):
            total, count = 0.0, 0
            for xb, yb in loader:
                cancel.check()
                xb, yb = xb.to(dev), yb.to(dev)
                optimizer.zero_grad(set_to_none=True)
                out = private(xb)
                # Sum / batch rather than mean: a Poisson batch can be empty, and the mean of
                # nothing is NaN; the empty step still adds its noise (as the accountant counts).
                loss = F.cross_entropy(out, yb, reduction="sum") / max(int(yb.numel()), 1)
                loss.backward()
                optimizer.step()
                taken += 1
                total += float(loss.detach()) * int(yb.numel())
                count += int(yb.numel())
            losses.append(total / max(count, 1))
            progress((epoch + 1) / max(epochs, 1), f"DP-SGD: epoch {epoch + 1} of {epochs}")
        # Opacus's accountant composes every step taken (its history), so this is the ε of
        # what was run; the plan's ε is the same number when all planned steps ran.
        eps = float(engine.get_epsilon(delta=setting["delta"])) if taken else 0.0
        linears = [m for m in module.modules() if isinstance(m, torch.nn.Linear)]
        params = [(lin.weight.detach().T.contiguous().clone(), lin.bias.detach().clone())
                  for lin in linears]
    final = replace(spec, seed=int(seed), clip_norm=float(clip_norm),
                    noise_multiplier=float(sigma))
    details = {"runtime_s": clock.elapsed(), "device": str(dev), "n_train": int(y.size),
               "history": {"loss": losses},
               "defence": {"name": "dp_sgd", "noise_multiplier": float(sigma),
                           "clip_norm": float(clip_norm), "epsilon": eps,
                           "epsilon_planned": setting["epsilon"], "delta": setting["delta"],
                           "target_epsilon": setting["target_epsilon"],
                           "accountant": accountant, "sample_rate": setting["sample_rate"],
                           "steps": taken, "steps_planned": setting["steps"],
                           "poisson_sampling": True,
                           "recipe": {"optimizer": spec.optimizer, "lr": float(spec.lr),
                                      "batch_size": int(spec.batch_size),
                                      "epochs": int(spec.epochs),
                                      "weight_decay": float(spec.weight_decay),
                                      "source": source},
                           "library": f"opacus {OPACUS_VERSION}",
                           "warning": setting["warning"]}}
    return MLPModel(final, n_classes, params, str(dev), details)
