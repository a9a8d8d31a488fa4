"""The run bar at the bottom of every audit page: Run, Cancel, progress with ETA, status, the
run's estimated time and memory, and the inline error sentence above them.

It is only a view: the page decides what Run and Cancel do and when they are enabled. Keeping
the error sentence here, next to the Run button, means the user reads why nothing started
exactly where they pressed.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from engine.estimates.remaining import TimeLeft
from gui.job_runner import JobProgress, format_eta

ESTIMATE_TIP = ("Estimated from the sizes of the run (people, aggregates, targets, records × "
                "epochs × models) and the time each step takes: a GPU takes less. The peak "
                "memory is what the run adds to the app.")
PROGRESS_STEPS = 1000   # the bar counts in tenths of a percent
RUNNING_CAP = 0.995     # the most the bar shows while a job still runs (show_progress)


class RunBar(QFrame):
    """Run audit / Cancel / progress bar / status label, with an inline error line above."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runBar")
        self.setStyleSheet("#runBar { border-top: 1px solid #ccc; }")
        self.error_label = QLabel("")
        self.error_label.setObjectName("inlineError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c62828; font-weight: bold;")
        self.error_label.setVisible(False)
        self.run_button = QPushButton("Run audit")
        self.run_button.setMinimumHeight(34)
        self.run_button.setMinimumWidth(130)
        self.run_button.setDefault(True)
        self.run_button.setToolTip("Check the settings and run the audit.")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setMinimumHeight(34)
        self.cancel_button.setToolTip("Stop the audit; your settings are kept.")
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, PROGRESS_STEPS)
        self.progress_bar.setTextVisible(True)
        self.progress_bar.setFormat("%p %")
        self.estimate_label = QLabel("")
        self.estimate_label.setObjectName("runEstimate")
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setStyleSheet("color: #555;")
        self.estimate_label.setToolTip(ESTIMATE_TIP)
        self.status_label = QLabel("Ready.")
        self.status_label.setSizePolicy(QSizePolicy.Policy.Expanding,
                                        QSizePolicy.Policy.Preferred)
        row = QHBoxLayout()
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress_bar, 1)
        row.addWidget(self.status_label, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.error_label)
        layout.addWidget(self.estimate_label)
        layout.addLayout(row)

    def set_fraction(self, fraction: float) -> None:
        """Show ``fraction`` (0…1) of the work as done."""
        self.progress_bar.setValue(int(round(PROGRESS_STEPS * fraction)))

    def show_progress(self, update: JobProgress) -> None:
        """The bar and "step — about 40 s left", the time left re-estimated from the measured
        progress of each step and the estimate made before the run
        (engine.estimates.remaining); "re-estimating" when that figure has just gone up, and
        no time left while it would be a wild guess.

        The label always names a step: an update without a message keeps the last one. An
        engine job says 100 % "Done" a moment before it has ended (its result still has to
        reach the window, and Cancel is still enabled): while it runs the bar stops short of
        the end and reads "Finishing"; the page shows 100 % and "Done" once the job has ended
        (issue 21)."""
        message = " ".join((update.message or "").split())
        finishing = update.fraction >= 1.0 or message.lower().rstrip(".") == "done"
        if finishing:
            message = "Finishing"
        timer = getattr(self, "_time_left", None) or TimeLeft(None)
        self._time_left = timer
        left = timer.update(update.elapsed_s, update.fraction, message)
        step = left.step or "Working"
        self.set_fraction(min(update.fraction, RUNNING_CAP))
        eta = "" if finishing else format_eta(left.seconds)
        if eta and left.re_estimating and left.seconds is not None and left.seconds >= 1.5:
            eta = "re-estimating, " + eta
        self.status_label.setText(f"{step} — {eta}" if eta else step)

    def start(self, estimated_seconds: float | None = None) -> None:
        """A new run: no step named yet; ``estimated_seconds``, the estimate made before it
        (what the machine's load makes of it), is what the time left starts from."""
        self._time_left = TimeLeft(estimated_seconds)

    def show_estimate(self, text: str, warn: bool = False) -> None:
        """The run's estimated time and memory (orange when it would ask before starting),
        with which times the estimate uses — measured on this machine, or built-in — on hover,
        and in the text when a file of measured times had to be ignored
        (engine.estimates.machine)."""
        from engine.estimates.machine import in_use, load
        _, problem = load()
        if text and problem:
            text = f"{text} {problem}"
        self.estimate_label.setText(text)
        self.estimate_label.setToolTip(f"{ESTIMATE_TIP} {in_use()}")
        self.estimate_label.setStyleSheet("color: #b26a00;" if warn else "color: #555;")

    def set_status(self, text: str) -> None:
        self.status_label.setText(text)

    def show_error(self, sentence: str) -> None:
        self.error_label.setText(sentence)
        self.error_label.setVisible(True)

    def clear_error(self) -> None:
        self.error_label.setText("")
        self.error_label.setVisible(False)
