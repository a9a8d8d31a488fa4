"""The comparison report (issue 34 item 1): a PDF of its own for a comparison of candidate
releases (engine.compare). A cover with what was compared and the comparison's sentence; one
table — candidate, what differs, risk with its interval, cost to the data's users, verdict,
whether it meets the policy, the best one marked; one chart of risk (with its interval as a bar)
against cost; the pairs that cannot be told apart at this size; and the officer's sign-off line
when one is given (engine.signoff, issue 34 item 3).

The comparison is read by attribute (a :class:`engine.compare.Comparison` or anything of its
shape), so the report sits below engine.compare in the layers (docs/dev/layers.md); the
sign-off is any object with ``decision``, ``reviewer``, ``role``, ``date`` and
``result_sha256``, or None.
"""

from __future__ import annotations

import math
import pathlib

from reportlab.graphics.shapes import Circle, Drawing, Group, Line, Rect, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import cm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from engine.atomic_write import atomic_path
from engine.report import styles as st
from engine.wording import COMPARE_TERMS

DECISION_WORDS = {"approve": "Approved", "approve_with_conditions": "Approved with conditions",
                  "reject": "Rejected"}
BEST_FILL = colors.Color(0.85, 0.93, 0.85)


def _pct(x) -> str:
    return st.DASH if x is None or not math.isfinite(x) else f"{x:.1%}"


def _risk_text(risk) -> str:
    if risk is None or risk.value is None:
        return st.DASH
    ci = f" ({_pct(risk.ci[0])}–{_pct(risk.ci[1])})" if risk.ci is not None else ""
    return _pct(risk.value) + ci


def _cost_text(cost) -> str:
    if cost is None or cost.value is None:
        return st.DASH
    return _pct(cost.value) if cost.unit == "share" else f"{cost.value:.3g}"


def _differs(row) -> str:
    if not row.overrides:
        return "saved project" if row.folder else "the base settings"
    return ", ".join(f"{k} = {v}" for k, v in row.overrides.items())


def _meets(row) -> str:
    return {True: "yes", False: "no", None: st.DASH}[row.meets_policy]


def table(comparison, s) -> Table:
    """The one table (module docstring); the best row is shaded and marked with an asterisk."""
    head = ["", "Candidate", "What differs", "Risk (interval)", "Cost to users", "Verdict",
            "Meets policy"]
    data = [[Paragraph(h, s["cell_bold"]) for h in head]]
    for r in comparison.rows:
        best = r.index == comparison.best
        status = "" if r.status == "finished" else f" ({r.status})"
        data.append([Paragraph("*" if best else str(r.index), s["cell"]),
                     Paragraph(st.markup(r.label + status), s["cell_bold" if best else "cell"]),
                     Paragraph(st.markup(_differs(r)), s["cell"]),
                     Paragraph(st.markup(_risk_text(r.risk)), s["cell"]),
                     Paragraph(_cost_text(r.cost), s["cell"]),
                     Paragraph(st.markup(r.verdict_level or st.DASH), s["cell"]),
                     Paragraph(_meets(r), s["cell"])])
    t = Table(data, colWidths=[0.7 * cm, 3.0 * cm, 3.6 * cm, 3.4 * cm, 2.3 * cm, 1.8 * cm,
                               2.0 * cm], repeatRows=1)
    style = [("GRID", (0, 0), (-1, -1), 0.4, st.GREY_RULE),
             ("BACKGROUND", (0, 0), (-1, 0), st.HEADER_FILL),
             ("VALIGN", (0, 0), (-1, -1), "TOP")]
    for i, r in enumerate(comparison.rows, 1):
        if r.index == comparison.best:
            style.append(("BACKGROUND", (0, i), (-1, i), BEST_FILL))
    t.setStyle(TableStyle(style))
    return t


def chart(comparison, width: float = 440.0, height: float = 240.0) -> Drawing | None:
    """Risk (y, with its interval as a vertical bar) against cost (x), one numbered point per
    finished candidate; the best one filled. None when fewer than one point can be drawn."""
    rows = [r for r in comparison.rows if r.status == "finished" and r.risk is not None
            and r.risk.value is not None and r.cost is not None and r.cost.value is not None]
    if not rows:
        return None
    left, bottom, right, top = 50.0, 36.0, width - 12.0, height - 14.0
    xs = [r.cost.value for r in rows]
    ys = [v for r in rows for v in ((r.risk.ci or (r.risk.value,) * 2) + (r.risk.value,))]
    ys.append(rows[0].risk.baseline)
    x0, x1 = min(xs), max(xs)
    pad = (x1 - x0) * 0.1 or max(abs(x1) * 0.1, 0.05)
    x0, x1 = (max(0.0, x0 - pad) if x0 >= 0 else x0 - pad), x1 + pad   # a cost is never < 0
    y0, y1 = max(0.0, min(ys) - 0.02), min(1.0, max(ys) + 0.02)
    if y1 <= y0:
        y1 = y0 + 0.05

    def px(x):
        return left + (x - x0) / (x1 - x0) * (right - left)

    def py(y):
        return bottom + (y - y0) / (y1 - y0) * (top - bottom)

    st.register_fonts()
    d = Drawing(width, height)
    d.add(Rect(left, bottom, right - left, top - bottom, fillColor=None,
               strokeColor=st.GREY_RULE, strokeWidth=0.5))
    for k in range(5):
        yv = y0 + (y1 - y0) * k / 4
        d.add(String(left - 4, py(yv) - 3, f"{yv:.0%}" if y1 - y0 > 0.04 else f"{yv:.1%}",
                     fontName=st.FONT, fontSize=7, textAnchor="end"))
        xv = x0 + (x1 - x0) * k / 4
        unit_share = rows[0].cost.unit == "share"
        d.add(String(px(xv), bottom - 11, f"{xv:.0%}" if unit_share else f"{xv:.3g}",
                     fontName=st.FONT, fontSize=7, textAnchor="middle"))
    base = rows[0].risk.baseline
    if y0 <= base <= y1:
        d.add(Line(left, py(base), right, py(base), strokeColor=st.GREY_RULE,
                   strokeDashArray=[3, 2], strokeWidth=0.6))
        d.add(String(left + 3, py(base) + 2, "guessing", fontName=st.FONT, fontSize=6.5,
                     textAnchor="start", fillColor=st.GREY_TEXT))
    for r in rows:
        x, y = px(r.cost.value), py(r.risk.value)
        if r.risk.ci is not None:
            d.add(Line(x, py(r.risk.ci[0]), x, py(r.risk.ci[1]), strokeWidth=1.2))
            for end in r.risk.ci:
                d.add(Line(x - 3, py(end), x + 3, py(end), strokeWidth=1.2))
        best = r.index == comparison.best
        d.add(Circle(x, y, 3.5, fillColor=colors.black if best else colors.white,
                     strokeColor=colors.black, strokeWidth=1))
        d.add(String(x + 6, y + 3, str(r.index), fontName=st.FONT_BOLD, fontSize=8))
    d.add(String((left + right) / 2, 4, st.plain_text(rows[0].cost.label) + " (lower is better)",
                 fontName=st.FONT, fontSize=8, textAnchor="middle"))
    title = Group(String(0, 0, st.plain_text(rows[0].risk.label), fontName=st.FONT,
                         fontSize=8, textAnchor="middle"))
    title.translate(12, (bottom + top) / 2)
    title.rotate(90)
    d.add(title)
    return d


def signoff_lines(signoff, comparison) -> list[str]:
    """The sign-off in words, or [] for none (any object of a SignOff's shape)."""
    if signoff is None:
        return []
    decision = DECISION_WORDS.get(getattr(signoff, "decision", ""),
                                  str(getattr(signoff, "decision", "")))
    who = getattr(signoff, "reviewer", "") or "an unnamed reviewer"
    role = getattr(signoff, "role", "")
    sha = getattr(signoff, "result_sha256", "") or ""
    which = next((r for r in comparison.rows if r.result_sha256 and r.result_sha256 == sha),
                 None)
    what = f"candidate “{which.label}”" if which is not None else "the result"
    lines = [f"{decision} by {who}{', ' + role if role else ''} on "
             f"{getattr(signoff, 'date', '') or 'an unrecorded date'}: {what}."]
    conditions = getattr(signoff, "conditions", "")
    if conditions:
        lines.append(f"Conditions: {conditions}")
    if sha:
        lines.append(f"Result SHA-256: {sha}")
    return lines


def build_story(comparison, signoff=None) -> list:
    s = st.styles()
    story = [Paragraph("Comparison of candidate releases", s["title"]),
             Paragraph(st.markup(comparison.name), s["subtitle"]),
             Paragraph(st.markup(f"{len(comparison.rows)} candidate releases of one "
                                 f"{comparison.audit_type} audit, every one run with the same "
                                 f"seed ({comparison.seed}), so a difference between two "
                                 "candidates is theirs and not the random draws'."), s["body"]),
             Paragraph(st.markup(comparison.sentence), s["summary"])]
    for line in signoff_lines(signoff, comparison):
        story.append(Paragraph(st.markup(line), s["body"]))
    story += [Paragraph("The candidates", s["h1"]), table(comparison, s),
              Paragraph(st.markup("* the most useful candidate that meets the policy (the "
                                  "lowest cost among those whose verdict is at most "
                                  f"{comparison.highest_level}). Risk: "
                                  "the strongest attack's figure with its 95 % interval."),
                        s["caption"])]
    for r in comparison.rows:
        words = r.error if r.error else (f"{r.risk.sentence} {r.cost.sentence}"
                                         if r.risk is not None and r.cost is not None else "")
        if words:
            story.append(Paragraph(st.markup(f"{r.index}. {r.label}: {words}"), s["small"]))
    drawing = chart(comparison)
    if drawing is not None:
        story += [Paragraph("Risk against cost", s["h2"]), drawing,
                  Paragraph("Each point is a candidate (its number in the table); the bar is "
                            "its risk's 95 % interval; the filled point is the best candidate "
                            "that meets the policy.", s["caption"])]
    story.append(Paragraph("Which candidates can be told apart", s["h2"]))
    apart = [p for p in comparison.pairs if not p.distinguishable]
    if not comparison.pairs:
        story.append(Paragraph("Fewer than two candidates finished.", s["body"]))
    for p in apart or comparison.pairs:
        story.append(Paragraph(st.markup(p.sentence), s["bullet"], bulletText="•"))
    if apart and len(apart) < len(comparison.pairs):
        story.append(Paragraph(f"The other {len(comparison.pairs) - len(apart)} pairs differ "
                               "(their risk intervals do not overlap).", s["body"]))
    story.append(Paragraph("Two candidates cannot be told apart at this size when their risk "
                           "intervals overlap: the difference between them may then be "
                           "chance, and more test cases would narrow both intervals "
                           "(docs/methods/compare.md).", s["caption"]))
    story.append(Paragraph("Terms", s["h2"]))
    for term, words in COMPARE_TERMS.items():
        story.append(Paragraph(f"<b>{st.markup(term)}</b>: {st.markup(words)}", s["small"]))
    return story


def write_comparison_report(comparison, path, *, signoff=None) -> pathlib.Path:
    """Write the comparison's PDF to ``path`` crash-safely (engine.atomic_write)."""
    st.register_fonts()
    path = pathlib.Path(path)
    with atomic_path(path) as tmp:
        doc = SimpleDocTemplate(str(tmp), pagesize=A4, leftMargin=2 * cm, rightMargin=2 * cm,
                                topMargin=2 * cm, bottomMargin=2 * cm,
                                title=st.metadata_text(f"Comparison: {comparison.name}"),
                                author="Privacy Risk Auditor")
        doc.build(build_story(comparison, signoff) + [Spacer(1, 6)])
    return path
