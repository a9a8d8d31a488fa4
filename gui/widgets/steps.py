"""The parts of a guided audit (ARCHITECTURE §7): the step list on the left and step pages.

Every audit page reads the same way — a numbered list of steps, each step a page with a bold
title, one explaining sentence, its form and a hint to the next step — so a user who knows one
audit knows them all. Steps are scrolled, so a small window never hides a field or a Run button.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QFrame, QLabel, QListWidget, QScrollArea, QVBoxLayout, QWidget

STEP_LIST_WIDTH = 170


def numbered(titles: Sequence[str]) -> tuple[str, ...]:
    """("Release", "Attacker") -> ("1  Release", "2  Attacker"), as shown in the step list."""
    return tuple(f"{i}  {title}" for i, title in enumerate(titles, start=1))


def step_list(titles: Sequence[str]) -> QListWidget:
    """The left column: one large, padded row per step."""
    widget = QListWidget()
    widget.addItems(list(titles))
    widget.setFixedWidth(STEP_LIST_WIDTH)
    widget.setObjectName("stepList")
    widget.setStyleSheet("#stepList { font-size: 11pt; } #stepList::item { padding: 10px 6px; }")
    return widget


def step_title(text: str, sentence: str) -> QWidget:
    """A step's bold title with one sentence saying what the step is for."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 8)
    title = QLabel(text)
    font = title.font()
    font.setPointSizeF(font.pointSizeF() * 1.5)
    font.setBold(True)
    title.setFont(font)
    layout.addWidget(title)
    layout.addWidget(note(sentence))
    return box


def step_page(title: str, sentence: str) -> tuple[QWidget, QVBoxLayout]:
    """An empty step page with its title; add the form to the returned layout."""
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.addWidget(step_title(title, sentence))
    return page, layout


def note(text: str) -> QLabel:
    """A grey explanatory paragraph."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet("color: #444;")
    return label


def next_hint(text: str) -> QLabel:
    """The blue "Next: …" line at the bottom of a step."""
    label = QLabel(text)
    label.setStyleSheet("color: #1565c0;")
    return label


def scrolled(widget: QWidget) -> QScrollArea:
    """``widget`` in a frameless scroll area that resizes it to the available width."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(widget)
    return area
