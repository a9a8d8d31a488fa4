"""Counting queries and fixed releases of paper 003 (engine/aggregates): evaluation against
brute force, the structure of the Census tables and marginals, answers on many datasets, the
released fraction, exact sensitivity, noise, and one-sentence errors for every file in
tests/data/bad_inputs/queries/."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from engine.aggregates import (
    CENSUS_P12_AGE_BINS,
    FIVE_YEAR_AGE_BINS,
    CountingQuery,
    Domain,
    ReleaseSpec,
    answers,
    answers_many,
    build_release,
    census_p_tables,
    contingency_table,
    load_published_table,
    load_queries_file,
    marginals,
    noisy_answers,
    query_matrix,
    release_noise_scale,
    release_sensitivity,
    select_queries,
)
from engine.data.errors import InputError
from engine.runtime import rng as make_rng
from tests.engine.test_input_corpus import in_folder

BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs" / "queries"
RACES = ("White", "Black", "Asian")


def census_domain(max_age: int = 99) -> Domain:
    return Domain(("age", "sex", "race", "hispanic"),
                  (tuple(str(a) for a in range(max_age + 1)), ("Male", "Female"), RACES,
                   ("No", "Yes")))


def random_codes(domain: Domain, n: int, seed: int = 0) -> np.ndarray:
    g = np.random.default_rng(seed)
    return np.stack([g.integers(0, k, n) for k in domain.sizes], axis=1).astype(np.int32)


def brute_matches(q: CountingQuery, codes: np.ndarray) -> np.ndarray:
    return np.array([all(int(row[c]) in allowed for c, allowed in q.conditions)
                     for row in codes])


def random_queries(domain: Domain, n: int, seed: int) -> list[CountingQuery]:
    g = np.random.default_rng(seed)
    out = []
    for i in range(n):
        conds = []
        for j, k in enumerate(domain.sizes):
            if g.random() < 0.5:
                conds.append((j, frozenset(int(v) for v in np.flatnonzero(g.random(k) < 0.5))))
        out.append(CountingQuery(tuple(conds), label=f"q{i}"))
    return out


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --------------------------------------------------------------------------- evaluation

def test_query_matrix_matches_brute_force():
    dom = Domain(("a", "b", "c"), (("x", "y", "z"), ("0", "1"), ("p", "q", "r", "s")))
    codes = random_codes(dom, 300, seed=1)
    qs = random_queries(dom, 40, seed=2) + [CountingQuery((), label="everyone")]
    qm = query_matrix(qs, codes)
    assert sp.issparse(qm) and qm.shape == (len(qs), 300)
    dense = qm.toarray()
    assert set(np.unique(dense)) <= {0, 1}
    for i, q in enumerate(qs):
        expected = brute_matches(q, codes)
        np.testing.assert_array_equal(dense[i].astype(bool), expected)
        np.testing.assert_array_equal(q.matches(codes), expected)
    np.testing.assert_array_equal(answers(qs, codes), dense.sum(axis=1))


def test_contingency_table_partitions_records():
    dom = census_domain()
    codes = random_codes(dom, 500, seed=3)
    table = contingency_table(dom, ["sex", "race"])
    assert len(table) == 2 * 3
    qm = query_matrix(table, codes).toarray()
    np.testing.assert_array_equal(qm.sum(axis=0), 1)
    assert answers(table, codes).sum() == 500
    per_race = contingency_table(dom, ["sex", "hispanic"], within="race")
    assert len(per_race) == 2 * 2 * 3
    assert answers(per_race, codes).sum() == 500          # the race slices partition too
    bucketed = contingency_table(dom, ["age"], buckets={"age": 10})
    assert len(bucketed) == 10
    assert answers(bucketed, codes).sum() == 500


def test_p_tables_sizes_and_partition():
    dom = census_domain(max_age=110)
    codes = random_codes(dom, 400, seed=4)
    qs = census_p_tables(dom)
    assert len(CENSUS_P12_AGE_BINS) == 23
    assert len(qs) == 2 * 23 * (1 + len(RACES))
    tables = sorted({q.table for q in qs})
    assert tables == ["P12", "P12A", "P12B", "P12C"]
    with_h = census_p_tables(dom, hispanic_col="hispanic", hispanic_label="Yes",
                             white_label="White")
    assert [t for t in dict.fromkeys(q.table for q in with_h)][-2:] == ["P12D", "P12E"]
    assert len(with_h) == 2 * 23 * (3 + len(RACES))
    got = answers(with_h, codes)
    for t in ("P12", "P12A", "P12B", "P12C"):
        idx = [i for i, q in enumerate(with_h) if q.table == t]
        qm = query_matrix([with_h[i] for i in idx], codes).toarray()
        assert qm.sum(axis=0).max() == 1                  # cells of one table are disjoint
    p12 = [i for i, q in enumerate(with_h) if q.table == "P12"]
    assert got[p12].sum() == 400
    races = [i for i, q in enumerate(with_h) if q.table in ("P12A", "P12B", "P12C")]
    assert got[races].sum() == 400
    hisp = (codes[:, 3] == 1).sum()
    white_not_h = ((codes[:, 2] == 0) & (codes[:, 3] == 0)).sum()
    assert got[[i for i, q in enumerate(with_h) if q.table == "P12D"]].sum() == hisp
    assert got[[i for i, q in enumerate(with_h) if q.table == "P12E"]].sum() == white_not_h
    five = census_p_tables(dom, age_bins=FIVE_YEAR_AGE_BINS)
    assert len(five) == 2 * 18 * 4
    young = census_p_tables(census_domain(max_age=30))   # groups above 30 are left out
    assert len(young) == 2 * 10 * 4
    assert "under 5" in qs[0].label and "sex=Male" in qs[0].label


def test_marginals_counts():
    dom = census_domain()
    codes = random_codes(dom, 300, seed=5)
    qs = marginals(dom, ways=(1, 2), buckets={"age": 5})
    sizes = [20, 2, 3, 2]
    expected = sum(sizes) + sum(a * b for a, b in itertools.combinations(sizes, 2))
    assert len(qs) == expected
    got = answers(qs, codes)
    np.testing.assert_array_equal(got[20:22], np.bincount(codes[:, 1], minlength=2))
    np.testing.assert_array_equal(got[:20], np.bincount(codes[:, 0] // 5, minlength=20))
    assert got.sum() == 300 * (4 + 6)                     # every table sums to n
    assert len(marginals(dom, ways=(1,), columns=["sex", "race"])) == 5
    with pytest.raises(InputError, match="exactly once"):
        marginals(dom, buckets={"age": [(0, 49), (40, 99)]})
    with pytest.raises(InputError, match="integer values"):
        marginals(dom, buckets={"race": 2})
    with pytest.raises(InputError, match="Marginal order 5"):
        marginals(dom, ways=(5,))


@pytest.mark.parametrize("batch", [7, 4096])
def test_answers_many_equals_loop(batch):
    dom = census_domain()
    pool = random_codes(dom, 60, seed=6)
    qs = census_p_tables(dom)
    g = np.random.default_rng(7)
    member = g.random((25, 60)) < 0.5
    loop = np.stack([answers(qs, pool[m]) for m in member])
    np.testing.assert_array_equal(answers_many(qs, member, pool=pool, batch=batch), loop)
    np.testing.assert_array_equal(
        answers_many(qs, sp.csr_matrix(member), pool=pool, batch=batch), loop)
    np.testing.assert_array_equal(answers_many(query_matrix(qs, pool), member, batch=batch),
                                  loop)
    datasets = [pool[m] for m in member]
    np.testing.assert_array_equal(answers_many(qs, datasets, batch=batch), loop)
    np.testing.assert_array_equal(answers_many(qs, iter(datasets), batch=batch), loop)
    same_size = np.stack([pool[g.choice(60, 30, replace=False)] for _ in range(9)])
    np.testing.assert_array_equal(answers_many(qs, same_size, batch=batch),
                                  np.stack([answers(qs, d) for d in same_size]))
    counts = g.integers(0, 3, (5, 60))                    # multiplicities (with replacement)
    np.testing.assert_array_equal(answers_many(qs, counts, pool=pool, batch=batch),
                                  np.stack([answers(qs, np.repeat(pool, c, axis=0))
                                            for c in counts]))


def test_answers_many_checks_shapes():
    dom = census_domain()
    pool = random_codes(dom, 10)
    with pytest.raises(InputError, match="one column per pool record"):
        answers_many(census_p_tables(dom), np.ones((3, 11)), pool=pool)
    with pytest.raises(InputError, match="batch size"):
        answers_many(census_p_tables(dom), [pool], batch=0)


# --------------------------------------------------------------------------- fraction

def test_fraction_selection_size_and_determinism():
    a = select_queries(460, 100, 0.25, make_rng(3, "release"))
    assert a.size == 25 and np.all(np.diff(a) > 0) and a.max() < 460
    b = select_queries(460, 100, 0.25, make_rng(3, "release"))
    np.testing.assert_array_equal(a, b)
    c = select_queries(460, 100, 0.25, make_rng(4, "release"))
    assert not np.array_equal(a, c)
    assert select_queries(460, 1, 0.25, make_rng(0)).size == 1      # at least one
    assert select_queries(10, 1000, 0.25, make_rng(0)).size == 10   # at most all
    assert select_queries(10, 3, None, make_rng(0)).size == 10
    assert select_queries(460, 450, 0.25, make_rng(0)).size == 112  # round(112.5) = 112


# --------------------------------------------------------------------------- sensitivity

def brute_sensitivity(dom: Domain, qs) -> int:
    best = 0
    for x in itertools.product(*(range(k) for k in dom.sizes)):
        arr = np.asarray([x])
        best = max(best, sum(bool(q.matches(arr)[0]) for q in qs))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_sensitivity_matches_brute_force(seed):
    dom = Domain(("age", "sex", "race"), (tuple(str(a) for a in range(12)), ("M", "F"), RACES))
    g = np.random.default_rng(seed)
    family = (marginals(dom, ways=(1, 2), buckets={"age": 4})
              + contingency_table(dom, ["sex"], within="race")
              + random_queries(dom, 15, seed=seed))
    keep = np.flatnonzero(g.random(len(family)) < 0.3)
    qs = [family[i] for i in keep]
    value, exact = release_sensitivity(dom, qs)
    assert exact
    assert value == brute_sensitivity(dom, qs)
    upper, exact_small = release_sensitivity(dom, qs, max_nodes=1)
    assert upper >= value                                 # the fallback never under-reports


def test_sensitivity_of_full_tables_is_number_of_tables():
    dom = census_domain(max_age=40)
    assert release_sensitivity(dom, census_p_tables(dom)) == (2, True)
    with_h = census_p_tables(dom, hispanic_col="hispanic", hispanic_label="Yes",
                             white_label="White")
    assert release_sensitivity(dom, with_h) == (3, True)  # P12, a race table, P12H or P12I
    assert release_sensitivity(dom, marginals(dom, ways=(1, 2)))[0] == 4 + 6
    assert release_sensitivity(dom, []) == (0, True)


# --------------------------------------------------------------------------- noise

def test_noise_rounding_clamping_and_determinism():
    truth = np.array([0, 0, 1, 3, 50, 0, 2] * 20)
    spec = ReleaseSpec(mechanism="laplace", epsilon=0.5)
    a = noisy_answers(truth, spec, 2, make_rng(1, "noise"))
    b = noisy_answers(truth, spec, 2, make_rng(1, "noise"))
    np.testing.assert_array_equal(a, b)
    assert a.dtype == np.int64 and a.min() >= 0
    assert not np.array_equal(a, noisy_answers(truth, spec, 2, make_rng(2, "noise")))
    assert (a == 0).sum() > (truth == 0).sum() * 0.3      # clamped mass at zero
    raw = noisy_answers(truth, ReleaseSpec(mechanism="laplace", epsilon=0.5, rounding=False,
                                           clamp=False), 2, make_rng(1, "noise"))
    assert raw.dtype == np.float64 and raw.min() < 0
    np.testing.assert_array_equal(a, np.maximum(np.rint(raw), 0))
    assert release_noise_scale(spec, 2) == pytest.approx(4.0)       # Δ/ε
    per_query = ReleaseSpec(mechanism="laplace", epsilon=0.5, budget="per_query")
    assert release_noise_scale(per_query, 7) == pytest.approx(2.0)  # 1/ε, paper §5.6
    for mech, extra in (("discrete_laplace", {}), ("discrete_gaussian", {"delta": 1e-5})):
        s = ReleaseSpec(mechanism=mech, epsilon=1.0, **extra)
        out = noisy_answers(truth, s, 3, make_rng(5))
        assert out.dtype.kind == "i" and out.min() >= 0
        np.testing.assert_array_equal(out, noisy_answers(truth, s, 3, make_rng(5)))
    np.testing.assert_array_equal(noisy_answers(truth, ReleaseSpec(), 3, make_rng(0)), truth)


def test_release_spec_validation():
    with pytest.raises(InputError, match="release kind"):
        ReleaseSpec(kind="cubes")
    with pytest.raises(InputError, match="positive epsilon"):
        ReleaseSpec(mechanism="laplace")
    with pytest.raises(InputError, match="delta"):
        ReleaseSpec(mechanism="discrete_gaussian", epsilon=1.0)
    with pytest.raises(InputError, match="fraction"):
        ReleaseSpec(fraction=0)
    with pytest.raises(InputError, match="mechanism"):
        ReleaseSpec(mechanism="gauss", epsilon=1.0)
    spec = ReleaseSpec(kind="marginals", options={"ways": [1]}, mechanism="laplace", epsilon=1)
    assert ReleaseSpec.from_dict(spec.to_dict()) == spec


def test_build_release_p_tables():
    dom = census_domain()
    codes = random_codes(dom, 450, seed=8)
    spec = ReleaseSpec(kind="p_tables", mechanism="laplace", epsilon=1.0)
    r1 = build_release(spec, dom, codes, make_rng(11, "release"))
    r2 = build_release(spec, dom, codes, make_rng(11, "release"))
    assert len(r1.queries) == round(0.25 * 450) and r1.n_candidates == 2 * 23 * 4
    np.testing.assert_array_equal(r1.released_answers, r2.released_answers)
    np.testing.assert_array_equal(r1.selected, r2.selected)
    np.testing.assert_array_equal(r1.true_answers, answers(r1.queries, codes))
    assert r1.sensitivity == brute_force_small(dom, r1.queries) and r1.sensitivity_exact
    assert r1.noise_scale == pytest.approx(r1.sensitivity / 1.0)
    exact = build_release(ReleaseSpec(kind="marginals", options={"ways": [1]}, fraction=None),
                          dom, codes, make_rng(0))
    np.testing.assert_array_equal(exact.released_answers, exact.true_answers)
    assert exact.sensitivity == 4 and exact.noise_scale == 0.0
    with pytest.raises(InputError, match="Unknown release option 'agecol'"):
        build_release(ReleaseSpec(options={"agecol": "age"}), dom, codes, make_rng(0))


def brute_force_small(dom: Domain, qs) -> int:
    """Max matches over the product of the constrained columns' values (age × sex × race)."""
    best = 0
    for a, s, r in itertools.product(range(dom.sizes[0]), range(2), range(3)):
        x = np.array([[a, s, r, 0]])
        best = max(best, sum(bool(q.matches(x)[0]) for q in qs))
    return best


# --------------------------------------------------------------------------- loaders

def test_load_queries_csv_and_toml(tmp_path):
    dom = census_domain()
    codes = random_codes(dom, 200, seed=9)
    p = write(tmp_path, "q.csv", "label,age,sex,race\n"
                                 "young men,20-29,Male,\n"
                                 "all white or asian,,,White|Asian\n"
                                 "mixed,0-4|30|90-99,,\n")
    qs = load_queries_file(p, dom)
    assert [q.label for q in qs] == ["young men", "all white or asian", "mixed"]
    got = answers(qs, codes)
    age, sex, race = codes[:, 0], codes[:, 1], codes[:, 2]
    assert got[0] == ((age >= 20) & (age <= 29) & (sex == 0)).sum()
    assert got[1] == np.isin(race, [0, 2]).sum()
    assert got[2] == ((age <= 4) | (age == 30) | (age >= 90)).sum()
    t = write(tmp_path, "q.toml", '[[query]]\nlabel = "young men"\nage = "20-29"\n'
                                  'sex = ["Male"]\n\n[[query]]\nrace = "White|Asian"\n'
                                  '\n[[query]]\nage = [30, 31]\n')
    tq = load_queries_file(t, dom)
    np.testing.assert_array_equal(answers(tq[:2], codes), got[:2])
    assert answers(tq[2:], codes)[0] == np.isin(age, [30, 31]).sum()
    assert tq[1].label == "query 2"


def test_load_published_table(tmp_path):
    dom = census_domain()
    p = write(tmp_path, "pub.csv", "sex,race,count\nMale,White,4\nFemale,White,0\n"
                                   "Male,Black|Asian,7.0\n")
    qs, counts = load_published_table(p, dom)
    np.testing.assert_array_equal(counts, [4, 0, 7])
    assert len(qs) == 3 and qs[2].conditions == ((1, frozenset({0})), (2, frozenset({1, 2})))
    codes = random_codes(dom, 50, seed=10)
    rel = build_release(ReleaseSpec(kind="published", options={"path": str(p)}), dom, codes,
                        make_rng(0))
    np.testing.assert_array_equal(rel.released_answers, [4, 0, 7])
    np.testing.assert_array_equal(rel.true_answers, answers(qs, codes))
    assert rel.sensitivity == 1                          # the three cells are disjoint


BAD_CASES = [
    # (file, loader, phrases that the message must contain)
    ("unknown_column.csv", "queries", ["unknown_column.csv", "row 1", "'colour'",
                                       "not an attribute", "'age'", "'race'"]),
    ("unknown_value.csv", "queries", ["unknown_value.csv", "row 3", "column 'sex'",
                                      "'Martian'", "'Male'", "'Female'"]),
    ("bad_range.csv", "queries", ["row 3", "column 'age'", "'40-30'", "ends before it starts",
                                  "30-40"]),
    ("bad_range_text.csv", "queries", ["row 2", "column 'age'", "'20-abc'",
                                       "not a valid range", "20-29"]),
    ("range_outside_domain.csv", "queries", ["row 2", "'200-300'", "none of the values",
                                             "0 to 99"]),
    ("range_on_text_column.csv", "queries", ["row 2", "column 'race'", "'1-3'",
                                             "integer values", "'White'"]),
    ("ragged_row.csv", "queries", ["row 2", "3 fields", "header has 2"]),
    ("empty.csv", "queries", ["empty.csv", "the file is empty"]),
    ("header_only.csv", "queries", ["header_only.csv", "no data rows"]),
    ("negative_count.csv", "published", ["row 3", "column 'count'", "negative",
                                         "cannot be below 0"]),
    ("non_integer_count.csv", "published", ["row 3", "column 'count'", "'2.5'",
                                            "not a whole number"]),
    ("not_a_number_count.csv", "published", ["row 2", "a 4-character text of letters",
                                              "not a number"]),
    ("duplicated_condition.csv", "published", ["row 4", "same conditions as row 2",
                                               "remove one of the rows"]),
    ("missing_count.csv", "published", ["no 'count' column", "add a column named 'count'"]),
    ("published_unknown_value.csv", "published", ["row 2", "column 'race'", "'Purple'",
                                                  "'White'"]),
    ("unknown_column.toml", "queries", ["unknown_column.toml", "query 2", "'shoe_size'",
                                        "not an attribute", "'age'"]),
    ("unknown_value.toml", "queries", ["query 2", "column 'race'", "'Green'", "'White'",
                                       "'Asian'"]),
    ("bad_range.toml", "queries", ["query 1", "column 'age'", "'29-20'",
                                   "ends before it starts"]),
    ("no_queries.toml", "queries", ["no_queries.toml", "no [[query]] tables"]),
    ("broken_syntax.toml", "queries", ["broken_syntax.toml", "not valid TOML"]),
]


def test_every_bad_input_file_has_a_case():
    formats = in_folder("queries")               # tests/engine/test_input_corpus.py
    assert sorted(p.name for p in BAD.iterdir() if p.name not in formats) == \
        sorted(c[0] for c in BAD_CASES)


@pytest.mark.parametrize("name,loader,phrases", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_query_files(name, loader, phrases):
    dom = census_domain()
    load = load_queries_file if loader == "queries" else load_published_table
    with pytest.raises(InputError) as info:
        load(BAD / name, dom)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    for phrase in phrases:
        assert phrase in message, (phrase, message)
    assert info.value.source == str(BAD / name)


def test_domain_errors():
    dom = census_domain()
    with pytest.raises(InputError, match="Unknown column 'colour'.*'age'"):
        dom.index("colour")
    with pytest.raises(InputError, match="no value 'Martian'.*'Male', 'Female'"):
        dom.code("sex", "Martian")
    assert dom.code("race", "Asian") == 2 and dom.index("sex") == 1
    with pytest.raises(InputError, match="twice"):
        Domain(("a", "a"), (("x",), ("y",)))
    with pytest.raises(InputError, match="outside 0..1"):
        dom.check_codes(np.array([[0, 2, 0, 0]]))
