"""The results of a count-tables audit (paper 003): the shared results view (verdict, ROC,
metrics, warnings, notes) for the attribute-inference attacks, plus what only this audit has —
who the tables expose and which cells pin them down, the membership game against what DP
permits, the sweeps over m/|D| and ε, and what was released.

The view only displays the result dict (docs/dev/aggregates_result_contract.md); it never
computes, so a project reopened later shows exactly what was audited.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QLabel,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.attacks.real_people import real_people_sentence
from engine.audits.aggregates import chance_corrected_accuracy
from engine.plots import series
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
from gui.formatting import interval, is_number, number, pct
from gui.widgets.metrics_table import MetricsTable
from gui.widgets.plot_view import PlotView
from gui.widgets.results_view import ResultsView, escape, rich_label
from gui.widgets.roc_plot import RocPlot, style_pen
from gui.widgets.sweep_plot import SweepCurve, SweepPlot
from gui.widgets.tables import fill_table, make_table, shorten_unmeasurable

AIA_FPR_AXIS = "False-positive rate (wrong values flagged as the target's)"
AIA_TPR_AXIS = "True-positive rate (targets' true values found)"
AIA_HINT = ("Each curve pools every (target, value) pair: the attack's score that the target "
            "has this value. The dotted diagonal is random guessing. Log-log axes show the "
            "confident guesses; untick them for the whole curve.")
MIA_HINT = ("Green area: every result the noise's DP guarantee allows in this game, where one "
            "person is swapped for another (ε′ = twice the release's ε). A curve above it "
            "would mean the guarantee is broken.")
MIA_NO_DP_HINT = ("The counts carry no noise, so no DP guarantee bounds these curves; the "
                  "dotted diagonal is random guessing.")
MAX_EXPOSED_ROWS = 500
KIND_WORDS = {"p_tables": "Census P-tables (sex × age group, overall and by race)",
              "marginals": "all 1- and 2-way marginals", "custom": "custom counting queries",
              "published": "an already-published table"}
MECHANISM_WORDS = {"none": "no noise", "laplace": "Laplace noise",
                   "discrete_laplace": "discrete Laplace noise",
                   "discrete_gaussian": "discrete Gaussian noise"}


def _theory(result: dict | None) -> dict:
    return (result or {}).get("theory") or {}


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

    def set_result(self, result: dict | None) -> None:
        super().set_result(result)
        attacks = (result or {}).get("attacks") or []
        chances = {round(float((a.get("details") or {}).get("chance") or 0), 9)
                   for a in attacks} - {0.0}
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
        if not result:
            return
        determined = (_theory(result).get("deterministic") or {}).get("determined")
        first = 1 if _theory(result).get("optimal_attacker") else 0
        for r, attack in enumerate(attacks):
            for offset, text in enumerate(aia_cells(attack, determined, bool(chance))):
                cell = QTableWidgetItem(text)
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.setItem(first + r, 1 + offset, cell)
            for offset, text in enumerate(real_people_cells(attack)):
                cell = QTableWidgetItem(text)
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.setItem(first + r, real_at + offset, cell)


    @staticmethod
    def notes(result: dict | None) -> list[str]:
        """The shared notes, then what the attribute game's best-of chose on the attacker's
        own stand-ins (the sentence the report prints under its table)."""
        attacks = (result or {}).get("attacks") or []
        real = real_people_notes(result)
        return (MetricsTable.notes(result) + real
                + [w for w in map(shadow_choice_sentence, attacks) if w])


def real_people_notes(result: dict | None) -> list[str]:
    """Under the table: which figure is about which game, and the attack the verdict reads on
    the real people (engine.attacks.real_people.real_people_sentence), when the result has
    it (results from before issue 32 do not)."""
    attacks = (result or {}).get("attacks") or []
    if not any((a.get("details") or {}).get("real_people") for a in attacks):
        return []
    out = [AiaMetricsTable.GAME_NOTE]
    name = (((result or {}).get("verdict") or {}).get("headline") or {}).get("name")
    head = next((a for a in attacks if a.get("name") == name), None)
    rp = ((head or {}).get("details") or {}).get("real_people")
    if rp:
        feature = (_theory(result).get("game") or {}).get("sensitive") or "sensitive value"
        out.append(f"{plain_name(head)}: "
                   + real_people_sentence(rp, feature=feature))
    return out


def real_people_cells(attack: dict) -> tuple[str, str]:
    """The real-people hit rate with its interval and, below, the obvious guess's and the
    data-only guess's on the same people; the scaled score with its interval. "—" for a
    result without them (a published table, or one from before issue 32)."""
    rp = (attack.get("details") or {}).get("real_people")
    if not rp:
        return "—", "—"
    text = pct(rp.get("accuracy"))
    ci = interval(rp.get("accuracy_ci"), lambda v: pct(v).replace(" %", ""))
    if ci:
        text += f"\n{ci}"
    og, do = rp.get("obvious_guess") or {}, rp.get("data_only")
    text += f"\nobvious guess {pct(og.get('accuracy'))}"
    if do:
        text += f"\ndata-only guess {pct(do.get('accuracy'))}"
    def two(v) -> str:           # the scaled score as the summary writes it: 0.17
        return f"{v:.2f}" if is_number(v) else "—"
    scaled = two(rp.get("scaled_score"))
    s_ci = interval(rp.get("scaled_score_ci"), two)
    if s_ci:
        scaled += f"\n{s_ci}"
    return text, scaled


def aia_cells(attack: dict, determined=None, chance_in_header: bool = False
              ) -> tuple[str, str, str]:
    """Top-1 accuracy with its interval (and chance, unless the header gives it), the
    verdict's best-guess score with its interval, and the AUC without the determined
    targets."""
    details = attack.get("details") or {}
    top1_text = pct(details.get("top1_accuracy"))
    if not chance_in_header and is_number(details.get("chance")):
        top1_text += f" (chance {pct(details['chance'])})"
    ci = interval(details.get("top1_accuracy_ci"), lambda v: pct(v).replace(" %", ""))
    if ci:
        top1_text += f"\n{ci}"
    score_text = "—"
    chance = details.get("chance")
    if is_number(details.get("top1_accuracy")) and is_number(chance) and 0 < chance < 1:
        # The verdict's figure (engine.audits.aggregates.chance_corrected_accuracy), in
        # percent as the verdict writes it; its interval is the top-1 interval rescaled.
        score_text = pct(chance_corrected_accuracy(details["top1_accuracy"], chance))
        top1_ci = details.get("top1_accuracy_ci")
        if isinstance(top1_ci, (list, tuple)) and len(top1_ci) == 2 and \
                all(is_number(v) for v in top1_ci):
            score_ci = [chance_corrected_accuracy(v, chance) for v in top1_ci]
            score_text += "\n" + interval(score_ci, lambda v: pct(v).replace(" %", ""))
    rest = details.get("excluding_determined")
    if rest:
        rest_text = f"{number(rest.get('auc'))} {interval(rest.get('auc_ci'))}".strip()
        if is_number(rest.get("targets")):
            rest_text += f"\n{rest['targets']:,} targets"
    elif determined == 0:
        rest_text = "same as\nAUC"             # no target is determined: nothing set aside
    else:
        rest_text = "—\ntoo few left"
    return top1_text, score_text, rest_text


# ====================================================================== exposed records

def record_text(record) -> str:
    """A record's quasi-identifiers ("sex=Male, age=34") or "(redacted)"."""
    if isinstance(record, dict):
        return ", ".join(f"{k}={v}" for k, v in record.items())
    return str(record)


class ExposedRecordsView(QWidget):
    """The targets the tables provably determine, with the released cells that can count each
    one — so the officer sees which tables to coarsen or suppress."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary_label = rich_label()
        self.tables_label = rich_label()
        self.table = make_table(["Record (quasi-identifiers)", "Inferred value", "Right?",
                             "Tables", "Cells that pin it down"],
                            "Each provably determined target: the released cells that can "
                            "count a record with its quasi-identifiers. Coarsening or "
                            "suppressing those cells removes the proof.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.tables_label)
        layout.addWidget(self.table)

    def set_result(self, result: dict | None) -> None:
        records = (result or {}).get("exposed_records") or []
        det = _theory(result).get("deterministic") or {}
        game = _theory(result).get("game") or {}
        if result is None:
            self.summary_label.setText("—")
            self.tables_label.setText("")
            self.table.setVisible(False)
            return
        targets = det.get("targets", game.get("targets"))
        sensitive = escape(game.get("sensitive") or "the sensitive attribute")
        count = len(records)
        of = f" of the {targets:,} targets attacked" if is_number(targets) else ""
        if not records:
            self.summary_label.setText(
                f"<b>No record is provably determined by the tables</b>{of}: for every target "
                f"the released counts leave at least two values of {sensitive} possible.")
            self.tables_label.setText("")
            self.table.setVisible(False)
            return
        correct = sum(1 for r in records if r.get("value_correct"))
        html = (f"<b>{count:,}{of} are provably determined by the tables</b>: the released "
                f"counts allow only one value of {sensitive}, and it is right for "
                f"{correct:,} of them.")
        if det.get("time_limited"):
            html += (f" The solver hit its time limit on {det['time_limited']:,} targets, so "
                     "more may be exposed.")
        redacted = any(r.get("record") == "(redacted)" for r in records)
        if redacted:
            html += (" Records and values are redacted; to list them, tick “List the exposed "
                     "records” in step 3 (Attacks &amp; run) and run again.")
        self.summary_label.setText(html)
        implicated = Counter(t for r in records for t in r.get("tables") or [])
        if implicated:
            tables = ", ".join(f"{escape(t)} ({n:,})" for t, n in implicated.most_common())
            self.tables_label.setText(f"Tables that pin exposed records down (records): "
                                      f"{tables}. Coarsen or suppress these first.")
        else:
            self.tables_label.setText("")
        rows = []
        for r in records[:MAX_EXPOSED_ROWS]:
            cells = r.get("pinning_cells") or []       # listed only with the records
            count = r.get("pinning_count", len(cells))
            rows.append([record_text(r.get("record")), str(r.get("value", "(redacted)")),
                         "yes" if r.get("value_correct") else "no",
                         ", ".join(r.get("tables") or []),
                         f"{count:,}" + (": " + "; ".join(cells) if cells else "")])
        fill_table(self.table, rows)
        self.table.setVisible(True)


# ====================================================================== membership game

def dp_sentence(dp: dict | None, game: dict) -> str:
    """What the noise guarantees, in words (theory.dp)."""
    if not dp:
        return ("No noise is added: the counts give no differential-privacy guarantee, so "
                "nothing bounds what an attacker can learn from them.")
    values = game.get("values") or []
    text = (f"The noise makes the whole release ε = {number(dp.get('epsilon_release'))}-DP for "
            f"adding or removing one person, and ε′ = {number(dp.get('epsilon_change'))} for "
            f"changing one person's value")
    if is_number(dp.get("delta")) and dp.get("delta"):
        text += f" (δ = {dp['delta']:.0e})"
    text += "."
    if is_number(dp.get("aia_top1_bound")):
        text += (f" So no attacker can guess a target's value right more than "
                 f"{pct(dp['aia_top1_bound'])} of the time")
        if values:
            text += f" ({len(values)} values, guessing: {pct(1 / len(values))})"
        text += "."
    if is_number(dp.get("mia_accuracy_bound")):
        text += (f" Membership: accuracy at most {pct(dp['mia_accuracy_bound'])}.")
    if dp.get("note"):
        text += f" {dp['note']}"
    return text


class MembershipView(QWidget):
    """The MIA game of paper 003 §6.1 (Fig. 9): the attacks' ROC against the DP region and
    their metrics."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary_label = rich_label()
        self.roc_plot = RocPlot()
        self.roc_plot.set_log(True)
        self.roc_plot.hint_label.setText(MIA_HINT)
        self.roc_plot.plot_item.setLabel("bottom", "False-positive rate (absent people "
                                                   "accused)")
        self.roc_plot.plot_item.setLabel("left", "True-positive rate (present people found)")
        self.metrics_table = MetricsTable()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.roc_plot, 1)
        layout.addWidget(self.metrics_table)

    def set_result(self, result: dict | None) -> bool:
        """Show the game; False when the result has none (the section says so)."""
        theory = _theory(result)
        membership = theory.get("membership")
        if not membership:
            self.summary_label.setText("—" if result is None else
                                       "The membership game was not played (tick “Also play "
                                       "the membership game” in step 3).")
            self.roc_plot.set_result(None)
            self.metrics_table.set_result(None)
            self.roc_plot.setVisible(False)
            self.metrics_table.setVisible(False)
            return False
        dp = theory.get("dp") or {}
        # The verdict travels too: its evidence holds the membership attacks' tests (one Holm
        # family over both games), which the "Beats guessing" column reads.
        sub = {"attacks": membership.get("attacks") or [],
               "theory": {"dp_region": dp.get("dp_region")} if dp.get("dp_region") else {},
               "verdict": result.get("verdict") if isinstance(result, dict) else None}
        self.roc_plot.set_result(sub)
        self.metrics_table.set_result(sub)
        shorten_unmeasurable(self.metrics_table)
        self.roc_plot.setVisible(True)
        self.metrics_table.setVisible(True)
        targets, proved = membership.get("targets"), membership.get("proved")
        html = ("Can the attacker tell whether a target is in the data at all? Half the "
                "targets are left out of the release (paper 003 §6.1).")
        if is_number(targets) and is_number(proved):
            html += (f" <b>The tables prove membership for {proved:,} of {targets:,} "
                     f"targets</b> ({membership.get('proved_correct', 0):,} proofs right).")
        if not dp.get("dp_region"):
            html += " Without noise there is no DP region to compare with."
        for attack in sub["attacks"]:         # what a best-of attack chose, and why
            chose = shadow_choice_sentence(attack)
            if chose:
                html += f"<br>{escape(chose)}"
        self.roc_plot.hint_label.setText(MIA_HINT if dp.get("dp_region") else MIA_NO_DP_HINT)
        self.summary_label.setText(html)
        return True


# ====================================================================== sweeps

SWEEP_TITLES = {"fraction": "AUC against the share of counts released (paper 003 Fig. 6)",
                "noise": "AUC against the noise: Laplace ε per count (paper 003 Fig. 8)"}
SWEEP_TEXTS = {
    "fraction": ("Share of the queries released m/|D|",
                 "More released counts help every attack (paper 003 Fig. 6)."),
    "noise": ("ε per count (smaller = more noise)",
              "Noise pushes the attacks towards guessing (paper 003 Fig. 8); reconstruction "
              "attacks fall first."),
}


def sweep_curves(result: dict, key: str) -> tuple[list, list[SweepCurve]]:
    """The swept values and the curves of ``theory.sweeps[key]``: every swept attack's AUC
    with its interval and the share of targets determined — engine.plots.series
    .count_sweep_series, which the report's chart draws too (same words, colours, points)."""
    curves = series.count_sweep_series(result, key)
    values = sorted({x for c in curves for x in c.x})
    out = []
    for c in curves:
        at = {x: i for i, x in enumerate(c.x)}
        intervals = ([[c.lower[at[v]], c.upper[at[v]]] if v in at else None for v in values]
                     if c.lower is not None else None)
        out.append(SweepCurve(c.label, [c.y[at[v]] if v in at else None for v in values],
                              QColor(*c.style.color), intervals=intervals, markers=True,
                              style_pen=style_pen(c.style), key=c.key))
    return values, out


class SweepsView(QWidget):
    """AUC against m/|D| and against ε, each with the audited setting marked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary_label = rich_label()
        self.plots = {"fraction": SweepPlot(), "noise": SweepPlot()}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary_label)
        for key, plot in self.plots.items():
            title = QLabel(SWEEP_TITLES[key])
            title.setStyleSheet("font-weight: bold;")
            plot.layout().insertWidget(0, title)      # hides and shows with its plot
            plot.view.plot_widget.setMinimumHeight(240)
            layout.addWidget(plot, 1)

    def set_result(self, result: dict | None) -> bool:
        sweeps = _theory(result).get("sweeps") or {}
        shown = False
        for key, plot in self.plots.items():
            sweep = sweeps.get(key)
            has = bool(sweep and sweep.get("values"))
            plot.setVisible(has)
            if not has:
                continue
            shown = True
            axis, text = SWEEP_TEXTS[key]
            values, curves = sweep_curves(result, key)
            # The random-guess line, the audited setting and the axis scale: engine.plots
            # .series, as in the report.
            guides = series.count_sweep_guides(result, key)
            if any(g.key == "current" for g in guides):
                # Only when the line is drawn: a release of all counts (fraction 0) has no
                # place on this axis, and the caption promised a line that was not there.
                text += " The dashed line marks the release audited."
            plot.show_curves(values, curves, axis_label=axis, guides=guides,
                             log_x=series.count_sweep_log_x(result, key),
                             y_label="AUC (0.5 = guessing)", text=text)
        self.summary_label.setText(
            "" if shown else ("—" if result is None else
                              "No sweeps in this result (enter released shares or ε values "
                              "under “Sweeps” in step 3 to draw them)."))
        self.summary_label.setVisible(not shown)
        return shown


# ====================================================================== the release

def release_html(theory: dict) -> str:
    """The release, the game and the deterministic module's numbers, as a short list."""
    release = theory.get("release") or {}
    game = theory.get("game") or {}
    det = theory.get("deterministic") or {}
    items = []
    if release:
        tables = release.get("tables") or []
        table_text = ", ".join(f"{escape(t.get('table', ''))} ({t.get('cells', 0):,})"
                               for t in tables[:20]) + (" …" if len(tables) > 20 else "")
        queries, candidates = release.get("queries"), release.get("candidates")
        m_text = (f"{queries:,} of {candidates:,} cells" if is_number(queries)
                  and is_number(candidates) else "—")
        if is_number(release.get("fraction")):
            m_text += f" ({release['fraction']:g} cells per person in the data)"
        kind = KIND_WORDS.get(release.get("kind"), release.get("kind") or "—")
        items.append(f"<b>Released:</b> {escape(kind)} — {m_text}; tables (cells released): "
                     f"{table_text or '—'}.")
        sens = release.get("sensitivity")
        exact = "" if release.get("sensitivity_exact", True) else " (an upper bound)"
        mech = release.get("mechanism", "none")
        noise = MECHANISM_WORDS.get(mech, mech)
        if mech != "none":
            noise += (f", ε = {number(release.get('epsilon'))} "
                      f"{'per count' if release.get('budget') == 'per_query' else 'for the release'}"
                      f", noise scale {number(release.get('noise_scale'))}")
            if is_number(release.get("delta")) and mech == "discrete_gaussian":
                noise += f", δ = {release['delta']:.0e}"
        items.append(f"<b>Sensitivity:</b> one person changes at most {number(sens)} released "
                     f"counts{exact}. <b>Noise:</b> {escape(noise)}.")
    if game:
        aux = AUX_WORDS.get(game.get("auxiliary_source"), game.get("auxiliary_source") or "—")
        qi = ", ".join(escape(q) for q in game.get("quasi_identifiers") or [])
        values = game.get("values") or []
        items.append(
            f"<b>Game:</b> the attacker knows {qi or '—'} of each target and tries to learn "
            f"{escape(game.get('sensitive') or '—')} ({len(values)} values, chance "
            f"{pct(game.get('chance'))}); {_count(game.get('records'))} people in the data, "
            f"{_count(game.get('unique_records'))} of them the only one with their "
            f"{qi or 'known details'}, {_count(game.get('targets'))} attacked; the attacker's "
            f"sample of similar people: {_count(game.get('auxiliary_records'))} records "
            f"({escape(aux)}).")
    if det:
        # The step's plain name, as the proof-then-learn attack's description says it.
        items.append(f"<b>Proof step:</b> the counts prove the value of "
                     f"{_count(det.get('determined'))} of {_count(det.get('targets'))} targets "
                     f"({_count(det.get('correct'))} right); solver time per target median "
                     f"{number(det.get('median_s'))} s, 95th percentile "
                     f"{number(det.get('p95_s'))} s.")
    published = theory.get("published")
    if published:
        items.append(f"<b>Published table:</b> {_count(published.get('rows'))} rows for "
                     f"|D| = {_count(published.get('records'))}; "
                     f"{'consistent' if published.get('consistent') else 'INCONSISTENT'}; "
                     f"{_count(published.get('determined'))} of "
                     f"{_count(published.get('candidates'))} auxiliary combinations pinned "
                     f"down. {escape(published.get('note') or '')}")
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>" if items else "—"


AUX_WORDS = {"file": "from the auxiliary file", "protected_records":
             "resampled from the protected records that are not targets",
             "synthetic": "synthetic, from the same distribution",
             "published_sample": "the attacker's sample"}


def _count(value) -> str:
    return f"{value:,}" if is_number(value) else "—"


class ReleaseView(QWidget):
    """What was released (kind, tables, m, sensitivity, noise), the game and the first
    released cells with their published counts."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary_label = rich_label()
        self.dp_label = rich_label()
        self.cells_table = make_table(["Table", "Cell", "Released count"],
                                  "The first released cells with the counts as published "
                                  "(after noise, if any).", stretch=1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.dp_label)
        layout.addWidget(self.cells_table)

    def set_result(self, result: dict | None) -> None:
        theory = _theory(result)
        self.summary_label.setText("—" if result is None else release_html(theory))
        self.dp_label.setText("" if result is None else escape(
            dp_sentence(theory.get("dp"), theory.get("game") or {})))
        preview = (theory.get("release") or {}).get("preview") or []
        rows = []
        for cell in preview:
            table = str(cell.get("table", ""))
            label = str(cell.get("label", ""))
            if label.startswith(f"{table}: "):
                label = label[len(table) + 2:]
            rows.append([table, label, _count(cell.get("count"))])
        fill_table(self.cells_table, rows, max_visible=8)
        self.cells_table.setVisible(bool(rows))


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

