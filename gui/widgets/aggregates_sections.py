"""The count-tables results view's own sections (paper 003): who the tables expose and which
cells pin them down (Alg. 1), the membership game against what DP permits (§6.1), the sweeps
over m/|D| and ε (Fig. 6, 8) and what was released. Split out of
gui/widgets/aggregates_results.py (issue 33 item 2).

Each section takes a result dict or a loaded result, reads it once through
engine.results.loaded.load_result and then by attribute (engine.results.aggregates; issue 33
item 1). It only displays: it never computes, so a project reopened later shows exactly what
was audited.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.numbers import is_finite
from engine.plots import count_sweeps
from engine.results.aggregates import AggregatesTheory, CountGame, DpBounds, load_theory
from engine.results.loaded import LoadedResult, load_result
from engine.wording import shadow_choice_sentence
from gui.formatting import number, pct
from gui.widgets.metrics_table import MetricsTable
from gui.widgets.results_view import escape, rich_label
from gui.widgets.roc_plot import RocPlot, style_pen
from gui.widgets.sweep_plot import SweepCurve, SweepPlot
from gui.widgets.tables import fill_table, make_table, shorten_unmeasurable

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
AUX_WORDS = {"file": "from the auxiliary file", "protected_records":
             "resampled from the protected records that are not targets",
             "synthetic": "synthetic, from the same distribution",
             "published_sample": "the attacker's sample"}


def loaded(result) -> tuple[LoadedResult | None, AggregatesTheory]:
    """The loaded result (None for no result) and its count-tables part (empty when it has
    none)."""
    if result is None or (isinstance(result, Mapping) and not result):
        return None, AggregatesTheory()
    r = load_result(result)
    return r, r.theory if isinstance(r.theory, AggregatesTheory) else AggregatesTheory()


def _count(value) -> str:
    return f"{value:,}" if is_finite(value) else "—"


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

    def set_result(self, result) -> None:
        if result is None:
            self.summary_label.setText("—")
            self.tables_label.setText("")
            self.table.setVisible(False)
            return
        _, th = loaded(result)
        records, det, game = th.exposed, th.deterministic, th.game
        targets = det.targets if det is not None and det.targets is not None else game.targets
        sensitive = escape(game.sensitive or "the sensitive attribute")
        count = len(records)
        of = f" of the {targets:,} targets attacked" if is_finite(targets) else ""
        if not records:
            self.summary_label.setText(
                f"<b>No record is provably determined by the tables</b>{of}: for every target "
                f"the released counts leave at least two values of {sensitive} possible.")
            self.tables_label.setText("")
            self.table.setVisible(False)
            return
        correct = sum(1 for e in records if e.value_correct)
        html = (f"<b>{count:,}{of} are provably determined by the tables</b>: the released "
                f"counts allow only one value of {sensitive}, and it is right for "
                f"{correct:,} of them.")
        if det is not None and det.time_limited:
            html += (f" The solver hit its time limit on {det.time_limited:,} targets, so "
                     "more may be exposed.")
        if any(e.record == "(redacted)" for e in records):
            html += (" Records and values are redacted; to list them, tick “List the exposed "
                     "records” in step 3 (Attacks &amp; run) and run again.")
        self.summary_label.setText(html)
        implicated = Counter(t for e in records for t in e.tables)
        if implicated:
            tables = ", ".join(f"{escape(t)} ({n:,})" for t, n in implicated.most_common())
            self.tables_label.setText(f"Tables that pin exposed records down (records): "
                                      f"{tables}. Coarsen or suppress these first.")
        else:
            self.tables_label.setText("")
        rows = []
        for e in records[:MAX_EXPOSED_ROWS]:
            cells = list(e.pinning_cells)       # listed only with the records
            rows.append([record_text(e.record),
                         str(e.value) if e.has_value else "(redacted)",
                         "yes" if e.value_correct else "no",
                         ", ".join(e.tables),
                         f"{e.cell_count:,}" + (": " + "; ".join(cells) if cells else "")])
        fill_table(self.table, rows)
        self.table.setVisible(True)


# ====================================================================== membership game

def dp_sentence(dp: DpBounds | None, game: CountGame) -> str:
    """What the noise guarantees, in words (theory.dp)."""
    if not dp:
        return ("No noise is added: the counts give no differential-privacy guarantee, so "
                "nothing bounds what an attacker can learn from them.")
    values = game.values
    text = (f"The noise makes the whole release ε = {number(dp.epsilon_release)}-DP for "
            f"adding or removing one person, and ε′ = {number(dp.epsilon_change)} for "
            f"changing one person's value")
    if is_finite(dp.delta) and dp.delta:
        text += f" (δ = {dp.delta:.0e})"
    text += "."
    if is_finite(dp.aia_top1_bound):
        text += (f" So no attacker can guess a target's value right more than "
                 f"{pct(dp.aia_top1_bound)} of the time")
        if values:
            text += f" ({len(values)} values, guessing: {pct(1 / len(values))})"
        text += "."
    if is_finite(dp.mia_accuracy_bound):
        text += f" Membership: accuracy at most {pct(dp.mia_accuracy_bound)}."
    if dp.note:
        text += f" {dp.note}"
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

    def set_result(self, result) -> bool:
        """Show the game; False when the result has none (the section says so)."""
        r, th = loaded(result)
        membership = th.membership
        if not membership:
            self.summary_label.setText("—" if result is None else
                                       "The membership game was not played (tick “Also play "
                                       "the membership game” in step 3).")
            self.roc_plot.set_result(None)
            self.metrics_table.set_result(None)
            self.roc_plot.setVisible(False)
            self.metrics_table.setVisible(False)
            return False
        region = th.dp.dp_region if th.dp else None
        # The verdict travels too: its evidence holds the membership attacks' tests (one Holm
        # family over both games), which the "Beats guessing" column reads. The shared plot
        # and table read the game as a result of its own, in result.json's form.
        sub = {"attacks": [a.to_dict() for a in membership.attacks],
               "theory": {"dp_region": dict(region)} if region else {},
               "verdict": r.verdict.to_dict() if r is not None and r.verdict else None}
        self.roc_plot.set_result(sub)
        self.metrics_table.set_result(sub)
        shorten_unmeasurable(self.metrics_table)
        self.roc_plot.setVisible(True)
        self.metrics_table.setVisible(True)
        targets, proved = membership.targets, membership.proved
        html = ("Can the attacker tell whether a target is in the data at all? Half the "
                "targets are left out of the release (paper 003 §6.1).")
        if is_finite(targets) and is_finite(proved):
            right = membership.proved_correct if membership.proved_correct is not None else 0
            html += (f" <b>The tables prove membership for {proved:,} of {targets:,} "
                     f"targets</b> ({right:,} proofs right).")
        if not region:
            html += " Without noise there is no DP region to compare with."
        for attack in sub["attacks"]:         # what a best-of attack chose, and why
            chose = shadow_choice_sentence(attack)
            if chose:
                html += f"<br>{escape(chose)}"
        self.roc_plot.hint_label.setText(MIA_HINT if region else MIA_NO_DP_HINT)
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


def sweep_curves(result, key: str) -> tuple[list, list[SweepCurve]]:
    """The swept values and the curves of ``theory.sweeps[key]``: every swept attack's AUC
    with its interval and the share of targets determined — engine.plots.count_sweeps
    .count_sweep_series, which the report's chart draws too (same words, colours, points)."""
    curves = count_sweeps.count_sweep_series(result, key)
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

    def set_result(self, result) -> bool:
        r, th = loaded(result)
        shown = False
        for key, plot in self.plots.items():
            sweep = th.sweep(key)
            has = bool(sweep and sweep.values)
            plot.setVisible(has)
            if not has:
                continue
            shown = True
            axis, text = SWEEP_TEXTS[key]
            values, curves = sweep_curves(r, key)
            # The random-guess line, the audited setting and the axis scale: engine.plots
            # .count_sweeps, as in the report.
            guides = count_sweeps.count_sweep_guides(r, key)
            if any(g.key == "current" for g in guides):
                # Only when the line is drawn: a release of all counts (fraction 0) has no
                # place on this axis, and the caption promised a line that was not there.
                text += " The dashed line marks the release audited."
            plot.show_curves(values, curves, axis_label=axis, guides=guides,
                             log_x=count_sweeps.count_sweep_log_x(r, key),
                             y_label="AUC (0.5 = guessing)", text=text)
        self.summary_label.setText(
            "" if shown else ("—" if result is None else
                              "No sweeps in this result (enter released shares or ε values "
                              "under “Sweeps” in step 3 to draw them)."))
        self.summary_label.setVisible(not shown)
        return shown


# ====================================================================== the release

def release_html(theory) -> str:
    """The release, the game and the deterministic module's numbers, as a short list
    (``theory``: the typed theory, or the theory block as result.json holds it)."""
    th = theory if isinstance(theory, AggregatesTheory) else load_theory(theory, {})
    release, game, det = th.release, th.game, th.deterministic
    items = []
    if release.present:
        tables = release.tables
        table_text = ", ".join(f"{escape(t.table or '')} ({t.cells or 0:,})"
                               for t in tables[:20]) + (" …" if len(tables) > 20 else "")
        queries, candidates = release.queries, release.candidates
        m_text = (f"{queries:,} of {candidates:,} cells" if is_finite(queries)
                  and is_finite(candidates) else "—")
        if is_finite(release.fraction):
            m_text += f" ({release.fraction:g} cells per person in the data)"
        kind = KIND_WORDS.get(release.kind, release.kind or "—")
        items.append(f"<b>Released:</b> {escape(kind)} — {m_text}; tables (cells released): "
                     f"{table_text or '—'}.")
        exact = "" if release.sensitivity_exact else " (an upper bound)"
        mech = release.mechanism if release.mechanism is not None else "none"
        noise = MECHANISM_WORDS.get(mech, mech)
        if mech != "none":
            noise += (f", ε = {number(release.epsilon)} "
                      f"{'per count' if release.budget == 'per_query' else 'for the release'}"
                      f", noise scale {number(release.noise_scale)}")
            if is_finite(release.delta) and mech == "discrete_gaussian":
                noise += f", δ = {release.delta:.0e}"
        items.append(f"<b>Sensitivity:</b> one person changes at most "
                     f"{number(release.sensitivity)} released counts{exact}. "
                     f"<b>Noise:</b> {escape(noise)}.")
    if game.present:
        aux = AUX_WORDS.get(game.auxiliary_source, game.auxiliary_source or "—")
        qi = ", ".join(escape(q) for q in game.quasi_identifiers)
        items.append(
            f"<b>Game:</b> the attacker knows {qi or '—'} of each target and tries to learn "
            f"{escape(game.sensitive or '—')} ({len(game.values)} values, chance "
            f"{pct(game.chance)}); {_count(game.records)} people in the data, "
            f"{_count(game.unique_records)} of them the only one with their "
            f"{qi or 'known details'}, {_count(game.targets)} attacked; the attacker's "
            f"sample of similar people: {_count(game.auxiliary_records)} records "
            f"({escape(aux)}).")
    if det:
        # The step's plain name, as the proof-then-learn attack's description says it.
        items.append(f"<b>Proof step:</b> the counts prove the value of "
                     f"{_count(det.determined)} of {_count(det.targets)} targets "
                     f"({_count(det.correct)} right); solver time per target median "
                     f"{number(det.median_s)} s, 95th percentile "
                     f"{number(det.p95_s)} s.")
    published = th.published
    if published:
        items.append(f"<b>Published table:</b> {_count(published.rows)} rows for "
                     f"|D| = {_count(published.records)}; "
                     f"{'consistent' if published.consistent else 'INCONSISTENT'}; "
                     f"{_count(published.determined)} of "
                     f"{_count(published.candidates)} auxiliary combinations pinned "
                     f"down. {escape(published.note or '')}")
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>" if items else "—"


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

    def set_result(self, result) -> None:
        _, th = loaded(result)
        self.summary_label.setText("—" if result is None else release_html(th))
        self.dp_label.setText("" if result is None else escape(dp_sentence(th.dp, th.game)))
        rows = []
        for cell in th.release.preview:
            table = str(cell.table if cell.table is not None else "")
            label = str(cell.label if cell.label is not None else "")
            if label.startswith(f"{table}: "):
                label = label[len(table) + 2:]
            rows.append([table, label, _count(cell.count)])
        fill_table(self.cells_table, rows, max_visible=8)
        self.cells_table.setVisible(bool(rows))


__all__ = ["ExposedRecordsView", "MembershipView", "ReleaseView", "SweepsView", "dp_sentence",
           "record_text", "release_html", "sweep_curves"]
