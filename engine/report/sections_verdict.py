"""The report's verdict parts (issue 33 item 2: split from engine/report/sections.py): the
cover with its verdict badge and what to do next (section 1), and section 7 — the verdict, its
rules and reasons, and the evidence behind it (engine.evidence). Results are read once by
engine.results.loaded.load_result and by attribute here (issue 33 item 1)."""

from __future__ import annotations

from reportlab.graphics.shapes import Drawing, Polygon, Rect, String
from reportlab.lib import colors
from reportlab.lib.units import cm
from reportlab.platypus import Flowable, PageBreak, Spacer

from engine.audits.registry import AUDIT_TYPES
from engine.next_steps import next_steps
from engine.numbers import is_finite
from engine.report import styles as st
from engine.report.sections_base import (
    LEVEL_SHADES,
    TEXT_WIDTH,
    bullets,
    fmt_date,
    heading,
    keep,
    para,
    sub,
    table,
)
from engine.report.sections_decision import SignoffState, cover_line
from engine.report.styles import markup
from engine.results.blocks import Evidence, Verdict
from engine.results.loaded import load_result
from engine.wording import attack_words

# --------------------------------------------------------------------------- 1. cover

def verdict_badge(level: str, width: float = TEXT_WIDTH, height: float = 92) -> Drawing:
    """The big verdict: "HIGH RISK" in a shaded box plus a LOW–MEDIUM–HIGH scale.

    Shading alone would be lost on a photocopy, so the word is written large and the scale
    shows which of the three boxes is filled.
    """
    level = str(level or "").lower()
    d = Drawing(width, height)
    fill, ink = LEVEL_SHADES.get(level, (colors.white, colors.black))
    box_w = width * 0.55
    d.add(Rect(0, 0, box_w, height, fillColor=fill, strokeColor=colors.black, strokeWidth=2.5))
    word = f"{level.upper()} RISK" if level in LEVEL_SHADES else "NO VERDICT"
    d.add(String(box_w / 2, height / 2 - 11, word, fontName=st.FONT_BOLD, fontSize=32,
                 fillColor=ink, textAnchor="middle"))
    seg_w, seg_h = (width - box_w - 20) / 3, 30
    x0, y0 = box_w + 20, height / 2 - seg_h / 2 + 8
    for i, lv in enumerate(("low", "medium", "high")):
        active = lv == level
        f, t = LEVEL_SHADES[lv] if active else (colors.white, colors.Color(0.45, 0.45, 0.45))
        d.add(Rect(x0 + i * seg_w, y0, seg_w - 3, seg_h, fillColor=f,
                   strokeColor=colors.black if active else colors.Color(0.6, 0.6, 0.6),
                   strokeWidth=2 if active else 0.6))
        d.add(String(x0 + i * seg_w + (seg_w - 3) / 2, y0 + 10, lv.upper(),
                     fontName=st.FONT_BOLD if active else st.FONT, fontSize=9,
                     fillColor=t, textAnchor="middle"))
        if active:
            cx = x0 + i * seg_w + (seg_w - 3) / 2
            d.add(Polygon([cx - 6, y0 - 12, cx + 6, y0 - 12, cx, y0 - 3],
                          fillColor=colors.black, strokeColor=None))
    d.add(String(x0, y0 - 28, "risk scale (section 7 gives the rules)", fontName=st.FONT,
                 fontSize=7.5, fillColor=colors.Color(0.3, 0.3, 0.3)))
    return d


def cover(result, signoff: SignoffState | None = None) -> list[Flowable]:
    """Section 1: the title, the audit, the decision line (engine.report.sections_decision;
    ``signoff``: its state as engine.report.pdf.build_story took it before anything was
    withheld), the verdict badge, the summary and what to do next."""
    r = load_result(result)
    audit_type = r.audit_type
    entry = AUDIT_TYPES.get(audit_type)
    verdict = r.verdict
    out: list[Flowable] = [
        Spacer(1, 1.2 * cm),
        para("Privacy risk audit report", "title"),
        para(markup(entry.report_title if entry is not None else f"{audit_type} audit"),
             "subtitle"),
        para(markup(r.name or "Unnamed audit"), "name"),
        para(f"Audit run on {markup(fmt_date(r.created))}", "body"),
        cover_line(r, signoff),
        Spacer(1, 0.8 * cm),
        verdict_badge(verdict.level if verdict is not None else None),
        Spacer(1, 0.8 * cm),
        heading(1),
        para(markup(r.summary or "No summary was recorded."), "summary"),
        *what_to_do_next(r),
        Spacer(1, 0.4 * cm),
        para("How to read this report: section 7 explains how the verdict was decided and "
             "section 8 what this audit cannot tell. Sections 2 to 6 give the evidence; "
             "section 10 lets anyone reproduce the numbers. The glossary on the last page "
             "explains the terms.", "small"),
        PageBreak(),
    ]
    return out


def what_to_do_next(result) -> list[Flowable]:
    """The changes to the release that lower the risk, with what the audit measured of each
    (:mod:`engine.next_steps`; the same list the results page opens with). engine.next_steps
    sits below the loader and reads the result as written (its dict)."""
    steps = next_steps(dict(load_result(result).raw))
    if not steps:
        return []
    return [sub("What to do next"),
            *bullets(f"<b>{markup(step.action)}.</b> {markup(step.effect)}" for step in steps)]



# --------------------------------------------------------------------------- 7. verdict

def verdict_of(result) -> tuple[Verdict | None, str | None]:
    """The result's verdict block (engine.results.blocks.Verdict) and None, or None and why it
    cannot be read (none recorded, or damaged: a result that did not pass
    engine.results.result.result_problem is reported, never a traceback)."""
    r = load_result(result)
    return r.verdict, r.verdict_problem


def verdict(result) -> list[Flowable]:
    v, problem = verdict_of(result)
    level = v.level if v is not None else "none"
    body: list[Flowable] = [
        verdict_badge(level, height=70), Spacer(1, 8),
        para(f"<b>Verdict: {markup(level.upper())} risk</b> "
             f"(policy “{markup(v.policy_name if v is not None else 'default')}”)."),
    ]
    if problem:
        body.append(para(f"The saved verdict cannot be read: {markup(problem)}."))
    rules = v.policy_rules if v is not None else ()
    if rules:
        body.append(sub("Rules in force"))
        body += bullets(markup(r) for r in rules)
    reasons = v.reasons if v is not None else ()
    body.append(sub("Why this verdict"))
    body += bullets(markup(r) for r in reasons) if reasons else [para("No reasons recorded.")]
    evidence = v.evidence_block if v is not None else None
    if evidence is not None:
        body += evidence_section(evidence)
    else:
        # A result saved before issue 32: its level read the strongest figures as measured.
        body.append(para("This result was saved before the verdict weighed the evidence: "
                         "its level reads the strongest attacker's figures as measured, with "
                         "no correction for the number of attacks run.", "small"))
    body.append(para("The thresholds are a policy choice and can be changed in the "
                     "configuration; the numbers behind them do not change.", "small"))
    return [keep([heading(7), *body])]


_FIGURE_WORDS = {"accuracy": "right (balanced)", "tpr": "people spotted at the verdict's "
                 "false-alarm rate", "top1": "best guess right", "real_people":
                 "right on real people"}


def evidence_section(evidence: Evidence | dict) -> list[Flowable]:
    """Section 7's "How much evidence": the evidence sentence and the table of every test
    behind the level (engine.evidence, issue 32 item 2): the figure, its baseline, the
    one-sided p-value, Holm's adjusted p-value and whether it counts."""
    if not isinstance(evidence, Evidence):
        evidence = Evidence.from_dict(evidence)
    out: list[Flowable] = [sub("How much evidence")]
    m = evidence.m
    alpha = evidence.alpha
    alpha_words = f"{alpha * 100:g} %" if alpha is not None else "2.5 %"
    out.append(para(
        f"{markup(evidence.sentence)} Only an attack that beats its baseline "
        f"after correcting for the number of tests run raises the level: each of the {m} "
        f"figures below is a one-sided test that inverts the interval shown beside it, and "
        f"Holm's correction keeps the chance of counting any attack that carries nothing "
        f"below {alpha_words} in all. The best possible attacker of DP theory, where one "
        "exists, is computed exactly and counts without a test."))
    rows: list[list[str]] = [["Attack", "Figure", "Value", "Against", "p-value",
                              "After correction", "Counts?"]]
    for t in evidence.tests:
        rows.append([markup(attack_words(t.attack, t.label).plain_name),
                     markup(_FIGURE_WORDS.get(t.figure, str(t.figure))),
                     _percent(t.value),
                     f"{markup(t.baseline_words)} ({_percent(t.baseline)})",
                     _p_text(t.p_value), _p_text(t.adjusted_p),
                     "yes" if t.counted else "no"])
    if len(rows) > 1:
        w = TEXT_WIDTH
        out.append(table(rows, [0.24 * w, 0.2 * w, 0.09 * w, 0.17 * w, 0.1 * w, 0.11 * w,
                                0.09 * w]))
    return out


def _percent(v) -> str:
    return f"{v:.1%}" if is_finite(v) else "—"


def _p_text(v) -> str:
    if not isinstance(v, (int, float)):
        return "—"
    return "&lt; 0.0001" if v < 1e-4 else f"{v:.4f}"


