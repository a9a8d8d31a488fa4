"""The location game's set-up (paper 000 §2.2–2.3): the population, the target, the two pools
and the noise of every released count.

1. Load traces (CSV, or the bundled synthetic city), clip every person to at most C sites per
   epoch (§2.2.2), pick the target (by id, the most exposed person, or at random).
2. Split everyone else into the *release pool* (the people a release is drawn from) and the
   attacker's disjoint *auxiliary pool*; what the attacker knows is the settings'
   ``unknown_size`` (informed θ = 1, partial θ, auxiliary θ = 0; Def. 3).

It reads its settings through :class:`LocationGameSettings`, a Protocol that the audit's
``LocationConfig`` satisfies, so the game imports nothing of the audit (docs/dev/layers.md).
Moved here from engine/audits/location.py (issue 33 item 2: "game" means one thing in every
audit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import scipy.sparse as sp

from engine.compute import ComputeSettings
from engine.data.city import generate_city
from engine.data.errors import InputError
from engine.data.paths import resolve_path
from engine.data.traces import (
    Release,
    Traces,
    clip_per_epoch,
    find_user,
    load_release,
    load_traces_csv,
    validate_audit_sizes,
)
from engine.mechanisms.calibration import noise_scale
from engine.policy import VerdictPolicy
from engine.results.result import REDACTED, input_entry
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng

GAUSSIAN_FAMILY = ("gaussian", "discrete_gaussian")


class LocationGameSettings(Protocol):
    """What the location game reads from its settings (engine.audits.location.LocationConfig
    has all of it; the field comments there are the meanings)."""

    name: str
    traces: str
    user_col: str
    site_col: str
    epoch_col: str
    count_col: str
    epoch_unit: str
    release: str
    release_missing: str
    city_users: int
    city_epochs: int
    target: str
    target_id: str
    target_observations: int
    attacker: str
    known_fraction: float
    auxiliary_size: int
    aggregate_size: int
    clip_per_epoch: int
    mechanism: str
    epsilon: float
    delta: float
    shadow_aggregates: int
    large_shadow_aggregates: int
    test_aggregates: int
    attacks: tuple[str, ...]
    reference_traces: int
    per_cell_fpr: float
    threshold_rule: str
    repetitions: int
    sweep_targets: int
    sweep_test_aggregates: int
    confidence: float
    fpr_targets: tuple[float, ...]
    list_exposed_ids: bool
    seed: int
    policy: VerdictPolicy
    compute: ComputeSettings

    def measured_fpr_targets(self) -> tuple[float, ...]: ...

    def unknown_size(self, aggregate_size: int | None = None) -> int: ...

    def to_dict(self) -> dict: ...


def load_population(config: LocationGameSettings, *, progress: Progress = NO_PROGRESS,
                    cancel: CancelToken = NEVER):
    """(traces, inputs) for the config: the user's CSV or the seeded synthetic city."""
    if config.traces:
        path = resolve_path(config.traces)
        traces = load_traces_csv(path, user_col=config.user_col, site_col=config.site_col,
                                 epoch_col=config.epoch_col, count_col=config.count_col or None,
                                 epoch_unit=config.epoch_unit or None)
        entry = input_entry(path, rows=int(traces.matrix.nnz))
        if traces.missing_values:       # rows left out for a gap, per column (issue 21)
            entry["missing_values"] = traces.missing_values
        return traces, [entry]
    traces = generate_city(config.seed, n_users=config.city_users, n_epochs=config.city_epochs,
                           progress=progress, cancel=cancel)
    return traces, []


def load_published(config: LocationGameSettings, traces) -> tuple[Release, dict]:
    """(release, input record) of the published release, on the traces' grid; the record
    lists the release's empty cells per column (issue 21), as the traces' record does."""
    path = resolve_path(config.release)
    release = load_release(path, sites=traces.site_labels, epochs=traces.epoch_labels,
                           integer_counts=config.mechanism in ("none", "discrete_laplace",
                                                               "discrete_gaussian"),
                           allow_negative=config.mechanism != "none", fill_missing=True,
                           missing=config.release_missing)
    entry = input_entry(path, rows=int(release.values.size))
    if release.missing_values:
        entry["missing_values"] = release.missing_values
    return release, entry


def sampling_device(dev: str) -> str:
    """Aggregates are drawn with torch on a GPU and with sparse numpy products on the CPU
    (faster there than dense torch selections)."""
    return dev if dev.startswith("cuda") else "numpy"


def epoch_sensitivity(mechanism: str, clip: int) -> float:
    """A person changes one epoch's row by at most C ones: L1 = C, L2 = √C."""
    return math.sqrt(clip) if mechanism in GAUSSIAN_FAMILY else float(clip)


def cell_noise_scale(config: LocationGameSettings) -> float | None:
    if config.mechanism == "none":
        return None
    sens = epoch_sensitivity(config.mechanism, config.clip_per_epoch)
    if config.mechanism in ("discrete_laplace", "discrete_gaussian"):
        sens = max(1.0, float(math.ceil(sens)))
    return float(noise_scale(config.mechanism, config.epsilon, config.delta, sens))


def choose_target(config: LocationGameSettings, traces, clipped: sp.csr_matrix,
                  g: np.random.Generator) -> int:
    k = clipped.getnnz(axis=1)
    if config.target == "id":
        return find_user(traces, config.target_id)
    if config.target == "random":
        candidates = np.flatnonzero(k > 0)
        return int(g.choice(candidates))
    if config.target == "observations":       # paper 000 §5 audits targets of a given k
        return int(np.argmin(np.abs(k - config.target_observations)))
    return int(np.argmax(k))          # most positive observations: the most exposed person


def largest_aggregate_size(config: LocationGameSettings, aux_size: int, release_size: int) -> int:
    """The largest n (people in a release besides the target) that these pools can play, 0 if
    none (issue 18: the old hint offered the population's size, which the pools then refused).

    The game (:func:`build_scenario`, :mod:`engine.games.location`) draws the n others of a
    release from the release pool, and the attacker simulates its ``unknown_size(n)`` unknown
    people from its auxiliary pool (and, for the test releases, from the release pool, which
    n ≤ release pool already covers). The observation sweep's targets are taken out of
    whichever pool holds them (:func:`observation_sweep`), so while the sweep runs each pool
    counts one person fewer. A published release has no release pool: its attacker draws all n
    from the auxiliary pool, which is everyone besides the target.
    """
    if config.release:
        return max(0, aux_size)
    spare = 1 if config.sweep_targets > 0 else 0
    most = release_size - spare
    room = aux_size - spare
    if most < 1 or config.unknown_size(most) <= room:
        return max(0, most)
    # unknown_size(n) never decreases with n: the largest n that fits, by bisection.
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if config.unknown_size(mid) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo


def check_aggregate_size(config: LocationGameSettings, aux_size: int, release_size: int) -> None:
    """One sentence when n does not fit the pools, naming the largest n that does."""
    n = config.aggregate_size
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        return  # not a whole number: engine.data.traces.validate_audit_sizes says so
    limit = largest_aggregate_size(config, aux_size, release_size)
    if n <= limit:
        return
    sweep = (" (one fewer in each, as the observation sweep takes its targets out of them)"
             if config.sweep_targets > 0 and not config.release else "")
    if config.release:
        raise InputError(f"The number of people in a release, n = {n:,}, is larger than the "
                         f"{aux_size:,} people "
                         "the attacker can draw its simulated releases from (everyone besides "
                         f"the target); choose n of at most {limit:,} or load more traces.",
                         key="aggregate_size")
    unknown = ("" if config.attacker == "informed" else
               f" (it must supply the {config.unknown_size(n):,} people per release the "
               "attacker does not know)")
    pools = (f"the traces hold {aux_size + release_size:,} people besides the target: "
             f"{aux_size:,} in the attacker's auxiliary pool{unknown} and {release_size:,} left "
             f"for releases{sweep}")
    if limit < 1:
        raise InputError(f"No release size fits: {pools}; lower the number of people in the "
                         "attacker's own data, or load more traces.", key="auxiliary_size")
    raise InputError(f"The number of people in a release, n = {n:,}, is too large for the two "
                     f"pools: {pools}. Choose n of at most {limit:,}, or change the number of "
                     "people in the attacker's own data to move people between the pools.",
                     key="aggregate_size")


@dataclass(frozen=True)
class LocationGame:
    """The game's set-up: everything every target's releases are drawn from."""

    traces: Traces
    inputs: list[dict]                # the input files' records (engine.results.result)
    clipped: sp.csr_matrix            # people × cells, after clipping to C sites per epoch
    target_row: int
    aux_rows: np.ndarray              # the attacker's auxiliary pool
    release_rows: np.ndarray          # the release pool (empty for a published release)
    published: Release | None         # the published release under attack, if any
    scale: float | None               # the noise scale of every cell (None: no noise)
    dev: str                          # the torch device the attacks train on


def set_up(config: LocationGameSettings, dev: str, *, progress: Progress,
           cancel: CancelToken) -> LocationGame:
    """Load, check the pools' sizes, clip, pick the target and split the pools (steps 1–2 of
    the module docstring); ``progress`` is the whole run's (this reports up to 10 %)."""
    progress(0.0, "Loading the traces")
    traces, inputs = load_population(config, progress=progress.span(0.0, 0.08), cancel=cancel)
    # The pools' sizes before any work. Their limit on n is checked before the population's
    # (validate_audit_sizes): that one is larger, and a hint from it was refused here (issue 18).
    n_others = traces.n_users - 1
    aux_size = n_others if config.release else config.auxiliary_size or n_others // 2
    if not config.release and aux_size >= n_others:
        raise InputError(f"{aux_size:,} people in the attacker's own data leaves nobody to "
                         f"release: the data has {n_others:,} people besides the target; use "
                         "fewer.", key="auxiliary_size", setting="auxiliary_size")
    check_aggregate_size(config, aux_size, 0 if config.release else n_others - aux_size)
    validate_audit_sizes(n_others, config.aggregate_size, config.clip_per_epoch,
                         None if config.mechanism == "none" else config.epsilon)
    cancel.check()
    progress(0.08, "Clipping every person to C sites per hour")
    clipped = sp.csr_matrix(clip_per_epoch(traces, config.clip_per_epoch,
                                           rng(config.seed, "clipping")))
    g = rng(config.seed, "target-and-pools")
    target_row = choose_target(config, traces, clipped, g)
    others = np.delete(np.arange(traces.n_users), target_row)
    others = g.permutation(others)
    published = load_published(config, traces) if config.release else None
    if published is not None:
        inputs.append(published[1])
    aux_rows, release_rows = np.sort(others[:aux_size]), np.sort(others[aux_size:])
    scale = cell_noise_scale(config)
    cancel.check()
    return LocationGame(traces, inputs, clipped, target_row, aux_rows, release_rows,
                        None if published is None else published[0], scale, dev)


def game_facts(config: LocationGameSettings, game: LocationGame, k: int, k_epochs: int) -> dict:
    """The target, the attacker and the pools, as the result's theory block records them."""
    traces = game.traces
    return {"target": {"rule": config.target,
                       "id": traces.user_ids[game.target_row] if config.list_exposed_ids or
                       config.target == "id" else REDACTED,
                       "observations": k, "epochs": k_epochs},
            "attacker": config.attacker, "unknown_people": config.unknown_size(),
            "population": traces.n_users, "sites": traces.n_sites,
            "epochs_total": traces.n_epochs, "release_pool": int(game.release_rows.size),
            "auxiliary_pool": int(game.aux_rows.size)}
