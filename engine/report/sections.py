"""The report's ten sections, and the per-audit-type hooks that fill in the audit-specific ones.

The order is fixed by the product (and a privacy officer's DPIA template): cover and summary,
what was audited, threat model, method, results, comparison with DP theory, verdict,
limitations, exposed records, reproducibility. Sections 1, 5, 7 and 10 read the same fields of
result.json for every audit type (ARCHITECTURE §4, metric definitions §5); sections 2, 3, 4, 6,
8 and 9 depend on the audit, so they are methods of :class:`AuditSections`, which a new audit
type subclasses (see ``engine/report/mechanism.py``) and registers in ``engine/report/pdf.py``.

Everything taken from the result (names, labels, paths, warnings, config values) goes through
:func:`engine.report.styles.markup` before it reaches a Paragraph.
"""

from __future__ import annotations

import datetime as _dt
import math
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path

from reportlab.graphics.shapes import Drawing, Polygon, Rect, String
from reportlab.lib import colors
from reportlab.lib.units import cm
from reportlab.platypus import (
    CondPageBreak,
    Flowable,
    KeepTogether,
    PageBreak,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
    XPreformatted,
)

from engine import error_rates
from engine.audits.blocks import AttackEntry, BlockError, TprRow, Verdict
from engine.audits.registry import AUDIT_TYPES
from engine.audits.result import PERSONAL_CONFIG_KEYS, REDACTED
from engine.config_file import config_to_toml
from engine.headline import same_rate, tpr_at
from engine.next_steps import next_steps
from engine.numbers import distinguishing_digits
from engine.report import styles as st
from engine.report.charts import roc_chart, short_label
from engine.report.styles import (
    fmt3,
    fmt_ci,
    fmt_count,
    fmt_eps,
    fmt_num,
    fmt_pct,
    fmt_points,
    markup,
)
from engine.wording import attack_words, first_time_notes, glossary_for

TEXT_WIDTH = 17 * cm                      # A4 (21 cm) minus two 2 cm margins

SECTION_TITLES = (
    "Summary",
    "What was audited",
    "Threat model",
    "Method",
    "Results",
    "Comparison with differential-privacy theory",
    "Verdict",
    "Limitations",
    "Exposed records",
    "Reproducibility appendix",
)

LEVEL_SHADES = {  # fill, text colour: reads in black and white (text says it too)
    "high": (colors.Color(0.12, 0.12, 0.12), colors.white),
    "medium": (colors.Color(0.62, 0.62, 0.62), colors.black),
    "low": (colors.white, colors.black),
}


# --------------------------------------------------------------------------- small builders

_STYLES: dict | None = None


def S(name: str):
    """The paragraph style called ``name`` (styles are built once, after fonts exist)."""
    global _STYLES
    if _STYLES is None:
        _STYLES = st.styles()
    return _STYLES[name]


def para(markup_text: str, style: str = "body") -> Paragraph:
    """A Paragraph from markup *we* wrote (user text inside must already be :func:`markup`-ed)."""
    return Paragraph(st.fonted(markup_text), S(style))


class Heading(Paragraph):
    """A numbered section heading that also becomes a PDF bookmark (see pdf._Doc)."""

    def __init__(self, number: int, title: str):
        super().__init__(st.fonted(f"{number}. {markup(title)}"), S("h1"))
        self.outline = (f"{number}. {title}", f"section-{number}")


def keep(flowables) -> KeepTogether:
    """KeepTogether without nesting: ReportLab's KeepTogether reports an endless height when
    measured inside another one, which pushes the outer group to a new page every time; so
    inner groups are flattened into this one."""
    flat: list[Flowable] = []
    for f in flowables:
        if isinstance(f, KeepTogether):
            flat += keep(f._content)._content
        else:
            flat.append(f)
    return KeepTogether(flat)


def heading(number: int) -> KeepTogether:
    """Section heading; starts a new page when less than 6 cm are left, so it never sits
    alone at the bottom of a page."""
    return KeepTogether([CondPageBreak(6 * cm), Heading(number, SECTION_TITLES[number - 1])])


def sub(title_markup: str) -> Paragraph:
    return para(title_markup, "h2")


def bullets(items: Iterable[str], style: str = "bullet") -> list[Paragraph]:
    """Bullet points; items are markup (escape user text before passing it)."""
    return [Paragraph(st.fonted(item), S(style), bulletText="•") for item in items]


def table(rows: Sequence[Sequence[object]], widths: Sequence[float], header: bool = True,
          bold_first_col: bool = False) -> Table:
    """A grid table; str cells are markup and become wrapping Paragraphs."""
    body = []
    for r, row in enumerate(rows):
        cells = []
        for c, cell in enumerate(row):
            if isinstance(cell, str):
                style = "cell_bold" if (header and r == 0) or (bold_first_col and c == 0) \
                    else "cell"
                cells.append(Paragraph(st.fonted(cell), S(style)))
            else:
                cells.append(cell)
        body.append(cells)
    t = Table(body, colWidths=list(widths), repeatRows=1 if header else 0, hAlign="LEFT")
    cmds = [
        ("GRID", (0, 0), (-1, -1), 0.4, st.GREY_RULE),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 2.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ("LEFTPADDING", (0, 0), (-1, -1), 4),
        ("RIGHTPADDING", (0, 0), (-1, -1), 4),
    ]
    if header:
        cmds.append(("BACKGROUND", (0, 0), (-1, 0), st.HEADER_FILL))
    t.setStyle(TableStyle(cmds))
    return t


def key_value_table(rows: Sequence[tuple[str, str]], key_width: float = 5.2 * cm) -> Table:
    return table(rows, [key_width, TEXT_WIDTH - key_width], header=False, bold_first_col=True)


def fmt_date(iso: str | None) -> str:
    """ISO time → "21 November 2025, 04:46 UTC" (or the raw text if it does not parse)."""
    if not iso:
        return "unknown date"
    try:
        t = _dt.datetime.fromisoformat(str(iso))
    except ValueError:
        return str(iso)
    if t.tzinfo is not None:
        t = t.astimezone(_dt.UTC)
        return t.strftime("%d %B %Y, %H:%M UTC").lstrip("0")
    return t.strftime("%d %B %Y, %H:%M").lstrip("0")


def tpr_cells(row: TprRow | dict) -> tuple[str, str, str]:
    """(value, CI, note) cells of one ``tpr_at_fpr`` entry; ARCHITECTURE §5 "measurable".
    A dict is read as its typed row (engine.audits.blocks.TprRow); one not of that form gives
    dashes."""
    if isinstance(row, dict):
        try:
            row = TprRow.from_dict(row)
        except BlockError:
            return (st.DASH, st.DASH, "")
    if not row.measurable:
        return ("not measurable", st.DASH, "")
    note = ""
    if row.fpr_achieved is not None:
        note = f"achieved FPR {fmt_pct(row.fpr_achieved)}"
    span = row.extra.get("threshold_fpr_range")
    if isinstance(span, (list, tuple)) and len(span) == 2:
        # The interval spans the thresholds whose true FPR may be the target (see methods).
        note += (f"; interval allows the threshold's true FPR to lie in "
                 f"{fmt_ci(span, st.fmt_pct_sig)}")
    return (fmt_pct(row.tpr), fmt_ci(row.tpr_ci, fmt_pct), note)


def attack_entry(a) -> AttackEntry:
    """The typed attack entry of ``a`` (engine.audits.blocks.AttackEntry); one not of the
    app's form — a result that did not pass engine.audits.result.result_problem — is read as
    its name alone, so its table shows dashes, never a wrong number or a traceback."""
    try:
        return AttackEntry.from_dict(a)
    except BlockError:
        name = a.get("name") if isinstance(a, dict) else None
        return AttackEntry(name=name if isinstance(name, str) else "attack")


def min_negatives(t) -> int | None:
    """⌈3/t⌉ non-members certify FPR ≤ t (ARCHITECTURE §5); None if t is not a rate."""
    if not isinstance(t, (int, float)) or not 0 < t <= 1:
        return None
    return int(math.ceil(3.0 / t - 1e-9))


def not_measurable_note(row: dict, n_negative) -> str:
    """ "not measurable with N non-members (needs at least M …)": ARCHITECTURE §5 wording."""
    t = row.get("fpr_target")
    need = min_negatives(t)
    text = f"not measurable with {fmt_count(n_negative)} non-members"
    if need:
        text += f" (needs at least {fmt_count(need)} to certify FPR ≤ {fmt_pct(t)})"
    return text


# --------------------------------------------------------------------------- audit hooks

class AuditSections:
    """Audit-specific content. The defaults print what any result.json holds; an audit type
    overrides them with its own words (threat model, method, theory, exposed records)."""

    def audited(self, result: dict) -> list[Flowable]:
        out: list[Flowable] = [para("<b>Inputs</b>", "body")]
        out += inputs_table(result)
        out.append(Spacer(1, 4))
        out.append(key_value_table([("Configuration SHA-256",
                                     markup(result.get("config_sha256") or st.DASH))]))
        cfg = result.get("config") or {}
        rows = [("Setting", "Value")] + [
            (markup(k), markup(_value_text(v))) for k, v in cfg.items()
            if not isinstance(v, dict)]
        if len(rows) > 1:
            out += [Spacer(1, 6), para("<b>Settings</b>"),
                    table(rows, [5.2 * cm, TEXT_WIDTH - 5.2 * cm])]
        return out

    def threat_model(self, result: dict) -> list[Flowable]:
        return [para("The attacker plays the membership game of paper 002 §3: they see the "
                     "release and must decide whether one chosen person's data was used.")]

    def method_theory(self, result: dict) -> list[Flowable]:
        return []

    def describe_attack(self, attack: dict) -> str:
        """One plain sentence (markup) on how ``attack`` decides, for section 4; "" for none."""
        return ""

    def method_common(self, result: dict) -> list[Flowable]:
        """Section 4's measurement, shared by the membership games; an audit whose game is
        another (aggregates: attribute inference) brings its own."""
        return method_common(result, self.describe_attack)

    def results(self, result: dict) -> list[Flowable]:
        """Section 5, the measured attacks."""
        return results(result)

    def theory(self, result: dict) -> list[Flowable]:
        return [para("This audit type has no exact differential-privacy theory to compare with; "
                     "the measured attacks in section 5 are the evidence.")]

    def limitations(self, result: dict) -> list[str]:
        return standard_limitations(result)

    def exposed(self, result: dict, include_records: bool) -> list[Flowable]:
        return exposed_records_generic(result, include_records)


def _value_text(v) -> str:
    if isinstance(v, float):
        return fmt_num(v).replace("<super>", "^").replace("</super>", "")
    if isinstance(v, (list, tuple)):
        return ", ".join(_value_text(x) for x in v)
    return "not set" if v is None else str(v)


def inputs_table(result: dict, empty: str = "No input files were read.") -> list[Flowable]:
    """The input files with fingerprints; ``empty`` (markup) says why there are none."""
    inputs = result.get("inputs") or []
    if not inputs:
        return [para(empty)]
    rows = [("File", "SHA-256", "Rows")]
    for i in inputs:
        rows.append((markup(i.get("path", st.DASH)),
                     f'<font face="{st.FONT_MONO}" size="7">{markup(i.get("sha256", st.DASH))}'
                     "</font>",
                     fmt_count(i.get("rows")) if i.get("rows") is not None else st.DASH))
    out: list[Flowable] = [table(rows, [6.0 * cm, 9.0 * cm, 2.0 * cm])]
    for i in inputs:
        # What was assumed to read it (engine.data.text_input), less the rows left out for
        # gaps, which the file's gaps table below says per column (location traces, issue 21).
        gaps = i.get("missing_values") if isinstance(i.get("missing_values"), dict) else {}
        said = str(gaps.get("sentence", "")).rstrip(".")
        notes = [n for n in i.get("read_as") or [] if str(n).rstrip(".") != said]
        if notes:
            out.append(para(f"<b>{markup(Path(str(i.get('path', ''))).name)}</b> was read "
                            f"with an assumption: {markup('; '.join(notes))}."))
    out += gaps_tables(inputs)
    return out


# What was done with a column's empty cells (result.json inputs[].missing_values.per_column
# "action", written by engine.data.tabular, .microdata and .predictions), in the report's words.
# The value a gap was filled with is not printed: a most frequent category is a record's value.
_GAP_ACTIONS = {
    "median": "filled with the column's median",
    "most_frequent": "filled with the column's most frequent value",
    "own_category": "counted as a category of its own ('missing')",
    "drop_rows": "records left out",
    "error": "file refused",
}


def gaps_tables(inputs: Sequence[dict]) -> list[Flowable]:
    """Per input file with empty cells (issue 21), its one sentence and a small table: each
    column with empty cells, how many, and what was done with them — so a reader sees which
    columns were filled or cost records without opening result.json."""
    out: list[Flowable] = []
    for i in inputs:
        gaps = i.get("missing_values")
        if not isinstance(gaps, dict) or not gaps.get("per_column"):
            continue
        name = markup(Path(str(i.get("path", ""))).name)
        rows = [("Column", "Empty cells", "What was done")]
        for e in gaps["per_column"]:
            action = _GAP_ACTIONS.get(e.get("action"), markup(str(e.get("action", st.DASH))))
            if e.get("indicator"):
                action += ", plus a feature saying the value was missing"
            rows.append((markup(str(e.get("column", st.DASH))),
                         fmt_count(e.get("empty_cells")) if e.get("empty_cells") is not None
                         else st.DASH, action))
        out.append(para(f"Empty cells in <b>{name}</b>: "
                        + markup(str(gaps.get("sentence", "")))))
        out.append(table(rows, [6.0 * cm, 2.6 * cm, 8.4 * cm]))
    return out


def standard_limitations(result: dict) -> list[str]:
    """Limitations true of every audit (the audit-specific ones are added by its hooks)."""
    out = []
    seen = set()
    for a in result.get("attacks") or []:
        for row in a.get("tpr_at_fpr") or []:
            key = (row.get("fpr_target"), a.get("n_negative"))
            if row.get("measurable") is False and key not in seen:
                seen.add(key)
                out.append(f"TPR at {fmt_pct(row.get('fpr_target'))} FPR is "
                           f"{not_measurable_note(row, a.get('n_negative'))}: so few "
                           "non-members cannot show that so few of them are wrongly flagged. "
                           "Run more trials to measure it.")
    out.append("The results hold for this configuration only; a change of data, parameters or "
               "release needs a new audit.")
    out.append("Measured values come from a finite number of simulated games: they carry 95% "
               "confidence intervals (pointwise for the ROC bands), and an empirical ε is a "
               "lower bound on the true ε, not an estimate of it.")
    out.append("A low risk verdict covers the attacks listed in section 4; attacks outside the "
               "membership game (for example combining this release with other releases) are "
               "not covered.")
    return out


def verdict_error_rate_limitations(result: dict) -> list[str]:
    """The verdict's own measured error rates for this audit type (issue 32 item 3): how often
    it said more than low risk on releases that carry nothing about the people, and how often
    it reached the policy's level on releases with a known leak
    (``engine.error_rates``, measured by scripts/verdict_error_rates.py). Section 8 of every
    audit type prints it, after the audit's own limitations."""
    text = error_rates.sentence(str(result.get("audit_type") or ""))
    return [text] if text else []


def exposed_records_generic(result: dict, include_records: bool) -> list[Flowable]:
    """Counts and (redacted unless asked) identifiers of the records an attack exposed."""
    records = result.get("exposed_records") or []
    if not records:
        return [para("No records were flagged as exposed by the attacks in this audit.")]
    out: list[Flowable] = [para(
        f"{fmt_count(len(records))} records were flagged as exposed. "
        + ("Identifiers are shown in full because the report was generated with records "
           "included." if include_records else
           "Identifiers are redacted; generate the report with records included to see them."))]
    rows = [("Record", "Details")]
    for r in records[:200]:
        if isinstance(r, dict):
            rid = str(r.get("id", r.get("record", st.DASH)))
            rest = ", ".join(f"{k}: {_value_text(v)}" for k, v in r.items()
                             if k not in ("id", "record"))
        else:
            rid, rest = str(r), ""
        rows.append((markup(rid if include_records else redact(rid)), markup(rest)))
    out.append(table(rows, [4.5 * cm, TEXT_WIDTH - 4.5 * cm]))
    if len(records) > 200:
        out.append(para(f"… and {fmt_count(len(records) - 200)} more (see result.json).",
                        "small"))
    return out


def without_personal_fields(result: dict) -> dict:
    """``result`` as a report written without records sees it. Besides its exposed records
    (withheld by each audit's section 9, which says how many there are), a result may name a
    person in a configuration key the user typed an id into (PERSONAL_CONFIG_KEYS: the location
    audit's target_id) and in the audited target's id: both read "(redacted)"."""
    out = dict(result)
    cfg = out.get("config")
    if isinstance(cfg, dict):
        out["config"] = {k: REDACTED if k in PERSONAL_CONFIG_KEYS and v else v
                         for k, v in cfg.items()}
    th = out.get("theory")
    target = th.get("target") if isinstance(th, dict) else None
    if isinstance(target, dict) and target.get("id") not in (None, ""):
        out["theory"] = {**th, "target": {**target, "id": REDACTED}}
    return out


def redact(identifier: str) -> str:
    """Keep the first two characters, mask the rest: enough to tell rows apart in a review."""
    s = str(identifier)
    return s[:2] + "•" * max(3, min(8, len(s) - 2)) if len(s) > 2 else "•••"


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


def cover(result: dict) -> list[Flowable]:
    audit_type = str(result.get("audit_type") or "")
    entry = AUDIT_TYPES.get(audit_type)
    verdict, _ = verdict_of(result)
    out: list[Flowable] = [
        Spacer(1, 1.2 * cm),
        para("Privacy risk audit report", "title"),
        para(markup(entry.report_title if entry is not None else f"{audit_type} audit"),
             "subtitle"),
        para(markup(result.get("name") or "Unnamed audit"), "name"),
        para(f"Audit run on {markup(fmt_date(result.get('created')))}", "body"),
        Spacer(1, 0.8 * cm),
        verdict_badge(verdict.level if verdict is not None else None),
        Spacer(1, 0.8 * cm),
        heading(1),
        para(markup(result.get("summary") or "No summary was recorded."), "summary"),
        *what_to_do_next(result),
        Spacer(1, 0.4 * cm),
        para("How to read this report: section 7 explains how the verdict was decided and "
             "section 8 what this audit cannot tell. Sections 2 to 6 give the evidence; "
             "section 10 lets anyone reproduce the numbers. The glossary on the last page "
             "explains the terms.", "small"),
        PageBreak(),
    ]
    return out


def what_to_do_next(result: dict) -> list[Flowable]:
    """The changes to the release that lower the risk, with what the audit measured of each
    (:mod:`engine.next_steps`; the same list the results page opens with)."""
    steps = next_steps(result)
    if not steps:
        return []
    return [sub("What to do next"),
            *bullets(f"<b>{markup(step.action)}.</b> {markup(step.effect)}" for step in steps)]


# --------------------------------------------------------------------------- 4. method (shared)

def method_common(result: dict, describe=None) -> list[Flowable]:
    """The attacks and the empirical-ε method, the same for every audit type.

    ``describe(attack) -> str`` (markup) adds the audit's plain words on how an attack decides;
    ``details.paper`` of an attack, when present, is cited after its score.
    """
    attacks = [a for a in result.get("attacks") or [] if isinstance(a, dict)]
    out: list[Flowable] = [sub("Attacks")]
    if not attacks:
        out.append(para("No attack was run."))
    for a in attacks:
        details = a.get("details") or {}
        stat = details.get("statistic")
        # The methods appendix keeps the science: plain name first, then the technical name
        # and the paper (engine.wording's catalogue; issue 20).
        words = attack_words(a.get("name"), a.get("label"))
        # One citation: the result's own (it names the sections the run used) where it has
        # one, else the catalogue's (the walk-through read both, one after the other).
        reference = (f"Paper {details['paper']}" if details.get("paper")
                     else words.reference)
        line = (f"<b>{markup(words.plain_name)}</b> "
                f"({markup(a.get('label') or words.technical)}"
                + (f"; {markup(reference)}" if reference else "") + ")")
        if stat:
            line += f" — score: {markup(stat)}."
        words = describe(a) if describe else ""
        if words:
            line += f" {words}"
        note = details.get("note")
        if note:
            line += f" {markup(note)}"
        out += bullets([line])
    out.append(sub("How the attacks are measured"))
    eps = next((a.get("epsilon_lower_bound") for a in attacks
                if a.get("epsilon_lower_bound")), None) or {}
    delta = eps.get("delta")
    conf = eps.get("confidence", 0.95)
    sources = {(a.get("details") or {}).get("accuracy_threshold_source") for a in attacks}
    if sources == {OWN_RULE}:
        where = ("at the threshold each attack's own rule fixed before seeing the evaluation "
                 "trials (from the attacker's own data, see above), and evaluated on all "
                 "trials")
    elif OWN_RULE in sources:
        where = ("at the threshold the attack's own rule fixed before seeing the evaluation "
                 "trials where it has one, otherwise at a threshold chosen on one half of the "
                 "trials and evaluated on the other half")
    else:
        where = ("at a threshold chosen on one half of the trials and evaluated on the other "
                 "half")
    out.append(para(
        "Each attack gives every trial a score (higher = “present”). From the scores we draw "
        "the ROC curve (all thresholds), its area (AUC, with a DeLong interval), and the "
        "true-positive rate (TPR) at fixed low false-positive rates (FPR). Balanced accuracy "
        f"and advantage (TPR − FPR) are measured {where}, so they are not flattered by "
        "choosing the threshold after seeing the answers (ARCHITECTURE §5; paper 002 §3, "
        "“success metrics”); their intervals are exact Clopper–Pearson intervals (combined by "
        "MOVER when the two groups differ in size)."))
    out.append(para(
        "<b>Intervals of TPR at a fixed FPR.</b> The threshold for “FPR = 0.1 %” is read off "
        "the simulated non-members, so its own true FPR is uncertain (about ±40 % at 0.1 % "
        "with 20,000 non-members); an interval on the true positives alone would miss the "
        "truth far more often than it claims. Each interval therefore spans two thresholds: "
        "one whose true FPR is at most the target and one whose true FPR is at least the "
        "target (placed by the binomial law of the false-positive count), each bounded by an "
        "exact Clopper–Pearson bound on its true positives. With a quarter of the error level "
        "for each of the four statements, it covers the attack's true TPR at the target FPR "
        f"with at least {st.fmt_conf(conf)} confidence, for any score distribution. The ROC "
        "bands are built the same way at every FPR (pointwise). Coverage is checked by "
        "simulation over hundreds of seeds against exact theory."))
    out.append(para(
        "<b>Empirical ε lower bound</b> (paper 002 Thm 1 and Cor. 1): any (ε, δ)-DP "
        "mechanism forces every attacker to satisfy TPR ≤ e<super>ε</super>·FPR + δ and "
        "TNR ≤ e<super>ε</super>·FNR + δ. Turning this around, an attack that reaches a "
        "given TPR and FPR proves ε ≥ ln((TPR − δ)/FPR). We use the lower one-sided "
        f"{bound_interval_label(eps.get('method'))} bound of TPR and the upper bound of FPR "
        "(each at half the error level), so the stated ε holds with "
        f"{st.fmt_conf(conf)} confidence"
        + (" (approximately: Jeffreys intervals do not guarantee coverage)"
           if eps.get("method") == "jeffreys" else "") + "; "
        "the threshold is chosen on a separate split of the trials, "
        + (f"and δ = {st.fmt_sci(delta)}." if delta is not None else "with δ as stated.")))
    out.append(para(
        "<b>Which attacks count: Holm's correction.</b> With many attacks run, the largest of "
        "their figures lies above chance by luck alone far more often than 1 time in 20. So "
        "each figure that could raise the verdict — an attack's balanced accuracy against "
        "½, its true-positive rate at the verdict's false-positive rate against that rate "
        "(where measurable), a count-table attack's best guess against chance, and its hit "
        "rate on the people's real values against the obvious guess — gets a one-sided test "
        "that inverts the interval shown (exact binomial or Clopper–Pearson; MOVER for "
        "unequal groups), and Holm's step-down procedure (Holm 1979) over all m of them keeps "
        f"the family-wise error at {st.fmt_conf(1 - (1 - conf) / 2)} confidence (2.5 % for "
        "95 % intervals) whatever the correlation between the attacks. Only figures that "
        "survive raise the level; the rest are listed as “cannot be told from guessing”. "
        "Guesses that ignore the release (the data-only guess, a random guess) are the "
        "baselines, not members of the family. A max-statistic bootstrap would have more power "
        "when the attacks are strongly correlated; it needs every attack's raw scores and is "
        "not used yet."))
    return out


# --------------------------------------------------------------------------- 5. results

#: ``details.accuracy_threshold_source`` of an attack whose rule set its own threshold
#: (engine.auditing.evaluate_attack), e.g. from shadow data (paper 000 Alg. 3).
OWN_RULE = "the attack's own rule"


def accuracy_note(a: AttackEntry) -> str:
    """Where the threshold of an attack's balanced accuracy came from, in a few words."""
    if a.details.get("accuracy_threshold_source") == OWN_RULE:
        return "threshold set by the attack's own rule before these trials; all trials"
    return "threshold chosen on a separate split"


def bound_interval_label(method: str | None) -> str:
    """How the ε lower bound's rates were bounded, in words (engine.auditing's ``method``)."""
    return "Jeffreys (approximate)" if method == "jeffreys" else "Clopper–Pearson"


def attack_table(attack: dict) -> list[Flowable]:
    """All §5 metrics of one attack, with intervals, in one table (read through its typed
    entry, :func:`attack_entry`)."""
    a = attack_entry(attack)
    out: list[Flowable] = []
    # Plain name first, with what the attacker does; the technical name is in section 4.
    words = attack_words(a.name, a.label)
    n_pos, n_neg = a.n_positive, a.n_negative
    head = [sub(markup(words.plain_name))]
    bits = [markup(words.description) + "."] if words.description else []
    if n_pos is not None and n_neg is not None:
        bits.append(f"{fmt_count(n_pos)} trials with the person present (members), "
                    f"{fmt_count(n_neg)} without (non-members).")
    stat = a.details.get("statistic")
    if stat:
        bits.append(f"Score: {markup(stat)}.")
    if bits:
        head.append(para(" ".join(bits), "small"))
    rows = [("Measure", "Value", "95% interval", "Note")]
    rows.append(("AUC (0.5 = guessing, 1 = perfect)", fmt3(a.auc), fmt_ci(a.auc_ci), ""))
    # Rates in %, as the results page writes them (issue 32 item 6: "91.6 %" on screen was
    # "0.916" here); AUC is not a rate and keeps its decimals.
    rows.append(("Balanced accuracy", fmt_pct(a.accuracy), fmt_ci(a.accuracy_ci, fmt_pct),
                 accuracy_note(a)))
    rows.append(("Advantage (TPR − FPR)", fmt_pct(a.advantage),
                 fmt_ci(a.advantage_ci, fmt_pct),
                 "at the same threshold"))
    reps = a.details.get("repetitions")
    if isinstance(reps, dict) and len(reps.get("accuracy") or []) > 1:
        rows.append((f"Accuracy over {len(reps['accuracy'])} replays",
                     f"{fmt_pct(reps.get('accuracy_mean'))} ± "
                     f"{fmt_points(reps.get('accuracy_sd'))}",
                     st.DASH, "mean ± standard deviation, fresh releases each time"))
    for row in a.tpr_at_fpr:
        value, ci, note = tpr_cells(row)
        if not row.measurable:
            need = min_negatives(row.fpr)
            note = (f"with {fmt_count(n_neg)} non-members" +
                    (f"; at least {fmt_count(need)} are needed to certify FPR ≤ "
                     f"{fmt_pct(row.fpr)}" if need else ""))
        rows.append((f"TPR at {fmt_pct(row.fpr)} FPR", value, ci, note))
    eb = a.epsilon_lower_bound
    if isinstance(eb, dict):
        note = f"{bound_interval_label(eb.get('method'))}, threshold from a separate split"
        if eb.get("delta") is not None:
            note += f", δ = {st.fmt_sci(eb.get('delta'))}"
        if eb.get("max_certifiable") is not None:
            note += f"; at most {fmt_eps(eb.get('max_certifiable'))} certifiable with these trials"
        conf = eb.get("confidence")
        rows.append((f"Empirical ε lower bound ({st.fmt_conf(conf)} "
                     "confidence)", fmt_eps(eb.get("value")), st.DASH, note))
    widths = [4.6 * cm, 2.4 * cm, 3.6 * cm, TEXT_WIDTH - 10.6 * cm]
    out.append(keep(head + [table(rows, widths)]))
    out.append(Spacer(1, 6))
    return out


def baselines_table(result: dict) -> list[Flowable]:
    bl = [attack_entry(b) for b in result.get("baselines") or [] if isinstance(b, dict)]
    if not bl:
        return []
    targets = sorted({r.fpr for b in bl for r in b.tpr_at_fpr if r.key == "fpr_target"
                      and isinstance(r.fpr, (int, float))})
    rows = [["Baseline", "AUC", "Balanced accuracy"]
            + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
    for b in bl:
        rows.append([markup(b.display_label), fmt3(b.auc), fmt_pct(b.accuracy)]
                    + [tpr_cells(b.tpr_at(t))[0] if b.tpr_at(t) is not None else st.DASH
                       for t in targets])
    first = 6.0 * cm
    rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
    return [keep([sub("Baselines"),
                          para("What an attacker achieves without using the release: a measured "
                               "attack is only informative where it beats these.", "small"),
                          table(rows, [first] + [rest] * (len(rows[0]) - 1))]),
            Spacer(1, 6)]


def results(result: dict) -> list[Flowable]:
    attacks = [a for a in result.get("attacks") or [] if isinstance(a, dict)]
    if not attacks:
        out: list[Flowable] = [heading(5),
                               para("No attack results are recorded in this result file.")]
    else:   # the heading travels with the first table, never alone at a page's foot
        first = attack_table(attacks[0])
        out = [keep([heading(5), first[0]]), *first[1:]]
    for a in attacks[1:]:
        out += attack_table(a)
    theory = result.get("theory") or {}
    if attacks or (theory.get("optimal_attacker") or {}).get("roc"):
        out.append(keep([
            sub("ROC curves"),
            para("Each curve shows, for every possible decision threshold, the share of people "
                 "present that the attacker finds (TPR) against the share of people absent that "
                 "it wrongly flags (FPR). Higher and further left is a stronger attack. The "
                 "log-log view magnifies the low-FPR corner, where an attacker is confident "
                 "about a few people — the case that harms them.", "small"),
            roc_chart(result, log_scale=False),
            Spacer(1, 4),
            roc_chart(result, log_scale=True),
            para("Shaded band: pointwise 95% intervals of the strongest attack's true ROC (they "
                 "allow for the uncertain FPR of each threshold, see “How the attacks are "
                 "measured”). "
                 "Values of 0 cannot be drawn on log axes: curves enter from the chart's edge.",
                 "caption")]))
    out += baselines_table(result)
    out += first_time_paragraphs(attacks)
    return out


def first_time_paragraphs(attacks: Iterable[dict]) -> list[Flowable]:
    """The plain sentence under a results table for each surprising reading (a negative
    advantage, an interval across zero, "-0.0", "not measurable"), once each
    (engine.wording.first_time_notes; issue 20)."""
    notes = first_time_notes(attacks)
    if not notes:
        return []
    return [sub("Reading these tables")] + bullets(markup(n) for n in notes)


def glossary(audit_type: str | None = None) -> list[Flowable]:
    """The glossary page (engine.wording.glossary_for): every term of the results of that
    audit type in plain words, the same terms as the results page's "?" strip."""
    out: list[Flowable] = [PageBreak(), para("Glossary", "h1")]
    for term, words in glossary_for(audit_type).items():
        out.append(para(f"<b>{markup(term)}</b> — {markup(words)}"))
    return out


# --------------------------------------------------------------------------- 7. verdict

def verdict_of(result: dict) -> tuple[Verdict | None, str | None]:
    """The result's verdict block (engine.audits.blocks.Verdict) and None, or None and why it
    cannot be read (none recorded, or damaged: a result that did not pass
    engine.audits.result.result_problem is reported, never a traceback)."""
    v = result.get("verdict")
    if not v:
        return None, None
    try:
        return Verdict.from_dict(v), None
    except BlockError as exc:
        return None, str(exc)


def verdict(result: dict) -> list[Flowable]:
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
    evidence = v.evidence if v is not None else None
    if evidence:
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


def evidence_section(evidence: dict) -> list[Flowable]:
    """Section 7's "How much evidence": the evidence sentence and the table of every test
    behind the level (engine.evidence, issue 32 item 2): the figure, its baseline, the
    one-sided p-value, Holm's adjusted p-value and whether it counts."""
    out: list[Flowable] = [sub("How much evidence")]
    m = evidence.get("m") or 0
    alpha = evidence.get("alpha")
    alpha_words = f"{alpha * 100:g} %" if isinstance(alpha, (int, float)) else "2.5 %"
    out.append(para(
        f"{markup(evidence.get('sentence') or '')} Only an attack that beats its baseline "
        f"after correcting for the number of tests run raises the level: each of the {m} "
        f"figures below is a one-sided test that inverts the interval shown beside it, and "
        f"Holm's correction keeps the chance of counting any attack that carries nothing "
        f"below {alpha_words} in all. The best possible attacker of DP theory, where one "
        "exists, is computed exactly and counts without a test."))
    rows: list[list[str]] = [["Attack", "Figure", "Value", "Against", "p-value",
                              "After correction", "Counts?"]]
    for t in evidence.get("tests") or []:
        if not isinstance(t, dict):
            continue
        rows.append([markup(attack_words(t.get("attack"), t.get("label")).plain_name),
                     markup(_FIGURE_WORDS.get(t.get("figure"), str(t.get("figure")))),
                     _percent(t.get("value")),
                     f"{markup(str(t.get('baseline_words', 'guessing')))} "
                     f"({_percent(t.get('baseline'))})",
                     _p_text(t.get("p_value")), _p_text(t.get("adjusted_p")),
                     "yes" if t.get("counted") else "no"])
    if len(rows) > 1:
        w = TEXT_WIDTH
        out.append(table(rows, [0.24 * w, 0.2 * w, 0.09 * w, 0.17 * w, 0.1 * w, 0.11 * w,
                                0.09 * w]))
    return out


def _percent(v) -> str:
    return f"{v:.1%}" if isinstance(v, (int, float)) and math.isfinite(v) else "—"


def _p_text(v) -> str:
    if not isinstance(v, (int, float)):
        return "—"
    return "&lt; 0.0001" if v < 1e-4 else f"{v:.4f}"


# --------------------------------------------------------------------------- 10. reproducibility

def _wrapped_mono(text: str, width_chars: int = 104) -> XPreformatted:
    lines = []
    for line in text.splitlines() or [""]:
        lines += textwrap.wrap(line, width_chars, subsequent_indent="    ",
                               break_long_words=True, drop_whitespace=False) or [""]
    return XPreformatted(st.fonted(markup("\n".join(lines))), S("mono"))


# The parts of an audit that can run on a cluster (engine.compute), by their theory key.
COMPUTED_PARTS = {"repetitions": "the repetitions", "sweep": "the hours sweep",
                  "model": "the shadow and reference models",
                  "defences": "the defended models and their reference models",
                  # The count tables' attribute game: every target's units (issue 22 item 6).
                  "deterministic": "the attribute game's targets (proofs, learned guesses "
                                   "and reconstructions)",
                  "membership": "the membership game's targets",
                  "published": "the published table's checks",
                  "sweeps": "the count-table sweeps"}


def computed_on(result: dict) -> list[tuple[str, str]]:
    """(part, where it ran in words) for each part of the run that says where it ran."""
    theory = result.get("theory") or {}
    return [(words, str(theory[key]["computed_on"])) for key, words in COMPUTED_PARTS.items()
            if isinstance(theory.get(key), dict) and theory[key].get("computed_on")]


def reproducibility(result: dict) -> list[Flowable]:
    sw = result.get("software") or {}
    out: list[Flowable] = [PageBreak(), heading(10)]
    rows = [("Seed", markup(result.get("seed", st.DASH))),
            ("Configuration SHA-256", f'<font face="{st.FONT_MONO}" size="7.5">'
             f'{markup(result.get("config_sha256") or st.DASH)}</font>'),
            ("Result schema version", markup(result.get("schema_version", st.DASH))),
            ("Created", markup(fmt_date(result.get("created")))),
            ("Runtime", f"{result.get('runtime_s'):.1f} s"
             if isinstance(result.get("runtime_s"), (int, float)) else st.DASH),
            ("Device", markup(sw.get("device", st.DASH)))]
    rows += [(f"Where {markup(what)} ran", markup(where)) for what, where in computed_on(result)]
    rows += [(f"Software: {markup(k)}", markup(v)) for k, v in sw.items() if k != "device"]
    out.append(key_value_table(rows))
    out.append(sub("Reproduce these numbers"))
    out.append(para("Save the configuration below as CONFIG.toml and run (same software "
                    "versions and device give the same numbers; the seed drives every random "
                    "stream):"))
    if "cuda" in str(sw.get("device", "")).lower():
        out.append(para("This audit ran on a GPU. GPU arithmetic sums in an order that can "
                        "change from run to run, so a repeat on a GPU — or on the CPU — may "
                        "differ in the last digits of the numbers; on the CPU the same "
                        "configuration gives byte-identical results.", "small"))
    out.append(_wrapped_mono("python main.py run CONFIG.toml --out DIR"))
    out.append(Spacer(1, 6))
    out.append(sub("Configuration"))
    cfg = result.get("config") or {}
    out.append(_wrapped_mono(config_to_toml(cfg)))
    withheld = [k for k in PERSONAL_CONFIG_KEYS if cfg.get(k) == REDACTED]
    if withheld:
        out.append(para(f"{markup(', '.join(withheld))} names a person and is withheld, as this "
                        "report was written without records; copy it from result.json (or the "
                        "configuration file) to reproduce the run.", "small"))
    return out


# --------------------------------------------------------------------------- 6. theory (shared)
# The pieces of "Comparison with differential-privacy theory" that read the same ``theory``
# fields in every audit with an accountant (mechanism, location): the composed ε table, the
# exact-vs-measured table and the measured ε lower bounds.

def short_attack_label(a: dict) -> str:
    """An attack's plain name (engine.wording's catalogue), for the tables and sentences of
    the report's body (issue 20: plain words first; the technical name and paper stay in the
    methods section). An attack the catalogue does not know keeps its label without the
    citation."""

    if a.get("name") and attack_words(a.get("name")).description:
        return attack_words(a.get("name"), a.get("label")).plain_name
    return short_label(str(a.get("label") or a.get("name") or "attack"))


def close(a, b) -> bool:
    """Two rates that name the same FPR target (float keys from JSON): the one rule of
    :func:`engine.headline.same_rate`."""
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and same_rate(a, b)


def theory_tpr(block: dict, fpr) -> float | None:
    """TPR at ``fpr`` of a theory trade-off summary (``optimal_attacker``, ``worst_case_dp``)."""
    row = tpr_at(block, fpr)
    return None if row is None else row.get("tpr")


def accounting_table(th: dict, *, k_sym: str = "k", over: str = "k observations",
                     count_note: str | None = None, title: str | None = None) -> list[Flowable]:
    """The composed ε: headline value, the accountant's bracket and the other ways of adding
    it up. ``k_sym`` names the number of compositions (k observations, E epochs), ``over`` says
    what is composed in words, ``count_note`` gives that number in the headline row's note."""
    comp = th.get("composed") or {}
    delta = comp.get("delta", th.get("delta"))
    if count_note is None:
        count_note = f"{k_sym} = {fmt_num(th.get('observations'))}"
    rows = [("Privacy accounting", "ε", "Note")]
    rows.append((f"<b>Composed ε over {over}</b>",
                 f"<b>{fmt_eps(th.get('epsilon_total'))}</b>",
                 f"headline value, at δ = {st.fmt_sci(delta)}, {count_note}"))
    named = [
        ("epsilon_pld_pessimistic", "PLD accountant, pessimistic", "upper end of the bracket"),
        ("epsilon_pld_optimistic", "PLD accountant, optimistic", "lower end of the bracket"),
        ("epsilon_gdp", "Gaussian DP (closed form)",
         f"μ = {fmt_num(comp.get('gdp_mu'))}" if comp.get("gdp_mu") is not None else ""),
        ("epsilon_kov_worst_case", f"Worst case of {k_sym}-fold ε0-DP (KOV)",
         "what any ε0-DP mechanism could reach"),
        ("epsilon_basic", f"Basic composition {k_sym}·ε0", "simple sum; always ≥ the others"),
    ]
    lo, hi = comp.get("epsilon_pld_optimistic"), comp.get("epsilon_pld_pessimistic")
    both = lo is not None and hi is not None
    for key, label, note in named:
        if comp.get(key) is None:
            continue
        value = fmt_eps(comp.get(key))
        if both and key == "epsilon_pld_pessimistic":   # a narrow bracket must not print
            value = distinguishing_digits(hi, lo)       # as "9.99 to 9.99"
        elif both and key == "epsilon_pld_optimistic":
            value = distinguishing_digits(lo, hi)
        rows.append((label, value, note))
    bracket = (f"The accountant brackets the composed ε between "
               f"{distinguishing_digits(lo, hi)} and {distinguishing_digits(hi, lo)}. "
               if both else "")
    return [keep([sub(title or f"The privacy guarantee over {over}"),
                          table(rows, [6.2 * cm, 2.2 * cm, TEXT_WIDTH - 8.4 * cm]),
                          para(bracket + "A larger ε means weaker protection; values above "
                               "about 1 give an attacker a real advantage (see below).",
                               "small")])]


def comparison_by_attack(result: dict, th: dict, *, optimal_label: str,
                         worst_label: str) -> Table:
    """Exact theory and every measured attack, one row each: balanced accuracy, AUC and TPR
    at each FPR target (rows, so any number of attacks fits the page width)."""
    opt = th.get("optimal_attacker") or {}
    worst = th.get("worst_case_dp") or {}
    attacks = [a for a in result.get("attacks") or [] if isinstance(a, dict)]
    entries = [attack_entry(a) for a in attacks]
    targets = [r.get("fpr") for r in opt.get("tpr_at_fpr") or []] or sorted(
        {r.fpr for e in entries for r in e.tpr_at_fpr
         if r.key == "fpr_target" and _finite(r.fpr)})
    rows = [["", "Balanced accuracy", "AUC"] + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
    for block, label in ((opt, optimal_label), (worst, worst_label)):
        if block:
            rows.append([f"<b>{label}</b>", fmt_pct(block.get("accuracy")),
                         fmt3(block.get("auc"))]
                        + [fmt_pct(theory_tpr(block, t)) for t in targets])
    for a, e in zip(attacks, entries, strict=True):
        row = [markup(short_attack_label(a)) + " (measured)",
               f"{fmt_pct(e.accuracy)} {fmt_ci(e.accuracy_ci, fmt_pct)}",
               f"{fmt3(e.auc)} {fmt_ci(e.auc_ci)}"]
        for t in targets:
            m = e.tpr_at(t)
            if m is None:
                row.append(st.DASH)
            elif not m.measurable:
                row.append(f"not measurable with {fmt_count(e.n_negative)} non-members")
            else:
                v, ci, _ = tpr_cells(m)
                row.append(f"{v} {ci}")
        rows.append(row)
    first = 4.2 * cm
    rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
    return table(rows, [first] + [rest] * (len(rows[0]) - 1))


def epsilon_bounds_table(result: dict, th: dict) -> list[Flowable]:
    """Each attack's empirical ε lower bound beside the claimed (composed) ε."""
    attacks = [a for a in result.get("attacks") or [] if isinstance(a, dict)]
    if not attacks:
        return []
    rows = [("Attack", "Empirical ε lower bound", "Composed ε (claimed)",
             "Most these trials can certify")]
    any_gdp = False
    for a in attacks:
        eb = a.get("epsilon_lower_bound") or {}
        rows.append((markup(short_attack_label(a)), fmt_eps(eb.get("value")),
                     fmt_eps(th.get("epsilon_total")), fmt_eps(eb.get("max_certifiable"))))
        gdp = (a.get("details") or {}).get("epsilon_lower_bound_gdp")
        if gdp:
            any_gdp = True
            rows.append((markup(short_attack_label(a)) + " — Gaussian-DP heuristic",
                         fmt_eps(gdp.get("value")), fmt_eps(th.get("epsilon_total")),
                         st.DASH))
    note = ("An empirical ε is a <b>lower bound</b>: it certifies, with 95% confidence, "
            "that the mechanism leaks at least that much (paper 002 Cor. 1). A bound below "
            "the claimed ε is expected and does not mean the claim is too high; a bound "
            "<i>above</i> the claimed ε would show the claim is wrong. A finite number of "
            "trials caps what can be certified (last column).")
    if any_gdp:
        note += (" Rows marked <b>Gaussian-DP heuristic</b> assume the mechanism's "
                 "trade-off curve is Gaussian, true for the Gaussian mechanism audited "
                 "here: one threshold then bounds the whole curve (μ ≥ Φ⁻¹(TPR) − Φ⁻¹(FPR)), "
                 "which certifies far more with the same trials (Nasr et al. 2023). It is "
                 "not valid for other mechanisms, and the app only computes it for "
                 "Gaussian noise.")
    return [keep([
        sub("Measured ε lower bounds against the claimed ε"),
        table(rows, [6.4 * cm, 3.4 * cm, 3.4 * cm, TEXT_WIDTH - 13.2 * cm]),
        para(note, "small")])]


# --------------------------------------------------------------------------- attack-table cells
# Shared by the audit sections whose attack tables put each value above its interval.

def two_lines(value: str, ci: str) -> str:
    """A value with its interval below it in a smaller font (keeps table columns narrow)."""
    if ci in ("", st.DASH):
        return value
    return f'{value}<br/><font size="7">{ci}</font>'


def fpr_targets(attacks: list[dict]) -> list[float]:
    """The FPR targets the attacks report, largest first (the columns of an attack table)."""
    vals = []
    for a in attacks:
        for r in a.get("tpr_at_fpr") or []:
            t = r.get("fpr_target")
            if _finite(t) and not any(close(t, v) for v in vals):
                vals.append(float(t))
    return sorted(vals, reverse=True)


def tpr_cell(a: AttackEntry | dict, t: float, negatives: str) -> str:
    """TPR at FPR t with its interval below, or why it cannot be measured. The row is read as
    its typed block (engine.audits.blocks.TprRow); a dict ``a`` is searched row by row, as it
    may be an attack of a theory block (engine.report.aggregates' membership game) whose other
    fields result_problem does not hold to an attack entry's form."""
    if isinstance(a, AttackEntry):
        row = a.tpr_at(t)
    else:
        try:
            found = tpr_at(a, t)
            row = TprRow.from_dict(found) if found is not None else None
        except BlockError:
            return st.DASH
    if row is None:
        return st.DASH
    if not row.measurable:
        need = min_negatives(t)
        return ("not measurable" + (f'<br/><font size="7">needs ≥ {fmt_count(need)} '
                                    f"{negatives}</font>" if need else ""))
    value, ci, _ = tpr_cells(row)
    return two_lines(value, ci)


def brief_name(label) -> str:
    """An attack's name for legends and narrow headers: its label up to the first colon or
    parenthesis ("DeSIA", "Data-only guess", "CIP-rand reconstruction + neighbourhood vote")."""
    text = short_attack_label({"label": str(label or "attack")})
    return text.split(": ")[0] if ": " in text else text


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def finite(x) -> bool:
    """A real, finite number (not a bool): a value a report can print."""
    return _finite(x)


def finite_pair(v) -> bool:
    """An interval: two finite numbers."""
    return isinstance(v, (list, tuple)) and len(v) == 2 and all(_finite(x) for x in v)


def policy_fpr(result: dict) -> float:
    """The false-alarm rate of the verdict policy a result was judged by (1 % by default)."""
    pol = (result.get("config") or {}).get("policy") or {}
    return float(pol["fpr"]) if _finite(pol.get("fpr")) else 0.01
