"""The results of any audit, top to bottom in the order an officer reads them: verdict, ROC,
attack metrics, the audit's own sections, warnings, decision log.

Every audit result (result.json) carries a verdict, ROC curves, attack metrics and warnings, so
those parts live here once; an audit adds what only it has with :meth:`ResultsView.add_section`
(e.g. composed privacy and the what-if plot of the mechanism audit). The view only displays a
result, it never computes, so a project reopened months later shows exactly what was audited.
The result is read once, by engine.results.loaded.load_result, and every part of the view —
the audit's own sections too — is given the loaded result (issue 33 item 1).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.next_steps import next_steps
from engine.results.loaded import LoadedResult, load_result
from gui.widgets.article29_panel import Article29Panel
from gui.widgets.metrics_table import MetricsTable
from gui.widgets.roc_plot import RocPlot
from gui.widgets.signoff_panel import SignoffPanel
from gui.widgets.verdict_banner import VerdictBanner

SectionUpdate = Callable[[LoadedResult | None], None]


class ResultsView(QWidget):
    """Shows one result dict; emits ``note_added`` when the user logs a decision.

    Subclasses call :meth:`add_section` in their ``__init__`` (after ``super().__init__()``)
    for the boxes only their audit has; each section's ``update`` receives every new result.
    """

    note_added = Signal(dict)          # {"time": iso, "text": str}

    ROC_TITLE = "What attackers achieve against what DP permits"
    METRICS_TITLE = "Attack metrics (95 % confidence intervals)"
    NOTE_PLACEHOLDER = ("e.g. 'Release approved with ε = 0.5 per hour after discussion with the "
                        "DPO, 12 May.'")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._result: dict | None = None
        self._loaded: LoadedResult | None = None
        self._section_updates: list[SectionUpdate] = []
        self.verdict_banner = VerdictBanner()
        # What to do next (issue 20): the release-side changes that lower the risk, each with
        # what the audit measured of its effect — read from the result, as the report does.
        self.next_steps_label = rich_label()
        self.next_steps_box = group_box("What to do next", self.next_steps_label)
        self.roc_plot = RocPlot()
        self.metrics_table = MetricsTable()
        self.metrics_table.setMinimumHeight(130)
        self.warnings_label = QLabel()
        self.warnings_label.setWordWrap(True)
        self.warnings_label.setTextFormat(Qt.TextFormat.RichText)

        self.notes_list = QListWidget()
        self.notes_list.setMaximumHeight(80)
        self.note_edit = QPlainTextEdit()
        self.note_edit.setPlaceholderText(self.NOTE_PLACEHOLDER)
        self.note_edit.setMaximumHeight(70)
        self.note_edit.setToolTip("Write what was decided and why. Notes are saved in the "
                                  "project file with the date and time.")
        self.add_note_button = QPushButton("Add to decision log")
        self.add_note_button.clicked.connect(self._add_note)
        notes = QWidget()
        notes_layout = QVBoxLayout(notes)
        notes_layout.setContentsMargins(0, 0, 0, 0)
        notes_layout.addWidget(self.notes_list)
        row = QHBoxLayout()
        row.addWidget(self.note_edit, 1)
        row.addWidget(self.add_note_button, 0, Qt.AlignmentFlag.AlignBottom)
        notes_layout.addLayout(row)

        self.warnings_box = group_box("Warnings", self.warnings_label)
        # Whether the result is signed, or why not (issue 34 item 3): the line above the
        # verdict; the Decision box at the end holds the form (gui.widgets.signoff_panel).
        self.signoff_line = rich_label()
        self.signoff_line.setVisible(False)
        self.signoff_panel = SignoffPanel()
        # The three Article 29 risks and the DPIA list (issue 34 item 4), after the verdict; a
        # decision signed here reaches its decision line at once.
        self.article29_panel = Article29Panel()
        self.signoff_panel.signed.connect(self.article29_panel.set_signoff)
        self._layout = QVBoxLayout(self)
        self._layout.addWidget(self.signoff_line)
        self._layout.addWidget(self.verdict_banner)
        self._layout.addWidget(self.next_steps_box)
        self.article29_box = group_box("Article 29 risks and your impact assessment",
                                       self.article29_panel)
        self._layout.addWidget(self.article29_box)
        self._layout.addWidget(group_box(self.ROC_TITLE, self.roc_plot), 3)
        # Under the table, a plain sentence for each surprising reading, once (issue 20).
        self.table_notes = rich_label()
        metrics = QWidget()
        metrics_layout = QVBoxLayout(metrics)
        metrics_layout.setContentsMargins(0, 0, 0, 0)
        metrics_layout.addWidget(self.metrics_table)
        metrics_layout.addWidget(self.table_notes)
        self._layout.addWidget(group_box(self.METRICS_TITLE, metrics))
        self._layout.addWidget(self.warnings_box)
        self._layout.addWidget(group_box("Decision / notes", notes))
        self._layout.addWidget(group_box("Decision and sign-off", self.signoff_panel))
        self.set_result(None)

    def add_section(self, title: str, widget: QWidget, stretch: int = 0,
                    update: SectionUpdate | None = None) -> QGroupBox:
        """Add a titled box after the metrics (and after earlier sections), before the warnings.

        ``update(result or None)`` is called now with the current result and for every later one:
        the loaded result (engine.results.loaded.LoadedResult), read once by :meth:`set_result`.
        """
        box = group_box(title, widget)
        self._layout.insertWidget(self._layout.indexOf(self.warnings_box), box, stretch)
        if update is not None:
            self._section_updates.append(update)
            update(self._loaded)
        return box

    def result(self) -> dict | None:
        return self._result

    def loaded(self) -> LoadedResult | None:
        """The shown result as read once by engine.results.loaded (None: no result)."""
        return self._loaded

    def set_result(self, result) -> None:
        """Show ``result`` (result.json as a dict, or a loaded result; None: no result yet).
        It is read once here (engine.results.loaded.load_result, issue 33 item 1) and the
        loaded result is what every part of the view reads."""
        self._result = result
        loaded = load_result(result) if result else None
        self._loaded = loaded
        if loaded is None:
            self.verdict_banner.set_verdict(None, "", None)
        else:
            self.verdict_banner.set_verdict(loaded.verdict, loaded.summary, loaded.audit_type,
                                            unreadable=loaded.verdict_problem is not None)
        # engine.next_steps sits below the loader and reads the result as written.
        steps = next_steps(dict(loaded.raw)) if loaded is not None else []
        self.next_steps_label.setText("<ul>" + "".join(
            f"<li><b>{escape(step.action)}.</b> {escape(step.effect)}</li>" for step in steps)
            + "</ul>")
        self.next_steps_box.setVisible(bool(steps))
        self.article29_panel.set_result(loaded)
        self.article29_box.setVisible(loaded is not None)
        self.roc_plot.set_result(loaded)
        self.metrics_table.set_result(loaded)
        notes = self.metrics_table.notes(loaded)
        self.table_notes.setText("<br>".join(escape(n) for n in notes))
        self.table_notes.setVisible(bool(notes))
        for update in self._section_updates:
            update(loaded)
        warnings = loaded.warnings if loaded is not None else ()
        self.warnings_label.setText("<ul>" + "".join(f"<li>{escape(w)}</li>" for w in warnings)
                                    + "</ul>" if warnings else "No warnings.")

    def set_signoff_line(self, text: str, warn: bool = False) -> None:
        """The line above the verdict: signed by whom, unsigned and why, or (``warn``, in red)
        a signed result that no longer matches; an empty text hides it."""
        colour = "#c62828" if warn else "#444"
        self.signoff_line.setText(f"<b style='color:{colour}'>{escape(text)}</b>" if text else "")
        self.signoff_line.setVisible(bool(text))

    def set_decision_log(self, entries: list[dict]) -> None:
        self.notes_list.clear()
        for entry in entries:
            self.notes_list.addItem(_note_text(entry))

    def _add_note(self) -> None:
        text = self.note_edit.toPlainText().strip()
        if not text:
            return
        entry = {"time": _dt.datetime.now().astimezone().replace(microsecond=0).isoformat(),
                 "text": text}
        self.notes_list.addItem(_note_text(entry))
        self.note_edit.clear()
        self.note_added.emit(entry)


def rich_label() -> QLabel:
    """A word-wrapped, selectable rich-text label for a results box."""
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def group_box(title: str, widget: QWidget) -> QGroupBox:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    layout.addWidget(widget)
    return box


def escape(text: str) -> str:
    """Plain text made safe for a rich-text label."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _note_text(entry: dict) -> str:
    return f"{str(entry.get('time', ''))[:16].replace('T', ' ')} — {entry.get('text', '')}"
