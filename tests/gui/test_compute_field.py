"""The model and count-table pages carry the location page's cluster field (issue 22 item 6):
it round-trips into the config's [compute] table, and a bad address is marked on the field
of the step that holds it."""

from __future__ import annotations

import pytest

from engine.compute import IN_PROCESS
from gui.job_runner import JobRunner
from gui.pages.aggregates_page import STEP_ATTACKS as AGGREGATES_STEP
from gui.pages.aggregates_page import AggregatesPage
from gui.pages.model_page import STEP_ATTACKS as MODEL_STEP
from gui.pages.model_page import ModelPage


@pytest.mark.parametrize("page_type, step", [(ModelPage, MODEL_STEP),
                                             (AggregatesPage, AGGREGATES_STEP)])
def test_the_cluster_field_round_trips_and_a_bad_address_is_marked(qtbot, plots_configured,
                                                                   page_type, step):
    page = page_type(JobRunner())
    qtbot.addWidget(page)
    page.set_config(page.sample_config())
    field = page.fields["compute.cluster"]
    assert field.text() == "" and field.placeholderText() == "this computer"
    assert page.validated_config().compute.cluster == IN_PROCESS
    field.setText("ray://head.internal:10001")
    assert page.validated_config().compute.cluster == "ray://head.internal:10001"
    page.set_config(page.config_for_saving())
    assert page.fields["compute.cluster"].text() == "ray://head.internal:10001"

    field.setText("my cluster")
    errors = page.form_errors(page.form_dict())
    assert [e.key for e in errors] == ["compute.cluster"]
    page.show_input_error(errors[0])
    assert page.step_list.currentRow() == step
