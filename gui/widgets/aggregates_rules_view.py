"""The count-tables results' section "The rules beside the attacks" (issue 34 item 2): the
disclosure rules officers already apply (ACRO's threshold, zeros, group disclosure, differencing,
and for tables of sums the n,k dominance and p-ratio rules) set beside what the attacks found.

It shows which verdict the officer's policy follows (prominent, first), the rules' summary and
where they disagree with the attacks, a row per published table (cells, cells failing, by rule),
a row per target — the disagreements first, "the rules pass, but the attack proves the person's
value" and "the rules fail, yet no attack could use it" — and the failing cells with the rules
they fail.

The view reads the typed block ``AggregatesTheory.rules`` (engine.results.aggregates_rules
.RulesBlock; issue 33 item 1: results are read by attribute, never key by key) and only
displays: a project reopened later shows exactly what was audited. A result without the block
(rules turned off, or a result from before issue 34) hides the section.

The failing cells' counts are the published counts (aggregates, as the release section shows
them), so they are listed; the per-target identifiers are the exposed-records list's, which the
engine redacts unless the audit was asked to list the records (step 3).
"""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QCheckBox, QLabel, QVBoxLayout, QWidget

from engine.numbers import is_finite
from engine.rules import RULES
from engine.wording import attack_words
from gui.widgets.aggregates_sections import loaded
from gui.widgets.results_view import escape, rich_label
from gui.widgets.tables import fill_table, make_table

SECTION_TITLE = "The rules beside the attacks"
RULE_WORDS = dict(RULES)                     # rule name -> its plain label
DISAGREE = ("rules_pass_attack_proves", "rules_fail_no_attack")
AGREEMENT_WORDS = {
    "rules_pass_attack_proves": "the rules pass, but the attack proves the person's value",
    "rules_fail_no_attack": "the rules fail, yet no attack could use it",
    "both_flag": "both flag this person",
    "both_pass": "both pass",
}
# The disagreements first (the one that matters most for a release the rules would pass),
# then the agreements.
AGREEMENT_ORDER = {"rules_pass_attack_proves": 0, "rules_fail_no_attack": 1, "both_flag": 2,
                   "both_pass": 3}
DISAGREE_COLOUR = QColor("#fdecea")          # a pale red row: the rules and attacks disagree
FOLLOWED_STYLE = ("QLabel { border: 2px solid #1565c0; border-radius: 4px; padding: 6px; "
                  "background: #e3f2fd; font-size: 11pt; }")
MAX_TARGET_ROWS = 500


def rule_label(name: str) -> str:
    """A rule's short plain name, "Threshold" for "Threshold (too few people in a cell)"
    (engine.rules.RULES; the tables are narrow), or its name for one this version lacks."""
    if name not in RULE_WORDS:
        return str(name).replace("_", " ")
    return RULE_WORDS[name].split(" (")[0].split(":")[0].strip()


def by_rule_text(by_rule) -> str:
    """"threshold 3, zeros 1" for the rules that flag cells, in RULES' order; "none" when
    none does; a rule that did not apply (None: no column of sums) is left out."""
    names = [n for n, _ in RULES if n in by_rule] + [n for n in by_rule if n not in RULE_WORDS]
    parts = [f"{rule_label(n)} {by_rule[n]:,}" for n in names
             if is_finite(by_rule[n]) and by_rule[n]]
    return ", ".join(parts) or "none"


def rules_result_text(target) -> str:
    """What the rules say about one target: "pass", or "fail: threshold, differencing"."""
    if not target.rules_fail:
        return "pass"
    failed = ", ".join(rule_label(n) for n in target.failed)
    return f"fail: {failed}" if failed else "fail"


def attack_result_text(target) -> str:
    """What the attacks did with the target: proved its value, found it, or nothing usable;
    the attack's plain name (engine.wording) when the result names it."""
    if target.attack_proves:
        text = "proves the value"
    elif target.attack_found:
        text = "finds the value (not a proof)"
    else:
        return "no attack found the value"
    if target.attack:
        text += f" ({attack_words(target.attack).plain_name})"
    return text


def target_rows(targets, disagreements_only: bool = False) -> list[tuple[list[str], bool]]:
    """The per-target rows, the disagreements first (stable within each kind), with whether
    each row is a disagreement."""
    ordered = sorted(targets, key=lambda t: AGREEMENT_ORDER[t.agreement]
                     if t.agreement in AGREEMENT_ORDER else len(AGREEMENT_ORDER))
    rows = []
    for t in ordered:
        disagree = t.agreement in DISAGREE
        if disagreements_only and not disagree:
            continue
        words = AGREEMENT_WORDS[t.agreement] if t.agreement in AGREEMENT_WORDS \
            else str(t.agreement)
        rows.append(([str(t.target), rules_result_text(t), attack_result_text(t), words,
                      "; ".join(t.cells) or "—"], disagree))
    return rows


def _count_text(value) -> str:
    if not is_finite(value):
        return "—"
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.1f}"


class RulesView(QWidget):
    """The section's content (module docstring); :meth:`set_result` hides the whole section
    (its group box) when the result holds no rules."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.followed_label = rich_label()
        self.followed_label.setObjectName("rules_followed")
        self.followed_label.setStyleSheet(FOLLOWED_STYLE)
        self.summary_label = rich_label()
        self.tables_table = make_table(
            ["Table", "Cells published", "Cells failing", "By rule"],
            "Each published table: its cells, how many fail at least one rule, and how many "
            "fail each rule (a cell can fail several).", stretch=3)
        self.targets_title = QLabel("Each target: the rules and the attacks")
        self.targets_title.setStyleSheet("font-weight: bold;")
        self.disagreements_only = QCheckBox("Show only the targets where they disagree")
        self.disagreements_only.setToolTip(
            "Hide the targets where the rules and the attacks agree (both flag the person, "
            "or both pass).")
        self.disagreements_only.toggled.connect(self._fill_targets)
        self.targets_table = make_table(
            ["Target", "Rules", "Attacks", "Agreement", "Cells concerned"],
            "Each attacked target: whether a cell it is counted in fails a rule, what the "
            "attacks learned about it, and whether the two agree. Pale red rows are "
            "disagreements.", stretch=3)
        self.cells_title = QLabel("The cells that fail a rule")
        self.cells_title.setStyleSheet("font-weight: bold;")
        self.cells_table = make_table(
            ["Table", "Cell", "Published count", "Rules failed", "Why"],
            "Each published cell that fails at least one rule, with the published count "
            "(an aggregate, as the release section shows it) and the reason.", stretch=4)
        self.cells_note = QLabel("")
        self.cells_note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.followed_label, self.summary_label, self.tables_table,
                       self.targets_title, self.disagreements_only, self.targets_table,
                       self.cells_title, self.cells_table, self.cells_note):
            layout.addWidget(widget)
        self._targets: tuple = ()

    def set_result(self, result) -> bool:
        """Show the rules of ``result`` (a result dict or a loaded result); False, and the
        section hidden, when it has none."""
        _, th = loaded(result)
        block = th.rules
        holder = self.parentWidget() if self.parentWidget() is not None else self
        holder.setVisible(block is not None)
        if block is None:
            self._targets = ()
            self.followed_label.setText("")
            self.summary_label.setText("")
            fill_table(self.tables_table, [])
            fill_table(self.targets_table, [])
            fill_table(self.cells_table, [])
            return False
        self.followed_label.setText(escape(block.followed_sentence or ""))
        self.followed_label.setVisible(bool(block.followed_sentence))
        self.summary_label.setText(self._summary_html(block))
        fill_table(self.tables_table, [
            [t.table, _count_text(t.cells), _count_text(t.failed), by_rule_text(t.by_rule)]
            for t in block.tables], max_visible=10)
        self.tables_table.setVisible(bool(block.tables))
        self._targets = tuple(block.targets)
        self._fill_targets()
        self._fill_cells(block)
        return True

    @staticmethod
    def _summary_html(block) -> str:
        """The rules' summary sentence (bold) and the disagreement's: the engine's words,
        which give the counts by rule and by kind of (dis)agreement."""
        parts = [f"<b>{escape(block.summary.sentence)}</b>" if block.summary.sentence else "",
                 escape(block.disagreement.sentence)]
        return "<br>".join(p for p in parts if p)

    def _fill_targets(self, *_args) -> None:
        rows = target_rows(self._targets, self.disagreements_only.isChecked())
        shown = rows[:MAX_TARGET_ROWS]
        fill_table(self.targets_table, [r for r, _ in shown], max_visible=12)
        for row, (_cells, disagree) in enumerate(shown):
            if disagree:
                for col in range(self.targets_table.columnCount()):
                    self.targets_table.item(row, col).setBackground(QBrush(DISAGREE_COLOUR))
        has = bool(self._targets)
        for widget in (self.targets_title, self.disagreements_only):
            widget.setVisible(has)
        self.targets_table.setVisible(has)

    def _fill_cells(self, block) -> None:
        rows = [[c.table, c.label, _count_text(c.count),
                 ", ".join(rule_label(n) for n in c.failed), c.reason or ""]
                for c in block.cells]
        fill_table(self.cells_table, rows, max_visible=10)
        has = bool(rows)
        self.cells_title.setVisible(has)
        self.cells_table.setVisible(has)
        more = block.cells_truncated
        self.cells_note.setText(f"{more:,} more failing cells are not listed here (the "
                                "list stops at 500)." if more else
                                ("" if has else "No published cell fails a rule."))
        self.cells_note.setVisible(bool(self.cells_note.text()))


def add_rules_section(view) -> RulesView:
    """Add the section to a results view (gui.widgets.results_view.ResultsView.add_section),
    updated with every result and hidden when a result has no rules."""
    rules = RulesView()
    view.add_section(SECTION_TITLE, rules, update=rules.set_result)
    return rules


__all__ = ["AGREEMENT_WORDS", "SECTION_TITLE", "RulesView", "add_rules_section",
           "attack_result_text", "by_rule_text", "rules_result_text", "target_rows"]
