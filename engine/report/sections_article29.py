"""The report's officer's frame (issue 34 item 4): "The three risks of the Article 29 opinion"
— each of WP216 §3's risks (singling out, linkability, inference) with its level, one plain
sentence and the figures behind it — and "For your data-protection impact assessment": how the
risk was assessed, the risks found, the measures compared, the residual risk and the decision
(engine.findings.article29). Printed after the verdict and the decision page.

The section names no person (the findings count exposed records, never list them), so
engine.report.pdf.build_story builds it from the result as given, before anything is withheld:
the decision line's check of the sign-off's fingerprint then reads the result that was signed,
as the decision page's does.
"""

from __future__ import annotations

from reportlab.lib.units import cm
from reportlab.platypus import CondPageBreak, Flowable, Paragraph

from engine.findings.article29 import (
    DPIA_TITLE,
    TITLE,
    article29_risks,
    dpia_items,
)
from engine.report import styles as st
from engine.report.sections_base import S, bullets, keep, para, sub
from engine.report.styles import markup
from engine.results.loaded import load_result


def _title(text: str, key: str) -> Paragraph:
    """A page-level title that is a bookmark too (engine.report.pdf._Doc reads ``outline``)."""
    title = Paragraph(st.fonted(markup(text)), S("h1"))
    title.outline = (text, key)
    return title


def article29_section(result, comparison=None) -> list[Flowable]:
    """Both parts (module docstring). ``comparison``: an engine.compare ``Comparison`` whose
    candidates the DPIA list names as the measures compared, or None."""
    r = load_result(result)
    out: list[Flowable] = [CondPageBreak(8 * cm), _title(TITLE, "section-article29"), para(
        "The Article 29 Working Party's opinion on anonymisation techniques (Opinion 05/2014, "
        "WP216, §3) judges a release by three risks: <b>singling out</b> (isolating some or "
        "all of the records of one person), <b>linkability</b> (linking records of the same "
        "person, within the release or with other data) and <b>inference</b> (deducing a "
        "person's value of one attribute from the others). Each is marked <i>found, with "
        "evidence</i>; <i>not found at this size</i> — the attacks run could not be told from "
        "guessing with this many trials, which is not a finding of no risk; or <i>not tested "
        "by this audit</i>.")]
    for f in article29_risks(r):
        block: list[Flowable] = [sub(f"{markup(f.label)}: {markup(f.level_label)}"),
                                 para(f"<i>{markup(f.meaning[0].upper() + f.meaning[1:])}.</i> "
                                      f"{markup(f.sentence)}")]
        # Bullets, not a table: a table's row cannot break across pages, and a figure's label
        # may hold a name the user typed (a feature, an audit's name) of any length.
        block += bullets(f"{markup(k)}: <b>{markup(v)}</b>" for k, v in f.figures)
        out.append(keep(block))
    items = dpia_items(r, comparison)
    out += [CondPageBreak(6 * cm), _title(DPIA_TITLE, "section-dpia"), para(
        "What a data-protection impact assessment (GDPR Art. 35(7)(c)–(d)) takes from this "
        "audit: the risk found, the measures compared, the risk that remains and the "
        "decision taken on it."),
        *bullets(f"<b>{markup(i.label)}.</b> {markup(i.text)}" for i in items)]
    return out
