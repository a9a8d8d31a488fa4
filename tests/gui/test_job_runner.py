"""JobRunner: results on the main thread, throttled progress, cancel, stale results dropped."""

from __future__ import annotations

import threading
import time

import pytest

from engine.data.errors import InputError
from gui.job_runner import JobRunner, estimate_eta, format_eta

# How long a wait may take before the test fails: a hang guard, not a speed limit (issue 18:
# on a loaded machine the event loop can be seconds late; the wait ends as soon as it holds).
HANG_GUARD_MS = 60_000


@pytest.fixture
def runner(qtbot):
    job_runner = JobRunner()
    yield job_runner
    job_runner.cancel()
    job_runner.wait(10_000)


def test_result_arrives_on_main_thread(qtbot, runner):
    seen = {}

    def job(progress, cancel):
        seen["worker"] = threading.current_thread()
        progress(0.5, "half")
        return 42

    def done(value):
        seen["value"] = value
        seen["callback"] = threading.current_thread()

    runner.submit(job, done)
    assert runner.is_busy()
    qtbot.waitUntil(lambda: "value" in seen, timeout=HANG_GUARD_MS)
    assert seen["value"] == 42
    assert seen["callback"] is threading.main_thread()
    assert seen["worker"] is not threading.main_thread()
    assert not runner.is_busy()


def test_progress_is_throttled(qtbot, runner):
    updates, done = [], []

    def chatty_job(progress, cancel):
        # At least 0.5 s and 10,000 reports: a fixed count, so that a loaded machine (the job
        # gets less of a core) cannot make it report less often than the test needs.
        start = time.monotonic()
        i = 0
        while time.monotonic() < start + 0.5 or i < 10_000:
            i += 1
            progress(min(i / 1e6, 0.99), f"step {i}")
        progress(1.0, "done")
        return i, time.monotonic() - start

    runner.submit(chatty_job, done.append, on_progress=updates.append)
    qtbot.waitUntil(lambda: bool(done), timeout=HANG_GUARD_MS)
    reports, seconds = done[0]          # ≥ 10,000 reports from the job, but the window ...
    assert 2 <= len(updates) <= seconds * 20 + 3           # ... heard about 20 a second
    assert updates[-1].fraction == 1.0


def test_cancel_gives_cancelled_not_error(qtbot, runner):
    outcome = []

    def slow_job(progress, cancel):
        while True:
            cancel.check()
            time.sleep(0.01)

    runner.submit(slow_job, lambda r: outcome.append("done"), lambda e: outcome.append("error"),
                  on_cancelled=lambda: outcome.append("cancelled"))
    runner.cancel()
    qtbot.waitUntil(lambda: bool(outcome), timeout=HANG_GUARD_MS)
    assert outcome == ["cancelled"]
    assert not runner.is_busy()


def test_replaced_job_result_is_dropped(qtbot, runner):
    results = []
    release = threading.Event()

    def first(progress, cancel):
        release.wait(5)
        return "first"          # ignores its cancel token on purpose: a late result

    runner.submit(first, results.append)
    runner.submit(lambda p, c: "second", results.append)
    qtbot.waitUntil(lambda: results == ["second"], timeout=HANG_GUARD_MS)
    release.set()
    assert runner.wait(HANG_GUARD_MS)
    qtbot.wait(50)              # let the first job's queued signals arrive (and be dropped)
    assert results == ["second"]


def test_input_error_is_a_sentence_other_errors_have_details(qtbot, runner):
    errors = []

    def bad_input(progress, cancel):
        raise InputError("data.csv: column 'age' has 12 non-numeric values.")

    runner.submit(bad_input, on_error=errors.append)
    qtbot.waitUntil(lambda: len(errors) == 1, timeout=HANG_GUARD_MS)
    assert errors[0].is_input_error
    assert errors[0].message == "data.csv: column 'age' has 12 non-numeric values."
    assert errors[0].details == ""

    def crash(progress, cancel):
        return 1 / 0

    runner.submit(crash, on_error=errors.append)
    qtbot.waitUntil(lambda: len(errors) == 2, timeout=HANG_GUARD_MS)
    assert not errors[1].is_input_error
    assert "ZeroDivisionError" in errors[1].message
    assert "Traceback" in errors[1].details and "crash" in errors[1].details


def test_error_dialog_shows_no_record_of_the_data(qtbot, runner, tmp_path):
    """A bad file's sentence and a crash whose message quotes a record reach the dialog (and
    its Details) without the planted values (issue 11; tests/engine/test_sentinel_scan.py)."""
    from engine.data.traces import load_traces_csv
    from gui.error_dialog import show_job_error

    planted = "zqxidJane Doe, 3 Elm Street"
    path = tmp_path / "traces.csv"
    path.write_text(f"user_id,site,epoch\nzqxida,s1,0\nzqxidb,s2,\"{planted}\"\n")
    errors = []

    def bad_file(progress, cancel):
        load_traces_csv(path)

    def crash(progress, cancel):
        raise ValueError(f"could not convert string to float: '{planted}'")

    for n, job in enumerate((bad_file, crash), start=1):
        runner.submit(job, on_error=errors.append)
        qtbot.waitUntil(lambda n=n: len(errors) == n, timeout=HANG_GUARD_MS)
    assert errors[0].is_input_error and "row 3, column 'epoch'" in errors[0].message
    assert "could not convert string to float: '…'" in errors[1].message
    assert "in crash" in errors[1].details
    for error in errors:
        box = show_job_error(None, "The audit stopped", error)
        shown = box.text() + box.detailedText()
        box.close()
        assert "zqxid" not in shown, shown


def test_eta_estimate():
    assert estimate_eta(0.001, 10.0) is None       # too early
    assert estimate_eta(0.5, 10.0) == pytest.approx(10.0)
    assert format_eta(None) == ""
    assert "s left" in format_eta(40)
    assert "min left" in format_eta(600)
