"""The report's building blocks shared by every section (issue 33 item 2: split from
engine/report/sections.py): the page-width constants, paragraph/table builders, and the cells
every attack table prints (a TPR with its interval, "not measurable", an attack's plain name).
Results are read through their typed blocks (engine.results.blocks; issue 33 item 1)."""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Iterable, Sequence

from reportlab.lib import colors
from reportlab.lib.units import cm
from reportlab.platypus import (
    CondPageBreak,
    Flowable,
    KeepTogether,
    Paragraph,
    Table,
    TableStyle,
)

from engine.numbers import is_finite, same_rate
from engine.report import styles as st
from engine.report.charts import short_label
from engine.report.styles import fmt_ci, fmt_count, fmt_num, fmt_pct, markup
from engine.results.blocks import AttackEntry, BlockError, TprRow, tolerant_rows, tpr_row_at
from engine.results.loaded import load_result
from engine.wording import attack_words

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
    A dict is read as its typed row (engine.results.blocks.TprRow); one not of that form gives
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
    """The typed attack entry of ``a`` (engine.results.blocks.AttackEntry; an entry is returned
    as it is); one not of the app's form — a result that did not pass
    engine.results.result.result_problem — is read as its name alone, so its table shows
    dashes, never a wrong number or a traceback."""
    if isinstance(a, AttackEntry):
        return a
    try:
        return AttackEntry.from_dict(a)
    except BlockError:
        name = a.get("name") if isinstance(a, dict) else None
        label = a.get("label") if isinstance(a, dict) else None
        return AttackEntry(name=name if isinstance(name, str) else "attack",
                           label=label if isinstance(label, str) else None)


def min_negatives(t) -> int | None:
    """⌈3/t⌉ non-members certify FPR ≤ t (ARCHITECTURE §5); None if t is not a rate."""
    if not isinstance(t, (int, float)) or not 0 < t <= 1:
        return None
    return int(math.ceil(3.0 / t - 1e-9))


def not_measurable_note(row: TprRow | dict, n_negative) -> str:
    """ "not measurable with N non-members (needs at least M …)": ARCHITECTURE §5 wording."""
    if isinstance(row, dict):
        row = TprRow.from_dict(row)
    t = row.fpr
    need = min_negatives(t)
    text = f"not measurable with {fmt_count(n_negative)} non-members"
    if need:
        text += f" (needs at least {fmt_count(need)} to certify FPR ≤ {fmt_pct(t)})"
    return text



def value_text(v) -> str:
    """A config or record value in words (a float as the report prints numbers)."""
    if isinstance(v, float):
        return fmt_num(v).replace("<super>", "^").replace("</super>", "")
    if isinstance(v, (list, tuple)):
        return ", ".join(value_text(x) for x in v)
    return "not set" if v is None else str(v)


def short_attack_label(a: AttackEntry | dict) -> str:
    """An attack's plain name (engine.wording's catalogue), for the tables and sentences of
    the report's body (issue 20: plain words first; the technical name and paper stay in the
    methods section). An attack the catalogue does not know keeps its label without the
    citation."""
    e = attack_entry(a)
    if e.name and attack_words(e.name).description:
        return attack_words(e.name, e.label).plain_name
    return short_label(str(e.label or e.name or "attack"))


def close(a, b) -> bool:
    """Two rates that name the same FPR target (float keys from JSON): the one rule of
    :func:`engine.numbers.same_rate`."""
    return is_finite(a) and is_finite(b) and same_rate(a, b)


# --------------------------------------------------------------------------- attack-table cells
# Shared by the audit sections whose attack tables put each value above its interval.

def two_lines(value: str, ci: str) -> str:
    """A value with its interval below it in a smaller font (keeps table columns narrow)."""
    if ci in ("", st.DASH):
        return value
    return f'{value}<br/><font size="7">{ci}</font>'


def fpr_targets(attacks: Iterable) -> list[float]:
    """The FPR targets the attacks report, largest first (the columns of an attack table)."""
    vals: list[float] = []
    for a in attacks:
        for r in attack_entry(a).tpr_at_fpr:
            if r.key == "fpr_target" and is_finite(r.fpr) \
                    and not any(close(r.fpr, v) for v in vals):
                vals.append(float(r.fpr))
    return sorted(vals, reverse=True)


def tpr_cell(a: AttackEntry | dict, t: float, negatives: str) -> str:
    """TPR at FPR t with its interval below, or why it cannot be measured. The row is read as
    its typed block (engine.results.blocks.TprRow); a dict ``a`` is searched row by row, as it
    may be an attack of a theory block (engine.report.aggregates' membership game) whose other
    fields result_problem does not hold to an attack entry's form."""
    if isinstance(a, AttackEntry):
        row = a.tpr_at(t)
    else:
        row = tpr_row_at(tolerant_rows(a.get("tpr_at_fpr") if isinstance(a, dict) else None), t)
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
    text = short_label(str(label or "attack"))
    return text.split(": ")[0] if ": " in text else text


# The one finite check (engine.numbers.is_finite), under the name the report modules use.
finite = is_finite


def finite_pair(v) -> bool:
    """An interval: two finite numbers."""
    return isinstance(v, (list, tuple)) and len(v) == 2 and all(is_finite(x) for x in v)


def policy_fpr(result) -> float:
    """The false-alarm rate of the verdict policy a result was judged by (1 % by default)."""
    return load_result(result).policy_fpr
