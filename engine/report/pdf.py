"""Assemble the PDF report from a result.json dict (ARCHITECTURE §4).

The report is what a privacy officer attaches to a DPIA, so it must stand on its own: every
page says which audit it belongs to (footer) and where it is (page n of N); the sections come in
a fixed order (see :mod:`engine.report.sections`); the audit-specific sections are chosen by
``result["audit_type"]`` through the audit type's registry entry (``report_sections`` of
:data:`engine.audits.registry.AUDIT_TYPES`), so an audit type adds its sections by naming one
:class:`~engine.report.sections.AuditSections` subclass there.
"""

from __future__ import annotations

import pathlib

from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import cm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageTemplate

from engine import __version__
from engine.atomic_write import atomic_path
from engine.audits.registry import AUDIT_TYPES
from engine.report import styles as st
from engine.report.charts import text, text_width
from engine.report.sections import (
    AuditSections,
    bullets,
    cover,
    glossary,
    heading,
    reproducibility,
    sub,
    verdict,
    verdict_error_rate_limitations,
    without_personal_fields,
)
from engine.report.sections_article29 import article29_section
from engine.report.sections_decision import decision_notes, decision_page, state_of
from engine.results.loaded import load_result

MARGIN = 2 * cm
FOOTER_Y = 1.1 * cm


def build_story(result, include_records: bool = False) -> list[Flowable]:
    """The flowables of the whole report, sections 1–10 in order. Without ``include_records``
    no section sees a field that names a person (:func:`without_personal_fields`). The result
    (a dict or a loaded result) is read once here (engine.results.loaded.load_result, issue 33
    item 1) and every section is given the loaded result."""
    result = load_result(result)
    # The sign-off is checked against the result as given, before anything is withheld from
    # the sections (engine.report.sections_decision; issue 34 item 3).
    signoff = state_of(result)
    # The Article 29 risks and the DPIA list (issue 34 item 4) name no person: built from the
    # result as given, so the decision line checks the fingerprint of the result signed.
    officer_frame = article29_section(result)
    if not include_records:
        result = without_personal_fields(result)
    entry = AUDIT_TYPES.get(result.audit_type)
    hooks = entry.sections()() if entry is not None else AuditSections()    # unknown: generic
    story: list[Flowable] = []
    story += cover(result, signoff)                                   # 1
    story += [heading(2), *hooks.audited(result)]                     # 2
    story += [heading(3), *hooks.threat_model(result)]                # 3
    # Sections 4 (measurement) and 5 are shared unless the audit's game is not a membership
    # game (aggregates: attribute inference); then its hooks bring their own.
    story += [heading(4), *hooks.method_theory(result), *hooks.method_common(result)]  # 4
    story += hooks.results(result)                                    # 5
    story += [heading(6), *hooks.theory(result)]                      # 6
    story += verdict(result)                                          # 7
    story += decision_page(result, signoff)          # the sign-off and the decision log
    story += officer_frame                            # the three risks, the DPIA list
    warnings = [st.markup(w) for w in result.warnings]
    story += [heading(8)]
    if warnings:
        story += [sub("Warnings from this run")] + bullets(warnings)
    story += [sub("What this audit cannot tell")] + bullets(
        hooks.limitations(result) + verdict_error_rate_limitations(result))
    story += [heading(9), *hooks.exposed(result, include_records)]  # 9
    story += reproducibility(result)                                  # 10
    story += glossary(result.audit_type)               # the terms in plain words (issue 20)
    return story


def decision_log(result) -> list[Flowable]:
    """The officer's decision log alone (engine.report.sections_decision.decision_notes: the
    decision page prints it under the sign-off since issue 34 item 3)."""
    return decision_notes(result)


def footer_text(result) -> str:
    r = load_result(result)
    version = r.software.get("app") or __version__
    return f"Privacy Risk Auditor {version} — {r.name or 'Unnamed audit'}"


def _numbered_canvas(footer: str):
    """A canvas class that writes "Page n of N" and the footer once N is known."""

    class NumberedCanvas(Canvas):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._pages: list[dict] = []

        def showPage(self):
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self):
            total = len(self._pages)
            for state in self._pages:
                self.__dict__.update(state)
                self._draw_footer(total)
                super().showPage()
            super().save()

        def _draw_footer(self, total: int) -> None:
            w, _ = A4
            self.saveState()
            self.setStrokeColor(st.GREY_RULE)
            self.setLineWidth(0.4)
            self.line(MARGIN, FOOTER_Y + 10, w - MARGIN, FOOTER_Y + 10)
            page = f"Page {self._pageNumber} of {total}"
            room = w - 2 * MARGIN - text_width(page, 7.5) - 20
            label = footer
            if text_width(label, 7.5) > room:
                # The longest prefix that fits, by bisection: a 10,000-character audit name
                # must not cost a width measurement per character on every page.
                lo, hi = 10, len(label)
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if text_width(label[:mid] + "…", 7.5) <= room:
                        lo = mid
                    else:
                        hi = mid - 1
                label = label[:lo] + "…"
            d = Drawing(w, 12)
            d.add(text(MARGIN, 2, label, 7.5, color=st.GREY_TEXT))
            d.add(text(w - MARGIN, 2, page, 7.5, "end", color=st.GREY_TEXT))
            renderPDF.draw(d, self, 0, FOOTER_Y - 2)
            self.restoreState()

    return NumberedCanvas


class _Doc(BaseDocTemplate):
    """A4 with one frame; numbered headings become PDF bookmarks (the reader's outline)."""

    def afterFlowable(self, flowable):
        outline = getattr(flowable, "outline", None)
        if outline:
            title, key = outline
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(title, key, level=0)


def write_report(result, path: str | pathlib.Path, *,
                 include_records: bool = False) -> pathlib.Path:
    """Write the PDF report of ``result`` (a result.json dict, or a loaded result) to
    ``path``; return the path.

    ``include_records`` prints exposed-record identifiers in full (section 9); by default they
    are redacted, as the report may travel further than the data.
    """
    st.register_fonts()
    result = load_result(result)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    w, h = A4
    # Built under a temporary name and renamed when complete: a report stopped half-way (a
    # crash, a full disk) never leaves a torn PDF, nor replaces a good one (issue 18).
    with atomic_path(path) as tmp:
        doc = _Doc(str(tmp), pagesize=A4, leftMargin=MARGIN, rightMargin=MARGIN,
                   topMargin=MARGIN, bottomMargin=MARGIN,
                   # Document properties get the page text's cleaning and more (one line, no
                   # invisible characters): a viewer's title bar shows them (issue 18).
                   title=st.metadata_text(
                       f"Privacy risk audit — {result.name or 'Unnamed audit'}"),
                   author=st.metadata_text("Privacy Risk Auditor"),
                   subject=st.metadata_text("Privacy risk audit report"),
                   creator=st.metadata_text(footer_text(result)))
        frame = Frame(MARGIN, MARGIN, w - 2 * MARGIN, h - 2 * MARGIN, id="body",
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
        doc.addPageTemplates([PageTemplate(id="page", frames=[frame])])
        doc.build(build_story(result, include_records),
                  canvasmaker=_numbered_canvas(footer_text(result)))
    return path
