"""Cancel stops every audit type at demo size, wherever the job is, and leaves nothing behind
(issue 11).

Each bundled demo runs on a worker thread; Cancel is pressed when its progress passes a share
of the work (``tests/cancel_scenarios.py``: so the stop lands inside the long loops — the
mechanism game's trials, the location attacks, DeSIA's solver calls, the model's stacked
training and, for the model, the defences' training), and the job must raise JobCancelled and
leave no thread, no child process and no file in the session's temporary folder.

How fast it stops (the 2 s goal of issue 11; 0.01–0.84 s was measured on 2 busy cores) is a
speed figure, reported for these same scenarios by ``bench/bench_cancel.py``; a pass/fail time
limit here failed on a loaded machine (issue 18). The only clock is a hang guard
(``STOP_TIMEOUT_S``), so that a job that ignores Cancel fails instead of hanging CI."""

from __future__ import annotations

import tempfile
import threading

import pytest

from tests.cancel_scenarios import (
    DEMO_CASES,
    STOP_TIMEOUT_S,
    audit_job,
    child_processes,
    demo_case,
    leftovers,
    run_and_cancel,
)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", list(DEMO_CASES))
def test_cancel_stops_and_leaves_nothing(name, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    config, in_loop, delay = demo_case(name)
    before_threads = set(threading.enumerate())
    before_children = child_processes()
    run = run_and_cancel(audit_job(config), in_loop, delay, name)
    assert run["how"] == "cancelled", (
        f"{name}: {run['how']} (hang guard: {STOP_TIMEOUT_S} s after Cancel)")
    left = leftovers(before_threads, before_children, run["burner_pids"], tmp_path)
    assert not left, f"{name}: {'; '.join(left)}"
