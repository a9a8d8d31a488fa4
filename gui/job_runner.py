"""The one place in the GUI that touches threads (ARCHITECTURE §3, §9).

A job is any callable ``fn(progress, cancel) -> result`` that follows the engine's job contract.
:class:`JobRunner` runs it on a ``QThreadPool`` worker and reports back to the main thread with
Qt signals (queued across threads), so widgets are only ever touched by the main thread.

Why the details below matter:

* The request is an immutable snapshot taken on the main thread (:class:`JobRequest`); the worker
  never reads a widget, so the user may keep editing the form while the job runs.
* Progress is throttled in the worker (at most ~20 signals a second): an engine that reports
  per batch from a tight loop would otherwise flood the event loop and freeze the window.
* Every job gets an id. A result, error or progress signal from a job that has since been
  replaced or cancelled is dropped, so a slow old job can never overwrite a newer result.
* ``JobCancelled`` is not an error: it becomes the ``cancelled`` callback. ``InputError`` becomes
  its own plain sentence; anything else carries the traceback for a "Details" button.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from engine.data.errors import (
    InputError,
    internal_error_text,
    internal_traceback,
    missing_package_text,
)
from engine.runtime import CancelToken, JobCancelled, Progress

PROGRESS_INTERVAL_S = 0.05  # at most ~20 progress signals a second
ETA_MIN_FRACTION = 0.02     # below this an ETA is a wild guess: show none
ETA_MIN_ELAPSED_S = 0.5

JobFunction = Callable[[Progress, CancelToken], object]


@dataclass(frozen=True)
class JobError:
    """What went wrong in a job, ready for a message box."""

    message: str              # one sentence for the user
    details: str = ""         # traceback text for the "Details" button ("" for input errors)
    is_input_error: bool = False
    key: str = ""             # the config key an input error names ("" when none)


@dataclass(frozen=True)
class JobProgress:
    """One (throttled) progress update as the main thread sees it."""

    fraction: float
    message: str
    elapsed_s: float
    eta_s: float | None       # None while too early to estimate


@dataclass(frozen=True)
class JobRequest:
    """Immutable snapshot of one job: what to run and whom to tell, fixed when submitted."""

    job_id: int
    fn: JobFunction
    label: str
    on_done: Callable[[object], None] | None = None
    on_error: Callable[[JobError], None] | None = None
    on_progress: Callable[[JobProgress], None] | None = None
    on_cancelled: Callable[[], None] | None = None
    cancel: CancelToken = field(default_factory=CancelToken)


def estimate_eta(fraction: float, elapsed_s: float) -> float | None:
    """Seconds left, assuming the rest goes as fast as what is done; None when too early."""
    if fraction < ETA_MIN_FRACTION or elapsed_s < ETA_MIN_ELAPSED_S or fraction >= 1.0:
        return None
    return elapsed_s * (1.0 - fraction) / fraction


def format_eta(eta_s: float | None) -> str:
    """'about 40 s left', 'about 3 min left' or '' (no estimate yet)."""
    if eta_s is None:
        return ""
    if eta_s < 1.5:
        return "almost done"
    if eta_s < 90:
        return f"about {eta_s:.0f} s left"
    return f"about {eta_s / 60:.0f} min left"


def describe_exception(exc: BaseException) -> JobError:
    """Turn an exception from a job into what the user sees."""
    if isinstance(exc, InputError):
        return JobError(message=exc.one_line(), details="", is_input_error=True,
                        key=exc.key or "")
    missing = missing_package_text(exc)
    if missing:
        return JobError(message=missing, details=internal_traceback(exc))
    # Neither the sentence nor the details quote the values an exception's message may carry
    # (a cell, an id): the details are meant to be sent to support (engine.data.errors).
    message = (f"The audit stopped because of an internal error ({internal_error_text(exc)}). "
               "Your settings are unchanged; please send the details to your support contact.")
    return JobError(message=message, details=internal_traceback(exc))


class _JobSignals(QObject):
    """Lives on the main thread; emitted from the worker, so every connection is queued."""

    progress = Signal(int, float, str, float)   # job id, fraction, message, elapsed seconds
    done = Signal(int, object)                  # job id, result
    failed = Signal(int, object)                # job id, JobError
    cancelled = Signal(int)                     # job id
    finished = Signal(int)                      # job id, always last


class _JobRunnable(QRunnable):
    """Runs one request on a pool thread. Never touches a widget."""

    def __init__(self, request: JobRequest, signals: _JobSignals) -> None:
        super().__init__()
        self.request = request
        self.signals = signals
        self._last_emit = 0.0
        self._lock = threading.Lock()
        self.setAutoDelete(True)

    def _report(self, fraction: float, message: str) -> None:
        """Progress callback handed to the engine: throttled, emits only from this thread."""
        now = time.monotonic()
        with self._lock:
            if fraction < 1.0 and now - self._last_emit < PROGRESS_INTERVAL_S:
                return
            self._last_emit = now
        self.signals.progress.emit(self.request.job_id, float(fraction), str(message),
                                   now - self._started)

    def run(self) -> None:  # noqa: D401 - Qt API
        job_id = self.request.job_id
        self._started = time.monotonic()
        try:
            result = self.request.fn(Progress(self._report), self.request.cancel)
        except JobCancelled:
            self.signals.cancelled.emit(job_id)
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the user
            self.signals.failed.emit(job_id, describe_exception(exc))
        else:
            if self.request.cancel.cancelled:
                self.signals.cancelled.emit(job_id)
            else:
                self.signals.done.emit(job_id, result)
        finally:
            self.signals.finished.emit(job_id)


class JobRunner(QObject):
    """Runs one job at a time on a thread pool; everything it reports arrives on the main thread.

    Page-level signals (``busy_changed``, ``progress_changed``) let a window show one progress
    bar for whatever runs; the per-job callbacks given to :meth:`submit` receive the outcome.
    """

    busy_changed = Signal(bool)
    progress_changed = Signal(object)   # JobProgress

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self._pool = pool if pool is not None else QThreadPool.globalInstance()
        self._ids = itertools.count(1)
        self._current: JobRequest | None = None
        # Signal objects of jobs still on a worker thread; kept alive until their 'finished'.
        self._in_flight: dict[int, _JobSignals] = {}

    # ---------------------------------------------------------------- public API

    @property
    def pool(self) -> QThreadPool:
        return self._pool

    def submit(self, fn: JobFunction, on_done: Callable[[object], None] | None = None,
               on_error: Callable[[JobError], None] | None = None,
               on_progress: Callable[[JobProgress], None] | None = None, *,
               on_cancelled: Callable[[], None] | None = None, label: str = "") -> int:
        """Start ``fn(progress, cancel)`` on a worker; a job still running is cancelled and its
        late results are dropped. Returns the job id."""
        if self._current is not None:
            self._current.cancel.cancel()
        request = JobRequest(job_id=next(self._ids), fn=fn, label=label, on_done=on_done,
                             on_error=on_error, on_progress=on_progress,
                             on_cancelled=on_cancelled)
        signals = _JobSignals()  # created here, so it lives on the main thread
        signals.progress.connect(self._on_progress)
        signals.done.connect(self._on_done)
        signals.failed.connect(self._on_failed)
        signals.cancelled.connect(self._on_cancelled)
        signals.finished.connect(self._on_finished)
        self._in_flight[request.job_id] = signals
        was_busy = self.is_busy()
        self._current = request
        self._pool.start(_JobRunnable(request, signals))
        if not was_busy:
            self.busy_changed.emit(True)
        return request.job_id

    def cancel(self) -> None:
        """Ask the current job to stop at its next checkpoint; its outcome becomes 'cancelled'."""
        if self._current is not None:
            self._current.cancel.cancel()

    def is_busy(self) -> bool:
        """True while the current job has not reported its outcome."""
        return self._current is not None

    def current_label(self) -> str:
        return self._current.label if self._current is not None else ""

    def wait(self, timeout_ms: int = -1) -> bool:
        """Block until every worker job has returned (used when quitting). True if all done."""
        return self._pool.waitForDone(timeout_ms)

    # ---------------------------------------------------------------- main-thread slots

    def _request(self, job_id: int) -> JobRequest | None:
        """The current request if ``job_id`` is it; None for stale jobs (their news is dropped)."""
        current = self._current
        return current if current is not None and current.job_id == job_id else None

    @Slot(int, float, str, float)
    def _on_progress(self, job_id: int, fraction: float, message: str, elapsed: float) -> None:
        request = self._request(job_id)
        if request is None or request.cancel.cancelled:
            return
        update = JobProgress(fraction, message, elapsed, estimate_eta(fraction, elapsed))
        self.progress_changed.emit(update)
        if request.on_progress is not None:
            request.on_progress(update)

    def _finish(self, job_id: int) -> JobRequest | None:
        request = self._request(job_id)
        if request is not None:
            self._current = None
            self.busy_changed.emit(False)
        return request

    @Slot(int, object)
    def _on_done(self, job_id: int, result: object) -> None:
        request = self._finish(job_id)
        if request is not None and request.on_done is not None:
            request.on_done(result)

    @Slot(int, object)
    def _on_failed(self, job_id: int, error: JobError) -> None:
        request = self._finish(job_id)
        if request is not None and request.on_error is not None:
            request.on_error(error)

    @Slot(int)
    def _on_cancelled(self, job_id: int) -> None:
        request = self._finish(job_id)
        if request is not None and request.on_cancelled is not None:
            request.on_cancelled()

    @Slot(int)
    def _on_finished(self, job_id: int) -> None:
        signals = self._in_flight.pop(job_id, None)
        if signals is not None:
            signals.deleteLater()
