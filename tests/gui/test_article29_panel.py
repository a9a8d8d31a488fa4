"""The officer's frame on the results page (issue 34 item 4): the three Article 29 risks with
their levels, sentences and figures, the DPIA list, and "Copy as text"."""

from __future__ import annotations

import json
import re
from pathlib import Path

from PySide6.QtGui import QGuiApplication

from engine.findings.article29 import DPIA_TITLE, NO_DECISION, RISKS, article29_risks
from engine.results.loaded import load_result
from engine.signoff import sign
from gui.widgets.article29_panel import Article29Panel
from gui.widgets.results_view import ResultsView

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"


def sample(audit_type: str) -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text("utf-8"))["result"]


def plain(label) -> str:
    return re.sub(r"<[^>]+>", " ", label.text()).replace("&amp;", "&")


def test_panel_shows_each_risk_with_its_level_sentence_and_figures(qtbot):
    panel = Article29Panel()
    qtbot.addWidget(panel)
    result = load_result(sample("aggregates"))
    panel.set_result(result)
    for f in article29_risks(result):
        shown = plain(panel.risk_labels[f.risk])
        assert f.label in shown and f.level_label in shown
        assert f.sentence in shown
        for label, value in f.figures:
            assert label in shown and value in shown
    dpia = plain(panel.dpia_label)
    assert DPIA_TITLE in dpia and "Residual risk" in dpia and NO_DECISION in dpia
    assert panel.copy_button.isEnabled()


def test_copy_as_text_holds_the_three_risks(qtbot):
    panel = Article29Panel()
    qtbot.addWidget(panel)
    panel.set_result(load_result(sample("location")))
    panel.copy_button.click()
    copied = QGuiApplication.clipboard().text()
    assert copied == panel.text() and copied
    for f in article29_risks(sample("location")):
        assert f"{f.label}: {f.level_label}." in copied
    assert "Copied" in panel.copied_label.text()


def test_no_result_hides_the_box_and_a_signed_decision_reaches_the_list(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    assert not view.article29_box.isVisibleTo(view)
    assert not view.article29_panel.copy_button.isEnabled()
    result = sample("mechanism")
    view.set_result(result)
    assert view.article29_box.isVisibleTo(view)
    assert NO_DECISION in view.article29_panel.text()
    # Signing in the Decision box updates the decision line at once.
    s = sign(result, decision="approve", reviewer="Jane Roe", role="DPO", date="2026-11-28",
             rationale="Low risk.")
    view.signoff_panel.signed.emit(s)
    assert "Approved by Jane Roe (DPO) on 2026-11-28" in view.article29_panel.text()
    # The page unsigning it (a changed setting) says so again.
    view.article29_panel.set_signoff(None)
    assert NO_DECISION in view.article29_panel.text()
    assert all(view.article29_panel.risk_labels[r].text() for r in RISKS)
