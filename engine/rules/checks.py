"""The disclosure rules officers apply to a table, one function each (issue 34 item 2).

Sources: ACRO / SACRO (Green, Ritchie, Smith et al. 2023, "ACRO: automatic checking of research
outputs"; its defaults: threshold 10, zeros disclosive, n,k = 2, 90 %, p = 10 %), the Eurostat
"Handbook on Statistical Disclosure Control" (Hundepool et al. 2010, §4.2 sensitivity rules:
threshold, dominance, p %; §4.2.4 group disclosure) and the ONS "Disclosure control guidance
for tables produced from surveys" (2014: zeros, class disclosure, differencing).

Each check reads the cells (engine.rules.cells.Cells, vectorised) and returns the failing cells
as :class:`Failure` (the rule, the cell's index, a sentence an officer reads). A rule that
cannot be applied without the microdata returns None instead of a list. Differencing is in
engine.rules.differencing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.rules.cells import Cells
from engine.rules.settings import RuleSettings


@dataclass(frozen=True)
class Failure:
    """One cell failing one rule, and why, in plain words."""

    rule: str
    cell: int
    reason: str


def people(x: float) -> str:
    x = float(x)
    n = f"{x:,.0f}" if x.is_integer() else f"{x:,.1f}"
    return f"{n} person" if x == 1 else f"{n} people"


def threshold(cells: Cells, settings: RuleSettings) -> list[Failure]:
    """The threshold (minimum frequency) rule: a cell of 1 to threshold − 1 people is unsafe
    (ACRO's default 10). A zero is left to :func:`zeros` (an empty group identifies no one;
    ACRO too counts zeros separately)."""
    t = settings.threshold
    bad = np.flatnonzero((cells.count > 0) & (cells.count < t))
    return [Failure("threshold", int(i), f"{people(cells.count[i])}, fewer than the "
                    f"threshold of {t}.") for i in bad]


def zeros(cells: Cells, settings: RuleSettings) -> list[Failure]:
    """Zeros are disclosive (ACRO's default): a zero says that no one of the group has these
    values — for a cell naming a sensitive value, that everyone in the group has another."""
    if not settings.zeros_disclosive:
        return []
    bad = np.flatnonzero(cells.count == 0)
    return [Failure("zeros", int(i), "a zero: it tells anyone that no one with these values "
                    "is in the data." if not cells.restricts_sensitive[i] else
                    "a zero: it tells anyone in this group that they do not have the value "
                    "named.") for i in bad]


def group(cells: Cells, settings: RuleSettings) -> list[Failure]:
    """Group (class) disclosure: a cell naming a sensitive value holds every person of its
    group (the same cell without the sensitive condition), so anyone known to be in the group
    has that value — whatever the group's size. With the microdata the group is counted from
    the records; from a published table only where the table shows the group (its total, or
    every sensitive value's cell)."""
    if not settings.group_disclosure:
        return []
    g = cells.group_count
    known = cells.restricts_sensitive & ~np.isnan(g)
    bad = np.flatnonzero(known & (cells.count > 0) & (cells.count == np.where(known, g, -1)))
    return [Failure("group", int(i), f"all {people(cells.count[i])} of this group have the "
                    "value named, so the table tells anyone who knows a person is in the "
                    "group what that person's value is.") for i in bad]


def dominance(cells: Cells, settings: RuleSettings) -> list[Failure] | None:
    """The n,k dominance rule on the cells as sums of the value column: the n largest
    contributions may not make more than k % of the cell's sum (ACRO: n = 2, k = 90 %).
    Contributions are taken as absolute values (Eurostat handbook §4.2.2). None without
    the microdata or a value column."""
    if cells.sums is None or cells.top is None:
        return None
    n, k = settings.dominance_n, settings.dominance_k
    top_n = cells.top[:, :n].sum(axis=1)
    total = cells.sums
    share = np.divide(top_n, total, out=np.zeros_like(total), where=total > 0)
    bad = np.flatnonzero((total > 0) & (share > k / 100.0))
    largest = "largest contribution makes" if n == 1 else f"{n} largest contributions make"
    return [Failure("dominance", int(i), f"the {largest} {share[i]:.1%} of the cell's sum "
                    f"(at most {k:g} % allowed).") for i in bad]


def p_ratio(cells: Cells, settings: RuleSettings) -> list[Failure] | None:
    """The p % rule on the cells as sums: the sum less its two largest contributions must be
    at least p % of the largest, or the second largest contributor can estimate the largest
    to within p % (ACRO: p = 10 %). None without the microdata or a value column."""
    if cells.sums is None or cells.top is None:
        return None
    x1, x2 = cells.top[:, 0], cells.top[:, 1]
    rest = cells.sums - x1 - x2
    p = settings.p_ratio / 100.0
    bad = np.flatnonzero((x1 > 0) & (rest < p * x1))
    return [Failure("p_ratio", int(i), f"without its two largest contributions the sum is "
                    f"{(rest[i] / x1[i]):.1%} of the largest (under {settings.p_ratio:g} %), "
                    "so the second largest contributor can estimate the largest closely.")
            for i in bad]
