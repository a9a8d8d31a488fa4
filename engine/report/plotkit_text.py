"""Text and marks of the report's charts (issue 33 item 2: split from
engine/report/plotkit.py): text in the embedded fonts with superscript digits drawn as raised
small digits, its width and wrapping, the markers that tell series apart in black and white,
and a styled polyline."""

from __future__ import annotations

import math

from reportlab.graphics.shapes import Circle, Group, Line, Polygon, PolyLine, Rect, String
from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth

from engine.report import styles as st

BLACK = colors.black


# --------------------------------------------------------------------------- text & marks

# Superscript digits (10⁻⁵ in a δ or an ε): the embedded fonts have no glyphs for them and
# styles.plain_text writes "10−5", which reads as ten minus five; they are drawn as small
# raised digits instead.
_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "−0123456789")
SUPERSCRIPT_SCALE = 0.72
SUPERSCRIPT_RISE = 0.38


def _script_runs(s: str, size: float, bold: bool) -> list[tuple[str, str, float, float]]:
    """(chunk, font, size, rise) pieces of ``s``: Greek in the Symbol font, superscripts
    small and raised."""
    out = []
    for part, sup in _superscript_parts(s):
        sz = size * SUPERSCRIPT_SCALE if sup else size
        rise = size * SUPERSCRIPT_RISE if sup else 0.0
        text = part.translate(_SUPERSCRIPT) if sup else part
        font = st.FONT_BOLD if bold else st.FONT
        out += [(chunk, st.FONT_SYMBOL if sym else font, sz, rise)
                for chunk, sym in st.runs(text)]
    return out


def _superscript_parts(s: str) -> list[tuple[str, bool]]:
    parts: list[tuple[str, bool]] = []
    for ch in s:
        sup = ch in "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"
        if parts and parts[-1][1] == sup:
            parts[-1] = (parts[-1][0] + ch, sup)
        else:
            parts.append((ch, sup))
    return parts


def text(x: float, y: float, s: str, size: float = 8, anchor: str = "start",
         bold: bool = False, color=BLACK, angle: float = 0) -> Group:
    """A string that may contain Greek (runs of Vera and the embedded Symbol font) and
    superscript digits (drawn small and raised)."""
    pieces = _script_runs(s, size, bold)
    width = sum(stringWidth(c, f, sz) for c, f, sz, _ in pieces)
    cx = {"start": 0.0, "middle": -width / 2, "end": -width}[anchor]
    g = Group()
    for chunk, f, sz, rise in pieces:
        g.add(String(cx, rise, chunk, fontName=f, fontSize=sz, fillColor=color))
        cx += stringWidth(chunk, f, sz)
    g.translate(x, y)
    if angle:
        g.rotate(angle)
    return g


def text_width(s: str, size: float, bold: bool = False) -> float:
    return sum(stringWidth(c, f, sz) for c, f, sz, _ in _script_runs(s, size, bold))


def wrap(s: str, width: float, size: float, max_lines: int | None = None) -> list[str]:
    """Greedy word wrap to a width in points. Without ``max_lines`` nothing is cut: a word wider
    than the line is split between characters (a legend shows its whole text, issue 21). With
    it, lines past the last are dropped and the last ends in an ellipsis."""
    words, lines, cur = [], [], ""
    for w in s.split():
        # A word that alone overflows the line is broken into pieces that fit.
        while max_lines is None and text_width(w, size) > width and len(w) > 1:
            n = len(w) - 1
            while n > 1 and text_width(w[:n], size) > width:
                n -= 1
            words.append(w[:n])
            w = w[n:]
        words.append(w)
    for w in words:
        trial = f"{cur} {w}".strip()
        if text_width(trial, size) <= width or not cur:
            cur = trial
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    if max_lines is None:
        return lines
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] += " …"
    out = []
    for line in lines:
        while text_width(line, size) > width and len(line) > 2:
            line = line[:-2] + "…"
        out.append(line)
    return out


def marker(kind: str | None, x: float, y: float, color, size: float = 3.2) -> Group:
    g = Group()
    if kind is None:
        return g
    s = size
    if kind == "circle":
        g.add(Circle(x, y, s, fillColor=colors.white, strokeColor=color, strokeWidth=1))
    elif kind == "square":
        g.add(Rect(x - s, y - s, 2 * s, 2 * s, fillColor=color, strokeColor=color))
    elif kind == "triangle":
        g.add(Polygon([x - s, y - s, x + s, y - s, x, y + s * 1.2], fillColor=colors.white,
                      strokeColor=color, strokeWidth=1))
    elif kind == "diamond":
        g.add(Polygon([x, y - s * 1.3, x + s, y, x, y + s * 1.3, x - s, y], fillColor=color,
                      strokeColor=color))
    elif kind == "star":      # five-pointed, filled (the undefended model of tradeoff_chart)
        pts = []
        for i in range(10):
            r = s * 1.7 if i % 2 == 0 else s * 0.75
            a = math.pi / 2 + i * math.pi / 5
            pts += [x + r * math.cos(a), y + r * math.sin(a)]
        g.add(Polygon(pts, fillColor=color, strokeColor=color, strokeWidth=0.5))
    elif kind == "ring":      # a wide open circle around another marker (recommended setting)
        g.add(Circle(x, y, s * 2.3, fillColor=None, strokeColor=color, strokeWidth=1.4))
    else:  # cross
        g.add(Line(x - s, y - s, x + s, y + s, strokeColor=color, strokeWidth=1.2))
        g.add(Line(x - s, y + s, x + s, y - s, strokeColor=color, strokeWidth=1.2))
    return g


def polyline(points: list[float], style, width: float = 1.2) -> PolyLine:
    color, dash, _ = style
    return PolyLine(points, strokeColor=color, strokeWidth=width, strokeDashArray=dash,
                    strokeLineJoin=1, strokeLineCap=0 if dash else 1)
