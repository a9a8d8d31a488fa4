"""What every report chart shares (issue 33 item 2: split from engine/report/charts.py): the
drawing that keeps its series for the tests, and the series colours and styles of
:mod:`engine.plots.series` as reportlab's, so the report and the screen cannot disagree."""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.attrmap import AttrMap, AttrMapValue
from reportlab.lib.validators import isAnything

from engine.plots import series
from engine.report.plotkit import ChartDrawing


class SeriesDrawing(ChartDrawing):
    """A chart's drawing that keeps the series it drew (``plot_series``), so a test can put it
    beside the screen's."""

    _attrMap = AttrMap(BASE=ChartDrawing, plot_series=AttrMapValue(isAnything),
                       plot_axes=AttrMapValue(isAnything), plot_guides=AttrMapValue(isAnything),
                       plot_log_x=AttrMapValue(isAnything))



def rl_color(rgb, alpha: float | None = None):
    """A series colour (0–255, engine.plots.series) as reportlab's; RGBA keeps its alpha."""
    if len(rgb) == 4 and alpha is None:
        alpha = rgb[3] / 255
    return colors.Color(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255,
                        alpha=1 if alpha is None else alpha)


def rl_style(style: series.Style) -> tuple:
    """A series style as the (colour, dash, marker) triple the plot toolkit draws."""
    return (rl_color(style.color), style.dash, style.marker)


# Series styles from engine.plots.series, so the report and the screen cannot disagree.
# Dark colours print as near-black; the dash pattern and the marker tell them apart in black
# and white.
REGION_FILL = rl_color(series.REGION_FILL)
ATTACK_STYLES = [rl_style(style) for style in series.ATTACK_STYLES]
THEORY_STYLE = rl_style(series.OPTIMAL_STYLE)
WORST_STYLE = rl_style(series.WORST_STYLE)
DIAGONAL_STYLE = rl_style(series.DIAGONAL_STYLE)
BOUND_STYLE = rl_style(series.BOUND_STYLE)     # extra reference lines of roc_chart
