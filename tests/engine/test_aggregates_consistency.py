"""Issue 7, "Bad input": published tables whose counts cannot all be true (the CP-SAT model of
paper 003 §3.1 on the counts alone, engine/aggregates/consistency.py), the record-space limit
of the exact attack, a 10⁷-value domain, and one sentence — file, row or column, what to do —
for every bad input the issue lists (tests/data/bad_inputs/published/ and schemas/, plus the
microdata and query files tested in detail elsewhere)."""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path

import numpy as np
import pytest

from engine.aggregates import Domain, answers, load_published_table, load_queries_file
from engine.aggregates import consistency as cons
from engine.aggregates.consistency import ConsistencyReport, check_published_consistency
from engine.aggregates.queries import CountingQuery, load_published_rows
from engine.attacks.aggregates import desia_deterministic as dd
from engine.data.errors import InputError
from engine.data.microdata import (
    ColumnSchema,
    Schema,
    load_microdata_csv,
    require_unique_targets,
)
from engine.runtime import CancelToken, JobCancelled

BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs"
PUBLISHED = BAD / "published"
RACES = ("White", "Black", "Asian")


def table_domain() -> Domain:
    """The columns of the files in bad_inputs/published/."""
    return Domain(("sex", "age", "race"),
                  (("Female", "Male"), tuple(str(a) for a in range(100)), RACES))


def census_domain() -> Domain:
    """The columns of the files in bad_inputs/queries/."""
    return Domain(("age", "sex", "race", "hispanic"),
                  (tuple(str(a) for a in range(100)), ("Male", "Female"), RACES, ("No", "Yes")))


def people_schema() -> Schema:
    return Schema((
        ColumnSchema("sex", "quasi_identifier", "categorical", ("F", "M")),
        ColumnSchema("age", "quasi_identifier", "integer", low=0, high=115),
        ColumnSchema("race", "sensitive", "categorical", RACES),
    ))


def check_file(path: Path, n_records: int | None, domain: Domain | None = None, **kw):
    rows = load_published_rows(path, domain or table_domain())
    return check_published_consistency(domain or table_domain(), rows.queries, rows.counts,
                                       n_records, source=rows.source, lines=rows.lines, **kw)


def assert_sentence(exc: InputError, path: Path, phrases):
    message = str(exc)
    assert "\n" not in exc.one_line() and "Traceback" not in message
    assert path.name in message, message
    for phrase in phrases:
        assert phrase in message, (phrase, message)


# --------------------------------------------------------------------------- published tables

PUBLISHED_CASES = [
    # (file, |D|, phrases, rows named, total named)
    ("cells_not_total.csv", 20,
     ["rows 2–7 and the total cannot all be true", "the table describes 20 people in all",
      "rows 2–7, which split the same people, add up to 18", "check these counts",
      "published_records"], (2, 3, 4, 5, 6, 7), True),
    ("marginal_vs_table.csv", 20,
     ["rows 2–5 cannot all be true", "row 5 (sex=Female) counts 12 people",
      "rows 2 (sex=Female, age=0-17), 3 (sex=Female, age=18-64) and 4 (sex=Female, "
      "age=65-99), which split the same people, add up to 14", "check these counts"],
     (2, 3, 4, 5), False),
    ("labelled_cells_exceed_marginal.csv", 30,
     ["rows 2–4 cannot all be true", "row 4 ('All women') counts 10 people",
      "rows 2 ('Women, White') and 3 ('Women, Black'), which count different people who are "
      "all in row 4, add up to 13", "check these counts"], (2, 3, 4), False),
    ("two_way_vs_marginals.csv", 4,
     ["rows 2–4 and the total cannot all be true", "no set of people gives row 2 (sex=Female) "
      "= 3, row 3 (race=White) = 3, row 4 (sex=Female, race=White) = 0 and the total = 4 at "
      "once", "check these counts", "published_records"], (2, 3, 4), True),
    ("count_above_total.csv", 200,
     ["row 3 (sex=Female, age=18-64) counts 250 people, more than the 200 records the table "
      "describes", "check the count", "people counted in the table (|D|)"], (3,), True),
    ("noisy_negative.csv", 100,
     ["row 3, column 'count'", "'-1' is negative", "clamp noisy counts at 0"], None, None),
    ("noisy_fractional.csv", 100,
     ["row 3, column 'count'", "a 4-character number is not a whole number", "round them"], None, None),
]


def test_every_published_file_has_a_case():
    assert sorted(p.name for p in PUBLISHED.iterdir()) == sorted(c[0] for c in PUBLISHED_CASES)


@pytest.mark.parametrize("name,n,phrases,rows,total", PUBLISHED_CASES,
                         ids=[c[0] for c in PUBLISHED_CASES])
def test_bad_published_tables(name, n, phrases, rows, total):
    with pytest.raises(InputError) as info:
        check_file(PUBLISHED / name, n)
    assert_sentence(info.value, PUBLISHED / name, phrases)
    assert info.value.source == str(PUBLISHED / name) and info.value.key == "count"
    if rows is not None:
        assert info.value.conflict_rows == rows and info.value.conflict_total == total


def test_consistent_table_passes(tmp_path):
    p = tmp_path / "ok.csv"
    p.write_text("sex,age,race,count\nFemale,0-17,,12\nFemale,18-64,,31\n\nMale,0-17,,9\n"
                 "Male,18-64,,40\nFemale,,White,30\nMale,,White,35\n,65-99,,8\n")
    report = check_file(p, 100)
    assert isinstance(report, ConsistencyReport)
    assert report.consistent is True and report.status == "consistent"
    assert report.rows == 7 and report.n_variables > 0
    assert "ok.csv" in report.note and "consistent" in report.note
    assert check_file(p, None).consistent is True          # without a total
    with pytest.raises(InputError) as info:                # 12+31+9+40+8 = 100, not 99
        check_file(p, 99)
    assert info.value.conflict_total and info.value.conflict_rows == (2, 3, 5, 6, 9)
    text = str(info.value)              # two tables (sex × age and age) split everyone
    assert "rows 2, 3, 5, 6, 9 and the total cannot all be true" in text
    assert "the table describes 99 people in all (|D|) but rows 2 (sex=Female, age=0-17)" in \
        text
    assert "and 9 (age=65-99), which split the same people, add up to 100" in text


def test_rows_keep_their_csv_line(tmp_path):
    p = tmp_path / "pub.csv"
    p.write_text("label,sex,count\n\nwomen,Female,3\n\n\nmen,Male,4\n")
    rows = load_published_rows(p, table_domain())
    assert rows.lines == (3, 6) and rows.source == str(p)
    assert [q.label for q in rows.queries] == ["women", "men"]
    qs, counts = load_published_table(p, table_domain())          # unchanged signature
    assert counts.tolist() == [3, 4] and qs == rows.queries
    with pytest.raises(InputError) as info:
        check_published_consistency(table_domain(), rows.queries, rows.counts, 8,
                                    source=rows.source, lines=rows.lines)
    assert "rows 3, 6 and the total cannot all be true" in str(info.value)
    assert "rows 3 ('women') and 6 ('men'), which split the same people, add up to 7" in \
        str(info.value)


def test_count_that_is_not_a_count(tmp_path):
    p = tmp_path / "pub.csv"
    p.write_text("sex,count\nFemale,3\nMale,1e20\n")
    with pytest.raises(InputError, match=r"row 3, column 'count': a 4-character number is more "
                                         r"people than any table counts.*check the column"):
        load_published_rows(p, table_domain())


def test_time_limit_says_the_check_did_not_finish(monkeypatch):
    dom = table_domain()
    q = [CountingQuery(((0, frozenset({0})),)), CountingQuery(((0, frozenset({1})),))]
    monkeypatch.setattr(cons._Model, "check", lambda self, ids, t, cancel: "UNKNOWN")
    report = check_published_consistency(dom, q, [3, 4], 7, source="data/pub.csv",
                                         time_limit=0.5)
    assert report.consistent is None and report.status == "time_limit"
    assert "pub.csv" in report.note and "did not finish within 0.5 s" in report.note
    assert "may or may not be consistent" in report.note and "time limit" in report.note


def test_too_many_kinds_of_record_is_reported_not_checked():
    sizes = [10] * 8
    dom = Domain(tuple(f"c{j}" for j in range(8)),
                 tuple(tuple(str(v) for v in range(s)) for s in sizes))
    qs = [CountingQuery(((j, frozenset({v})),)) for j in range(8) for v in range(10)]
    report = check_published_consistency(dom, qs, [1] * len(qs), 10, source="wide.csv")
    assert report.consistent is None and report.status == "too_large"
    assert "wide.csv" in report.note and "100,000,000 kinds of record" in report.note


def test_cancel_stops_the_check():
    token = CancelToken()
    token.cancel()
    dom = table_domain()
    q = [CountingQuery(((0, frozenset({0})),)), CountingQuery(((2, frozenset({0})),))]
    with pytest.raises(JobCancelled):
        check_published_consistency(dom, q, [3, 4], 7, source="pub.csv", cancel=token)


# --------------------------------------------------------------------------- against brute force

def _feasible(space: dd.RecordSpace, queries, counts, rows, n_records) -> bool:
    """Independent check on the full record space: plain constraints, no merging, no
    assumptions."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    top = int(max([n_records or 0] + [int(counts[i]) for i in rows] + [0]))
    x = [model.new_int_var(0, top, f"x{r}") for r in range(space.codes.shape[0])]
    for i in rows:
        members = [x[r] for r in np.flatnonzero(space.matches(queries[i].conditions))]
        if members:
            model.add(sum(members) == int(counts[i]))
        elif counts[i]:
            return False
    if n_records is not None:
        model.add(sum(x) == int(n_records))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 10
    status = solver.status_name(solver.solve(model))
    assert status in ("OPTIMAL", "FEASIBLE", "INFEASIBLE")
    return status != "INFEASIBLE"


def _random_queries(dom: Domain, g: np.random.Generator, n: int) -> list[CountingQuery]:
    seen, out = set(), []
    while len(out) < n:
        conds = []
        for j, size in enumerate(dom.sizes):
            if g.random() < 0.5:
                k = int(g.integers(1, size + 1))
                conds.append((j, frozenset(int(v) for v in g.choice(size, k, replace=False))))
        q = CountingQuery(tuple(conds))
        if q.conditions not in seen:
            seen.add(q.conditions)
            out.append(q)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_conflicts_are_real_and_minimal(seed):
    """Random small releases, some counts nudged: the check agrees with a plain model on
    the full record space, and the rows it names conflict while any smaller set does not."""
    g = np.random.default_rng(seed)
    dom = Domain(("a", "b", "c"), (("0", "1"), ("0", "1", "2"), ("0", "1", "2", "3")))
    space = dd.RecordSpace.of(dom)
    n = int(g.integers(5, 30))
    codes = np.stack([g.integers(0, k, n) for k in dom.sizes], axis=1)
    queries = _random_queries(dom, g, int(g.integers(4, 14)))
    counts = answers(queries, codes)
    for i in g.choice(len(queries), int(g.integers(0, 3)), replace=False):
        counts[i] = max(0, counts[i] + int(g.choice([-2, -1, 1, 2])))
    n_rec = None if seed % 4 == 3 else n + int(g.choice([0, 0, -1, 1]))
    all_rows = list(range(len(queries)))
    try:
        report = check_published_consistency(dom, queries, counts, n_rec, source="t.csv")
    except InputError as exc:
        assert "t.csv" in str(exc) and "check the" in str(exc)
        rows = [r - 2 for r in exc.conflict_rows]
        total = n_rec if exc.conflict_total else None
        assert not _feasible(space, queries, counts, all_rows, n_rec)
        assert not _feasible(space, queries, counts, rows, total)
        if "ran out of time" not in str(exc):
            for k in range(len(rows)):
                assert _feasible(space, queries, counts, rows[:k] + rows[k + 1:], total)
            if exc.conflict_total:
                assert _feasible(space, queries, counts, rows, None)
    else:
        assert report.consistent is True
        assert _feasible(space, queries, counts, all_rows, n_rec)


def test_same_conflict_every_run():
    """One worker and a fixed seed: the rows named do not change between runs."""
    dom = table_domain()
    qs = [CountingQuery(((0, frozenset({0})),)), CountingQuery(((2, frozenset({0})),)),
          CountingQuery(((0, frozenset({0})), (2, frozenset({0})))),
          CountingQuery(((0, frozenset({1})), (2, frozenset({1, 2}))))]
    messages = set()
    for _ in range(3):
        with pytest.raises(InputError) as info:
            check_published_consistency(dom, qs, [3, 3, 0, 5], 4, source="p.csv")
        messages.add(str(info.value))
    assert len(messages) == 1


def test_garbage_published_tables_give_sentences_only(tmp_path):
    """Random cells in a published table: every outcome is a result or an InputError."""
    g = np.random.default_rng(7)
    tokens = ["", "Female", "Male", "Female|Male", "20-29", "29-20", "abc", "-3", "1e3",
              "1e30", "nan", "inf", "2.5", "0", "7", "White|Asian", "Purple", "0-99", " 4 "]
    header = ["sex", "age", "race", "count"]
    for trial in range(40):
        lines = [",".join(header)]
        for _ in range(int(g.integers(1, 6))):
            lines.append(",".join(str(g.choice(tokens)) for _ in header))
        p = tmp_path / f"t{trial}.csv"
        p.write_text("\n".join(lines) + "\n")
        try:
            check_file(p, int(g.integers(1, 50)), time_limit=2.0)
        except InputError as exc:
            assert p.name in str(exc) and "\n" not in exc.one_line()


# --------------------------------------------------------------------------- record space

def test_record_space_too_large_is_a_sentence():
    with pytest.raises(InputError) as info:
        dd.RecordSpace.of([2, 1_000_000, 7], columns=("sex", "income", "race"))
    text = str(info.value)
    for phrase in ("allow 14,000,000 possible records", "(1,000,000 × 7 × 2)",
                   "'income' (1,000,000 values), 'race' (7 values) and 'sex' (2 values)",
                   "more than the 5,000,000", "fewer quasi-identifiers", "coarser bins",
                   "role to 'ignore'"):
        assert phrase in text, (phrase, text)
    assert info.value.key == "quasi_identifiers"
    dom = Domain(("block", "age", "race"), (tuple(f"b{i}" for i in range(20_000)),
                                            tuple(str(a) for a in range(116)), RACES))
    with pytest.raises(InputError, match=r"6,960,000 possible records.*'block' "
                                         r"\(20,000 values\), 'age' \(116 values\)"):
        dd.RecordSpace.of(dom)
    with pytest.raises(InputError, match="column 1"):                # sizes only
        dd.RecordSpace.of([10_000, 1_000])
    assert dd.RecordSpace.of(table_domain()).codes.shape == (600, 3)


# --------------------------------------------------------------------------- issue 7 list

def test_ten_million_value_domain_in_a_schema():
    path = BAD / "schemas" / "huge_domain.toml"
    schema = Schema.from_dict(tomllib.loads(path.read_text())["schema"], source=str(path))
    assert schema.column("income").domain_size == 10_000_000
    with pytest.raises(InputError) as info:
        schema.validate_for_audit(source=str(path))
    assert_sentence(info.value, path, [
        "a column 'income' with 10,000,000 possible values cannot be audited exactly",
        "bin it (e.g. bins [0,", "or set its role to 'ignore'"])
    assert info.value.key == "income" and info.value.source == str(path)
    with pytest.raises(InputError, match="^A column 'income' with 10,000,000"):
        schema.validate_for_audit()                                 # no source: as before
    data = BAD / "microdata" / "huge_domain.csv"
    with pytest.raises(InputError) as info:
        load_microdata_csv(data, schema)
    assert_sentence(info.value, data, ["column 'income' with 10,000,000 possible values",
                                       "from the quintiles of the data", "role to 'ignore'"])
    binned = Schema((schema.column("sex"),
                     ColumnSchema("income", kind="integer",
                                  bins=(0, 20_000, 50_000, 100_000, 10_000_001))))
    binned.validate_for_audit(source=str(path))
    assert load_microdata_csv(data, binned).n_records == 4


def _sensitive_one_value():
    load_microdata_csv(BAD / "microdata" / "sensitive_one_value.csv", people_schema())


def _no_unique_targets():
    require_unique_targets(load_microdata_csv(BAD / "microdata" / "no_unique_targets.csv",
                                              people_schema()))


def _queries(name):
    return lambda: load_queries_file(BAD / "queries" / name, census_domain())


def _published(name, folder="queries", n=100):
    return lambda: check_file(BAD / folder / name, n, census_domain() if folder == "queries"
                              else table_domain())


ISSUE_CASES = [
    # (what, file, call, phrases: row/column and what to do)
    ("sensitive column with one value", "sensitive_one_value.csv", _sensitive_one_value,
     ["sensitive column 'race'", "only one value", "choose another sensitive column"]),
    ("no unique target", "no_unique_targets.csv", _no_unique_targets,
     ["('sex', 'age')", "add quasi-identifiers or use finer ones"]),
    ("query with unknown column", "unknown_column.csv", _queries("unknown_column.csv"),
     ["row 1, column 'colour'", "rename or remove the column"]),
    ("query with unknown value", "unknown_value.csv", _queries("unknown_value.csv"),
     ["row 3, column 'sex'", "'Martian'", "use one of these"]),
    ("TOML query with unknown column", "unknown_column.toml", _queries("unknown_column.toml"),
     ["query 2", "'shoe_size'", "rename or remove it"]),
    ("TOML query with unknown value", "unknown_value.toml", _queries("unknown_value.toml"),
     ["query 2, column 'race'", "'Green'", "use one of these"]),
    ("negative count", "negative_count.csv", _published("negative_count.csv"),
     ["row 3, column 'count'", "cannot be below 0"]),
    ("non-integer count", "non_integer_count.csv", _published("non_integer_count.csv"),
     ["row 3, column 'count'", "round them"]),
] + [(f"published: {c[0]}", c[0], _published(c[0], "published", c[1]), c[2])
     for c in PUBLISHED_CASES]


@pytest.mark.parametrize("what,name,call,phrases", ISSUE_CASES, ids=[c[0] for c in ISSUE_CASES])
def test_issue_7_bad_inputs_give_one_sentence(what, name, call, phrases):
    with pytest.raises(InputError) as info:            # any other exception fails the test
        call()
    message = str(info.value)
    assert name in info.value.one_line() and "\n" not in info.value.one_line()
    for phrase in phrases:
        assert phrase in message, (phrase, message)


def test_every_new_bad_input_file_is_used():
    used = {c[1] for c in ISSUE_CASES} | {"huge_domain.toml"}
    new = {p.name for folder in ("published", "schemas") for p in (BAD / folder).iterdir()}
    assert new <= used


def test_row_lists_are_short():
    assert cons._rows_text([2, 3, 4, 7, 8, 12]) == "rows 2–4, 7, 8 and 12"
    assert cons._rows_text([5], total=True) == "row 5 and the total"
    many = list(itertools.chain(range(2, 10), range(20, 30, 2), range(40, 50, 3)))
    text = cons._rows_text(many)
    assert text.startswith("rows 2–9, 20, 22") and text.endswith(" more")
