"""Form parts shared by every audit page: number fields, choice boxes and inline error marks.

Why number fields are text fields: whatever the user typed stays visible next to the engine's
sentence that explains what is wrong with it, and the typed text (not a rounded spin-box value)
is what reaches the engine's validation. Forms never validate by themselves; the page hands the
parsed values to the engine's ``Config.from_dict`` so the GUI, the CLI and config files obey the
same rules. Tooltips are for privacy officers, not programmers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QBoxLayout,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QWidget,
)

ERROR_TEXT_COLOUR = "#c62828"
ERROR_STYLE = f"border: 2px solid {ERROR_TEXT_COLOUR}; border-radius: 3px; padding: 1px;"
FIELD_WIDTH = 160


@dataclass(frozen=True)
class FieldSpec:
    """One form field: its label, the step that shows it, its tooltip, whole numbers only,
    and ``text=True`` for a free-text field (a path, a column name, an id) whose text is sent
    exactly as typed, never read as a number."""

    label: str
    step: int
    tooltip: str
    integer: bool = False
    text: bool = False


def format_value(value) -> str:
    """A config value as the text a field shows ('' for a missing value, 1.0 -> '1')."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def parse_value(text: str, integer: bool):
    """The typed text as a number when it is one; otherwise the raw text, so that the engine's
    validation names exactly what the user typed."""
    raw = text.strip()
    candidate = raw.replace(",", ".") if raw.count(",") == 1 and "." not in raw else raw
    try:
        value = float(candidate)
    except ValueError:
        return raw
    if integer and value.is_integer():
        return int(value)
    return value


def number_field(key: str, spec: FieldSpec) -> QLineEdit:
    """A text field for a number (or free text, ``spec.text``); typing into it clears its
    error mark."""
    edit = QLineEdit()
    edit.setObjectName(f"field_{key}")
    edit.setToolTip(spec.tooltip)
    edit.setAccessibleName(spec.label)
    if spec.text:
        edit.setMinimumWidth(FIELD_WIDTH)
    else:
        edit.setMaximumWidth(FIELD_WIDTH)
    edit.textEdited.connect(lambda _text, e=edit: clear_invalid(e))
    return edit


def field_label(spec: FieldSpec, text: str | None = None) -> QLabel:
    """The row label of a field, carrying the same tooltip as the field."""
    label = QLabel(text if text is not None else spec.label + ":")
    label.setToolTip(spec.tooltip)
    return label


def add_row(form: QFormLayout, spec: FieldSpec, field: QWidget) -> QLabel:
    """Add ``field`` to ``form`` under its label; returns the label (some pages rename it)."""
    label = field_label(spec)
    form.addRow(label, field)
    return label


def mark_invalid(edit: QWidget) -> None:
    """Red frame around the field the engine complained about, and the focus on it."""
    edit.setStyleSheet(ERROR_STYLE)
    edit.setFocus()


def clear_invalid(edit: QWidget) -> None:
    edit.setStyleSheet("")
    label = getattr(edit, "error_label", None)
    if label is not None:
        label.setVisible(False)


def show_field_error(edit: QWidget, sentence: str) -> None:
    """The sentence in red right under ``edit`` (and its red frame), without taking the focus:
    every problem of the form is shown at once while the officer types (issue 21)."""
    edit.setStyleSheet(ERROR_STYLE)
    label = getattr(edit, "error_label", None)
    if label is None:
        label = QLabel()
        label.setWordWrap(True)
        label.setObjectName("field_error")
        label.setStyleSheet(f"color: {ERROR_TEXT_COLOUR};")
        if not _insert_below(edit, label):
            label.deleteLater()
            edit.setToolTip(sentence)
            return
        edit.error_label = label
    label.setText(sentence)
    label.setVisible(True)


def _insert_below(widget: QWidget, label: QLabel) -> bool:
    """Put ``label`` under ``widget`` in the layout that holds it: the row after it in a form,
    the place after it in a column; a field inside a row (a path and its Browse… button) gets
    it under the whole row. False when no such place is found."""
    parent = widget.parentWidget()
    layout = parent.layout() if parent is not None else None
    target, item = _find_in(layout, widget) if layout is not None else (None, None)
    while isinstance(target, QHBoxLayout) and isinstance(target.parent(), QLayout):
        item, target = target, target.parent()
    if isinstance(target, QFormLayout):
        row, _role = (target.getWidgetPosition(item) if isinstance(item, QWidget)
                      else target.getLayoutPosition(item))
        if row < 0:
            return False
        target.insertRow(row + 1, "", label)
        return True
    if isinstance(target, QBoxLayout):
        index = target.indexOf(item)
        if index < 0:
            return False
        target.insertWidget(index + 1, label)
        return True
    return False


def _find_in(layout: QLayout, widget: QWidget):
    """(the layout that directly holds ``widget``, the widget) searching ``layout``'s tree."""
    if layout.indexOf(widget) >= 0:
        return layout, widget
    for i in range(layout.count()):
        child = layout.itemAt(i).layout()
        if child is not None:
            found = _find_in(child, widget)
            if found[0] is not None:
                return found
    return None, None


def choice_combo(choices: Iterable[tuple[str, str]], tooltip: str) -> QComboBox:
    """A drop-down of (config value, label shown) pairs; ``currentData()`` is the value."""
    combo = QComboBox()
    for value, label in choices:
        combo.addItem(label, value)
    combo.setToolTip(tooltip)
    return combo


def select_data(combo: QComboBox, value) -> None:
    """Select the entry whose config value is ``value``; unknown values leave it unchanged."""
    index = combo.findData(value)
    if index >= 0:
        combo.setCurrentIndex(index)


def nested_set(config: dict, key: str, value) -> None:
    """``config["policy"]["fpr"] = value`` for the key "policy.fpr" (tables made as needed)."""
    *parents, last = key.split(".")
    for part in parents:
        child = config.get(part)
        if not isinstance(child, dict):
            child = {}
        else:
            child = dict(child)
        config[part] = child
        config = child
    config[last] = value


def nested_get(config: dict, key: str):
    """``config["policy"]["fpr"]`` for the key "policy.fpr"; None when missing."""
    value = config
    for part in key.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def attack_box_texts(name: str, technical: str) -> tuple[str, str]:
    """The text and tooltip of an attack's checkbox on a page's Custom list.

    The walk-through of 2026-11-26 found the list naming attacks as the papers do ("One-threshold
    attack", "BTTA") while the verdict, the results and the report call the same attacks by their
    plain names ("Simple count check"): the officer could not tell which box ran which result.
    So the plain name (engine.wording) comes first, the technical name follows in brackets, and
    the tooltip says what the attacker does, then the technical description.
    """
    from engine.wording import ATTACKS, attack_words

    # The form's key, or the name the attack writes into its result (model metric attacks are
    # "metric_<key>", the label-only attack "label_only_gap").
    key = next((k for k in (name, f"metric_{name}", f"{name}_gap")
                if any(k == w or k.startswith(w) for w in ATTACKS)), None)
    short = technical.split(":")[0].split(" (")[0].split(",")[0].strip() or name
    if key is None:
        return short, technical
    words = attack_words(key)
    text = (words.plain_name if words.plain_name.lower() == short.lower()
            else f"{words.plain_name} ({short})")
    tip = f"{words.description}." if words.description else ""
    return text, (f"{tip}\n{technical}" if tip else technical)
