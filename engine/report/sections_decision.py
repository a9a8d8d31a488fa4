"""The report's sign-off (issue 34 item 3): one line on the cover saying what was decided,
by whom and on which result, and the decision page after the verdict — the decision, its
conditions, the reviewer and role, the date, the rationale, the SHA-256 of the result signed
beside that of the result this report prints (engine.signoff), the earlier signed versions, and
the officer's decision log (issue 32 item 6) under it.

The fingerprint is taken before the report withholds anything (``without_personal_fields``
changes the result it prints a section from, not the result that was signed): :func:`state_of`
is computed once by engine.report.pdf.build_story from the result as given.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.units import cm
from reportlab.platypus import CondPageBreak, Flowable, Paragraph

from engine.report import styles as st
from engine.report.sections_base import TEXT_WIDTH, S, bullets, fmt_date, para, sub, table
from engine.report.styles import markup
from engine.results.loaded import load_result
from engine.signoff import SignOff, check, result_sha256

NOT_SIGNED = "Not signed: no decision has been recorded on this result."
DECISION_TITLE = "Decision and sign-off"


@dataclass(frozen=True)
class SignoffState:
    """What the report says of a result's sign-off: the sign-off (None: not signed), the
    earlier ones, the SHA-256 of the result printed, and why it does not match the signed one
    (None: it matches, or nothing was signed)."""

    signoff: SignOff | None
    history: tuple[SignOff, ...]
    printed_sha256: str
    problem: str | None


def state_of(result) -> SignoffState:
    """The sign-off state of ``result`` (a dict or a loaded result) as given."""
    r = load_result(result)
    try:
        digest = result_sha256(r)
    except (TypeError, ValueError, RecursionError):   # a value JSON cannot hold
        digest = ""
    return SignoffState(signoff=r.signoff, history=r.signoff_history, printed_sha256=digest,
                        problem=check(r.signoff, r))


def cover_line(result, state: SignoffState | None = None) -> Flowable:
    """"Decision: Approved with conditions — by Jane Roe (DPO), 2026-11-28; result SHA-256
    ab12…", or :data:`NOT_SIGNED`; a sign-off whose result no longer matches says so."""
    state = state if state is not None else state_of(result)
    s = state.signoff
    if s is None:
        return para(f"<b>{markup(NOT_SIGNED)}</b>", "body")
    text = (f"<b>Decision: {markup(s.past_label)}</b> — by {markup(s.who)}, {markup(s.date)}; "
            f"result SHA-256 {markup(s.result_sha256[:12])}…")
    if state.problem:
        text += (" — <b>this report's result does not match the signed one</b> (see the "
                 "decision page)")
    return para(text + ".", "body")


def _heading() -> Paragraph:
    """The decision page's title, a bookmark too (engine.report.pdf._Doc reads ``outline``)."""
    title = Paragraph(st.fonted(markup(DECISION_TITLE)), S("h1"))
    title.outline = (DECISION_TITLE, "section-decision")
    return title


def decision_page(result, state: SignoffState | None = None) -> list[Flowable]:
    """The decision page (module doc), after the verdict."""
    r = load_result(result)
    state = state if state is not None else state_of(r)
    out: list[Flowable] = [CondPageBreak(10 * cm), _heading()]
    s = state.signoff
    if s is None:
        out.append(para(f"<b>{markup(NOT_SIGNED)}</b> A decision — approve, approve with "
                        "conditions, or reject — is recorded in the app's “Decision and "
                        "sign-off” box under the results, with the reviewer's name, role and "
                        "date; the report exported after it prints it here and on the first "
                        "page."))
    else:
        out += _signed(s, state)
    if state.history:
        out.append(sub("Earlier signed versions"))
        out.append(para("Decisions signed on earlier results or settings of this audit, "
                        "replaced when the settings changed or the audit was run again:"))
        out += bullets(f"<b>{markup(h.past_label)}</b> by {markup(h.who)} on "
                       f"{markup(h.date)}, on the result with SHA-256 "
                       f"{markup(h.result_sha256[:12])}…"
                       + (f" (verdict: {markup(h.verdict)} risk)" if h.verdict else "")
                       for h in state.history)
    out += decision_notes(r)
    return out


def _signed(s: SignOff, state: SignoffState) -> list[Flowable]:
    w = TEXT_WIDTH
    rows = [["Decision", f"<b>{markup(s.label)}</b>"]]
    if s.conditions:
        rows.append(["Conditions", markup(s.conditions)])
    rows += [["Reviewer", markup(s.reviewer)], ["Role", markup(s.role or "not given")],
             ["Date", markup(s.date)], ["Signed at", markup(fmt_date(s.signed_at))]]
    if s.verdict:
        rows.append(["Verdict signed", f"{markup(s.verdict.upper())} risk"])
    rows.append(["Rationale", markup(s.rationale or "none written")])
    fingerprints = [["Result signed (SHA-256)", para(markup(s.result_sha256), "mono")],
                    ["Result in this report", para(markup(state.printed_sha256 or "—"),
                                                   "mono")]]
    out: list[Flowable] = [table(rows, [0.25 * w, 0.75 * w], header=False,
                                 bold_first_col=True),
                           sub("Which result was signed"),
                           table(fingerprints, [0.3 * w, 0.7 * w], header=False,
                                 bold_first_col=True)]
    if state.problem is None:
        out.append(para("<b>The fingerprints match:</b> this report prints the result that "
                        "was signed."))
    else:
        out.append(para(f"<b>The fingerprints do not match.</b> {markup(state.problem)}"))
    out.append(para("The SHA-256 fingerprint is computed from the result's exact contents "
                    "(the decision log and the sign-off left out): if one figure of the "
                    "result changes, the fingerprint changes.", "small"))
    return out


def decision_notes(result) -> list[Flowable]:
    """The officer's decision log (``result["decision_log"]``: the notes written on the results
    page, each ``{"time", "text"}``), printed under the decision. The app adds it to the
    result it exports, a note still in the box included (issue 32 item 6: a note typed before
    export was missing from the PDF); a result without notes prints nothing."""
    entries = load_result(result).decision_log
    if not entries:
        return []
    rows = [f"<b>{st.markup(e.time[:16].replace('T', ' '))}</b> — {st.markup(e.text)}"
            for e in entries]
    return [sub("Decision log"), para("What was decided on this verdict, as written in the "
                                      "app, with the date and time:"), *bullets(rows)]
