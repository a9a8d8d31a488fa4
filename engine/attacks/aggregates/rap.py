"""RAP reconstruction baselines of paper 003 (§2.4–2.5, §5.6, §6.3): RAP-rand and RAP-init.

Relaxed Adaptive Projection (Aydore et al., 2021), used by Dick et al. (paper 003's [14]) and by
paper 003 §2.4 as a reconstruction attack: the dataset is relaxed to n' rows whose attributes are
probability vectors, softmax(θ_{i,j}) over the values of column j, and a counting query
q = (V_1, …, V_c) gets the differentiable answer

    q̃(θ) = (1/n') Σ_i Π_{j constrained by q} Σ_{v ∈ V_j} softmax(θ_{i,j})_v,

the product of the relevant attribute probabilities summed over rows. Adam minimises
‖q̃(θ) − â/|D|‖² over the released queries (normalised answers, as in RAP). Paper 003 §2.5
trains K such models "each with a different random seed" and samples one tentative dataset from
each (each row's attributes drawn from its softmax — or its argmax with ``decode="argmax"``).
RAP-rand starts from random logits; RAP-init, "the variant leveraging an auxiliary dataset"
(§2.4), starts each model from n' records drawn from D_aux. The K models are trained together as
one batch of stacked tensors (Adam is element-wise, so they stay independent), on
``engine.runtime.device()``.

Noise (§5.6) needs no special handling: the least-squares fit simply cannot match inconsistent
answers exactly — which is why the paper finds RAP robust to noise.

Attribute inference uses the same neighbourhood vote as CIP (§2.5; re-exported here), and the
membership variant of §6.3 the share of reconstructions holding the target record.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from engine.aggregates.queries import CountingQuery
from engine.attacks.aggregates.cip import (
    AttributeInference,
    Reconstructions,
    attribute_inference,
    membership_scores,
)
from engine.runtime import (
    NEVER,
    NO_PROGRESS,
    CancelToken,
    Progress,
    device,
    torch_generator,
    torch_threads,
)

MODES = ("rand", "init")
DECODES = ("sample", "argmax")
_SMALL_WORK = 2_000_000     # K·n'·m below which CPU training runs on one thread

__all__ = ["AttributeInference", "Reconstructions", "attribute_inference", "membership_scores",
           "reconstruct_rap", "relaxed_answers"]


def _indicators(domain_sizes: Sequence[int], queries: Sequence[CountingQuery]
                ) -> dict[int, np.ndarray]:
    """Per constrained column j, the (d_j, m) 0/1 matrix: value v allowed by query q.
    A query that does not constrain j allows every value (its factor is then 1)."""
    m = len(queries)
    cols = sorted({c for q in queries for c, _ in q.conditions})
    out: dict[int, np.ndarray] = {}
    for j in cols:
        mat = np.ones((int(domain_sizes[j]), m), dtype=np.float32)
        for i, q in enumerate(queries):
            for c, allowed in q.conditions:
                if c == j:
                    mat[:, i] = 0.0
                    idx = [v for v in allowed if 0 <= v < domain_sizes[j]]
                    mat[idx, i] = 1.0
        out[j] = mat
    return out


def relaxed_answers(logits, indicators):
    """(K, m) relaxed answers q̃(θ) (fractions of n') of the stacked logits, a list per column
    of (K, n', d_j) tensors; ``indicators`` maps column → (d_j, m) tensor."""
    import torch

    prod = None
    for j, mat in indicators.items():
        f = torch.softmax(logits[j], dim=-1) @ mat                # (K, n', m)
        prod = f if prod is None else prod * f
    if prod is None:
        raise ValueError("no released query constrains any column")
    return prod.mean(dim=1)


def reconstruct_rap(domain_sizes: Sequence[int], queries: Sequence[CountingQuery], released,
                    n_records: int, *, k: int = 100, mode: str = "rand", auxiliary=None,
                    n_rows: int | None = None, epochs: int = 1500, lr: float = 0.05,
                    init_strength: float = 2.0, decode: str = "sample", seed: int = 0,
                    tol: float = 1e-9, device_name: str | None = None, check_every: int = 50,
                    progress: Progress = NO_PROGRESS,
                    cancel: CancelToken = NEVER) -> Reconstructions:
    """K RAP reconstructions trained as one batch (paper 003 §2.5, "RAP-rand" / "RAP-init").

    ``n_rows`` = n' relaxed rows per model (default |D| = ``n_records``), so each tentative
    dataset has n' records. ``mode="init"`` needs ``auxiliary`` codes: each row starts at the
    one-hot of a random auxiliary record scaled by ``init_strength`` (logit gap), plus small
    noise. ``progress`` is reported, ``cancel`` checked and training stopped early once every
    model's squared error is at most ``tol`` every ``check_every`` epochs. Small CPU problems
    train on one torch thread (restored afterwards).
    Deterministic per ``seed`` on a given device. ``details["loss"]``: the final squared error
    of each model; ``details["loss_curve"]``: the mean loss at each checkpoint.
    """
    import torch

    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if decode not in DECODES:
        raise ValueError(f"decode must be one of {DECODES}, got {decode!r}")
    if int(k) < 1 or int(epochs) < 0:
        raise ValueError("k must be at least 1 and epochs non-negative")
    start = time.perf_counter()
    sizes = tuple(int(s) for s in domain_sizes)
    kk = int(k)
    rows = int(n_rows if n_rows is not None else n_records)
    dev = torch.device(device_name or device())
    queries = list(queries)
    target = torch.as_tensor(np.asarray(released, dtype=np.float64) / max(int(n_records), 1),
                             dtype=torch.float32, device=dev)
    ind = {j: torch.as_tensor(m, device=dev) for j, m in _indicators(sizes, queries).items()}

    gen = torch_generator(seed, "rap", mode)
    if mode == "init":
        if auxiliary is None or len(auxiliary) == 0:
            raise ValueError("RAP-init needs auxiliary records to initialise from")
        aux = torch.as_tensor(np.asarray(auxiliary, dtype=np.int64))
        pick = torch.randint(0, aux.shape[0], (kk, rows), generator=gen)
        start_rows = aux[pick]                                     # (K, n', c)
    logits = []
    for j, d in enumerate(sizes):
        if mode == "init":
            base = torch.nn.functional.one_hot(start_rows[:, :, j], d).float() * init_strength
            base = base + 0.1 * torch.randn((kk, rows, d), generator=gen)
        else:
            base = torch.randn((kk, rows, d), generator=gen)
        logits.append(base.to(dev).requires_grad_(j in ind))
    params = [logits[j] for j in ind]
    opt = torch.optim.Adam(params, lr=float(lr))
    curve: list[float] = []
    step = max(1, int(check_every))
    small = dev.type == "cpu" and kk * rows * max(len(queries), 1) < _SMALL_WORK
    # Tiny tensors: thread hand-offs cost more than they save (engine.runtime.torch_threads).
    with torch_threads(1 if small else None):
        for epoch in range(int(epochs)):
            opt.zero_grad(set_to_none=True)
            err = ((relaxed_answers(logits, ind) - target) ** 2).sum(dim=1)   # (K,)
            err.sum().backward()
            opt.step()
            if (epoch + 1) % step == 0 or epoch + 1 == int(epochs):
                curve.append(float(err.detach().mean()))
                cancel.check()
                progress((epoch + 1) / max(int(epochs), 1),
                         f"RAP-{mode}: epoch {epoch + 1} of {epochs}")
                if float(err.detach().max()) <= tol:
                    break
    cancel.check()
    with torch.no_grad():
        per_model = ((relaxed_answers(logits, ind) - target) ** 2).sum(dim=1).cpu()
        cols = []
        for j, d in enumerate(sizes):
            probs = torch.softmax(logits[j].detach(), dim=-1).cpu().reshape(kk * rows, d)
            if decode == "argmax":
                cols.append(probs.argmax(dim=1))
            else:
                cols.append(torch.multinomial(probs.double(), 1, generator=gen).reshape(-1))
        records = torch.stack(cols, dim=1).reshape(kk, rows, len(sizes)).numpy()
    progress(1.0, f"RAP-{mode}: done")
    return Reconstructions(records.astype(np.int32), f"rap-{mode}", time.perf_counter() - start,
                           {"loss": per_model.numpy().astype(float), "loss_curve": curve,
                            "device": str(dev), "epochs": int(epochs)})
