"""Location traces with gaps, per column (issue 21, "Real tables with gaps": the same choices
for count-table microdata and location traces). A traces file with gaps in two columns: its
rows left out are counted per column in result.json's inputs[].missing_values, as microdata
and predictions files are, so the report's gaps table lists each column with its count and
what was done; the rows that can be placed are audited."""

from __future__ import annotations

import io

from reportlab.platypus import Paragraph, SimpleDocTemplate, Table

from engine.audits.location import LocationConfig
from engine.data.text_input import read_notes
from engine.data.traces import load_traces_csv
from engine.games.location_setup import load_population
from engine.report.sections import inputs_table

# Row 3: no site; row 5: no epoch; row 6: epoch 'NA'; row 7: site and epoch both empty.
TRACES = ("user_id,site,epoch\n"
          "a,s1,0\n"
          "a,,1\n"
          "b,s2,1\n"
          "b,s1,\n"
          "c,s2,NA\n"
          "c,,\n"
          "c,s1,2\n")


def write(tmp_path):
    p = tmp_path / "traces.csv"
    p.write_text(TRACES, encoding="utf-8")
    return p


def test_gaps_in_two_columns_are_counted_per_column(tmp_path):
    p = write(tmp_path)
    data = load_traces_csv(p)
    assert data.user_ids == ("a", "b", "c")
    assert data.matrix.nnz == 3                   # rows 2, 4 and 8 are placed
    gaps = data.missing_values
    assert gaps["per_column"] == [
        {"column": "site", "empty_cells": 2, "action": "drop_rows"},
        {"column": "epoch", "empty_cells": 3, "action": "drop_rows", "marks": {"NA": 1}}]
    assert (gaps["empty_cells"], gaps["columns"]) == (5, 2)
    assert (gaps["records_read"], gaps["records_left_out"]) == (7, 4)
    assert gaps["sentence"] == (
        "4 rows with an empty cell or a missing-value mark such as 'NA' ('site' 2, 'epoch' 3; "
        "first in row 3) were left out, since an observation without its user, place and "
        "time cannot be placed; counted as empty: 1 written 'NA' in 'epoch' (marks of a "
        "missing value, see \"Gaps\" in the config reference).")
    # The run's warnings still say it (read_as), in the same words.
    assert read_notes(p) == [gaps["sentence"].rstrip(".")]


def test_a_file_without_gaps_has_no_entry(tmp_path):
    p = tmp_path / "clean.csv"
    p.write_text("user_id,site,epoch\na,s1,0\nb,s2,1\n", encoding="utf-8")
    assert load_traces_csv(p).missing_values is None
    _, inputs = load_population(LocationConfig.from_dict({"traces": str(p)}))
    assert "missing_values" not in inputs[0]


def test_the_audits_input_entry_and_the_reports_gaps_table(tmp_path):
    p = write(tmp_path)
    _, inputs = load_population(LocationConfig.from_dict({"traces": str(p)}))
    entry = inputs[0]
    assert entry["missing_values"]["per_column"][0]["column"] == "site"
    flow = inputs_table({"inputs": inputs})
    tables = [[[c.getPlainText() if isinstance(c, Paragraph) else str(c) for c in row]
               for row in f._cellvalues] for f in flow if isinstance(f, Table)]
    assert [["Column", "Empty cells", "What was done"],
            ["site", "2", "records left out"],
            ["epoch", "3", "records left out"]] in tables
    texts = [f.getPlainText() for f in flow if isinstance(f, Paragraph)]
    said = [t for t in texts if "were left out" in t]
    # Once, above its table — not again as an assumption made to read the file.
    assert said == ["Empty cells in traces.csv: " + entry["missing_values"]["sentence"]]
    SimpleDocTemplate(io.BytesIO()).build(flow)
