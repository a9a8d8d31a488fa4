"""The location game played again (issue 22): the main game replayed with the people split
afresh, and the observation sweep (paper 000 Fig. 13/14: accuracy against a target's number of
positive observations). Each replay and each sweep target is a unit of engine.compute, seeded
by its number, so it gives the same numbers in this process or on a Ray cluster. Moved here
from the audit (issue 33 item 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.auditing import evaluate_attack
from engine.compute import run_units
from engine.games.location import build_scenario, run_attacks
from engine.games.location_setup import LocationGame, LocationGameSettings, sampling_device
from engine.games.location_theory import dp_bound_accuracy
from engine.mechanisms.tradeoff import mechanism_tradeoff
from engine.metrics import rates_at_threshold, split_for_selection
from engine.runtime import CancelToken, Progress, rng

SWEEP_ATTACKS = ("one_threshold", "two_threshold", "likelihood_ratio")


def split_for_repetition(config: LocationGameSettings, n_users: int, target_row: int,
                         aux_size: int, repetition: int) -> tuple[np.ndarray, np.ndarray]:
    """(auxiliary rows, release rows) of repetition r ≥ 1: everyone but the target, split afresh
    into the attacker's auxiliary pool (``aux_size`` people) and the release pool, from the
    seeded stream ("attacker-split", r). Repetition 0 is the audit run's own split (engine.games.location_setup.set_up), drawn from
    the "target-and-pools" stream after the target's pick, so its numbers never move (issue 22:
    which people the attacker happens to know moved one auxiliary attack from 0.69 to 0.97)."""
    if repetition < 1:
        raise ValueError("repetition 0 is the run's own split")
    others = np.delete(np.arange(n_users), target_row)
    others = rng(config.seed, "attacker-split", repetition).permutation(others)
    return np.sort(others[:aux_size]), np.sort(others[aux_size:])


@dataclass(frozen=True)
class ReplayInputs:
    """What every repetition of the main game reads (shared once with a cluster's workers)."""

    config: LocationGameSettings
    traces: object
    clipped: sp.csr_matrix
    target_row: int
    aux_rows: np.ndarray
    scale: float | None
    dev: str


def replay_once(index: int, shared: ReplayInputs, progress: Progress,
                cancel: CancelToken) -> tuple[float, dict[str, tuple[float, float]]]:
    """Repetition ``index + 1`` of the main game (a unit of :mod:`engine.compute`): a fresh
    split of the people, fresh shadow and test releases, every attack. Returns (the share of
    the first auxiliary pool this repetition's pool holds, {attack: (accuracy, AUC)})."""
    config, r = shared.config, index + 1
    aux_r, release_r = split_for_repetition(config, shared.traces.n_users, shared.target_row,
                                            shared.aux_rows.size, r)
    overlap = float(np.intersect1d(aux_r, shared.aux_rows, assume_unique=True).size
                    / max(shared.aux_rows.size, 1))
    sc = build_scenario(config, shared.traces, shared.clipped, shared.target_row, release_r,
                        aux_r, shared.scale, ("main", "replay", r),
                        n_test=config.test_aggregates,
                        with_reference="reference" in config.attacks,
                        with_large=any(a.startswith("meta") for a in config.attacks),
                        progress=progress.span(0, 0.6), cancel=cancel,
                        sampling_device=sampling_device(shared.dev))
    measured = {}
    for o in run_attacks(config, sc, config.attacks, shared.dev, progress=progress.span(0.6, 1.0),
                         cancel=cancel):
        e = evaluate_attack(o.name, o.label, o.scores, sc.data.test.labels,
                            delta=config.delta, accuracy_threshold=o.threshold)
        measured[o.name] = (e["accuracy"], e["auc"])
    return overlap, measured


def replay_main_game(config: LocationGameSettings, traces, clipped, target_row: int, release_rows,
                     aux_rows, scale, dev, first: list[dict], *, progress: Progress,
                     cancel: CancelToken) -> tuple[dict, dict]:
    """Play the main game ``repetitions − 1`` more times, each with a fresh split of the people
    into the attacker's auxiliary pool and the release pool (same sizes, same target) and fresh
    shadow and test releases (paper 000 repeats its experiments). The first run's interval
    covers only the test releases' chance; the spread across repetitions also covers which
    people the attacker knows and which ones are released.

    Returns ({attack name: per-repetition accuracies and AUCs with their mean, sd, min, max and,
    when the spread exceeds the first run's interval, a sentence saying so}, an overview: the
    count and how much of the first auxiliary pool each repetition's pool shares)."""
    runs = {a["name"]: {"accuracy": [a["accuracy"]], "auc": [a["auc"]]} for a in first}
    overlap = [1.0]
    # Each repetition is an independent unit (engine.compute): seeded by its number, so it
    # gives the same numbers in this process or on a Ray cluster.
    shared = ReplayInputs(config, traces, clipped, target_row, aux_rows, scale, dev)
    replays, where = run_units(config.compute.cluster, replay_once, config.repetitions - 1,
                               shared, progress=progress, cancel=cancel,
                               message="Replaying the game with a fresh split")
    for pool_overlap, measured in replays:
        overlap.append(pool_overlap)
        for name, (accuracy, auc) in measured.items():
            runs[name]["accuracy"].append(accuracy)
            runs[name]["auc"].append(auc)
    by_name = {a["name"]: a for a in first}
    for name, v in runs.items():
        for key in ("accuracy", "auc"):
            values = np.asarray(v[key], dtype=float)
            v[key + "_mean"] = float(values.mean())
            v[key + "_sd"] = float(values.std(ddof=1))
            v[key + "_min"] = float(values.min())
            v[key + "_max"] = float(values.max())
        ci = by_name[name].get("accuracy_ci") or [math.nan, math.nan]
        v["accuracy_ci_half_width"] = float(0.5 * (ci[1] - ci[0]))
        v["split_redrawn"] = True
        v["sentence"] = spread_sentence(by_name[name]["label"], v, config.attacker)
    overview = {"count": config.repetitions, "split_redrawn": True,
                "auxiliary_pool_overlap": overlap, "computed_on": where,
                "note": "Each repetition splits the people afresh into the attacker's own "
                        "data and the people released (same sizes, same target), then plays "
                        "the game again with fresh simulated releases; the first repetition "
                        "is the run reported above."}
    return runs, overview


def spread_sentence(label: str, reps: dict, attacker: str) -> str:
    """A plain sentence when an attack's accuracy moves between repetitions by more than its
    first run's interval claims (standard deviation over the repetitions above the interval's
    half-width); "" otherwise. The first run's interval only covers the chance of its test
    releases, not which people the attacker knows (issue 22)."""
    sd, half = reps.get("accuracy_sd"), reps.get("accuracy_ci_half_width")
    if not (isinstance(sd, float) and isinstance(half, float) and math.isfinite(sd)
            and sd > half):
        return ""
    n = len(reps.get("accuracy") or [])
    # In % and points, as the summary quotes the mean and spread (issue 32 item 6).
    ranged = (f"the accuracy ranged {reps['accuracy_min']:.1%}–{reps['accuracy_max']:.1%} "
              f"(standard deviation {100 * sd:.1f} points), more than the first run's "
              f"interval of ± {100 * half:.1f} points allows for, so read that interval as "
              "too narrow.")
    if attacker == "informed":
        # The informed attacker subtracts everyone else: only the simulated releases (and the
        # reference attack's reference people) change between repetitions.
        return f"{label}: the result moves from one repetition to the next: across {n} " \
               f"repetitions {ranged}"
    return (f"{label}: the result depends on which people the attacker happens to know: "
            f"across {n} splits {ranged}")


@dataclass(frozen=True)
class SweepInputs:
    """What every sweep target reads (shared once with a cluster's workers)."""

    config: LocationGameSettings
    traces: object
    clipped: sp.csr_matrix
    rows: tuple[int, ...]             # the sweep targets, fewest hours first
    release_rows: np.ndarray
    aux_rows: np.ndarray
    scale: float | None
    dev: str


def sweep_point(index: int, shared: SweepInputs, progress: Progress, cancel: CancelToken):
    """Sweep target ``index`` (a unit of :mod:`engine.compute`): its k, hours, the exact
    optimum and the DP bound, and each cheap attack's accuracy with its interval."""
    config, row = shared.config, shared.rows[index]
    # The sweep target leaves the pools: nobody is both target and released "other".
    rel = shared.release_rows[shared.release_rows != row]
    aux = shared.aux_rows[shared.aux_rows != row]
    sc = build_scenario(config, shared.traces, shared.clipped, row, rel, aux, shared.scale,
                        ("sweep", index), n_test=config.sweep_test_aggregates,
                        with_reference=False, with_large=False, progress=progress.span(0, 0.7),
                        cancel=cancel, sampling_device=sampling_device(shared.dev))
    outs = run_attacks(config, sc, SWEEP_ATTACKS, shared.dev, progress=progress.span(0.7, 1.0),
                       cancel=cancel)
    optimal = bound = None
    if shared.scale is not None:
        optimal = float(mechanism_tradeoff(config.mechanism, shared.scale, 1.0, sc.k).accuracy())
        bound = dp_bound_accuracy(config, shared.scale, sc.k_epochs)
    measured = {}
    for o in outs:
        r = evaluate_attack(o.name, o.label, o.scores, sc.data.test.labels, delta=config.delta,
                            confidence=config.confidence, accuracy_threshold=o.threshold)
        # The counts behind the accuracy, for the family-wise test of every point against the
        # ε-DP bound (engine.plots.series.dp_bound_check; issue 32 item 5).
        s, y = np.asarray(o.scores), np.asarray(sc.data.test.labels, dtype=bool)
        if o.threshold is None:      # evaluate_attack measured on the split it did not select on
            keep = ~split_for_selection(y)
            s, y = s[keep], y[keep]
        counts = rates_at_threshold(s, y, r["details"]["accuracy_threshold"])
        measured[o.name] = {"accuracy": r["accuracy"], "accuracy_ci": r["accuracy_ci"],
                            "accuracy_counts": list(counts)}
    return sc.k, sc.k_epochs, optimal, bound, measured


def observation_sweep(config: LocationGameSettings, traces, clipped, main_target: int, release_rows,
                      aux_rows, scale, dev, *, progress: Progress, cancel: CancelToken) -> dict:
    """Accuracy of the cheap attacks for targets spread over k, with the theory lines."""
    if config.sweep_targets <= 0:
        return {}
    k_all = clipped.getnnz(axis=1)
    candidates = np.r_[release_rows, aux_rows]
    candidates = candidates[k_all[candidates] > 0]
    qs = np.linspace(0.05, 0.99, config.sweep_targets)
    chosen = []
    for q in qs:
        kq = np.quantile(k_all[candidates], q)
        row = int(candidates[np.argmin(np.abs(k_all[candidates] - kq))])
        if row not in chosen:
            chosen.append(row)
    # The sweep always uses the three cheap attacks (no training), whatever the main run uses.
    out = {"observations": [], "epochs": [], "optimal_accuracy": [], "dp_bound_accuracy": [],
           "test_aggregates": config.sweep_test_aggregates,
           "attacks": {name: [] for name in SWEEP_ATTACKS}}
    # Each sweep target is an independent unit (engine.compute), seeded by its number.
    rows = sorted(chosen, key=lambda r: k_all[r])
    shared = SweepInputs(config, traces, clipped, tuple(rows), release_rows, aux_rows, scale, dev)
    points, where = run_units(config.compute.cluster, sweep_point, len(rows), shared,
                              progress=progress, cancel=cancel,
                              message="Measuring people seen in fewer or more hours")
    for k, k_epochs, optimal, bound, measured in points:
        out["observations"].append(k)
        out["epochs"].append(k_epochs)
        if scale is not None:
            out["optimal_accuracy"].append(optimal)
            out["dp_bound_accuracy"].append(bound)
        for name, point in measured.items():
            out["attacks"][name].append(point)
    out["computed_on"] = where
    return out


def replay_into(config: LocationGameSettings, game: LocationGame, attacks: list[dict], *,
                progress: Progress, cancel: CancelToken) -> dict | None:
    """When the settings ask for repetitions (and no published release is attacked), replay the
    main game and put each attack's repetitions in its details; returns the overview, or
    None when the game is played once."""
    if config.repetitions <= 1 or game.published is not None:
        return None
    replays, overview = replay_main_game(
        config, game.traces, game.clipped, game.target_row, game.release_rows, game.aux_rows,
        game.scale, game.dev, attacks, progress=progress, cancel=cancel)
    for a in attacks:
        a["details"]["repetitions"] = replays[a["name"]]
    return overview


def sweep_of(config: LocationGameSettings, game: LocationGame, *, progress: Progress,
             cancel: CancelToken) -> dict:
    """The observation sweep of this game; none against a published release."""
    if game.published is not None:
        return {}
    return observation_sweep(config, game.traces, game.clipped, game.target_row,
                             game.release_rows, game.aux_rows, game.scale, game.dev,
                             progress=progress, cancel=cancel)
