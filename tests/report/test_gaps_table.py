"""The report's per-column gaps table (issue 21): every input file whose empty cells were
filled or cost records gets its sentence and a table of column, empty cells and what was done,
in the inputs section every report type shares (engine.report.sections.inputs_table)."""

import io

from reportlab.platypus import Paragraph, SimpleDocTemplate, Table

from engine.report.sections import inputs_table


def _texts(flowables) -> list:
    out = []
    for f in flowables:
        if isinstance(f, Table):
            out.append([[c.getPlainText() if isinstance(c, Paragraph) else str(c) for c in row]
                        for row in f._cellvalues])
        elif isinstance(f, Paragraph):
            out.append(f.getPlainText())
    return out


def test_each_file_with_gaps_gets_a_table_of_its_columns():
    training = {"path": "/data/credit.csv", "sha256": "ab" * 32, "rows": 4400,
                "missing_values": {
                    "empty_cells": 455, "columns": 3, "records_read": 4454,
                    "records_left_out": 54,
                    "sentence": "455 empty cells in 3 columns were handled before training.",
                    "per_column": [
                        {"column": "Income", "empty_cells": 381, "action": "median",
                         "indicator": True, "filled_with": 52000.0},
                        {"column": "Home", "empty_cells": 20, "action": "own_category",
                         "filled_with": "missing"},
                        {"column": "Status", "empty_cells": 54, "action": "drop_rows"}]}}
    plain = {"path": "/data/reference.csv", "sha256": "cd" * 32, "rows": 100}
    flow = inputs_table({"inputs": [training, plain]})
    texts = _texts(flow)
    assert "Empty cells in credit.csv: 455 empty cells in 3 columns were handled before " \
           "training." in texts
    assert [["Column", "Empty cells", "What was done"],
            ["Income", "381", "filled with the column's median, plus a feature saying the "
                              "value was missing"],
            ["Home", "20", "counted as a category of its own ('missing')"],
            ["Status", "54", "records left out"]] in texts
    # The filled value is a record's value for a category: the report does not print it.
    assert not any("52000" in str(t) or "52,000" in str(t) for t in texts)
    # One table for the files and one for the file with gaps, none for the file without.
    assert sum(isinstance(f, Table) for f in flow) == 2
    SimpleDocTemplate(io.BytesIO()).build(flow)       # it lays out on a page


def test_no_gaps_no_table():
    flow = inputs_table({"inputs": [{"path": "a.csv", "sha256": "0" * 64, "rows": 3}]})
    assert sum(isinstance(f, Table) for f in flow) == 1
