"""The location page's data preview (moved out of gui/pages/location_page.py, issue 33 item 2):
the traces loaded with the engine's own rules, and their sites × hours heat map.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import (
    QVBoxLayout,
    QWidget,
)

from engine.audits.location import LocationConfig
from engine.games.location_setup import load_population
from gui.pages.audit_page import (
    read_notes_sentence,
)
from gui.widgets.location_results import sequential_colormap
from gui.widgets.plot_view import PlotView


@dataclass(frozen=True)
class DataPreview:
    """What the Data step shows about the loaded traces."""

    aggregate: np.ndarray          # (E, S) people per epoch and site
    n_people: int
    n_sites: int
    n_epochs: int
    median_observations: float
    source: str
    read_as: str = ""              # what was assumed to read the file (read_notes_sentence)

    def sentence(self) -> str:
        return (f"{self.n_people:,} people, {self.n_sites:,} sites, {self.n_epochs:,} hours, "
                f"median {self.median_observations:g} observations per person "
                f"({self.source}). {self.read_as}").strip()


def load_preview(data: dict, progress=None, cancel=None) -> DataPreview:
    """Validate the data settings with the engine's rules and load them (any thread)."""
    config = LocationConfig.from_dict(data, source="settings")
    traces, inputs = load_population(config)
    k = traces.observations_per_user()
    source = os.path.basename(config.traces) if config.traces else "synthetic city"
    read_as = read_notes_sentence(inputs[0]["path"]) if inputs else ""
    return DataPreview(traces.aggregate(), traces.n_users, traces.n_sites, traces.n_epochs,
                       float(np.median(k)) if k.size else 0.0, source, read_as)


class DataPreviewPlot(QWidget):
    """Sites × epochs heat map of the aggregate, with its one-line description."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = PlotView(min_height=240)
        self.plot_item = self.view.plot_item
        self.plot_item.setLabel("bottom", "Hour (time period)")
        self.plot_item.setLabel("left", "Site (place)")
        self.image = pg.ImageItem(axisOrder="col-major")
        self.image.setColorMap(sequential_colormap())
        self.plot_item.addItem(self.image)
        self.view.setToolTip("People counted at each place (rows) in each hour (columns): "
                             "darker is more people.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.set_aggregate(None)

    def set_aggregate(self, aggregate: np.ndarray | None) -> None:
        if aggregate is None or aggregate.size == 0:
            self.image.clear()
            self.view.show_message("No data loaded yet: choose a traces file above, or use "
                                   "the synthetic city, to see how many people each place "
                                   "counts in each hour.")
            return
        self.view.show_message(None)
        data = np.asarray(aggregate, dtype=float)           # (E, S): x = epoch, y = site
        self.image.setImage(data, levels=(0.0, max(float(data.max()), 1.0)))
        n_epochs, n_sites = data.shape
        self.view.set_home((0.0, float(n_epochs)), (0.0, float(n_sites)))
