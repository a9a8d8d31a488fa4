"""The privacy–utility chart of a model's defences (issue 9; paper 004): every defence a curve
through its settings, the undefended model a star, the user's limit a line with the allowed side
shaded, the recommended setting ringed; hovering a point says what it is, clicking it selects
its row. Split out of gui/widgets/defences_results.py (issue 33 item 2); it reads the defences
block typed (engine.results.model_defences; issue 33 item 1), a dict being read first.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QComboBox, QLabel, QVBoxLayout, QWidget

from engine.plots import series
from engine.plots import tradeoff as tradeoff_plot
from engine.results.model_defences import DefenceRow, DefencesBlock, defences_of
from gui.formatting import fpr_label, interval, number, pct
from gui.widgets.plot_view import PlotView
from gui.widgets.roc_plot import style_pen

DEFENCE_ORDER = ("kcd", "dmp", "l2", "early_stopping", "dp_sgd")
DEFENCE_TITLES = {"none": "No defence", "kcd": "KCD", "dmp": "DMP", "l2": "L2 weight decay",
                  "early_stopping": "Early stopping", "dp_sgd": "DP-SGD"}
X_CHOICES = (("tpr", "Members spotted at the limit's false-positive rate (TPR)"),
             ("accuracy", "Attack's balanced accuracy"), ("auc", "Attack's AUC"),
             ("advantage", "Attack's advantage"), ("epsilon", "Empirical ε lower bound"))
CHART_HINT = ("Each point is the model retrained with one defence at one setting: up is more "
              "accurate on people it never saw, left is harder to attack (the strongest of the "
              "attacks). The star is the model as audited; the green side of the line is "
              "within your limit; the ringed point is the recommendation. Hover over a point "
              "for its numbers; click it to find it in the table.")


risk_value = tradeoff_plot.risk_value
knob_text = tradeoff_plot.knob_text


def value_text(metric: str, value, ci=None) -> str:
    fmt = pct if metric == "tpr" else number
    if value is None:
        return "not measurable"
    ci_text = interval(ci, fmt) if ci else ""
    return f"{fmt(value)} {ci_text}".strip()


def point_text(row: DefenceRow | dict, block: DefencesBlock | dict) -> str:
    """What a hovered point is, in plain text (the chart's tooltip and the line under it)."""
    row = row if isinstance(row, DefenceRow) else DefenceRow.from_dict(row)
    fpr = (defences_of(block) or DefencesBlock()).limit.fpr
    tpr, tpr_ci = risk_value(row, "tpr", fpr)
    auc, auc_ci = risk_value(row, "auc", None)
    acc, acc_ci = risk_value(row, "accuracy", None)
    lines = [row.label or "",
             f"test accuracy {pct(row.test_accuracy)} "
             f"{interval(row.test_accuracy_ci, pct)}".strip(),
             f"generalization gap {pct(row.generalization_gap)}",
             f"strongest attack: AUC {value_text('auc', auc, auc_ci)}, balanced accuracy "
             f"{value_text('accuracy', acc, acc_ci)}"]
    if row.strongest.label:
        lines.append(f"strongest attack on this setting: {row.strongest.label}")
    if fpr is not None:
        lines.append(f"members spotted at {fpr_label(fpr)} FPR: "
                     f"{value_text('tpr', tpr, tpr_ci)}")
    if row.dp is not None:
        lines.append(f"DP-SGD: accountant ε = {number(row.dp.accountant_epsilon)}, attacks "
                     f"certify ε ≥ {number(row.dp.empirical_epsilon_lower_bound)}")
    return "\n".join(lines)


WHISKER_COLOR = QColor(*series.WHISKER_COLOR)


def interval_bars(curve: series.Curve) -> list[pg.ErrorBarItem]:
    """A curve's 95 % intervals as error bars, as the report's whiskers: test accuracy up
    and down, the risk left and right, each where the series knows it. Each bar item keeps
    its curve's key and its direction (``along``: "y" or "x") for the tests."""
    out = []
    for along, lows, highs in (("y", curve.lower, curve.upper),
                               ("x", curve.x_lower, curve.x_upper)):
        if not lows or not highs:
            continue
        pts = [(x, y, lo, hi) for x, y, lo, hi in zip(curve.x, curve.y, lows, highs, strict=True)
               if lo is not None and hi is not None]
        if not pts:
            continue
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        centre = ys if along == "y" else xs
        low = [c - p[2] for c, p in zip(centre, pts, strict=True)]
        high = [p[3] - c for c, p in zip(centre, pts, strict=True)]
        ends = {"top": high, "bottom": low} if along == "y" else {"right": high, "left": low}
        bars = pg.ErrorBarItem(x=np.asarray(xs), y=np.asarray(ys), beam=0.0,
                               pen=pg.mkPen(WHISKER_COLOR, width=1),
                               **{k: np.asarray(v) for k, v in ends.items()})
        bars.series_key = curve.key
        bars.along = along
        bars.setZValue(-5)          # under the markers, as in the report
        out.append(bars)
    return out


SYMBOLS = {"circle": "o", "square": "s", "triangle": "t1", "diamond": "d", "cross": "x",
           "star": "star"}
LABEL_PX = 9                # the point labels' font size in pixels
MARKER_PX = 9
STAR_PX = 18                # the undefended model's star
RING_PX = 24                # the ring around the recommended setting


class TradeoffChart(QWidget):
    """Test accuracy against the strongest attack, every defence a curve (module docstring).

    What is drawn comes from engine.plots.tradeoff_plot.tradeoff_series (the report's chart draws
    the same): axes ranged to the points and their 95 % intervals with the limit in view, as
    the report's are; each point's setting written beside it where the label covers no other
    label or point (engine.plots.series.place_labels, laid out again on every zoom and resize;
    hovering names the rest); where five or more settings crowd, a close-up panel under the
    chart shows them apart."""

    point_clicked = Signal(int)        # the row's index in the block

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._block: DefencesBlock | None = None
        self._series: tradeoff_plot.TradeoffSeries | None = None
        self.view = PlotView(min_height=360)
        self.plot_item = self.view.plot_item
        self.legend = self.view.add_legend()
        self.close_up = PlotView(min_height=260)
        self.close_up_title = QLabel("Close-up of the crowded settings (dotted box above)")
        self.close_up_title.setStyleSheet("color: #333;")
        self.views = (self.view, self.close_up)
        self.labels: dict[int, list[pg.TextItem]] = {0: [], 1: []}
        self.zoom_box: pg.PlotDataItem | None = None
        for view in self.views:
            view.plot_item.showGrid(x=True, y=True, alpha=0.2)
            view.plot_item.setLabel("left", "Test accuracy (people the model never saw)")
            view.view_box.sigRangeChanged.connect(self._relabel_later)
            # A plot resized by its legend keeps its range but moves every point: lay the
            # labels out again then too (they sat on the limit's words after such a resize).
            view.view_box.sigResized.connect(self._relabel_later)
        self.x_combo = QComboBox()
        for value, text in X_CHOICES:
            self.x_combo.addItem(text, value)
        self.x_combo.setToolTip("Which measure of the strongest attack the chart's "
                                "horizontal axis shows.")
        self.x_combo.currentIndexChanged.connect(self._redraw)
        self.view.add_tool(self.x_combo)
        self.hover_label = QLabel("")
        self.hover_label.setWordWrap(True)
        self.hover_label.setStyleSheet("color: #333;")
        hint = QLabel(CHART_HINT)
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #666;")
        self._relabel_timer = QTimer(self)
        self._relabel_timer.setSingleShot(True)
        self._relabel_timer.setInterval(0)
        self._relabel_timer.timeout.connect(self.place_labels)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.close_up_title)
        layout.addWidget(self.close_up, 1)
        layout.addWidget(self.hover_label)
        layout.addWidget(hint)
        self.scatters: list[pg.ScatterPlotItem] = []

    def set_block(self, block: DefencesBlock | dict | None) -> None:
        block = defences_of(block)
        self._block = block
        # The axis the report's chart uses too: the limit's measure, else the AUC.
        metric = tradeoff_plot.default_metric(block) if block else "tpr"
        index = self.x_combo.findData(metric)
        self.x_combo.blockSignals(True)
        self.x_combo.setCurrentIndex(max(index, 0))
        self.x_combo.blockSignals(False)
        self._redraw()

    def metric(self, *qt_args):
        """The risk measure on the horizontal axis ("tpr", "auc", …).

        The name shadows Qt's ``QWidget.metric(PaintDeviceMetric)``, which Qt calls when the
        chart is painted as a window of its own (``grab()``): that call, with its argument,
        is answered by Qt's own method (before, it raised and a grab crashed the app)."""
        if qt_args:
            return super().metric(*qt_args)
        return self.x_combo.currentData()

    def tradeoff_series(self) -> tradeoff_plot.TradeoffSeries | None:
        """What the chart draws now (engine.plots.series; the report draws the same)."""
        return self._series

    def _redraw(self, *_args) -> None:
        for view in self.views:
            view.plot_item.clear()
        self.legend.clear()
        self.labels = {0: [], 1: []}
        self.scatters = []
        self.zoom_box = None
        self.hover_label.setText("")
        self._series = None
        self._show_close_up(False)
        block = self._block
        if not block:
            return
        metric = self.metric()
        fpr = block.limit.fpr
        tradeoff = tradeoff_plot.tradeoff_series(block, metric)
        self._series = tradeoff
        for view in self.views:
            view.plot_item.setLabel("bottom", dict(X_CHOICES)[metric]
                                    + (f" ({fpr_label(fpr)} FPR)" if metric == "tpr" and fpr
                                       else "") + " — strongest attack")
            # Percent where the series says so (test accuracy; a TPR), as the report and the
            # table write them: the axis read 0.005–0.025 beside a table in percent.
            view.plot_item.getAxis("left").set_percent(tradeoff.y_percent)
            view.plot_item.getAxis("bottom").set_percent(tradeoff.x_percent)
        if not tradeoff.points():
            self.view.show_message("No setting could be measured on this axis; choose another "
                                   "measure above.")
            return
        self.view.show_message(None)
        # Open on the points' whole 95 % intervals and the limit, as the report's axes are
        # ranged (issue 21: opened on the points alone, wide intervals ran past the edges
        # until the reader zoomed out); crowds are found on that view, as the report finds
        # them, and the close-up below shows them apart.
        x_range, y_range = tradeoff_plot.tradeoff_ranges(tradeoff, intervals=True)
        self._draw(0, tradeoff, x_range, legend=True)
        self.view.set_home(x_range, y_range)
        box = self.view.view_box.sceneBoundingRect()
        crowd = tradeoff_plot.tradeoff_crowd(tradeoff, x_range, y_range,
                                      width=max(box.width(), 400.0),
                                      height=max(box.height(), 300.0), radius=24.0)
        if crowd is not None:
            (cx0, cx1), (cy0, cy1) = crowd
            self.zoom_box = pg.PlotDataItem([cx0, cx1, cx1, cx0, cx0], [cy0, cy0, cy1, cy1, cy0],
                                            pen=pg.mkPen(QColor(60, 60, 60), width=1,
                                                         style=Qt.PenStyle.DotLine))
            self.plot_item.addItem(self.zoom_box)
            self._draw(1, tradeoff, crowd[0], legend=False)
            self.close_up.set_home(crowd[0], crowd[1], x_bounds=x_range, y_bounds=y_range)
            self._show_close_up(True)
        self.place_labels()

    def _show_close_up(self, on: bool) -> None:
        self.close_up.setVisible(on)
        self.close_up_title.setVisible(on)

    def _draw(self, which: int, tradeoff: tradeoff_plot.TradeoffSeries, x_range, legend: bool) -> None:
        plot = self.views[which].plot_item
        name = (lambda text: text) if legend else (lambda _text: None)
        metric = tradeoff.metric
        if tradeoff.limit is not None:
            v = tradeoff.limit
            region = pg.LinearRegionItem((min(x_range[0], v), v), movable=False,
                                         brush=pg.mkBrush(QColor(*series.LIMIT_FILL)),
                                         pen=pg.mkPen(None))
            region.setZValue(-10)
            plot.addItem(region)
            line = pg.InfiniteLine(v, angle=90, movable=False, pen=style_pen(series.LIMIT_STYLE),
                                   label=f"your limit {value_text(metric, v)}",
                                   labelOpts={"position": 0.95,
                                              "color": QColor(*series.LIMIT_STYLE.color),
                                              "fill": (255, 255, 255, 210)})
            plot.addItem(line)
        for curve in (*tradeoff.curves, *([tradeoff.baseline] if tradeoff.baseline else [])):
            for bars in interval_bars(curve):
                plot.addItem(bars)
        for curve in tradeoff.curves:
            color = QColor(*curve.style.color)
            item = pg.PlotDataItem(list(curve.x), list(curve.y), pen=style_pen(curve.style),
                                   name=name(curve.label),
                                   symbol=SYMBOLS.get(curve.style.marker, "o"),
                                   symbolSize=MARKER_PX, symbolBrush=color, symbolPen="w")
            item.series_key = curve.key
            plot.addItem(item)
            self._scatter(plot, curve, color, SYMBOLS.get(curve.style.marker, "o"), MARKER_PX)
        base = tradeoff.baseline
        if base is not None:
            self._scatter(plot, base, QColor(*base.style.color), "star", STAR_PX)
            if legend:
                plot.plot([], [], pen=None, symbol="star", symbolSize=12,
                          symbolBrush=pg.mkBrush(QColor(*base.style.color)), name=base.label)
        if tradeoff.recommended is not None:
            ring_pen = pg.mkPen(QColor(*series.RECOMMENDED_STYLE.color), width=3)
            plot.addItem(pg.ScatterPlotItem([tradeoff.recommended[0]],
                                            [tradeoff.recommended[1]], symbol="o", size=RING_PX,
                                            pen=ring_pen, brush=pg.mkBrush(None)))
            if legend:
                plot.plot([], [], pen=None, symbol="o", symbolSize=12, symbolPen=ring_pen,
                          symbolBrush=pg.mkBrush(None), name=series.RECOMMENDED_LABEL)
        for curve in (*tradeoff.curves, *([base] if base is not None else [])):
            for i, (x, y) in enumerate(zip(curve.x, curve.y, strict=True)):
                text = "no defence" if curve is base else curve.point_labels[i]
                if tradeoff.recommended_id is not None and \
                        curve.point_ids[i] == tradeoff.recommended_id:
                    text = f"{text} (recommended)"
                label = pg.TextItem(text, color=QColor(*curve.style.color), anchor=(0, 0),
                                    fill=pg.mkBrush(255, 255, 255, 200))
                label.setFont(_label_font())
                label.point = (x, y)
                label.priority = 0 if curve is base or "recommended" in text else 1
                # The marker's true size: the star and the ring are larger than a point.
                label.marker_px = (RING_PX if "recommended" in text else
                                   STAR_PX if curve is base else MARKER_PX)
                label.setVisible(False)
                plot.addItem(label)
                self.labels[which].append(label)

    def _relabel_later(self, *_args) -> None:
        self._relabel_timer.start()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._relabel_later()

    def place_labels(self) -> None:
        """Put each point's label where it covers no other label and no point (engine.plots
        .series.place_labels, in scene pixels); a label with no free spot stays hidden (hover
        names the point). Points inside the close-up's box are labelled in the close-up."""
        for which, view in enumerate(self.views):
            if not view.isVisible() and which == 1:
                continue
            vb = view.view_box
            rect = vb.sceneBoundingRect()
            if rect.width() < 10 or rect.height() < 10:
                continue
            labels = sorted(self.labels[which], key=lambda t: t.priority)
            (vx0, vx1), (vy0, vy1) = vb.viewRange()

            def scene(x: float, y: float, vb=vb) -> tuple[float, float]:
                p = vb.mapViewToScene(QPointF(x, y))
                return p.x(), -p.y()            # y up, as place_labels expects

            inside = [t for t in labels if vx0 <= t.point[0] <= vx1 and vy0 <= t.point[1] <= vy1]
            hidden_by_zoom = []
            if which == 0 and self.zoom_box is not None and self.close_up.isVisible():
                zx, zy = self.zoom_box.getData()
                hidden_by_zoom = [t for t in inside if min(zx) <= t.point[0] <= max(zx)
                                  and min(zy) <= t.point[1] <= max(zy)]
            occupied = []
            for t in inside:
                px, py = scene(*t.point)
                r = t.marker_px / 2 + 2
                occupied.append((px - r, py - r, px + r, py + r))
            # The limit line's own words ("your limit 0.54"): the report keeps its labels
            # clear of them, the screen did not (issue 32 item 8: a setting's label sat on
            # them in the sample at 900 × 700).
            occupied += self.fixed_label_boxes(which, y_up=True)
            if hidden_by_zoom:
                zx, zy = self.zoom_box.getData()
                ax, ay = scene(min(zx), min(zy))
                bx, by = scene(max(zx), max(zy))
                occupied.append((min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))
            wanted = [t for t in inside if t not in hidden_by_zoom]
            sizes = [t.textItem.boundingRect() for t in wanted]
            boxes = series.place_labels(
                [(*scene(*t.point), s.width(), s.height()) for t, s in zip(wanted, sizes,
                                                                           strict=True)],
                occupied, (rect.left() + 2, -rect.bottom() + 2, rect.right() - 2,
                           -rect.top() - 2), radii=(6.0, 12.0, 20.0, 30.0, 40.0))
            for t in labels:
                t.setVisible(False)
            for t, box in zip(wanted, boxes, strict=True):
                if box is None:
                    continue
                top_left = vb.mapSceneToView(QPointF(box[0], -box[3]))
                t.setPos(top_left.x(), top_left.y())
                t.setVisible(True)

    def label_boxes(self, which: int = 0) -> list[tuple[float, float, float, float]]:
        """Scene rectangles (x0, y0, x1, y1) of the labels shown now (for tests)."""
        out = []
        for t in self.labels[which]:
            if t.isVisible():
                r = t.textItem.mapRectToScene(t.textItem.boundingRect())   # its anchor applied
                out.append((r.left(), r.top(), r.right(), r.bottom()))
        return out

    def point_boxes(self, which: int = 0) -> list[tuple[float, float, float, float]]:
        """Scene squares around the drawn points, each its marker's size (for tests)."""
        vb = self.views[which].view_box
        out = []
        for t in self.labels[which]:
            p = vb.mapViewToScene(QPointF(*t.point))
            r = t.marker_px / 2
            out.append((p.x() - r, p.y() - r, p.x() + r, p.y() + r))
        return out

    def fixed_label_boxes(self, which: int = 0, y_up: bool = False
                          ) -> list[tuple[float, float, float, float]]:
        """Scene rectangles (x0, y0, x1, y1) of the words drawn on lines (the limit's), which
        the point labels keep clear of; ``y_up`` flips y as place_labels expects."""
        out = []
        for item in self.views[which].plot_item.items:
            label = getattr(item, "label", None) if isinstance(item, pg.InfiniteLine) else None
            if label is None or not label.isVisible():
                continue
            label.updatePosition()
            r = label.textItem.mapRectToScene(label.textItem.boundingRect())  # anchor applied
            out.append((r.left(), -r.bottom(), r.right(), -r.top()) if y_up
                       else (r.left(), r.top(), r.right(), r.bottom()))
        return out

    def _scatter(self, plot, curve: series.Curve, color: QColor, symbol: str, size: int) -> None:
        block = self._block
        spots = pg.ScatterPlotItem(
            list(curve.x), list(curve.y), data=list(curve.point_ids),
            symbol=symbol, size=size, pen=pg.mkPen("w"), brush=pg.mkBrush(color),
            hoverable=True, hoverSize=size + 5,
            tip=lambda x, y, data: point_text(self._row(data), block))
        spots.sigHovered.connect(self._hovered)
        spots.sigClicked.connect(self._clicked)
        plot.addItem(spots)
        self.scatters.append(spots)

    def _row(self, index: int) -> DefenceRow:
        return self._block.row(index)

    def _hovered(self, _item, points, _ev) -> None:
        if len(points):
            self.show_point(int(points[0].data()))

    def show_point(self, index: int) -> None:
        """Say what the point of row ``index`` is, under the chart."""
        self.hover_label.setText(point_text(self._row(index), self._block).replace("\n", " · "))

    def _clicked(self, _item, points, _ev) -> None:
        if len(points):
            self.point_clicked.emit(int(points[0].data()))


def _label_font() -> QFont:
    font = QFont()
    font.setPixelSize(LABEL_PX + 2)
    return font
