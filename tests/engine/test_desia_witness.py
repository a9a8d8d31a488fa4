"""The auditor's shortcut for DeSIA's deterministic module (engine.attacks.aggregates
.desia_witness): from the true table it must reach exactly the answer of the published two
CP-SAT solves (paper 003 Alg. 1) — the same status and value for every unique target — and a
witness table it returns must reproduce every released count with the target unique and given
another value."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.attacks.aggregates import desia_deterministic as dd
from engine.attacks.aggregates import desia_witness as dw

SIZES = (2, 3, 4, 3)         # three quasi-identifiers, the sensitive column last
WIDE = (3, 3, 3, 3, 2)       # four quasi-identifiers: room for 3-way marginals to leave doubt


def dataset(seed: int, n: int, sizes=SIZES) -> np.ndarray:
    g = np.random.default_rng(seed)
    # Skewed categories, as in real tables, so some cells are empty and some targets pinned.
    cols = [g.choice(s, n, p=g.dirichlet(np.full(s, 0.8))) for s in sizes]
    return np.column_stack(cols).astype(np.int32)


def marginal_cells(ways, sizes=SIZES) -> list:
    """Every cell of every k-way marginal for k in ``ways``, as a list of conditions."""
    cells = []
    for k in ways:
        for columns in itertools.combinations(range(len(sizes)), k):
            for values in itertools.product(*(range(sizes[c]) for c in columns)):
                cells.append([(c, {v}) for c, v in zip(columns, values, strict=True)])
    return cells


def true_counts(space: dd.RecordSpace, data: np.ndarray) -> np.ndarray:
    index = np.ravel_multi_index(tuple(data.T), space.domain_sizes)
    return np.bincount(index, minlength=space.codes.shape[0])


def counts_of(queries, data) -> np.ndarray:
    """Each query's count on ``data``, computed from the rows (not from the record space)."""
    return np.array([int(np.sum(np.all([np.isin(data[:, c], list(a)) for c, a in q], axis=0)))
                     for q in queries])


def unique_targets(data) -> list[int]:
    keys = [tuple(r) for r in data[:, :-1]]
    return [i for i, key in enumerate(keys) if keys.count(key) == 1]


CASES = ([(seed, (1, 2), 40, SIZES) for seed in range(8)]
         + [(seed, (2,), 25, SIZES) for seed in range(8)]
         + [(seed, (1, 2, 3), 150, WIDE) for seed in range(5)])


def game(seed, ways, n, sizes):
    """(space, data, released cells' masks, released counts, true table)."""
    space = dd.RecordSpace.of(sizes)
    data = dataset(seed, n, sizes)
    queries = marginal_cells(ways, sizes)
    return space, data, queries, [space.matches(q) for q in queries], counts_of(queries, data)


@pytest.mark.parametrize(("seed", "ways", "n", "sizes"), CASES)
def test_the_shortcut_reaches_the_published_answer_for_every_unique_target(seed, ways, n,
                                                                           sizes):
    space, data, _, masks, released = game(seed, ways, n, sizes)
    s = len(sizes) - 1
    truth = true_counts(space, data)
    layout = dw.ReleaseLayout.of(space, masks, s)
    for i in unique_targets(data):
        qi = {c: int(data[i, c]) for c in range(s)}
        published = dd.infer(space, masks, released, n, qi, s, time_limit=20)
        if published.status == "time_limit":
            continue                                 # the published path gives no answer
        fast = dd.infer(space, masks, released, n, qi, s, time_limit=20, true_counts=truth,
                        layout=layout)
        assert fast.details.get("shortcut") is True
        assert (fast.status, fast.value) == (published.status, published.value), (seed, i)


def test_every_way_of_settling_a_target_occurs():
    """The comparison above is only worth something if it meets determined and open targets
    settled each way, and the witness is the usual answer for the open ones."""
    seen: dict[tuple[str, str], int] = {}
    for seed, ways, n, sizes in CASES:
        space, data, _, masks, released = game(seed, ways, n, sizes)
        s = len(sizes) - 1
        truth = true_counts(space, data)
        for i in unique_targets(data):
            out = dd.infer(space, masks, released, n, {c: int(data[i, c]) for c in range(s)},
                           s, time_limit=20, true_counts=truth)
            seen[out.status, out.settled_by] = seen.get((out.status, out.settled_by), 0) + 1
    assert seen.get(("determined", "released zeros"), 0) > 0
    assert seen.get(("determined", "solver"), 0) > 0
    assert seen.get(("not_unique", "solver"), 0) > 0     # no witness near the true table
    assert seen.get(("not_unique", "witness table"), 0) > seen.get(("not_unique", "solver"), 0)


@pytest.mark.parametrize(("ways", "n", "sizes"), [((1, 2), 40, SIZES), ((1, 2, 3), 150, WIDE)])
def test_a_witness_reproduces_every_released_count_with_the_target_moved(ways, n, sizes):
    checked = 0
    for seed in range(6):
        space, data, queries, masks, released = game(seed, ways, n, sizes)
        s = len(sizes) - 1
        truth = true_counts(space, data)
        for i in unique_targets(data):
            qi = {c: int(data[i, c]) for c in range(s)}
            out = dd.infer(space, masks, released, n, qi, s, time_limit=20, true_counts=truth)
            if out.witness is None:
                continue
            table = out.witness
            assert out.status == "not_unique" and out.settled_by == "witness table"
            assert np.issubdtype(table.dtype, np.integer) and table.min() >= 0
            # Rebuild the witness as rows and count them like the release was counted.
            rows = np.repeat(space.codes, table, axis=0)
            assert rows.shape[0] == n
            assert np.array_equal(counts_of(queries, rows), released)
            holders = rows[np.all(rows[:, :s] == data[i, :s], axis=1)]
            assert holders.shape[0] == 1                  # the target is still unique
            assert holders[0, s] != data[i, s]            # with another value
            checked += 1
    assert checked >= 5


def test_a_noisy_release_takes_the_published_path():
    """With noise the true table does not reproduce the release: no shortcut."""
    space = dd.RecordSpace.of(SIZES)
    data = dataset(0, 40)
    queries = marginal_cells((1, 2))
    masks = [space.matches(q) for q in queries]
    released = counts_of(queries, data).astype(float)
    released[3] += 0.5
    i = unique_targets(data)[0]
    out = dd.infer(space, masks, released, len(data),
                   {c: int(data[i, c]) for c in range(3)}, 3, time_limit=5,
                   true_counts=true_counts(space, data))
    assert "shortcut" not in out.details


def test_the_exact_check_rejects_a_table_that_changes_a_count():
    space = dd.RecordSpace.of(SIZES)
    data = dataset(1, 40)
    queries = marginal_cells((1, 2))
    masks = [space.matches(q) for q in queries]
    released = counts_of(queries, data)
    layout = dw.ReleaseLayout.of(space, masks, 3)
    truth = true_counts(space, data)
    assert dw.reproduces(layout, truth, released, len(data))
    moved = truth.copy()
    a, b = np.flatnonzero(truth > 0)[:2]
    moved[a] -= 1
    moved[(a + 1) % moved.size if (a + 1) % moved.size != b else (a + 2) % moved.size] += 1
    assert not dw.reproduces(layout, moved, released, len(data))


def test_the_game_takes_the_shortcut_from_each_targets_own_table(monkeypatch):
    """The count-table game hands each target's true table (its value re-drawn) to the
    deterministic module: the proofs equal the published path's, and the shortcut is taken
    (a wrong table would not reproduce the release and silently fall back to two solves)."""
    from engine.audits.aggregates import AggregatesConfig
    from engine.games import aggregates as G
    from engine.games import aggregates_units
    from engine.games.aggregates_theory import deterministic_summary

    config = AggregatesConfig(census_records=60, census_auxiliary=400, max_targets=8,
                              fraction=0.6, n_shadow=100, membership=False,
                              attacks=("desia_deterministic_only",), seed=3)
    fast = G.play_aia(config)
    monkeypatch.setattr(aggregates_units.DeterministicInputs, "true_counts", lambda self, index: None)
    published = G.play_aia(config)
    assert fast.details["deterministic_status"] == published.details["deterministic_status"]
    assert np.array_equal(fast.determined_value, published.determined_value)
    assert {"determined", "not_unique"} <= set(fast.details["deterministic_status"])
    assert set(published.details["deterministic_settled_by"]) <= {"solver", ""}
    # Here every open target has a witness near its own table (7 of 8 targets).
    settled = zip(fast.details["deterministic_status"], fast.details["deterministic_settled_by"],
                  strict=True)
    assert all(how == "witness table" for status, how in settled if status == "not_unique")
    # result.json's summary counts them so (the report's "How each target was settled").
    by = deterministic_summary(fast)["settled_by"]
    assert by["witness table"] == fast.details["deterministic_status"].count("not_unique")
    assert sum(by.values()) == fast.truth.size


def test_cancel_reaches_the_witness_search():
    from engine.runtime import CancelToken, JobCancelled

    space, data, _, masks, released = game(0, (1, 2), 40, SIZES)
    i = next(i for i in unique_targets(data)
             if dd.infer(space, masks, released, 40, {c: int(data[i, c]) for c in range(3)}, 3,
                         true_counts=true_counts(space, data)).settled_by == "witness table")
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        dd.infer(space, masks, released, 40, {c: int(data[i, c]) for c in range(3)}, 3,
                 true_counts=true_counts(space, data), cancel=token)


MIA_CASES = ([(seed, (1, 2), 40, SIZES) for seed in range(6)]
             + [(seed, (1, 2, 3), 150, WIDE) for seed in range(2)])


@pytest.mark.parametrize(("seed", "ways", "n", "sizes"), MIA_CASES)
def test_the_membership_shortcut_reaches_the_published_answer(seed, ways, n, sizes):
    """DeSIA-MIA (§6.2) from the true table: for records in the data and records not in it,
    the same status and value as the published two solves, and every witness flips the
    record's membership while reproducing every released count."""
    space, data, queries, masks, released = game(seed, ways, n, sizes)
    truth = true_counts(space, data)
    layout = dw.ReleaseLayout.of(space, masks, len(sizes) - 1)
    absent = space.codes[truth == 0][:: max(1, int(np.sum(truth == 0)) // 8)]
    records = list(data[:8]) + list(absent[:8])
    for record in records:
        published = dd.infer_membership(space, masks, released, n, record, time_limit=20)
        if published.status == "time_limit":
            continue
        fast = dd.infer_membership(space, masks, released, n, record, time_limit=20,
                                   true_counts=truth, layout=layout)
        assert fast.details.get("shortcut") is True
        assert (fast.status, fast.value) == (published.status, published.value), record
        if fast.witness is not None:
            rows = np.repeat(space.codes, fast.witness, axis=0)
            assert np.array_equal(counts_of(queries, rows), released)
            inside = bool(np.all(rows == record, axis=1).any())
            assert inside != bool(np.all(data == record, axis=1).any())


def test_the_membership_game_takes_the_shortcut_with_the_same_answers(monkeypatch):
    from engine.audits.aggregates import AggregatesConfig
    from engine.games import aggregates as G
    from engine.games import aggregates_membership

    config = AggregatesConfig(census_records=60, census_auxiliary=400, max_targets=8,
                              fraction=0.6, n_shadow=100, mia_attacks=("desia_mia",), seed=3)
    original = dd.infer_membership
    seen: list = []

    def recording(*args, drop_truth=False, **kwargs):
        if drop_truth:
            kwargs.pop("true_counts")
        out = original(*args, **kwargs)
        seen.append((out.status, out.value, out.settled_by))
        return out

    monkeypatch.setattr(G.dd, "infer_membership", recording)
    aggregates_membership.play_mia(config)
    fast, seen[:] = list(seen), []
    monkeypatch.setattr(G.dd, "infer_membership",
                        lambda *a, **k: recording(*a, drop_truth=True, **k))
    aggregates_membership.play_mia(config)
    assert [f[:2] for f in fast] == [p[:2] for p in seen]
    assert any(how == "witness table" for *_, how in fast)
    assert all(how != "witness table" for *_, how in seen)
