"""Mechanism page end to end with the real engine: run, cancel, inline errors, plots, report."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog

from gui.pages.mechanism_page import STEP_RELEASE, STEP_RESULTS, STEPS
from tests.gui.conftest import distinct_colours

RUN_TIMEOUT_MS = 30_000


def open_mechanism(window, trials: int = 2000):
    window.open_sample("mechanism")
    page = window.mechanism_page
    page.fields["trials"].setText(str(trials))
    return page


def run_to_completion(page, qtbot):
    page.run_button.click()
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=RUN_TIMEOUT_MS)


def test_run_end_to_end(main_window, qtbot, tmp_path):
    page = open_mechanism(main_window)
    fractions = []
    main_window.runner.progress_changed.connect(lambda update: fractions.append(update.fraction))
    page.run_button.click()
    assert page.is_running()
    assert not page.run_button.isEnabled() and page.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=RUN_TIMEOUT_MS)

    assert fractions and max(fractions) > 0.5          # the progress bar moved
    assert page.progress_bar.value() == 1000
    assert page.run_button.isEnabled() and not page.cancel_button.isEnabled()
    assert page.steps.currentIndex() == STEP_RESULTS
    view = page.results_view
    assert view.verdict_banner.level_label.text().endswith("RISK")
    assert len(view.verdict_banner.summary_label.text()) > 40
    table = view.metrics_table
    assert table.rowCount() == 1 + len(page.result()["attacks"])
    auc_cell = table.cell_text(0, 1)
    assert 0.5 <= float(auc_cell) <= 1.0
    assert "[" in table.cell_text(1, 1)                # measured AUC has its interval
    assert "not measurable with" in " ".join(table.cell_text(1, c)
                                             for c in range(table.columnCount()))
    assert "ε =" in view.composed_label.text()
    assert "ε ≤" in view.sweep_plot.inverse_label.text()
    assert "Best possible attacker (exact theory)" in view.roc_plot.curve_names()

    # One screenshot per step of the page, each checked not blank.
    for index in range(len(STEPS)):
        page.step_list.setCurrentRow(index)
        qtbot.wait(20)
        image = main_window.grab().toImage()
        image.save(str(tmp_path / f"mechanism_step_{index + 1}.png"))
        assert distinct_colours(image) > 20, f"step {STEPS[index]} looks blank"


def test_cancel_during_run(main_window, qtbot):
    page = open_mechanism(main_window, trials=2_000_000)
    page.run_button.click()
    qtbot.waitUntil(lambda: page.progress_bar.value() > 0, timeout=RUN_TIMEOUT_MS)
    page.cancel_button.click()
    qtbot.waitUntil(lambda: not page.is_running(), timeout=RUN_TIMEOUT_MS)
    assert "cancelled" in page.status_label.text().lower()
    assert page.result() is None
    assert page.run_button.isEnabled() and not page.cancel_button.isEnabled()
    assert page.fields["trials"].text() == "2000000"


def test_bad_value_shows_inline_error_and_keeps_input(main_window, qtbot):
    page = open_mechanism(main_window)
    page.step_list.setCurrentRow(STEPS.index("3  Attacks & run"))
    page.fields["epsilon"].setText("-1")
    page.run_button.click()
    assert not page.is_running()
    assert page.error_label.isVisible()
    assert "must be greater than 0" in page.error_label.text()
    assert "'epsilon'" not in page.error_label.text()           # the field's label, no key
    assert page.fields["epsilon"].text() == "-1"       # nothing the user typed is lost
    assert page.steps.currentIndex() == STEP_RELEASE   # the page shows the field to fix
    assert "c62828" in page.fields["epsilon"].styleSheet()

    page.fields["observations"].setText("ten")
    page.fields["epsilon"].setText("0.5")
    page.run_button.click()
    assert "must be a whole number" in page.error_label.text()
    assert "'observations'" not in page.error_label.text()
    assert page.fields["observations"].text() == "ten"
    assert not page.is_running()


def test_log_log_toggle(main_window, qtbot):
    page = open_mechanism(main_window)
    run_to_completion(page, qtbot)
    roc = page.results_view.roc_plot
    names_linear = roc.curve_names()
    assert not roc.plot_item.ctrl.logXCheck.isChecked()
    roc.log_axes.click()
    assert roc.is_log()
    assert roc.plot_item.ctrl.logXCheck.isChecked() and roc.plot_item.ctrl.logYCheck.isChecked()
    for item in roc.plot_item.listDataItems():
        x, y = item.getOriginalDataset()
        if x is not None and len(x):
            assert (x > 0).all() and (y > 0).all()     # non-positive values are dropped
    assert roc.curve_names() == names_linear
    roc.log_axes.click()
    assert not roc.plot_item.ctrl.logXCheck.isChecked()


def test_export_pdf_report(main_window, qtbot, tmp_path, monkeypatch):
    page = open_mechanism(main_window)
    run_to_completion(page, qtbot)
    target = tmp_path / "audit report"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *args, **kwargs: (str(target), "PDF report (*.pdf)")))
    page.step_list.setCurrentRow(STEPS.index("5  Report"))
    page.export_button.click()
    pdf = tmp_path / "audit report.pdf"
    qtbot.waitUntil(lambda: "written to" in page.export_status.text(), timeout=RUN_TIMEOUT_MS)
    assert pdf.read_bytes().startswith(b"%PDF")
    assert str(pdf) in page.export_status.text()


def test_internal_error_shows_sentence_with_details(main_window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from engine.audits import registry

    def broken_run(config, *, progress=None, cancel=None):
        raise RuntimeError("solver exploded")

    # The page starts its job through the registry (issue 33 item 2).
    monkeypatch.setattr(registry, "run_audit", broken_run)
    page = open_mechanism(main_window)
    page.run_button.click()
    qtbot.waitUntil(lambda: not page.is_running(), timeout=RUN_TIMEOUT_MS)
    boxes = [b for b in page.findChildren(QMessageBox) if b.objectName() == "jobErrorBox"]
    assert boxes, "no error message box was shown"
    box = boxes[-1]
    assert "solver exploded" in box.text()
    assert "Traceback" in box.detailedText()
    assert page.fields["epsilon"].text() == "1"        # settings untouched
    box.close()


def test_bound_interval_choice_reaches_the_config_and_survives_reload(main_window):
    page = main_window.mechanism_page
    page.set_config({"bound_interval": "jeffreys"})
    assert page.validated_config().bound_interval == "jeffreys"
    page.set_config({})
    assert page.validated_config().bound_interval == "clopper-pearson"


def test_narrow_accounting_bracket_shows_distinct_numbers():
    from gui.formatting import bracket_number

    lo, hi = 9.989959868348254, 9.989962316985146
    assert bracket_number(lo, hi) != bracket_number(hi, lo)
    assert bracket_number(1.0, 2.0) == "1"


def test_every_error_shows_at_once_under_its_field_and_clears_when_fixed(main_window, qtbot):
    # Issue 21: errors came one at a time at the bottom of the window, quoted internal keys
    # and stayed after the field was corrected. (isHidden: a field on another step is not on
    # screen, but its sentence is set to show.)
    page = open_mechanism(main_window)
    page.fields["epsilon"].setText("-1")
    page.fields["observations"].setText("ten")
    page.update_estimate(force=True)
    eps, obs = page.fields["epsilon"].error_label, page.fields["observations"].error_label
    assert not eps.isHidden() and not obs.isHidden()
    assert eps.text().startswith("Must be greater than 0") and "'epsilon'" not in eps.text()
    assert obs.text().startswith("Must be a whole number")
    page.run_button.click()
    assert "2 settings need correcting" in page.error_label.text()
    assert ".;" not in page.error_label.text() and not page.error_label.text().endswith("..")
    page.fields["epsilon"].setText("0.5")
    page.update_estimate(force=True)
    assert eps.isHidden() and not obs.isHidden()
    page.fields["observations"].setText("10")
    page.update_estimate(force=True)
    assert obs.isHidden() and page.fields["observations"].styleSheet() == ""
    assert not page.error_label.isVisible()
