"""DeSIA's deterministic module (paper 003 Alg. 1) on small datasets where the truth is known:
a value it calls determined is always the true one, full tables determine every unique target,
and the uniqueness constraint and the verification step matter as the paper says."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.aggregates.solver import solve
from engine.attacks.aggregates import desia_deterministic as dd
from engine.runtime import CancelToken, JobCancelled

SIZES = (2, 5, 3)            # sex, age group, race (sensitive = column 2)
SENSITIVE = 2


def dataset(seed: int, n: int = 14) -> np.ndarray:
    g = np.random.default_rng(seed)
    return np.column_stack([g.integers(0, s, n) for s in SIZES]).astype(np.int32)


def table(columns) -> list:
    """Every cell of the cross-table of ``columns`` as a list of conditions."""
    return [[(c, {v}) for c, v in zip(columns, values, strict=True)]
            for values in itertools.product(*(range(SIZES[c]) for c in columns))]


def release(space, data, queries):
    masks = [space.matches(q) for q in queries]
    counts = np.array([int(np.sum(np.all([np.isin(data[:, c], list(a)) for c, a in q], axis=0)))
                       for q in queries])
    return masks, counts


def unique_targets(data):
    qi = [tuple(r) for r in data[:, :SENSITIVE]]
    return [i for i, key in enumerate(qi) if qi.count(key) == 1]


def test_the_full_table_determines_every_unique_target():
    space = dd.RecordSpace.of(SIZES)
    data = dataset(1)
    masks, counts = release(space, data, table((0, 1, 2)))
    for i in unique_targets(data):
        out = dd.infer(space, masks, counts, len(data), {0: data[i, 0], 1: data[i, 1]},
                       SENSITIVE, time_limit=5)
        assert out.status == "determined" and out.value == data[i, SENSITIVE]


@pytest.mark.parametrize("seed", range(6))
def test_a_determined_value_is_always_the_true_one(seed):
    """The true dataset satisfies every constraint, so a value proved unique must be its own."""
    space = dd.RecordSpace.of(SIZES)
    data = dataset(seed)
    masks, counts = release(space, data, table((0, 1)) + table((2,)) + table((0, 2)))
    determined = 0
    for i in unique_targets(data):
        out = dd.infer(space, masks, counts, len(data), {0: data[i, 0], 1: data[i, 1]},
                       SENSITIVE, time_limit=5)
        if out.status == "determined":
            determined += 1
            assert out.value == data[i, SENSITIVE]
            # Re-solving with any other value for the target is infeasible.
            qi_mask = space.matches([(0, {data[i, 0]}), (1, {data[i, 1]})])
            for other in set(range(SIZES[SENSITIVE])) - {out.value}:
                model, x = dd.build_model(space, masks, counts, len(data), qi_mask)
                r = int(np.flatnonzero(qi_mask & (space.codes[:, SENSITIVE] == other))[0])
                if r not in x:
                    continue                          # forced to 0 by the tables already
                model.add(x[r] == 1)
                assert solve(model, time_limit=5)[0] == "INFEASIBLE"
        else:
            assert out.status == "not_unique"
    assert determined <= len(unique_targets(data))


def test_without_verification_a_guess_is_returned_as_certain_and_is_sometimes_wrong():
    """Table 3: removing the verification step turns feasible guesses into false certainty."""
    space = dd.RecordSpace.of(SIZES)
    wrong = verified_wrong = 0
    for seed in range(8):
        data = dataset(seed)
        masks, counts = release(space, data, table((0, 1)) + table((2,)))
        for i in unique_targets(data):
            qi = {0: data[i, 0], 1: data[i, 1]}
            fast = dd.infer(space, masks, counts, len(data), qi, SENSITIVE, verify=False)
            full = dd.infer(space, masks, counts, len(data), qi, SENSITIVE)
            wrong += fast.value != data[i, SENSITIVE]
            verified_wrong += full.status == "determined" and full.value != data[i, SENSITIVE]
    assert wrong > 0 and verified_wrong == 0


def test_forced_zero_records_are_not_built():
    space = dd.RecordSpace.of(SIZES)
    data = dataset(3)
    masks, counts = release(space, data, table((0, 1, 2)))
    model, x = dd.build_model(space, masks, counts, len(data), None)
    assert len(x) == int(np.sum(counts > 0))        # only cells with a positive count remain


def test_cancel_stops_the_solver_and_raises():
    space = dd.RecordSpace.of(SIZES)
    data = dataset(4)
    masks, counts = release(space, data, table((0, 1)))
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        dd.infer(space, masks, counts, len(data), {0: data[0, 0], 1: data[0, 1]}, SENSITIVE,
                 cancel=token)


def test_inconsistent_counts_are_infeasible():
    space = dd.RecordSpace.of(SIZES)
    data = dataset(5)
    masks, counts = release(space, data, table((0,)) + table((1,)))
    counts = counts.copy()
    counts[0] += 3                                   # the sex counts no longer sum to |D|
    out = dd.infer(space, masks, counts, len(data), {0: 0, 1: 0}, SENSITIVE)
    assert out.status == "infeasible" and out.value is None


def test_membership_is_decided_exactly_by_the_full_table():
    """§6.2: with the full table released, every record's presence (or absence) is proved."""
    space = dd.RecordSpace.of(SIZES)
    data = dataset(7)
    masks, counts = release(space, data, table((0, 1, 2)))
    present = {tuple(r) for r in data}
    for record in [data[0], data[1], np.array([1, 4, 2]), np.array([0, 0, 0])]:
        out = dd.infer_membership(space, masks, counts, len(data), record, time_limit=5)
        assert out.status == "determined"
        assert out.value == int(tuple(record) in present)


def test_membership_is_undecided_from_marginals_alone():
    space = dd.RecordSpace.of(SIZES)
    data = dataset(8, n=20)
    masks, counts = release(space, data, table((0,)) + table((2,)))
    undecided = sum(dd.infer_membership(space, masks, counts, len(data), r, time_limit=5)
                    .status == "not_unique" for r in data[:5])
    assert undecided >= 3
