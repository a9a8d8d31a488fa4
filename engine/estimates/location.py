"""Cost model of the location-aggregates audit (engine/audits/location.py, paper 000).

Sizes, from the config alone: U people, S sites × E hourly epochs (N = S·E cells), each
person's positive observations after clipping (mean ō, the most exposed person's k_max) — for
the synthetic city from its generator's activity law (engine.data.city), for a CSV from its
size and first megabyte (:mod:`engine.estimates.probe`: rows, distinct users, sites, epochs) with
the same heavy-tailed spread of observations per person; the target's k (most exposed: k_max;
by observations: the asked k), the m cells read (k, plus the reference traces' cells when the
reference attack runs); the attacker's auxiliary pool and the release pool; the u unknown
people per aggregate (0 for the informed attacker).

* **Loading**: the synthetic city's draws (seconds per person × epoch) or the CSV's rows, then
  clipping (seconds per observation).
* **A game** (engine.games.location.play) for one target draws ``count`` aggregates on m cells:
  noise (seconds per value, per mechanism) plus, when the attacker does not know everyone
  (u > 0), the draw of the unknown people — random keys over the A "active" pool members
  (people with a visit among the m cells, A = P·(1 − exp(−pop_active·m·ō/N))) and the sparse
  sums of the people drawn (u·m·ō/N visits per aggregate). Setting up a target slices the
  clipped matrix (seconds per observation).
* **Attacks**: the one- and two-threshold and reference attacks cost seconds per read value;
  the likelihood-ratio attack seconds per value of the k cells plus seconds per value × the
  support of the unknown count law (1 for the informed attacker, else about 3 + μ + 4√μ with
  μ = pop_count·u·ō/N people per cell);
  the MLP meta-classifier Adam steps (epochs until early stopping, measured, × steps per
  epoch, at most 40,000) × the time of one step (a table over the step's multiply-adds), plus
  torch's one-off optimiser set-up; each evaluation (ROC, intervals) seconds per test aggregate.
* **Theory**: the exact optimal attacker's trade-off curve and the privacy accountant, tables
  per mechanism over k measured on log–log axes, for the main target, every sweep target, and
  the bisection over k of the exposed people.
* **Repetitions** replay the main game and attacks; the **sweep** plays ``sweep_targets``
  smaller games (k at the quantiles 5 %…99 % of the people's observations) with the three
  cheap attacks.

Memory: the traces and their clipped copy (bytes per observation, held throughout), then per
step the aggregates it holds — float32 (count × m), the shadows twice (with the unknown counts)
— plus its temporaries (sampling batches of engine.games.location.BATCH_CELLS keys, 65,536-row
noise and likelihood-ratio blocks, their bytes per value measured), scaled by the measured
``bytes_factor``; and torch's optimiser set-up, measured, once a meta-classifier trains, and
what a run allocates whatever its sizes (``overhead_bytes``, from whole runs).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from engine.attacks.location.likelihood_ratio import BATCH_AGGREGATES
from engine.attacks.location.meta_classifier import BATCH_SIZE, MAX_STEPS
from engine.data.city import (
    ACTIVITY_MAX,
    ACTIVITY_MEDIAN,
    ACTIVITY_MIN,
    ACTIVITY_SIGMA,
    GRID,
    HOURLY_RHYTHM,
)
from engine.data.paths import resolve_path
from engine.estimates import CostEstimate, CostPart, constants
from engine.estimates.probe import SAMPLE_BYTES, csv_shape
from engine.estimates.scaling import loglog
from engine.games.location import BATCH_CELLS, noise_rows
from engine.games.location_repeats import SWEEP_ATTACKS

# The sizes the audit's own modules use, read from them so the estimate follows a change.
SIGMA = ACTIVITY_SIGMA          # spread (log-normal σ) of observations per person, as the city's
CITY_SITES = GRID[0] * GRID[1]
CITY_MEDIAN_ACTIVITY, CITY_MAX_ACTIVITY, CITY_MIN_ACTIVITY = \
    ACTIVITY_MEDIAN, ACTIVITY_MAX, ACTIVITY_MIN
CHEAP_ATTACKS = ("one_threshold", "two_threshold", "reference")


@dataclass(frozen=True)
class Sizes:
    users: int
    sites: int
    epochs: int
    mean_obs: float             # positive observations per person after clipping
    k_max: float                # the most exposed person's
    source_rows: int            # CSV rows read (0 for the synthetic city)
    quantiles: tuple[float, ...] = ()   # observations at the sweep's quantiles

    @property
    def cells(self) -> int:
        return max(1, self.sites * self.epochs)

    @property
    def observations(self) -> float:
        return self.users * self.mean_obs


def _city_observations(activity: np.ndarray, epochs: int, clip: int) -> np.ndarray:
    """Observations per person of the synthetic city for each activity level (its generator's
    hourly rhythm; a second site in 4 % of hours, kept when C ≥ 2)."""
    seen = np.minimum(activity[:, None] * HOURLY_RHYTHM[None, :], 0.95).sum(axis=1) * epochs / 24
    return seen * (1.04 if clip >= 2 else 1.0)


def _normal_quantile(q):
    from scipy.stats import norm
    return norm.ppf(q)


def sizes(config) -> Sizes:
    """People, sites, epochs and observations of the config's traces, without reading them."""
    qs = np.linspace(0.05, 0.99, max(int(config.sweep_targets), 0))
    clip = int(config.clip_per_epoch)
    if not config.traces:
        users, epochs = int(config.city_users), int(config.city_epochs)
        z = _normal_quantile(np.r_[(np.arange(200) + 0.5) / 200, 1 - 1 / (users + 1), qs])
        act = np.clip(CITY_MEDIAN_ACTIVITY * np.exp(SIGMA * z), CITY_MIN_ACTIVITY,
                      CITY_MAX_ACTIVITY)
        obs = _city_observations(act, epochs, clip)
        return Sizes(users, CITY_SITES, epochs, float(obs[:200].mean()), 1.05 * float(obs[200]),
                     0, tuple(float(v) for v in obs[201:]))
    shape = csv_shape(_path(config.traces))
    if shape is None or not shape.rows:
        users, sites, epochs, rows = 1000, CITY_SITES, 168, 20_000
    else:
        rows = int(shape.rows)
        cols = {c.strip(): j for j, c in enumerate(shape.columns)}

        def distinct(name: str, default: int) -> int:
            j = cols.get(name)
            return int(shape.distinct[j]) if j is not None else default
        sampled = rows if shape.exact else max(1, int(rows * min(1.0, SAMPLE_BYTES / max(
            1, _file_size(config.traces)))))
        users = max(2, int(round(distinct(config.user_col, 1000) * rows / max(sampled, 1))))
        sites = max(1, distinct(config.site_col, CITY_SITES))
        epochs = max(1, distinct(config.epoch_col, 168))
    top = epochs * min(clip, sites)
    mean = min(rows / users, top)
    # A log-normal spread of observations per person with that mean (as in the city).
    scale = mean * math.exp(-SIGMA ** 2 / 2)
    k_max = min(top, scale * math.exp(SIGMA * float(_normal_quantile(1 - 1 / (users + 1)))))
    quant = tuple(float(min(top, scale * math.exp(SIGMA * z))) for z in _normal_quantile(qs))
    return Sizes(users, sites, epochs, float(mean), float(max(k_max, mean)), rows, quant)


def _path(path: str) -> Path:
    """The file a run would read (engine.data.paths.resolve_path, the loaders' one rule)."""
    return resolve_path(path)


def _file_size(path: str) -> int:
    try:
        return os.stat(_path(path)).st_size
    except OSError:
        return 1


def target_observations(config, s: Sizes) -> float:
    """k of the main target: the most exposed person's, the asked number, or (random) the
    mean; a target named by id may be anyone, so the most exposed (an estimate errs long)."""
    if config.target == "observations":
        return float(max(1, min(config.target_observations, s.k_max)))
    if config.target == "random":
        return max(1.0, s.mean_obs)
    return max(1.0, s.k_max)


def pools(config, s: Sizes) -> tuple[int, int]:
    """(auxiliary pool, release pool) sizes, as engine.audits.location.run splits them."""
    others = max(1, s.users - 1)
    if config.release:
        return others, others
    aux = min(others - 1, config.auxiliary_size or others // 2)
    return max(aux, 1), max(others - aux, 1)


def game_seconds(s: Sizes, count: float, m: float, pool: int, unknown: int,
                 mechanism: str) -> float:
    """Seconds to draw ``count`` aggregates on ``m`` cells (engine.games.location.play)."""
    CAL = constants("location")
    t = count * m * (CAL["noise_seconds_per_value"].get(mechanism, 0.0)
                     + CAL["value_seconds"])
    if unknown > 0:
        t += count * (CAL["key_seconds"] * active_people(s, m, pool)
                      + CAL["visit_seconds"] * unknown * m * s.mean_obs / s.cells)
    return t


def noise_block(count: float, m: float) -> float:
    """Noise values drawn at once by engine.games.location.play (rows × m cells)."""
    return min(count, noise_rows(int(m))) * m


def active_people(s: Sizes, m: float, pool: int) -> float:
    CAL = constants("location")
    return pool * -math.expm1(-CAL["pop_active"] * m * s.mean_obs / s.cells)


def llr_support(config, s: Sizes) -> float:
    if config.unknown_size() <= 0:
        return 1.0
    mu = constants("location")["pop_count"] * config.unknown_size() * s.mean_obs / s.cells
    return 3.0 + mu + 4.0 * math.sqrt(mu)


def meta_seconds(shadows: float, k: float, hidden: float) -> float:
    """Adam steps of one meta-classifier until early stopping, and its validation passes."""
    CAL = constants("location")
    fit = max(1.0, 0.9 * shadows)
    batch = min(BATCH_SIZE, fit)
    per_epoch = math.ceil(fit / batch)
    steps = min(MAX_STEPS, per_epoch * CAL["meta_epochs"])
    epochs = steps / per_epoch
    macs = k * hidden + hidden
    return (steps * loglog(CAL["meta_step_seconds"], batch * macs)
            + epochs * CAL["meta_value_seconds"] * 0.1 * shadows * macs)


def theory_seconds(mechanism: str, k: float) -> float:
    """The exact optimal attacker's trade-off for k observations."""
    if mechanism == "none":
        return 0.0
    return loglog(constants("location")["tradeoff_seconds"][mechanism], max(k, 1))


def accountant_seconds(mechanism: str, k: float) -> float:
    if mechanism == "none":
        return 0.0
    return loglog(constants("location")["compose_seconds"][mechanism], max(k, 1))


def _attacks_seconds(config, s: Sizes, names, k: float, m: float, shadows: float,
                     large: float, tests: float, evaluations: int) -> float:
    CAL = constants("location")
    t = 0.0
    values = (shadows + tests) * m
    for name in names:
        if name in CHEAP_ATTACKS:
            t += CAL["cheap_seconds_per_value"] * values
        elif name == "likelihood_ratio":
            t += (shadows + tests) * k * (CAL["llr_seconds_per_value"]
                                          + CAL["llr_seconds_per_support_value"]
                                          * llr_support(config, s))
        elif name.startswith("meta"):
            hidden = k if name == "meta_classifier" else 100
            t += meta_seconds(shadows, k, hidden)
            if large:
                t += meta_seconds(large, k, hidden)
    return t + CAL["eval_seconds_per_test"] * tests * evaluations


def estimate(config) -> CostEstimate:
    CAL = constants("location")
    s = sizes(config)
    mech = config.mechanism
    k = target_observations(config, s)
    attacks = list(config.attacks)
    metas = [a for a in attacks if a.startswith("meta")]
    # The reference traces' cells beyond the target's (they overlap the target's busy cells).
    m = k + (CAL["reference_cells_factor"] * min(config.reference_traces, s.users) * s.mean_obs
             if "reference" in attacks else 0.0)
    aux, rel = pools(config, s)
    u = config.unknown_size()
    S, T = float(config.shadow_aggregates), float(config.test_aggregates)
    L = float(config.large_shadow_aggregates) if metas else 0.0
    nnz = s.observations
    parts: list[CostPart] = []

    # Loading and clipping.
    if config.traces:
        load_s = CAL["csv_seconds_per_row"] * s.source_rows
        load_b = CAL["csv_bytes_per_row"] * s.source_rows
        what = f"Reading the traces ({s.source_rows:,} rows, about {s.users:,} people)"
        setting = "traces"
    else:
        load_s = CAL["city_seconds_per_cell"] * s.users * s.epochs
        load_b = 16.0 * min(s.users * s.epochs, 4_000_000) + 32.0 * nnz
        what = (f"Drawing the synthetic city ({s.users:,} people × {s.epochs:,} hours)")
        setting = "city_users"
    if config.release:
        rows = getattr(csv_shape(_path(config.release)), "rows", 0) or s.cells
        load_s += CAL["csv_seconds_per_row"] * rows
    load_s += CAL["clip_seconds_per_obs"] * nnz + CAL["overhead_seconds"]
    parts.append(CostPart(what + " and clipping them", load_s, load_b + 40.0 * nnz, setting,
                          "load"))
    resident = CAL["bytes_per_obs"] * nnz

    # The main target's game.
    held = 4.0 * m * (2 * S + L + T)
    noise_b = CAL["noise_bytes_per_value"].get(mech, 0.0)
    sampling_b = (3 * 8.0 * BATCH_CELLS if u > 0 else 0.0) \
        + noise_b * noise_block(max(S, L, T), m)
    game_s = (CAL["slice_seconds_per_obs"] * nnz
              + game_seconds(s, S + L, m, aux, u, mech) + game_seconds(s, T, m, rel, u, mech))
    biggest = max((("test_aggregates", T), ("shadow_aggregates", 2 * S),
                   ("large_shadow_aggregates", L)), key=lambda kv: kv[1])[0]
    # Only an asked k is known before the run; the most exposed person's is estimated long
    # from a sample of the traces, so it is said as a ceiling, not as the run's k (issue 32
    # item 6: "k = 168" here beside "117" on the results page).
    k_words = (f"k = {k:,.0f}" if config.target == "observations" else f"k up to {k:,.0f}")
    parts.append(CostPart(f"Drawing {S + L + T:,.0f} shadow and test aggregates on "
                          f"{m:,.0f} cells (target with {k_words} observations)",
                          game_s, held + sampling_b, biggest, "game"))
    evaluations = len(attacks) + (len(metas) if L else 0)
    att_s = _attacks_seconds(config, s, attacks, k, m, S, L, T, evaluations)
    att_s += CAL["meta_setup_seconds"] if metas else 0.0
    attack_b = held + 8.0 * k * (S + L + T) \
        + CAL["llr_bytes_per_value"] * min(T, BATCH_AGGREGATES) * llr_support(config, s) \
        * ("likelihood_ratio" in attacks)
    slowest = "large_shadow_aggregates" if L else (
        "shadow_aggregates" if metas else "test_aggregates")
    # Its memory is mostly the aggregates the game drew: then lowering their number is the fix.
    parts.append(CostPart(f"Running {len(attacks)} attacks on the {T:,.0f} test aggregates",
                          att_s, attack_b,
                          biggest if attack_b > held + sampling_b else slowest, "attacks"))
    if config.repetitions > 1 and not config.release:
        reps = config.repetitions - 1
        parts.append(CostPart(f"Replaying the main game {reps} more times",
                              reps * (game_s + att_s - (CAL["meta_setup_seconds"] if metas
                                                        else 0.0)),
                              held + max(sampling_b, attack_b - held), "repetitions",
                              "repetitions"))

    # Theory: the exact optimum, the accountant, the people exposed (bisection over k).
    k_epochs = min(k, s.epochs)
    theory_s = theory_seconds(mech, k) + accountant_seconds(mech, k_epochs) * (
        2 if mech in ("gaussian", "discrete_gaussian") else 1)
    j = s.k_max
    while j >= 1:
        theory_s += theory_seconds(mech, j)
        j /= 2
    parts.append(CostPart(f"The best possible attacker, computed exactly, and the people "
                          f"exposed (k up to "
                          f"{s.k_max:,.0f})", theory_s, 0.0, "mechanism", "theory"))

    # The sweep over targets with different k.
    if config.sweep_targets > 0 and not config.release:
        St = float(config.sweep_test_aggregates)
        sweep_s, sweep_b = 0.0, 0.0
        for kq in s.quantiles:
            kq = max(1.0, kq)
            sweep_s += (CAL["slice_seconds_per_obs"] * nnz
                        + game_seconds(s, S, kq, aux, u, mech)
                        + game_seconds(s, St, kq, rel, u, mech)
                        + _attacks_seconds(config, s, SWEEP_ATTACKS, kq, kq, S, 0, St, 3)
                        + theory_seconds(mech, kq)
                        + (accountant_seconds(mech, min(kq, s.epochs))
                           if mech in ("gaussian", "discrete_gaussian") else 0.0))
            sweep_b = max(sweep_b, 4.0 * kq * (2 * S + St) + 8.0 * kq * (S + St)
                          + (3 * 8.0 * BATCH_CELLS if u > 0 else 0.0)
                          + noise_b * noise_block(S, kq)
                          + CAL["llr_bytes_per_value"] * min(St, BATCH_AGGREGATES)
                          * llr_support(config, s))
        parts.append(CostPart(f"Accuracy against observations: {config.sweep_targets} more "
                              f"targets × {St:,.0f} test aggregates", sweep_s, sweep_b,
                              "sweep_targets", "sweep"))
    # torch's optimiser set-up (the first meta-classifier) stays loaded for the rest of the run.
    resident = CAL["bytes_factor"] * resident + CAL.get("overhead_bytes", 0.0) \
        + (CAL["meta_setup_bytes"] if metas else 0.0)
    return CostEstimate.from_parts(
        "location", resident, "traces" if config.traces else "city_users",
        [replace(p, bytes=CAL["bytes_factor"] * p.bytes) for p in parts])
