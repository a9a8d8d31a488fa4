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
"""

from __future__ import annotations

from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from engine.aggregates.consistency import check_published_consistency
from engine.aggregates.queries import Domain, answers, load_published_rows
from engine.aggregates.release import ReleaseSpec, build_release, noisy_answers
from engine.attacks.aggregates import (
    AS_PUBLISHED,
    ATTRIBUTE_ATTACKS,
    LABELS,
    MEMBERSHIP_ATTACKS,
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
from engine.attacks.aggregates.desia_stochastic import (
    membership_score_many_targets,
    score_many_targets,
)
from engine.attacks.real_people import obvious_value
from engine.attacks.real_people import real_people as real_people_block
from engine.auditing import evaluate_attack
from engine.audits.result import REDACTED, input_entry
from engine.compute import Executor, cluster_of, job_executor
from engine.data.census import generate_census_blocks
from engine.data.errors import InputError
from engine.data.microdata import (
    Microdata,
    Schema,
    infer_schema_from_csvs,
    load_microdata_csv,
    require_unique_targets,
)
from engine.data.paths import resolve_path
from engine.evidence import top1_p_value
from engine.metrics import clopper_pearson, clustered_auc_ci
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, device, rng
from engine.wording import plain_name

# What runs as a unit of engine.compute here (issue 22 item 6; docs/methods/scale.md): each
# target's deterministic proofs (:func:`prove_target`, :func:`prove_membership`), its
# stochastic module — every seeded chunk of its shadow datasets and its classifier
# (:func:`stochastic_target`) — and its reconstructions (:func:`reconstruct_target`; on a GPU
# up to 64 targets' RAP reconstructions train as one unit, :func:`reconstruct_targets`), in
# both games and in the combination's shadow game; the count-tables audit's sweep points are
# units of engine.audits.aggregates.

AUXILIARY_RATIO = 9      # paper 003 §5: D_aux is 9× the protected dataset (90 % / 10 %)
# The membership attacks played when the settings name none of them.
DEFAULT_MIA_ATTACKS = ("desia_mia", "desia_mia_stochastic_only", "cip_rand_mia")


class AggregatesGameSettings(Protocol):
    """What the game reads from its settings (engine.audits.aggregates.AggregatesConfig has
    all of it; the field comments there are the meanings)."""

    data: str
    auxiliary: str
    schema: dict
    sensitive: str
    census_records: int
    census_auxiliary: int
    release: str
    release_options: dict
    published_records: int
    attacks: tuple[str, ...]
    mia_attacks: tuple[str, ...]
    model: str
    n_shadow: int
    reconstructions: int
    solver_time_limit: float
    max_targets: int
    list_exposed_records: bool
    confidence: float
    fpr_targets: tuple[float, ...]
    seed: int

    def release_spec(self) -> ReleaseSpec: ...


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


def domain_and_codes(microdata, columns):
    """(Domain, codes): the columns' categories and the records coded in that order."""
    idx = [microdata.schema.index(c) for c in columns]
    labels = tuple(tuple(microdata.schema.column(c).labels()) for c in columns)
    return Domain(columns=tuple(columns), labels=labels), np.ascontiguousarray(
        microdata.codes[:, idx]).astype(np.int32)


# --------------------------------------------------------------------------- data

@dataclass(frozen=True)
class AuditData:
    """The records one audit runs on.

    ``protected``: D (for a published table: a stand-in of |D| records drawn from the
    attacker's sample, used to simulate the game); ``auxiliary``: D_aux, or None when it is
    resampled from the protected records once the targets are known (see
    :func:`resampled_auxiliary`); ``auxiliary_source``: "file", "synthetic",
    "protected_records" or "published_sample"; ``inputs``: the files read, with hashes."""

    protected: object
    auxiliary: object | None
    auxiliary_source: str
    inputs: list


def _with_sensitive(microdata, sensitive: str, source: str):
    schema = microdata.schema
    if sensitive:
        if sensitive not in schema.names:
            raise InputError(f"{source}: there is no column '{sensitive}' to infer; columns: "
                             f"{', '.join(schema.names)} — choose one of them as the "
                             "sensitive attribute.", source=source, key="sensitive")
        schema = schema.with_roles(sensitive=sensitive)
    try:
        schema.validate_for_audit()
    except InputError as exc:
        raise InputError(f"{source}: {exc}", source=source, key=exc.key) from None
    return Microdata(schema, microdata.codes, microdata.source, microdata.open_labels,
                     microdata.missing_values)


def load_data(config: AggregatesGameSettings) -> AuditData:
    """The protected records and the attacker's auxiliary sample (module docstring)."""
    if not config.data:
        protected, auxiliary = generate_census_blocks(
            config.seed, records_per_block=config.census_records,
            n_auxiliary=config.census_auxiliary, sensitive=config.sensitive or "race")
        return AuditData(protected, auxiliary, "synthetic", [])
    path = resolve_path(config.data)
    apath = resolve_path(config.auxiliary) if config.auxiliary else None
    if config.schema:
        schema = Schema.from_dict(config.schema, source=f"{path.name}, schema")
    elif apath is not None and config.release != "published":
        schema = infer_schema_from_csvs([path, apath])   # domains cover both files
    else:
        schema = None
    records = load_microdata_csv(path, schema)
    records = _with_sensitive(records, config.sensitive, str(path))
    inputs = [input_entry(path, rows=records.n_records,
                          role="published_sample" if config.release == "published"
                          else "protected")]
    if records.missing_values:          # what was done with empty cells (issue 21)
        inputs[0]["missing_values"] = records.missing_values
    if config.release == "published":
        need = 2 * config.published_records
        if records.n_records < need:
            raise InputError(f"{path}: the attacker's sample has {records.n_records:,} records; "
                             f"simulating releases of |D| = {config.published_records:,} people "
                             f"needs at least {need:,} (|D| to stand in for the published "
                             "people, the rest as the attacker's auxiliary data); give a larger "
                             "sample.", source=str(path), key="data")
        order = rng(config.seed, "aggregates-published-standin").permutation(records.n_records)
        stand_in = records.subset(np.sort(order[:config.published_records]))
        rest = records.subset(np.sort(order[config.published_records:]))
        return AuditData(stand_in, rest, "published_sample", inputs)
    if apath is None:
        return AuditData(records, None, "protected_records", inputs)
    aux = load_microdata_csv(apath, records.schema)
    inputs.append(input_entry(apath, rows=aux.n_records, role="auxiliary"))
    if aux.missing_values:
        inputs[-1]["missing_values"] = aux.missing_values
    return AuditData(records, aux, "file", inputs)


def resampled_auxiliary(protected, targets: np.ndarray, seed: int):
    """D_aux when the user gives none: 9·|D| records drawn with replacement from the protected
    records that are not targets — an attacker who knows the population's distribution as
    well as the data itself shows it (strong, hence conservative); never the targets."""
    keep = np.setdiff1d(np.arange(protected.n_records), targets)
    if keep.size == 0:
        raise InputError("Every record is a target, so no auxiliary sample can be drawn from "
                         "the others; give the attacker's sample as a CSV or lower the "
                         "targets attacked at most.", key="auxiliary", setting="max_targets")
    g = rng(seed, "aggregates-auxiliary")
    rows = g.choice(keep, AUXILIARY_RATIO * protected.n_records, replace=True)
    return protected.subset(np.sort(rows))


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


def shadow_noise(spec: ReleaseSpec, sensitivity: float):
    """The release's noise, for the stochastic module's shadow answers (§5.6: the attacker
    knows the mechanism and trains on releases noised the same way); None without noise."""
    if spec.mechanism == "none":
        return None

    def noise(answers_, g):
        return noisy_answers(answers_, spec, sensitivity, g)
    return noise


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


def _view(config: AggregatesGameSettings, game: GameSetup, released: np.ndarray,
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


def _saying(progress: Progress, message: str) -> Progress:
    """``progress`` with every message replaced by ``message``: a one-target call of the
    stochastic module would otherwise say "Scored 1 of 1 targets"."""
    return Progress(lambda fraction, _message: progress(fraction, message))


# A unit's row holds, beside each attack's scores, how many of its solves the wall-clock
# backstop stopped before their deterministic limit (engine.attacks.aggregates.solver): such a
# solve may end elsewhere on a rerun, so the audit says so. Not a valid attack name.
CLOCK_CUTS = "(solves stopped by the clock)"


def _clock_cuts(recon) -> int:
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
            row[CLOCK_CUTS] = row.get(CLOCK_CUTS, 0) + _clock_cuts(recon)
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


def _reconstruction_reads(wanted: dict, view: GameView, *, executor: Executor,
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
    said = _saying(progress, f"Learning from similar public records: target {index + 1:,} of {t:,}")
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


def _certain_where(found: np.ndarray, fallback: np.ndarray) -> np.ndarray:
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
        scores = _rehearsal_scores(
            {c: ATTRIBUTE_ATTACKS[c] for c in attack.candidates}, sview, StochasticInputs(
                game.queries, sview.released, sview.target_codes, s, sview.aux_codes,
                sview.n_records, game.domain, config.n_shadow, config.model, game.spec,
                float(game.base.sensitivity), config.seed),
            units=units, progress=progress, cancel=cancel, tally=tally)
    return best_of.choose(scores, shadow.truth, proved)


def _rehearsal_scores(candidates: dict, sview: GameView, stochastic: StochasticInputs, *,
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
            scores[c] = _reconstruction_reads({c: a}, sview, executor=units,
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
        tally[CLOCK_CUTS] += _clock_cuts(recon)
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
                        else _certain_where(found[a.deterministic], fallbacks[a.fallback]))
        if real_people:
            real_scores[name] = (
                real_fallbacks[a.fallback] if a.deterministic is None
                else _certain_where(real_found[a.deterministic], real_fallbacks[a.fallback]))

    view = _view(config, game, released, n)
    real_view = _view(config, game, real_released, n) if real_people else None
    scorers = {name: a for name, a in wanted.items() if isinstance(a, Scored)}
    for j, (name, a) in enumerate(scorers.items()):
        span = progress.span(0.6 + 0.1 * j / len(scorers), 0.6 + 0.1 * (j + 1) / len(scorers))
        scores[name] = a.score(view, progress=span.span(0.0, 0.5 if real_people else 1.0),
                               cancel=cancel, executor=units)
        if real_people:
            real_scores[name] = a.score(real_view, progress=span.span(0.5, 1.0),
                                        cancel=cancel, executor=units)
    tally: Counter = Counter()
    scores.update(_reconstruction_reads(wanted, view, executor=units,
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
        scores = _rehearsal_scores(
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
        view = _view(config, game, released, n)
        scores = {name: np.zeros(targets.size) for name in wanted if name not in combined}
        tally: Counter = Counter()
        scores.update(_reconstruction_reads(wanted, view, executor=units,
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


# --------------------------------------------------------------------------- exposed records

def exposed_records(outcome: AiaOutcome, *, list_records: bool = False) -> list[dict]:
    """The deterministically vulnerable targets — provably determined by the tables — each
    with the released cells that pin it down: the released queries that can count a record
    with the target's quasi-identifiers (whatever its sensitive value), and their tables, so
    the officer sees which tables to coarsen or suppress. Records are redacted by default
    (:func:`exposed_entry`)."""
    if not outcome.queries:
        return []
    domain = outcome.details.get("domain")
    s = outcome.sensitive_column
    out = []
    for i in np.flatnonzero(outcome.determined):
        codes = outcome.target_codes[i]
        cells = [q for q in outcome.queries
                 if all(codes[c] in allowed for c, allowed in q.conditions if c != s)]
        out.append(exposed_entry(domain, codes, int(outcome.determined_value[i]), cells, s,
                                 listed=list_records and domain is not None,
                                 value_correct=bool(outcome.determined_value[i]
                                                    == outcome.truth[i])))
    return out


def exposed_entry(domain, codes, value: int, cells: list, s: int, *, listed: bool,
                  value_correct: bool | None) -> dict:
    """One exposed record of result.json. The tables of the released cells that pin it down
    are always kept (what to coarsen first, as the report counts them per table). The record's
    quasi-identifiers, its value and the cells themselves — whose labels spell out the
    quasi-identifiers ("P12: sex=Male, age=21") — are kept only with ``listed`` (the user's
    list_exposed_records); otherwise the record and the value read "(redacted)" and only the
    number of cells is kept."""
    # Cells that condition on the sensitive value say what it is; list them first.
    cells = sorted(cells, key=lambda q: not any(c == s for c, _ in q.conditions))
    entry = {"record": REDACTED, "value": REDACTED, "determined": True,
             "value_correct": value_correct, "pinning_count": len(cells),
             "tables": sorted({q.table for q in cells if q.table})}
    if listed:
        entry["record"] = {domain.columns[c]: domain.labels[c][int(codes[c])]
                           for c in range(s)}
        entry["value"] = domain.labels[s][value]
        entry["pinning_cells"] = [q.label for q in cells]
    return entry


def published_findings(config: AggregatesGameSettings, data: AuditData, *, progress: Progress,
                       cancel: CancelToken, executor: Executor | None = None
                       ) -> tuple[dict, list[dict]]:
    """For a published table: is it consistent (the solver proves it or names the rows that
    conflict), and whose sensitive value does it pin down? Every quasi-identifier combination
    of the attacker's sample (at most ``max_targets``… ×10) is checked with the deterministic
    module on the published counts: "if a person with these quasi-identifiers is among the
    |D| counted, and unique there, the table says their value is v". The findings' sentence
    for the reader is the audit's (engine.audits.aggregates)."""
    path = resolve_path(str(config.release_options["path"]))
    protected = data.protected
    qi_names = list(protected.schema.quasi_identifiers)
    columns = qi_names + [protected.schema.sensitive]
    domain, _ = domain_and_codes(protected, columns)
    rows = load_published_rows(path, domain)
    queries, counts = rows.queries, rows.counts
    n = config.published_records
    check = check_published_consistency(domain, queries, counts, n, source=rows.source,
                                        lines=rows.lines,
                                        time_limit=max(config.solver_time_limit, 10.0),
                                        cancel=cancel)
    _, sample = domain_and_codes(data.auxiliary, columns)
    _, stand_in = domain_and_codes(protected, columns)
    every = np.vstack([stand_in, sample])
    s = len(qi_names)
    combos = np.unique(every[:, :s], axis=0)
    limit = 10 * config.max_targets
    if combos.shape[0] > limit:
        pick = rng(config.seed, "aggregates-published-combos").choice(combos.shape[0], limit,
                                                                      replace=False)
        combos = combos[np.sort(pick)]
    space = record_space(domain)
    masks = [space.matches(q.conditions) for q in queries]
    # Each combination's proof is a unit of engine.compute, on the published counts.
    every_release = np.ascontiguousarray(np.broadcast_to(
        np.asarray(counts), (combos.shape[0], len(queries))))
    with units_of(config, executor) as units:
        solved = units.map(prove_target, combos.shape[0], DeterministicInputs(
            space, masks, every_release, n, combos[:, :s], s, (AS_PUBLISHED,),
            config.solver_time_limit, config.seed, step="Published table: combination"),
            progress=progress, cancel=cancel, message="Published table: combinations")
        where = units.where
    exposed = []
    for combo, ((value, status, _seconds, _settled),) in zip(combos, solved, strict=True):
        if status == "determined":
            cells = [q for q in queries
                     if all(combo[c] in allowed for c, allowed in q.conditions if c != s)]
            exposed.append(exposed_entry(domain, combo, value, cells, s,
                                         listed=config.list_exposed_records,
                                         value_correct=None))
    findings = {"path": str(path), "rows": len(queries), "records": n,
                "consistent": check.consistent, "consistency_note": check.note,
                "candidates": int(combos.shape[0]), "determined": len(exposed),
                "computed_on": where}
    return findings, exposed


# --------------------------------------------------------------------------- scoring

def _member_matrix(truth: np.ndarray, n_values: int) -> np.ndarray:
    member = np.zeros((truth.size, n_values), dtype=bool)
    member[np.arange(truth.size), truth] = True
    return member


def top1_guesses(scores: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """Each target's guessed value (row of ``scores``, one column per value): the value with
    the highest score, ties broken uniformly at random.

    Why at random: an attack with no evidence about a target scores every value alike (the
    deterministic module on a target it could not prove); ``argmax`` would then always name
    the first category, and its top-1 accuracy would read as the share of targets whose value
    happens to be listed first (0.000 under noise in the sample) instead of a blind guess."""
    top = scores >= scores.max(axis=1, keepdims=True)
    n_tied = top.sum(axis=1)
    pick = np.minimum((generator.random(len(scores)) * n_tied).astype(np.int64), n_tied - 1)
    rank_among_tied = np.cumsum(top, axis=1) - 1
    return np.argmax(top & (rank_among_tied == pick[:, None]), axis=1)


def evaluate(config: AggregatesGameSettings, outcome: AiaOutcome) -> list[dict]:
    """Every attack through the shared metric layer over the pooled one-vs-rest (target,
    value) pairs, with the AUC interval clustered by target (Obuchowski: a target's |V| pairs
    share one release), plus its top-1 accuracy with a Clopper–Pearson interval beside the
    chance level 1/|V|, and the AUC on the targets the deterministic module left undecided
    (paper 003 Fig. 5). Top-1 guesses break ties at random (:func:`top1_guesses`), each
    attack from its own stream of the config's seed.

    With the outcome's :class:`RealPlay`, each entry also gets ``details["real_people"]``
    (engine.attacks.real_people; issue 32 item 1): the attack's top-1 guess on the release as
    published against the targets' real values, beside the obvious guess and the data-only
    guess on the same targets, with its scaled score and exact one-sided p-value."""
    n_values = next(iter(outcome.scores.values())).shape[1]
    member = _member_matrix(outcome.truth, n_values)
    clusters = np.repeat(np.arange(outcome.truth.size), n_values)
    undecided = ~outcome.determined
    attacks = []
    for name, sc in outcome.scores.items():
        guesses = top1_guesses(sc, rng(config.seed, "aggregates-top1-ties", name))
        top1 = guesses == outcome.truth
        lo, hi = clopper_pearson(int(top1.sum()), top1.size, config.confidence)
        rest = None
        if undecided.sum() >= 2 and undecided.sum() < undecided.size:
            auc_u, ci_u = clustered_auc_ci(sc[undecided].ravel(), member[undecided].ravel(),
                                           np.repeat(np.arange(int(undecided.sum())),
                                                     n_values), config.confidence)
            rest = {"auc": auc_u, "auc_ci": list(ci_u), "targets": int(undecided.sum())}
        entry = evaluate_attack(
            name, LABELS[name], sc.ravel(), member.ravel(), delta=0.0,
            confidence=config.confidence, fpr_targets=config.fpr_targets,
            details={"game": "aia", "paper": "003", "top1_accuracy": float(top1.mean()),
                     "top1_accuracy_ci": [lo, hi], "chance": 1.0 / n_values,
                     # The count and the exact test against chance (engine.evidence).
                     "top1_correct": int(top1.sum()),
                     "top1_p_value": top1_p_value(int(top1.sum()), int(top1.size),
                                                  1.0 / n_values),
                     "excluding_determined": rest, "targets": int(top1.size)})
        if outcome.real is not None:
            entry["details"]["real_people"] = _real_people_of(config, outcome.real, name)
        choice = outcome.details.get("best_of_choices", {}).get(name)
        if choice is not None:            # what the combination chose, on its shadow game
            entry["details"]["shadow_choice"] = choice
        auc, ci = clustered_auc_ci(sc.ravel(), member.ravel(), clusters, config.confidence)
        entry["auc"], entry["auc_ci"] = auc, list(ci)
        entry["auc_ci_method"] = "clustered DeLong (Obuchowski 1997), clusters = targets"
        attacks.append(entry)
    return attacks


def _real_people_of(config: AggregatesGameSettings, real: RealPlay, name: str) -> dict:
    """One attack's real-people block: its top-1 guesses on the published release (ties
    broken from a stream of the config's seed, its own per attack; the data-only guess's
    stream is the one its own entry uses) against the real values."""
    def right(sc: np.ndarray, who: str) -> np.ndarray:
        return top1_guesses(sc, rng(config.seed, "aggregates-real-top1-ties", who)) == real.truth
    return real_people_block(right(real.scores[name], name), real.truth == real.obvious,
                             obvious_label=real.obvious_label,
                             data_only_correct=right(real.data_only, "data_only"),
                             confidence=config.confidence)


def evaluate_mia(config: AggregatesGameSettings, outcome: MiaOutcome) -> list[dict]:
    """The membership attacks through the shared metric layer (one trial per target); the
    combination's entry keeps what its rehearsal chose (``shadow_choice``, as in
    :func:`evaluate`)."""
    out = []
    choices = outcome.details.get("best_of_choices", {})
    for name, sc in outcome.scores.items():
        details = {"game": "mia", "paper": "003"}
        if name in choices:
            details["shadow_choice"] = choices[name]
        out.append(evaluate_attack(name, LABELS[name], sc, outcome.member, delta=0.0,
                                   confidence=config.confidence,
                                   fpr_targets=config.fpr_targets, details=details))
    return out
