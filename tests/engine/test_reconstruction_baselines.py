"""The reconstruction baselines of paper 003 §2.5 (CIP-rand/init, RAP-rand/init), their
neighbourhood vote and their MIA variant (§6.3), on small sex × age-group × race blocks where the
truth is known: the full fine table pins the dataset down, marginals do not, Laplace noise
(§5.6) hurts CIP, and both honour the job contract (seeds, cancel)."""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter

import numpy as np
import pytest

from engine.aggregates.queries import CountingQuery, answers
from engine.attacks.aggregates import cip, rap
from engine.runtime import CancelToken, JobCancelled

SIZES = (2, 18, 5)           # sex, 5-year age group, race (sensitive = column 2)
SENSITIVE = 2
N = 80
K = 5
EPOCHS = 600


def dataset(seed: int, n: int = N) -> np.ndarray:
    g = np.random.default_rng(seed)
    return np.column_stack([g.integers(0, s, n) for s in SIZES]).astype(np.int32)


def table(columns) -> list[CountingQuery]:
    """Every cell of the cross-table of ``columns``."""
    return [CountingQuery(tuple((c, frozenset([v])) for c, v in zip(columns, vals, strict=True)))
            for vals in itertools.product(*(range(SIZES[c]) for c in columns))]


FULL = table((0, 1, 2))
MARGINALS = table((0,)) + table((1,)) + table((2,))


def unique_targets(data: np.ndarray) -> list[int]:
    keys = [tuple(r) for r in data[:, :SENSITIVE]]
    count = Counter(keys)
    return [i for i, key in enumerate(keys) if count[key] == 1]


def accuracy(recon, data, rows) -> float:
    inf = cip.attribute_inference(recon, data[rows], SENSITIVE, SIZES[SENSITIVE])
    return float(np.mean(inf.predictions == data[rows, SENSITIVE]))


def multiset(records: np.ndarray) -> list[tuple]:
    return sorted(map(tuple, records.tolist()))


# --------------------------------------------------------------------------- CIP, exact

@pytest.mark.parametrize("mode", ["rand", "init"])
def test_cip_reconstructs_the_full_table_exactly(mode):
    data = dataset(0)
    aux = dataset(99, 300)
    recon = cip.reconstruct_cip(SIZES, FULL, answers(FULL, data), N, k=K, mode=mode,
                                auxiliary=aux, seed=1)
    assert recon.k == K and recon.method == f"cip-{mode}"
    for k in range(K):
        assert multiset(recon.records[k]) == multiset(data)
    rows = unique_targets(data)
    assert len(rows) >= 8
    inf = cip.attribute_inference(recon, data[rows], SENSITIVE, SIZES[SENSITIVE])
    assert np.array_equal(inf.predictions, data[rows, SENSITIVE])
    assert np.allclose(inf.scores[np.arange(len(rows)), data[rows, SENSITIVE]], 1.0)
    assert (inf.level == 0).all()
    # MIA variant (§6.3): every member is in every reconstruction, an absent record in none.
    present = {tuple(r) for r in data.tolist()}
    absent = next(r for r in itertools.product(*map(range, SIZES)) if r not in present)
    scores = cip.membership_scores(recon, np.vstack([data[rows], absent]))
    assert np.allclose(scores[:-1], 1.0) and scores[-1] == 0.0


def test_rap_gets_most_unique_targets_from_the_full_table():
    data = dataset(0)
    rows = unique_targets(data)
    for mode in ("rand", "init"):
        recon = rap.reconstruct_rap(SIZES, FULL, answers(FULL, data), N, k=K, mode=mode,
                                    auxiliary=dataset(99, 300), epochs=EPOCHS, seed=1,
                                    device_name="cpu")
        assert recon.records.shape == (K, N, 3) and recon.details["device"] == "cpu"
        assert recon.details["loss"].max() < 1e-3
        assert accuracy(recon, data, rows) >= 0.8


def test_marginals_alone_are_clearly_weaker_than_the_full_table():
    full_cip, marg_cip, full_rap, marg_rap = [], [], [], []
    for seed in (0, 1):
        data = dataset(seed)
        rows = unique_targets(data)
        for queries, c_out, r_out in ((FULL, full_cip, full_rap),
                                      (MARGINALS, marg_cip, marg_rap)):
            a = answers(queries, data)
            c_out.append(accuracy(cip.reconstruct_cip(SIZES, queries, a, N, k=K, seed=seed),
                                  data, rows))
            r_out.append(accuracy(rap.reconstruct_rap(SIZES, queries, a, N, k=K, seed=seed,
                                                      epochs=EPOCHS, device_name="cpu"),
                                  data, rows))
    assert np.mean(full_cip) == 1.0 and np.mean(marg_cip) <= 0.5
    assert np.mean(full_rap) >= 0.8 and np.mean(marg_rap) <= np.mean(full_rap) - 0.3


def test_cip_accuracy_falls_with_laplace_noise():
    """§5.6: round(q(D) + Laplace(1/ε)); inconsistent counts switch CIP to its L1 model."""
    acc: dict[float | None, list[float]] = {None: [], 2.0: [], 0.1: []}
    for seed in (0, 1):
        data = dataset(seed)
        rows = unique_targets(data)
        truth = answers(FULL, data)
        for eps in acc:
            noise = 0 if eps is None else np.random.default_rng(seed + 10).laplace(
                0, 1 / eps, truth.shape)
            released = np.maximum(np.rint(truth + noise), 0).astype(np.int64)
            recon = cip.reconstruct_cip(SIZES, FULL, released, N, k=K, seed=seed,
                                        time_limit=5)
            assert recon.k == K and recon.details["l1"] == (eps is not None)
            assert all(len(r) == N for r in recon.records)
            acc[eps].append(accuracy(recon, data, rows))
    means = {eps: float(np.mean(v)) for eps, v in acc.items()}
    assert means[None] == 1.0
    assert means[None] > means[2.0] > means[0.1]
    assert means[0.1] <= 0.4


def _l1_optimum_with_abs(queries, released, n):
    """The noisy-CIP problem in its |·| form (add_abs_equality), solved to optimality: the
    reference for the split (p − m) form reconstruct_cip uses."""
    from ortools.sat.python import cp_model

    from engine.attacks.aggregates.desia_deterministic import RecordSpace

    space = RecordSpace.of(SIZES)
    model = cp_model.CpModel()
    x = [model.new_int_var(0, n, f"x{r}") for r in range(space.codes.shape[0])]
    devs = []
    for i, (q, a) in enumerate(zip(queries, released, strict=True)):
        mask = q.matches(space.codes)
        e = model.new_int_var(0, 2 * n + int(a), f"e{i}")
        model.add_abs_equality(e, sum(x[r] for r in np.flatnonzero(mask)) - int(a))
        devs.append(e)
    model.add(sum(x) == n)
    model.minimize(sum(devs))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60
    assert solver.solve(model) == cp_model.OPTIMAL
    return int(solver.objective_value)


@pytest.mark.parametrize("queries", [FULL, MARGINALS + table((0, 1))], ids=["full", "2-way"])
def test_noisy_cip_reaches_the_l1_optimum(queries):
    """§5.6: with inconsistent (noisy) counts every reconstruction minimises the L1 distance
    to the released answers: the linear split form reaches the optimum of the |·| form, and
    no reconstruction is farther from the release than the true data."""
    data = dataset(4)
    truth = answers(queries, data)
    g = np.random.default_rng(7)
    released = np.maximum(np.rint(truth + g.laplace(0, 2.0, truth.shape)), 0).astype(np.int64)
    recon = cip.reconstruct_cip(SIZES, queries, released, N, k=3, noisy=True, seed=2,
                                time_limit=20)
    assert recon.details["statuses"] == ["L1_OPTIMAL"] * 3
    best = _l1_optimum_with_abs(queries, released, N)
    for rec in recon.records:
        assert len(rec) == N
        assert int(np.abs(answers(queries, rec) - released).sum()) == best
    assert best <= int(np.abs(truth - released).sum())


def test_time_limited_noisy_cip_is_reproducible():
    """A noisy solve cut short by its limit (random overlapping queries: the L1 search does
    not close in 1 unit) stops at the same point every time, because the limit is CP-SAT's
    deterministic time: the same seed gives the same reconstruction."""
    g = np.random.default_rng(0)
    data = dataset(3, 150)
    queries = [CountingQuery(tuple(
        (c, frozenset(np.flatnonzero(g.random(SIZES[c]) < 0.5).tolist() or [0])) for c in range(3)))
        for _ in range(300)]
    released = np.maximum(np.rint(answers(queries, data) + g.laplace(0, 2, len(queries))), 0)
    runs = [cip.reconstruct_cip(SIZES, queries, released, 150, k=1, noisy=True, time_limit=1.0,
                                seed=5) for _ in range(2)]
    assert runs[0].details["statuses"] == ["L1_FEASIBLE"]
    assert np.array_equal(runs[0].records, runs[1].records)


def test_rap_relaxed_plan_gives_the_plain_product_and_its_gradient():
    """The compressed evaluation of q̃(θ) (distinct allowed sets, prefixes, one batched
    product) is the plain product over columns, values and gradients, on tables (the batched
    product path), on unrelated random queries (the gather path), on one column, and with a
    query that constrains nothing."""
    import torch

    g = np.random.default_rng(1)
    random_queries = [CountingQuery(tuple(
        (c, frozenset(np.flatnonzero(g.random(SIZES[c]) < 0.5).tolist() or [0]))
        for c in range(3) if g.random() < 0.8)) for _ in range(60)]
    families = {"full": FULL, "marginals": MARGINALS + [CountingQuery(())],
                "random": random_queries, "one column": table((1,))}
    for name, queries in families.items():
        ind = rap._indicators(SIZES, queries)
        plan = rap.RelaxedPlan.build(ind)
        gen = torch.Generator().manual_seed(3)
        logits = [torch.randn((2, 7, d), generator=gen, dtype=torch.float64)
                  .requires_grad_(True) for d in SIZES]
        plain = rap.relaxed_answers(logits, {j: torch.as_tensor(m, dtype=torch.float64)
                                             for j, m in ind.items()})
        weights = torch.randn(plain.shape, generator=gen, dtype=torch.float64)
        grads_plain = torch.autograd.grad((plain * weights).sum(), logits, allow_unused=True)
        plan.unique = [u.double() for u in plan.unique]
        fast = rap.relaxed_answers(logits, plan)
        grads_fast = torch.autograd.grad((fast * weights).sum(), logits, allow_unused=True)
        assert torch.allclose(fast, plain, atol=1e-12), name
        for a, b in zip(grads_plain, grads_fast, strict=True):
            if a is None or b is None:
                assert (a is None or not a.abs().max()) and (b is None or not b.abs().max())
            else:
                assert torch.allclose(a, b, atol=1e-12), name
    assert rap.RelaxedPlan.build(rap._indicators(SIZES, FULL)).bmm
    assert not rap.RelaxedPlan.build(rap._indicators(SIZES, random_queries)).bmm


# --------------------------------------------------------------------------- contract

def test_reconstructions_are_deterministic_per_seed():
    data = dataset(2)
    aux = dataset(98, 300)
    a = answers(MARGINALS, data)
    for mode in ("rand", "init"):
        one = cip.reconstruct_cip(SIZES, MARGINALS, a, N, k=3, mode=mode, auxiliary=aux, seed=4)
        two = cip.reconstruct_cip(SIZES, MARGINALS, a, N, k=3, mode=mode, auxiliary=aux, seed=4)
        assert np.array_equal(one.records, two.records)
        other = cip.reconstruct_cip(SIZES, MARGINALS, a, N, k=3, mode=mode, auxiliary=aux,
                                    seed=5)
        assert not np.array_equal(one.records, other.records)
        # the K tentative datasets differ from one another (seeds and orders differ)
        assert len({tuple(multiset(r)) for r in one.records}) > 1
        r1 = rap.reconstruct_rap(SIZES, MARGINALS, a, N, k=3, mode=mode, auxiliary=aux,
                                 epochs=100, seed=4, device_name="cpu")
        r2 = rap.reconstruct_rap(SIZES, MARGINALS, a, N, k=3, mode=mode, auxiliary=aux,
                                 epochs=100, seed=4, device_name="cpu")
        assert np.array_equal(r1.records, r2.records)
        assert not np.array_equal(r1.records[0], r1.records[1])


def test_cip_cancel_stops_a_solve_in_progress(monkeypatch):
    """A noisy L1 solve over random overlapping queries runs to its time limit unless the
    cancel watchdog stops it: Cancel is pressed 0.5 s into the solve, and the solve must end
    before its limit (CP-SAT's own wall time of the solve). The limit, 120 s, is a hang guard
    far above any stop, not a speed limit (issue 18: those fail on a loaded machine)."""
    from ortools.sat.python import cp_model

    time_limit = 120
    solving, walls = threading.Event(), []

    class WatchedSolver(cp_model.CpSolver):
        def solve(self, *args, **kwargs):
            solving.set()
            status = super().solve(*args, **kwargs)
            walls.append(self.wall_time)
            return status

    monkeypatch.setattr(cp_model, "CpSolver", WatchedSolver)
    g = np.random.default_rng(0)
    data = dataset(3, 150)
    queries = [CountingQuery(tuple(
        (c, frozenset(np.flatnonzero(g.random(SIZES[c]) < 0.5).tolist() or [0]))
        for c in range(3))) for _ in range(300)]
    released = np.maximum(np.rint(answers(queries, data) + g.laplace(0, 2, len(queries))), 0)
    token = CancelToken()

    def press_cancel_in_the_solve():
        if solving.wait(time_limit):
            time.sleep(0.5)
        token.cancel()

    presser = threading.Thread(target=press_cancel_in_the_solve, daemon=True)
    presser.start()
    try:
        with pytest.raises(JobCancelled):
            cip.reconstruct_cip(SIZES, queries, released, 150, k=3, noisy=True,
                                time_limit=time_limit, cancel=token)
    finally:
        token.cancel()
        presser.join()
    # The solves of one release run up to SOLVES_AT_ONCE at a time: Cancel stops every one
    # in progress and starts no other.
    assert 1 <= len(walls) <= cip.SOLVES_AT_ONCE, f"{len(walls)} solves ran"
    assert max(walls) < time_limit / 2, f"a solve ran {max(walls):.1f} s: to its limit"


def test_rap_cancel_is_honoured_between_epochs():
    data = dataset(0)
    token = CancelToken()
    calls: list[float] = []

    def progress(fraction, message=""):
        calls.append(fraction)
        token.cancel()

    with pytest.raises(JobCancelled):
        rap.reconstruct_rap(SIZES, FULL, answers(FULL, data), N, k=2, epochs=10_000,
                            check_every=20, device_name="cpu", progress=progress,
                            cancel=token)
    assert len(calls) == 1 and calls[0] == pytest.approx(20 / 10_000)


def test_init_modes_need_auxiliary_records():
    a = answers(FULL, dataset(0))
    with pytest.raises(ValueError):
        cip.reconstruct_cip(SIZES, FULL, a, N, k=1, mode="init")
    with pytest.raises(ValueError):
        rap.reconstruct_rap(SIZES, FULL, a, N, k=1, mode="init", device_name="cpu")


# --------------------------------------------------------------------------- the vote

def test_the_vote_uses_the_smallest_non_empty_neighbourhood():
    # two reconstructions of three records (sex, age, race); the target is (0, 0, ?)
    recon = np.array([[[1, 0, 2], [0, 1, 3], [1, 1, 4]],
                      [[1, 0, 2], [0, 3, 3], [1, 2, 1]]], dtype=np.int32)
    inf = cip.attribute_inference(recon, np.array([[0, 0, 0]]), SENSITIVE, 5)
    # no record shares both quasi-identifiers; at L = 1: (1,0,2) twice, (0,1,3), (0,3,3)
    assert inf.level[0] == 1
    assert np.allclose(inf.scores[0], [0, 0, 0.5, 0.5, 0])
    assert inf.predictions[0] in (2, 3)
    exact = cip.attribute_inference(recon, np.array([[1, 1, 0]]), SENSITIVE, 5)
    assert exact.level[0] == 0 and exact.predictions[0] == 4
    per = cip.attribute_inference(recon, np.array([[1, 1, 0]]), SENSITIVE, 5,
                                  vote="per_reconstruction")
    # reconstruction 0 has (1,1,4) at L = 0; reconstruction 1 has (1,0,2),(1,2,1) at L = 1
    assert np.allclose(per.scores[0], [0, 0.25, 0.25, 0, 0.5])
    # ties are broken at random but reproducibly per seed
    picks = {int(cip.attribute_inference(recon, np.array([[0, 0, 0]]), SENSITIVE, 5,
                                         seed=s).predictions[0]) for s in range(20)}
    assert picks == {2, 3}
    assert np.allclose(cip.membership_scores(recon, np.array([[1, 0, 2], [0, 1, 3]])),
                       [1.0, 0.5])
    assert np.allclose(cip.membership_scores(recon, np.array([[0, 3, 1]]), max_distance=1),
                       [0.5])


# --------------------------------------------------------------------------- fast model building

def _random_release(seed: int, n_queries: int = 120):
    """Random overlapping queries over SIZES (some matching few records) and their answers on
    a dataset of N records."""
    g = np.random.default_rng(seed)
    queries = [CountingQuery(tuple(
        (c, frozenset(np.flatnonzero(g.random(SIZES[c]) < 0.4).tolist() or [0]))
        for c in range(3))) for _ in range(n_queries)]
    return queries, answers(queries, dataset(seed)), g


@pytest.mark.parametrize("max_deviation", [None, 2])
def test_fast_models_are_the_published_models(max_deviation):
    """CIP builds each reconstruction's model from the release design's record lists
    (cip.release_design) instead of one Boolean mask per query; the CP-SAT model must be the
    very one the mask-built functions give — the same variables, bounds, constraints and order
    — so the solver returns the same reconstructions. Checked on a permuted record space and
    constraint order, exact answers (with zeros forcing records out) and noisy ones (negative,
    inconsistent)."""
    from engine.attacks.aggregates.desia_deterministic import RecordSpace, build_model

    queries, exact, g = _random_release(11)
    noisy = np.rint(exact + g.laplace(0, 3.0, exact.shape)).astype(np.int64)
    exact = exact.copy()
    exact[:10] = 0                                   # zero answers force records to 0
    design = cip.release_design(SIZES, tuple(queries))
    base = RecordSpace.of(SIZES)
    masks = cip._masks(base, queries)
    perm, order = g.permutation(base.codes.shape[0]), g.permutation(len(queries))
    position = np.empty_like(perm)
    position[perm] = np.arange(perm.size)
    space = RecordSpace(SIZES, base.codes[perm])
    permuted = [masks[i][perm] for i in order]
    members = design.members(position, order)
    assert all(np.array_equal(np.flatnonzero(m), mm) for m, mm in zip(permuted, members,
                                                                       strict=True))
    if max_deviation is None:
        published, _ = build_model(space, permuted, exact[order], N, None)
        fast, _ = cip._exact_model_fast(perm.size, members, exact[order], N)
        assert str(fast.proto) == str(published.proto)
    published, _ = cip.build_l1_model(space, permuted, noisy[order], N, max_deviation)
    fast, _ = cip._l1_model_fast(perm.size, members, noisy[order], N, max_deviation)
    assert str(fast.proto) == str(published.proto)


def test_targets_of_one_release_share_its_design_and_keep_their_reconstructions():
    """The record lists of a release design are found once for all the targets of a game
    (the second target's call reads the cache), and the reconstructions are those of the
    mask-built models solved with the same seeds and orders (paper 003 §2.5: K solves, each
    with its own seed, constraint order and variable order), exact and noisy."""
    from engine.attacks.aggregates.desia_deterministic import RecordSpace, build_model
    from engine.runtime import rng

    queries, exact, g = _random_release(12, 60)
    noisy = np.maximum(np.rint(exact + g.laplace(0, 2.0, exact.shape)), 0).astype(np.int64)
    base = RecordSpace.of(SIZES)
    masks = cip._masks(base, queries)
    cip.release_design.cache_clear()
    for released in (exact, noisy):
        got = cip.reconstruct_cip(SIZES, queries, released, N, k=3, seed=9, time_limit=1.0)
        draws = rng(9, "cip", "rand")
        use_l1, expected = False, []
        for _ in range(3):
            perm, order = draws.permutation(base.codes.shape[0]), draws.permutation(len(queries))
            solve_seed = int(draws.integers(0, 2**31 - 1))
            space = RecordSpace(SIZES, base.codes[perm])
            permuted, answered = [masks[i][perm] for i in order], released[order]
            result = None
            if not use_l1:
                model, x = build_model(space, permuted, answered, N, None)
                status, solver = cip.solve_reproducibly(model, time_limit=1.0, seed=solve_seed)
                if status in ("OPTIMAL", "FEASIBLE"):
                    result = cip._extract(solver, x, space.codes)
                use_l1 = status == "INFEASIBLE"
            if result is None:
                model, x = cip.build_l1_model(space, permuted, answered, N)
                _, solver = cip.solve_reproducibly(model, time_limit=1.0, seed=solve_seed)
                result = cip._extract(solver, x, space.codes)
            expected.append(result)
        assert np.array_equal(got.records, np.stack(expected))
    assert got.details["l1"]                          # the noisy release took the L1 model
    assert cip.release_design.cache_info().hits >= 1


@pytest.mark.parametrize("noisy", [False, True])
def test_solves_at_once_do_not_change_the_reconstructions(noisy):
    """The K solves of a release run in threads once the first has settled the model; each
    keeps its own seed and orders from the seeded stream, so one, two or four at once give
    the same reconstructions and statuses (each solve single-threaded, deterministic limit)."""
    queries, exact, g = _random_release(13, 80)
    released = (np.maximum(np.rint(exact + g.laplace(0, 2.0, exact.shape)), 0)
                if noisy else exact)
    runs = [cip.reconstruct_cip(SIZES, queries, released, N, k=5, seed=3, time_limit=0.5,
                                noisy=noisy, solves_at_once=at_once) for at_once in (1, 2, 4)]
    assert runs[0].details["l1"] is noisy
    for other in runs[1:]:
        assert np.array_equal(other.records, runs[0].records)
        assert other.details["statuses"] == runs[0].details["statuses"]


@pytest.mark.parametrize("mode", ["rand", "init"])
def test_rap_many_releases_at_once_are_the_lone_reconstructions(mode):
    """reconstruct_rap_many trains T releases' models as one stack (what a GPU unit does):
    each release gets exactly the reconstructions reconstruct_rap makes for it alone with its
    seed — records, per-model errors and loss curve — including a release that reaches the
    tolerance and stops early (the full table of one dataset answered exactly) beside two
    that do not (noisy marginals)."""
    aux = dataset(97, 300)
    g = np.random.default_rng(3)
    exact_full = answers(FULL, dataset(5))
    queries = FULL
    releases = [exact_full,
                answers(FULL, dataset(6)) + g.laplace(0, 1.0, len(FULL)),
                answers(FULL, dataset(7)) + g.laplace(0, 1.0, len(FULL))]
    seeds = [11, 12, 13]
    kw = dict(k=2, mode=mode, auxiliary=aux, epochs=400, tol=1e-3, check_every=20,
              device_name="cpu")
    alone = [rap.reconstruct_rap(SIZES, queries, a, N, seed=s, **kw)
             for a, s in zip(releases, seeds, strict=True)]
    together = rap.reconstruct_rap_many(SIZES, queries, np.vstack(releases), N, seeds=seeds,
                                        **kw)
    assert len(alone[0].details["loss_curve"]) < len(alone[1].details["loss_curve"]), \
        "the exact release must stop early for this test to check early stopping"
    for one, many in zip(alone, together, strict=True):
        assert np.array_equal(one.records, many.records)
        assert np.allclose(one.details["loss"], many.details["loss"], rtol=1e-5, atol=1e-9)
        assert np.allclose(one.details["loss_curve"], many.details["loss_curve"], rtol=1e-5)
    with pytest.raises(ValueError, match="one seed per release"):
        rap.reconstruct_rap_many(SIZES, queries, np.vstack(releases), N, seeds=[1], **kw)


def test_the_wall_clock_backstop_is_ten_times_the_limit_unless_the_environment_says(
        monkeypatch):
    """The backstop only guards against a much slower machine (solver.WALL_BACKSTOP); the
    suite raises it through PRA_SOLVER_WALL_BACKSTOP, and a value that is not a number ≥ 1
    leaves the app's own."""
    from engine.aggregates import solver

    monkeypatch.delenv("PRA_SOLVER_WALL_BACKSTOP", raising=False)
    assert solver.wall_backstop() == solver.WALL_BACKSTOP == 10.0
    for text, factor in (("100", 100.0), ("0.5", 10.0), ("fast", 10.0), ("", 10.0)):
        monkeypatch.setenv("PRA_SOLVER_WALL_BACKSTOP", text)
        assert solver.wall_backstop() == factor, text
