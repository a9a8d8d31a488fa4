"""The results of a location audit: the shared results view (verdict, ROC against the DP region,
metrics, warnings, notes) plus what only this audit has (paper 000) — accuracy against the number
of observations, who is exposed, what the neural meta-classifier learnt, and the composed
privacy over the target's epochs — between the metrics and the warnings.

Each section takes the result as a dict or a LoadedResult and reads it typed
(engine.results.location, issue 33 item 1), never a key of result.json.
"""

from __future__ import annotations

import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.plots import observations, series
from engine.plots.observations import load_location
from engine.results.loaded import LoadedResult
from engine.results.location import (
    LocationSettings,
    LocationTheory,
    ScoreDistribution,
)
from gui.formatting import is_number, number, pct
from gui.widgets.location_detector import (  # noqa: F401  (the view's sections, re-exported)
    MetaClassifierView,
    meta_classifier_sentence,
)
from gui.widgets.plot_view import PlotView
from gui.widgets.results_view import ResultsView, escape, rich_label
from gui.widgets.roc_plot import style_pen
from gui.widgets.sweep_plot import guide_line

# The report's markers (engine.plots.series) in pyqtgraph's names.
SYMBOLS = {"circle": "o", "square": "s", "triangle": "t1", "diamond": "d", "cross": "x",
           "star": "star"}
ATTACK_NAMES = {"one_threshold": "One-threshold attack", "two_threshold": "Two-threshold attack",
                "likelihood_ratio": "Likelihood-ratio attack", "reference": "Reference attack",
                "meta_classifier": "MLP meta-classifier"}
MAX_IDS_SHOWN = 1000


def sequential_colormap() -> pg.ColorMap:
    """White (none) to dark blue (many): counts of people."""
    return pg.ColorMap([0.0, 0.5, 1.0], [(255, 255, 255), (66, 146, 198), (8, 48, 107)])


def _loaded(result) -> LoadedResult | None:
    """``result`` read by the one loader with its location theory typed (None: no result)."""
    return None if result is None else load_location(result)


def _or(value, fallback):
    return fallback if value is None else value


def _floats(values) -> np.ndarray:
    return np.array([np.nan if not is_number(v) else float(v) for v in (values or [])],
                    dtype=float)


# ====================================================================== accuracy vs k

class ObservationsPlot(QWidget):
    """Each sweep attack's accuracy (with its confidence interval) against the number of the
    target's positive observations k, with the exact optimal attacker and the DP bound."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = PlotView(min_height=280)
        self.plot_widget = self.view.plot_widget
        self.plot_item = self.view.plot_item
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.plot_item.setLabel("left", "Attacker's accuracy")
        self.plot_item.getAxis("left").set_percent(True)    # in %, as the summary writes it
        # Accuracy grows with k, so the lower right corner is free for the legend.
        self.legend = self.view.add_legend()
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.caption.setStyleSheet("color: #444;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)

    def curve_names(self) -> list[str]:
        return [item.name() for item in self.plot_item.listDataItems() if item.name()]

    def set_result(self, result) -> None:
        self.plot_item.clear()
        self.legend.clear()
        result = _loaded(result) or load_location({})
        ks = _floats(result.theory.sweep.observations)
        if not ks.size or not np.any(ks > 0):
            # An empty chart box with a log axis from 0.1 to 0.9 read as a broken plot.
            self.view.setVisible(False)
            self.caption.setText("This chart was not drawn: the run measured no further people "
                                 "(set “Targets for accuracy vs observations” above 0 on the "
                                 "Attacks & run step, or choose the Standard depth).")
            return
        self.view.setVisible(True)
        # The axis scale, the random-guess level and the audited target: engine.plots.series,
        # as in the report (the axis says "log scale" only when it is).
        log_x = observations.observations_log_x(result)
        guides = observations.observations_guides(result)
        self.plot_item.setLogMode(x=log_x, y=False)
        self.plot_item.setLabel("bottom", "Places and hours the person is seen in"
                                + (series.LOG_WORDS if log_x else ""))
        keep = ks > 0
        marks = [g.value for g in guides if g.vertical]
        # Positions in view coordinates: log10 k on a log axis.
        view_x = np.log10 if log_x else np.asarray
        logk = view_x(np.r_[ks[keep], marks])
        span = float(logk.max() - logk.min()) if logk.size > 1 else 1.0
        curves = observations.observations_series(result)
        measured = [c for c in curves if c.key.startswith("attack:")]
        lowest = 0.5
        for curve in curves:
            if curve.key.startswith("attack:"):
                continue
            item = pg.PlotDataItem(np.asarray(curve.x), np.asarray(curve.y), name=curve.label,
                                   pen=style_pen(curve.style))
            item.series_key = curve.key
            self.plot_item.addItem(item)
        for i, curve in enumerate(measured):
            color = QColor(*curve.style.color)
            # Small sideways offsets keep the error bars of different attacks apart.
            shift = (i - (len(measured) - 1) / 2) * 0.008 * max(span, 0.5)
            x = view_x(np.asarray(curve.x, dtype=float)) + shift
            acc = np.asarray(curve.y)
            item = pg.PlotDataItem(10 ** x if log_x else x, acc, name=curve.label, pen=style_pen(curve.style),
                                   symbol=SYMBOLS.get(curve.style.marker, "o"), symbolSize=7,
                                   symbolBrush=color, symbolPen=color)
            item.series_key = curve.key
            self.plot_item.addItem(item)
            lo = np.array([np.nan if v is None else v for v in curve.lower or ()], float)
            hi = np.array([np.nan if v is None else v for v in curve.upper or ()], float)
            bars = np.isfinite(lo) & np.isfinite(hi) if lo.size == acc.size else \
                np.zeros(acc.size, bool)
            if bars.any():
                self.plot_item.addItem(pg.ErrorBarItem(
                    x=x[bars], y=acc[bars], top=hi[bars] - acc[bars],
                    bottom=acc[bars] - lo[bars], beam=0.015 * max(span, 0.5),
                    pen=pg.mkPen(color, width=1.2)))
                lowest = min(lowest, float(np.nanmin(lo[bars])))
        for guide in guides:
            self.plot_item.addItem(guide_line(guide, log_x))
            self.legend.addItem(pg.PlotDataItem(pen=style_pen(guide.style)), guide.label)
        x0, x1 = float(logk.min()), float(logk.max())
        if x1 <= x0:
            x0, x1 = x0 - 0.5, x1 + 0.5
        margin = 0.05 * (x1 - x0)
        y0 = max(0.0, min(0.45, lowest - 0.02))
        self.view.set_home((x0 - margin, x1 + margin), (y0, 1.0), y_bounds=(0.0, 1.0))
        note = observations.observations_note(result)
        self.caption.setText(
            "Each point is one target person with k positive observations, attacked on "
            f"{_test_size(result)} fresh releases; bars are 95 % intervals. The red line is "
            "the best any attacker can do, the orange dashed line what ε-DP per hour allows "
            "over k observations (paper 000, Fig. 13 and 14)." + (f" {note}" if note else ""))


def _test_size(result: LoadedResult) -> str:
    n = LocationSettings.from_config(result.config).sweep_test_aggregates
    return f"{n:,}" if isinstance(n, int) else "several thousand"


# ====================================================================== score distributions

ABSENT_COLOR = QColor(33, 102, 172)       # blue: releases without the target
PRESENT_COLOR = QColor(214, 96, 0)        # orange: releases with the target
SCORE_AXIS_WORDS = {
    "one_threshold": "Attack score: sum of the released counts in the target's cells",
    "two_threshold": "Attack score: number of the target's cells above their own threshold",
}
SCORES_SENTENCE = (
    "Bars: how often each score came out on the test releases without the target (blue, solid "
    "outline) and with it (orange, dashed outline). The more the two humps overlap, the less "
    "the attacker can tell whether the target is in a release; two humps far apart mean the "
    "target is easy to spot. The lines are what theory predicts: {model}. Where they follow "
    "the bars, the theory fits the measured scores.")
SCORES_NO_MODEL = (" No theory line is drawn: without noise the scores have no spread for the "
                   "theory to describe.")


def plain_model_words(model: str) -> str:
    """The engine's name of a score law without its paper reference or the attacker's internal
    words ("Normal fitted on the shadow aggregates (paper 000 Thm 2, CLT)" → "a bell curve
    (Normal) fitted on the attacker's simulated releases"): the caption is read by the officer,
    the tooltip keeps the reference."""
    words = re.sub(r"\s*\((?:paper|Thm|Theorem)[^()]*\)", "", model).strip()
    words = words.replace("shadow aggregates", "attacker's simulated releases")
    return re.sub(r"^Normal\b", "a bell curve (Normal)", words)


def score_distributions(result) -> list[tuple[str, ScoreDistribution]]:
    """(name, distribution) of each attack of ``result`` whose details hold a score
    distribution (paper 000 Thm 2/3)."""
    r = _loaded(result)
    if r is None:
        return []
    return [(a.name, d) for a in r.attacks
            if (d := r.theory.details_of(a).score_distribution) is not None]


def _bin_edges(centres: np.ndarray) -> np.ndarray:
    """Edges of bins around sorted centres (width 1 for a single bin)."""
    if centres.size == 1:
        return np.array([centres[0] - 0.5, centres[0] + 0.5])
    mids = 0.5 * (centres[1:] + centres[:-1])
    return np.concatenate([[2 * centres[0] - mids[0]], mids, [2 * centres[-1] - mids[-1]]])


class ScoreDistributionView(QWidget):
    """Histograms of an attack's scores on test releases with and without the target, beside
    the laws paper 000 derives for them (Thm 2: Normal, one-threshold; Thm 3: Binomial,
    two-threshold), as in its Fig. 8 and 10."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._attacks: list[tuple[str, ScoreDistribution]] = []
        self.choice = QComboBox()
        self.choice.setToolTip("Which attack's scores to show.")
        self.choice.currentIndexChanged.connect(self._show_current)
        self.view = PlotView(min_height=280)
        self.view.add_tool(self.choice)
        self.plot_widget = self.view.plot_widget
        self.plot_item = self.view.plot_item
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.plot_item.setLabel("left", "Number of test releases")
        self.legend = self.view.add_legend()
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.caption.setStyleSheet("color: #444;")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)

    def curve_names(self) -> list[str]:
        return [item.name() for item in self.plot_item.listDataItems() if item.name()]

    def attack_names(self) -> list[str]:
        return [name for name, _ in self._attacks]

    def set_result(self, result) -> bool:
        """Show ``result``'s distributions; False when it has none (the section hides)."""
        self._attacks = score_distributions(result)
        self.choice.blockSignals(True)
        self.choice.clear()
        for name, _ in self._attacks:
            self.choice.addItem(ATTACK_NAMES.get(name, name.replace("_", " ")), name)
        self.choice.blockSignals(False)
        self._show_current()
        return bool(self._attacks)

    def _show_current(self) -> None:
        self.plot_item.clear()
        self.legend.clear()
        index = self.choice.currentIndex()
        if not self._attacks or index < 0:
            self.caption.setText("")
            return
        name, dist = self._attacks[index]
        x = _floats(dist.score)
        order = np.argsort(x, kind="stable")
        x = x[order]
        edges = _bin_edges(x)
        self.plot_item.setLabel("bottom", SCORE_AXIS_WORDS.get(name, "Attack score"))
        top = 0.0
        shown_x = []
        for values, label, color, style in (
                (dist.absent, "Without the target (measured)", ABSENT_COLOR,
                 Qt.PenStyle.SolidLine),
                (dist.present, "With the target (measured)", PRESENT_COLOR,
                 Qt.PenStyle.DashLine)):
            counts = np.nan_to_num(_floats(values))
            if counts.size != x.size:
                continue
            counts = counts[order]
            fill = QColor(color)
            fill.setAlpha(70)
            self.plot_item.addItem(pg.PlotDataItem(
                edges, counts, stepMode="center", fillLevel=0, brush=pg.mkBrush(fill),
                pen=pg.mkPen(color, width=2, style=style), name=label))
            top = max(top, float(counts.max(initial=0)))
            shown_x += list(x[counts > 0])
        has_model = False
        for law, label, color, style, symbol in (
                (dist.model_absent, "Without the target (theory)", ABSENT_COLOR.darker(150),
                 Qt.PenStyle.DotLine, "o"),
                (dist.model_present, "With the target (theory)", PRESENT_COLOR.darker(150),
                 Qt.PenStyle.DashDotLine, "s")):
            model = _floats(law) if law is not None else np.zeros(0)
            if model.size != x.size:
                continue
            model = model[order]
            ok = np.isfinite(model)
            discrete = name == "two_threshold" or (x.size <= 60 and np.allclose(x, np.round(x)))
            self.plot_item.addItem(pg.PlotDataItem(
                x[ok], model[ok], name=label, pen=pg.mkPen(color, width=2.5, style=style),
                symbol=symbol if discrete else None, symbolSize=5, symbolBrush=color,
                symbolPen=color))
            top = max(top, float(np.nanmax(model, initial=0)))
            shown_x += list(x[ok & (model >= 0.5)])
            has_model = True
        # Home view: the scores that occur (or that the theory expects), one bin either side.
        width = float(edges[1] - edges[0])
        lo, hi = ((min(shown_x) - width, max(shown_x) + width) if shown_x
                  else (float(edges[0]), float(edges[-1])))
        lo, hi = max(lo, float(edges[0])), min(hi, float(edges[-1]))
        top = top * 1.08 if top > 0 else 1.0
        self.view.set_home((lo, hi), (0.0, top), x_bounds=(float(edges[0]), float(edges[-1])),
                           y_bounds=(0.0, top))
        model_words = str(dist.model or "")
        words = SCORES_SENTENCE.format(model=plain_model_words(model_words) or "its law")
        self.caption.setToolTip(model_words)       # the law with its paper reference
        if not has_model:
            words = words.split(" The lines are")[0] + SCORES_NO_MODEL
        self.caption.setText(words)


# ====================================================================== who is exposed

class ExposedView(QWidget):
    """How many people are at least as exposed as the line the policy draws; their ids only when
    the result lists them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary_label = rich_label()
        self.ids_table = QTableWidget(0, 2)
        self.ids_table.setHorizontalHeaderLabels(["Person id", "Positive observations"])
        self.ids_table.horizontalHeader().setStretchLastSection(True)
        self.ids_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.ids_table.setMinimumHeight(160)
        self.ids_table.setToolTip("The exposed people, most observations first.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.ids_table)

    def set_result(self, result) -> None:
        r = _loaded(result)
        record = r.theory.exposed[0] if r is not None and r.theory.exposed else None
        self.ids_table.setRowCount(0)
        if not record:
            self.summary_label.setText("—" if result is None else
                                       "This result has no exposed-people count.")
            self.ids_table.setVisible(False)
            return
        count, population = record.count, record.population
        rule = record.rule or "exposed as much as the policy's line"
        count_text = f"{count:,}" if isinstance(count, int) else "—"
        pop_text = f"{population:,}" if isinstance(population, int) else "—"
        html = (f"<b>{count_text} of {pop_text} people ({pct(record.share)}) are "
                f"exposed</b>: everyone with {escape(rule)}, enough observations for the "
                "best possible attacker to cross the verdict policy's line.")
        people = record.people
        if record.ids_listed and people is not None:
            shown = people[:MAX_IDS_SHOWN]
            self.ids_table.setRowCount(len(shown))
            for row, person in enumerate(shown):
                k = "" if person.observations is None else str(person.observations)
                self.ids_table.setItem(row, 0, QTableWidgetItem(person.id))
                self.ids_table.setItem(row, 1, QTableWidgetItem(k))
            if isinstance(count, int) and count > len(shown):
                html += f" The table lists the {len(shown):,} most exposed."
            self.ids_table.setVisible(True)
        else:
            html += (" Their ids are redacted. To list them, tick “List the exposed people by "
                     "id” in step 4 (Attacks &amp; run) and run again.")
            self.ids_table.setVisible(False)
        self.summary_label.setText(html)


# ====================================================================== luck of the split

def _points(value) -> str:
    """A spread of accuracies in percentage points, as the summary writes it."""
    return f"{100 * value:.1f} points" if is_number(value) else "—"


def split_spread_html(result) -> str:
    """Per attack, the first run's accuracy and interval beside the spread over the
    repetitions (each with a fresh split of the people into the attacker's data and the people
    released; issue 22), as a rich-text table with the audit's sentences; "" without
    repetitions."""
    r = _loaded(result)
    rows, sentences, count = [], [], 0
    for a in () if r is None else r.attacks:
        reps = r.theory.details_of(a).repetitions
        if reps is None:
            continue
        count = max(count, len(reps.accuracy))
        lo, hi = a.accuracy_ci or (None, None)
        cells = (a.label or a.name or "",
                 # In % and points, as the summary and the report write these accuracies
                 # (issue 32 item 6: "0.867 ± 0.150" here was "86.7 %" there).
                 f"{pct(a.accuracy)} ({pct(lo)} – {pct(hi)})",
                 f"{pct(reps.accuracy_mean)} ± {_points(reps.accuracy_sd)}",
                 f"{pct(reps.accuracy_min)} – {pct(reps.accuracy_max)}")
        rows.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
        if reps.sentence:
            sentences.append(reps.sentence)
    if not rows:
        return ""
    head = ("<tr>" + "".join(f"<th align='left'>{h}</th>" for h in (
        "Attack", "First run (95% interval)", "Mean ± sd over repetitions",
        "Lowest – highest")) + "</tr>")
    redrawn = r.theory.repetitions.split_redrawn
    how = ("each with a fresh split of the people into the attacker's own data and the people "
           "released" if redrawn else "with fresh simulated releases")
    text = (f"The game was played {count} times, {how}. The first run's interval covers only "
            "the chance of its test releases; the spread also covers which people the attacker "
            "happens to know. Where they disagree, trust the spread.")
    html = (f"{escape(text)}<table cellspacing='0' cellpadding='3'>{head}{''.join(rows)}"
            "</table>")
    return html + "".join(f"<p><b>{escape(line)}</b></p>" for line in sentences)


# ====================================================================== composed privacy

def composed_privacy_line(theory: LocationTheory | None) -> str:
    """ε per epoch, the target's epochs and the composed ε, in one line."""
    if theory is None or not theory.written:        # no result, or no theory in it
        return "—"
    target, composed = theory.target, theory.composed
    epochs = target.epochs if "epochs" in target.written else theory.epochs
    delta = _or(composed.delta, theory.delta)
    delta_text = f"{delta:.0e}" if is_number(delta) else "—"
    if theory.mechanism == "none":
        return ("No noise is added: the counts give no differential-privacy guarantee "
                f"(the target is seen in {epochs} hours).")
    line = (f"<b>ε = {number(theory.epsilon_per_epoch)} per hour × the target's "
            f"{epochs} hours → composed ε = {number(theory.epsilon_total)}</b> at "
            f"δ = {delta_text}")
    basic = composed.epsilon_basic
    if is_number(basic):
        line += f" (the simple sum would be {number(basic)})"
    return line + "."


class LocationResultsView(ResultsView):
    """The shared results view with the location audit's own sections."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scores_view = ScoreDistributionView()
        self.observations_plot = ObservationsPlot()
        self.exposed_view = ExposedView()
        self.meta_view = MetaClassifierView()
        self.composed_label = rich_label()
        self.spread_label = rich_label()
        self.spread_box = None
        self.scores_box = None
        # Right after the metrics: it qualifies their intervals (issue 22).
        self.spread_box = self.add_section("How much the result depends on chance",
                                           self.spread_label, update=self._show_spread)
        self._show_spread(self._result)
        self.scores_box = self.add_section(
            "How the attack's scores differ with and without the person",
            self.scores_view, 2, update=self._show_scores)
        self.scores_box.setToolTip("The score laws of paper 000, Thm 2 and 3 (Fig. 8 and 10).")
        self._show_scores(self._result)
        self.add_section("Accuracy against the number of observations", self.observations_plot,
                         2, update=self.observations_plot.set_result)
        self.add_section("Who is exposed", self.exposed_view, update=self.exposed_view.set_result)
        self.add_section("What the trained detector learned", self.meta_view, 2,
                         update=self.meta_view.set_result)
        self.add_section("Composed privacy", self.composed_label, update=self._show_composed)

    def plots(self) -> dict[str, PlotView]:
        """Every plot of the view by name (for tests and the report's screenshots)."""
        return {"roc": self.roc_plot.view, "observations": self.observations_plot.view,
                "meta-classifier": self.meta_view.view, "scores": self.scores_view.view}

    def _show_scores(self, result) -> None:
        has = self.scores_view.set_result(result)
        if self.scores_box is not None:
            self.scores_box.setVisible(has)

    def _show_spread(self, result) -> None:
        html = split_spread_html(result)
        self.spread_label.setText(html)
        if self.spread_box is not None:
            self.spread_box.setVisible(bool(html))

    def _show_composed(self, result) -> None:
        r = _loaded(result)
        self.composed_label.setText(composed_privacy_line(None if r is None else r.theory))
