"""Location page end to end with the real engine (small sizes): data preview, run, results
sections, cancel, inline errors, screenshots, wheel over every plot, projects."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from engine.plots.series import attack_label, legend_name
from engine.project import load_project
from gui.main_window import MainWindow
from gui.pages.location_page import STEP_DATA, STEP_RELEASE, STEP_RESULTS, STEPS
from tests.gui.conftest import distinct_colours
from tests.gui.test_plot_wheel import assert_wheel_scrolls_page

RUN_TIMEOUT_MS = 60_000
BAD_TRACES = Path(__file__).resolve().parents[1] / "data" / "bad_inputs" / "traces"
FAST_ATTACKS = ("one_threshold", "two_threshold", "reference", "likelihood_ratio")


def open_location(window, attacks=FAST_ATTACKS, **sizes):
    """The bundled sample, shrunk so a run takes a few seconds."""
    window.open_sample("location")
    page = window.location_page
    values = {"test_aggregates": 2000, "shadow_aggregates": 500, "sweep_targets": 2,
              "sweep_test_aggregates": 400, **sizes}
    for key, value in values.items():
        page.fields[key].setText(str(value))
    for name, box in page.attack_boxes.items():
        box.setChecked(name in attacks)
    return page


def run_to_completion(page, qtbot):
    page.run_button.click()
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=RUN_TIMEOUT_MS)
    return page.result()


def test_home_card_opens_the_location_page(main_window, qtbot):
    card = next(c for c in main_window.home_page.cards if c.audit_type == "location")
    assert card.isEnabled() and card.badge is None
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton)
    assert main_window.stack.currentWidget() is main_window.location_page


def test_sample_preview_run_results_screenshots_and_wheel(main_window, qtbot, tmp_path):
    page = open_location(main_window)
    assert page.name_edit.text().startswith("Sample")
    assert page.fields["traces"].text() == "resources/location/sample_city.csv"
    assert page.fields["aggregate_size"].text() == "499"

    page.preview_button.click()
    assert "1,500 people, 96 sites, 168 hours" in page.preview_label.text()
    assert page.preview_plot.image.image is not None

    result = run_to_completion(page, qtbot)
    assert page.steps.currentIndex() == STEP_RESULTS
    view = page.results_view
    assert view.verdict_banner.level_label.text().endswith("RISK")
    assert [a["name"] for a in result["attacks"]] == list(FAST_ATTACKS)
    assert view.metrics_table.rowCount() >= len(FAST_ATTACKS)
    names = view.roc_plot.curve_names()
    for attack in result["attacks"]:
        assert legend_name(attack_label(attack)) in names, attack["label"]
    curves = view.observations_plot.curve_names()
    assert "Best possible attacker (exact theory)" in curves and "Most that ε-DP allows" in curves
    # The attacks by their plain names, as the tables name them (engine.wording).
    assert "Simple count check" in curves and "Noise-aware count check" in curves
    exposed = result["exposed_records"][0]
    text = view.exposed_view.summary_label.text()
    assert f"{exposed['count']:,} of {exposed['population']:,}" in text
    assert "redacted" in text and not view.exposed_view.ids_table.isVisibleTo(view)
    assert "composed ε" in view.composed_label.text()
    assert "was not part of this run" in view.meta_view.summary_label.text()

    main_window.resize(1100, 700)
    for index in range(len(STEPS)):
        page.step_list.setCurrentRow(index)
        qtbot.wait(10)
        image = main_window.grab().toImage()
        image.save(str(tmp_path / f"location_step_{index + 1}.png"))
        assert distinct_colours(image) > 20, f"step {STEPS[index]} looks blank"

    page.step_list.setCurrentRow(STEP_RESULTS)
    qtbot.wait(20)
    for name in ("roc", "observations"):
        assert_wheel_scrolls_page(view.plots()[name], qtbot)
    page.step_list.setCurrentRow(STEP_DATA)
    main_window.resize(1000, 500)
    qtbot.wait(20)
    assert_wheel_scrolls_page(page.preview_plot.view, qtbot)


def test_mlp_weights_heat_map(main_window, qtbot):
    page = open_location(main_window, attacks=("one_threshold", "meta_classifier"),
                         sweep_targets=0, shadow_aggregates=300, test_aggregates=1000)
    result = run_to_completion(page, qtbot)
    view = page.results_view
    mlp = next(a for a in result["attacks"] if a["name"] == "meta_classifier")
    k = len(mlp["details"]["first_layer_weights"])
    assert view.meta_view.image.image.shape == (k, k)
    assert "diagonal dominance" in view.meta_view.summary_label.text()
    assert view.metrics_table.rowCount() >= 2
    main_window.resize(1100, 700)
    page.step_list.setCurrentRow(STEP_RESULTS)
    qtbot.wait(20)
    assert_wheel_scrolls_page(view.plots()["meta-classifier"], qtbot)


def test_cancel_during_run(main_window, qtbot):
    page = open_location(main_window, test_aggregates=1_000_000, shadow_aggregates=200_000)
    page.run_button.click()
    qtbot.waitUntil(lambda: page.progress_bar.value() > 0, timeout=RUN_TIMEOUT_MS)
    page.cancel_button.click()
    qtbot.waitUntil(lambda: not page.is_running(), timeout=RUN_TIMEOUT_MS)
    assert "cancelled" in page.status_label.text().lower()
    assert page.result() is None
    assert page.run_button.isEnabled()
    assert page.fields["test_aggregates"].text() == "1000000"


def test_bad_csv_preview_shows_sentence_inline_and_keeps_path(main_window, qtbot):
    page = open_location(main_window)
    path = str(BAD_TRACES / "negative_epoch.csv")
    page.fields["traces"].setText(path)
    page.preview_button.click()
    text = page.preview_label.text()
    assert "is negative; epochs must be 0 or more" in text and "Traceback" not in text
    assert page.fields["traces"].text() == path
    assert "c62828" in page.fields["traces"].styleSheet()
    page.fields["user_col"].setText("uid")
    page.fields["traces"].setText("resources/location/sample_city.csv")
    page.preview_button.click()
    assert "column 'uid'" in page.preview_label.text()
    assert "c62828" in page.fields["user_col"].styleSheet()


def test_bad_epsilon_shows_inline_error_on_release_step(main_window, qtbot):
    page = open_location(main_window)
    page.step_list.setCurrentRow(STEPS.index("4  Attacks & run"))
    page.fields["epsilon"].setText("-1")
    page.run_button.click()
    assert not page.is_running()
    assert page.steps.currentIndex() == STEP_RELEASE
    assert "ε per hour" in page.error_label.text() and page.error_label.isVisibleTo(page)
    assert page.fields["epsilon"].text() == "-1"
    assert "c62828" in page.fields["epsilon"].styleSheet()


def test_save_reopen_and_autosave_the_right_page(main_window, qtbot, tmp_path, monkeypatch):
    page = open_location(main_window, attacks=("one_threshold",), sweep_targets=0)
    page.mechanism_combo.setCurrentIndex(page.mechanism_combo.findData("gaussian"))
    page.fields["epsilon"].setText("0.8")
    page.attacker_combo.setCurrentIndex(page.attacker_combo.findData("auxiliary"))
    saved = tmp_path / "loc.praudit.json"
    monkeypatch.setattr("gui.main_window.QFileDialog.getSaveFileName",
                        staticmethod(lambda *a, **k: (str(saved), "")))
    assert main_window.save_project()
    # Meanwhile the user looks at the mechanism page: Save of the location project (the
    # "save changes?" of quitting) writes the location page, not the page on screen. Issue 31:
    # the run itself writes no project file, only the page's recovery copy.
    main_window.show_audit("mechanism")
    run_to_completion(page, qtbot)
    assert load_project(saved).result is None
    monkeypatch.setattr(MainWindow, "ask_save_changes", lambda self, text: "save")
    assert main_window.settle_unsaved(main_window.unsaved_pages(), "quitting")
    project = load_project(saved)
    assert project.audit_type == "location"
    assert project.result is not None and project.config["epsilon"] == 0.8

    other = MainWindow()
    qtbot.addWidget(other)
    assert other.open_project(str(saved))
    restored = other.location_page
    assert other.stack.currentWidget() is restored
    assert restored.fields["epsilon"].text() == "0.8"
    assert restored.mechanism_combo.currentData() == "gaussian"
    assert restored.attacker_combo.currentData() == "auxiliary"
    assert [n for n, b in restored.attack_boxes.items() if b.isChecked()] == ["one_threshold"]
    assert restored.result() == project.result
    assert restored.results_view.metrics_table.rowCount() >= 1
