"""Issue 32 item 1 on screen and on paper: the count-table results table and notes, and the
model audit's attribute view and report section, show the real people against the obvious
guess (and the data-only guess) with the scaled score, beside the game's figure in the game's
words. The count-table result is a real (small) run; the model result is hand-made (fast)."""

from __future__ import annotations

import numpy as np
import pypdf
import pytest

from engine.attacks.real_people import real_people
from engine.audits.aggregates import run
from engine.report.pdf import write_report
from engine.wording import (
    DATA_ONLY_GUESS,
    OBVIOUS_GUESS,
    REAL_PEOPLE_TERMS,
    RIGHT_ON_REAL_PEOPLE,
    SCALED_SCORE,
    glossary_for,
)
from gui.widgets.aggregates_results import AiaMetricsTable
from gui.widgets.model_results import ModelResultsView
from tests.engine.test_real_people import _config, _skewed_table
from tests.engine.test_report_model import _with_per_class_and_attribute, model_result, pdf_text


@pytest.fixture(scope="module")
def leaky(tmp_path_factory):
    folder = tmp_path_factory.mktemp("real_view")
    result = run(_config(_skewed_table(folder / "workers.csv"),
                         release_options={"ways": [4]})).to_dict()
    path = folder / "report.pdf"
    write_report(result, path)
    text = " ".join(" ".join(p.extract_text() or "" for p in
                             pypdf.PdfReader(str(path)).pages).split())
    return result, text


def _head_block(result: dict) -> dict:
    name = result["verdict"]["headline"]["name"]
    return next(a for a in result["attacks"] if a["name"] == name)["details"]["real_people"]


def test_count_table_columns_and_notes_show_the_real_people(qtbot, leaky):
    result, _ = leaky
    table = AiaMetricsTable()
    qtbot.addWidget(table)
    table.set_result(result)
    headers = {table.horizontalHeaderItem(c).text().replace("\n", " "): c
               for c in range(table.columnCount()) if not table.isColumnHidden(c)}
    real = headers[RIGHT_ON_REAL_PEOPLE]
    scaled = next(c for h, c in headers.items() if h.startswith(SCALED_SCORE))
    assert any(h.startswith("Best guess right (the game's") for h in headers)
    names = [a["name"] for a in result["attacks"]]
    row = names.index(result["verdict"]["headline"]["name"])
    rp = _head_block(result)
    cell = table.cell_text(row, real)
    assert cell.startswith(f"{100 * rp['accuracy']:.1f} %")
    assert f"obvious guess {100 * rp['obvious_guess']['accuracy']:.1f} %" in cell
    assert f"data-only guess {100 * rp['data_only']['accuracy']:.1f} %" in cell
    assert table.cell_text(row, scaled).startswith(f"{rp['scaled_score']:.2f}")
    notes = " ".join(AiaMetricsTable.notes(result))
    assert "replaced by a random draw" in notes
    assert "answering 'no' for everyone, the obvious guess" in notes
    assert "measurably better than the obvious guess" in notes


def test_the_report_says_which_game_and_tabulates_the_real_people(leaky):
    result, text = leaky
    rp = _head_block(result)
    assert "In the paper's game, where each target's value of union is replaced by a random " \
           "draw" in text
    assert "How often each attack is right about the real people" in text
    assert f"Scaled score {rp['scaled_score']:.2f}" in text
    for term in (RIGHT_ON_REAL_PEOPLE, OBVIOUS_GUESS, DATA_ONLY_GUESS, SCALED_SCORE):
        assert term in text, term
        assert term in glossary_for("aggregates") and term in glossary_for("model")


def _with_real_people(result: dict) -> dict:
    """The hand-made attribute block with the real-people blocks the game now adds: 90 % of
    the members hold 'neg'; the model is right for 97 %."""
    result = _with_per_class_and_attribute(result)
    a = result["theory"]["attribute_inference"]
    n = 100
    obvious = np.arange(n) < 90
    right = np.arange(n) < 97
    a["members"]["real_people"] = real_people(right, obvious, obvious_label="neg",
                                              data_only_correct=obvious)
    a["non_members"]["real_people"] = real_people(obvious, obvious, obvious_label="neg",
                                                  data_only_correct=obvious)
    a["real_people"] = a["members"]["real_people"]
    return result


def test_model_attribute_view_adds_the_obvious_guess_and_the_scaled_score(qtbot,
                                                                          plots_configured):
    view = ModelResultsView()
    qtbot.addWidget(view)
    view.set_result(_with_real_people(model_result()))
    av = view.attribute_view
    rows = [[av.table.item(r, c).text() for c in range(av.table.columnCount())]
            for r in range(av.table.rowCount())]
    assert [r[1] for r in rows if r[1].startswith(OBVIOUS_GUESS.lower())] == [
        "obvious guess: 'neg' for everyone"] * 2
    rp = _with_real_people(model_result())["theory"]["attribute_inference"]["real_people"]
    assert rows[0][4].startswith(f"{rp['scaled_score']:.2f} [")
    text = av.summary_label.text()
    assert "the obvious guess, is right for 90% of the members" in text
    assert REAL_PEOPLE_TERMS[SCALED_SCORE] in av.table.horizontalHeaderItem(4).toolTip() or \
        REAL_PEOPLE_TERMS[SCALED_SCORE] in av.table.toolTip()


def test_model_report_section_shows_the_obvious_guess_row(tmp_path):
    flat = " ".join(pdf_text(_with_real_people(model_result()), tmp_path / "m.pdf").split())
    assert "obvious guess: 'neg' for everyone" in flat
    assert "the members' score is 0.70" in flat
