"""The count-table membership game (paper 003 §6.1, Fig. 9; moved out of
engine/games/aggregates.py, issue 33 item 2): for each target, is it in the data? Played
with the attacks of engine.attacks.aggregates.MEMBERSHIP_ATTACKS, chosen on a shadow game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from engine.aggregates.queries import answers
from engine.aggregates.release import noisy_answers
from engine.attacks.aggregates import (
    MEMBERSHIP_ATTACKS,
    BestOf,
    DesiaMembership,
    GameView,
    best_of,
)
from engine.attacks.aggregates import desia_deterministic as dd
from engine.attacks.aggregates import desia_witness as dw
from engine.compute import Executor
from engine.data.errors import InputError
from engine.games.aggregates import (
    DEFAULT_MIA_ATTACKS,
    GameSetup,
    game_view,
    record_space,
    rehearsal_scores,
    setup_game,
    units_of,
)
from engine.games.aggregates_data import (
    AggregatesGameSettings,
    AuditData,
)
from engine.games.aggregates_units import (
    CLOCK_CUTS,
    StochasticInputs,
    reconstruction_reads,
    shadow_noise,
    stochastic_scores,
)
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng

# What runs as a unit of engine.compute here (issue 22 item 6; docs/methods/scale.md): each
# target's deterministic proofs (:func:`prove_target`, :func:`prove_membership`), its
# stochastic module — every seeded chunk of its shadow datasets and its classifier
# (:func:`stochastic_target`) — and its reconstructions (:func:`reconstruct_target`; on a GPU
# up to 64 targets' RAP reconstructions train as one unit, :func:`reconstruct_targets`), in
# both games and in the combination's shadow game; the count-tables audit's sweep points are
# units of engine.audits.aggregates.



@dataclass
class MiaOutcome:
    scores: dict[str, np.ndarray]     # per attack: (T,) score of "the target is in the data"
    member: np.ndarray                # (T,) the secret bits b
    determined: np.ndarray            # (T,) membership proved by the tables
    determined_value: np.ndarray      # (T,) 1 / 0 where proved, -1 elsewhere
    computed_on: str = ""             # where the targets' units ran, in words
    # best_of_choices: per combination, what its rehearsal on the stand-ins chose and measured
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class MembershipProofInputs:
    """What every target's membership proof reads (one copy per cluster)."""

    space: object
    masks: list
    released: np.ndarray              # (T, m) each target's release
    n: int                            # |D| − 1 records behind every release
    target_records: np.ndarray        # (T, c) the targets' records
    time_limit: float
    seed: int
    # The auditor's shortcut (desia_witness): the whole table as a count per possible record,
    # the record left out of each target's release, and the release design's layout.
    table_counts: np.ndarray | None = None
    dropped_records: np.ndarray | None = None
    layout: object = None
    step: str = "Membership game: target"     # what the progress bar says per unit

    def true_counts(self, index: int) -> np.ndarray | None:
        """The table target ``index``'s release was computed from, as a count per record."""
        if self.table_counts is None or self.dropped_records is None:
            return None
        counts = self.table_counts.copy()
        counts[self.dropped_records[index]] -= 1
        return counts


def prove_membership(index: int, shared: MembershipProofInputs, progress: Progress,
                     cancel: CancelToken) -> tuple:
    """Target ``index``'s deterministic membership check (a unit of :mod:`engine.compute`;
    DeSIA-MIA §6.2): (status, value). The solver is seeded by the config's seed and reads only
    this target's release."""
    det = dd.infer_membership(shared.space, shared.masks, shared.released[index], shared.n,
                              shared.target_records[index], time_limit=shared.time_limit,
                              seed=shared.seed, cancel=cancel, layout=shared.layout,
                              true_counts=shared.true_counts(index))
    progress(1.0, f"{shared.step} {index + 1:,} of {shared.released.shape[0]:,}")
    return det.status, det.value


def released_per_member(config: AggregatesGameSettings, game: GameSetup, member: np.ndarray,
                        g: np.random.Generator, cancel: CancelToken = NEVER
                        ) -> tuple[np.ndarray, np.ndarray]:
    """(T, m) the release each target's membership game publishes (Fig. 9) and (T,) the row
    left out of it: the target itself (b = 0) or another target drawn from ``g`` (b = 1), so
    |D| − 1 records either way; each release noised from its own stream. Drawn in target
    order from the game's one stream, before any unit runs."""
    codes, targets = game.codes, game.targets
    released = np.zeros((targets.size, len(game.queries)))
    dropped = np.zeros(targets.size, dtype=np.int64)
    for i, t in enumerate(targets):
        cancel.check()
        drop = int(g.choice(targets[targets != t])) if member[i] else int(t)
        dropped[i] = drop
        released[i] = noisy_answers(answers(game.queries, np.delete(codes, drop, axis=0)),
                                    game.spec, game.base.sensitivity,
                                    rng(config.seed, "aggregates-mia-noise", i))
    return released, dropped


def choose_membership_on_shadow_game(config: AggregatesGameSettings, game: GameSetup,
                                     view: GameView, attack: BestOf, space, masks, layout, *,
                                     progress: Progress = NO_PROGRESS,
                                     cancel: CancelToken = NEVER,
                                     executor: Executor | None = None,
                                     tally: Counter | None = None) -> best_of.Choice:
    """:func:`choose_on_shadow_game` for the membership game: the attacker's own membership
    game on its auxiliary sample (best_of.membership_shadow_game), the membership proofs and
    each candidate of ``attack`` run on its stand-in targets as :func:`play_mia` runs them on
    the real ones (the same units), and the better candidate by AUC on the stand-ins the
    proofs leave open (best_of.choose_membership). Reads neither the targets' bits nor their
    releases: only the auxiliary sample, the queries and |D| of ``view``."""
    shadow = best_of.membership_shadow_game(
        view, shadow_noise(game.spec, game.base.sensitivity), attack.shadow_targets,
        config.seed)
    if shadow is None:
        return best_of.no_shadow_targets(attack.candidates)
    sview, t = shadow.view, shadow.truth.size
    with units_of(config, executor) as units:
        # No shortcut from the true table: the attacker holds only its own stand-in's
        # release, as in the attribute game's rehearsal.
        solved = units.map(prove_membership, t, MembershipProofInputs(
            space, masks, sview.released, sview.n_records, sview.target_codes,
            config.solver_time_limit, config.seed, layout=layout,
            step="Rehearsal on the attacker's own stand-ins: stand-in"),
            progress=progress.span(0.0, 0.2), cancel=cancel,
            message="Rehearsal on the attacker's own stand-ins: proofs")
        proved = np.array([value if status == "determined" else -1
                           for status, value in solved], dtype=np.int64)
        scores = rehearsal_scores(
            {c: MEMBERSHIP_ATTACKS[c] for c in attack.candidates}, sview, StochasticInputs(
                game.queries, sview.released, sview.target_codes, sview.sensitive_column,
                sview.aux_codes, sview.n_records + 1, game.domain, config.n_shadow,
                config.model, game.spec, float(game.base.sensitivity), config.seed,
                membership=True),
            units=units, progress=progress, cancel=cancel, tally=tally)
    return best_of.choose_membership(scores, shadow.truth, proved)


def play_mia(config: AggregatesGameSettings, *, data: AuditData | None = None,
             progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER,
             executor: Executor | None = None) -> MiaOutcome:
    """The MIA game of paper 003 §6.1 (Fig. 9): per target, a secret bit b; the release is
    computed on D without the target (b = 0) or without another target (b = 1), so |D| − 1
    records either way; the attacks of engine.attacks.aggregates.MEMBERSHIP_ATTACKS —
    DeSIA-MIA (§6.2), the CIP / RAP reconstruction MIAs (§6.3) and the combination
    (best_of_mia, issue 22: the proofs, then the better candidate as chosen on the attacker's
    own stand-ins, as :func:`play_aia` plays best_of). The releases are drawn here, in target
    order from the game's one stream (:func:`released_per_member`); each target's proof,
    reconstructions and stochastic module, and the combination's rehearsal, are then units on
    ``executor`` (:func:`units_of`)."""
    game, g = setup_game(config, "aggregates-mia", data)
    domain, codes, aux_codes, targets = game.domain, game.codes, game.aux_codes, game.targets
    spec, base, queries = game.spec, game.base, game.queries
    if targets.size < 2:
        raise InputError("The membership game needs at least two unique records (one is "
                         "left out in its place); switch the membership game off for this "
                         "data.", key="membership", setting="membership")
    space = record_space(domain)
    masks = [space.matches(q.conditions) for q in queries]
    layout = dw.ReleaseLayout.of(space, masks, codes.shape[1] - 1)   # the auditor's shortcut
    member = g.integers(0, 2, targets.size).astype(bool)
    if min(member.sum(), (~member).sum()) < 2:
        # Each target is a member with probability ½ (Fig. 9); the metric layer needs two of
        # each to choose a threshold on one half and measure it on the other.
        raise InputError(f"The membership game drew {int(member.sum())} member(s) and "
                         f"{int((~member).sum())} non-member(s) among its {targets.size} "
                         "targets; at least two of each are needed to measure an attack. "
                         "Raise the targets attacked at most (20 or more) or switch the "
                         "membership game off.", key="max_targets", setting="max_targets")
    n = codes.shape[0] - 1
    names = ([a for a in config.mia_attacks if a in MEMBERSHIP_ATTACKS]
             or list(DEFAULT_MIA_ATTACKS))
    wanted = {name: MEMBERSHIP_ATTACKS[name] for name in names}
    combined = {name: a for name, a in wanted.items() if isinstance(a, BestOf)}
    for a in combined.values():               # the combination reads its candidates' scores
        for c in a.candidates:
            wanted.setdefault(c, MEMBERSHIP_ATTACKS[c])
    # The combination's rehearsal takes the last fifth of the game's progress.
    end = 0.8 if combined else 1.0
    determined = np.zeros(targets.size, dtype=bool)
    det_value = np.full(targets.size, -1)
    released, dropped = released_per_member(config, game, member, g, cancel)
    record_of = np.ravel_multi_index(tuple(codes.T), domain.sizes)
    choices = {}
    with units_of(config, executor) as units:
        proofs = units.map(prove_membership, targets.size, MembershipProofInputs(
            space, masks, released, n, codes[targets], config.solver_time_limit,
            config.seed, table_counts=np.bincount(record_of, minlength=space.codes.shape[0]),
            dropped_records=record_of[dropped], layout=layout),
            progress=progress.span(0.0, 0.3 * end), cancel=cancel,
            message="Membership game: proofs")
        for i, (status, value) in enumerate(proofs):
            if status == "determined":
                determined[i], det_value[i] = True, value
        view = game_view(config, game, released, n)
        scores = {name: np.zeros(targets.size) for name in wanted if name not in combined}
        tally: Counter = Counter()
        scores.update(reconstruction_reads(wanted, view, executor=units,
                                            progress=progress.span(0.3 * end, 0.6 * end),
                                            cancel=cancel, tally=tally))
        desias = {name: a for name, a in wanted.items() if isinstance(a, DesiaMembership)}
        if desias:
            stoch = stochastic_scores(StochasticInputs(
                queries, released, codes[targets], codes.shape[1] - 1, aux_codes, n + 1, domain,
                config.n_shadow, config.model, spec, float(base.sensitivity), config.seed,
                membership=True), executor=units, progress=progress.span(0.6 * end, end),
                cancel=cancel)
            for name, a in desias.items():
                scores[name] = (np.where(determined, det_value, stoch).astype(float)
                                if a.deterministic else stoch)
        for name, a in combined.items():
            choice = choose_membership_on_shadow_game(
                config, game, view, a, space, masks, layout, progress=progress.span(end, 1.0),
                cancel=cancel, executor=units, tally=tally)
            scores[name] = best_of.combine_membership(det_value, scores[choice.name])
            choices[name] = choice.to_dict()
        where = units.where
    scores = {name: scores[name] for name in names}     # the candidates only when asked for
    return MiaOutcome(scores, member, determined, det_value, where,
                      details={"best_of_choices": choices,
                               "solves_stopped_by_clock": int(tally[CLOCK_CUTS])})
