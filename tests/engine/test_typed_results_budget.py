"""Issue 33 item 1: results are read by attribute from the one loader's typed objects
(engine.results.loaded), not key by key. Over every module that shows or prints a result —
the report, the plot series, the headline and the results widgets — the ``.get(`` calls left
(word tables in CAPITALS excepted: they are the modules' own constants) stay under the
issue's budget of 100 and may not creep back up. The per-audit tests
(test_loaded_mechanism, test_results_location, test_results_aggregates,
test_model_result_types) cap each file; this one caps the whole."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
READERS = (
    sorted((ROOT / "engine" / "report").glob("*.py"))
    + sorted((ROOT / "engine" / "plots").glob("*.py"))
    + [ROOT / "engine" / "headline.py"]
    + [ROOT / "gui" / "widgets" / f"{name}.py" for name in (
        "results_view", "verdict_banner", "metrics_table", "roc_plot", "sweep_plot", "plot_view",
        "mechanism_results", "location_results", "location_detector", "aggregates_results",
        "aggregates_sections", "model_results", "defences_results", "defences_chart",
        # issue 34: the rules beside the attacks and the Article 29 frame read result.json
        # (the sign-off form and the Compare view read their own typed objects)
        "aggregates_rules_view", "article29_panel")])
# Measured when the typed loader landed (issue 33): 68, from 1,490 over the same readers before.
MOST = 70
ISSUE_BUDGET = 100


def raw_reads(path: Path) -> int:
    count = 0
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get":
            receiver = ast.unparse(node.func.value).split(".")[-1].lstrip("_")
            if not receiver.isupper():
                count += 1
    return count


def test_every_reader_file_exists():
    assert all(p.is_file() for p in READERS), [str(p) for p in READERS if not p.is_file()]


def test_results_are_read_by_attribute_within_the_budget():
    total = sum(raw_reads(p) for p in READERS)
    assert total <= MOST <= ISSUE_BUDGET, {p.name: raw_reads(p) for p in READERS
                                           if raw_reads(p)}
