"""The results page opens with what to do next (issue 20), the same list as the report."""

from __future__ import annotations

from engine.next_steps import next_steps
from gui.widgets.results_view import ResultsView
from tests.engine.test_next_steps import saved_result


def test_the_results_page_opens_with_the_same_list(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    result = saved_result("location")
    view.set_result(result)
    assert not view.next_steps_box.isHidden()
    text = view.next_steps_label.text()
    for step in next_steps(result):
        assert step.action in text
    view.set_result(None)
    assert view.next_steps_box.isHidden()
