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

Above the sampling, the game of one target (:func:`build_scenario`: shadow and test releases)
and the attacks played on it (:func:`run_attacks`, :func:`play_main`), moved here from the
audit (issue 33 item 2); the set-up is engine.games.location_setup, the replays and the
observation sweep engine.games.location_repeats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.attacks.location import ATTACKS as LOCATION_ATTACKS
from engine.attacks.location.base import AggregateSet, AttackData
from engine.auditing import evaluate_attack
from engine.data.errors import InputError
from engine.data.traces import Release
from engine.games.location_setup import LocationGame, LocationGameSettings, sampling_device
from engine.mechanisms.sampling import sample_noise
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng, torch_generator

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


# --------------------------------------------------------------------------- one target

@dataclass(frozen=True)
class Scenario:
    """Everything the attacks of one target need."""

    target_row: int
    k: int                            # the target's positive observations after clipping
    k_epochs: int                     # distinct epochs among them (what DP composes over)
    data: AttackData
    large_shadow: object | None       # AggregateSet for the large MLP, if requested


def build_scenario(config: LocationGameSettings, traces, clipped: sp.csr_matrix, target_row: int,
                   release_rows: np.ndarray, aux_rows: np.ndarray, scale: float | None,
                   g_seed: tuple, *, n_test: int, with_reference: bool, with_large: bool,
                   progress: Progress, cancel: CancelToken,
                   published: Release | None = None,
                   sampling_device: str = "numpy") -> Scenario:
    """Shadow and test aggregates for one target.

    ``published``: a published release (engine.data.traces.Release); a count it left empty
    that the attacks read stops the run with one sentence. Then nobody is known to be
    released (``release_rows`` is empty): the test aggregates are the attacker's own validation
    draws from its auxiliary pool, and the published release's read cells are appended as the
    last test row (label False, a placeholder: :func:`split_published` takes it off)."""
    z_row = clipped[target_row]
    target_cells = z_row.indices.astype(np.int64)
    k = int(target_cells.size)
    if k == 0:
        raise InputError("The target person has no observations after clipping; choose "
                         "another target.", key="target_id")
    epochs = np.unique(target_cells // traces.n_sites)
    ref_vector = None
    cells = target_cells
    if with_reference:
        g_ref = rng(config.seed, "reference-traces", *g_seed)
        n_ref = min(config.reference_traces, aux_rows.size)
        refs = g_ref.choice(aux_rows, size=n_ref, replace=False)
        ref_mean = np.asarray(clipped[refs].mean(axis=0)).ravel()
        extra = np.setdiff1d(np.flatnonzero(ref_mean), target_cells)
        cells = np.r_[target_cells, extra]
        ref_vector = ref_mean[cells].astype(np.float32)
    if published is not None:
        # An empty released count is unknown, never scored as 0: stop before any shadow
        # release is drawn if an attack reads one.
        published.require(cells)
    z = np.zeros(cells.size, dtype=np.float32)
    z[:k] = 1.0
    on_cells = clipped[:, cells]
    aux_pool = CellPool.from_rows(on_cells[aux_rows])
    release_pool = aux_pool if published is not None else CellPool.from_rows(on_cells[release_rows])
    unknown = config.unknown_size()
    mech = config.mechanism
    sc = scale if scale is not None else 1.0
    shadow = play(z, aux_pool, unknown, config.shadow_aggregates, mech, sc,
                  rng(config.seed, "shadow", *g_seed), keep_unknown=True, device=sampling_device,
                  progress=progress.span(0.0, 0.2), cancel=cancel)
    large = None
    if with_large and config.large_shadow_aggregates:
        large = play(z, aux_pool, unknown, config.large_shadow_aggregates, mech, sc,
                     rng(config.seed, "shadow-large", *g_seed), device=sampling_device,
                     progress=progress.span(0.2, 0.6),
                     cancel=cancel)
    test = play(z, release_pool, unknown, n_test, mech, sc, rng(config.seed, "test", *g_seed),
                device=sampling_device, progress=progress.span(0.6, 1.0), cancel=cancel)
    if published is not None:
        row = np.asarray(published.values, dtype=np.float32).ravel()[cells][None, :]
        test = AggregateSet(x=np.vstack([test.x, row]), labels=np.r_[test.labels, False],
                            unknown=None)
    data = AttackData(k=k, target=z, shadow=shadow, test=test, mechanism=mech, scale=sc,
                      reference=ref_vector)
    return Scenario(target_row, k, int(epochs.size), data, large)


def split_published(outcomes, scenario: Scenario):
    """Take the published release's score (last test row) off every outcome.

    Returns (outcomes on the validation aggregates, test labels, {name: release verdict})."""
    labels = scenario.data.test.labels[:-1]
    verdicts = {}
    for o in outcomes:
        score = float(o.scores[-1])
        o.keep(slice(None, -1))
        absent = o.scores[~labels]
        present = o.scores[labels]
        verdicts[o.name] = {
            "label": o.label, "score": score, "threshold": float(o.threshold),
            "says_present": bool(score >= o.threshold),
            # How often a simulated release *without* the target scores at least this high:
            # the false-accusation rate of flagging this release (a p-value).
            "share_absent_at_least": float(np.mean(absent >= score)),
            "share_present_at_least": float(np.mean(present >= score)),
        }
    return outcomes, labels, verdicts


def run_attacks(config: LocationGameSettings, scenario: Scenario, names, dev: str, *,
                progress: Progress, cancel: CancelToken):
    """AttackOutcome per requested attack name, in the config's order; each from its entry of
    the table engine.attacks.location.ATTACKS."""
    data = scenario.data
    outs = []
    for i, name in enumerate(names):
        cancel.check()
        sub = progress.span(i / len(names), (i + 1) / len(names))
        # The config's check admits only names of the table; the loop skipped others before
        # the table too.
        if name in LOCATION_ATTACKS:
            outs += LOCATION_ATTACKS[name](data, config, large_shadow=scenario.large_shadow,
                                           device=dev, progress=sub, cancel=cancel)
        sub(1.0, "")
    return outs


def play_main(config: LocationGameSettings, game: LocationGame, *, progress: Progress,
              cancel: CancelToken) -> tuple[Scenario, list[dict], np.ndarray, dict | None]:
    """The main target's game: every attack of the settings on its shadow and test releases,
    each measured by the shared metric layer (engine.auditing.evaluate_attack) at its own
    threshold; ``progress`` is the whole run's (this reports 10–75 %).

    Returns (the scenario, the attack entries, the test labels, and {attack: its verdict on the
    published release} when one is attacked, else None)."""
    progress(0.10, "Building shadow and test aggregates")
    scenario = build_scenario(config, game.traces, game.clipped, game.target_row,
                              game.release_rows, game.aux_rows, game.scale, ("main",),
                              n_test=config.test_aggregates,
                              with_reference="reference" in config.attacks,
                              with_large=any(a.startswith("meta") for a in config.attacks),
                              progress=progress.span(0.10, 0.45), cancel=cancel,
                              published=game.published,
                              sampling_device=sampling_device(game.dev))
    outcomes = run_attacks(config, scenario, config.attacks, game.dev,
                           progress=progress.span(0.45, 0.75), cancel=cancel)
    test_labels = scenario.data.test.labels
    release_verdicts = None
    if game.published is not None:
        outcomes, test_labels, release_verdicts = split_published(outcomes, scenario)
    attacks = []
    for o in outcomes:
        cancel.check()
        attacks.append(evaluate_attack(o.name, o.label, o.scores, test_labels,
                                       delta=config.delta, confidence=config.confidence,
                                       fpr_targets=config.measured_fpr_targets(),
                                       details=o.details, accuracy_threshold=o.threshold,
                                       cancel=cancel))
    return scenario, attacks, test_labels, release_verdicts
