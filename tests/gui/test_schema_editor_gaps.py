"""The count-tables schema editor offers, per column, what the audit does with empty cells
(issue 21): a category of their own (what an inferred schema does where the file has
blanks), leave those records out, or refuse the file — saved with the schema and obeyed by the
engine."""

from __future__ import annotations

from engine.data.microdata import MISSING_CATEGORY, Schema, load_microdata_csv
from gui.widgets.schema_editor import COL_MISSING, MISSING_TEXTS, SchemaEditor
from gui.widgets.schema_table import CHOICES_ROLE


def _choices(editor: SchemaEditor, name: str) -> list[str]:
    item = editor.table.item(editor.row_of(name), COL_MISSING)
    return [v for v, _text in item.data(CHOICES_ROLE)]


def test_each_column_offers_what_fits_and_the_engine_obeys(qtbot, tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("sex,age,race,note\nF,34,White,a\n,51,Black,\nF,,Asian,b\nM,45,,c\n"
                    "F,62,Black,d\nM,29,White,e\n", encoding="utf-8")
    inferred = load_microdata_csv(path).schema.to_dict()
    editor = SchemaEditor()
    qtbot.addWidget(editor)
    editor.set_schema(inferred, sensitive="race")
    # Categories offer all three, numbers cannot hold a category of their own.
    assert _choices(editor, "sex") == ["own_category", "drop_rows", "error"]
    assert _choices(editor, "age") == ["drop_rows", "error"]
    # The inferred schema lists 'missing' where the file has blanks: the default is shown.
    assert editor.value(editor.row_of("sex"), COL_MISSING) == "own_category"
    assert editor.value(editor.row_of("age"), COL_MISSING) == "drop_rows"
    editor.set_role("note", "ignore")        # not used: its blanks need no choice
    assert editor.table.item(editor.row_of("note"), COL_MISSING).text() == "—"
    assert set(MISSING_TEXTS) == {"own_category", "drop_rows", "error"}

    edits = []
    editor.changed.connect(lambda: edits.append(1))
    editor.set_missing("race", "drop_rows")
    assert edits
    saved = {c["name"]: c for c in editor.schema_dict()["columns"]}
    assert saved["race"]["missing"] == "drop_rows" and "missing" not in saved["sex"]
    md = load_microdata_csv(path, editor.validated())
    assert md.n_records == 4                     # age's and race's blanks left their records
    assert md.labels("sex").tolist().count(MISSING_CATEGORY) == 1
    assert [e["action"] for e in md.missing_values["per_column"]] == [
        "own_category", "drop_rows", "drop_rows"]

    editor.set_missing("sex", "error")
    assert "sex" in str(_refusal(path, editor.validated()))
    # The choice survives a saved project and an edited domain.
    editor.set_schema(editor.schema_dict())
    editor.set_domain_text("sex", f"F | M | {MISSING_CATEGORY}")
    assert {c["name"]: c for c in editor.schema_dict()["columns"]}["sex"]["missing"] == "error"
    assert Schema.from_dict(editor.schema_dict()).column("sex").missing == "error"


def _refusal(path, schema):
    try:
        load_microdata_csv(path, schema)
    except Exception as exc:  # noqa: BLE001 (the sentence is what is checked)
        return exc
    raise AssertionError("the file was not refused")
