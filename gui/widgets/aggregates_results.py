"""The results of a count-tables audit (paper 003): the shared results view (verdict, ROC,
metrics, warnings, notes) for the attribute-inference attacks, plus what only this audit has —
who the tables expose and which cells pin them down, the membership game against what DP
permits, the sweeps over m/|D| and ε, and what was released (those sections:
gui/widgets/aggregates_sections.py, issue 33 item 2).

The view only displays the result (docs/dev/aggregates_result_contract.md); it never computes,
so a project reopened later shows exactly what was audited. It reads the typed result
(engine.results.aggregates; issue 33 item 1): a result dict or a loaded result, read once by
engine.results.loaded.load_result.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidgetItem, QWidget

from engine.attacks.real_people import real_people_sentence
from engine.games.aggregates_summary import chance_corrected_accuracy
from engine.headline import headline_of_result
from engine.numbers import is_finite
from engine.results.aggregates import CountDetails
from engine.wording import (
    BEST_GUESS_RIGHT,
    BEST_GUESS_SCORE,
    COUNT_TABLE_TERMS,
    REAL_PEOPLE_TERMS,
    RIGHT_ON_REAL_PEOPLE,
    SCALED_SCORE,
    VALUE_CHECKS_RIGHT,
    plain_name,
    shadow_choice_sentence,
)
from gui.formatting import interval, number, pct
from gui.widgets.aggregates_rules_view import add_rules_section
from gui.widgets.aggregates_sections import (
    ExposedRecordsView,
    MembershipView,
    ReleaseView,
    SweepsView,
    dp_sentence,
    loaded,
    record_text,
    release_html,
    sweep_curves,
)
from gui.widgets.metrics_table import MetricsTable
from gui.widgets.plot_view import PlotView
from gui.widgets.results_view import ResultsView
from gui.widgets.tables import shorten_unmeasurable

AIA_FPR_AXIS = "False-positive rate (wrong values flagged as the target's)"
AIA_TPR_AXIS = "True-positive rate (targets' true values found)"
AIA_HINT = ("Each curve pools every (target, value) pair: the attack's score that the target "
            "has this value. The dotted diagonal is random guessing. Log-log axes show the "
            "confident guesses; untick them for the whole curve.")


# ====================================================================== AIA metrics

class AiaMetricsTable(MetricsTable):
    """The shared metrics of the attribute-inference attacks, plus how often the best guess is
    right beside the chance level 1/|V|, the verdict's best-guess score and the AUC on the
    targets the tables do not determine (paper 003 Fig. 5). The three accuracies carry the
    names the summary and the report use (engine.wording.COUNT_TABLE_TERMS), their technical
    names in the tooltips: the shared "Balanced accuracy" beside the verdict's score read as
    one measure with two values. The ε lower-bound column is hidden: pooled (target, value)
    pairs are not a DP distinguishing game, so no ε can be read off them (the DP bound is
    given below)."""

    TOP1_TIP = (COUNT_TABLE_TERMS[BEST_GUESS_RIGHT] + " With its Clopper–Pearson interval.")
    SCORE_TIP = (COUNT_TABLE_TERMS[BEST_GUESS_SCORE] + " With the interval of the best "
                 "guess's hit rate put on the same scale.")
    REST_TIP = ("The same attack on the targets the tables do not pin down: what is left once "
                "the provably exposed records are set aside (paper 003 Fig. 5).")
    GAME_NOTE = ("“Best guess right” and the best-guess score are measured in the paper's "
                 "game, where each person's value is replaced by a random draw: blind "
                 "guessing is the line there. “Right on real people” is the same attack on "
                 "the tables as published and the people's real values, beside the obvious "
                 "guess (the most common value, for everyone) and the data-only guess.")
    REAL_TIP = (REAL_PEOPLE_TERMS[RIGHT_ON_REAL_PEOPLE] + " With its Clopper–Pearson "
                "interval, and below it the obvious guess's and the data-only guess's hit "
                "rates on the same people.")
    SCALED_TIP = REAL_PEOPLE_TERMS[SCALED_SCORE]

    def set_result(self, result) -> None:
        super().set_result(result)
        r, th = loaded(result)
        attacks = r.attacks if r is not None else ()
        chances = {round(float(th.details_of(a).chance or 0), 9) for a in attacks} - {0.0}
        chance = (f"\n(the game's; chance {pct(next(iter(chances)))})" if len(chances) == 1
                  else "")
        for offset, (title, tip) in enumerate(((f"{BEST_GUESS_RIGHT}{chance}", self.TOP1_TIP),
                                               (f"{BEST_GUESS_SCORE}\n(the verdict's)",
                                                self.SCORE_TIP),
                                               ("AUC, targets not\ndetermined",
                                                self.REST_TIP))):
            self.insertColumn(1 + offset)
            item = QTableWidgetItem(title)
            item.setToolTip(tip)
            self.setHorizontalHeaderItem(1 + offset, item)
        for col in range(self.columnCount()):
            item = self.horizontalHeaderItem(col)
            if item is not None and item.text() == "Balanced\naccuracy":
                item.setText(VALUE_CHECKS_RIGHT)   # its scale and meaning: the tooltip
                item.setToolTip(COUNT_TABLE_TERMS[VALUE_CHECKS_RIGHT])
        # The officer's question beside the game's (issue 32 item 1): the real people against
        # the obvious guess, after the game's three columns.
        real_at = 4
        for offset, (title, tip) in enumerate(((RIGHT_ON_REAL_PEOPLE.replace(" on ", "\non ",
                                                                              1),
                                                self.REAL_TIP),
                                               (f"{SCALED_SCORE}\n(0 = obvious guess)",
                                                self.SCALED_TIP))):
            self.insertColumn(real_at + offset)
            item = QTableWidgetItem(title)
            item.setToolTip(tip)
            self.setHorizontalHeaderItem(real_at + offset, item)
        self.setColumnHidden(self.columnCount() - 1, True)
        shorten_unmeasurable(self)
        if r is None:
            return
        determined = th.deterministic.determined if th.deterministic else None
        first = 1 if th.optimal_attacker else 0
        for row, attack in enumerate(attacks):
            d = th.details_of(attack)
            for offset, text in enumerate(aia_cells(d, determined, bool(chance))):
                cell = QTableWidgetItem(text)
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.setItem(first + row, 1 + offset, cell)
            for offset, text in enumerate(real_people_cells(d)):
                cell = QTableWidgetItem(text)
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.setItem(first + row, real_at + offset, cell)

    @staticmethod
    def notes(result) -> list[str]:
        """The shared notes, then what the attribute game's best-of chose on the attacker's
        own stand-ins (the sentence the report prints under its table)."""
        r, _ = loaded(result)
        attacks = [a.to_dict() for a in r.attacks] if r is not None else []
        real = real_people_notes(result)
        return (MetricsTable.notes(result) + real
                + [w for w in map(shadow_choice_sentence, attacks) if w])


def real_people_notes(result) -> list[str]:
    """Under the table: which figure is about which game, and the attack the verdict reads on
    the real people (engine.attacks.real_people.real_people_sentence), when the result has
    it (results from before issue 32 do not)."""
    r, th = loaded(result)
    if r is None or not any(th.details_of(a).real_people for a in r.attacks):
        return []
    out = [AiaMetricsTable.GAME_NOTE]
    # The attack the verdict's stored headline names (none for a result saved without one).
    stored = headline_of_result(r) if r.verdict is not None and r.verdict.headline else None
    head = next((a for a in r.attacks if stored is not None and a.name == stored.name), None)
    rp = th.details_of(head).real_people if head is not None else None
    if rp:
        feature = th.game.sensitive or "sensitive value"
        out.append(f"{plain_name(head.to_dict())}: "
                   + real_people_sentence(rp.source, feature=feature))
    return out


def _pct_interval(ci) -> str:
    return interval(ci, lambda v: pct(v).replace(" %", ""))


def real_people_cells(d: CountDetails) -> tuple[str, str]:
    """The real-people hit rate with its interval and, below, the obvious guess's and the
    data-only guess's on the same people; the scaled score with its interval. "—" for a
    result without them (a published table, or one from before issue 32)."""
    rp = d.real_people
    if not rp:
        return "—", "—"
    text = pct(rp.accuracy)
    ci = _pct_interval(rp.accuracy_ci)
    if ci:
        text += f"\n{ci}"
    text += f"\nobvious guess {pct(rp.obvious_guess.accuracy)}"
    if rp.has_data_only:
        text += f"\ndata-only guess {pct(rp.data_only_accuracy)}"

    def two(v) -> str:           # the scaled score as the summary writes it: 0.17
        return f"{v:.2f}" if is_finite(v) else "—"
    scaled = two(rp.scaled_score)
    s_ci = interval(rp.scaled_score_ci, two)
    if s_ci:
        scaled += f"\n{s_ci}"
    return text, scaled


def aia_cells(d: CountDetails, determined=None, chance_in_header: bool = False
              ) -> tuple[str, str, str]:
    """Top-1 accuracy with its interval (and chance, unless the header gives it), the
    verdict's best-guess score with its interval, and the AUC without the determined
    targets (``d``: the attack's typed details)."""
    top1, chance = d.top1_accuracy, d.chance
    top1_text = pct(top1)
    if not chance_in_header and is_finite(chance):
        top1_text += f" (chance {pct(chance)})"
    ci = _pct_interval(d.top1_accuracy_ci)
    if ci:
        top1_text += f"\n{ci}"
    score_text = "—"
    if is_finite(top1) and is_finite(chance) and 0 < chance < 1:
        # The verdict's figure (engine.games.aggregates_summary.chance_corrected_accuracy), in
        # percent as the verdict writes it; its interval is the top-1 interval rescaled.
        score_text = pct(chance_corrected_accuracy(top1, chance))
        top1_ci = d.top1_accuracy_ci
        if top1_ci is not None and all(is_finite(v) for v in top1_ci):
            score_ci = [chance_corrected_accuracy(v, chance) for v in top1_ci]
            score_text += "\n" + _pct_interval(score_ci)
    rest = d.excluding_determined
    if rest:
        rest_text = f"{number(rest.auc)} {interval(rest.auc_ci)}".strip()
        if is_finite(rest.targets):
            rest_text += f"\n{rest.targets:,} targets"
    elif determined == 0:
        rest_text = "same as\nAUC"             # no target is determined: nothing set aside
    else:
        rest_text = "—\ntoo few left"
    return top1_text, score_text, rest_text


# ====================================================================== the whole view

class AggregatesResultsView(ResultsView):
    """The shared results view for the attribute-inference attacks, with this audit's own
    sections between the metrics and the warnings."""

    ROC_TITLE = "Attribute inference: can the tables reveal a target's value? (ROC, log-log)"
    METRICS_TITLE = "Attribute-inference attacks (95 % confidence intervals)"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._use_aia_metrics()
        self.roc_plot.set_log(True)
        self.roc_plot.hint_label.setText(AIA_HINT)
        self.roc_plot.plot_item.setLabel("bottom", AIA_FPR_AXIS)
        self.roc_plot.plot_item.setLabel("left", AIA_TPR_AXIS)
        self.exposed_view = ExposedRecordsView()
        self.membership_view = MembershipView()
        self.sweeps_view = SweepsView()
        self.release_view = ReleaseView()
        self.add_section("Exposed records: provably determined by the tables",
                         self.exposed_view, update=self.exposed_view.set_result)
        self.rules_view = add_rules_section(self)     # issue 34 item 2; hidden without rules
        self.membership_box = self.add_section(
            "Membership inference: can the tables reveal who is in the data?",
            self.membership_view, 2, update=self.membership_view.set_result)
        self.add_section("Sweeps: more released counts, more noise", self.sweeps_view, 2,
                         update=self.sweeps_view.set_result)
        self.add_section("What was released, and the game played", self.release_view,
                         update=self.release_view.set_result)

    def _use_aia_metrics(self) -> None:
        """Swap the shared metrics table for the one with top-1 accuracy (same place)."""
        old = self.metrics_table
        new = AiaMetricsTable()
        new.setMinimumHeight(old.minimumHeight())
        old.parentWidget().layout().replaceWidget(old, new)
        old.setParent(None)
        old.deleteLater()
        self.metrics_table = new
        new.set_result(self._result or None)

    def plots(self) -> dict[str, PlotView]:
        """Every plot of the view by name (for tests and screenshots)."""
        return {"roc": self.roc_plot.view, "mia_roc": self.membership_view.roc_plot.view,
                "sweep_fraction": self.sweeps_view.plots["fraction"].view,
                "sweep_noise": self.sweeps_view.plots["noise"].view}


__all__ = ["AggregatesResultsView", "AiaMetricsTable", "ExposedRecordsView", "MembershipView",
           "ReleaseView", "SweepsView", "aia_cells", "dp_sentence", "real_people_cells",
           "real_people_notes", "record_text", "release_html", "sweep_curves"]
