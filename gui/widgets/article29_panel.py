"""The officer's frame on the results page (issue 34 item 4): the three risks of the Article 29
Working Party's anonymisation opinion (WP216 §3: singling out, linkability, inference), each
with its level, its sentence and the figures behind it, and what a data-protection impact
assessment needs from this audit, with a "Copy as text" button for pasting into the DPIA.

Everything shown is engine.findings.article29's (Qt-free; the PDF prints the same): this panel
only lays it out. The decision line reads the page's sign-off when the page gives one
(:meth:`Article29Panel.set_signoff`), else the result's own.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.findings.article29 import (
    DPIA_TITLE,
    FOUND,
    NOT_FOUND,
    RISKS,
    article29_risks,
    article29_text,
    dpia_items,
)
from engine.results.loaded import LoadedResult
from engine.signoff import SignOff

#: The level's colour (the words say it too): found in red, not found in grey, not tested in
#: a lighter grey.
LEVEL_COLOURS = {FOUND: "#c62828", NOT_FOUND: "#444", "not_tested": "#777"}
INTRO = ("The Article 29 Working Party's opinion on anonymisation (WP216, §3) judges a release "
         "by three risks. “Not found at this size” means the attacks run could not be told "
         "from guessing with this many trials — not that there is no risk.")
_UNSET = object()


def _escape(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class Article29Panel(QWidget):
    """The three risks and the DPIA list of one result (module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loaded: LoadedResult | None = None
        self._signoff = _UNSET            # the page's sign-off; _UNSET: read the result's
        self._comparison = None
        self.intro_label = _label()
        self.intro_label.setText(f"<i>{_escape(INTRO)}</i>")
        self.risk_labels: dict[str, QLabel] = {risk: _label() for risk in RISKS}
        self.dpia_label = _label()
        self.copy_button = QPushButton("Copy as text")
        self.copy_button.setToolTip("Copies the three risks and the DPIA list, with their "
                                    "figures, as plain text to paste into your assessment.")
        self.copy_button.clicked.connect(self.copy_text)
        self.copied_label = QLabel("")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.intro_label)
        for risk in RISKS:
            layout.addWidget(self.risk_labels[risk])
        layout.addWidget(self.dpia_label)
        row = QHBoxLayout()
        row.addWidget(self.copy_button)
        row.addWidget(self.copied_label, 1)
        layout.addLayout(row)
        self.set_result(None)

    # ------------------------------------------------------------------ what is shown

    def set_result(self, loaded: LoadedResult | None) -> None:
        """Show ``loaded`` (None: no result yet, the panel is hidden). A new result reads its
        own sign-off until the page gives one (:meth:`set_signoff`)."""
        self._loaded = loaded
        self._signoff = _UNSET
        self._show()

    def set_signoff(self, signoff: SignOff | None) -> None:
        """The page's sign-off of the shown result (None: unsigned): the decision line."""
        self._signoff = signoff
        self._show()

    def set_comparison(self, comparison) -> None:
        """An engine.compare ``Comparison`` of candidate releases (None: none): the DPIA's
        measures compared."""
        self._comparison = comparison
        self._show()

    def shown(self) -> LoadedResult | None:
        """The result the panel reads: the loaded one, with the page's sign-off when given."""
        if self._loaded is None or self._signoff is _UNSET:
            return self._loaded
        return replace(self._loaded, signoff=self._signoff)

    def text(self) -> str:
        """The plain text "Copy as text" puts on the clipboard ("" without a result)."""
        r = self.shown()
        return article29_text(r, self._comparison) if r is not None else ""

    def copy_text(self) -> None:
        text = self.text()
        if not text:
            return
        QGuiApplication.clipboard().setText(text)
        self.copied_label.setText("Copied: paste it into your impact assessment.")

    def _show(self) -> None:
        r = self.shown()
        self.copied_label.setText("")
        self.copy_button.setEnabled(r is not None)
        if r is None:
            for label in self.risk_labels.values():
                label.setText("")
            self.dpia_label.setText("")
            return
        for f in article29_risks(r):
            colour = LEVEL_COLOURS.get(f.level, "#444")
            figures = "".join(f"<li>{_escape(k)}: <b>{_escape(v)}</b></li>" for k, v in f.figures)
            self.risk_labels[f.risk].setText(
                f"<b>{_escape(f.label)}</b> — <b style='color:{colour}'>"
                f"{_escape(f.level_label)}</b><br><i>{_escape(f.meaning.capitalize())}.</i> "
                f"{_escape(f.sentence)}" + (f"<ul>{figures}</ul>" if figures else ""))
            self.risk_labels[f.risk].setToolTip(f"WP216 §3: {f.meaning}.")
        items = dpia_items(r, self._comparison)
        self.dpia_label.setText(f"<b>{_escape(DPIA_TITLE)}</b><ul>" + "".join(
            f"<li><b>{_escape(i.label)}:</b> {_escape(i.text)}</li>" for i in items) + "</ul>")
