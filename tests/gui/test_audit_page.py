"""A new audit type needs only its form, its results widget and a registry entry.

``CountdownPage`` is a fake audit built from nothing but the shared parts: a config class with
the engine's contract (``()``, ``from_dict``, ``to_dict``, InputError naming the key), a form of
two steps, a results view with one extra section and an engine job that counts with progress
and cancel checks. Everything else — steps, run bar, progress with ETA, cancel, inline errors,
results scaffold, report step, project state — comes from :class:`AuditPage`.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import pytest
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QMessageBox

from engine.data.errors import InputError
from engine.runtime import NEVER, NO_PROGRESS
from gui.job_runner import JobProgress, JobRunner, format_eta
from gui.pages.audit_page import AuditPage, FormStep
from gui.widgets.form import FieldSpec
from gui.widgets.results_view import ResultsView
from gui.widgets.run_bar import RunBar

TIMEOUT_MS = 10_000
STEP_DATA, STEP_RUN = 0, 1


@dataclass(frozen=True)
class CountdownConfig:
    """A config with the engine's contract; its errors name the key at fault."""

    name: str = "Countdown"
    steps: int = 5
    pause_s: float = 0.01
    mode: str = "plain"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict, source: str = "config") -> CountdownConfig:
        steps = data.get("steps", cls.steps)
        if isinstance(steps, bool) or not isinstance(steps, int):
            raise InputError(f"{source}: 'steps' must be a whole number, not {steps!r}.",
                             key="steps")
        pause = data.get("pause_s", cls.pause_s)
        if isinstance(pause, bool) or not isinstance(pause, (int, float)) or pause < 0:
            raise InputError(f"{source}: 'pause_s' must be a number ≥ 0, not {pause!r}.",
                             key="pause_s")
        mode = data.get("mode", cls.mode)
        if mode not in ("plain", "fail"):
            raise InputError(f"{source}: 'mode' must be 'plain' or 'fail', not {mode!r}.",
                             key="mode")
        return cls(name=str(data.get("name", "")), steps=steps, pause_s=float(pause), mode=mode)


def count_job(config: CountdownConfig, progress, cancel) -> dict:
    """The fake engine: counts, reports progress and honours cancel."""
    if config.mode == "fail":
        raise InputError("The data has no column 'count'; add one and run again.", key="name")
    started = time.monotonic()
    for i in range(config.steps):
        cancel.check()
        time.sleep(config.pause_s)
        progress((i + 1) / config.steps, f"Counted {i + 1} of {config.steps}")
    return {"audit_type": "countdown", "name": config.name, "steps_counted": config.steps,
            "verdict": {"level": "low", "reasons": ["Nobody was counted twice."]},
            "summary": f"Counted {config.steps} steps. Nobody is exposed by counting.",
            "attacks": [], "warnings": ["Only a test audit."],
            "runtime_s": time.monotonic() - started}


class CountdownResults(ResultsView):
    """The shared results view plus one section of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.counted_label = QLabel()
        self.add_section("Steps counted", self.counted_label, update=self._show_counted)

    def _show_counted(self, result) -> None:
        # A section gets the result as engine.results.loaded typed it; a key of this audit
        # type's own (no typed part) is in ``extra``.
        counted = result.extra.get("steps_counted") if result is not None else None
        self.counted_label.setText(str(counted if counted is not None else "—"))


class CountdownPage(AuditPage):
    """Everything a new audit type has to write."""

    AUDIT_TYPE = "countdown"
    AUDIT_LABEL = "Countdown audit"
    CONFIG_CLASS = CountdownConfig
    FORM_STEPS = (FormStep("Data", "What is counted?", "Give the count a name.", "Next: 2 Run."),
                  FormStep("Run", "How long?", "How many steps, and how slowly."))
    FIELDS = {"steps": FieldSpec("Steps", STEP_RUN, "How many steps to count.", integer=True),
              "pause_s": FieldSpec("Pause per step (s)", STEP_RUN, "Seconds between steps.")}
    KEY_STEPS = {"name": STEP_DATA, "mode": STEP_DATA}

    def build_step(self, index: int, layout) -> None:
        form = QFormLayout()
        if index == STEP_DATA:
            self.name_edit = QLineEdit()
            form.addRow("Name:", self.name_edit)
        else:
            for key in self.FIELDS:
                self.add_field_row(form, key)
        layout.addLayout(form)

    def build_results_view(self) -> CountdownResults:
        return CountdownResults()

    def form_dict(self) -> dict:
        return {**self.loaded_config, "name": self.name_edit.text(), **self.field_values()}

    def fill_form(self, config: dict) -> None:
        self.name_edit.setText(str(config.get("name", "")))
        self.fill_fields(config)

    run_audit = staticmethod(count_job)


@pytest.fixture
def page(qtbot):
    runner = JobRunner()
    page = CountdownPage(runner)
    qtbot.addWidget(page)
    page.resize(900, 600)
    page.show()
    qtbot.waitExposed(page)
    yield page
    if runner.is_busy():
        runner.cancel()
        runner.wait(10_000)
        pytest.fail("the test left a job running")


def test_steps_and_empty_state_come_from_the_base(page):
    titles = [page.step_list.item(i).text() for i in range(page.step_list.count())]
    assert titles == ["1  Data", "2  Run", "3  Results", "4  Report"]
    assert page.steps.count() == 4
    assert (page.results_step, page.report_step) == (2, 3)
    assert page.fields["steps"].text() == "5"          # defaults from the config class
    assert page.fields["steps"].toolTip() == "How many steps to count."
    assert page.name_edit.text() == "Countdown"
    assert not page.export_button.isEnabled() and not page.export_button_results.isEnabled()
    assert "Run the audit first (step 2" in page.export_status.text()
    assert page.results_view.verdict_banner.level_label.text() == "No result yet"
    assert page.results_view.counted_label.text() == "—"


def test_run_shows_progress_eta_and_results(page, qtbot):
    page.fields["steps"].setText("30")
    page.fields["pause_s"].setText("0.03")
    etas, statuses = [], []

    def on_progress(update):
        etas.append(format_eta(update.eta_s))
        statuses.append(page.status_label.text())

    page.runner.progress_changed.connect(on_progress)
    page.run_button.click()
    assert page.is_running()
    assert not page.run_button.isEnabled() and page.cancel_button.isEnabled()
    assert not page.export_button.isEnabled()
    page.start_run()                                   # one job at a time: ignored
    assert page.runner.is_busy()
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=TIMEOUT_MS)

    assert any(etas), "no ETA was ever estimated"
    assert any("Counted" in s and " — " in s for s in statuses)   # message — ETA in the bar
    assert page.progress_bar.value() == 1000
    assert page.status_label.text().startswith("Done in")
    assert page.run_button.isEnabled() and not page.cancel_button.isEnabled()
    assert page.steps.currentIndex() == page.results_step
    view = page.results_view
    assert view.verdict_banner.level_label.text() == "LOW RISK"
    assert "Nobody is exposed" in view.verdict_banner.summary_label.text()
    assert view.counted_label.text() == "30"           # the audit's own section
    assert "Only a test audit." in view.warnings_label.text()
    assert page.export_button.isEnabled() and page.export_button_results.isEnabled()
    assert page.validated_config().steps == 30


def test_cancel_keeps_settings(page, qtbot):
    page.fields["steps"].setText("100000")
    page.run_button.click()
    qtbot.waitUntil(lambda: page.progress_bar.value() > 0, timeout=TIMEOUT_MS)
    page.cancel_button.click()
    assert not page.cancel_button.isEnabled()
    assert "Cancelling" in page.status_label.text()
    qtbot.waitUntil(lambda: not page.is_running(), timeout=TIMEOUT_MS)
    assert "cancelled" in page.status_label.text().lower()
    assert page.result() is None
    assert page.progress_bar.value() == 0
    assert page.run_button.isEnabled() and not page.cancel_button.isEnabled()
    assert page.fields["steps"].text() == "100000"


def test_bad_field_shows_inline_error_at_its_step_and_keeps_the_text(page, qtbot):
    page.step_list.setCurrentRow(STEP_DATA)
    page.fields["steps"].setText("many")
    page.run_button.click()
    assert not page.is_running() and not page.runner.is_busy()
    assert page.error_label.isVisible()
    assert page.error_label.text() == "Steps: must be a whole number, not 'many'."
    under = page.fields["steps"].error_label           # the sentence under the field itself
    assert under.isVisibleTo(page) and under.text() == "Must be a whole number, not 'many'."
    assert page.fields["steps"].text() == "many"        # nothing the user typed is lost
    assert page.steps.currentIndex() == STEP_RUN        # the step that holds the field
    assert "c62828" in page.fields["steps"].styleSheet()
    assert "correct the highlighted" in page.status_label.text()

    qtbot.keyClicks(page.fields["steps"], "x")           # typing clears the mark
    assert page.fields["steps"].styleSheet() == ""
    assert not under.isVisibleTo(page)
    page.fields["steps"].setText("3")
    page.run_button.click()
    assert not page.error_label.isVisible()
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=TIMEOUT_MS)


def test_error_for_a_key_without_field_goes_to_its_step_and_keeps_the_setting(page):
    page.set_config({"mode": "loud", "steps": 2})
    assert page.form_dict()["mode"] == "loud"            # a key the form does not show is kept
    page.step_list.setCurrentRow(STEP_RUN)
    page.run_button.click()
    assert not page.is_running()
    assert page.error_label.text() == "'mode' must be 'plain' or 'fail', not 'loud'."
    assert page.steps.currentIndex() == STEP_DATA
    assert page.config_for_saving()["mode"] == "loud"   # invalid: saved as typed


def test_input_error_from_the_engine_is_shown_as_a_sentence(page, qtbot):
    page.set_config({"mode": "fail"})
    page.run_button.click()
    qtbot.waitUntil(lambda: not page.is_running(), timeout=TIMEOUT_MS)
    assert page.error_label.isVisible()
    assert "no column 'count'" in page.error_label.text()
    assert page.status_label.text() == "The audit stopped with an error."
    boxes = [b for b in page.findChildren(QMessageBox) if b.objectName() == "jobErrorBox"]
    assert boxes and "no column 'count'" in boxes[-1].text()
    boxes[-1].close()


def test_project_state_round_trip(page):
    result = count_job(CountdownConfig(steps=2, pause_s=0.0), NO_PROGRESS, NEVER)
    log = [{"time": "2024-05-12T10:00:00+02:00", "text": "Approved."}]
    page.load_state({"name": "Saved", "steps": 2}, result, log)
    assert page.name_edit.text() == "Saved" and page.fields["steps"].text() == "2"
    assert page.result() == result
    assert page.steps.currentIndex() == page.results_step
    assert page.status_label.text() == "Project opened with its last result."
    assert page.progress_bar.value() == 1000
    assert page.results_view.notes_list.count() == 1
    assert page.export_button.isEnabled()

    logged = []
    page.decision_logged.connect(logged.append)
    page.results_view.note_edit.setPlainText("Checked again.")
    page.results_view.add_note_button.click()
    assert [e["text"] for e in page.decision_log()] == ["Approved.", "Checked again."]
    assert logged[0]["text"] == "Checked again."

    page.load_state(page.default_config(), None, [])
    assert page.result() is None and page.decision_log() == []
    assert page.steps.currentIndex() == STEP_DATA
    assert page.config_for_saving() == CountdownConfig().to_dict()


def test_run_bar_shows_message_and_eta(qtbot):
    bar = RunBar()
    qtbot.addWidget(bar)
    bar.show_progress(JobProgress(0.25, "Counting", 10.0, 30.0))
    assert bar.progress_bar.value() == 250
    assert bar.status_label.text() == "Counting — about 30 s left"
    bar.show_progress(JobProgress(0.01, "Starting", 0.1, None))
    assert bar.status_label.text() == "Starting"


def test_mechanism_page_is_a_registered_audit_page():
    from gui.pages.mechanism_page import MechanismPage
    from gui.pages.registry import page_class

    assert page_class("mechanism") is MechanismPage
    assert issubclass(MechanismPage, AuditPage)
    assert MechanismPage.sample_config()["name"].startswith("Sample")
