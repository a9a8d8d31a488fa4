"""What the trained detector (the neural meta-classifier of the location audit) learned: its
first-layer weights as a heat map with the diagonal-dominance summary (paper 000 §4.2,
Fig. 12/15). Split out of gui/widgets/location_results.py (issue 33 item 2); reads the typed
details of engine.results.location.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QVBoxLayout, QWidget

from engine.plots.observations import load_location
from engine.results.location import FirstLayer, LocationDetails
from gui.formatting import is_number, number
from gui.widgets.plot_view import PlotView
from gui.widgets.results_view import escape, rich_label

DOMINANCE_TIP = ("Diagonal dominance ≈ 1 means the network learnt the one-threshold rule "
                 "(every observation weighted alike); ≫ 1 means it learnt the two-threshold rule "
                 "(each observation judged on its own); paper 000, Fig. 12 and 15.")


def diverging_colormap() -> pg.ColorMap:
    """Blue (negative) – white (0) – red (positive): weights."""
    return pg.ColorMap([0.0, 0.5, 1.0], [(33, 102, 172), (247, 247, 247), (178, 24, 43)])


# ====================================================================== meta-classifier

#: Issue 20 item 2 / walk-through 2026-11-26: the attack's plain name, as on the Custom list.
META_NOT_RUN = ("The trained detector (a small neural network) was not part of this run. Tick "
                "“Trained detector” under Custom on the Attacks & run step to see what it "
                "learns.")


def meta_classifier_sentence(summary: FirstLayer | None) -> str:
    summary = summary or FirstLayer()
    dominance, bias, shape = summary.diagonal_dominance, summary.opposite_sign_bias, summary.shape
    if is_number(dominance):
        reading = ("close to 1: it learnt the one-threshold rule, weighing every observation "
                   "alike" if dominance < 1.5 else
                   "well above 1: it learnt the two-threshold rule, judging each observation on "
                   "its own" if dominance >= 3 else "in between the one- and two-threshold rules")
    else:
        reading = "not available"
    shape_text = " × ".join(str(s) for s in shape) if shape else "k × k"
    return (f"First-layer weights ({shape_text}): diagonal dominance {number(dominance)} — "
            f"{reading}; opposite-sign bias {number(bias)}. ≈ 1 means the one-threshold rule, "
            "≫ 1 the two-threshold rule (paper 000, Fig. 12 and 15).")


class MetaClassifierView(QWidget):
    """The first-layer weight matrix of an MLP attack as a heat map, with its summary."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._attacks: list[tuple[str, LocationDetails]] = []   # (label, details)
        self.choice = QComboBox()
        self.choice.setToolTip("Which neural meta-classifier to show.")
        self.choice.currentIndexChanged.connect(self._show_current)
        self.view = PlotView(min_height=300)
        self.plot_widget = self.view.plot_widget
        self.plot_item = self.view.plot_item
        self.plot_item.setLabel("bottom", "Input: the target's observation i")
        self.plot_item.setLabel("left", "Hidden unit j")
        self.plot_item.setAspectLocked(False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setColorMap(diverging_colormap())
        self.plot_item.addItem(self.image)
        self.view.setToolTip("Blue: negative weight, red: positive weight, white: 0.")
        self.summary_label = rich_label()
        self.summary_label.setToolTip(DOMINANCE_TIP)
        row = QHBoxLayout()
        row.addWidget(self.choice)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.view, 1)

    def set_result(self, result) -> None:
        # Every neural meta-classifier that ran (its details carry a first-layer summary),
        # whether or not its weights were kept for the picture: the engine keeps them only for
        # the paper's small network on at most 128 cells (attacks/location/meta_classifier).
        r = None if result is None else load_location(result)
        self._attacks = [] if r is None else [
            (a.label or a.name, d) for a in r.attacks if (d := r.theory.details_of(a)).is_neural]
        self.choice.blockSignals(True)
        self.choice.clear()
        for label, _ in self._attacks:
            self.choice.addItem(label)
        self.choice.blockSignals(False)
        self.choice.setVisible(len(self._attacks) > 1)
        self._show_current()

    def _show_current(self) -> None:
        index = self.choice.currentIndex()
        if not self._attacks or index < 0:
            self.image.clear()
            self.view.setVisible(False)
            # The attack's plain name, as on the Custom list and in the results table.
            self.summary_label.setText(META_NOT_RUN)
            return
        details = self._attacks[index][1]
        if not details.first_layer_weights:
            self.image.clear()
            self.view.setVisible(False)
            self.summary_label.setText(escape(
                meta_classifier_sentence(details.first_layer)
                + " The weight picture is drawn only for the paper's small network on at most "
                "128 observations; this one ran without it."))
            return
        weights = np.array([[np.nan if not is_number(v) else v for v in row]
                            for row in details.first_layer_weights], dtype=float)
        weights = np.nan_to_num(weights)
        limit = float(np.abs(weights).max()) or 1.0
        self.image.setImage(weights, levels=(-limit, limit))   # rows = hidden units
        n_rows, n_cols = weights.shape
        self.view.setVisible(True)
        self.view.set_home((0.0, float(n_cols)), (0.0, float(n_rows)))
        self.summary_label.setText(escape(meta_classifier_sentence(details.first_layer)))
