"""One rule for gaps in every loader (issue 31 item 10, engine/data/gaps.py), and the sentences
of issue 31 item 12 that were still wrong.

The rule, per role of a column: a blank is a gap everywhere; 'NA', 'N/A', '#N/A', 'NaN',
'null', '?' are gaps in every column unless a schema lists them as a category or class;
'None', '-', '.', 'missing' are gaps in a number column and values in a text column. Each loader
(traces, releases, count-table microdata, training tables, predictions) is tested per role, and
every mark read as a gap is said in the result (``missing_values`` and the warnings)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from engine.aggregates.queries import Domain, load_published_rows
from engine.data.errors import InputError
from engine.data.gaps import gap_mask, marks_for
from engine.data.microdata import (
    MISSING_CATEGORY,
    ColumnSchema,
    Schema,
    load_microdata_csv,
)
from engine.data.predictions import load_predictions_csv, match_predictions
from engine.data.tabular import TabularColumn, TabularSchema, load_tabular_csv
from engine.data.text_input import read_notes
from engine.data.traces import load_release_csv, load_traces_csv
from engine.results.config_fields import as_choice_list, common_fields
from engine.results.result import input_warnings, result_problem

SAID = "(marks of a missing value, see \"Gaps\" in the config reference)"


def write(tmp_path, name: str, lines) -> str:
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(p)


# --------------------------------------------------------------------------- the rule itself

def test_the_rule_per_role():
    import pandas as pd

    s = pd.Series(["NA", "n/a", "NaN", "null", "?", "None", "-", ".", "missing", " ", "", "x"])
    number = gap_mask(s, "number").tolist()
    text = gap_mask(s, "text").tolist()
    assert number == [True] * 11 + [False]
    assert text == [True] * 5 + [False] * 4 + [True, True, False]
    # A schema that lists a mark as a category makes it a value.
    assert "na" not in marks_for("text", ["NA", "F"])


# --------------------------------------------------------------------------- traces (id role)

def test_traces_a_user_id_na_is_no_one_and_is_said(tmp_path):
    """A user id 'NA' became one person with 300 observations, silently."""
    rows = ["user_id,site,epoch"]
    rows += [f"NA,s{i % 7},{i // 7}" for i in range(300)]
    rows += [f"u{i % 50},s{i % 7},{i // 50}" for i in range(700)]
    rows += ["None,s1,0", "None,s2,1"]                 # 'None' is kept as written in an id
    p = write(tmp_path, "traces.csv", rows)
    t = load_traces_csv(p)
    assert "NA" not in t.user_ids and "None" in t.user_ids
    assert t.n_users == 51
    entry = t.missing_values
    assert entry["records_left_out"] == 300
    assert entry["per_column"] == [{"column": "user_id", "empty_cells": 300,
                                    "action": "drop_rows", "marks": {"NA": 300}}]
    assert entry["sentence"].endswith(f"; counted as empty: 300 written 'NA' in 'user_id' {SAID}.")
    assert any("300 written 'NA' in 'user_id'" in n for n in read_notes(p))


def test_traces_a_site_mark_is_a_gap_and_an_epoch_dot_is_a_gap(tmp_path):
    rows = ["user_id,site,epoch", "a,s1,0", "a,N/A,1", "b,s2,.", "b,s1,2", "c,s2,1"]
    t = load_traces_csv(write(tmp_path, "traces.csv", rows))
    assert t.site_labels == ("s1", "s2") and t.matrix.nnz == 3
    per = {e["column"]: e for e in t.missing_values["per_column"]}
    assert per["site"]["marks"] == {"N/A": 1} and per["epoch"]["marks"] == {".": 1}


def test_release_a_site_na_is_not_a_place(tmp_path):
    """A release's site 'NA' was a site of its own; a count there cannot be placed."""
    p = write(tmp_path, "release.csv", ["site,epoch,count", "s1,0,3", "NA,0,2", "s2,0,1"])
    with pytest.raises(InputError) as exc:
        load_release_csv(p)
    assert ("row 3, column 'site' holds 'NA', a mark for a missing value, so the count of that "
            "row cannot be placed") in str(exc.value)


# --------------------------------------------------------------------------- count tables

def test_microdata_marks_are_gaps_with_or_without_a_schema(tmp_path):
    """A count table dropped a blank age but refused 'NA'; '?' in a category refused too."""
    rows = ["age,sex,zip"]
    rows += [f"{'NA' if i < 30 else 20 + i % 40},{'?' if i == 40 else 'FMN'[i % 3]},{i % 4}"
             for i in range(200)]
    rows += ["33,None,1", "34,None,2"]              # 'None' is a category as written
    p = write(tmp_path, "people.csv", rows)
    md = load_microdata_csv(p)
    assert md.n_records == 172
    assert md.schema.column("sex").categories == ("F", "M", "N", "None", MISSING_CATEGORY)
    per = {e["column"]: e for e in md.missing_values["per_column"]}
    assert per["age"]["marks"] == {"NA": 30} and per["sex"]["marks"] == {"?": 1}
    assert md.missing_values["sentence"] == (
        "31 empty cells in 2 columns the audit reads: 'sex' 1 counted as a category of their "
        "own ('missing'), as in a published table; the 30 records with an empty 'age' left "
        "out; counted as empty: 30 written 'NA' in 'age', 1 written '?' in 'sex' " + SAID + ".")


def test_microdata_schema_decides_whether_na_is_a_category(tmp_path):
    p = write(tmp_path, "people.csv", ["age,sex", "30,F", "31,NA", "40,M", ".,M", "50,F"])
    base = Schema((ColumnSchema("age", "quasi_identifier", "integer", low=0, high=120),
                   ColumnSchema("sex", "quasi_identifier", "categorical", ("F", "M"))))
    with pytest.raises(InputError) as exc:
        load_microdata_csv(p, base)
    message = str(exc.value)
    assert "'sex' 1 (first in row 3)" in message
    assert message.endswith(f"; counted as empty: 1 written 'NA' in 'sex' {SAID}.")
    listed = Schema((base.columns[0], replace(base.columns[1], categories=("F", "M", "NA"))))
    md = load_microdata_csv(p, listed)
    assert md.labels("sex").tolist() == ["F", "NA", "M", "F"]      # the '.' age left out
    assert md.missing_values["per_column"][0]["marks"] == {".": 1}


# --------------------------------------------------------------------------- training tables

def _training(tmp_path, *, label_na=200, colour_na=12, id_na=False):
    rows = ["id,age,income,colour,label"]
    for i in range(1000):
        colour = "NA" if i < colour_na else ("None" if i % 50 == 1 else ["red", "blue"][i % 2])
        label = "NA" if i % 5 == 0 and i < 5 * label_na else ["yes", "no"][(i // 5) % 2]
        income = "." if i % 100 == 7 else str(1000 + 37 * i % 500)
        ident = "NA" if id_na and i == 3 else f"r{i}"
        rows.append(f"{ident},{20 + i % 40},{income},{colour},{label}")
    return write(tmp_path, "train.csv", rows)


def test_training_label_na_is_never_a_class(tmp_path):
    """'NA' in the label was a third class of 200 records, silently."""
    data = load_tabular_csv(_training(tmp_path))
    assert data.class_labels == ("no", "yes") and len(data.y) == 800
    per = {e["column"]: e for e in data.missing_values["per_column"]}
    assert per["label"]["marks"] == {"NA": 200} and per["label"]["action"] == "drop_rows"
    assert "the 200 records with an empty 'label' left out" in data.missing_values["sentence"]
    assert "200 written 'NA' in 'label'" in data.missing_values["sentence"]


def test_training_categorical_na_is_said_and_none_is_kept(tmp_path):
    data = load_tabular_csv(_training(tmp_path, label_na=0))
    cats = data.schema.column("colour").categories
    assert "None" in cats and "NA" not in cats and MISSING_CATEGORY in cats
    per = {e["column"]: e for e in data.missing_values["per_column"]}
    assert per["colour"]["marks"] == {"NA": 12}
    assert per["income"]["marks"] == {".": 10}          # a number column: '.' is a gap
    sentence = data.missing_values["sentence"]
    assert "12 written 'NA' in 'colour'" in sentence and "10 written '.' in 'income'" in sentence


def test_training_a_schema_that_lists_na_keeps_it_as_a_class(tmp_path):
    p = _training(tmp_path, label_na=100)
    schema = TabularSchema((TabularColumn("id", "ignore", "categorical"),
                            TabularColumn("age", "feature", "numeric"),
                            TabularColumn("income", "feature", "numeric"),
                            TabularColumn("colour", "feature", "categorical"),
                            TabularColumn("label", "label", "categorical", ("NA", "no", "yes"))))
    data = load_tabular_csv(p, schema)
    assert data.class_labels == ("NA", "no", "yes") and len(data.y) == 1000


def test_training_an_id_na_is_refused(tmp_path):
    with pytest.raises(InputError) as exc:
        load_tabular_csv(_training(tmp_path, id_na=True), id_column="id")
    assert "row 5, column 'id': 'NA' looks like a missing value; every record needs its own id" \
        in str(exc.value)


# --------------------------------------------------------------------------- predictions

def test_predictions_label_na_is_left_out_and_said(tmp_path):
    rows = ["label,member,p_cat,p_dog"]
    rows += [f"{'NA' if i % 10 == 0 else ['cat', 'dog'][i % 2]},{i // 2 % 2},0.3,0.7"
             for i in range(100)]
    pred = load_predictions_csv(write(tmp_path, "out.csv", rows))
    assert pred.n_records == 90 and pred.class_names == ("cat", "dog")
    sentence = pred.missing_values["sentence"]
    assert "since a record without its label cannot be scored" in sentence
    assert sentence.endswith(f"; counted as empty: 10 written 'NA' in 'label' {SAID}.")


def test_predictions_a_blank_optional_id_leaves_no_record_out(tmp_path):
    """400 of 1,200 predictions were left out "since … label, membership or score cannot be
    scored" for a blank optional id."""
    rows = ["id,label,member,p_0,p_1"]
    rows += [f"{'' if i % 3 == 0 else i},{i % 2},{i // 2 % 2},0.3,0.7" for i in range(1200)]
    p = write(tmp_path, "pred.csv", rows)
    pred = load_predictions_csv(p)
    assert pred.n_records == 1200 and pred.missing_values is None
    assert (pred.ids == "").sum() == 400
    assert read_notes(p) == ["400 records of pred.csv have no id in column 'id', first in row 2; "
                             "they are kept and audited, but cannot be matched with the data "
                             "by id"]
    with pytest.raises(InputError) as exc:
        match_predictions(pred, ids=np.arange(1200).astype(str), data_source="train.csv")
    assert "400 prediction rows have no id (row 2, …), so they cannot be matched with " \
           "train.csv's records by id" in str(exc.value)


def test_predictions_a_missing_score_names_the_score_only(tmp_path):
    rows = ["label,member,p_cat,p_dog", "cat,1,,0.2", "dog,0,0.4,0.6", "cat,0,0.3,0.7",
            "dog,1,0.1,0.9"]
    pred = load_predictions_csv(write(tmp_path, "out.csv", rows))
    assert "since a record without its model output cannot be scored" \
        in pred.missing_values["sentence"]


# --------------------------------------------------------------------------- item 12 sentences

def test_one_column_of_gaps_says_its_count_once(tmp_path):
    """"the 30 records with an empty 'age' 30 left out"."""
    rows = ["age,sex"] + [f"{'' if i < 30 else 20 + i % 40},{'FM'[i % 2]}" for i in range(200)]
    md = load_microdata_csv(write(tmp_path, "people.csv", rows))
    assert md.missing_values["sentence"] == (
        "30 empty cells in 1 column the audit reads: the 30 records with an empty 'age' left out.")


def test_an_all_blank_column_is_named_with_its_file(tmp_path):
    rows = ["age,sex,notes"] + [f"{20 + i},{'FM'[i % 2]}," for i in range(50)]
    p = write(tmp_path, "people.csv", rows)
    with pytest.raises(InputError) as exc:
        load_microdata_csv(p)
    assert str(exc.value) == (f"{p}: column 'notes' is empty in all 50 records, so there is "
                              f"nothing to audit in it; fill it in or delete the column.")


LOADERS = {
    "tabular": load_tabular_csv,
    "predictions": load_predictions_csv,
    "microdata": load_microdata_csv,
    "traces": load_traces_csv,
}
TABLES = {
    "tabular": ["age,colour,label"] + [f"{20 + i},{'rb'[i % 2]},{'yn'[i % 2]}" for i in range(8)],
    "predictions": ["label,member,p_0,p_1"] + [f"{i % 2},{i // 2 % 2},0.4,0.6" for i in range(8)],
    "microdata": ["age,sex"] + [f"{20 + i},{'FM'[i % 2]}" for i in range(8)],
    "traces": ["user_id,site,epoch"] + [f"u{i},s{i % 3},{i}" for i in range(8)],
}


@pytest.mark.parametrize("kind", list(LOADERS))
def test_a_blank_first_line_is_said_as_such(tmp_path, kind):
    """A first line of spaces read "column 1 of the header has no name"."""
    p = tmp_path / "data.csv"
    p.write_text("   \n" + "\n".join(TABLES[kind]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        LOADERS[kind](str(p))
    assert str(exc.value) == (f"{p}: the first line is blank (only spaces or separators), where "
                              f"the header row naming the columns belongs; delete that line so "
                              f"that the header is the first line of the file.")


@pytest.mark.parametrize("kind", list(LOADERS))
def test_a_repeated_header_row_is_named(tmp_path, kind):
    """A second header row inside a training CSV read "class a 9-character text … has only 1
    record"."""
    rows = list(TABLES[kind])
    rows.insert(5, rows[0])
    p = write(tmp_path, "data.csv", rows)
    with pytest.raises(InputError) as exc:
        LOADERS[kind](p)
    assert str(exc.value) == (f"{p}: row 6 repeats the header row (the column names), as when "
                              f"two files are pasted into one; remove it, so that every row "
                              f"below the header is a record.")


@pytest.mark.parametrize("minified", [True, False])
def test_a_project_chosen_as_data_is_recognised(tmp_path, minified):
    """A project saved on one line, over 4 MB, read "not the header row of a table"."""
    project = {"audit_type": "model", "config": {"audit_type": "model", "name": "big"},
               "result": {"notes": "x" * (4_200_000 if minified else 10)}, "decision_log": []}
    p = tmp_path / "big.praudit.json"
    p.write_text(json.dumps(project, indent=None if minified else 1), encoding="utf-8")
    for load in LOADERS.values():
        with pytest.raises(InputError) as exc:
            load(str(p))
        assert str(exc.value) == (f"{p}: is a project saved by this app, not a table of data; "
                                  f"open it with Open project… (the File menu), and choose the "
                                  f"CSV file itself as data.")


def test_a_missing_result_key_is_named_in_words():
    """"the attacks is missing"."""
    assert result_problem({"audit_type": "model", "verdict": {}, "summary": "", "theory": {}}) \
        == "the list of attacks is missing (key 'attacks')"


def test_a_long_name_says_it_was_cut():
    """A 3 MB name was cut to 200 characters without a word."""
    name = common_fields({"name": "n" * 3_145_728}, "c.toml")["name"]
    assert len(name) <= 200 and name.endswith("… (name cut, 3,145,728 characters)")
    assert common_fields({"name": name}, "c.toml")["name"] == name     # cut once
    assert common_fields({"name": "short"}, "c.toml")["name"] == "short"


def test_the_gaps_sentence_reaches_every_audit_s_warnings():
    """Hostile pass: a training table's gaps were said in the model audit's summary only (its
    warnings empty), a trace file's in the warnings only. input_warnings, which every audit's
    warnings end with, now says each input's gaps sentence, once."""
    sentence = ("the 40 records with an empty 'defaulted' left out; counted as empty: 40 "
                "written 'NA' in 'defaulted'.")
    gaps = {"sentence": sentence, "empty_cells": 40}
    said = input_warnings([{"path": "/data/train.csv", "missing_values": gaps}])
    assert said == [f"train.csv: {sentence}"]
    # Already said among the file's read_as notes: not twice.
    both = input_warnings([{"path": "/data/t.csv", "read_as": [sentence.rstrip(".")],
                            "missing_values": gaps}])
    assert both == [f"t.csv: {sentence}"]
    assert input_warnings([{"path": "/data/clean.csv"}]) == []


def test_an_empty_list_of_attacks_is_said_as_empty():
    with pytest.raises(InputError) as raised:
        as_choice_list("c.toml", "attacks", [], ("btta", "cbtta"), ("btta",))
    message = str(raised.value)
    assert "'attacks' is an empty list; name at least one, such as ['btta']" in message
    assert "must be a list" not in message


def test_a_published_count_uses_the_same_marks_as_every_number_column(tmp_path):
    """The published-table loader had a list of its own (no '.'), so a count written '.' (SAS's
    missing value) was refused as "not a whole number" where a '.' age in a count table is a
    gap: now the gaps rule's number marks, every one a count that was not published."""
    domain = Domain(("sex",), (("F", "M"),))
    path = tmp_path / "published.csv"
    path.write_text("sex,count\nF,.\nM,12\n", encoding="utf-8")
    rows = load_published_rows(path, domain)
    assert list(rows.counts) == [12]
    assert rows.missing_values is not None and rows.missing_values["empty_cells"] == 1
