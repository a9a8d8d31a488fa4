"""The helpers every audit page's form is made of (moved out of gui/pages/audit_page.py, issue
33 item 2: no product file over 600 lines): a form step, the verdict policy's and the run's
fields, path resolving as the engine does, and the sentences under a field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QLabel,
)

from engine.data.paths import resolve_path as engine_resolve_path
from gui.widgets.form import (
    FieldSpec,
)
from gui.widgets.steps import numbered

RESULT_STEPS = ("Results", "Report")
CSV_FILTER = "CSV files (*.csv *.txt);;All files (*)"
SOURCE_PREFIXES = ("settings: ", "config: ", "schema: ")
STATUS_COLOUR, ERROR_COLOUR = "#444", "#c62828"


@dataclass(frozen=True)
class FormStep:
    """One form step: its name in the step list, its title, its intro sentence, and the
    "Next: …" hint at its bottom ("" for none)."""

    name: str
    title: str
    intro: str
    next_hint: str = ""


POLICY_KEYS = ("policy.fpr", "policy.high_tpr", "policy.medium_tpr", "policy.high_accuracy",
               "policy.medium_accuracy")


def policy_fields(step: int) -> dict[str, FieldSpec]:
    """The verdict-policy fields every audit has (config keys "policy.x"), shown on ``step``
    by :meth:`AuditPage.build_policy_box`."""
    return {
        "policy.fpr": FieldSpec(
            "False-positive rate judged", step,
            "The share of absent people an attacker may wrongly accuse when we judge how many "
            "present people it spots (0.01 = 1 %)."),
        "policy.high_tpr": FieldSpec(
            "High risk if people spotted ≥", step,
            "High risk if the attacker spots at least this share of the people present at that "
            "false-positive rate (0.10 = 10 %)."),
        "policy.medium_tpr": FieldSpec(
            "Medium risk if people spotted ≥", step,
            "Medium risk if the attacker spots at least this share (0.02 = 2 %)."),
        "policy.high_accuracy": FieldSpec(
            "High risk if accuracy ≥", step,
            "High risk if the attacker is right at least this often (0.75 = 75 %; 0.5 is "
            "guessing)."),
        "policy.medium_accuracy": FieldSpec(
            "Medium risk if accuracy ≥", step,
            "Medium risk if the attacker is right at least this often (0.60 = 60 %)."),
    }


def resolve_path(text: str) -> Path:
    """A typed path as the engines read it — the engine's one rule
    (:func:`engine.data.paths.resolve_path`: ``~`` expanded; as written, or in the app folder
    for the bundled samples), so what a field previews is what the run reads."""
    return engine_resolve_path(text)


def plain_sentence(message: str) -> str:
    """An engine sentence without the "settings: " / "config: " / "schema: " the page's own
    validation puts in front (the user did not write a file of that name)."""
    for prefix in SOURCE_PREFIXES:
        if message.startswith(prefix):
            message = message[len(prefix):]
    return message


def field_sentence(message: str, key: str, label: str | None = None) -> str:
    """An engine sentence about config ``key`` as it reads under that field: the field's own
    label names it, so a leading internal key and the "settings [defences]:" trail before it
    go ("'epsilon' must be greater than 0" → "Must be greater than 0"); a key quoted inside
    the sentence ("lower 'trials'") becomes the field's ``label``."""
    text = plain_sentence(" ".join(message.split()))
    for name in (key, key.rsplit(".", 1)[-1]):
        quoted = f"'{name}'"
        at = text.find(quoted + " ") if name else -1
        if at >= 0 and (at == 0 or text[:at].endswith(": ")):
            rest = text[at + len(quoted) + 1:]
            return rest[:1].upper() + rest[1:]
        if name and label and quoted in text:
            return text.replace(quoted, f"“{label}”")
    return text


def read_notes_sentence(path) -> str:
    """"How the file was read: …" when reading it needed an assumption (a ';' separator, a
    byte-order mark, old-Mac line ends; engine.data.text_input), else ""."""
    from engine.data.text_input import read_notes

    notes = read_notes(path)
    return f"How the file was read: {'; '.join(notes)}." if notes else ""


def add_read_notes(label: QLabel, path) -> None:
    """Append :func:`read_notes_sentence` to a status line (not to an error sentence)."""
    extra = read_notes_sentence(path)
    if extra and ERROR_COLOUR not in label.styleSheet():
        label.setText(f"{label.text()} {extra}".strip())


def status_label() -> QLabel:
    """The sentence under a field: wrapped, hidden while there is nothing to say (so it takes
    no space); set it with :func:`show_status`."""
    label = QLabel("")
    label.setWordWrap(True)
    label.setVisible(False)
    return label


def show_status(label: QLabel, text: str, error: bool = False) -> None:
    """Say ``text`` under a field: grey, or red for a problem; an empty text hides the line."""
    label.setStyleSheet(f"color: {ERROR_COLOUR if error else STATUS_COLOUR};")
    label.setText(text)
    label.setVisible(bool(text))


def run_fields(step: int) -> dict[str, FieldSpec]:
    """The seed and confidence-level fields every audit has, shown on ``step``."""
    return {
        "seed": FieldSpec(
            "Random seed", step,
            "Any whole number. The same settings and seed always give the same numbers, so a "
            "colleague can reproduce the audit.", integer=True),
        "confidence": FieldSpec(
            "Confidence level", step,
            "Confidence of the intervals shown around measured numbers, e.g. 0.95 for 95 %."),
    }


def audit_steps(form_steps: Sequence[FormStep]) -> tuple[str, ...]:
    """The numbered step list of an audit: its form steps, then Results and Report."""
    return numbered([step.name for step in form_steps] + list(RESULT_STEPS))

