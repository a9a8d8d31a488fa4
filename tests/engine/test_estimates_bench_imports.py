"""The estimate benches import one another without a circle (issue 33 item 2:
bench/bench_estimates.py ↔ bench/estimates_model_parts.py), counting imports inside functions
as tests/engine/test_layers.py does for the engine."""

from __future__ import annotations

from tests.engine.test_layers import ROOT, circles, import_graph


def test_no_import_circle_in_the_benches():
    graph = import_graph(ROOT, "bench")
    assert "bench.estimates_model_config" in graph["bench.estimates_model_parts"]
    found = circles(graph)
    assert not found, "import circles in bench/: " + "; ".join(" ↔ ".join(c) for c in found)
