"""Verdict banner: the level in colour AND in words (colour alone fails colour-blind readers),
the two-sentence summary, and the policy rules and reasons that decided it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout

from engine.headline import headline_of_result
from engine.results.blocks import BlockError, Evidence, Verdict
from engine.wording import describe, plain_name
from engine.wording import tooltip as attack_tooltip
from gui.widgets.results_scaffold import GlossaryStrip

LEVEL_STYLE = {
    # level: (title, background, text colour)
    "high": ("HIGH RISK", "#c62828", "#ffffff"),
    "medium": ("MEDIUM RISK", "#f9a825", "#1a1a1a"),
    "low": ("LOW RISK", "#2e7d32", "#ffffff"),
}


class VerdictBanner(QFrame):
    """Coloured box at the top of the results."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("verdictBanner")
        self.level_label = QLabel()
        self.level_label.setObjectName("verdictLevel")
        font = self.level_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.level_label.setFont(font)
        self.summary_label = QLabel()
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.summary_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.summary_label.setFont(font)
        self.reasons_label = QLabel()
        self.reasons_label.setWordWrap(True)
        self.reasons_label.setTextFormat(Qt.TextFormat.RichText)
        # The strongest attack by its plain name, with what it does; the technical name and
        # paper in the tooltip (engine.wording; issue 20).
        self.strongest_label = QLabel()
        self.strongest_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.addWidget(self.level_label)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.strongest_label)
        layout.addWidget(self.reasons_label)
        self.glossary = GlossaryStrip()
        layout.addWidget(self.glossary)
        self.set_verdict(None, "")

    def set_verdict(self, verdict: Verdict | dict | None, summary: str,
                    audit_type: str | None = None, *, unreadable: bool = False) -> None:
        """Show a result's ``verdict`` block (engine.results.blocks.Verdict, as the loaded
        result holds it; a dict is read here) and summary, with the glossary of its
        ``audit_type``. A block not of the app's form (results shown here passed
        engine.results.result.result_problem; ``unreadable``: the loader could not read it)
        shows as no verdict, never an exception."""
        self.glossary.set_audit_type(audit_type)
        block = verdict if isinstance(verdict, Verdict) else None
        if isinstance(verdict, dict) and verdict:
            try:
                block = Verdict.from_dict(verdict)
            except BlockError:
                block = None
        if block is None:
            given = bool(verdict) or unreadable
            self.level_label.setText("No verdict" if given else "No result yet")
            self.summary_label.setText(summary if given
                                       else "Run the audit to see how exposed people are.")
            self.reasons_label.setText("")
            self.strongest_label.setText("")
            self.strongest_label.setToolTip("")
            self.setStyleSheet("#verdictBanner { background: #eceff1; border-radius: 6px; }")
            self.glossary.set_colour(None)
            return
        title, background, colour = LEVEL_STYLE[block.level]
        self.setStyleSheet(f"#verdictBanner {{ background: {background}; border-radius: 6px; }}"
                           f" #verdictBanner QLabel {{ color: {colour}; }}")
        self.level_label.setText(title)
        self.glossary.set_colour(colour)
        self.summary_label.setText(summary)
        head = _stored_strongest(block)
        if head is not None and head.name:
            entry = {"name": head.name, "label": head.label}
            name = head.plain_name or plain_name(entry)
            what = describe(entry)
            self.strongest_label.setText(f"Strongest attack: {name}" + (f" — {what}." if what
                                                                          else ""))
            self.strongest_label.setToolTip(attack_tooltip(entry))
        else:
            self.strongest_label.setText("")
            self.strongest_label.setToolTip("")
        evidence = block.evidence_block or Evidence()
        sentence = evidence.sentence
        # The evidence sentence has its own line (issue 32 item 2); the reasons keep the rest.
        reasons = "".join(f"<li>{_escape(r)}</li>" for r in block.reasons if r != sentence)
        rules = "".join(f"<li>{_escape(r)}</li>" for r in block.policy_rules)
        policy = _escape(block.policy_name)
        html = ""
        if reasons:
            html += f"<b>Why:</b><ul style='margin-top:2px'>{reasons}</ul>"
        if sentence:
            cannot = evidence.cannot_tell
            html += f"<p style='margin-top:2px'><b>Evidence:</b> {_escape(sentence)}"
            if cannot:
                # Real-people tests are against the obvious guess, not a blind guess.
                obvious = any(t.baseline_words == "the obvious guess" for t in evidence.tests)
                html += (" Cannot be told from guessing"
                         + (" or the obvious guess" if obvious else "") + ": "
                         f"{_escape(', '.join(plain_name(c) for c in cannot))}.")
            html += "</p>"
        if rules:
            html += f"<b>Verdict policy “{policy}”:</b><ul style='margin-top:2px'>{rules}</ul>"
        self.reasons_label.setText(html)

    def text(self) -> str:
        """Everything the banner says, as plain text (tests, accessibility)."""
        return " ".join(filter(None, [self.level_label.text(), self.summary_label.text(),
                                      self.strongest_label.text(),
                                      self.reasons_label.text()]))


def _stored_strongest(block: Verdict):
    """The headline the verdict stores (engine.headline.Headline), or None when it has none or
    one whose fields are damaged: a result with no attacks given, so nothing is rebuilt."""
    if block.headline is None:
        return None
    return headline_of_result({"verdict": {"headline": block.headline}})


def _escape(text: str) -> str:
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
