"""The two last steps of every audit: Results (verdict first, export at hand) and Report.

Both offer the same "Export PDF report…" action, so an officer who has read the verdict never
has to look for it; the page enables both buttons together and does the export.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gui.widgets.steps import step_title

EXPORT_TEXT = "Export PDF report…"
RESULTS_TITLE = ("Results", "Read the verdict first; the plots and tables show the evidence "
                 "behind it.")
REPORT_TITLE = ("Report for your DPIA",
                "A PDF with the verdict, the two-sentence summary, the plots, the metrics with "
                "their confidence intervals and the settings used, ready to attach to a "
                "data-protection impact assessment.")


class ResultsStep(QWidget):
    """Title and export button above an audit's results view."""

    def __init__(self, results_view: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.export_button = QPushButton(EXPORT_TEXT)
        head = QHBoxLayout()
        head.addWidget(step_title(*RESULTS_TITLE), 1)
        head.addWidget(self.export_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(results_view)


class ReportStep(QWidget):
    """What the report contains, the export button and a line saying where it was written."""

    def __init__(self, title: str = REPORT_TITLE[0], sentence: str = REPORT_TITLE[1],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.export_button = QPushButton(EXPORT_TEXT)
        self.export_button.setMinimumHeight(36)
        self.status_label = QLabel("")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        row.addWidget(self.export_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(step_title(title, sentence))
        layout.addLayout(row)
        layout.addWidget(self.status_label)
        layout.addStretch(1)
