"""Interpolation in measured cost tables.

Costs measured at a few sizes (``bench/bench_estimates.py --calibrate``) are read between and
beyond those sizes on log–log axes: between two sizes along the straight line joining them (a
power law, which is what the cost of array work over n items looks like), beyond the largest
along the last segment's slope (at most 2: no step of an audit is worse than quadratic in one
size). A table is first made non-decreasing (each value at least the one before): a larger
size never gets a smaller estimate, even where one measurement came out faster than a smaller
one (a different algorithm path, a cache) — an estimate should rather err long.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

MAX_SLOPE = 2.0


def loglog(table: Sequence[Sequence[float]], x: float, column: int = 1) -> float:
    """The value of ``column`` at size ``x`` in ``table`` (rows ``(size, value, …)``, sizes
    ascending and positive), interpolated on log–log axes, non-decreasing in ``x``."""
    rows, running = [], 1e-12
    for r in table:
        running = max(running, float(r[column]))
        rows.append((float(r[0]), running))
    if not rows:
        return 0.0
    x = max(float(x), 1e-12)
    if len(rows) == 1 or x <= rows[0][0]:
        return rows[0][1]
    for (x0, y0), (x1, y1) in zip(rows, rows[1:], strict=False):
        if x <= x1:
            return y0 * (x / x0) ** _slope(x0, y0, x1, y1)
    (x0, y0), (x1, y1) = rows[-2], rows[-1]
    return y1 * (x / x1) ** min(_slope(x0, y0, x1, y1), MAX_SLOPE)


def _slope(x0: float, y0: float, x1: float, y1: float) -> float:
    return math.log(y1 / y0) / math.log(x1 / x0) if x1 > x0 else 0.0
