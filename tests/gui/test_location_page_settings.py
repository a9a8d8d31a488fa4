"""Location page settings beyond the sample: the target by number of observations, and a
published release attacked with the user's traces (only the auxiliary attacker may)."""

from __future__ import annotations

from gui.pages.location_page import STEP_ATTACKER
from tests.gui.test_location_page import open_location


def test_target_by_number_of_observations_reaches_the_config(main_window):
    page = open_location(main_window)
    page.target_combo.setCurrentIndex(page.target_combo.findData("observations"))
    assert page.fields["target_observations"].isEnabled()
    assert not page.fields["target_id"].isEnabled()
    page.fields["target_observations"].setText("20")
    config = page.validated_config()
    assert config.target == "observations" and config.target_observations == 20


def test_published_release_needs_the_auxiliary_attacker_and_keeps_the_path(main_window):
    page = open_location(main_window)
    page.fields["release"].setText("resources/location/some_release.csv")
    page.attacker_combo.setCurrentIndex(page.attacker_combo.findData("informed"))
    page.run_button.click()
    assert not page.is_running()
    assert "auxiliary" in page.error_label.text()
    assert page.steps.currentIndex() == STEP_ATTACKER
    assert page.fields["release"].text() == "resources/location/some_release.csv"
    page.attacker_combo.setCurrentIndex(page.attacker_combo.findData("auxiliary"))
    config = page.validated_config()
    assert config.release.endswith("some_release.csv") and config.attacker == "auxiliary"
