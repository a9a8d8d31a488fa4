"""Differencing: a small group recovered as the difference of published cells (issue 34 item
2; ONS "Disclosure control guidance for tables produced from surveys" 2014, differencing;
Eurostat SDC handbook, Hundepool et al. 2010, §4.3.1 "disclosure by differencing").

What is detected, on the cells of one release (all its tables together) and the total |D|
(paper 003's attacker knows |D|, so it counts as a published cell):

1. **Nested cells.** Cell B lies inside cell A — on every column B's allowed values are a
   subset of A's (a column A does not name allows every value), and the two differ — so
   A − B counts exactly the people of A who are not in B. When that difference is 1 to
   threshold − 1 people, both cells fail ("A minus B leaves d people"). The total minus a
   cell is the same case: a cell holding all but a few people fails.
2. **Total minus siblings.** A parent cell P (or the total) and at least two published cells
   that split it along one column — equal to P on every other column, naming disjoint parts of
   P's values on that column — leave the part of P they do not name: P − Σ siblings. When that
   part holds 1 to threshold − 1 people it fails: on P (which holds those people), or, for the
   total, on the siblings whose publication gives it away. This is the "suppressed cell = the
   published total − the other published cells" case.

What is **not** detected (the attacks' deterministic module — CP-SAT over every released
count at once, paper 003 Alg. 1 — is what catches these): differences of cells that do not nest
(overlapping buckets of two tables), combinations of three or more cells that do not form one
split along one column (inclusion–exclusion across tables, a suppressed cell recovered through
two margins), the linear system of the whole release, cells of other releases or outside
knowledge, and noise (the rules judge the true counts, as ACRO does; noisy counts make the
difference uncertain for an attacker, which the rules do not credit).

Cost: nested pairs are one matrix product of the cells' allowed-value indicators, in blocks of
rows (cells × cells, never a loop over records); the splits are one dictionary pass over
cells × columns.
"""

from __future__ import annotations

import numpy as np

from engine.rules.cells import Cells
from engine.rules.checks import Failure, people

BLOCK = 1024          # rows of the nested-cell product at a time (memory: BLOCK × cells)


def allowed_matrix(queries, sizes: tuple[int, ...]) -> np.ndarray:
    """(cells × Σ|V_j|) 0/1: which values of each column each cell allows (a column it does
    not name: all of them)."""
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    out = np.ones((len(queries), int(offsets[-1])), dtype=np.float32)
    for i, q in enumerate(queries):
        for c, allowed in q.conditions:
            out[i, offsets[c]:offsets[c + 1]] = 0.0
            if allowed:
                out[i, offsets[c] + np.fromiter(allowed, dtype=np.int64)] = 1.0
    return out


def nested(cells: Cells, sizes: tuple[int, ...], total: float | None, threshold: int
           ) -> list[Failure]:
    """Case 1 of the module docstring (with the total when ``total`` is given)."""
    m = cells.size
    if m == 0:
        return []
    allow = allowed_matrix(cells.queries, sizes)
    outside = 1.0 - allow
    count = cells.count
    out: list[Failure] = []
    first: dict[int, tuple[int, float]] = {}
    extra: dict[int, int] = {}

    def note(i: int, other: int, d: float) -> None:
        if i in first:
            extra[i] = extra.get(i, 0) + 1
        else:
            first[i] = (other, d)

    for lo in range(0, m, BLOCK):
        hi = min(m, lo + BLOCK)
        # inside[b, a]: cell lo+b allows no value cell a leaves out, so b ⊆ a.
        inside = (allow[lo:hi] @ outside.T) == 0
        strict = (outside[lo:hi] @ allow.T) > 0        # and b leaves out something a allows
        d = count[None, :] - count[lo:hi, None]
        # An empty B adds nothing: A − B is A itself, judged on its own.
        hit = inside & strict & (count[lo:hi, None] > 0) & (d > 0) & (d < threshold)
        for b, a in zip(*np.nonzero(hit), strict=True):
            note(lo + int(b), int(a), float(d[b, a]))
            note(int(a), lo + int(b), float(d[b, a]))
    if total is not None:
        d = total - count
        for b in np.flatnonzero((d > 0) & (d < threshold)):
            note(int(b), -1, float(d[b]))
    for i, (other, d) in sorted(first.items()):
        what = ("the total" if other < 0 else f"cell '{cells.labels[other]}'")
        more = (f" (and {extra[i]} more such pair{'s' if extra[i] != 1 else ''})"
                if extra.get(i) else "")
        out.append(Failure("differencing", i, f"this cell and {what} differ by "
                           f"{people(d)}: a group under the threshold, recovered by "
                           f"subtraction{more}."))
    return out


def total_minus_siblings(cells: Cells, sizes: tuple[int, ...], total: float | None,
                         threshold: int) -> list[Failure]:
    """Case 2 of the module docstring."""
    queries = cells.queries
    ncols = len(sizes)
    everything = [frozenset(range(k)) for k in sizes]
    children: dict[tuple, list[tuple[int, frozenset]]] = {}
    for i, q in enumerate(queries):
        conds = dict(q.conditions)
        for j, allowed in conds.items():
            rest = tuple(sorted((c, a) for c, a in conds.items() if c != j))
            children.setdefault((j, rest), []).append((i, allowed))
    parents = [(i, dict(q.conditions), cells.count[i]) for i, q in enumerate(queries)]
    if total is not None:
        parents.append((-1, {}, float(total)))
    found: dict[int, str] = {}
    for p, conds, p_count in parents:
        for j in range(ncols):
            own = conds.get(j, everything[j])
            rest = tuple(sorted((c, a) for c, a in conds.items() if c != j))
            kids = [(i, a) for i, a in children.get((j, rest), ())
                    if i != p and a < own]
            used: set[int] = set()
            parts = []
            for i, a in kids:            # disjoint parts only (a bucket overlapping is skipped)
                if not used & a:
                    used |= a
                    parts.append(i)
            if len(parts) < 2 or used == own:
                continue
            left = p_count - float(cells.count[parts].sum())
            if not 0 < left < threshold:
                continue
            whom = "the total" if p < 0 else "this cell"
            sentence = (f"{whom} minus {len(parts)} published cells that split it leaves "
                        f"{people(left)}: a group under the threshold recovered by "
                        "subtraction.")
            for i in ([p] if p >= 0 else parts):
                found.setdefault(i, sentence)
    return [Failure("differencing", i, r) for i, r in sorted(found.items())]


def differencing(cells: Cells, sizes: tuple[int, ...], total: float | None,
                 threshold: int) -> list[Failure]:
    """Both cases, one failure per cell (the first reason found)."""
    seen: set[int] = set()
    out = []
    for f in [*nested(cells, sizes, total, threshold),
              *total_minus_siblings(cells, sizes, total, threshold)]:
        if f.cell not in seen:
            seen.add(f.cell)
            out.append(f)
    return sorted(out, key=lambda f: f.cell)
