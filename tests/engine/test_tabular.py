"""Model intake (issue 8): the tabular schema, inference, one-hot and scaling fitted on the
training part, the seeded member split, the memory guard, the one-sentence errors for every file
in tests/data/bad_inputs/tabular/, and the purchase / mixed-table sample generators."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.data.errors import InputError
from engine.data.purchase import (
    HEALTH,
    MIXED_COLUMNS,
    generate_mixed_table,
    generate_purchase,
    main,
    write_purchase_csv,
)
from engine.data.tabular import (
    MAX_CELLS,
    TabularColumn,
    TabularData,
    TabularSchema,
    infer_tabular_schema,
    load_tabular_csv,
    split_members,
    tabular_from_frame,
)
from engine.runtime import rng
from tests.engine.test_input_corpus import in_folder

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "data" / "bad_inputs" / "tabular"
SAMPLES = ROOT / "resources" / "model"


def people_frame(n: int = 40, seed: int = 0) -> pd.DataFrame:
    g = rng(seed, "test", "tabular")
    return pd.DataFrame({
        "person_id": [f"p{i:03d}" for i in range(n)],
        "age": g.integers(18, 90, n),
        "smoker": g.integers(0, 2, n),
        "sex": g.choice(["F", "M"], n),
        "town": g.choice(["town 2", "town 10", "town 1"], n),
        "comment": [f"free text {i}" for i in range(n)],
        "income": np.round(g.normal(40_000, 8_000, n), 2),
        "Class": np.tile(["low", "high"], n // 2),
        "member": np.tile([1, 0, 0, 1], n // 4),
    })


# --------------------------------------------------------------------------- schema

def test_infer_roles_kinds_and_label_by_name():
    s = infer_tabular_schema(people_frame(), max_categories=20)
    c = {col.name: col for col in s.columns}
    assert s.label == "Class" and c["Class"].categories == ("high", "low")
    assert s.member_column == "member"
    assert c["person_id"].role == "ignore"
    assert c["comment"].role == "ignore"            # 40 distinct texts: an id-like column
    assert (c["age"].kind, c["age"].scale) == ("numeric", True)
    assert (c["smoker"].kind, c["smoker"].scale) == ("numeric", False)   # 0/1 kept as is
    assert c["town"].categories == ("town 1", "town 2", "town 10")       # natural order
    assert c["age"].mean is None                    # nothing fitted before the load
    assert s.features == ("age", "smoker", "sex", "town", "income")
    assert s.encoded_names() == ("age", "smoker", "sex=F", "sex=M", "town=town 1",
                                 "town=town 2", "town=town 10", "income")
    assert s.n_encoded == 8


def test_label_is_required_unless_named():
    df = people_frame().rename(columns={"Class": "risk"})
    with pytest.raises(InputError) as exc:
        infer_tabular_schema(df)
    assert "no column is named label, class, target or y" in str(exc.value)
    assert "'risk'" in str(exc.value)
    assert infer_tabular_schema(df, label="risk").label == "risk"
    with pytest.raises(InputError, match="label column 'rsik' is not in the file .*did you mean "
                                         "'risk'"):
        infer_tabular_schema(df, label="rsik")
    with pytest.raises(InputError, match="both the label and the members column"):
        infer_tabular_schema(df, label="risk", member_column="risk")


@pytest.mark.parametrize("kwargs, phrase", [
    (dict(name="x", role="target"), "role “target” is not one of"),
    (dict(name="x", role="lable"), "did you mean 'label'"),
    (dict(name="x", kind="text"), "kind “text”"),
    (dict(name="x", categories=("a",)), "a numeric feature takes no categories"),
    (dict(name="x", kind="categorical", categories=("a", "a")), "listed twice"),
    (dict(name="x", mean=1.0), "give both 'mean' and 'sd'"),
    (dict(name="x", mean=1.0, sd=0.0), "'sd' must be above 0"),
    (dict(name="x", mean=float("nan"), sd=1.0), "'mean' must be a finite number"),
    (dict(name="x", scale="yes"), "'scale' must be true or false"),
    (dict(name=" "), "non-empty"),
])
def test_bad_column_is_a_sentence(kwargs, phrase):
    with pytest.raises(InputError) as exc:
        TabularColumn(**kwargs)
    assert phrase in str(exc.value)


def test_schema_needs_one_label_and_a_feature():
    f = TabularColumn("a")
    with pytest.raises(InputError, match="No column is the label"):
        TabularSchema((f,))
    with pytest.raises(InputError, match="all labels"):
        TabularSchema((f, TabularColumn("y", "label"), TabularColumn("z", "label")))
    with pytest.raises(InputError, match="No column is a feature"):
        TabularSchema((TabularColumn("y", "label"), TabularColumn("i", "ignore")))
    with pytest.raises(InputError, match="all members columns"):
        TabularSchema((f, TabularColumn("y", "label"), TabularColumn("m", "member"),
                       TabularColumn("n", "member")))
    with pytest.raises(InputError, match="appears twice"):
        TabularSchema((f, f, TabularColumn("y", "label")))


def test_schema_round_trip_is_toml_safe(tmp_path):
    data = load_tabular_csv(_write(tmp_path, people_frame()))
    d = data.schema.to_dict()
    assert d["schema_version"] == 1
    assert not any(v is None for col in d["columns"] for v in col.values())
    assert TabularSchema.from_dict(d, "p.json") == data.schema
    assert TabularSchema.from_dict(json.loads(json.dumps(d))) == data.schema
    age = next(c for c in d["columns"] if c["name"] == "age")
    assert set(age) == {"name", "role", "kind", "scale", "mean", "sd"}


@pytest.mark.parametrize("mutate, phrases", [
    (lambda d: d.update(extra=1), ["p.json", "entry “extra” this app does not read"]),
    (lambda d: d.update(schema_version=2), ["schema's version 2 is not supported"]),
    (lambda d: d.update(columns=[]), ["'columns' must be a non-empty list"]),
    (lambda d: d["columns"][0].update(rol="feature"), ["column 1 ('age')", "unknown key 'rol'",
                                                        "did you mean 'role'"]),
    (lambda d: d["columns"][0].pop("name"), ["column 1", "has no name"]),
    (lambda d: d["columns"][0].update(kind="number"), ["Column 'age'", "kind “number”"]),
    (lambda d: d["columns"][0].update(sd=-1.0), ["'sd' must be above 0"]),
    (lambda d: d["columns"].__setitem__(2, {"name": "y", "role": "feature"}),
     ["No column is the label"]),
    (lambda d: d["columns"].__setitem__(0, "age"), ["column 1 of the schema must be a table"]),
])
def test_schema_from_dict_errors(mutate, phrases):
    d = TabularSchema((TabularColumn("age", mean=40.0, sd=9.0),
                       TabularColumn("sex", kind="categorical", categories=("F", "M")),
                       TabularColumn("y", "label", "categorical", ("a", "b")))).to_dict()
    mutate(d)
    with pytest.raises(InputError) as exc:
        TabularSchema.from_dict(d, "p.json")
    for phrase in phrases:
        assert phrase in str(exc.value)
    with pytest.raises(InputError, match="must be a table"):
        TabularSchema.from_dict([1], "p.json")


def test_with_roles_and_with_column():
    s = infer_tabular_schema(people_frame())
    t = s.with_roles(label="sex")
    assert t.label == "sex" and t.column("Class").role == "feature"
    assert t.column("Class").categories == ("high", "low")
    assert t.with_roles(member="smoker").member_column == "smoker"
    assert t.with_roles(member="smoker").column("member").role == "ignore"
    u = s.with_column("town", role="ignore")
    assert "town=town 1" not in u.encoded_names()
    v = s.with_column("age", kind="categorical")
    assert v.column("age").categories == () and v.column("age").kind == "categorical"
    with pytest.raises(InputError, match="no column 'agee'.*did you mean 'age'"):
        s.with_column("agee", role="ignore")


# --------------------------------------------------------------------------- loading

def _write(tmp_path: Path, df: pd.DataFrame, name: str = "people.csv") -> Path:
    p = tmp_path / name
    df.to_csv(p, index=False)
    return p


def test_load_encodes_and_fits_scaling_on_members_only(tmp_path):
    df = people_frame()
    data = load_tabular_csv(_write(tmp_path, df), id_column="person_id")
    assert isinstance(data, TabularData)
    assert data.X.dtype == np.float32 and data.X.shape == (40, 8)
    assert data.y.dtype == np.int64 and data.class_labels == ("high", "low")
    assert (np.asarray(data.class_labels)[data.y] == df["Class"]).all()
    assert data.rows.tolist() == list(range(2, 42))
    assert (data.member == (df["member"] == 1)).all()
    assert list(data.ids) == list(df["person_id"])
    assert data.source == "people.csv"
    # One-hot: exactly one 1 per categorical column and row.
    names = list(data.feature_names)
    sex = data.X[:, [names.index("sex=F"), names.index("sex=M")]]
    assert (sex.sum(axis=1) == 1).all() and (sex[:, 0] == (df["sex"] == "F")).all()
    assert (data.X[:, names.index("smoker")] == df["smoker"]).all()
    # Scaling: mean and sd of the training part (members) only, saved in the schema.
    m = df["member"] == 1
    age = data.schema.column("age")
    assert age.mean == pytest.approx(df.loc[m, "age"].mean())
    assert age.sd == pytest.approx(df.loc[m, "age"].std(ddof=0))
    assert age.mean != pytest.approx(df["age"].mean())
    col = data.X[:, names.index("age")]
    assert col[data.member].mean() == pytest.approx(0, abs=1e-6)
    assert col[data.member].std() == pytest.approx(1, abs=1e-5)


def test_saved_schema_reproduces_the_encoding(tmp_path):
    df = people_frame()
    first = load_tabular_csv(_write(tmp_path, df))
    other = df.iloc[5:25].reset_index(drop=True)       # other records, same columns
    again = load_tabular_csv(_write(tmp_path, other, "other.csv"), first.schema)
    assert again.schema == first.schema                # the saved scaling is used, not refitted
    assert np.allclose(again.X, first.X[5:25])
    bad = other.copy()
    bad.loc[3, "town"] = "town 3"
    with pytest.raises(InputError, match="row 5, column 'town': a 6-character text of letters and digits is not one of its 3 "
                                         "categories"):
        load_tabular_csv(_write(tmp_path, bad, "bad.csv"), first.schema)
    bad = other.copy()
    bad.loc[1, "Class"] = "hihg"
    with pytest.raises(InputError, match="a 4-character text of letters is not one of its 2 classes .*did you mean "
                                         "'high'"):
        load_tabular_csv(_write(tmp_path, bad, "bad.csv"), first.schema)
    with pytest.raises(InputError, match="column 'town' of the schema is missing"):
        load_tabular_csv(_write(tmp_path, other.drop(columns="town"), "bad.csv"), first.schema)
    with pytest.raises(InputError, match="column 'zip' is not in the schema.*role 'ignore'"):
        load_tabular_csv(_write(tmp_path, other.assign(zip="x"), "bad.csv"), first.schema)
    moved = load_tabular_csv(_write(tmp_path, other, "other.csv"), first.schema, label="sex")
    assert moved.class_labels == ("F", "M") and "Class=high" in moved.feature_names


def test_rows_are_counted_as_in_a_spreadsheet(tmp_path):
    p = tmp_path / "gaps.csv"
    p.write_text("age, sex ,label\n34,F,a\n\n51,M,b\n27,F,a\n45,M,b\n", encoding="utf-8")
    data = load_tabular_csv(p)
    assert data.rows.tolist() == [2, 4, 5, 6]
    assert data.feature_names == ("age", "sex=F", "sex=M")
    p.write_text("age,sex,label\n34,F,a\n\n51,M,b\n27,F,a\n45,,b\n", encoding="utf-8")
    # Issue 21: an empty categorical cell is a category of its own by default; refused (with
    # its row as a spreadsheet numbers it) when the column's choice is to refuse gaps.
    filled = load_tabular_csv(p)
    assert filled.feature_names == ("age", "sex=F", "sex=M", "sex=missing")
    assert filled.X[:, 3].tolist() == [0.0, 0.0, 0.0, 1.0] and filled.rows[-1] == 6
    schema = infer_tabular_schema(p).with_column("sex", missing="error")
    with pytest.raises(InputError, match="'sex' 1 \\(first in row 6\\)"):
        load_tabular_csv(p, schema)


def test_frames_and_label_override():
    df = people_frame().rename(columns={"Class": "risk"})
    data = tabular_from_frame(df, label="risk", source="survey")
    assert data.n_records == 40 and data.n_classes == 2 and data.member.sum() == 20
    with pytest.raises(InputError, match="^survey: no column is named"):
        tabular_from_frame(df, source="survey")
    data = tabular_from_frame(df.drop(columns="member"), label="risk")
    assert data.member is None
    sub = data.subset([3, 1])
    assert sub.rows.tolist() == [5, 3] and np.array_equal(sub.X, data.X[[3, 1]])


def test_memory_guard_names_n_d_and_the_fix(tmp_path):
    with pytest.raises(InputError) as exc:
        load_tabular_csv(BAD / "too_many_features.csv", max_cells=1000)
    text = str(exc.value)
    for phrase in ("60 records × 31 encoded features", "above the limit of 4.0 kB",
                   "max_cells = 1,000", "drop columns", "'postcode' with 30 categories",
                   "load fewer records"):
        assert phrase in text, text
    assert load_tabular_csv(BAD / "too_many_features.csv").n_features == 31
    # With a schema the guard refuses before the file is parsed.
    schema = load_tabular_csv(BAD / "too_many_features.csv").schema
    with pytest.raises(InputError, match="about 60 records × at least 31 features"):
        load_tabular_csv(BAD / "too_many_features.csv", schema, max_cells=100)
    with pytest.raises(InputError, match="most cells to read must be a whole number"):
        load_tabular_csv(BAD / "too_many_features.csv", max_cells=0)
    assert MAX_CELLS * 4 == 2_000_000_000


BAD_CASES = [
    # file, keyword arguments, phrases that must appear in the one sentence
    ("empty.csv", {}, ["the file is empty", "header row"]),
    ("header_only.csv", {}, ["no data rows", "add one row per record"]),
    ("label_missing.csv", {"label": "class"}, ["label column 'class' is not in the file",
                                               "did you mean 'clas'", "columns found"]),
    ("label_missing.csv", {}, ["no column is named label, class, target or y",
                               "'age', 'sex', 'clas'"]),
    ("one_class.csv", {}, ["label column 'label' holds only one class (“yes”) in all 4 records",
                           "at least two classes"]),
    ("singleton_class.csv", {}, ["class 'c' of the label column 'label' has only 1 record "
                                 "(row 5)", "at least 2 records", "merge it"]),
    ("continuous_label.csv", {}, ["'target' holds 30 different values in 30 records",
                                  "not classes"]),
    ("members_not_binary.csv", {}, ["row 4, column 'member': 'yes' is not 0 or 1",
                                    "write 1 for a training record"]),
    ("members_all_one.csv", {}, ["every record has member = 1", "add records with member = 0",
                                 "split the records at random"]),
    ("not_a_number.csv", {}, ["row 5, column 'age': a 5-character text of letters is not a number",
                              "numeric feature", "make the column categorical"]),
    ("too_many_features.csv", {"max_cells": 1000}, ["would take", "above the limit"]),
    ("extra_fields.csv", {}, ["row 3 has 4 fields but the header has 3"]),
    ("not_utf8.csv", {}, ["not a UTF-8 text file"]),
    ("nowhere.csv", {}, ["file not found"]),
]


@pytest.mark.parametrize("name, kwargs, phrases", BAD_CASES,
                         ids=[f"{c[0]}-{'-'.join(c[1]) or 'inferred'}" for c in BAD_CASES])
def test_bad_inputs_give_one_sentence(name, kwargs, phrases):
    with pytest.raises(InputError) as exc:
        load_tabular_csv(BAD / name, **kwargs)
    message = str(exc.value)
    for phrase in phrases:
        assert phrase in message, message
    assert name in exc.value.one_line() and "\n" not in exc.value.one_line()


def test_non_number_in_a_declared_numeric_feature():
    schema = TabularSchema((TabularColumn("age"), TabularColumn("sex", kind="categorical"),
                            TabularColumn("label", "label", "categorical")))
    with pytest.raises(InputError, match="row 5, column 'age': a 5-character text of letters is not a number"):
        load_tabular_csv(BAD / "not_a_number.csv", schema)


def test_numbers_near_the_largest_float_are_scaled_not_refused(tmp_path):
    """Issue 18: 1e308 in a feature overflowed the variance's squares, and the load said
    "'sd' must be a finite number, got inf" (no file, no row)."""
    p = tmp_path / "large.csv"
    p.write_text("income,label\n1e308,yes\n-5e307,no\n2,yes\n3,no\n", encoding="utf-8")
    data = load_tabular_csv(p)
    income = data.schema.column("income")
    values = np.array([1e308, -5e307, 2.0, 3.0])
    assert income.mean == pytest.approx(values.mean()) and np.isfinite(income.sd)
    assert income.sd == pytest.approx(np.std(values / 1e308) * 1e308)
    assert np.isfinite(data.X).all()
    assert data.X[:, 0].mean() == pytest.approx(0, abs=1e-6)


def test_a_number_beyond_the_models_32_bit_range_is_named(tmp_path):
    """An unscaled feature (as a schema may say) with 1e39 would be an infinity in X."""
    p = tmp_path / "flag.csv"
    p.write_text("flag,label\n1,yes\n0,no\n1e39,yes\n0,no\n", encoding="utf-8")
    schema = TabularSchema((TabularColumn("flag", scale=False),
                            TabularColumn("label", "label", "categorical")))
    with pytest.raises(InputError) as info:
        load_tabular_csv(p, schema)
    assert ("flag.csv: row 4, column 'flag': a 4-character number is too large for the model, "
            "which computes with numbers up to about 3.4e38") in str(info.value)


# Files whose empty cells load by default (issue 21) and are refused with "error".
GAP_CASES = [
    ("missing_value.csv", "income", "row 3", "filled with the column's median"),
    ("empty_cell.csv", "sex", "row 4", "given a category of their own"),
]


@pytest.mark.parametrize("name, column, row, done", GAP_CASES, ids=[c[0] for c in GAP_CASES])
def test_gaps_load_by_default_and_are_refused_when_asked(name, column, row, done):
    data = load_tabular_csv(BAD / name)
    assert data.n_records == 4 and done in data.missing_values["sentence"]
    schema = infer_tabular_schema(BAD / name).with_column(column, missing="error")
    with pytest.raises(InputError) as exc:
        load_tabular_csv(BAD / name, schema)
    assert f"1 empty cell in 1 column set to refuse them — '{column}' 1 (first in {row})" \
        in exc.value.one_line() and name in exc.value.one_line()


def test_every_bad_file_is_tested():
    formats = in_folder("tabular")               # tests/engine/test_input_corpus.py
    assert {p.name for p in BAD.glob("*.csv")} - formats <= {c[0] for c in BAD_CASES} | \
        {c[0] for c in GAP_CASES}


# --------------------------------------------------------------------------- split

def test_split_members_is_seeded_stratified_and_refits_scaling(tmp_path):
    df = people_frame().drop(columns="member")
    data = load_tabular_csv(_write(tmp_path, df))
    assert data.member is None
    a = split_members(data, 0.5, seed=1)
    b = split_members(data, 0.5, seed=1)
    c = split_members(data, 0.5, seed=2)
    assert np.array_equal(a.member, b.member) and not np.array_equal(a.member, c.member)
    assert a.member.sum() == 20
    for k in range(data.n_classes):
        assert a.member[data.y == k].sum() == 10       # stratified: half of every class
    m = a.member
    age = a.schema.column("age")
    assert age.mean == pytest.approx(df.loc[m, "age"].mean(), rel=1e-6)
    assert age.sd == pytest.approx(df.loc[m, "age"].std(ddof=0), rel=1e-5)
    col = a.X[:, list(a.feature_names).index("age")]
    assert col[m].mean() == pytest.approx(0, abs=1e-5)
    assert np.allclose(col, (df["age"] - age.mean) / age.sd, atol=1e-5)
    assert data.schema.column("age").mean == pytest.approx(df["age"].mean())  # input unchanged
    small = split_members(data, 0.1, seed=0)
    assert all(0 < small.member[data.y == k].sum() < (data.y == k).sum()
               for k in range(data.n_classes))


def test_split_members_refuses_bad_fraction_and_existing_members(tmp_path):
    data = load_tabular_csv(_write(tmp_path, people_frame()))
    with pytest.raises(InputError, match="already marked as members or not in column 'member'"):
        split_members(data, 0.5, 0)
    for bad in (0, 1, 1.5, "half", True):
        with pytest.raises(InputError, match="share of records the model is trained on must be a number between 0 and 1"):
            split_members(data.with_member(None), bad, 0)


# --------------------------------------------------------------------------- samples

def test_purchase_generator_shapes_determinism_and_classes():
    d = generate_purchase(seed=3, n_records=1000, n_features=60, n_classes=10)
    assert d.X.shape == (1000, 60) and d.X.dtype == np.float32
    assert set(np.unique(d.X)) <= {0.0, 1.0}
    assert np.bincount(d.y).tolist() == [100] * 10
    assert d.class_labels == tuple(str(k) for k in range(10))
    assert d.feature_names[0] == "item_000" and d.member is None
    assert 0.1 < d.X.mean() < 0.3
    assert np.array_equal(d.X, generate_purchase(3, 1000, 60, 10).X)
    assert not np.array_equal(d.X, generate_purchase(4, 1000, 60, 10).X)
    # Classes are purchase styles: held-out records are closest to their own class's mean
    # profile; without contrast between the styles the classes cannot be told apart.
    for contrast, low, high in ((0.6, 0.8, 1.0), (0.0, 0.0, 0.25)):
        e = generate_purchase(3, 1000, 300, 10, contrast=contrast)
        half = np.arange(1000) < 500
        centroids = np.stack([e.X[half & (e.y == k)].mean(axis=0) for k in range(10)])
        dist = ((e.X[~half, None, :] - centroids[None]) ** 2).sum(axis=2)
        assert low <= (dist.argmin(axis=1) == e.y[~half]).mean() <= high
    with pytest.raises(InputError, match="'n_records' must be a whole number of at least 20"):
        generate_purchase(0, 19, 60, 10)
    with pytest.raises(InputError, match="'n_classes' must be a whole number of at least 2"):
        generate_purchase(0, 100, 60, 1)


def test_purchase_generator_kmeans_labels_like_purchase100():
    # Purchase100's construction (Shokri et al. 2017; paper 004 §4.1): purchases first, labels
    # by k-means, so a record's label is its nearest cluster centre — a function of its
    # purchases, unlike the default construction (labels first, classes overlapping).
    d = generate_purchase(3, 1500, 60, 10, labels="kmeans")
    assert d.X.shape == (1500, 60) and set(np.unique(d.X)) <= {0.0, 1.0}
    assert d.class_labels == tuple(str(k) for k in range(10)) and d.member is None
    sizes = np.bincount(d.y, minlength=10)
    assert sizes.min() > 0 and list(sizes) == sorted(sizes, reverse=True)   # 0 = largest
    assert len(set(sizes.tolist())) > 1                       # not balanced, as Purchase100
    centres = np.stack([d.X[d.y == k].mean(axis=0) for k in range(10)])
    nearest = ((d.X[:, None, :] - centres[None]) ** 2).sum(axis=2).argmin(axis=1)
    assert (nearest == d.y).mean() > 0.99
    p = generate_purchase(3, 1500, 60, 10)                    # labels drawn first
    centres = np.stack([p.X[p.y == k].mean(axis=0) for k in range(10)])
    nearest = ((p.X[:, None, :] - centres[None]) ** 2).sum(axis=2).argmin(axis=1)
    assert (nearest == p.y).mean() < 0.95
    again = generate_purchase(3, 1500, 60, 10, labels="kmeans")
    assert np.array_equal(d.X, again.X) and np.array_equal(d.y, again.y)
    assert not np.array_equal(d.X, generate_purchase(4, 1500, 60, 10, labels="kmeans").X)
    # The default construction is untouched by the option (the bundled samples depend on it).
    assert np.array_equal(p.X, generate_purchase(3, 1500, 60, 10, labels="prototype").X)
    assert generate_purchase(3, 1500, 60, 10, labels="kmeans", n_styles=10).y.max() == 9
    with pytest.raises(InputError, match="'labels' must be 'prototype' or 'kmeans'"):
        generate_purchase(0, 100, 60, 10, labels="random")
    with pytest.raises(InputError, match="k-means construction only"):
        generate_purchase(0, 100, 60, 10, n_styles=20)
    with pytest.raises(InputError, match="'n_styles' must be a whole number of at least 1"):
        generate_purchase(0, 100, 60, 10, labels="kmeans", n_styles=0)


def test_purchase_csv_round_trip(tmp_path):
    d = generate_purchase(seed=0, n_records=200, n_features=30, n_classes=10)
    d = split_members(d, 0.5, 0)
    p = write_purchase_csv(d, tmp_path / "p.csv")
    back = load_tabular_csv(p)
    assert np.array_equal(back.X, d.X) and np.array_equal(back.y, d.y)
    assert np.array_equal(back.member, d.member)
    assert back.class_labels == d.class_labels
    assert all(not c.scale for c in back.schema.columns if c.role == "feature")


def test_mixed_table_is_plausible_and_seeded():
    df = generate_mixed_table(0, 3000)
    assert tuple(df.columns) == MIXED_COLUMNS and len(df) == 3000
    assert df.equals(generate_mixed_table(0, 3000))
    assert not df.equals(generate_mixed_table(1, 3000))
    assert df["age"].between(18, 90).all() and df["customer_id"].is_unique
    assert 0.12 < df["defaulted"].mean() < 0.3
    ill = df["health"] == HEALTH[1]
    assert 0.05 < ill.mean() < 0.3
    assert df.loc[ill, "age"].mean() > df.loc[~ill, "age"].mean()
    assert df.loc[ill, "defaulted"].mean() > df.loc[~ill, "defaulted"].mean()
    assert df.loc[df.employment == "student", "age"].median() < 26
    data = tabular_from_frame(df, label="defaulted")
    assert data.schema.column("customer_id").role == "ignore"
    assert data.n_features == 24 and data.class_labels == ("0", "1")


def test_bundled_samples_match_their_generators():
    purchase = SAMPLES / "purchase_sample.csv"
    assert purchase.stat().st_size < 3_000_000
    data = load_tabular_csv(purchase)
    gen = generate_purchase(0, 2000)
    assert data.X.shape == (2000, 600) and data.n_classes == 100
    assert np.array_equal(data.X, gen.X) and np.array_equal(data.y, gen.y)
    mixed = pd.read_csv(SAMPLES / "mixed_sample.csv")
    assert mixed.equals(generate_mixed_table(0, 2000))
    assert "python -m engine.data.purchase --out resources/model --seed 0" in \
        (SAMPLES / "README.md").read_text(encoding="utf-8")


def test_cli_writes_both_samples(tmp_path, capsys):
    assert main(["--out", str(tmp_path), "--records", "60", "--features", "12", "--classes",
                 "3", "--mixed-records", "50"]) == 0
    assert load_tabular_csv(tmp_path / "purchase_sample.csv").X.shape == (60, 12)
    assert len(pd.read_csv(tmp_path / "mixed_sample.csv")) == 50
    assert "purchase_sample.csv" in capsys.readouterr().out
    assert main(["--out", str(tmp_path), "--records", "5"]) == 2
