"""What-if sweep: how the optimal attacker's success moves with ε per observation or with k.

All three curves are exact theory (no sampling), so they are smooth and cheap; the vertical
line marks the setting being audited so the officer sees which way is safer.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gui.formatting import fpr_label, is_number, number, pct
from gui.widgets.plot_view import PlotView

PARAMETER_AXIS = {
    "epsilon": "ε per observation (log scale)",
    "observations": "observations per person k (log scale)",
}


def inverse_sentence(inverse: dict | None) -> str:
    """The answer to "how much ε can I afford?" as one sentence (theory.inverse)."""
    if not inverse:
        return ""
    fpr = fpr_label(inverse.get("fpr", 0.01))
    limit = pct(inverse.get("max_tpr"), 1)
    k = inverse.get("observations")
    if not inverse.get("feasible"):
        note = inverse.get("note") or ""
        return (f"No ε per observation keeps the optimal attacker at or below {limit} of people "
                f"spotted at {fpr} false accusations with k = {k}. {note}").strip()
    eps = inverse.get("max_epsilon_per_observation")
    scale = inverse.get("min_noise_scale")
    scale_name = inverse.get("noise_scale_name") or "noise scale"
    text = (f"To keep the optimal attacker at or below {limit} of people spotted at {fpr} "
            f"false accusations with k = {k} observations per person, use ε ≤ {number(eps)} per "
            f"observation")
    if is_number(scale):
        text += f" (a {scale_name} of at least {number(scale)})"
    text += f"; the attacker then spots {pct(inverse.get('achieved_tpr'), 2)}."
    note = inverse.get("note")
    return f"{text} {note}" if note else text


class SweepPlot(QWidget):
    """Accuracy, AUC and TPR at the policy FPR against the swept parameter."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = PlotView(min_height=260)
        self.plot_widget = self.view.plot_widget
        self.plot_item = self.view.plot_item
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.plot_item.setLabel("left", "Optimal attacker's success")
        self.legend = self.plot_item.addLegend(offset=(10, 10), labelTextSize="8pt")
        self.inverse_label = QLabel()
        self.inverse_label.setWordWrap(True)
        self.inverse_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.inverse_label)

    def set_result(self, result: dict | None) -> None:
        self.plot_item.clear()
        self.legend.clear()
        theory = (result or {}).get("theory") or {}
        self.inverse_label.setText(inverse_sentence(theory.get("inverse")))
        sweep = theory.get("sweep")
        if not sweep or not sweep.get("values"):
            return
        values = np.asarray(sweep["values"], dtype=float)
        parameter = sweep.get("parameter", "epsilon")
        self.plot_item.setLogMode(x=True, y=False)
        self.plot_item.setLabel("bottom", PARAMETER_AXIS.get(parameter, parameter))
        series = [("Balanced accuracy", sweep.get("accuracy"), QColor(21, 101, 192)),
                  ("AUC", sweep.get("auc"), QColor(0, 121, 107)),
                  (f"TPR at {fpr_label(sweep.get('fpr', 0.01))} FPR", sweep.get("tpr_at_fpr"),
                   QColor(183, 28, 28))]
        for name, ys, color in series:
            if not ys:
                continue
            y = np.array([np.nan if v is None else v for v in ys], dtype=float)
            keep = np.isfinite(y) & (values > 0)
            self.plot_item.addItem(pg.PlotDataItem(values[keep], y[keep], name=name,
                                                   pen=pg.mkPen(color, width=2)))
        current = sweep.get("current")
        if is_number(current) and current > 0:
            symbol = "ε" if parameter == "epsilon" else "k"
            line = pg.InfiniteLine(pos=np.log10(current), angle=90,
                                   pen=pg.mkPen(QColor(60, 60, 60), width=1.5,
                                                style=Qt.PenStyle.DashLine),
                                   label=f"now: {symbol} = {number(current)}",
                                   labelOpts={"position": 0.08, "color": (40, 40, 40),
                                              "fill": (255, 255, 255, 200)})
            self.plot_item.addItem(line)
        # Success rates live in [0, 1]; the swept values span the x axis (log10 units).
        positive = values[values > 0]
        if positive.size:
            self.view.set_home((float(np.log10(positive.min())),
                                float(np.log10(positive.max()))), (0.0, 1.0))
