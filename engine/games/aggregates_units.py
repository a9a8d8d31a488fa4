"""The count-table game's units of engine.compute (issue 22 item 6; moved out of
engine/games/aggregates.py, issue 33 item 2): each target's reconstructions (CIP, RAP), its
stochastic-module scores and its deterministic proof, each seeded by the target's index so it
gives the same numbers in this process or on a Ray cluster.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from engine.aggregates.queries import Domain
from engine.aggregates.release import ReleaseSpec, noisy_answers
from engine.attacks.aggregates import (
    RECONSTRUCTIONS,
    FromReconstructions,
    GameView,
)
from engine.attacks.aggregates import desia_deterministic as dd
from engine.attacks.aggregates.desia_stochastic import (
    membership_score_many_targets,
    score_many_targets,
)
from engine.compute import Executor
from engine.runtime import CancelToken, Progress, device
from engine.wording import plain_name

# What runs as a unit of engine.compute here (issue 22 item 6; docs/methods/scale.md): each
# target's deterministic proofs (:func:`prove_target`, :func:`prove_membership`), its
# stochastic module — every seeded chunk of its shadow datasets and its classifier
# (:func:`stochastic_target`) — and its reconstructions (:func:`reconstruct_target`; on a GPU
# up to 64 targets' RAP reconstructions train as one unit, :func:`reconstruct_targets`), in
# both games and in the combination's shadow game; the count-tables audit's sweep points are
# units of engine.audits.aggregates.



def shadow_noise(spec: ReleaseSpec, sensitivity: float):
    """The release's noise, for the stochastic module's shadow answers (§5.6: the attacker
    knows the mechanism and trains on releases noised the same way); None without noise."""
    if spec.mechanism == "none":
        return None

    def noise(answers_, g):
        return noisy_answers(answers_, spec, sensitivity, g)
    return noise


def saying(progress: Progress, message: str) -> Progress:
    """``progress`` with every message replaced by ``message``: a one-target call of the
    stochastic module would otherwise say "Scored 1 of 1 targets"."""
    return Progress(lambda fraction, _message: progress(fraction, message))


# A unit's row holds, beside each attack's scores, how many of its solves the wall-clock
# backstop stopped before their deterministic limit (engine.aggregates.solver): such a
# solve may end elsewhere on a rerun, so the audit says so. Not a valid attack name.
CLOCK_CUTS = "(solves stopped by the clock)"


def clock_cuts(recon) -> int:
    """CIP's solves of ``recon`` marked as cut by the clock (cip._wall_clock_mark); RAP has no
    solver statuses."""
    return sum(s.endswith("_WALL_CLOCK") for s in recon.details.get("statuses", ()))


@dataclass(frozen=True)
class ReconstructionInputs:
    """What every target's reconstructions read (one copy per cluster)."""

    view: GameView
    readers: dict                     # attack name -> FromReconstructions
    per_unit: int = 1                 # targets per unit (reconstruct_targets)

    @property
    def kinds(self) -> list[str]:
        return [k for k in RECONSTRUCTIONS
                if any(a.reconstruction == k for a in self.readers.values())]


def reconstruct_target(index: int, shared: ReconstructionInputs, progress: Progress,
                       cancel: CancelToken) -> dict:
    """Target ``index``'s reconstructions (a unit of :mod:`engine.compute`): each kind asked
    for is made once (seeded by the config's seed and the target's index, from the target's
    own release: engine.attacks.aggregates.RECONSTRUCTIONS) and read by every attack that asks
    for it; returns {attack name: the target's scores}. :func:`reconstruct_targets` with one
    target a unit."""
    return reconstruct_targets(index, replace(shared, per_unit=1), progress, cancel)[0]


def reconstruct_targets(index: int, shared: ReconstructionInputs, progress: Progress,
                        cancel: CancelToken) -> list[dict]:
    """Targets ``index``·B … ``index``·B + B − 1 (B = ``shared.per_unit``; a unit of
    :mod:`engine.compute`): each kind's reconstructions of them made in one go
    (``Reconstruction.many``: the same reconstructions :func:`reconstruct_target` makes one by
    one), then read per target as there."""
    kinds, view = shared.kinds, shared.view
    t = view.target_codes.shape[0]
    mine = list(range(index * shared.per_unit, min(t, (index + 1) * shared.per_unit)))
    out: list[dict] = [{} for _ in mine]
    for j, kind in enumerate(kinds):
        cancel.check()
        made = RECONSTRUCTIONS[kind].many(view, mine, cancel)
        for row, i, recon in zip(out, mine, made, strict=True):
            for name, attack in shared.readers.items():
                if attack.reconstruction == kind:
                    row[name] = attack.read(recon, view, i)
            row[CLOCK_CUTS] = row.get(CLOCK_CUTS, 0) + clock_cuts(recon)
        which = (f"target {mine[0] + 1:,}" if len(mine) == 1
                 else f"targets {mine[0] + 1:,}–{mine[-1] + 1:,}")
        progress((j + 1) / len(kinds),
                 f"{plain_name(kind)}: {which} of {t:,}")
    return out


# Elements of one target's stack of RAP models (K·n'·m, the size of its largest tensors)
# that one GPU unit may hold: 2·10^8 floats are 0.8 GB a tensor, a few GB with autograd's.
_GPU_ELEMENTS = 200_000_000


_MOST_PER_UNIT = 64


def targets_per_unit(view: GameView) -> int:
    """How many targets' RAP reconstructions one unit trains together: on a GPU an epoch of
    small models costs its kernel launches, so up to 64 targets (as many as fit
    ``_GPU_ELEMENTS``) train in about the time of one; on a CPU the work grows with the
    targets, so each target stays its own unit (and its own task on a cluster)."""
    if device() == "cpu":
        return 1
    one = view.reconstructions * view.n_records * max(len(view.queries), 1)
    return int(max(1, min(_MOST_PER_UNIT, _GPU_ELEMENTS // max(one, 1))))


def reconstruction_reads(wanted: dict, view: GameView, *, executor: Executor,
                          progress: Progress, cancel: CancelToken,
                          tally: Counter | None = None) -> dict[str, np.ndarray]:
    """Per attack of ``wanted`` that reads reconstructions (FromReconstructions): its scores
    per target, one row each. Each target's reconstructions are one unit
    (:func:`reconstruct_target`), except those a method can make for several targets at once
    (RAP) when :func:`targets_per_unit` says so: those go by :func:`reconstruct_targets`.
    ``tally[CLOCK_CUTS]`` gains the solves the wall-clock backstop stopped."""
    readers = {name: a for name, a in wanted.items() if isinstance(a, FromReconstructions)}
    if not readers:
        return {}
    t = view.target_codes.shape[0]
    per_unit = targets_per_unit(view)
    together = {name: a for name, a in readers.items()
                if per_unit > 1 and RECONSTRUCTIONS[a.reconstruction].build_many is not None}
    alone = {name: a for name, a in readers.items() if name not in together}
    out: dict[str, np.ndarray] = {}
    split = 0.5 if together and alone else (0.0 if together else 1.0)
    if alone:
        per_target = executor.map(reconstruct_target, t, ReconstructionInputs(view, alone),
                                  progress=progress.span(0.0, split), cancel=cancel,
                                  message="Reconstructions: targets")
        out.update({name: np.array([row[name] for row in per_target]) for name in alone})
        if tally is not None:
            tally[CLOCK_CUTS] += sum(row.get(CLOCK_CUTS, 0) for row in per_target)
    if together:
        units = -(-t // per_unit)
        per_batch = executor.map(reconstruct_targets, units,
                                 ReconstructionInputs(view, together, per_unit),
                                 progress=progress.span(split, 1.0), cancel=cancel,
                                 message=f"Reconstructions: {per_unit} targets at a time")
        rows = [row for batch in per_batch for row in batch]
        out.update({name: np.array([row[name] for row in rows]) for name in together})
        if tally is not None:
            tally[CLOCK_CUTS] += sum(row.get(CLOCK_CUTS, 0) for row in rows)
    return {name: out[name] for name in readers}


@dataclass(frozen=True)
class StochasticInputs:
    """What every target's stochastic module reads (one copy per cluster). The noise is kept
    as the release's spec and sensitivity, not as a function, so it travels by pickle."""

    queries: list
    released: np.ndarray              # (T, m) each target's release
    target_codes: np.ndarray          # (T, c) the targets' coded records
    sensitive_column: int
    aux_codes: np.ndarray
    dataset_size: int                 # |D| of the shadow datasets
    domain: Domain
    n_shadow: int
    model: str
    spec: ReleaseSpec
    sensitivity: float
    seed: int
    membership: bool = False          # DeSIA-MIA's module (§6.2) instead of the AIA one
    # A second release per target scored by each target's same classifier (the release as
    # published, issue 32 item 1): the shadows and the classifier depend only on the target's
    # quasi-identifiers, so the real-people figure costs no second training.
    also_released: np.ndarray | None = None


def stochastic_target(index: int, shared: StochasticInputs, progress: Progress,
                      cancel: CancelToken) -> np.ndarray | float:
    """Target ``index``'s stochastic module (a unit of :mod:`engine.compute`): its shadow
    datasets, drawn in chunks each seeded by the config's seed, the target's own key and the
    chunk's number (desia_stochastic.SignalShadows), and its classifier — the attribute
    game's probabilities per value, or the membership game's probability of "in the data".
    Nothing depends on the other targets, so this is the row the many-target call gives."""
    t = shared.released.shape[0]
    noise = shadow_noise(shared.spec, shared.sensitivity)
    rows = slice(index, index + 1)
    said = saying(progress, f"Learning from similar public records: target {index + 1:,} of {t:,}")
    if shared.membership:
        return float(membership_score_many_targets(
            shared.queries, shared.released[rows], shared.target_codes[rows],
            shared.aux_codes, shared.dataset_size, shared.domain, n_shadow=shared.n_shadow,
            model=shared.model, noise=noise, seed=shared.seed, progress=said,
            cancel=cancel)[0]["probability_member"])
    also = None if shared.also_released is None else shared.also_released[rows]
    got = score_many_targets(
        shared.queries, shared.released[rows], shared.target_codes[rows],
        shared.sensitive_column, shared.aux_codes, shared.dataset_size, shared.domain,
        n_shadow=shared.n_shadow, model=shared.model, noise=noise, seed=shared.seed,
        progress=said, cancel=cancel, also_released=also)[0]
    if also is None:
        return got["probabilities"]
    return np.stack([got["probabilities"], got["also_probabilities"]])


def stochastic_scores(inputs: StochasticInputs, *, executor: Executor, progress: Progress,
                      cancel: CancelToken) -> np.ndarray:
    """Every target's stochastic module, one unit each: (T, |V|) probabilities, or (T,)
    probabilities of membership; (T, 2, |V|) with ``also_released`` (the game's release,
    then the other one)."""
    return np.array(executor.map(stochastic_target, inputs.released.shape[0], inputs,
                                 progress=progress, cancel=cancel,
                                 message="Learning from similar public records: targets"))


def certain_where(found: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """``fallback``'s scores, with the value ``found`` (≥ 0) certain where there is one."""
    out = fallback.copy()
    hit = found >= 0
    out[hit] = 0.0
    out[np.flatnonzero(hit), found[hit]] = 1.0
    return out


@dataclass(frozen=True)
class DeterministicInputs:
    """What every target's proofs read (one copy per cluster)."""

    space: object                     # the record space (desia_deterministic.RecordSpace)
    masks: list                       # per released query, the records it counts
    released: np.ndarray              # (T, m) each target's release
    n: int                            # |D|
    quasi_identifiers: np.ndarray     # (T, s) each target's quasi-identifier codes
    sensitive_column: int
    options: tuple                    # the deterministic module's variants, as published first
    time_limit: float
    seed: int
    step: str = "Looking for values the counts prove: target"   # the progress bar, per unit
    # The auditor's shortcut (desia_deterministic, desia_witness): the protected table as a
    # count per possible record, each target's record before and after its value is re-drawn
    # ((T, 2) record indices), and the release design's layout, built once for every target.
    table_counts: np.ndarray | None = None
    target_records: np.ndarray | None = None
    layout: object = None

    def true_counts(self, index: int) -> np.ndarray | None:
        """The table target ``index``'s release was computed from, as a count per record."""
        if self.table_counts is None or self.target_records is None:
            return None
        counts = self.table_counts.copy()
        before, after = self.target_records[index]
        counts[before] -= 1
        counts[after] += 1
        return counts


def prove_target(index: int, shared: DeterministicInputs, progress: Progress,
                 cancel: CancelToken) -> list[tuple]:
    """Target ``index``'s deterministic proofs (a unit of :mod:`engine.compute`): (value,
    status, seconds) per variant of ``shared.options``. The solver is seeded by the config's
    seed and reads only this target's release, so the proof is the same wherever it runs (a
    proof cut short by the time limit depends on the computer's speed, wherever it runs).
    The published variant takes the auditor's shortcut from the true table where the release
    is exact (desia_deterministic); the fourth element says how it was settled."""
    qi = {c: int(v) for c, v in enumerate(shared.quasi_identifiers[index])}
    truth = shared.true_counts(index)
    out = []
    for o in shared.options:
        got = dd.infer(shared.space, shared.masks, shared.released[index], shared.n, qi,
                       shared.sensitive_column, verify=o.verify, uniqueness=o.uniqueness,
                       time_limit=shared.time_limit, seed=shared.seed, cancel=cancel,
                       true_counts=truth, layout=shared.layout)
        out.append((got.value, got.status, got.seconds, got.settled_by))
    progress(1.0, f"{shared.step} {index + 1:,} of {shared.released.shape[0]:,}")
    return out
