"""The count-table game (issue 19 item 1; paper 003, method notes in
docs/methods/aggregates_audit.md): load the protected records and the attacker's auxiliary
sample, set up the game (the targets unique on their quasi-identifiers, the released queries,
the record space), simulate each target's release, play the attacks of
engine.attacks.aggregates on it, and score them through the shared metric layer.

1. Data (:func:`load_data`): the protected microdata (a CSV with its schema, or the synthetic
   census block) and the attacker's auxiliary sample (a CSV, or resampled from the protected
   records other than the targets); for a published table, the attacker's sample stands in.
2. Release (:func:`setup_game`): the candidate queries (P-tables, marginals, custom, published),
   a random fraction m/|D| of them, noise with rounding and clamping (engine.aggregates).
3. The attribute game (:func:`play_aia`) and the membership game (:func:`play_mia`, §6.1
   Fig. 9), each attack scored through the shared metric layer (:func:`evaluate`,
   :func:`evaluate_mia`). Beside the attribute game, the same attacks on the release as
   actually published, scored on the targets' real values against the obvious guess
   (:class:`RealPlay`, engine.attacks.real_people; issue 32 item 1).
4. Exposed records (:func:`exposed_records`): the targets the tables provably determine, with
   the cells that pin them; for a published table, :func:`published_findings`.

The attribute game (paper 003 §2.3, Fig. 2): for every target unique on its
quasi-identifiers, the challenger re-draws the target's sensitive value uniformly — so
whatever the attacker learns comes from the release, not from the data's marginals — computes
the release on that dataset (the same released queries for every target), and the attacker,
who knows the target's quasi-identifiers, |D|, the domains and an auxiliary sample, outputs a
score per sensitive value. The attacks are the entries of
engine.attacks.aggregates.ATTRIBUTE_ATTACKS (DeSIA, its Table 3 ablations, the
reconstruction baselines, a data-only guess); the game gathers once what they read (the
deterministic module with each option asked for, the stochastic module, each kind of
reconstruction) and each entry makes its scores from it. Metrics pool the (target, value)
pairs one-vs-rest: score = the attack's score for that value, member = it is the target's
value.

The count-tables audit (engine.audits.aggregates) keeps its config, its run, the theory and
the wording, and calls this game. The game reads its settings from any object with the fields
of :class:`AggregatesGameSettings` (the audit's AggregatesConfig has them), so it imports
nothing above it; it sits above engine.attacks, because it plays them (docs/dev/layers.md).

Issue 33 item 2 split it by part, this module keeping the set-up and the attribute game: the
settings and data are engine.games.aggregates_data, the units of engine.compute
engine.games.aggregates_units, the membership game engine.games.aggregates_membership, the
exposed records, published findings and scoring engine.games.aggregates_scoring.
"""

from __future__ import annotations

from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, field, replace

import numpy as np

from engine.aggregates.queries import Domain, answers
from engine.aggregates.release import ReleaseSpec, build_release, noisy_answers
from engine.attacks.aggregates import (
    AS_PUBLISHED,
    ATTRIBUTE_ATTACKS,
    RECONSTRUCTIONS,
    BestOf,
    Desia,
    DesiaMembership,
    FromReconstructions,
    GameView,
    Scored,
    best_of,
)
from engine.attacks.aggregates import desia_deterministic as dd
from engine.attacks.aggregates import desia_witness as dw
from engine.attacks.aggregates.data_only import data_only_scores
from engine.attacks.real_people import obvious_value
from engine.compute import Executor, cluster_of, job_executor
from engine.data.errors import InputError
from engine.data.microdata import (
    require_unique_targets,
)
from engine.games.aggregates_data import (
    AggregatesGameSettings,
    AuditData,
    domain_and_codes,
    load_data,
    resampled_auxiliary,
)
from engine.games.aggregates_units import (
    CLOCK_CUTS,
    DeterministicInputs,
    StochasticInputs,
    certain_where,
    clock_cuts,
    prove_target,
    reconstruction_reads,
    shadow_noise,
    stochastic_scores,
)
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng
from engine.wording import plain_name

# What runs as a unit of engine.compute here (issue 22 item 6; docs/methods/scale.md): each
# target's deterministic proofs (:func:`prove_target`, :func:`prove_membership`), its
# stochastic module — every seeded chunk of its shadow datasets and its classifier
# (:func:`stochastic_target`) — and its reconstructions (:func:`reconstruct_target`; on a GPU
# up to 64 targets' RAP reconstructions train as one unit, :func:`reconstruct_targets`), in
# both games and in the combination's shadow game; the count-tables audit's sweep points are
# units of engine.audits.aggregates.

# The membership attacks played when the settings name none of them.
DEFAULT_MIA_ATTACKS = ("desia_mia", "desia_mia_stochastic_only", "cip_rand_mia")


@dataclass
class AiaOutcome:
    """Per attack: (T, V) scores; the game's truth; the deterministic module's findings."""

    scores: dict[str, np.ndarray]
    truth: np.ndarray                 # (T,) the re-drawn sensitive codes
    targets: np.ndarray               # (T,) record indices in the protected data
    determined: np.ndarray            # (T,) bool: provably determined by the release
    determined_value: np.ndarray      # (T,) the value proved (-1 where not)
    queries: list = field(default_factory=list)
    target_codes: np.ndarray | None = None   # (T, c) the targets' coded records
    sensitive_column: int = -1
    details: dict = field(default_factory=dict)
    # The same attacks on the release as actually published, against the people's real
    # values (issue 32 item 1; :func:`real_people_play`); None for a published table, whose
    # people the audit does not hold.
    real: RealPlay | None = None


@dataclass
class RealPlay:
    """Every attack's (T, |V|) scores on the release as published, for the same targets:
    ``truth`` their real sensitive codes, ``obvious`` the most common value among the people
    in the data (and its label), ``data_only`` the data-only guess's scores (always made: it
    is the officer's second baseline, and costs a count over the auxiliary sample)."""

    scores: dict[str, np.ndarray]
    truth: np.ndarray
    obvious: int
    obvious_label: str
    data_only: np.ndarray


# --------------------------------------------------------------------------- set-up

@dataclass(frozen=True)
class GameSetup:
    """What both games start from: the coded data (quasi-identifiers, then the sensitive
    column), the targets unique on their quasi-identifiers, and the release definition."""

    domain: Domain
    codes: np.ndarray                 # (n, c) protected records
    aux_codes: np.ndarray             # (m, c) the attacker's auxiliary records
    targets: np.ndarray               # (T,) record indices, at most config.max_targets
    spec: ReleaseSpec
    base: object                      # the Release on the protected data (queries, noise)
    queries: list
    unique_records: int = 0           # records unique on their quasi-identifiers
    auxiliary_source: str = "synthetic"


def setup_game(config: AggregatesGameSettings, stream: str, data: AuditData | None = None
               ) -> tuple[GameSetup, np.random.Generator]:
    """Data, targets and released queries; the returned generator (stream ``stream``) has
    drawn the target sample and goes on with the game's secret draws."""
    data = data or load_data(config)
    protected = data.protected
    qi_names = list(protected.schema.quasi_identifiers)
    sensitive = protected.schema.sensitive
    columns = qi_names + [sensitive]
    domain, codes = domain_and_codes(protected, columns)
    g = rng(config.seed, stream)
    unique = require_unique_targets(protected)
    targets = unique
    if targets.size > config.max_targets:
        targets = np.sort(g.choice(targets, config.max_targets, replace=False))
    auxiliary = data.auxiliary
    if auxiliary is None:
        auxiliary = resampled_auxiliary(protected, targets, config.seed)
    _, aux_codes = domain_and_codes(auxiliary, columns)
    if aux_codes.shape[0] < codes.shape[0]:
        raise InputError(f"The attacker's auxiliary sample has {aux_codes.shape[0]:,} records "
                         f"but each simulated dataset needs |D| = {codes.shape[0]:,} of them; "
                         "give a larger auxiliary sample (paper 003 uses 9× |D|).",
                         key="auxiliary")
    spec = config.release_spec()
    base = build_release(spec, domain, codes, rng(config.seed, "aggregates-release"))
    if not base.queries:
        raise InputError("The release holds no statistics (no query matched the data's "
                         "columns); check the release settings.", key="release")
    return GameSetup(domain, codes, aux_codes, targets, spec, base, list(base.queries),
                     int(unique.size), data.auxiliary_source), g


def record_space(domain: Domain):
    """Every possible record of the audited columns, for the exact (solver) modules; an
    InputError sentence naming the largest columns when they allow too many."""
    return dd.RecordSpace.of(domain)


def released_per_target(config: AggregatesGameSettings, game: GameSetup, truth: np.ndarray
                        ) -> np.ndarray:
    """(T, m) the release each target's game publishes: the protected data with that target's
    sensitive value re-drawn (Fig. 2), answered and noised (one noise stream per target)."""
    codes, s = game.codes, game.codes.shape[1] - 1
    released = np.zeros((game.targets.size, len(game.queries)))
    for i, t in enumerate(game.targets):
        data_t = codes.copy()
        data_t[t, s] = truth[i]
        released[i] = noisy_answers(answers(game.queries, data_t), game.spec,
                                    game.base.sensitivity,
                                    rng(config.seed, "aggregates-noise", i))
    return released


def game_view(config: AggregatesGameSettings, game: GameSetup, released: np.ndarray,
          n: int) -> GameView:
    return GameView(domain=game.domain, queries=game.queries, released=released,
                    target_codes=game.codes[game.targets], aux_codes=game.aux_codes,
                    n_records=n, sensitive_column=game.codes.shape[1] - 1,
                    n_shadow=config.n_shadow, reconstructions=config.reconstructions,
                    solver_time_limit=config.solver_time_limit, seed=config.seed)


def units_of(config: AggregatesGameSettings, executor: Executor | None):
    """Where the game's units run: ``executor`` when the caller passes one (the audit passes
    its job's), else the job's executor for the config's cluster (opened and closed here when
    no job has one open)."""
    return nullcontext(executor) if executor is not None else job_executor(cluster_of(config))


def choose_on_shadow_game(config: AggregatesGameSettings, game: GameSetup, view: GameView,
                          attack: BestOf, space, masks, *, progress: Progress = NO_PROGRESS,
                          cancel: CancelToken = NEVER,
                          executor: Executor | None = None,
                          tally: Counter | None = None) -> best_of.Choice:
    """The combination's choice (engine.attacks.aggregates.best_of): the attacker's own game
    on its auxiliary sample, the proofs and every candidate run on its stand-in targets the way
    :func:`play_aia` runs them on the real ones (the same units), and the better candidate on
    the stand-ins the proofs leave open. Reads neither the targets' values nor their
    releases."""
    s = view.sensitive_column
    shadow = best_of.shadow_game(view, shadow_noise(game.spec, game.base.sensitivity),
                                 attack.shadow_targets, config.seed)
    if shadow is None:
        return best_of.no_shadow_targets(attack.candidates)
    sview, t = shadow.view, shadow.truth.size
    with units_of(config, executor) as units:
        solved = units.map(prove_target, t, DeterministicInputs(
            space, masks, sview.released, sview.n_records, sview.target_codes[:, :s], s,
            (AS_PUBLISHED,), config.solver_time_limit, config.seed),
            progress=progress.span(0.0, 0.2), cancel=cancel,
            message="Choosing the combination by a rehearsal on the attacker's own sample: "
                    "proofs")
        proved = np.array([value if status == "determined" else -1
                           for ((value, status, _seconds, _settled),) in solved], dtype=np.int64)
        scores = rehearsal_scores(
            {c: ATTRIBUTE_ATTACKS[c] for c in attack.candidates}, sview, StochasticInputs(
                game.queries, sview.released, sview.target_codes, s, sview.aux_codes,
                sview.n_records, game.domain, config.n_shadow, config.model, game.spec,
                float(game.base.sensitivity), config.seed),
            units=units, progress=progress, cancel=cancel, tally=tally)
    return best_of.choose(scores, shadow.truth, proved)


def rehearsal_scores(candidates: dict, sview: GameView, stochastic: StochasticInputs, *,
                      units: Executor, progress: Progress, cancel: CancelToken,
                      tally: Counter | None = None) -> dict:
    """A best-of's candidates scored on its rehearsal's stand-ins (attribute or membership
    game), as the game scores them on the real targets: the stochastic module alone from
    ``stochastic``, or a reconstruction read; each as units on ``units``."""
    scores = {}
    for c, a in candidates.items():
        stochastic_only = (isinstance(a, Desia) and a.deterministic is None
                           and a.fallback == "stochastic") or \
            (isinstance(a, DesiaMembership) and not a.deterministic)
        if stochastic_only:
            scores[c] = stochastic_scores(stochastic, executor=units,
                                          progress=progress.span(0.2, 0.6), cancel=cancel)
        elif isinstance(a, FromReconstructions):
            scores[c] = reconstruction_reads({c: a}, sview, executor=units,
                                              progress=progress.span(0.6, 1.0),
                                              cancel=cancel, tally=tally)[c]
        else:
            raise ValueError(f"{c}: the combination's candidates are scorers without proofs "
                             "(the stochastic module or a reconstruction vote or share)")
    return scores


def play_aia(config: AggregatesGameSettings, *, data: AuditData | None = None,
             progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER,
             executor: Executor | None = None, real_people: bool = True) -> AiaOutcome:
    """The AIA game of Fig. 2 with every requested attack (module docstring): the game
    gathers what the attacks of engine.attacks.aggregates.ATTRIBUTE_ATTACKS read, then each
    makes its scores. The per-target work runs as units on ``executor`` (default: the job's,
    for the config's cluster; :func:`units_of`). With ``real_people`` (not for a published
    table) the same attacks also read the release as actually published, for the people's
    real values (:class:`RealPlay`, issue 32 item 1); the sweeps leave it off."""
    with units_of(config, executor) as units:
        return _play_aia(config, data, progress, cancel, units,
                         real_people and config.release != "published")


def _real_reconstruction_reads(wanted: dict, view: GameView, *, progress: Progress,
                               cancel: CancelToken, tally: Counter) -> dict[str, np.ndarray]:
    """The reconstruction attacks on the release as published: one release for every
    target, so each kind's K reconstructions are made once (seeded as the first target's
    are) and read for every target, instead of once per target as in the game."""
    readers = {name: a for name, a in wanted.items() if isinstance(a, FromReconstructions)}
    if not readers:
        return {}
    kinds = [k for k in RECONSTRUCTIONS if any(a.reconstruction == k for a in readers.values())]
    t = view.target_codes.shape[0]
    out: dict[str, np.ndarray] = {}
    for j, kind in enumerate(kinds):
        cancel.check()
        progress(j / len(kinds), f"{plain_name(kind)}: the published release")
        recon = RECONSTRUCTIONS[kind](view, 0, cancel)
        tally[CLOCK_CUTS] += clock_cuts(recon)
        for name, a in readers.items():
            if a.reconstruction == kind:
                out[name] = np.array([a.read(recon, view, i) for i in range(t)])
    progress(1.0, "Reconstructions of the published release: done")
    return {name: out[name] for name in readers}


def _play_aia(config: AggregatesGameSettings, data: AuditData | None, progress: Progress,
              cancel: CancelToken, units: Executor, real_people: bool = True) -> AiaOutcome:
    game, g = setup_game(config, "aggregates-aia", data)
    domain, codes, aux_codes, targets = game.domain, game.codes, game.aux_codes, game.targets
    queries = game.queries
    s = codes.shape[1] - 1                                 # sensitive column index
    n_values = domain.sizes[s]
    truth = g.integers(0, n_values, targets.size)
    released = released_per_target(config, game, truth)
    n = codes.shape[0]
    # The release as actually published (the real values, the base release's noise), the
    # same row for every target (issue 32 item 1).
    real_released = (np.repeat(np.asarray(game.base.released_answers, dtype=float)[None, :],
                               targets.size, axis=0) if real_people else None)
    wanted = {name: ATTRIBUTE_ATTACKS[name] for name in config.attacks
              if name in ATTRIBUTE_ATTACKS}
    combined = {name: a for name, a in wanted.items() if isinstance(a, BestOf)}
    for a in combined.values():               # the combination reads its candidates' scores
        for c in a.candidates:
            wanted.setdefault(c, ATTRIBUTE_ATTACKS[c])
    desias = {name: a for name, a in wanted.items() if isinstance(a, Desia)}

    # The deterministic module per target, as published — always run: the exposed records
    # come from it, whatever attacks are listed — and with each ablation's options asked for.
    options = [AS_PUBLISHED] + list(dict.fromkeys(
        a.deterministic for a in desias.values()
        if a.deterministic is not None and a.deterministic != AS_PUBLISHED))
    space = record_space(domain)
    masks = [space.matches(q.conditions) for q in queries]
    determined = np.zeros(targets.size, dtype=bool)
    det_value = np.full(targets.size, -1)
    det_seconds = np.zeros(targets.size)
    det_status = []
    det_settled = []
    found = {o: np.full(targets.size, -1) for o in options}
    # Each target's proofs are an independent unit of engine.compute (issue 22 item 6).
    record_of = np.ravel_multi_index(tuple(codes.T), domain.sizes)
    redrawn = codes[targets].copy()
    redrawn[:, s] = truth
    proofs = DeterministicInputs(
        space, masks, released, n, codes[targets, :s], s, tuple(options),
        config.solver_time_limit, config.seed,
        table_counts=np.bincount(record_of, minlength=space.codes.shape[0]),
        target_records=np.column_stack([record_of[targets],
                                        np.ravel_multi_index(tuple(redrawn.T), domain.sizes)]),
        layout=dw.ReleaseLayout.of(space, masks, s))
    solved = units.map(prove_target, targets.size, proofs,
                       progress=progress.span(0.0, 0.25 if real_people else 0.35),
                       cancel=cancel, message="Looking for values the counts prove: targets")
    real_found = {o: np.full(targets.size, -1) for o in options}
    if real_people:
        # The proofs once more, on the published release: each target's own record is in
        # the table as it is (before = after for the auditor's shortcut).
        real_proved = units.map(prove_target, targets.size, replace(
            proofs, released=real_released,
            target_records=np.column_stack([record_of[targets], record_of[targets]]),
            step="Looking for values the published counts prove: target"),
            progress=progress.span(0.25, 0.35), cancel=cancel,
            message="Looking for values the published counts prove: targets")
        for i, per_option in enumerate(real_proved):
            for o, (value, status, _seconds, _settled) in zip(options, per_option, strict=True):
                if o == AS_PUBLISHED:
                    real_found[o][i] = value if status == "determined" else -1
                else:
                    real_found[o][i] = -1 if value is None else value
    for i, per_option in enumerate(solved):
        for o, (value, status, seconds, settled_by) in zip(options, per_option, strict=True):
            if o == AS_PUBLISHED:
                det_seconds[i] = seconds
                det_status.append(status)
                det_settled.append(settled_by)
                if status == "determined":
                    determined[i], det_value[i] = True, value
            else:
                # An ablation takes whatever value it found as certain (Table 3).
                found[o][i] = -1 if value is None else value
    found[AS_PUBLISHED] = det_value

    fallbacks = {"uniform": np.full((targets.size, n_values), 1.0 / n_values)}
    real_fallbacks = dict(fallbacks)
    if any(a.fallback == "stochastic" for a in desias.values()):
        both = stochastic_scores(StochasticInputs(
            queries, released, codes[targets], s, aux_codes, n, domain, config.n_shadow,
            config.model, game.spec, float(game.base.sensitivity), config.seed,
            also_released=real_released),
            executor=units, progress=progress.span(0.35, 0.6), cancel=cancel)
        if real_people:
            fallbacks["stochastic"], real_fallbacks["stochastic"] = both[:, 0], both[:, 1]
        else:
            fallbacks["stochastic"] = both
    scores: dict[str, np.ndarray] = {}
    real_scores: dict[str, np.ndarray] = {}
    for name, a in desias.items():
        scores[name] = (fallbacks[a.fallback] if a.deterministic is None
                        else certain_where(found[a.deterministic], fallbacks[a.fallback]))
        if real_people:
            real_scores[name] = (
                real_fallbacks[a.fallback] if a.deterministic is None
                else certain_where(real_found[a.deterministic], real_fallbacks[a.fallback]))

    view = game_view(config, game, released, n)
    real_view = game_view(config, game, real_released, n) if real_people else None
    scorers = {name: a for name, a in wanted.items() if isinstance(a, Scored)}
    for j, (name, a) in enumerate(scorers.items()):
        span = progress.span(0.6 + 0.1 * j / len(scorers), 0.6 + 0.1 * (j + 1) / len(scorers))
        scores[name] = a.score(view, progress=span.span(0.0, 0.5 if real_people else 1.0),
                               cancel=cancel, executor=units)
        if real_people:
            real_scores[name] = a.score(real_view, progress=span.span(0.5, 1.0),
                                        cancel=cancel, executor=units)
    tally: Counter = Counter()
    scores.update(reconstruction_reads(wanted, view, executor=units,
                                        progress=progress.span(0.7, 0.85 if real_people
                                                               else 0.9),
                                        cancel=cancel, tally=tally))
    if real_people:
        real_scores.update(_real_reconstruction_reads(
            wanted, real_view, progress=progress.span(0.85, 0.9), cancel=cancel, tally=tally))
    choices = {}
    for name, a in combined.items():
        choice = choose_on_shadow_game(config, game, view, a, space, masks,
                                       progress=progress.span(0.9, 0.97), cancel=cancel,
                                       executor=units, tally=tally)
        scores[name] = best_of.combine(det_value, scores[choice.name])
        if real_people:     # the same choice (made without the targets), on the real release
            real_scores[name] = best_of.combine(real_found[AS_PUBLISHED],
                                                real_scores[choice.name])
        choices[name] = choice.to_dict()
    scores = {name: scores[name] for name in config.attacks if name in scores}
    real = None
    if real_people:
        obvious = obvious_value(codes[:, s], n_values)
        real = RealPlay(
            scores={name: real_scores[name] for name in scores}, truth=codes[targets, s].copy(),
            obvious=obvious, obvious_label=str(domain.labels[s][obvious]),
            data_only=data_only_scores(aux_codes, codes[targets], s, n_values))
    return AiaOutcome(scores=scores, truth=truth, targets=targets, determined=determined,
                      determined_value=det_value, queries=queries,
                      target_codes=codes[targets], sensitive_column=s, real=real,
                      details={"n_queries": len(queries), "n_records": n,
                               "n_auxiliary": int(aux_codes.shape[0]),
                               "unique_records": game.unique_records,
                               "auxiliary_source": game.auxiliary_source,
                               "sensitivity": float(game.base.sensitivity),
                               "sensitivity_exact": bool(game.base.sensitivity_exact),
                               "noise_scale": float(game.base.noise_scale or 0.0),
                               "n_candidates": int(game.base.n_candidates),
                               "deterministic_seconds": det_seconds,
                               "best_of_choices": choices,
                               "solves_stopped_by_clock": int(tally[CLOCK_CUTS]),
                               "deterministic_status": det_status,
                               "deterministic_settled_by": det_settled,
                               "deterministic_computed_on": units.where,
                               "released_preview": list(zip(
                                   [q.table for q in queries], [q.label for q in queries],
                                   game.base.released_answers.tolist(), strict=True))[:40],
                               "domain": domain})


