"""The membership game against location aggregates (paper 000, Def. 3 and Alg. 1), played on
the cells that carry signal only.

A release is the per-cell count of people per site and epoch, plus DP noise in every cell. The
attacker asks whether the target's (clipped) trace z was in the aggregate. Whatever the attack,
it only looks at a few cells: the target's positive observations (every attack) and, for the
reference attack, the cells of its reference traces. Cells the attacker does not read cannot
change any score, so we never build a full sites × epochs aggregate: an aggregate is the
(count, m) matrix of the m cells read, which keeps the paper's 200,000 shadow aggregates of
96 × 800 cells at a few hundred MB instead of 60 GB.

What the attacker knows (paper 000 §2.3.1) is one number here, ``unknown_size``: how many of the
other n people in the aggregate it does *not* know. It subtracts the known people's counts, so
what it works with in each read cell is

    x = (count of the unknown others) + noise + b · z        (b = 1 for a member)

* informed attacker (θ = 1, the threat model of DP): unknown_size = 0, x = noise + b·z;
* partial knowledge θ: unknown_size = round((1 − θ)·n);
* auxiliary attacker (θ = 0): unknown_size = n; it knows nothing of the released people but
  has traces of a disjoint auxiliary population from the same distribution.

Test aggregates draw their unknown others from the *release pool*; the attacker's shadow
aggregates draw theirs from its *auxiliary pool*, exactly like the paper's Alg. 1 lines 1–8:
balanced, target added to half, same mechanism. Both pools exclude the target.

Sampling n distinct people out of P for every aggregate would cost O(count × P). Only the
people with at least one visit among the m read cells ("active" people, A of them) change the
read counts, so we draw how many active people a uniform n-subset contains — Hypergeometric(P,
A, n), exactly — and then that many distinct active people uniformly (top-h of random keys).
The sums are sparse matrix products, in batches so memory stays bounded and cancel responds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.mechanisms.sampling import sample_noise
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, torch_generator

BATCH_CELLS = 1 << 22          # keys drawn per batch (batch × active people) ≈ 32 MB of float64
NOISE_BATCH_VALUES = 1 << 18   # noise values drawn between two cancel checks
MAX_NOISE_ROWS = 65536


def noise_rows(cells: int) -> int:
    """Aggregates noised at once on ``cells`` released cells (:func:`play`'s row batches;
    engine.estimates.location sizes its memory from the same rule)."""
    return max(1, min(MAX_NOISE_ROWS, NOISE_BATCH_VALUES // max(1, int(cells))))


@dataclass(frozen=True)
class CellPool:
    """People whose traces may fill the unknown part of an aggregate, on the read cells only.

    ``active`` holds the rows of people with at least one visit among the read cells (A × m,
    0/1); ``size`` counts everybody in the pool (P ≥ A), active or not.
    """

    active: sp.csr_matrix      # (A, m) uint8
    size: int                  # P

    @classmethod
    def from_rows(cls, rows_on_cells: sp.csr_matrix) -> CellPool:
        rows_on_cells = sp.csr_matrix(rows_on_cells)
        keep = np.flatnonzero(rows_on_cells.getnnz(axis=1) > 0)
        return cls(active=rows_on_cells[keep].astype(np.float32), size=rows_on_cells.shape[0])

    @property
    def n_active(self) -> int:
        return self.active.shape[0]


def unknown_counts(pool: CellPool, unknown_size: int, count: int, rng: np.random.Generator, *,
                   device: str = "numpy", progress: Progress = NO_PROGRESS,
                   cancel: CancelToken = NEVER) -> np.ndarray:
    """(count, m) float32: per aggregate, the read cells' counts of ``unknown_size`` people
    drawn uniformly without replacement from ``pool`` (a fresh draw for every aggregate).

    ``device``: "numpy" (sparse products on the CPU) or a torch device ("cuda:0", "cpu"):
    the same law, drawn with torch (a different random stream, so other numbers; a GPU's
    generator is another stream again, so a GPU run differs from a CPU run, and repeats
    itself on the same GPU)."""
    m = pool.active.shape[1]
    out = np.zeros((count, m), dtype=np.float32)
    if unknown_size <= 0 or pool.n_active == 0 or count == 0:
        return out
    if unknown_size > pool.size:
        raise ValueError(f"cannot draw {unknown_size} people from a pool of {pool.size}")
    a = pool.n_active
    # How many of a uniform n-subset of the P pool members are active: exactly hypergeometric.
    h = rng.hypergeometric(a, pool.size - a, unknown_size, size=count)
    if device != "numpy":
        return _unknown_counts_torch(pool, h, rng, device, out, progress, cancel)
    batch = max(1, min(count, BATCH_CELLS // max(a, 1)))
    done = 0
    while done < count:
        cancel.check()
        hb = h[done: done + batch]
        b = hb.size
        h_max = int(hb.max())
        if h_max > 0:
            # h distinct active people uniformly: the h largest of i.i.d. uniform keys.
            keys = rng.random((b, a))
            top = np.argpartition(keys, a - h_max, axis=1)[:, a - h_max:] if h_max < a \
                else np.broadcast_to(np.arange(a), (b, a))
            top_keys = np.take_along_axis(keys, top, axis=1)
            order = np.argsort(-top_keys, axis=1)
            chosen = np.take_along_axis(top, order, axis=1)       # (b, h_max), best keys first
            take = np.arange(h_max)[None, :] < hb[:, None]
            rows = np.repeat(np.arange(b), hb)
            selection = sp.csr_matrix((np.ones(rows.size, dtype=np.float32),
                                       (rows, chosen[take])), shape=(b, a))
            out[done: done + b] = (selection @ pool.active).toarray()
        done += b
        progress(done / count, f"Sampling aggregates: {done:,} of {count:,}")
    return out


def _unknown_counts_torch(pool: CellPool, h: np.ndarray, rng: np.random.Generator, device: str,
                          out: np.ndarray, progress: Progress, cancel: CancelToken) -> np.ndarray:
    """The same draw on a torch device: top-h of uniform keys per aggregate (torch.topk), then
    a 0/1 selection matrix times the dense (active people × cells) matrix — one matmul per
    batch, which a GPU does at memory speed."""
    import torch

    dev = torch.device(device)
    a = pool.n_active
    # The generator must sit on the very device the keys are drawn on: "cuda:1", not "cuda"
    # (which torch reads as the current GPU, and then refuses to draw for cuda:1).
    gen = torch_generator(int(rng.integers(0, 2**62)), "aggregates", device_name=str(dev))
    active = torch.from_numpy(pool.active.toarray()).to(dev)
    h_t = torch.from_numpy(h).to(dev)
    count = h.size
    batch = max(1, min(count, BATCH_CELLS // max(a, 1)))
    for start in range(0, count, batch):
        cancel.check()
        hb = h_t[start: start + batch]
        h_max = int(hb.max())
        if h_max > 0:
            keys = torch.rand((hb.numel(), a), generator=gen, device=dev)
            top = torch.topk(keys, h_max, dim=1).indices               # sorted, best first
            take = torch.arange(h_max, device=dev)[None, :] < hb[:, None]
            selection = torch.zeros((hb.numel(), a), device=dev)
            selection.scatter_(1, top, take.float())
            out[start: start + hb.numel()] = (selection @ active).cpu().numpy()
        progress(min(count, start + batch) / count,
                 f"Sampling aggregates: {min(count, start + batch):,} of {count:,}")
    return out


@dataclass(frozen=True)
class AggregateSet:
    """Labelled aggregates on the read cells: what the attacker computes its scores from."""

    x: np.ndarray              # (count, m) float32: read cells minus what the attacker knows
    labels: np.ndarray         # (count,) bool: True = target in the aggregate
    unknown: np.ndarray | None  # (count, m) counts of the unknown others (before noise and
    #                            target), kept for the shadow set so attacks can learn its law


def play(target_on_cells: np.ndarray, pool: CellPool, unknown_size: int, count: int,
         mechanism: str, scale: float, rng: np.random.Generator, *, keep_unknown: bool = False,
         device: str = "numpy", progress: Progress = NO_PROGRESS,
         cancel: CancelToken = NEVER) -> AggregateSet:
    """``count`` aggregates with the target added to a random half (balanced, Alg. 1 l. 4–5).

    ``target_on_cells`` is the target's clipped trace on the m read cells (0/1); ``mechanism``
    is one of the foundation's noise mechanisms or ``"none"`` (no DP noise).
    """
    z = np.asarray(target_on_cells, dtype=np.float32)
    labels = np.zeros(count, dtype=bool)
    labels[rng.permutation(count)[: count // 2]] = True
    counts = unknown_counts(pool, unknown_size, count, rng, device=device,
                            progress=progress.span(0.0, 0.9), cancel=cancel)
    cancel.check()
    x = counts.copy() if keep_unknown else counts
    # In row batches (bounded temporaries), with a cancel check every NOISE_BATCH_VALUES
    # values: 200,000 aggregates on hundreds of cells are seconds of noise (minutes for the
    # exact discrete samplers). Laplace and Gaussian draws do not depend on the batch size.
    rows = noise_rows(z.size)
    for start in range(0, count, rows):
        cancel.check()
        stop = min(count, start + rows)
        x[start:stop] += labels[start:stop, None] * z[None, :]
        if mechanism != "none":
            x[start:stop] += sample_noise(mechanism, scale, (stop - start, z.size),
                                          rng).astype(np.float32)
    progress(1.0, "Aggregates ready")
    return AggregateSet(x=x, labels=labels, unknown=counts if keep_unknown else None)
