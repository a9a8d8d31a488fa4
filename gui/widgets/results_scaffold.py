"""The two last steps of every audit: Results (verdict first, export at hand) and Report.

Both offer the same "Export PDF report…" action, so an officer who has read the verdict never
has to look for it; the page enables both buttons together and does the export.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QToolTip, QVBoxLayout, QWidget

from engine.wording import GLOSSARY, glossary_for
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


class GlossaryStrip(QLabel):
    """The results page's terms, each with a "?" whose tooltip explains it in plain words
    (engine.wording.GLOSSARY, the same text as the report's glossary page; issue 20). One
    word-wrapped label, so the line folds on a narrow window; pointing at a term shows it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.terms: dict[str, str] = dict(GLOSSARY)
        self._colour: str | None = None
        self.set_colour(None)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.setToolTip("Point at a term to read what it means; the report's last page "
                        "prints the same glossary.")
        self.linkHovered.connect(self._show)
        self.linkActivated.connect(self._show)

    def set_colour(self, colour: str | None) -> None:
        """Draw the terms in ``colour`` (the banner's text colour: the default link blue is
        unreadable on the red and green banners); None: the default."""
        self._colour = colour
        style = "text-decoration:none" + (f"; color:{colour}" if colour else "")
        links = " · ".join(f"<a href='{i}' style='{style}'>{escape(term)} <b>?</b></a>"
                           for i, term in enumerate(self.terms))
        self.setText(f"What the terms mean (point at a ?): {links}")

    def set_audit_type(self, audit_type: str | None) -> None:
        """The terms of that audit's results (engine.wording.glossary_for: the count tables
        add their three measures of an attribute attack), as the report's glossary prints."""
        terms = glossary_for(audit_type)
        if terms != self.terms:
            self.terms = terms
            self.set_colour(self._colour)

    def tip(self, term: str) -> str:
        """The tooltip of ``term``'s "?"."""
        return f"<b>{escape(term)}</b><br>{escape(self.terms[term])}"

    def _show(self, link: str) -> None:
        if not link:
            QToolTip.hideText()
            return
        term = list(self.terms)[int(link)]
        QToolTip.showText(QCursor.pos(), self.tip(term), self)


def escape(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
