"""The Decision box under the results (issue 34 item 3): approve, approve with conditions or
reject; the conditions; the reviewer's name and role; the date; the rationale — signed on the
SHA-256 of the result shown (engine.signoff).

:class:`SignoffPanel` is the form and what it shows once signed; :class:`PageSigning` is the
audit page's part (a mixin of gui.pages.audit_page.AuditPage): it holds the sign-off and the
signed history of the page's project, moves a sign-off into the history when the settings
change or the audit is run again after it, and says on the page which holds. The engine checks
every field (engine.signoff.sign); its sentence is shown under the field it names, and what was
typed stays.
"""

from __future__ import annotations

import datetime as _dt

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from engine.data.errors import InputError
from engine.signoff import (
    DECISION_LABELS,
    DECISIONS,
    SignOff,
    history_entry,
    result_sha256,
    sign,
)

GREY, RED = "#444", "#c62828"
NOT_SIGNED_TEXT = ("Not signed: no decision has been recorded on this result. Choose a "
                   "decision, type your name and press “Sign this decision”.")


def _escape(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def signed_sentence(s: SignOff) -> str:
    """"Signed: Approved with conditions by Jane Roe (DPO) on 2026-11-28." """
    return f"Signed: {s.past_label} by {s.who} on {s.date}."


def unsigned_sentence(s: SignOff, what: str = "the settings changed") -> str:
    """The page's words for a sign-off that no longer holds (it is kept in the history)."""
    return (f"Unsigned: {what} after {s.reviewer} signed on {s.date}; the signed version is "
            "kept in the project's history.")


class SignoffPanel(QWidget):
    """The Decision box (module doc). Emits ``signed`` with the new :class:`SignOff`."""

    signed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._result: dict | None = None
        self.state_label = QLabel(NOT_SIGNED_TEXT)
        self.state_label.setWordWrap(True)
        self.state_label.setTextFormat(Qt.TextFormat.RichText)
        self.state_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.decision_buttons: dict[str, QRadioButton] = {}
        self.decision_group = QButtonGroup(self)
        row = QHBoxLayout()
        for decision in DECISIONS:
            button = QRadioButton(DECISION_LABELS[decision])
            self.decision_buttons[decision] = button
            self.decision_group.addButton(button)
            row.addWidget(button)
            button.toggled.connect(self._follow_decision)
        row.addStretch(1)
        self.conditions_edit = QPlainTextEdit()
        self.conditions_edit.setMaximumHeight(60)
        self.conditions_edit.setPlaceholderText("e.g. 'Publish only the yearly tables; review "
                                                "again before the next release.'")
        self.reviewer_edit = QLineEdit()
        self.reviewer_edit.setPlaceholderText("Your full name")
        self.role_edit = QLineEdit()
        self.role_edit.setPlaceholderText("e.g. Data protection officer")
        self.date_edit = QLineEdit(_dt.date.today().isoformat())
        self.date_edit.setToolTip("The day of the decision, written year-month-day.")
        self.rationale_edit = QPlainTextEdit()
        self.rationale_edit.setMaximumHeight(70)
        self.rationale_edit.setPlaceholderText("Why this decision: what the audit showed and "
                                               "what was weighed against it.")
        self.sign_button = QPushButton("Sign this decision")
        self.sign_button.clicked.connect(self.sign)
        self.change_button = QPushButton("Record a new decision…")
        self.change_button.setToolTip("The decision signed now is kept in the project's "
                                      "history when a new one is signed.")
        self.change_button.clicked.connect(lambda: self.form.setVisible(True))
        self.errors: dict[str, QLabel] = {k: _error_label() for k in (
            "decision", "conditions", "reviewer", "role", "date", "rationale", "")}

        self.form = QWidget()
        form = QFormLayout(self.form)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Decision", _with_error(row, self.errors["decision"]))
        form.addRow("Conditions", _with_error(self.conditions_edit, self.errors["conditions"]))
        form.addRow("Reviewer's name", _with_error(self.reviewer_edit, self.errors["reviewer"]))
        form.addRow("Role", _with_error(self.role_edit, self.errors["role"]))
        form.addRow("Date", _with_error(self.date_edit, self.errors["date"]))
        form.addRow("Rationale", _with_error(self.rationale_edit, self.errors["rationale"]))
        buttons = QHBoxLayout()
        buttons.addWidget(self.sign_button)
        buttons.addStretch(1)
        form.addRow("", _with_error(buttons, self.errors[""]))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.state_label)
        layout.addWidget(self.change_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.form)
        self._follow_decision()
        self.show_state(None)

    # ------------------------------------------------------------------ the form

    def decision(self) -> str:
        return next((d for d, b in self.decision_buttons.items() if b.isChecked()), "")

    def set_result(self, result: dict | None) -> None:
        """The result a signature would be made on (None: none yet; signing says so)."""
        self._result = result

    def _follow_decision(self, _checked: bool = False) -> None:
        # Conditions belong to a conditional approval only.
        self.conditions_edit.setEnabled(self.decision() == "approve_with_conditions")

    def clear_errors(self) -> None:
        for label in self.errors.values():
            _say(label, "")

    def show_error(self, exc: InputError) -> None:
        """The engine's sentence under the field its key names (the form keeps every field)."""
        field = str(exc.key or "").removeprefix("signoff").lstrip(".")
        label = self.errors.get(field, self.errors[""])
        _say(label, str(exc), error=True)
        widget = {"reviewer": self.reviewer_edit, "role": self.role_edit,
                  "date": self.date_edit, "conditions": self.conditions_edit,
                  "rationale": self.rationale_edit}.get(field)
        if widget is not None:
            widget.setFocus()

    def sign(self) -> SignOff | None:
        """Sign the result with what the form holds; a wrong field gets its sentence."""
        self.clear_errors()
        try:
            s = sign(self._result, decision=self.decision(),
                     conditions=self.conditions_edit.toPlainText(),
                     reviewer=self.reviewer_edit.text(), role=self.role_edit.text(),
                     date=self.date_edit.text(), rationale=self.rationale_edit.toPlainText())
        except InputError as exc:
            self.show_error(exc)
            return None
        self.signed.emit(s)
        return s

    # ------------------------------------------------------------------ what holds

    def show_state(self, signoff: SignOff | None, note: str = "",
                   problem: str | None = None) -> None:
        """Signed (the decision, who, when and the result's fingerprint; the form folded
        away), or the form open with ``note`` (why it is unsigned) — and ``problem`` in red
        when the signed result no longer matches."""
        if signoff is not None and problem is None:
            text = (f"<b>{_escape(signed_sentence(signoff))}</b><br>"
                    + (f"Conditions: {_escape(signoff.conditions)}<br>"
                       if signoff.conditions else "")
                    + f"Signed at {_escape(signoff.signed_at)} on the result with SHA-256 "
                    f"fingerprint <tt>{_escape(signoff.result_sha256[:12])}</tt>…")
            self.state_label.setText(text)
            self.state_label.setStyleSheet(f"color: {GREY};")
            self.form.setVisible(False)
            self.change_button.setVisible(True)
            return
        words = problem or note or NOT_SIGNED_TEXT
        self.state_label.setText(f"<b>{_escape(words)}</b>")
        self.state_label.setStyleSheet(f"color: {RED if problem else GREY};")
        self.form.setVisible(True)
        self.change_button.setVisible(False)


def _error_label() -> QLabel:
    label = QLabel("")
    label.setWordWrap(True)
    label.setVisible(False)
    return label


def _say(label: QLabel, text: str, error: bool = False) -> None:
    label.setStyleSheet(f"color: {RED if error else GREY};")
    label.setText(text)
    label.setVisible(bool(text))


def _with_error(item, error: QLabel) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    if isinstance(item, QWidget):
        layout.addWidget(item)
    else:
        layout.addLayout(item)
    layout.addWidget(error)
    return box


# --------------------------------------------------------------------------- the page's part

class PageSigning:
    """The sign-off of an audit page's project (a mixin of AuditPage; module doc).

    ``_signoff`` is the signed decision (a SignOff dict, None: unsigned), ``_signoff_history``
    the signed versions it replaced, ``_signed_config`` the settings as they were when it was
    signed (or opened): settings that differ from them unsign it."""

    def init_signing(self) -> None:
        self.clear_signing()
        self.signoff_panel: SignoffPanel = self.results_view.signoff_panel
        self.signoff_panel.signed.connect(self._on_signed)

    def clear_signing(self) -> None:
        """Unsigned, with no history: a new project, or one whose sign-off follows."""
        self._signoff: dict | None = None
        self._signoff_history: list[dict] = []
        self._signed_config: dict | None = None
        self._signoff_note = ""
        self._signoff_problem: str | None = None

    # ---------------------------------------------------------------- state for projects

    def signoff(self) -> dict | None:
        """The page's sign-off (SignOff dict), None when unsigned — checked first against the
        settings, so a project saved after an edit is saved unsigned."""
        self.refresh_signoff()
        return dict(self._signoff) if self._signoff is not None else None

    def signoff_history(self) -> list[dict]:
        self.refresh_signoff()
        return [dict(h) for h in self._signoff_history]

    def signing_state(self) -> tuple:
        """What :meth:`load_signoff` takes to put the page's signing back as it is."""
        return (self._signoff, list(self._signoff_history), self._signoff_problem)

    def load_signoff(self, signoff: dict | None, history: list[dict] | None,
                     problem: str | None = None) -> None:
        """A project's sign-off and history (engine.project), after its settings and result
        are shown; ``problem``: why the saved result no longer matches (shown in red)."""
        self._signoff = dict(signoff) if signoff else None
        self._signoff_history = [dict(h) for h in history or ()]
        self._signoff_problem = problem
        self._signoff_note = ""
        self._signed_config = self.config_for_saving() if self._signoff else None
        self.show_signoff()

    # ---------------------------------------------------------------- changes

    def refresh_signoff(self) -> None:
        """Settings changed since the sign-off: keep the signed version in the history and
        say the project is unsigned (issue 34 item 3)."""
        if self._signoff is None or self._signed_config is None:
            return
        if self.config_for_saving() != self._signed_config:
            self.supersede_signoff("the settings changed")

    def supersede_signoff(self, what: str) -> None:
        """Move the sign-off into the history; ``what`` changed ("the settings changed",
        "the audit was run again") is said on the page."""
        if self._signoff is None:
            return
        s = SignOff.from_dict(self._signoff)
        self._signoff_history.append(history_entry(self._signoff, self._signed_config))
        self._signoff, self._signed_config, self._signoff_problem = None, None, None
        self._signoff_note = unsigned_sentence(s, what)
        self.show_signoff()
        self.status_label.setText(self._signoff_note)

    def _on_signed(self, s: SignOff) -> None:
        if self._signoff is not None:          # a new decision replaces the signed one
            self.supersede_signoff("a new decision was signed")
        self._signoff = s.to_dict()
        self._signed_config = self.config_for_saving()
        self._signoff_note, self._signoff_problem = "", None
        words = " ".join(p for p in (
            f"{signed_sentence(s)} Result SHA-256 {s.result_sha256[:12]}…",
            f"Conditions: {s.conditions}" if s.conditions else "",
            f"Rationale: {s.rationale}" if s.rationale else "") if p)
        entry = {"time": _dt.datetime.now().astimezone().replace(microsecond=0).isoformat(),
                 "text": words}
        self.show_signoff()
        self.status_label.setText(signed_sentence(s))
        # The log keeps the rationale's history; its signal autosaves the page.
        self.results_view.set_decision_log([*self._decision_log, entry])
        self._on_note_added(entry)

    def show_signoff(self) -> None:
        """The results page's line and the Decision box, from the page's state."""
        s = SignOff.from_dict(self._signoff) if self._signoff else None
        result = self._result
        self.signoff_panel.set_result(result)
        # The Article 29 panel's decision line reads the page's sign-off (a reopened project
        # keeps it beside the result it shows, not inside it).
        self.results_view.article29_panel.set_signoff(s)
        note = self._signoff_note
        if s is None and not note and self._signoff_history and result is not None:
            last = SignOff.from_dict(self._signoff_history[-1]["signoff"])
            same = _digest(result) == last.result_sha256
            note = unsigned_sentence(last, "the settings changed" if same
                                     else "the audit was run again")
        self.signoff_panel.show_state(s, note, self._signoff_problem)
        line = (self._signoff_problem or (signed_sentence(s) if s is not None else note)
                or ("Not signed: no decision has been recorded on this result."
                    if result is not None else ""))
        self.results_view.set_signoff_line(line, warn=bool(self._signoff_problem))


def _digest(result) -> str:
    try:
        return result_sha256(result)
    except (TypeError, ValueError, InputError, RecursionError):
        return ""
