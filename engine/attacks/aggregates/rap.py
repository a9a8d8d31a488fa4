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

Speed. q̃(θ) is evaluated through each column's distinct allowed-value sets and one batched
matrix product over the distinct combinations of the other columns' sets
(:class:`RelaxedPlan`: the same values and gradients as the plain product), and Adam runs
fused: on a 150-record block with the full P-tables, K = 5 and 1,500 epochs take 1.7–2.0 s
instead of 7–8 s on 2 CPU cores; 450 records, 112 queries, K = 10: 9 s instead of 21 s.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

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
    deterministic_on_cuda,
    device,
    torch_generator,
    torch_threads,
)

MODES = ("rand", "init")
DECODES = ("sample", "argmax")
EPOCHS = 1500               # Adam epochs of a reconstruction (engine.estimates.aggregates reads it)
_SMALL_WORK = 2_000_000     # K·n'·m below which CPU training runs on one thread

__all__ = ["AttributeInference", "Reconstructions", "attribute_inference", "membership_scores",
           "RelaxedPlan", "reconstruct_rap", "reconstruct_rap_many", "relaxed_answers"]


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


def _compressed(indicators: dict[int, np.ndarray]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per column, the distinct columns U_j (d_j, u_j) of its indicator matrix and the index
    (m,) of each query's column in U_j. Queries of one table share few allowed-value sets (the
    116 ages of the census P-tables fall into 23 bins, and every query that does not constrain
    the column allows all of it). Columns whose every query allows every value (a factor 1
    throughout) are dropped (all but one if no other column is left)."""
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    trivial = {j for j, mat in indicators.items() if bool(np.all(mat == 1.0))}
    if trivial and len(trivial) == len(indicators):
        trivial.discard(min(trivial))        # keep one column: every answer is then 1
    for j, mat in indicators.items():
        if j in trivial:
            continue
        unique, index = np.unique(mat.T, axis=0, return_inverse=True)
        out[j] = (np.ascontiguousarray(unique.T, dtype=np.float32),
                  np.asarray(index, dtype=np.int64).reshape(-1))
    return out


_BMM_BLOWUP = 8      # the last factor goes through one batched matmul while P·u_last ≤ 8·m


@dataclass
class RelaxedPlan:
    """How :func:`relaxed_answers` evaluates q̃(θ) without the (K, n', m) tensor per column.

    With a_j = softmax(θ_j) @ U_j (K, n', u_j) the per-row factor of each distinct allowed set,
    the columns are taken in order (fewest distinct sets first). ``steps`` build the products
    over the distinct *prefixes* — the combinations of the first columns' sets that some query
    uses, as a (K, P, n') tensor: for the first column the sets used, then for each next
    column (index of the parent prefix, set of this column). The last column is contracted
    with the prefixes by one batched matrix product (K, P, n') @ (K, n', u_last) / n', and
    ``flat`` picks each query's (prefix, set) entry. On the census P-tables (150 records,
    368 queries, K = 5): 16 prefixes × 23 age bins, 1.4 ms an epoch (forward and backward)
    against 7–11 ms for the full (d_j, m) products — the same numbers to float rounding.
    If P·u_last would exceed 8·m (queries with unrelated allowed sets), the last column is
    gathered and multiplied like the others (``flat`` then indexes the final prefixes).
    """

    columns: list[int]
    unique: list            # per column, (d_j, u_j) tensors
    steps: list             # per column but the last (all of them when not bmm): (parent, set)
    flat: object            # (m,) index tensor
    bmm: bool

    @classmethod
    def build(cls, indicators: dict[int, np.ndarray], device=None) -> RelaxedPlan:
        import torch

        comp = _compressed(indicators)
        if not comp:
            raise ValueError("no released query constrains any column")
        cols = sorted(comp, key=lambda j: (comp[j][0].shape[1], j))
        idx = np.stack([comp[j][1] for j in cols], axis=1)                    # (m, L)
        m, n_cols = idx.shape

        def prefixes(upto: int):
            """Distinct prefixes idx[:, :upto], each query's one, and each prefix's first
            query."""
            _, first, inv = np.unique(idx[:, :upto], axis=0, return_index=True,
                                      return_inverse=True)
            return first, np.asarray(inv).reshape(-1)

        n_pre = n_cols - 1
        bmm = False
        if n_cols >= 2:
            first, inv = prefixes(n_pre)
            bmm = first.size * comp[cols[-1]][0].shape[1] <= _BMM_BLOWUP * m
        if not bmm:
            n_pre = n_cols
        steps = []
        inv_prev = None
        for c in range(n_pre):
            first, inv = prefixes(c + 1)
            parent = None if c == 0 else torch.as_tensor(inv_prev[first], device=device)
            steps.append((parent, torch.as_tensor(idx[first, c], device=device)))
            inv_prev = inv
        if bmm:
            flat = inv_prev * comp[cols[-1]][0].shape[1] + idx[:, -1]
        else:
            flat = inv_prev
        unique = [torch.as_tensor(comp[j][0], device=device) for j in cols]
        return cls(cols, unique, steps, torch.as_tensor(flat, device=device), bmm)

    def answers(self, logits):
        import torch

        cur = None
        for c, (parent, values) in enumerate(self.steps):
            a = (torch.softmax(logits[self.columns[c]], dim=-1) @ self.unique[c])
            a = a.transpose(1, 2).index_select(1, values)                   # (K, P_c, n')
            cur = a if parent is None else cur.index_select(1, parent) * a
        if self.bmm:
            last = torch.softmax(logits[self.columns[-1]], dim=-1) @ self.unique[-1]
            joint = torch.bmm(cur, last) / last.shape[1]                    # (K, P, u_last)
            return joint.reshape(joint.shape[0], -1).index_select(1, self.flat)
        return cur.mean(dim=2).index_select(1, self.flat)


def relaxed_answers(logits, indicators):
    """(K, m) relaxed answers q̃(θ) (fractions of n') of the stacked logits, a list per column
    of (K, n', d_j) tensors; ``indicators`` maps column → (d_j, m) tensor (the plain product),
    or is a :class:`RelaxedPlan` (what :func:`reconstruct_rap` uses; the same values)."""
    import torch

    if isinstance(indicators, RelaxedPlan):
        return indicators.answers(logits)
    prod = None
    for j, mat in indicators.items():
        f = torch.softmax(logits[j], dim=-1) @ mat                # (K, n', m)
        prod = f if prod is None else prod * f
    if prod is None:
        raise ValueError("no released query constrains any column")
    return prod.mean(dim=1)


def reconstruct_rap(domain_sizes: Sequence[int], queries: Sequence[CountingQuery], released,
                    n_records: int, *, k: int = 100, mode: str = "rand", auxiliary=None,
                    n_rows: int | None = None, epochs: int = EPOCHS, lr: float = 0.05,
                    init_strength: float = 2.0, decode: str = "sample", seed: int = 0,
                    tol: float = 1e-9, device_name: str | None = None, check_every: int = 50,
                    progress: Progress = NO_PROGRESS,
                    cancel: CancelToken = NEVER) -> Reconstructions:
    """K RAP reconstructions trained as one batch (paper 003 §2.5, "RAP-rand" / "RAP-init").

    ``n_rows`` = n' relaxed rows per model (default |D| = ``n_records``), so each tentative
    dataset has n' records. ``mode="init"`` needs ``auxiliary`` codes: each row starts at the
    one-hot of a random auxiliary record scaled by ``init_strength`` (logit gap), plus small
    noise. ``cancel`` is checked every epoch; ``progress`` is reported and training stopped
    early once every model's squared error is at most ``tol`` every ``check_every`` epochs. Small CPU problems
    train on one torch thread (restored afterwards).
    Deterministic per ``seed`` on a given device. ``details["loss"]``: the final squared error
    of each model; ``details["loss_curve"]``: the mean loss at each checkpoint.
    """
    return reconstruct_rap_many(
        domain_sizes, queries, np.asarray(released, dtype=np.float64)[None, :], n_records,
        seeds=[seed], k=k, mode=mode, auxiliary=auxiliary, n_rows=n_rows, epochs=epochs, lr=lr,
        init_strength=init_strength, decode=decode, tol=tol, device_name=device_name,
        check_every=check_every, progress=progress, cancel=cancel)[0]


def reconstruct_rap_many(domain_sizes: Sequence[int], queries: Sequence[CountingQuery],
                         released, n_records: int, *, seeds: Sequence[int], k: int = 100,
                         mode: str = "rand", auxiliary=None, n_rows: int | None = None,
                         epochs: int = EPOCHS, lr: float = 0.05, init_strength: float = 2.0,
                         decode: str = "sample", tol: float = 1e-9,
                         device_name: str | None = None, check_every: int = 50,
                         progress: Progress = NO_PROGRESS,
                         cancel: CancelToken = NEVER) -> list[Reconstructions]:
    """:func:`reconstruct_rap` for T releases of the same queries at once: ``released`` is
    (T, m), ``seeds`` one per release; the T·K models are trained as one stack of tensors.

    Each release's models are exactly the models :func:`reconstruct_rap` trains alone with its
    seed: their starts come from that seed's own generator, Adam is element-wise and each
    model's error reads only its own logits, so stacking changes nothing but how many models
    one kernel launch carries; a release whose K models all reach ``tol`` at a checkpoint is
    kept as it was then (as the lone run would have stopped), and training ends when every
    release has. On a GPU an epoch of small models costs the kernel launches, not the
    arithmetic, so T releases train in about the time of one (the count-table game batches
    its targets' RAP reconstructions there: engine.games.aggregates); on a CPU the work grows
    with T and nothing is gained.
    """
    import torch

    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if decode not in DECODES:
        raise ValueError(f"decode must be one of {DECODES}, got {decode!r}")
    if int(k) < 1 or int(epochs) < 0:
        raise ValueError("k must be at least 1 and epochs non-negative")
    released = np.asarray(released, dtype=np.float64)
    if released.ndim != 2 or released.shape[0] != len(seeds) or released.shape[0] < 1:
        raise ValueError("released must be (T, m) with T ≥ 1 and one seed per release")
    start = time.perf_counter()
    sizes = tuple(int(s) for s in domain_sizes)
    kk, tt = int(k), released.shape[0]
    rows = int(n_rows if n_rows is not None else n_records)
    dev = torch.device(device_name or device())
    queries = list(queries)
    target = torch.as_tensor(released / max(int(n_records), 1), dtype=torch.float32,
                             device=dev)
    if tt > 1:
        target = target.repeat_interleave(kk, dim=0)                  # (T·K, m)
    else:
        target = target[0]                                             # (m,): as it always was
    plan = RelaxedPlan.build(_indicators(sizes, queries), device=dev)

    gens = [torch_generator(int(sd), "rap", mode) for sd in seeds]
    if mode == "init":
        if auxiliary is None or len(auxiliary) == 0:
            raise ValueError("RAP-init needs auxiliary records to initialise from")
        aux = torch.as_tensor(np.asarray(auxiliary, dtype=np.int64))
        start_rows = [aux[torch.randint(0, aux.shape[0], (kk, rows), generator=g)]
                      for g in gens]                                   # each (K, n', c)
    per_release: list[list] = []
    for t, gen in enumerate(gens):
        own = []
        for j, d in enumerate(sizes):
            if mode == "init":
                base = torch.nn.functional.one_hot(start_rows[t][:, :, j], d).float() \
                    * init_strength
                base = base + 0.1 * torch.randn((kk, rows, d), generator=gen)
            else:
                base = torch.randn((kk, rows, d), generator=gen)
            own.append(base)
        per_release.append(own)
    logits = []
    for j in range(len(sizes)):
        stacked = torch.cat([own[j] for own in per_release]) if tt > 1 else per_release[0][j]
        logits.append(stacked.to(dev).requires_grad_(j in plan.columns))
    params = [logits[j] for j in plan.columns]
    opt = torch.optim.Adam(params, lr=float(lr), fused=dev.type in ("cpu", "cuda"))
    curves: list[list[float]] = [[] for _ in range(tt)]
    kept: list[list | None] = [None] * tt        # a release's logits when it reached tol
    step = max(1, int(check_every))
    small = dev.type == "cpu" and tt * kk * rows * max(len(queries), 1) < _SMALL_WORK
    # Tiny tensors: thread hand-offs cost more than they save (engine.runtime.torch_threads).
    # deterministic_on_cuda: the relaxed answers' index_select has a backward pass that sums
    # with atomic additions on a GPU; without it the same seed gives other reconstructions.
    with torch_threads(1 if small else None), deterministic_on_cuda(dev):
        for epoch in range(int(epochs)):
            cancel.check()                  # K = 100 reconstructions: ~1 s an epoch on a CPU
            opt.zero_grad(set_to_none=True)
            err = ((relaxed_answers(logits, plan) - target) ** 2).sum(dim=1)   # (T·K,)
            err.sum().backward()
            opt.step()
            if (epoch + 1) % step == 0 or epoch + 1 == int(epochs):
                per = err.detach().reshape(tt, kk)
                means, worst = per.mean(dim=1).tolist(), per.max(dim=1).values.tolist()
                for t in range(tt):
                    if kept[t] is None:
                        curves[t].append(float(means[t]))
                        if worst[t] <= tol:
                            kept[t] = [x.detach()[t * kk:(t + 1) * kk].clone()
                                       for x in logits]
                cancel.check()
                progress((epoch + 1) / max(int(epochs), 1),
                         f"Rebuilding an approximate table: step {epoch + 1} of {epochs}")
                if all(x is not None for x in kept):
                    break
    cancel.check()
    out = []
    with torch.no_grad():
        for t, gen in enumerate(gens):
            own = kept[t] or [x.detach()[t * kk:(t + 1) * kk] for x in logits]
            answers = relaxed_answers(own, plan)
            goal = target if tt == 1 else target[t * kk:(t + 1) * kk]
            per_model = ((answers - goal) ** 2).sum(dim=1).cpu()
            cols = []
            for j, d in enumerate(sizes):
                probs = torch.softmax(own[j], dim=-1).cpu().reshape(kk * rows, d)
                if decode == "argmax":
                    cols.append(probs.argmax(dim=1))
                else:
                    cols.append(torch.multinomial(probs.double(), 1, generator=gen).reshape(-1))
            records = torch.stack(cols, dim=1).reshape(kk, rows, len(sizes)).numpy()
            out.append(Reconstructions(
                records.astype(np.int32), f"rap-{mode}", time.perf_counter() - start,
                {"loss": per_model.numpy().astype(float), "loss_curve": curves[t],
                 "device": str(dev), "epochs": int(epochs), "released_together": tt}))
    progress(1.0, "Rebuilding an approximate table: done")
    return out
