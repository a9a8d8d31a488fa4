"""The run bar's label always names the step, and it shows 100 % "Done" only once the job has
ended (issue 21: "— about 4 s left" without a step; "100 % Done" while Cancel was enabled)."""

from __future__ import annotations

from gui.job_runner import JobProgress
from gui.widgets.run_bar import PROGRESS_STEPS, RunBar


def test_an_update_without_a_message_keeps_the_step(qtbot):
    bar = RunBar()
    qtbot.addWidget(bar)
    bar.start()
    bar.show_progress(JobProgress(0.3, "Training the reference models", 5.0, 40.0))
    bar.show_progress(JobProgress(0.4, "", 6.0, 4.0))
    # the time left is the run's own (engine.estimates.remaining), not the update's eta_s
    assert bar.status_label.text().startswith("Training the reference models — about ")
    bar.start()
    bar.show_progress(JobProgress(0.05, "", 0.1, None))
    assert bar.status_label.text() == "Working"


def test_done_from_the_job_is_not_the_end_of_the_run(qtbot):
    bar = RunBar()
    qtbot.addWidget(bar)
    bar.start()
    bar.show_progress(JobProgress(1.0, "Done", 9.0, None))
    assert bar.progress_bar.value() < PROGRESS_STEPS
    assert bar.status_label.text() == "Finishing"
    bar.set_fraction(1.0)                     # what the page does once the job has ended
    assert bar.progress_bar.value() == PROGRESS_STEPS


def test_the_time_left_starts_from_the_estimate_and_says_when_it_rises(qtbot):
    """Issue 21: "about 4 s left" then 11 s without a word. The bar starts from the estimate
    made before the run and says "re-estimating" when the figure goes up."""
    bar = RunBar()
    qtbot.addWidget(bar)
    bar.start(60.0)
    bar.show_progress(JobProgress(0.0, "Loading the traces", 0.0, None))
    assert bar.status_label.text() == "Loading the traces — about 60 s left"
    # a step that counts its work and runs three times slower than the whole job's estimate
    for t in range(0, 31):
        bar.show_progress(JobProgress(0.1 + 0.3 * t / 90, f"Sampling: {t} of 90", 10.0 + t,
                                      None))
        if "re-estimating" in bar.status_label.text():
            break
    assert bar.status_label.text().startswith("Sampling: ")
    assert "re-estimating, about " in bar.status_label.text()
