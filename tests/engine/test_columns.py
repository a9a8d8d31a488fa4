"""The column coders every table loader shares (engine.data.columns; issue 19 item 6): the
same cell problem reads the same sentence in a count table's microdata, a training table and
a predictions file, and a saved schema of either kind is checked by one rebuild."""

from pathlib import Path

import pytest

from engine.data.errors import InputError
from engine.data.microdata import ColumnSchema, Schema, load_microdata_csv
from engine.data.predictions import load_predictions_csv
from engine.data.tabular import TabularSchema, load_tabular_csv


def _sentence(load, path, **kw) -> str:
    with pytest.raises(InputError) as err:
        load(path, **kw)
    text = str(err.value)
    assert text.startswith(f"{path}: ")
    return text[len(f"{path}: "):]


def test_a_members_flag_that_is_not_0_or_1_reads_the_same_in_every_loader(tmp_path: Path):
    table = tmp_path / "train.csv"
    table.write_text("age,label,member\n34,a,1\n51,b,0\n27,a,yes\n45,b,0\n30,a,1\n41,b,1\n")
    outputs = tmp_path / "outputs.csv"
    outputs.write_text("label,member,p_a,p_b\na,1,0.8,0.2\nb,0,0.4,0.6\na,yes,0.3,0.7\n")
    expected = ("row 4, column 'member': 'yes' is not 0 or 1; the members column says whether "
                "the model was trained on the record — write 1 for a training record and 0 for "
                "any other.")
    assert _sentence(load_tabular_csv, table) == expected
    assert _sentence(load_predictions_csv, outputs) == expected


def test_one_kind_of_record_only_reads_the_same_in_every_loader(tmp_path: Path):
    table = tmp_path / "train.csv"
    table.write_text("age,label,member\n34,a,1\n51,b,1\n27,a,1\n45,b,1\n")
    outputs = tmp_path / "outputs.csv"
    outputs.write_text("label,member,p_a,p_b\na,1,0.8,0.2\nb,1,0.4,0.6\n")
    common = ("every record has member = 1; the audit compares records the model was trained "
              "on (1) with records it was not (0), so it needs both — add records with "
              "member = 0")
    assert _sentence(load_predictions_csv, outputs) == common + "."
    # A training table can do without the column: the app then splits the records itself.
    assert _sentence(load_tabular_csv, table) == (
        common + ", or set the column's role to 'ignore' and let the app split the records at "
                 "random.")


def test_a_value_outside_the_categories_reads_the_same_in_every_loader(tmp_path: Path):
    micro = tmp_path / "people.csv"
    micro.write_text("sex,race\nF,White\nM,Asain\n")
    schema = Schema((ColumnSchema("sex", "quasi_identifier", "categorical", ("F", "M")),
                     ColumnSchema("race", "sensitive", "categorical",
                                  ("White", "Black", "Asian"))))
    table = tmp_path / "train.csv"
    table.write_text("race,label\nWhite,a\nAsain,b\nWhite,a\nBlack,b\n")
    tab_schema = TabularSchema.from_dict({"columns": [
        {"name": "race", "role": "feature", "kind": "categorical",
         "categories": ["White", "Black", "Asian"]},
        {"name": "label", "role": "label", "kind": "categorical"}]})
    expected = ("row 3, column 'race': a 5-character text of letters is not one of its 3 "
                "categories ('White', 'Black', 'Asian') (did you mean 'Asian'?); correct the "
                "value or add it to the column's categories in the schema.")
    assert _sentence(load_microdata_csv, micro, schema=schema) == expected
    assert _sentence(load_tabular_csv, table, schema=tab_schema) == expected


@pytest.mark.parametrize("saved, sentence", [
    ([], "the schema must be a table with 'columns', got list."),
    ({"columns": [], "version": 1}, "the schema has an entry “version” this app does not read"),
    ({"schema_version": 2, "columns": [{"name": "a"}]}, "the schema's version 2 is not supported"),
    ({"columns": "a"}, "'columns' must be a non-empty list of column descriptions"),
    ({"columns": [{"nam": "a"}]}, "unknown key 'nam' in column 1 of the schema (did you mean "
                                  "'name'?)"),
    ({"columns": [{"role": "ignore"}]}, "column 1 of the schema has no name"),
])
def test_saved_schemas_of_both_kinds_are_checked_by_one_rebuild(saved, sentence):
    for cls in (Schema, TabularSchema):
        with pytest.raises(InputError) as err:
            cls.from_dict(saved, source="project.pra")
        assert str(err.value).startswith("project.pra: " + sentence), (cls, str(err.value))
