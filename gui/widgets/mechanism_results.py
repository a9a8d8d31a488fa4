"""The results of a mechanism audit, top to bottom in the order an officer reads them:
verdict, ROC against the DP region, metrics, composed privacy, what-if, warnings, notes.

The view only displays a result dict (result.json); it never computes, so a project reopened
months later shows exactly what was audited.
"""

from __future__ import annotations

import datetime as _dt

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

from gui.formatting import bracket_number, is_number, number
from gui.widgets.metrics_table import MetricsTable
from gui.widgets.roc_plot import RocPlot
from gui.widgets.sweep_plot import SweepPlot
from gui.widgets.verdict_banner import VerdictBanner


def composed_privacy_lines(theory: dict) -> list[str]:
    """Plain lines for the composed-privacy box (theory.composed), headline first."""
    composed = theory.get("composed") or {}
    k = theory.get("observations")
    delta = composed.get("delta", theory.get("delta"))
    delta_text = f"{delta:.0e}" if is_number(delta) else "—"
    lines = [f"<b>Total privacy loss over k = {k} observations: ε = "
             f"{number(theory.get('epsilon_total'))}</b> at δ = {delta_text} "
             f"(ε per observation {number(theory.get('epsilon_per_observation'))}, "
             f"{theory.get('noise_scale_name', 'noise scale')} {number(theory.get('noise_scale'))})."]
    pess, opt = composed.get("epsilon_pld_pessimistic"), composed.get("epsilon_pld_optimistic")
    if is_number(pess):
        bracket = f"between {bracket_number(opt, pess)} and {bracket_number(pess, opt)}" \
            if is_number(opt) else number(pess)
        lines.append(f"Privacy-loss-distribution accountant: ε {bracket} "
                     "(the true value lies in this bracket).")
    if is_number(composed.get("epsilon_gdp")):
        lines.append(f"Gaussian DP (exact for Gaussian noise): μ = {number(composed.get('gdp_mu'))}"
                     f", ε = {number(composed['epsilon_gdp'])}.")
    if is_number(composed.get("epsilon_kov_worst_case")):
        lines.append("Worst case for any mechanism with this ε per observation (optimal "
                     f"composition, Kairouz–Oh–Viswanath): ε = "
                     f"{number(composed['epsilon_kov_worst_case'])}.")
    if is_number(composed.get("epsilon_basic")):
        lines.append(f"Simple sum k × ε (loose upper bound): ε = {number(composed['epsilon_basic'])}.")
    return lines


class MechanismResultsView(QWidget):
    """Shows one result dict; emits ``note_added`` when the user logs a decision."""

    note_added = Signal(dict)          # {"time": iso, "text": str}

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._result: dict | None = None
        self.verdict_banner = VerdictBanner()
        self.roc_plot = RocPlot()
        self.metrics_table = MetricsTable()
        self.metrics_table.setMinimumHeight(130)
        self.sweep_plot = SweepPlot()
        self.composed_label = QLabel()
        self.composed_label.setWordWrap(True)
        self.composed_label.setTextFormat(Qt.TextFormat.RichText)
        self.composed_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warnings_label = QLabel()
        self.warnings_label.setWordWrap(True)
        self.warnings_label.setTextFormat(Qt.TextFormat.RichText)

        self.notes_list = QListWidget()
        self.notes_list.setMaximumHeight(80)
        self.note_edit = QPlainTextEdit()
        self.note_edit.setPlaceholderText("e.g. 'Release approved with ε = 0.5 per hour after "
                                          "discussion with the DPO, 12 May.'")
        self.note_edit.setMaximumHeight(70)
        self.note_edit.setToolTip("Write what was decided and why. Notes are saved in the "
                                  "project file with the date and time.")
        self.add_note_button = QPushButton("Add to decision log")
        self.add_note_button.clicked.connect(self._add_note)

        roc_box = _group("What attackers achieve against what DP permits", self.roc_plot)
        metrics_box = _group("Attack metrics (95 % confidence intervals)", self.metrics_table)
        composed_box = _group("Composed privacy", self.composed_label)
        sweep_box = _group("What if? The optimal attacker as the setting changes", self.sweep_plot)
        warnings_box = _group("Warnings", self.warnings_label)
        self.warnings_box = warnings_box
        notes = QWidget()
        notes_layout = QVBoxLayout(notes)
        notes_layout.setContentsMargins(0, 0, 0, 0)
        notes_layout.addWidget(self.notes_list)
        row = QHBoxLayout()
        row.addWidget(self.note_edit, 1)
        row.addWidget(self.add_note_button, 0, Qt.AlignmentFlag.AlignBottom)
        notes_layout.addLayout(row)
        notes_box = _group("Decision / notes", notes)

        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict_banner)
        layout.addWidget(roc_box, 3)
        layout.addWidget(metrics_box)
        layout.addWidget(composed_box)
        layout.addWidget(sweep_box, 2)
        layout.addWidget(warnings_box)
        layout.addWidget(notes_box)
        self.set_result(None)

    def result(self) -> dict | None:
        return self._result

    def set_result(self, result: dict | None) -> None:
        self._result = result
        result = result or {}
        self.verdict_banner.set_verdict(result.get("verdict"), result.get("summary", ""))
        self.roc_plot.set_result(result or None)
        self.metrics_table.set_result(result or None)
        self.sweep_plot.set_result(result or None)
        theory = result.get("theory")
        self.composed_label.setText("<br>".join(composed_privacy_lines(theory)) if theory
                                    else "—")
        warnings = result.get("warnings") or []
        self.warnings_label.setText("<ul>" + "".join(f"<li>{_escape(w)}</li>" for w in warnings)
                                    + "</ul>" if warnings else "No warnings.")

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


def _note_text(entry: dict) -> str:
    return f"{str(entry.get('time', ''))[:16].replace('T', ' ')} — {entry.get('text', '')}"


def _group(title: str, widget: QWidget) -> QGroupBox:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    layout.addWidget(widget)
    return box


def _escape(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
