"""DeSIA's shadow datasets on the target's signal cells (issue 22 item 5): the class counts
give exactly the whole table's answers on those cells, the sampler draws the shadows the game
describes (paper 003 §3.2, Alg. 2; §6.2), and a chunk's memory does not grow with the pool."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from engine.aggregates.queries import Domain, answers, contribution_classes, marginals
from engine.attacks.aggregates import desia_stochastic as ds

SIZES = (3, 4, 2, 3)          # the last column is the sensitive one


@pytest.fixture(scope="module")
def table():
    dom = Domain(("a", "b", "c", "s"), tuple(tuple(f"v{i}" for i in range(k)) for k in SIZES))
    g = np.random.default_rng(0)
    aux = np.stack([g.integers(0, k, 400) for k in SIZES], axis=1).astype(np.int32)
    return dom, aux, marginals(dom, (1, 2))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("game", ["aia", "mia"])
def test_class_counts_give_the_whole_tables_answers_on_the_signal_cells(table, seed, game):
    dom, aux, qs = table
    g = np.random.default_rng(seed)
    target = np.array([g.integers(0, k) for k in SIZES], dtype=np.int32)
    s, k = len(SIZES) - 1, SIZES[-1]
    if game == "aia":
        contrib = ds.target_answers(qs, ds.target_candidate_rows(target, dom, s))
        redrawn = s
    else:
        contrib = ds.target_answers(qs, target[None, :])
        redrawn = None
    mask = contrib.any(axis=0)
    assert 0 < mask.sum() < len(qs)
    signal = [q for q, keep in zip(qs, mask, strict=True) if keep]
    sig, sizes, class_of = contribution_classes(signal, aux, redrawn_column=redrawn,
                                                n_values=k)
    assert sizes.sum() == len(aux) and np.array_equal(np.bincount(class_of), sizes)
    for _ in range(5):                           # explicit shadow datasets of 60 records
        rows = g.choice(len(aux), 60, replace=False)
        shadow = aux[rows].copy()
        if redrawn is not None:
            shadow[:, s] = g.integers(0, k, 60)
        whole = answers(qs, shadow)[mask]
        value = shadow[:, s] if redrawn is not None else np.zeros(60, dtype=np.int64)
        counts = np.zeros(sig.shape[:2], dtype=np.int64)
        np.add.at(counts, (class_of[rows], value), 1)
        np.testing.assert_array_equal(np.einsum("cv,cvm->m", counts, sig), whole)


@pytest.mark.parametrize("membership", [False, True])
def test_drawn_shadows_have_the_games_expected_answers(table, membership):
    """Mean features over 20,000 shadows against their exact expectation under the game
    (s − 1 records without replacement, values re-drawn uniformly in the attribute game; a
    non-member dataset's s-th record drawn from the rest), within 5 standard errors."""
    dom, aux, qs = table
    s, k, take = len(SIZES) - 1, SIZES[-1], 59
    target = np.array([1, 2, 0, 1], dtype=np.int32)
    if membership:
        contrib = ds.target_answers(qs, target[None, :])
        redrawn, v = None, 1
    else:
        contrib = ds.target_answers(qs, ds.target_candidate_rows(target, dom, s))
        redrawn, v = s, k
    mask = contrib.any(axis=0)
    plan = ds.signal_shadows(qs, mask, contrib, aux, take, 20_000, sensitive=redrawn,
                             n_values=v, membership=membership, seed=4, stream=("test",))
    x, y = plan.build()
    assert x.shape == (20_000, mask.sum()) and plan.n_chunks == 10
    per_record = (plan.class_sizes[:, None] * plan.signature.mean(axis=1)).sum(axis=0) \
        / len(aux)                               # one random record's expected row
    rows = plan.target_rows
    for label in np.unique(y):
        if membership:
            expect = take * per_record + (rows[0] if label == 1 else per_record)
        else:
            expect = take * per_record + rows[label]
        got = x[y == label]
        se = got.std(axis=0) / np.sqrt(len(got)) + 1e-12
        assert np.all(np.abs(got.mean(axis=0) - expect) < 5 * se + 1e-9)
    assert abs(np.mean(y == y[0]) - (0.5 if membership else 1 / k)) < 0.02


def test_same_seed_same_shadows_and_chunks_are_independent_units(table):
    dom, aux, qs = table
    s, k = len(SIZES) - 1, SIZES[-1]
    target = np.array([0, 1, 1, 2], dtype=np.int32)
    contrib = ds.target_answers(qs, ds.target_candidate_rows(target, dom, s))
    mask = contrib.any(axis=0)

    def plan(n):
        return ds.signal_shadows(qs, mask, contrib, aux, 59, n, sensitive=s, n_values=k,
                                 membership=False, seed=7, stream=("unit",))
    a, b = plan(5_000).build(), plan(5_000).build()
    np.testing.assert_array_equal(a[0], b[0])
    x2, y2 = plan(5_000).chunk(2)                # chunk 2 alone, as a unit of work
    rows = plan(5_000).chunk_rows
    np.testing.assert_array_equal(x2, a[0][2 * rows:3 * rows])
    np.testing.assert_array_equal(y2, a[1][2 * rows:3 * rows])


def test_a_chunk_holds_a_bounded_number_of_counts_whatever_the_pool():
    """A million-record pool in 200,000 classes (the worst case: nearly every record adds
    something different to the signal cells): a chunk's rows shrink so that rows × classes ×
    values stays within CHUNK_CELLS, and drawing one chunk allocates about that many counts,
    where the whole-table sampler's random keys for a batch of 2,000 shadows over this pool
    alone would take 8 GB."""
    g = np.random.default_rng(1)
    classes, values, cells = 200_000, 2, 5
    plan = ds.SignalShadows(signature=g.integers(0, 2, (classes, values, cells)),
                            class_sizes=np.full(classes, 5, dtype=np.int64),
                            target_rows=np.zeros((values, cells), dtype=np.int64),
                            n_take=29_999, n_shadow=20_000, membership=False, seed=0,
                            stream=("big",))
    assert plan.chunk_rows * (classes * values + cells) <= ds.CHUNK_CELLS
    assert 1 <= plan.chunk_rows < ds.SHADOW_CHUNK
    tracemalloc.start()
    x, y = plan.chunk(0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert x.shape == (plan.chunk_rows, cells) and y.shape == (plan.chunk_rows,)
    assert x[:, 0].min() > 0                     # 29,999 records per shadow were counted
    assert peak < 8 * 8 * ds.CHUNK_CELLS         # a few copies of the chunk's counts
