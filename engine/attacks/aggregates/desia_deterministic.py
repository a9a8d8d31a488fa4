"""DeSIA's deterministic module (paper 003 §3.1, Alg. 1): is the target's sensitive value the
*only* one the released counts allow?

The attacker knows the domain of every attribute, the dataset size |D|, the released counting
queries with their answers, and the target's quasi-identifiers, and that the target is unique on
them. Unknowns: the multiplicity x_r ≥ 0 of every possible record r in the product of the
domains. Constraints: each released query's records sum to its answer; all multiplicities sum
to |D|; and the *uniqueness constraint*: the records that share the target's quasi-identifiers
(one per sensitive value) sum to 1. A first CP-SAT solve finds a feasible value v̂ (the one
whose x is 1); a second adds the *null constraint* x(target's quasi-identifiers, v̂) = 0. If
that is infeasible, v̂ is the only possibility: the target is **deterministically vulnerable**
— provably determined by the tables — with certainty 1.

Speed-ups of the paper, kept: each x_r is bounded by the smallest answer of a released query
containing r (and |D|), and records forced to 0 (bound 0) are removed before the model is
built. Records that no released query covers keep the bound |D|.

**The auditor's shortcut** (``true_counts``; engine.attacks.aggregates.desia_witness): the
auditor holds the table the release was computed from, which satisfies every constraint with
the target unique, so its value stands in for the first solve's v̂ (an attacker would need that
solve; the answer is the same, since a determined target has only one feasible value). The
second question — is any other value feasible? — is then settled by a witness table found near
the true table and checked exactly ("not determined"), by the released zeros ("determined"),
or else by the published second solve. The answer is the mathematical one of Alg. 1 either
way; only the time differs. The published two-solve path stays for the Table 3 ablations
(``verify=False``, ``uniqueness=False``), for noisy releases (the true table is then not a
solution) and where no true table is given (a published table).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from engine.aggregates.solver import solve
from engine.attacks.aggregates import desia_witness as dw
from engine.data.errors import InputError
from engine.runtime import NEVER, CancelToken

MAX_RECORD_TYPES = 5_000_000


def _too_many_records_message(sizes: tuple[int, ...], columns, total: int) -> str:
    """One sentence: how many possible records the domains give, the largest columns, the fix."""
    names = ([str(c) for c in columns] if columns is not None and len(columns) == len(sizes)
             else [f"column {j + 1}" for j in range(len(sizes))])
    order = sorted(range(len(sizes)), key=lambda j: (-sizes[j], j))
    big = [f"'{names[j]}' ({sizes[j]:,} values)" if not names[j].startswith("column ")
           else f"{names[j]} ({sizes[j]:,} values)" for j in order[:3] if sizes[j] > 1]
    product = " × ".join(f"{sizes[j]:,}" for j in order) if len(sizes) <= 8 else \
        f"the sizes of the {len(sizes)} columns"
    largest = (f"; the largest are {', '.join(big[:-1])} and {big[-1]}" if len(big) > 1
               else f"; the largest is {big[0]}" if big else "")
    return (f"The quasi-identifiers and the sensitive column allow {total:,} possible records "
            f"({product}){largest} — more than the {MAX_RECORD_TYPES:,} the exact attack can "
            f"enumerate; use fewer quasi-identifiers, coarser bins (e.g. age in 5-year groups) "
            f"or set some of these columns' role to 'ignore'.")


@dataclass(frozen=True)
class RecordSpace:
    """Every possible record (the product of the attribute domains), as a (T, c) code array."""

    domain_sizes: tuple[int, ...]
    codes: np.ndarray                # (T, c) int32

    @classmethod
    def of(cls, domain_sizes, *, columns=None) -> RecordSpace:
        """The space of ``domain_sizes`` (a sequence of sizes, or a Domain, whose column names
        then go into messages; ``columns`` names the columns otherwise). More than
        MAX_RECORD_TYPES possible records is an InputError sentence naming the largest
        columns."""
        if hasattr(domain_sizes, "sizes") and hasattr(domain_sizes, "columns"):
            columns = domain_sizes.columns if columns is None else columns
            domain_sizes = domain_sizes.sizes
        sizes = tuple(int(s) for s in domain_sizes)
        total = math.prod(sizes)               # exact: np.prod would overflow int64
        if total > MAX_RECORD_TYPES:
            raise InputError(_too_many_records_message(sizes, columns, total),
                             key="quasi_identifiers")
        grid = np.indices(sizes, dtype=np.int32).reshape(len(sizes), -1).T
        return cls(sizes, np.ascontiguousarray(grid))

    def matches(self, conditions) -> np.ndarray:
        """(T,) bool: the possible records a query's conditions select."""
        mask = np.ones(self.codes.shape[0], dtype=bool)
        for column, allowed in conditions:
            mask &= np.isin(self.codes[:, column], np.fromiter(allowed, dtype=np.int32))
        return mask


@dataclass
class DeterministicOutcome:
    value: int | None            # the only feasible sensitive value, or None
    status: str                  # "determined" | "not_unique" | "infeasible" | "time_limit"
    feasible_value: int | None   # the value the first solve found (if any)
    seconds: float
    n_variables: int
    details: dict = field(default_factory=dict)
    witness: np.ndarray | None = None   # a table proving "not determined", when one was found

    @property
    def settled_by(self) -> str:
        """How the answer was reached: "witness table" (another consistent table gives the
        target another value), "released zeros" (the zero cells leave only one value),
        "solver" (CP-SAT proved or found it), or "" (no answer: time limit, inconsistent)."""
        return str(self.details.get("settled_by", "solver" if self.status in
                                    ("determined", "not_unique") else ""))


def build_model(space: RecordSpace, query_masks: list[np.ndarray], answers: np.ndarray,
                n_records: int, target_mask: np.ndarray | None):
    """CP-SAT model of Alg. 1 lines 1–11. Returns (model, variables by record index)."""
    from ortools.sat.python import cp_model

    upper = np.full(space.codes.shape[0], int(n_records), dtype=np.int64)
    for mask, answer in zip(query_masks, answers, strict=True):
        upper[mask] = np.minimum(upper[mask], int(answer))
    keep = np.flatnonzero(upper > 0)      # records forced to 0 are never built
    model = cp_model.CpModel()
    x = {int(r): model.new_int_var(0, int(upper[r]), f"x{r}") for r in keep}
    for mask, answer in zip(query_masks, answers, strict=True):
        members = [x[r] for r in np.flatnonzero(mask) if r in x]
        if members:
            model.add(sum(members) == int(answer))
        elif int(answer) != 0:
            model.add_bool_or([])          # a positive count over records forced to 0
    model.add(sum(x.values()) == int(n_records))
    if target_mask is not None:            # the uniqueness constraint
        model.add(sum(x[r] for r in np.flatnonzero(target_mask) if r in x) == 1)
    return model, x


def infer(space: RecordSpace, query_masks: list[np.ndarray], answers: np.ndarray,
          n_records: int, target_qi: dict[int, int], sensitive_column: int, *,
          uniqueness: bool = True, verify: bool = True, time_limit: float = 10.0,
          workers: int = 2, seed: int = 0, cancel: CancelToken = NEVER,
          true_counts: np.ndarray | None = None,
          layout: dw.ReleaseLayout | None = None) -> DeterministicOutcome:
    """Alg. 1 for one target. ``target_qi`` maps column → code for the target's
    quasi-identifiers; the ablations of Table 3 switch off the uniqueness constraint or the
    verification step (then the first feasible value is returned as if it were certain).

    ``true_counts`` (the auditor's table: a count per possible record) takes the auditor's
    shortcut (module docstring) when the release is exact and the table reproduces it with the
    target unique; ``layout`` (desia_witness.ReleaseLayout of these masks) is built once by a
    caller that proves many targets on one release design."""
    start = time.perf_counter()
    target_mask = space.matches([(c, {v}) for c, v in target_qi.items()])
    if true_counts is not None and uniqueness and verify:
        fast = _infer_from_truth(space, query_masks, answers, n_records, target_mask,
                                 sensitive_column, np.asarray(true_counts), layout,
                                 time_limit=time_limit, workers=workers, seed=seed,
                                 cancel=cancel, start=start)
        if fast is not None:
            return fast
    model, x = build_model(space, query_masks, answers, n_records,
                           target_mask if uniqueness else None)
    status, solver = solve(model, time_limit=time_limit, workers=workers, cancel=cancel,
                           seed=seed)
    n_vars = len(x)
    if status == "INFEASIBLE":
        return DeterministicOutcome(None, "infeasible", None, time.perf_counter() - start,
                                    n_vars)
    if status not in ("OPTIMAL", "FEASIBLE"):
        return DeterministicOutcome(None, "time_limit", None, time.perf_counter() - start,
                                    n_vars)
    candidates = [r for r in np.flatnonzero(target_mask) if r in x and solver.value(x[r]) > 0]
    if not candidates:                       # without uniqueness the target may get 0 copies
        return DeterministicOutcome(None, "not_unique", None, time.perf_counter() - start,
                                    n_vars)
    found = int(candidates[0])
    value = int(space.codes[found, sensitive_column])
    if not verify:
        return DeterministicOutcome(value, "determined", value, time.perf_counter() - start,
                                    n_vars, {"verified": False})
    model.add(x[found] == 0)                 # the null constraint
    status2, _ = solve(model, time_limit=time_limit, workers=workers, cancel=cancel, seed=seed)
    seconds = time.perf_counter() - start
    if status2 == "INFEASIBLE":
        return DeterministicOutcome(value, "determined", value, seconds, n_vars,
                                    {"verified": True})
    if status2 in ("OPTIMAL", "FEASIBLE"):
        return DeterministicOutcome(None, "not_unique", value, seconds, n_vars)
    return DeterministicOutcome(None, "time_limit", value, seconds, n_vars)


def _infer_from_truth(space: RecordSpace, query_masks, answers, n_records: int,
                      target_mask: np.ndarray, sensitive_column: int, truth: np.ndarray,
                      layout: dw.ReleaseLayout | None, *, time_limit: float, workers: int,
                      seed: int, cancel: CancelToken, start: float) -> DeterministicOutcome | None:
    """Alg. 1 from the true table (module docstring); None when the shortcut does not apply
    (a noisy release, a table that does not reproduce it, or a target not unique in it)."""
    exact = dw.exact_answers(answers)
    if exact is None or truth.shape != (space.codes.shape[0],):
        return None
    if layout is None:
        layout = dw.ReleaseLayout.of(space, query_masks, sensitive_column)
    if int(truth[target_mask].sum()) != 1 or not dw.reproduces(layout, truth, exact, n_records):
        return None
    true_record = int(np.flatnonzero(target_mask & (truth > 0))[0])
    value = int(space.codes[true_record, sensitive_column])

    def outcome(status: str, settled_by: str, witness=None, n_vars: int = 0):
        return DeterministicOutcome(value if status == "determined" else None, status, value,
                                    time.perf_counter() - start, n_vars,
                                    {"verified": status == "determined", "shortcut": True,
                                     "settled_by": settled_by}, witness)

    if dw.pinned_by_zeros(layout, exact, n_records, target_mask, true_record):
        return outcome("determined", "released zeros")
    for near in dw.NEIGHBOURHOODS:
        for other in range(space.domain_sizes[sensitive_column]):
            if other == value:
                continue
            found, table = dw.relabel_witness(layout, truth, exact, n_records, target_mask,
                                              true_record, other, near=near,
                                              time_limit=time_limit, workers=workers,
                                              seed=seed, cancel=cancel)
            if found == "found":
                return outcome("not_unique", "witness table", table)
    # No witness in the neighbourhood: Alg. 1's second solve (the null constraint) decides.
    model, x = build_model(space, query_masks, answers, n_records, target_mask)
    model.add(x[true_record] == 0)
    return _null_solve(model, x, outcome, time_limit=time_limit, workers=workers, seed=seed,
                       cancel=cancel)


def _null_solve(model, x, outcome, *, time_limit: float, workers: int, seed: int,
                cancel: CancelToken) -> DeterministicOutcome:
    """The shortcut's last resort: the model with its null constraint already added, solved
    once; infeasible — the answer is certain; feasible — it is not; else the time limit."""
    status, _ = solve(model, time_limit=time_limit, workers=workers, cancel=cancel, seed=seed)
    if status == "INFEASIBLE":
        return outcome("determined", "solver", n_vars=len(x))
    if status in ("OPTIMAL", "FEASIBLE"):
        return outcome("not_unique", "solver", n_vars=len(x))
    return outcome("time_limit", "", n_vars=len(x))


def _membership_from_truth(space: RecordSpace, query_masks, answers, n_records: int,
                           r: int, truth: np.ndarray, layout: dw.ReleaseLayout | None, *,
                           time_limit: float, workers: int, seed: int, cancel: CancelToken,
                           start: float) -> DeterministicOutcome | None:
    """DeSIA-MIA from the true table (:func:`infer_membership`); None when the shortcut does
    not apply (a noisy release, or a table that does not reproduce it)."""
    exact = dw.exact_answers(answers)
    if exact is None or truth.shape != (space.codes.shape[0],):
        return None
    last = space.codes.shape[1] - 1
    if layout is None:
        layout = dw.ReleaseLayout.of(space, query_masks, last)
    if not dw.reproduces(layout, truth, exact, n_records):
        return None
    present = int(truth[r] > 0)

    def outcome(status: str, settled_by: str, witness=None, n_vars: int = 0):
        return DeterministicOutcome(present if status == "determined" else None, status,
                                    present, time.perf_counter() - start, n_vars,
                                    {"shortcut": True, "settled_by": settled_by}, witness)

    if not present and dw.upper_bounds(layout, exact, n_records)[r] == 0:
        return outcome("determined", "released zeros")
    for near in dw.NEIGHBOURHOODS:
        for other in range(space.domain_sizes[last]):
            if other == int(space.codes[r, last]):
                continue
            found, table = dw.membership_witness(layout, truth, exact, n_records, r, other,
                                                 near=near, time_limit=time_limit,
                                                 workers=workers, seed=seed, cancel=cancel)
            if found == "found":
                return outcome("not_unique", "witness table", table)
    model, x = build_model(space, query_masks, answers, n_records, None)
    model.add(x[r] == 0 if present else x[r] >= 1)     # the modified null constraint
    return _null_solve(model, x, outcome, time_limit=time_limit, workers=workers, seed=seed,
                       cancel=cancel)


def infer_membership(space: RecordSpace, query_masks: list[np.ndarray], answers: np.ndarray,
                     n_records: int, target_record: np.ndarray, *, time_limit: float = 10.0,
                     workers: int = 2, seed: int = 0, cancel: CancelToken = NEVER,
                     true_counts: np.ndarray | None = None,
                     layout: dw.ReleaseLayout | None = None) -> DeterministicOutcome:
    """DeSIA-MIA's deterministic module (paper 003 §6.2): no uniqueness constraint; find a
    feasible multiplicity of the target's record, then forbid its answer — x = 0 if a copy was
    found, x ≥ 1 if none — and re-solve. Infeasible: membership is certain. ``value`` is then
    1 (the record is in the data) or 0 (it is not); None when the tables do not decide.

    ``true_counts``: the auditor's shortcut as in :func:`infer` — the true table's membership
    for the first solve, a witness table (records relabelled in the last column,
    desia_witness.membership_witness) or else one solve for the second; ``layout`` built with
    the last column."""
    start = time.perf_counter()
    r = int(np.flatnonzero(np.all(space.codes == np.asarray(target_record)[None, :],
                                  axis=1))[0])
    if true_counts is not None:
        fast = _membership_from_truth(space, query_masks, answers, n_records, r,
                                      np.asarray(true_counts), layout, time_limit=time_limit,
                                      workers=workers, seed=seed, cancel=cancel, start=start)
        if fast is not None:
            return fast
    model, x = build_model(space, query_masks, answers, n_records, None)
    if r not in x:                           # forced to 0 by the tables: certainly absent
        return DeterministicOutcome(0, "determined", 0, time.perf_counter() - start, len(x),
                                    {"forced_zero": True, "settled_by": "released zeros"})
    status, solver = solve(model, time_limit=time_limit, workers=workers, cancel=cancel,
                           seed=seed)
    if status == "INFEASIBLE":
        return DeterministicOutcome(None, "infeasible", None, time.perf_counter() - start,
                                    len(x))
    if status not in ("OPTIMAL", "FEASIBLE"):
        return DeterministicOutcome(None, "time_limit", None, time.perf_counter() - start,
                                    len(x))
    present = int(solver.value(x[r]) > 0)
    if present:                              # the modified null constraint
        model.add(x[r] == 0)
    else:
        model.add(x[r] >= 1)
    status2, _ = solve(model, time_limit=time_limit, workers=workers, cancel=cancel, seed=seed)
    seconds = time.perf_counter() - start
    if status2 == "INFEASIBLE":
        return DeterministicOutcome(present, "determined", present, seconds, len(x))
    if status2 in ("OPTIMAL", "FEASIBLE"):
        return DeterministicOutcome(None, "not_unique", present, seconds, len(x))
    return DeterministicOutcome(None, "time_limit", present, seconds, len(x))
