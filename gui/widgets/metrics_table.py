"""Metrics table: one row per attacker, the numbers of ARCHITECTURE §5 with their intervals.

The first row is the exact optimal attacker of DP theory (no interval: it is computed, not
sampled); the others are the attacks actually played, with 95 % confidence intervals. A TPR
at an FPR the trials cannot certify says "not measurable with N non-members" instead of a
number that would look precise and be meaningless.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from engine.results.blocks import AttackEntry, BlockError, Evidence, ExactAttacker
from engine.results.loaded import LoadedResult, load_result
from engine.wording import first_time_notes, plain_name
from engine.wording import tooltip as attack_tooltip
from gui.formatting import fpr_label, interval, number, pct
from gui.widgets.tables import WrapHeader, wrap_headers

DEFAULT_FPR_TARGETS = (0.001, 0.01, 0.1)
NAME_COLUMN_WIDTH = 250

COLUMN_TIPS = {
    "AUC": "Area under the ROC curve: 0.5 is guessing, 1 is a perfect attacker.",
    "Balanced accuracy": "How often the attacker is right, members and non-members weighted "
                         "equally; 50 % is guessing.",
    "Advantage": "True-positive rate minus false-positive rate at the attacker's threshold.",
    "Empirical ε lower bound": "The ε this attack proves the release spends at least "
                               "(paper 002, Thm 1); it must not exceed the composed ε.",
    "Beats guessing (after correction)?": (
        "Yes when the attack did measurably better than guessing (or than the obvious guess, "
        "on the people's real values) after Holm's correction for the number of tests run: "
        "only such attacks raise the verdict. No means it cannot be told from guessing."),
}
EVIDENCE_HEADER = "Beats guessing\n(after correction)?"


def _loaded(result) -> LoadedResult | None:
    """``result`` read once (engine.results.loaded; a loaded result is returned as it is)."""
    return load_result(result) if result else None


def evidence_cell(result, name) -> tuple[str, str]:
    """The "Beats guessing (after correction)?" cell of attack ``name`` and its tooltip
    (each tested figure's p-value and Holm-adjusted p-value), from the result's
    ``verdict.evidence`` (engine.evidence); a dash for a result saved before it."""
    r = _loaded(result)
    evidence = r.verdict.evidence_block if r is not None and r.verdict is not None else None
    tests = [t for t in (evidence or Evidence()).tests if t.attack == name]
    if not tests:
        return "—", ""          # not tested (a baseline, or a result saved before)
    words = {"accuracy": "how often it is right", "tpr": "people spotted at the verdict's "
             "false-alarm rate", "top1": "best guess right", "real_people": "right on real people"}
    tips = [f"{words.get(t.figure, t.figure)} against {t.baseline_words}: "
            f"p = {_p(t.p_value)}, after correction {_p(t.adjusted_p)}" for t in tests]
    counted = any(t.counted for t in tests)
    return ("yes" if counted else "no"), "; ".join(tips) + "."


def _p(value) -> str:
    if not isinstance(value, (int, float)):
        return "—"
    return "below 0.0001" if value < 1e-4 else f"{value:.4f}"


TPR_TIP = ("Share of people present that the attacker spots while wrongly accusing at most "
           "this share of the people absent. The interval also allows for the uncertain "
           "false-positive rate of a threshold read off the simulated data, so it covers the "
           "attacker's true rate at this FPR.")


def _optimal(r: LoadedResult) -> ExactAttacker | None:
    """The exact optimal attacker of the result's typed theory (the DP audits), or None."""
    opt = getattr(r.theory, "optimal_attacker", None)
    if isinstance(opt, dict):        # an audit whose theory keeps it as written
        opt = ExactAttacker.from_dict(opt)
    return opt if isinstance(opt, ExactAttacker) else None


def _fpr_targets(result) -> list[float]:
    r = load_result(result)
    opt = _optimal(r)
    targets = [t for t in opt.targets if t is not None] if opt is not None else []
    for entry in r.attacks:
        targets += [row.fpr for row in entry.tpr_at_fpr if row.fpr is not None]
    unique = sorted({round(t, 12) for t in targets})
    return unique or list(DEFAULT_FPR_TARGETS)


def _entry(attack) -> AttackEntry | None:
    """The typed entry, or None for one not of the app's form: results shown here passed
    engine.results.result.result_problem, and a hand-made one gets a row of dashes, not an
    exception."""
    try:
        return AttackEntry.from_dict(attack)
    except BlockError:
        return None


class MetricsTable(QTableWidget):
    """Read-only table of attack metrics; cells are plain text so they copy cleanly."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        # Headers and names wrap instead of ending in "…" (issue 21); rows grow to their text.
        wrap_headers(self).on_height_changed = self._fit_height
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.setWordWrap(True)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.set_result(None)

    def set_result(self, result) -> None:
        """Show ``result``: a loaded result (engine.results.loaded) or its dict, or None."""
        result = _loaded(result)
        self.clear()
        targets = _fpr_targets(result) if result else list(DEFAULT_FPR_TARGETS)
        headers = ["Attacker", "AUC", "Balanced\naccuracy", "Advantage"]
        headers += [f"TPR at\n{fpr_label(t)} FPR" for t in targets]
        # Before the ε column, which the count-table table hides as its last.
        headers += [EVIDENCE_HEADER, "Empirical ε\nlower bound"]
        self.setColumnCount(len(headers))
        self.setHorizontalHeaderLabels(headers)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Fixed)
        self.setColumnWidth(0, NAME_COLUMN_WIDTH)
        for col, name in enumerate(headers):
            tip = COLUMN_TIPS.get(name.replace("\n", " ")) or TPR_TIP
            self.horizontalHeaderItem(col).setToolTip(tip)
        if not result:
            self.setRowCount(0)
            self._fit_height()
            return
        rows = []
        optimal = _optimal(result)
        evidence_tips: list[str] = []
        if optimal:
            rows.append(("Best possible attacker (exact theory)", self._theory_cells(optimal, targets)))
            evidence_tips.append("Computed exactly, not measured: it counts without a test.")
        tips = ["The best any attacker can do, computed exactly from the noise (the exact "
                "optimal attacker of differential-privacy theory)."] if optimal else []
        for entry in result.attacks:
            if entry.problem is not None:       # not of the app's form: a row of dashes
                rows.append((entry.label or entry.name, ["—"] * (len(headers) - 1)))
                tips.append("")
                evidence_tips.append("")
                continue
            # Plain name first; what the attacker does and the science in the tooltip
            # (engine.wording's catalogue; issue 20).
            cells = self._attack_cells(entry, targets)
            text, tip = evidence_cell(result, entry.name)
            cells.insert(len(cells) - 1, text)
            evidence_tips.append(tip)
            words = {"name": entry.name, "label": entry.label}
            rows.append((plain_name(words), cells))
            tips.append(attack_tooltip(words))
        self.setRowCount(len(rows))
        for r, (label, cells) in enumerate(rows):
            name_item = QTableWidgetItem(label)
            name_item.setToolTip(tips[r] if r < len(tips) else label)
            self.setItem(r, 0, name_item)
            for c, text in enumerate(cells, start=1):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                evidence_column = c == len(headers) - 2 and r < len(evidence_tips)
                item.setToolTip(evidence_tips[r] if evidence_column and evidence_tips[r]
                                else " ".join(text.split()))
                self.setItem(r, c, item)
        self._fit_height()

    def _fit_height(self) -> None:
        """At least two text lines per row, more where a name or a cell wraps further, every
        row visible: the table sits in a scrolling page, and an inner scroll bar would hide
        attacks. The header is as high as its most-wrapped label."""
        line = self.fontMetrics().lineSpacing()
        for r in range(self.rowCount()):          # cells a subclass adds: whole text on hover
            for c in range(self.columnCount()):
                item = self.item(r, c)
                if item is not None and not item.toolTip():
                    item.setToolTip(" ".join(item.text().split()))
        self.resizeRowsToContents()
        for r in range(self.rowCount()):
            self.setRowHeight(r, max(self.rowHeight(r), 2 * line + 10))
        header_view = self.horizontalHeader()
        header = max(2 * line + 10, header_view.needed_height()
                     if isinstance(header_view, WrapHeader) else 0)
        header_view.setFixedHeight(header)
        height = header + 2 * self.frameWidth() + 2
        height += sum(self.rowHeight(r) for r in range(self.rowCount()))
        if self.horizontalScrollBar().isVisible():
            height += self.horizontalScrollBar().height()
        self.setFixedHeight(max(height, header + 40))

    def resizeEvent(self, event) -> None:   # noqa: N802 - Qt API
        """A new width wraps names and cells differently: refit the rows."""
        super().resizeEvent(event)
        self._fit_height()

    @staticmethod
    def _theory_cells(optimal: ExactAttacker, targets: list[float]) -> list[str]:
        cells = [number(optimal.auc), pct(optimal.accuracy), pct(optimal.advantage)]
        cells += [pct(optimal.tpr_at(t), 2) for t in targets]
        cells += ["computed\nexactly", "—"]
        return cells

    @staticmethod
    def _attack_cells(attack: AttackEntry, targets: list[float]) -> list[str]:
        cells = [with_interval(attack.auc, attack.auc_ci),
                 with_interval(attack.accuracy, attack.accuracy_ci, pct, _pct_bare),
                 with_interval(attack.advantage, attack.advantage_ci, pct, _pct_bare)]
        for t in targets:
            row = attack.tpr_at(t)
            if row is None:
                cells.append("—")
            elif not row.measurable:
                cells.append(f"not measurable with\n{attack.n_negative or 0:,} non-members")
            else:
                cells.append(with_interval(row.tpr, row.tpr_ci, pct, _pct_bare))
        bound = attack.epsilon_bound
        text = number(bound.value if bound is not None else None)
        gdp = attack.gdp_bound
        if gdp is not None:  # tighter, but valid only because the noise is Gaussian: say so
            text += f"\n{number(gdp.value)} (Gaussian-DP\nheuristic)"
        cells.append(text)
        return cells

    @staticmethod
    def notes(result) -> list[str]:
        """The plain sentences the table needs under it, each once (a negative advantage, an
        interval across zero, "-0.0", "not measurable"; engine.wording.first_time_notes, which
        sits below the typed blocks and reads the entries as written)."""
        r = _loaded(result)
        return first_time_notes([a.to_dict() for a in r.attacks]) if r is not None else []

    def cell_text(self, row: int, column: int) -> str:
        item = self.item(row, column)
        return item.text() if item is not None else ""


def with_interval(value, ci, formatter=number, ci_formatter=None) -> str:
    """Value on the first line, its interval below: keeps the columns narrow."""
    ci_text = interval(ci, ci_formatter or formatter)
    return f"{formatter(value)}\n{ci_text}" if ci_text else formatter(value)


def _pct_bare(value) -> str:
    """Percent without the sign, for intervals under a value that has it: '[36.7, 38.0]'."""
    return pct(value).replace(" %", "")
