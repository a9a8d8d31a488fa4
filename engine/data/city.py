"""A seeded synthetic city of location traces, for demos, tests and benchmarks.

Paper 000 (§5.1) audits aggregates of ~15,800 Milan traces gridded into 96 sites (12 × 8) over
800 hourly epochs. Those data cannot ship with the app, so this generator produces traces with
the features that matter to the attacks: users with a home and a work site, popular and quiet
sites (heavy-tailed popularity, busier downtown), a daily and weekly rhythm, and activity levels
from barely to very active, so positive observations per user (§2.1.2, the quantity that drives
privacy risk) spread from a handful to several hundred, median a few tens.

Regenerate the bundled sample with::

    python -m engine.data.city --out resources/location/sample_city.csv \
        --users 1500 --epochs 168 --seed 0
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from engine.data.traces import Traces
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng

# Probability of being seen somewhere in an epoch is activity × rhythm[hour]: quiet at night,
# peaks at the morning commute, lunch and the evening (mean 1 over the day).
HOURLY_RHYTHM = np.array([0.35, 0.2, 0.12, 0.1, 0.1, 0.2, 0.5, 1.1, 1.5, 1.2, 1.0, 1.1,
                          1.5, 1.4, 1.0, 1.0, 1.1, 1.4, 1.7, 1.8, 1.7, 1.4, 1.0, 0.6])
HOURLY_RHYTHM = HOURLY_RHYTHM / HOURLY_RHYTHM.mean()

# Where a seen user is, by time slot: (home, work, elsewhere). Night: mostly home; weekday
# office hours: mostly work; evenings and weekends: home or out.
_SLOT_NIGHT, _SLOT_OFFICE, _SLOT_FREE = 0, 1, 2
_WHERE = np.array([[0.88, 0.02, 0.10],
                   [0.12, 0.70, 0.18],
                   [0.45, 0.10, 0.45]])
_SECOND_SITE = 0.04      # chance of a second site in the same hour (moving between places)
_COMMUTER_SHARE = 0.8    # the others (students, retired, home workers) have work = home
_N_FAVOURITES = 3        # personal haunts make traces distinctive, as real ones are
_FAVOURITE_SHARE = 0.6   # share of "elsewhere" visits that go to one of them
_CELLS_PER_CHUNK = 4_000_000  # bounds the (users × epochs) random block of one chunk


def _site_popularity(g: np.random.Generator, n_rows: int, n_cols: int, sigma: float,
                     centre_weight: float) -> np.ndarray:
    """Heavy-tailed site weights: log-normal noise times a downtown bump, normalised."""
    r, c = np.meshgrid(np.arange(n_rows), np.arange(n_cols), indexing="ij")
    cr, cc = (n_rows - 1) / 2, (n_cols - 1) / 2
    d2 = ((r - cr) / max(n_rows / 4, 1)) ** 2 + ((c - cc) / max(n_cols / 4, 1)) ** 2
    w = np.exp(g.normal(0.0, sigma, size=n_rows * n_cols)) * (
        (1 - centre_weight) + centre_weight * np.exp(-d2.ravel() / 2))
    return w / w.sum()


def _draw(g: np.random.Generator, cdf: np.ndarray, n: int) -> np.ndarray:
    """n sites drawn from a popularity cdf (vectorised inverse-cdf sampling)."""
    return np.minimum(np.searchsorted(cdf, g.random(n), side="right"), cdf.size - 1)


# Log-normal activity, the share of hours a person is seen: median ~3.5 % of hours; the tails
# give near-silent users and users seen most waking hours (engine.estimates.location reads it).
ACTIVITY_MEDIAN, ACTIVITY_SIGMA = 0.035, 1.25
ACTIVITY_MIN, ACTIVITY_MAX = 0.002, 0.75
GRID = (12, 8)                  # paper 000 §5.1: 96 sites


def generate_city(seed: int = 0, n_users: int = 16000, grid: tuple[int, int] = GRID,
                  n_epochs: int = 800, *, progress: Progress = NO_PROGRESS,
                  cancel: CancelToken = NEVER) -> Traces:
    """Synthetic hourly traces of ``n_users`` people over a ``grid`` of sites (paper 000 §5.1).

    Epoch 0 is Monday 00:00; an epoch is one hour. Deterministic for given arguments (one
    stream, ``rng(seed, "city")``). Users are built in chunks of vectorised draws so memory stays
    bounded (about ``_CELLS_PER_CHUNK`` floats at a time plus the sparse result). Every user is
    seen at least once, so writing and re-reading a CSV keeps everyone.
    """
    n_rows, n_cols = (int(v) for v in grid)
    n_users, n_epochs = int(n_users), int(n_epochs)
    if n_users < 1 or n_epochs < 1 or n_rows < 1 or n_cols < 1:
        raise ValueError("generate_city needs at least one user, one epoch and one site")
    n_sites = n_rows * n_cols
    g = rng(seed, "city")

    home_pop = _site_popularity(g, n_rows, n_cols, sigma=0.8, centre_weight=0.3)
    work_pop = _site_popularity(g, n_rows, n_cols, sigma=1.4, centre_weight=0.9)
    fun_pop = _site_popularity(g, n_rows, n_cols, sigma=1.2, centre_weight=0.7)
    home_cdf, work_cdf, fun_cdf = (np.cumsum(p) for p in (home_pop, work_pop, fun_pop))

    home = _draw(g, home_cdf, n_users)
    work = np.where(g.random(n_users) < _COMMUTER_SHARE, _draw(g, work_cdf, n_users), home)
    favourites = _draw(g, fun_cdf, n_users * _N_FAVOURITES).reshape(n_users, _N_FAVOURITES)
    activity = np.clip(np.exp(g.normal(np.log(ACTIVITY_MEDIAN), ACTIVITY_SIGMA, size=n_users)),
                       ACTIVITY_MIN, ACTIVITY_MAX)

    hours = np.arange(n_epochs) % 24
    weekday = (np.arange(n_epochs) // 24) % 7 < 5
    slot = np.full(n_epochs, _SLOT_FREE, dtype=np.int64)
    slot[(hours >= 22) | (hours < 7)] = _SLOT_NIGHT
    slot[weekday & (hours >= 9) & (hours < 17)] = _SLOT_OFFICE
    rhythm = HOURLY_RHYTHM[hours].astype(np.float32)
    where_cdf = np.cumsum(_WHERE, axis=1)

    chunk = max(1, _CELLS_PER_CHUNK // n_epochs)
    parts_u: list[np.ndarray] = []
    parts_c: list[np.ndarray] = []
    for start in range(0, n_users, chunk):
        cancel.check()
        stop = min(start + chunk, n_users)
        p = np.minimum(activity[start:stop, None].astype(np.float32) * rhythm[None, :], 0.95)
        uu, ee = np.nonzero(g.random((stop - start, n_epochs), dtype=np.float32) < p)
        uu = uu.astype(np.int64) + start
        ee = ee.astype(np.int64)
        # Which place: home / work / elsewhere by the time slot's probabilities.
        pick = (g.random(uu.size)[:, None] > where_cdf[slot[ee]]).sum(axis=1)
        fav = favourites[uu, g.integers(0, _N_FAVOURITES, size=uu.size)]
        other = np.where(g.random(uu.size) < _FAVOURITE_SHARE, fav, _draw(g, fun_cdf, uu.size))
        site = np.choose(np.minimum(pick, 2), (home[uu], work[uu], other))
        # Occasionally a second place in the same hour: what per-epoch clipping (§2.2.2) trims.
        extra = g.random(uu.size) < _SECOND_SITE
        uu = np.concatenate([uu, uu[extra]])
        ee = np.concatenate([ee, ee[extra]])
        site = np.concatenate([site, _draw(g, fun_cdf, int(extra.sum()))])
        parts_u.append(uu.astype(np.int32))
        parts_c.append((ee * n_sites + site).astype(np.int64))
        progress(stop / n_users, f"Synthetic city: {stop:,} of {n_users:,} users")

    rows = np.concatenate(parts_u) if parts_u else np.zeros(0, np.int32)
    cols = np.concatenate(parts_c) if parts_c else np.zeros(0, np.int64)
    # Users never drawn active get one hour at home, so nobody vanishes from a CSV round trip.
    seen = np.bincount(rows, minlength=n_users) > 0
    silent = np.flatnonzero(~seen)
    if silent.size:
        e = g.integers(0, n_epochs, size=silent.size)
        rows = np.concatenate([rows, silent.astype(np.int32)])
        cols = np.concatenate([cols, e * n_sites + home[silent]])
    matrix = sp.csr_matrix((np.ones(rows.size, dtype=np.uint8), (rows, cols)),
                           shape=(n_users, n_epochs * n_sites))
    # A repeated (user, cell) was summed by the constructor; presence is binary.
    matrix.data[:] = 1
    width = len(str(n_users - 1))
    return Traces(user_ids=tuple(f"u{i:0{width}d}" for i in range(n_users)),
                  site_labels=tuple(f"r{r}c{c}" for r in range(n_rows) for c in range(n_cols)),
                  epoch_labels=tuple(str(e) for e in range(n_epochs)),
                  matrix=matrix, source=f"synthetic city (seed {seed})")


def write_traces_csv(traces: Traces, path: str | Path) -> Path:
    """Write long-form ``user_id,site,epoch`` rows, one per 1 in the matrix.

    Rows go user by user (in the traces' order, so loading keeps that order), then by epoch.
    Users without any observation cannot be written in this form and are lost on reading back.
    """
    m = traces.matrix
    users = np.repeat(np.arange(traces.n_users), np.diff(m.indptr))
    epoch, site = np.divmod(m.indices.astype(np.int64), traces.n_sites)
    frame = pd.DataFrame({
        "user_id": np.asarray(traces.user_ids, dtype=object)[users],
        "site": np.asarray(traces.site_labels, dtype=object)[site],
        "epoch": np.asarray(traces.epoch_labels, dtype=object)[epoch],
    })
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False, lineterminator="\n")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.data.city",
        description="Write a synthetic city's location traces as user_id,site,epoch CSV.")
    parser.add_argument("--out", required=True, help="CSV file to write")
    parser.add_argument("--users", type=int, default=16000, help="number of users")
    parser.add_argument("--epochs", type=int, default=800, help="number of hourly epochs")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--grid", default="12x8", help="site grid ROWSxCOLS (default 12x8)")
    args = parser.parse_args(argv)
    try:
        grid = tuple(int(v) for v in args.grid.lower().split("x"))
        if len(grid) != 2:
            raise ValueError
    except ValueError:
        parser.error(f"--grid must look like 12x8, got {args.grid!r}")
    traces = generate_city(args.seed, args.users, grid, args.epochs)
    path = write_traces_csv(traces, args.out)
    print(f"{path}: {traces.n_users} users, {traces.n_sites} sites, {traces.n_epochs} epochs, "
          f"{traces.matrix.nnz} observations")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
