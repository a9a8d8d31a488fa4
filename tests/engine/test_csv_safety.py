"""CSV files the app writes never carry a live spreadsheet formula (issue 11: "exported CSVs
neutralise spreadsheet formulas"), and the app's own loaders read them back unchanged."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from engine.data.csv_safety import neutralise, restore
from engine.data.predictions import load_predictions_csv, write_predictions_csv

HOSTILE = ["=HYPERLINK(\"http://x\",\"y\")", "+1+cmd", "-2+3", "@SUM(A1)", "\tTab", "plain"]


@pytest.mark.parametrize("cell", HOSTILE + ["-1.5", "+3", "-inf", "'=kept", "", "'"])
def test_round_trip_and_numbers_stay_numbers(cell):
    written = neutralise(cell)
    assert restore(written) == cell
    if cell and cell[0] in "=+-@\t" and cell not in ("-1.5", "+3", "-inf"):
        assert written.startswith("'")
    if cell in ("-1.5", "+3", "-inf"):
        assert written == cell


def test_predictions_csv_has_no_formula_and_reads_back(tmp_path):
    names = ["=cmd|'/c calc'!A1", "@risk", "-minus", "ok"]
    labels = np.array([0, 1, 2, 3, 0, 1, 2, 3])
    probs = np.full((8, 4), 0.25)
    ids = ["+1", "=2", "3", "4", "5", "6", "7", "-8x"]
    path = write_predictions_csv(tmp_path / "p.csv", labels=labels, member=labels % 2 == 0,
                                 probs=probs, class_names=names, ids=ids)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    for row in rows[1:]:
        for cell in row:
            try:
                float(cell)
                continue
            except ValueError:
                pass
            assert not cell or cell[0] not in "=+-@\t\r", cell
    back = load_predictions_csv(path, id_col="id")
    assert list(back.class_names) == sorted(names, key=lambda n: back.class_names.index(n))
    assert set(back.class_names) == set(names)
    assert [back.class_names[i] for i in back.labels] == [names[i] for i in labels]
    assert list(back.ids) == ids


def test_published_table_neutralised_and_read_back(tmp_path):
    from engine.aggregates.queries import (
        CountingQuery,
        Domain,
        load_published_rows,
        write_published_csv,
    )

    domain = Domain(columns=("=team", "age"), labels=(("=a", "@b", "c"), ("1", "2")))
    queries = [CountingQuery(conditions=((0, frozenset({0})),), label="=SUM(A1)"),
               CountingQuery(conditions=((0, frozenset({1, 2})),), label="plain")]
    path = write_published_csv(queries, [3, 4], domain, tmp_path / "t.csv")
    text = path.read_text(encoding="utf-8")
    assert "\n=" not in text and ",=" not in text and ",@" not in text
    back = load_published_rows(path, domain)
    assert [q.label for q in back.queries] == ["=SUM(A1)", "plain"]
    assert [dict(q.conditions) for q in back.queries] == [dict(q.conditions) for q in queries]
