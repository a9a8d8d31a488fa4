"""Plain words first on the results page (issue 20): the attack's plain name in the metrics
table and the verdict banner with the science in their tooltips, a "?" per glossary term,
and a plain sentence under the table for each surprising reading."""

from __future__ import annotations

from engine.wording import GLOSSARY, NEGATIVE_ADVANTAGE, NOT_MEASURABLE
from gui.widgets.results_view import ResultsView

LIRA = "LiRA online, per-example variance (Carlini et al. 2022)"


def result() -> dict:
    def attack(name, label, advantage, measurable):
        return {"name": name, "label": label, "auc": 0.6, "auc_ci": [0.55, 0.65],
                "accuracy": 0.55, "accuracy_ci": [0.5, 0.6], "advantage": advantage,
                "advantage_ci": [advantage - 0.01, advantage + 0.01], "n_negative": 100,
                "tpr_at_fpr": [{"fpr_target": 0.01, "tpr": 0.05, "tpr_ci": [0.0, 0.2],
                                "measurable": measurable}]}
    return {"audit_type": "model", "summary": "A summary.",
            "attacks": [attack("lira_online", LIRA, 0.1, True),
                        attack("metric_confidence", "Confidence in the true class", -0.04,
                               False)],
            "verdict": {"level": "low", "reasons": ["Because."], "policy_rules": [],
                        "headline": {"fpr": 0.01, "name": "lira_online", "label": LIRA}}}


def test_plain_names_first_science_in_the_tooltip(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    view.set_result(result())
    table = view.metrics_table
    assert table.cell_text(0, 0) == "Copies-of-your-model attack"
    assert LIRA in table.item(0, 0).toolTip() and "Carlini" not in table.cell_text(0, 0)
    banner = view.verdict_banner
    assert "Strongest attack: Copies-of-your-model attack" in banner.strongest_label.text()
    assert "Carlini" not in banner.text() and LIRA in banner.strongest_label.toolTip()
    for term in GLOSSARY:
        assert f"{term} <b>?</b>" in banner.glossary.text()
        assert GLOSSARY[term] in banner.glossary.tip(term)
    notes = view.table_notes.text()
    assert NEGATIVE_ADVANTAGE in notes and NOT_MEASURABLE in notes
    assert not view.table_notes.isHidden()
    view.set_result(None)
    assert view.table_notes.isHidden() and banner.strongest_label.text() == ""


def test_the_custom_attack_lists_use_the_results_plain_names(qtbot):
    """Walk-through 2026-11-26: the Custom lists named attacks as the papers do ("One-threshold
    attack", "BTTA", "DeSIA") while the verdict and results said "Simple count check": each box
    now starts with the plain name the results give the attack it runs."""
    from engine.wording import plain_name
    from gui.job_runner import JobRunner
    from gui.pages.aggregates_page import AggregatesPage
    from gui.pages.location_page import LocationPage
    from gui.pages.model_page import ModelPage

    runner = JobRunner()
    result_names = {"correctness": "metric_correctness", "confidence": "metric_confidence",
                    "entropy": "metric_entropy", "modified_entropy": "metric_modified_entropy",
                    "top1": "metric_top1", "label_only": "label_only_gap"}
    for page_class in (LocationPage, ModelPage, AggregatesPage):
        page = page_class(runner)
        qtbot.addWidget(page)
        boxes = {**page.attack_boxes, **getattr(page, "mia_boxes", {})}
        assert boxes
        for name, box in boxes.items():
            plain = plain_name(result_names.get(name, name))
            assert box.text().startswith(plain), (name, box.text())
            assert box.toolTip() and box.toolTip() != box.text()


def test_location_sections_hide_what_was_not_run_and_cite_no_paper(qtbot):
    """Walk-through 2026-11-26 (Quick look): an empty accuracy-against-observations chart was
    drawn with a 0.1–0.9 log axis, and the score caption read "what paper 000's theory
    predicts: Normal fitted on the shadow aggregates (paper 000 Thm 2, CLT)"."""
    from gui.widgets.location_results import ObservationsPlot, plain_model_words

    plot = ObservationsPlot()
    qtbot.addWidget(plot)
    plot.set_result({"theory": {"sweep": {}}})
    assert not plot.view.isVisibleTo(plot) and "was not drawn" in plot.caption.text()
    words = plain_model_words("Normal fitted on the shadow aggregates (paper 000 Thm 2, CLT)")
    assert words == "a bell curve (Normal) fitted on the attacker's simulated releases"
    assert plain_model_words("Binomial(k, p)") == "Binomial(k, p)"


def test_cells_released_per_person_is_not_read_as_a_share_of_cells():
    """Walk-through 2026-11-26: "Share of cells released: 0.25" released 112 of 368 cells
    (30 %): the setting counts cells per person. The preview says so, without symbols."""
    from gui.pages.aggregates_page import FIELDS
    from gui.widgets.release_builder import ReleasePreview, TablePreview

    preview = ReleasePreview(kind="p_tables", tables=(TablePreview("P12", 368, ()),),
                             candidates=368, released=112, records=450, fraction=0.25)
    assert preview.sentence() == ("The release publishes 112 of the 368 cells in 1 table, drawn "
                                  "at random (0.25 cells per person × 450 people).")
    assert FIELDS["fraction"].label == "Cells released per person"


def test_count_tables_release_box_speaks_plainly():
    """Walk-through 2026-11-26: "What was released" said "(m = 0.25 × |D|)", "|D| = 450
    records" and "Deterministic module: 0 of 30 targets determined"."""
    from gui.widgets.aggregates_results import release_html

    html = release_html({
        "release": {"kind": "p_tables", "queries": 112, "candidates": 368, "fraction": 0.25,
                    "tables": [{"table": "P12", "cells": 17}], "sensitivity": 2,
                    "mechanism": "none"},
        "game": {"quasi_identifiers": ["sex", "age"], "sensitive": "race", "values": [1, 2],
                 "chance": 0.5, "records": 450, "unique_records": 71, "targets": 30,
                 "auxiliary_records": 4000, "auxiliary_source": "synthetic"},
        "deterministic": {"determined": 0, "targets": 30, "correct": 0, "median_s": 0.2,
                          "p95_s": 0.3}})
    assert "|D|" not in html and "module" not in html and "m = " not in html
    assert "0.25 cells per person" in html and "Proof step" in html
