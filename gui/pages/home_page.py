"""Home page: the four audit types as large cards, each asking its question in one sentence.

Privacy officers pick an audit by the question they have, not by the method's name, so each
card leads with the question. Audits not built yet are shown disabled with a "coming soon"
badge: the user sees what the product will cover and is never led into a dead end. A card is
available when the engine registry runs its audit and the app has a page for it.

Samples (issue 33 item 3): "Open the sample DP-mechanism audit" opens the quickest; "Other
samples" lists every available audit type's quick sample and the extra, longer ones
(engine.audits.samples: the model's thorough sample), each with its estimated time, worked
out when the list opens (this computer's measured speed and how busy it is then).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.audits.registry import AUDIT_TYPES
from engine.audits.samples import EXTRA_SAMPLES, sample_config
from engine.estimates import duration_range, estimate


def audit_cards(pages: Iterable[str]) -> list[tuple[str, str, str, bool]]:
    """(audit type, title, question, available) of every audit type the engine knows, in its
    order: available when the engine runs it and the app has a page for it (``pages``)."""
    pages = set(pages)
    return [(t.name, t.title, t.question, t.name in pages)
            for t in AUDIT_TYPES.values()]


class AuditCard(QFrame):
    """One large clickable card; disabled cards carry a "coming soon" badge."""

    clicked = Signal(str)

    def __init__(self, audit_type: str, title: str, question: str, available: bool,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.audit_type = audit_type
        self.available = available
        self.setObjectName("auditCard")
        self.setMinimumSize(300, 140)
        self.setCursor(Qt.CursorShape.PointingHandCursor if available
                       else Qt.CursorShape.ForbiddenCursor)
        self.setEnabled(available)
        self.setToolTip("Start this audit." if available
                        else "This audit arrives in a later version.")
        self.setAccessibleName(f"{title}: {question}")
        border = "#1565c0" if available else "#bdbdbd"
        background = "#ffffff" if available else "#f3f3f3"
        self.setStyleSheet(
            f"#auditCard {{ border: 2px solid {border}; border-radius: 10px; "
            f"background: {background}; }}"
            f"#auditCard:hover {{ background: {'#e3f2fd' if available else background}; }}")

        self.title_label = QLabel(title)
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.45)
        font.setBold(True)
        self.title_label.setFont(font)
        self.title_label.setStyleSheet(f"color: {'#0d47a1' if available else '#8a8a8a'};")
        self.question_label = QLabel(question)
        self.question_label.setWordWrap(True)
        font = self.question_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.question_label.setFont(font)
        self.question_label.setStyleSheet(f"color: {'#212121' if available else '#9e9e9e'};")

        head = QHBoxLayout()
        head.addWidget(self.title_label)
        head.addStretch(1)
        self.badge: QLabel | None = None
        if not available:
            self.badge = QLabel("coming soon")
            self.badge.setObjectName("comingSoonBadge")
            self.badge.setStyleSheet("#comingSoonBadge { background: #9e9e9e; color: white; "
                                     "border-radius: 8px; padding: 2px 8px; font-weight: bold; }")
            head.addWidget(self.badge)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 14, 18, 14)
        layout.addLayout(head)
        layout.addWidget(self.question_label, 1)
        if available:
            start = QLabel("Start →")
            start.setStyleSheet("color: #1565c0; font-weight: bold;")
            layout.addWidget(start, 0, Qt.AlignmentFlag.AlignRight)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt API
        if self.available and event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.audit_type)
        super().mouseReleaseEvent(event)


class HomePage(QWidget):
    """Cards, "Open project…", "Open the sample DP-mechanism audit", "Other samples" and the recent
    projects."""

    audit_chosen = Signal(str)            # audit type
    open_project_requested = Signal()
    open_sample_requested = Signal(str)   # the sample: an audit type or an extra sample
    recent_project_chosen = Signal(str)   # path

    def __init__(self, available_pages: Iterable[str] = ("mechanism",),
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel("Privacy Risk Auditor")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 2.0)
        font.setBold(True)
        title.setFont(font)
        subtitle = QLabel("Find out before a release whether it exposes people — and prove it "
                          "in a report. Choose the question you need answered:")
        subtitle.setWordWrap(True)
        subtitle.setStyleSheet("color: #444;")

        self.cards: list[AuditCard] = []
        grid = QGridLayout()
        grid.setSpacing(16)
        for i, (audit_type, card_title, question, available) in enumerate(
                audit_cards(available_pages)):
            card = AuditCard(audit_type, card_title, question, available)
            card.clicked.connect(self.audit_chosen)
            grid.addWidget(card, i // 2, i % 2)
            self.cards.append(card)

        self.open_project_button = QPushButton("Open project…")
        self.open_project_button.setToolTip("Open a saved audit (.praudit.json) with its "
                                            "settings, results and decision log.")
        self.open_project_button.clicked.connect(self.open_project_requested)
        self.open_sample_button = QPushButton("Open the sample DP-mechanism audit")
        self.open_sample_button.setToolTip("A ready-made example: hourly counts of people "
                                           "released with Laplace noise, ε = 1, 10 hours per "
                                           "person. Press Run to see the results.")
        self.open_sample_button.clicked.connect(lambda: self.open_sample_requested.emit(
            "mechanism"))
        self.other_samples_button = QToolButton()
        self.other_samples_button.setText("Other samples")
        self.other_samples_button.setToolTip("Ready-made examples of the other audits, and "
                                             "longer, thorough ones, each with its estimated "
                                             "time.")
        self.other_samples_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.samples_menu = QMenu(self.other_samples_button)
        # sample name -> (its menu entry, the entry's words before the estimate)
        self.sample_actions: dict[str, tuple] = {}
        available = set(available_pages)
        entries = [(t.name, f"{t.title} sample") for t in AUDIT_TYPES.values()
                   if t.name in available]
        entries += [(x.name, f"{x.title} sample") for x in EXTRA_SAMPLES.values()
                    if x.audit_type in available]
        for name, words in entries:
            action = self.samples_menu.addAction(words)
            if name in EXTRA_SAMPLES:
                action.setToolTip(EXTRA_SAMPLES[name].description)
            action.triggered.connect(lambda _=False, n=name: self.open_sample_requested.emit(n))
            self.sample_actions[name] = (action, words)
        self.samples_menu.setToolTipsVisible(True)
        self.samples_menu.aboutToShow.connect(self.show_sample_estimates)
        self.other_samples_button.setMenu(self.samples_menu)
        for button in (self.open_project_button, self.open_sample_button,
                       self.other_samples_button):
            button.setMinimumHeight(34)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_project_button)
        buttons.addWidget(self.open_sample_button)
        buttons.addWidget(self.other_samples_button)
        buttons.addStretch(1)

        recent_title = QLabel("Recent projects")
        recent_title.setStyleSheet("font-weight: bold;")
        self.recent_list = QListWidget()
        self.recent_list.setMaximumHeight(140)
        self.recent_list.setToolTip("Double-click to open.")
        self.recent_list.itemActivated.connect(self._open_recent_item)
        self.no_recent_label = QLabel("No recent projects yet. Saved audits appear here.")
        self.no_recent_label.setStyleSheet("color: #777;")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 24, 32, 24)
        layout.addWidget(title)
        layout.addWidget(subtitle)
        layout.addSpacing(8)
        layout.addLayout(grid)
        layout.addSpacing(12)
        layout.addLayout(buttons)
        layout.addSpacing(8)
        layout.addWidget(recent_title)
        layout.addWidget(self.no_recent_label)
        layout.addWidget(self.recent_list)
        layout.addStretch(1)
        self.set_recent_projects([])

    def show_sample_estimates(self) -> None:
        """Each sample's entry with its estimated time: "Machine-learning model, thorough
        sample (about 6 to 16 minutes)" — the engine's cost model of the sample's config
        (engine.estimates), so the words follow this computer's speed, never a number written
        here. A sample whose estimate fails keeps its plain words (an estimate is advice)."""
        for name, (action, words) in self.sample_actions.items():
            try:
                seconds = estimate(sample_config(name)).expected_seconds
            except Exception:  # noqa: BLE001 - the menu must open whatever the estimate does
                action.setText(words)
                continue
            action.setText(f"{words} ({duration_range(seconds)})")

    def set_recent_projects(self, paths: list[str]) -> None:
        self.recent_list.clear()
        for path in paths:
            item = QListWidgetItem(f"{os.path.basename(path)}    —    {os.path.dirname(path)}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.recent_list.addItem(item)
        self.recent_list.setVisible(bool(paths))
        self.no_recent_label.setVisible(not paths)

    def _open_recent_item(self, item: QListWidgetItem) -> None:
        self.recent_project_chosen.emit(item.data(Qt.ItemDataRole.UserRole))
