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
    # The sentence names the attacker the release needs in words (issue 32 item 7), not 'auxiliary'.
    assert "knows nobody in the release but has similar people's traces" in page.error_label.text()
    assert page.steps.currentIndex() == STEP_ATTACKER
    assert page.fields["release"].text() == "resources/location/some_release.csv"
    page.attacker_combo.setCurrentIndex(page.attacker_combo.findData("auxiliary"))
    config = page.validated_config()
    assert config.release.endswith("some_release.csv") and config.attacker == "auxiliary"


def test_two_threshold_rule_choice_reaches_the_config_in_plain_words(main_window):
    """Issue 22: the two-threshold attack's per-cell rule is a choice in the attacks step,
    explained without internal keys, and only enabled while that attack is ticked."""
    page = open_location(main_window)
    combo = page.threshold_rule_combo
    assert combo.currentData() == "best_accuracy"
    tip = combo.toolTip()
    assert "halfway" in tip.lower() and "threshold_rule" not in tip and "_" not in tip
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "Each place and hour: the threshold that was right most often",
        "Each place and hour: halfway between the averages (paper 000, Alg. 5)"]
    combo.setCurrentIndex(combo.findData("midpoint"))
    assert page.validated_config().threshold_rule == "midpoint"
    page.attack_boxes["two_threshold"].setChecked(False)
    assert not combo.isEnabled()
    page.attack_boxes["two_threshold"].setChecked(True)
    assert combo.isEnabled()
    page.fill_form({**page.form_dict(), "threshold_rule": "best_accuracy"})
    assert combo.currentData() == "best_accuracy"
    page.fill_form({**page.form_dict(), "threshold_rule": "midpoint"})
    assert combo.currentData() == "midpoint"


def test_what_to_do_with_empty_released_counts_is_a_choice_in_plain_words(main_window):
    """Issue 21: an empty count of a published release was read as 0. The page offers the
    two choices that make sense for a released count — leave the row out (its count then
    unknown) or refuse the file — in plain words, and they reach the config and come back
    from a saved one."""
    page = open_location(main_window)
    combo = page.release_missing_combo
    assert combo.currentData() == "drop_rows"
    assert [combo.itemData(i) for i in range(combo.count())] == ["drop_rows", "error"]
    tip = combo.toolTip()
    assert "not a zero" in tip and "_" not in tip
    page.fields["release"].setText("resources/location/some_release.csv")
    page.attacker_combo.setCurrentIndex(page.attacker_combo.findData("auxiliary"))
    combo.setCurrentIndex(combo.findData("error"))
    assert page.validated_config().release_missing == "error"
    page.fill_form({**page.form_dict(), "release_missing": "drop_rows"})
    assert combo.currentData() == "drop_rows"
    assert page.validated_config().release_missing == "drop_rows"
