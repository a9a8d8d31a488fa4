"""The ROC chart shades the strongest attack's band only, on screen and in the PDF alike
(issue 21: five 95 % bands on log axes covered nearly the whole plot)."""

from __future__ import annotations

import numpy as np
from reportlab.graphics.shapes import Polygon, String

from engine.headline import banded_attack
from engine.plots import series
from engine.report.charts import roc_chart


def banded_result(stored: str | None = "b"):
    fpr = np.geomspace(1e-3, 1.0, 60)
    attacks = []
    for i, name in enumerate(("a", "b", "c")):
        tpr = fpr ** (0.3 + 0.2 * i)
        attacks.append({"name": name, "label": f"Attack {name.upper()}", "auc": 0.9 - 0.1 * i,
                        "roc": {"fpr": fpr.tolist(), "tpr": tpr.tolist()},
                        "tpr_at_fpr": [{"fpr_target": 0.01, "tpr": float(0.5 - 0.1 * i),
                                        "measurable": True}],
                        "accuracy": 0.7, "details": {"roc_band": {
                            "fpr": fpr.tolist(), "tpr_lower": (tpr * 0.8).tolist(),
                            "tpr_upper": np.minimum(tpr * 1.2, 1).tolist()}}})
    verdict = {"headline": {"fpr": 0.01, "name": stored}} if stored else {}
    return {"audit_type": "model", "attacks": attacks, "theory": {}, "verdict": verdict,
            "config": {}}


def walk(group):
    for item in getattr(group, "contents", []):
        yield item
        yield from walk(item)


def test_the_report_shades_one_band_the_strongest():
    drawing = roc_chart(banded_result("b"), log_scale=True)
    alpha = series.BAND_ALPHA / 255
    bands = [p for p in walk(drawing) if isinstance(p, Polygon)
             and abs(p.fillColor.alpha - alpha) < 1e-9]
    b = series.attack_style(1).color        # attack "b", the strongest, in its own colour
    assert [(p.fillColor.red, p.fillColor.green, p.fillColor.blue) for p in bands] == \
        [(b[0] / 255, b[1] / 255, b[2] / 255)]
    texts = " ".join(s.text for s in walk(drawing) if isinstance(s, String))
    assert len(bands) == 1
    assert "band of the strongest attack, Attack B" in texts and "each attack" not in texts


def test_the_banded_attack_is_the_stored_headline_else_rebuilt():
    assert banded_attack(banded_result("c")) == "c"
    assert banded_attack(banded_result(None)) == "a"       # highest TPR at 1 %: the policy's
    assert banded_attack(banded_result("not-an-attack")) == "a"


def test_the_screen_shows_the_same_band_and_every_band_on_request(qtbot):
    import pyqtgraph as pg

    from gui.widgets.roc_plot import RocPlot

    plot = RocPlot()
    qtbot.addWidget(plot)
    plot.set_result(banded_result("b"))

    def fills():
        return [i for i in plot.plot_item.items if isinstance(i, pg.FillBetweenItem)]

    assert len(fills()) == 1
    plot.every_band.setChecked(True)
    assert len(fills()) == 3
