"""Microdata for the fixed-aggregate audit (paper 003 §2): schema, inference, coding, unique
targets, and the loader's one-sentence errors for every file in tests/data/bad_inputs/microdata/."""

from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.data.errors import InputError
from engine.data.microdata import (
    MISSING_CATEGORY,
    ColumnSchema,
    Microdata,
    Schema,
    infer_schema,
    load_microdata_csv,
    microdata_from_frame,
    require_unique_targets,
    unique_targets,
    write_microdata_csv,
)
from engine.runtime import rng
from tests.engine.test_input_corpus import in_folder

BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs" / "microdata"


def people_schema() -> Schema:
    return Schema((
        ColumnSchema("sex", "quasi_identifier", "categorical", ("F", "M")),
        ColumnSchema("age", "quasi_identifier", "integer", low=0, high=115),
        ColumnSchema("race", "sensitive", "categorical", ("White", "Black", "Asian")),
    ))


# --------------------------------------------------------------------------- schema

def test_column_domains_and_labels():
    age = ColumnSchema("age", kind="integer", low=18, high=20)
    assert age.domain_size == 3 and age.labels() == ("18", "19", "20")
    groups = ColumnSchema("age", kind="integer", bins=(0, 20, 25, 116))
    assert groups.domain_size == 3
    assert groups.labels() == ("0–19", "20–24", "25–116")
    assert (groups.low, groups.high) == (0, 116)
    cont = ColumnSchema("bmi", kind="continuous", bins=(10, 18.5, 25, 60))
    assert cont.labels() == ("[10, 18.5)", "[18.5, 25)", "[25, 60]")
    sex = ColumnSchema("sex", categories=("F", "M"))
    assert sex.domain_size == 2 and sex.role == "quasi_identifier"
    assert ColumnSchema("id", "ignore").is_open


@pytest.mark.parametrize("kwargs, phrase", [
    (dict(name="x", role="secret"), "role “secret” is not one of"),
    (dict(name="x", role="sensitiv", categories=("a",)), "did you mean 'sensitive'"),
    (dict(name="x", kind="text", categories=("a",)), "kind “text”"),
    (dict(name="x"), "needs its list of categories"),
    (dict(name="x", categories=("a", "a")), "listed twice"),
    (dict(name="x", kind="integer", low=5), "needs 'low' and 'high'"),
    (dict(name="x", kind="integer", low=9, high=2), "swap them"),
    (dict(name="x", kind="integer", bins=(0, 5, 5)), "strictly increasing"),
    (dict(name="x", kind="integer", bins=(0, 2.5, 5)), "whole numbers"),
    (dict(name="x", kind="continuous"), "needs bins"),
    (dict(name="x", categories=("a",), low=1), "takes categories"),
    (dict(name=" "), "non-empty"),
])
def test_bad_column_schema_is_a_sentence(kwargs, phrase):
    with pytest.raises(InputError, match="x|name") as exc:
        ColumnSchema(**kwargs)
    assert phrase in str(exc.value)


def test_schema_roles_and_audit_validation():
    s = people_schema()
    assert s.quasi_identifiers == ("sex", "age") and s.sensitive == "race"
    assert s.domain_sizes() == {"sex": 2, "age": 116, "race": 3}
    s.validate_for_audit()
    none = s.with_roles(quasi_identifiers=("sex", "age"))
    assert none.sensitive is None
    with pytest.raises(InputError, match="No column is marked sensitive"):
        none.validate_for_audit()
    two = Schema(tuple(ColumnSchema(c.name, "sensitive", c.kind, c.categories, c.low, c.high)
                       for c in s.columns))
    with pytest.raises(InputError, match="all marked sensitive; .* keep one"):
        two.validate_for_audit()
    only_sensitive = s.with_roles(sensitive="race", quasi_identifiers=())
    with pytest.raises(InputError, match="No column is a quasi-identifier"):
        only_sensitive.validate_for_audit()
    one_value = Schema((ColumnSchema("sex", categories=("F",), role="sensitive"),
                        ColumnSchema("age", kind="integer", low=0, high=9)))
    with pytest.raises(InputError, match="nothing to infer; choose another sensitive column"):
        one_value.validate_for_audit()
    huge = Schema((ColumnSchema("income", kind="integer", low=0, high=9_999_999),
                   ColumnSchema("race", "sensitive", categories=("a", "b"))))
    with pytest.raises(InputError, match="10,000,000 possible values cannot be audited exactly; "
                                         "bin it"):
        huge.validate_for_audit()
    swapped = s.with_roles(sensitive="sex")
    assert swapped.sensitive == "sex" and swapped.column("race").role == "quasi_identifier"
    with pytest.raises(InputError, match="no column 'rcae'.*did you mean 'race'"):
        s.with_roles(sensitive="rcae")
    with pytest.raises(InputError, match="appears twice"):
        Schema((ColumnSchema("a", categories=("x",)), ColumnSchema("a", categories=("y",))))


def test_schema_round_trip():
    s = Schema((
        ColumnSchema("id", "ignore"),
        ColumnSchema("sex", categories=("F", "M")),
        ColumnSchema("age", kind="integer", low=0, high=115),
        ColumnSchema("age5", kind="integer", bins=(0, 5, 10, 116)),
        ColumnSchema("bmi", kind="continuous", bins=(10.0, 18.5, 60.0)),
        ColumnSchema("race", "sensitive", categories=("White", "Asian")),
    ))
    d = s.to_dict()
    assert d["schema_version"] == 1
    assert Schema.from_dict(d, "p.json") == s
    import json
    assert Schema.from_dict(json.loads(json.dumps(d))) == s


@pytest.mark.parametrize("mutate, phrases", [
    (lambda d: d.update(extra=1), ["p.json", "entry “extra” this app does not read"]),
    (lambda d: d.update(schema_version=9), ["p.json", "schema's version 9 is not supported"]),
    (lambda d: d.update(columns=[]), ["p.json", "'columns' must be a non-empty list"]),
    (lambda d: d["columns"][1].update(rol="sensitive"), ["column 2 ('age')", "unknown key 'rol'",
                                                          "did you mean 'role'"]),
    (lambda d: d["columns"][1].pop("name"), ["column 2", "has no name"]),
    (lambda d: d["columns"][1].update(role="target"), ["p.json", "Column 'age'",
                                                       "role “target”"]),
    (lambda d: d["columns"][1].update(low="zero"), ["'low' must be a whole number"]),
    (lambda d: d["columns"][0].update(categories="FM"), ["categories must be a list"]),
    (lambda d: d["columns"].append(d["columns"][0]), ["Column 'sex' appears twice"]),
    (lambda d: d["columns"].__setitem__(0, "sex"), ["column 1 of the schema must be a table"]),
])
def test_schema_from_dict_errors(mutate, phrases):
    d = people_schema().to_dict()
    mutate(d)
    with pytest.raises(InputError) as exc:
        Schema.from_dict(d, "p.json")
    for phrase in phrases:
        assert phrase in str(exc.value)
    assert exc.value.source == "p.json"
    with pytest.raises(InputError, match="must be a table"):
        Schema.from_dict([1, 2], "p.json")


# --------------------------------------------------------------------------- inference

def test_infer_schema_kinds_and_roles():
    n = 40
    g = rng(0, "test", "infer")
    df = pd.DataFrame({
        "person_id": [f"p{i:03d}" for i in range(n)],
        "row": np.arange(1, n + 1),
        "sex": g.choice(["M", "F"], n),
        "age": g.integers(0, 90, n),
        "income": g.normal(50_000, 9_000, n),
        "score": g.choice([0.5, 1.5, 2.5], n),
        "zip": g.choice(["02139", "02140", "10001"], n),
        "comment": [f"free text {i % 30}" for i in range(n)],
        "flag": g.choice([True, False], n),
    })
    s = infer_schema(df, max_categories=20)
    c = {col.name: col for col in s.columns}
    assert c["person_id"].role == "ignore" and c["person_id"].is_open
    assert c["row"].role == "ignore"            # consecutive unique integers: row numbers
    assert c["sex"].categories == ("F", "M")
    assert c["age"].kind == "integer"
    assert (c["age"].low, c["age"].high) == (int(df.age.min()), int(df.age.max()))
    assert c["income"].kind == "continuous" and 8 <= c["income"].domain_size <= 10
    assert c["income"].bins[0] == df.income.min() and c["income"].bins[-1] == df.income.max()
    assert c["score"].kind == "categorical" and c["score"].categories == ("0.5", "1.5", "2.5")
    assert c["zip"].kind == "categorical" and "02139" in c["zip"].categories
    assert c["comment"].role == "ignore"        # 30 distinct texts > max_categories
    assert c["flag"].categories == ("False", "True")
    assert s.sensitive is None and "sex" in s.quasi_identifiers
    md = microdata_from_frame(df, s)
    assert md.codes.dtype == np.int32 and md.codes.shape == (n, 9)
    assert list(md.labels("person_id")) == list(df.person_id)
    assert (md.values("age") == df.age.to_numpy()).all()
    income = md.column("income")
    assert income.min() == 0 and income.max() == c["income"].domain_size - 1


def test_infer_small_frame_is_not_taken_for_ids():
    df = pd.DataFrame({"age": [31, 45, 27], "sex": ["F", "M", "F"], "town": ["a", "b", "c"]})
    s = infer_schema(df)
    assert all(c.role == "quasi_identifier" for c in s.columns)
    assert s.column("town").categories == ("a", "b", "c")


def test_infer_takes_blanks_and_missing_value_marks_as_gaps():
    """Issue 21: a blank number cannot be placed in its range (the record is left out); a
    blank category is the category 'missing'. Issue 31 item 10: a mark such as 'N/A' is a gap
    by the same rule (engine.data.gaps), and the gaps sentence says it was one."""
    df = pd.DataFrame({"age": [31.0, np.nan, 27.0, 40.0], "sex": ["F", "M", None, "F"]})
    s = infer_schema(df)
    assert (s.column("age").low, s.column("age").high) == (27, 40)
    assert s.column("sex").categories == ("F", "M", MISSING_CATEGORY)
    md = microdata_from_frame(df)
    assert md.n_records == 3 and md.labels("sex").tolist() == ["F", MISSING_CATEGORY, "F"]
    df = pd.DataFrame({"age": [31, 40, 27], "sex": ["F", "N/A", "F"]})
    assert infer_schema(df).column("sex").categories == ("F", MISSING_CATEGORY)
    md = microdata_from_frame(df)
    assert md.labels("sex").tolist() == ["F", MISSING_CATEGORY, "F"]
    assert "1 written 'N/A' in 'sex'" in md.missing_values["sentence"]


def test_infer_names_a_number_that_is_not_finite_instead_of_dropping_the_column():
    """Issue 18: one 1e309 among 61 distinct ages made the column an ignored id-like column
    (silently dropped); among a few ages, '1e309' became an age category."""
    many = pd.DataFrame({"age": [str(a) for a in range(60)] + ["1e309"], "sex": ["F"] * 61})
    few = pd.DataFrame({"age": ["31", "inf", "27"], "sex": ["F", "M", "F"]})
    for frame, row, value in ((many, 62, "1e309"), (few, 3, "inf")):
        with pytest.raises(InputError) as info:
            infer_schema(frame)
        assert f"row {row}, column 'age' holds '{value}', which is not a finite number" \
            in str(info.value)


def test_a_domain_near_the_largest_float_is_said_in_few_characters(tmp_path):
    """An age of 1e308 made a sentence of 1,578 characters (every digit of 10^308, twice)."""
    p = tmp_path / "people.csv"
    p.write_text("sex,age,race\nF,34,White\nM,1e308,Black\nF,29,Asian\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_microdata_csv(p)
    text = str(info.value)
    assert "a column 'age' with about 1.0e+308 possible values cannot be audited" in text
    assert "bins [29, 31, 33, 2e+307, 6e+307, 1e+308] from the quintiles" in text
    assert len(text) < 400


def test_categories_with_superscript_digits_sort_naturally():
    """"5²" has a digit that int() cannot read: the natural sort raised ValueError (found by
    the loader fuzz once blanks in free text were allowed)."""
    frame = pd.DataFrame({"area": ["10²", "5²", "10²", "5²"], "sex": ["F", "M", "M", "F"]})
    assert infer_schema(frame).column("area").categories == ("5²", "10²")


def test_ignored_free_text_may_have_blanks(tmp_path):
    """Issue 18 (defect 6): a column no audit reads (an id, free text) need not be free of
    blanks — inferred as ignored, and with a schema that ignores it."""
    p = tmp_path / "notes.csv"
    rows = [f"{'FM'[i % 2]},{20 + i},{'' if i % 5 == 0 else f'moved in {1990 + i}'},"
            f"{('White', 'Black')[i % 2 == 0 or i % 3 == 0]}" for i in range(60)]
    p.write_text("sex,age,comment,race\n" + "\n".join(rows) + "\n", encoding="utf-8")
    md = load_microdata_csv(p)
    comment = md.schema.column("comment")
    assert comment.role == "ignore" and comment.is_open
    assert md.labels("comment")[0] == "" and md.labels("comment")[1] == "moved in 1991"
    again = load_microdata_csv(p, md.schema)
    assert (again.codes == md.codes).all()
    # A blank in a column the audit uses is still a missing value.
    used = Schema(tuple(ColumnSchema("comment", "quasi_identifier", "categorical", ("x",))
                        if c.name == "comment" else c for c in md.schema.columns))
    with pytest.raises(InputError, match="empty cells in 1 column whose categories do not "
                                         "include 'missing' — 'comment' 12 \\(first in row 2\\)"):
        load_microdata_csv(p, used)


def test_a_blank_in_an_ignored_column_with_listed_values_says_why(tmp_path):
    p = tmp_path / "people.csv"
    p.write_text("sex,age,race\nF,34,White\n,51,Asian\nF,0,Black\n", encoding="utf-8")
    schema = Schema((ColumnSchema("sex", "ignore", "categorical", ("F", "M")),
                     *people_schema().columns[1:]))
    with pytest.raises(InputError) as info:
        load_microdata_csv(p, schema)
    assert "row 3, column 'sex' is empty; the column is ignored, but the schema lists the " \
           "values it may hold" in str(info.value)
    assert "remove the column's list of values" in str(info.value)


def test_a_declared_number_column_names_an_infinity(tmp_path):
    p = tmp_path / "people.csv"
    p.write_text("sex,age,race\nF,34,White\nM,Infinity,Asian\nF,0,Black\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_microdata_csv(p, people_schema())
    assert ("row 3, column 'age' holds 'Infinity', which is not a finite number (it stands for "
            "infinity); the column holds whole numbers 0–115") in str(info.value)


# --------------------------------------------------------------------------- loading

def test_load_with_schema_codes_values(tmp_path):
    p = tmp_path / "people.csv"
    p.write_text("sex, age ,race\nF,34,White\n\nM,51.0,Asian\nF,0,Black\n", encoding="utf-8")
    md = load_microdata_csv(p, people_schema())
    assert md.n_records == 3 and md.source == "people.csv"
    assert md.codes.tolist() == [[0, 34, 0], [1, 51, 2], [0, 0, 1]]
    assert list(md.labels("race")) == ["White", "Asian", "Black"]
    assert md.column("age").flags.writeable is False
    sub = md.subset([2, 0])
    assert sub.codes.tolist() == [[0, 0, 1], [0, 34, 0]]
    assert md.subset(np.array([True, False, True])).n_records == 2


def test_load_binned_columns_accept_numbers_and_labels(tmp_path):
    schema = Schema((ColumnSchema("age", kind="integer", bins=(0, 18, 65, 116)),
                     ColumnSchema("bmi", kind="continuous", bins=(10, 25, 60)),
                     ColumnSchema("race", "sensitive", categories=("a", "b"))))
    p = tmp_path / "b.csv"
    p.write_text("age,bmi,race\n17,10,a\n18,24.9,b\n116,60,a\n65–116,\"[25, 60]\",b\n",
                 encoding="utf-8")
    md = load_microdata_csv(p, schema)
    assert md.column("age").tolist() == [0, 1, 2, 2]
    assert md.column("bmi").tolist() == [0, 0, 1, 1]
    out = write_microdata_csv(md, tmp_path / "again.csv")
    assert (load_microdata_csv(out, schema).codes == md.codes).all()


def test_load_without_schema_infers(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("id,sex,age\n007,F,34\n008,M,51\n009,F,34\n", encoding="utf-8")
    md = load_microdata_csv(p)
    assert md.schema.column("id").role == "ignore"
    assert list(md.labels("id")) == ["007", "008", "009"]
    assert md.schema.column("age").low == 34
    assert unique_targets(md).tolist() == [1]


def test_max_rows(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("sex,age,race\nF,1,White\nM,2,Asian\nF,3,Black\n", encoding="utf-8")
    with pytest.raises(InputError, match="more than 2 data rows"):
        load_microdata_csv(p, people_schema(), max_rows=2)
    assert load_microdata_csv(p, people_schema(), max_rows=3).n_records == 3
    with pytest.raises(InputError, match="most rows to read must be a whole number") as info:
        load_microdata_csv(p, max_rows=0)
    assert info.value.setting == "max_rows" and "max_rows" not in str(info.value)


BAD_CASES = [
    # file, with schema, phrases that must appear in the one sentence
    ("empty.csv", True, ["empty.csv", "the file is empty", "header row"]),
    ("header_only.csv", True, ["header_only.csv", "no data rows", "add one row per record"]),
    ("missing_column.csv", True, ["column 'race' of the schema is missing",
                                  "columns found: 'sex', 'age'", "rename the column"]),
    ("unknown_column.csv", True, ["column 'zip' is not in the schema", "columns expected",
                                  "role 'ignore'"]),
    ("value_outside_domain.csv", True, ["row 3, column 'race'", "a 5-character text of letters is not one of its 3",
                                        "'White', 'Black', 'Asian'", "did you mean 'Asian'",
                                        "add it to the column's categories"]),
    ("age_out_of_range.csv", True, ["row 3, column 'age'", "'151' is outside",
                                    "whole numbers 0–115", "widen the domain"]),
    ("not_a_number.csv", True, ["row 3, column 'age'", "a 5-character text of letters is not a number",
                                "write a plain number"]),
    ("fractional_age.csv", True, ["row 2, column 'age'", "a 4-character number is not a whole number",
                                  "round the values"]),
    ("sensitive_one_value.csv", True, ["sensitive column 'race' holds only one value (“White”)",
                                       "nothing to infer; choose another sensitive column"]),
    ("huge_domain.csv", False, ["a column 'income' with 10,000,001 possible values cannot be "
                                "audited exactly", "bin it (e.g. bins", "role to 'ignore'"]),
    ("extra_fields.csv", True, ["extra_fields.csv", "row 3 has 4 fields but the header has 3",
                                "remove the extra commas"]),
    ("not_utf8.csv", True, ["not a UTF-8 text file", "save it as UTF-8"]),
    ("duplicate_columns.csv", False, ["names column 'age' twice", "distinct name"]),
    ("nowhere.csv", True, ["nowhere.csv", "file not found"]),
]


@pytest.mark.parametrize("name, with_schema, phrases", BAD_CASES, ids=[
    f"{c[0]}-{'schema' if c[1] else 'inferred'}" for c in BAD_CASES])
def test_bad_inputs_give_one_sentence(name, with_schema, phrases):
    schema = people_schema() if with_schema else None
    with pytest.raises(InputError) as exc:
        load_microdata_csv(BAD / name, schema)
    message = str(exc.value)
    for phrase in phrases:
        assert phrase in message, message
    assert name in exc.value.one_line()
    assert "\n" not in exc.value.one_line()


@pytest.mark.parametrize("name", ["empty_cell.csv", "missing_marker.csv"])
def test_a_blank_number_leaves_its_record_out_and_says_so(name):
    """Issue 21: 'age' empty (or 'NA') in one record: the record cannot be placed in the age
    range, so it is left out and the file's read notes (result.json's read_as) say so."""
    from engine.data.text_input import read_notes

    schema = people_schema()            # race as a quasi-identifier: one record may be left
    schema = Schema((*schema.columns[:2], replace(schema.columns[2], role="quasi_identifier")))
    md = load_microdata_csv(BAD / name, schema)
    assert md.n_records == (2 if "empty" in name else 1)
    said = ("" if "empty" in name else "; counted as empty: 1 written 'NA' in 'age' (marks of "
            "a missing value, see \"Gaps\" in the config reference)")
    assert read_notes(BAD / name) == [
        f"1 record with an empty number ('age' 1; first in row {4 if 'empty' in name else 3})"
        f" was left out, since a blank cannot be placed in the column's range{said}"]


def test_a_missing_value_mark_is_a_gap_with_or_without_a_schema():
    """Issue 31 item 10: without a schema an 'NA' age was refused where a blank one was left
    out; by the one rule (engine.data.gaps) both are gaps, and the result says which marks."""
    md = load_microdata_csv(BAD / "missing_marker.csv")
    assert md.n_records == 1
    assert md.missing_values["per_column"][0]["marks"] == {"NA": 1}
    assert md.missing_values["sentence"] == (
        "1 empty cell in 1 column the audit reads: the 1 record with an empty 'age' left out; "
        "counted as empty: 1 written 'NA' in 'age' (marks of a missing value, see \"Gaps\" in "
        "the config reference).")


def test_blank_categories_are_a_category_of_their_own_or_refused_all_at_once(tmp_path):
    p = tmp_path / "gaps.csv"
    p.write_text("sex,age,race\nF,34,White\n,51,Asian\nF,0,\nM,20,\n", encoding="utf-8")
    md = load_microdata_csv(p)
    assert md.labels("race").tolist() == ["White", "Asian", MISSING_CATEGORY, MISSING_CATEGORY]
    assert md.schema.column("sex").categories == ("F", "M", MISSING_CATEGORY)
    with pytest.raises(InputError) as exc:
        load_microdata_csv(p, people_schema())
    assert ("empty cells in 2 columns whose categories do not include 'missing' — 'sex' 1 "
            "(first in row 3), 'race' 2 (first in row 4)") in str(exc.value)


def test_every_bad_file_is_tested():
    tested = {c[0] for c in BAD_CASES} | {"no_unique_targets.csv", "empty_cell.csv",
                                          "missing_marker.csv"}
    formats = in_folder("microdata")             # tests/engine/test_input_corpus.py
    assert {p.name for p in BAD.glob("*.csv")} - formats <= tested


def test_no_unique_targets_names_the_fix():
    md = load_microdata_csv(BAD / "no_unique_targets.csv", people_schema())
    assert unique_targets(md).size == 0
    with pytest.raises(InputError) as exc:
        require_unique_targets(md)
    text = str(exc.value)
    for phrase in ("no_unique_targets.csv", "none of the 4 records is unique",
                   "('sex', 'age')", "add quasi-identifiers or use finer ones"):
        assert phrase in text
    coarse = microdata_from_frame(pd.DataFrame({"sex": ["F", "M", "M"], "race": ["a", "b", "a"]}),
                                  Schema((ColumnSchema("sex", categories=("F", "M")),
                                          ColumnSchema("race", "sensitive",
                                                       categories=("a", "b")))))
    assert require_unique_targets(coarse).tolist() == [0]
    with pytest.raises(InputError, match="only 1 of the 3 records .* needs 2"):
        require_unique_targets(coarse, min_targets=2)


# --------------------------------------------------------------------------- unique targets

def _brute_force_unique(md: Microdata) -> list[int]:
    qi = [md.schema.index(q) for q in md.schema.quasi_identifiers]
    rows = [tuple(r) for r in md.codes[:, qi].tolist()]
    counts = Counter(rows)
    return [i for i, r in enumerate(rows) if counts[r] == 1]


@pytest.mark.parametrize("seed", range(5))
def test_unique_targets_match_brute_force(seed):
    g = rng(seed, "test", "unique")
    n = int(g.integers(1, 300))
    schema = Schema((ColumnSchema("a", categories=tuple("xyz")),
                     ColumnSchema("b", kind="integer", low=0, high=int(g.integers(1, 40))),
                     ColumnSchema("c", "ignore", categories=("p", "q")),
                     ColumnSchema("s", "sensitive", categories=("0", "1"))))
    codes = np.column_stack([g.integers(0, c.domain_size, n) for c in schema.columns])
    md = Microdata(schema, codes)
    assert unique_targets(md).tolist() == _brute_force_unique(md)


def test_unique_targets_on_wide_domains_use_row_sorting():
    # Product of domain sizes above 2**62: the mixed-radix key would overflow.
    cols = tuple(ColumnSchema(f"q{k}", kind="integer", low=0, high=999_999) for k in range(4))
    schema = Schema(cols + (ColumnSchema("s", "sensitive", categories=("0", "1")),))
    g = rng(1, "test", "wide")
    codes = np.column_stack([g.integers(0, 3, 200) for _ in range(4)] + [g.integers(0, 2, 200)])
    md = Microdata(schema, codes)
    assert unique_targets(md).tolist() == _brute_force_unique(md)


def test_microdata_checks_codes():
    with pytest.raises(ValueError, match="0..1"):
        Microdata(people_schema().with_roles(sensitive="race"), np.array([[2, 0, 0]]))
    with pytest.raises(ValueError, match="shape"):
        Microdata(people_schema(), np.zeros((2, 2)))


def test_each_column_chooses_what_its_blanks_do(tmp_path):
    """Issue 21: per column, a blank is the category 'missing', leaves its record out, or
    refuses the file; what was done is kept per column for result.json and the report."""
    p = tmp_path / "gaps.csv"
    p.write_text("sex,age,race\nF,34,White\n,51,Black\nF,,Asian\nM,45,\nF,62,\nM,29,White\n",
                 encoding="utf-8")
    base = people_schema()
    schema = Schema((replace(base.column("sex"), missing="own_category"),
                     base.column("age"),
                     replace(base.column("race"), missing="drop_rows")))
    assert Schema.from_dict(schema.to_dict()) == schema
    md = load_microdata_csv(p, schema)
    # 'missing' became a category of sex (the given list lacked it); age's and race's blanks
    # left their records out.
    assert md.schema.column("sex").categories == ("F", "M", MISSING_CATEGORY)
    assert md.labels("sex").tolist() == ["F", "missing", "M"]
    gaps = md.missing_values
    assert (gaps["empty_cells"], gaps["columns"], gaps["records_read"],
            gaps["records_left_out"]) == (4, 3, 6, 3)
    assert [(e["column"], e["empty_cells"], e["action"]) for e in gaps["per_column"]] == [
        ("sex", 1, "own_category"), ("age", 1, "drop_rows"), ("race", 2, "drop_rows")]
    assert gaps["sentence"] == (
        "4 empty cells in 3 columns the audit reads: 'sex' 1 counted as a category of their "
        "own ('missing'), as in a published table; the 3 records with an empty cell in "
        "'age' (1) or 'race' (2) left out.")
    assert md.subset([0]).missing_values == gaps
    refusing = Schema((replace(base.column("sex"), missing="error"), base.column("age"),
                       replace(base.column("race"), missing="error")))
    with pytest.raises(InputError) as exc:
        load_microdata_csv(p, refusing)
    assert str(exc.value) == (
        f"{p}: empty cells in 2 columns set to refuse them — 'sex' 1 (first in row 3), 'race' "
        f"2 (first in row 5); fill them in, or choose for each column what to do with its "
        f"empty cells (count them as a category of their own, 'missing', or leave those "
        f"records out).")
    with pytest.raises(InputError, match=r"does not apply to a column of numbers \(integer\)"):
        replace(base.column("age"), missing="own_category")
    with pytest.raises(InputError, match="did you mean 'drop_rows'"):
        replace(base.column("sex"), missing="drop_row")
    full = load_microdata_csv(BAD / "semicolon.csv")
    assert full.missing_values is None


def test_the_count_table_audit_records_what_was_done_with_blanks(tmp_path):
    """result.json's input entry carries the per-column record (the report's gaps table)."""
    from engine.audits.aggregates import AggregatesConfig, load_data

    p = tmp_path / "people.csv"
    p.write_text("sex,age,race\nF,34,White\n,51,Black\nF,33,Asian\nM,45,White\nF,62,Black\n"
                 "M,29,White\n", encoding="utf-8")
    data = load_data(AggregatesConfig(data=str(p), sensitive="race"))
    gaps = data.inputs[0]["missing_values"]
    assert gaps["per_column"] == [{"column": "sex", "role": "quasi_identifier",
                                   "kind": "categorical", "empty_cells": 1,
                                   "action": "own_category"}]
    assert data.protected.missing_values == gaps
