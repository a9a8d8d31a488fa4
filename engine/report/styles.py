"""Fonts, paragraph styles, safe markup and number formats of the PDF report.

Why a font module at all: reportlab's 14 standard Type1 fonts have no Greek letters, and the
report is full of ε, δ, σ, Δ (paper 002 Thm 1 is stated in them). The product installs no
system fonts, so we use only what ships inside the reportlab wheel:

* Bitstream Vera Sans (``Vera*.ttf``, embedded and subset) for all text — it has "≤", "≥",
  "—", "−", "×", "·" but no Greek;
* the Adobe Symbol Type1 font (``sy______.pfb``), embedded under its own name, for the Greek
  letters only. :func:`markup` switches to it character by character.

Every piece of text that did not come from this module (audit name, paths, config values,
warnings, attack labels) goes through :func:`markup`, which escapes ``<``, ``>`` and ``&`` for
reportlab's Paragraph mini-language before anything else.
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT
from reportlab.lib.styles import ParagraphStyle

from engine.numbers import is_finite

FONT = "PRA-Sans"
FONT_BOLD = "PRA-Sans-Bold"
FONT_ITALIC = "PRA-Sans-Italic"
FONT_SYMBOL = "PRA-Symbol"
FONT_MONO = "Courier"          # ASCII/Latin-1 only; non-Latin text is switched like FONT's

GREY_TEXT = colors.Color(0.30, 0.30, 0.30)
GREY_RULE = colors.Color(0.60, 0.60, 0.60)
GREY_FILL = colors.Color(0.92, 0.92, 0.92)
HEADER_FILL = colors.Color(0.85, 0.85, 0.85)

_registered = False
_symbol_chars: frozenset[str] = frozenset()
_sans_chars: frozenset[int] = frozenset()


def _font_dir() -> str:
    import reportlab

    return os.path.join(os.path.dirname(reportlab.__file__), "fonts")


def register_fonts() -> None:
    """Register the report fonts once per process (idempotent, no network, no system fonts)."""
    global _registered, _symbol_chars, _sans_chars
    if _registered:
        return
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    d = _font_dir()
    for name, file in ((FONT, "Vera.ttf"), (FONT_BOLD, "VeraBd.ttf"),
                       (FONT_ITALIC, "VeraIt.ttf"), (FONT + "-BoldItalic", "VeraBI.ttf")):
        pdfmetrics.registerFont(TTFont(name, os.path.join(d, file)))
    pdfmetrics.registerFontFamily(FONT, normal=FONT, bold=FONT_BOLD, italic=FONT_ITALIC,
                                  boldItalic=FONT + "-BoldItalic")
    # The AFM calls the face "Symbol", a standard-14 name that reportlab would *not* embed;
    # renaming it makes reportlab embed the Type1 program, so every viewer shows the same glyphs.
    face = pdfmetrics.EmbeddedType1Face(os.path.join(d, "sy______.afm"),
                                        os.path.join(d, "sy______.pfb"))
    face.name = FONT_SYMBOL + "-Face"
    pdfmetrics.registerTypeFace(face)
    pdfmetrics.registerFont(pdfmetrics.Font(FONT_SYMBOL, face.name, "SymbolEncoding"))
    for bold in (0, 1):
        for italic in (0, 1):
            addMapping(FONT_SYMBOL, bold, italic, FONT_SYMBOL)

    _sans_chars = frozenset(pdfmetrics.getFont(FONT).face.charToGlyph)
    _symbol_chars = frozenset(
        ch for ch in "αβγδεζηθικλμνξοπρστυφχψωΓΔΘΛΞΠΣΦΨΩ√∑∏∂∇∈∉∩∪≈≠⊆⊂→←↔⇒⇔′″"
        if _encodable_in_symbol(ch))
    _registered = True


def _encodable_in_symbol(ch: str) -> bool:
    try:
        ch.encode("symbol")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


#: Look-alikes for characters neither font has and NFKC does not fold (engine labels use
#: ⟨a, b⟩ for inner products and ⊛ for convolution). Never "<" or ">": the result is markup.
LOOKALIKES = {"⟨": "‹", "⟩": "›", "〈": "‹", "〉": "›", "⊛": "*", "≪": "«", "≫": "»"}


def _fallback(ch: str) -> str:
    """A character neither font has: a look-alike, its compatibility form (₀ → 0, ᵢ → i) or
    '?'."""
    if ch in LOOKALIKES and all(ord(c) in _sans_chars for c in LOOKALIKES[ch]):
        return LOOKALIKES[ch]
    folded = unicodedata.normalize("NFKC", ch)
    if folded != ch and all(ord(c) in _sans_chars for c in folded):
        return folded
    return "?"


def without_controls(text: str) -> str:
    """Drop control characters (NUL, bell, escape, form feed…; newline and tab are kept) and
    bidirectional overrides/isolates: text a user typed or a file carried must reach the page
    as readable characters, never as invisible codes that reorder or hide the text around
    them (issue 11)."""
    return "".join(ch for ch in str(text)
                   if ch in "\n\t" or not (unicodedata.category(ch) == "Cc"
                                           or "\u202a" <= ch <= "\u202e"
                                           or "\u2066" <= ch <= "\u2069"))


#: Characters that draw nothing but change what is shown around them — zero-width space, word
#: joiner and its invisible operators, byte-order mark, Mongolian vowel separator, left-to-right and
#: right-to-left marks, Arabic letter mark. Zero-width (non-)joiners are kept: Persian and Indic
#: names need them to be spelled right.
_INVISIBLE = frozenset("\u200b\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u061c")


def metadata_text(text: object, limit: int = 500) -> str:
    """User text → a PDF document property (Title, Subject, Author, Keywords, Creator).

    Viewers show the Title in their title bar and file managers list it, so it gets the page
    text's cleaning (:func:`without_controls`) and more: invisible characters dropped, every run
    of whitespace (newline, tab, line separator) one space, and at most ``limit`` characters — a
    property is one line, and a hidden character there would change the name a reader sees
    (issue 18). Unpaired surrogates (a JSON file can carry them) become '?'.
    """
    cleaned = "".join("?" if unicodedata.category(ch) == "Cs" else ch
                      for ch in without_controls(str(text)) if ch not in _INVISIBLE)
    cleaned = " ".join(cleaned.split())
    return cleaned if len(cleaned) <= limit else cleaned[:limit - 1].rstrip() + "…"


def plain_text(text: str) -> str:
    """Replace characters that neither embedded font can draw (used for canvas strings)."""
    register_fonts()
    return "".join(ch if (ord(ch) in _sans_chars or ch in _symbol_chars or ch in "\n\t")
                   else _fallback(ch)
                   # a canvas string has no tab stops: a tab would print as a missing glyph
                   for ch in without_controls(text).replace("\t", " "))


def runs(text: str) -> list[tuple[str, bool]]:
    """Split text into (chunk, is_symbol) runs: the Greek goes to the Symbol font."""
    text = plain_text(text)
    out: list[tuple[str, bool]] = []
    for ch in text:
        sym = ch in _symbol_chars
        if out and out[-1][1] == sym:
            out[-1] = (out[-1][0] + ch, sym)
        else:
            out.append((ch, sym))
    return out


_TAG_OR_TEXT = re.compile(r"(<[^>]*>)")


def fonted(markup_text: str) -> str:
    """Wrap Greek letters of Paragraph markup in the Symbol font (tags are left alone).

    Only for markup this module's callers wrote themselves; user text must pass through
    :func:`markup` first, which escapes it.
    """
    register_fonts()
    parts = _TAG_OR_TEXT.split(markup_text)
    out = []
    for part in parts:
        if part.startswith("<"):
            out.append(part)
            continue
        for chunk, sym in runs(part):
            out.append(f'<font face="{FONT_SYMBOL}">{chunk}</font>' if sym else chunk)
    return "".join(out)


def markup(text: object) -> str:
    """User-supplied text → safe Paragraph markup: escaped first, then font-switched.

    ``<b>&`` in an audit name must appear literally in the PDF, never be parsed as a tag.
    """
    return fonted(escape(without_controls(str(text))))


# --------------------------------------------------------------------------- styles

def styles() -> dict[str, ParagraphStyle]:
    """The paragraph styles (one set; sizes chosen for A4 read on screen and printed)."""
    register_fonts()
    base = ParagraphStyle("body", fontName=FONT, fontSize=9.5, leading=13, spaceAfter=4,
                          alignment=TA_LEFT)
    return {
        "body": base,
        "small": ParagraphStyle("small", parent=base, fontSize=8, leading=10.5, spaceAfter=2),
        "cell": ParagraphStyle("cell", parent=base, fontSize=8.5, leading=10.5, spaceAfter=0),
        "cell_bold": ParagraphStyle("cell_bold", parent=base, fontName=FONT_BOLD, fontSize=8.5,
                                    leading=10.5, spaceAfter=0),
        "bullet": ParagraphStyle("bullet", parent=base, leftIndent=12, bulletIndent=2),
        "h1": ParagraphStyle("h1", parent=base, fontName=FONT_BOLD, fontSize=15, leading=19,
                             spaceBefore=10, spaceAfter=6, keepWithNext=1),
        "h2": ParagraphStyle("h2", parent=base, fontName=FONT_BOLD, fontSize=11, leading=14,
                             spaceBefore=8, spaceAfter=4, keepWithNext=1),
        "title": ParagraphStyle("title", parent=base, fontName=FONT_BOLD, fontSize=24,
                                leading=30, spaceAfter=6),
        "subtitle": ParagraphStyle("subtitle", parent=base, fontSize=12, leading=16,
                                   textColor=GREY_TEXT, spaceAfter=14),
        "name": ParagraphStyle("name", parent=base, fontName=FONT_BOLD, fontSize=16,
                               leading=21, spaceAfter=4),
        "summary": ParagraphStyle("summary", parent=base, fontSize=12, leading=17,
                                  spaceAfter=8),
        "caption": ParagraphStyle("caption", parent=base, fontSize=8, leading=10.5,
                                  textColor=GREY_TEXT, alignment=TA_LEFT, spaceAfter=8),
        "centered": ParagraphStyle("centered", parent=base, alignment=TA_CENTER),
        "mono": ParagraphStyle("mono", parent=base, fontName=FONT_MONO, fontSize=7.5,
                               leading=9.2, spaceAfter=0),
    }


# --------------------------------------------------------------------------- numbers
# One place for every number format, so the same quantity reads the same everywhere
# (ARCHITECTURE §5: AUC and accuracy with 3 decimals, rates as percentages with 1 decimal).

DASH = "—"


def fmt3(x) -> str:
    """AUC (and other scores that are not rates): 3 decimals; missing values as an em dash.
    Balanced accuracy and advantage are rates, in % (:func:`fmt_pct`) as on the results
    page."""
    return f"{x:.3f}" if is_finite(x) else DASH


def fmt_pct(x) -> str:
    """A rate (TPR, FPR) as a percentage with 1 decimal."""
    return f"{100.0 * x:.1f}%" if is_finite(x) else DASH


def fmt_points(x) -> str:
    """A difference or spread of rates in percentage points, 1 decimal ("0.2 points")."""
    return f"{100.0 * x:.1f} points" if is_finite(x) else DASH


def fmt_pct_sig(x) -> str:
    """A small rate as a percentage with 3 significant digits ("0.05%", "1.17%"), where one
    decimal would round 0.05 % and 0.16 % to the same-looking 0.1 % and 0.2 %."""
    return f"{100.0 * x:.3g}%" if is_finite(x) else DASH


def fmt_conf(c) -> str:
    """A confidence level: "95%" (1 decimal only when needed, e.g. "99.9%")."""
    if not is_finite(c):
        return "95%"
    p = 100.0 * c
    return f"{p:.0f}%" if abs(p - round(p)) < 1e-9 else f"{p:.1f}%"


def fmt_ci(ci, fmt=fmt3) -> str:
    """A confidence interval as "[lo, hi]" in the same format as its value."""
    if not ci or len(ci) != 2 or not (is_finite(ci[0]) and is_finite(ci[1])):
        return DASH
    return f"[{fmt(ci[0])}, {fmt(ci[1])}]"


def fmt_eps(x) -> str:
    """An ε: 2 decimals (3 significant digits below 0.1, where 2 decimals would hide it)."""
    if not is_finite(x):
        return DASH
    return f"{x:.2f}" if abs(x) >= 0.1 or x == 0 else f"{x:.3g}"


def fmt_num(x) -> str:
    """A parameter value (noise scale, sensitivity, swept value): up to 4 significant digits."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}".replace(",", " ")
    if not is_finite(x):
        return DASH if x is None else str(x)
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e6):
        return fmt_sci(x)
    return f"{x:.4g}"


def fmt_sci(x) -> str:
    """Small probabilities such as δ: "1×10<super>−5</super>" (Paragraph markup)."""
    if not is_finite(x):
        return DASH
    if x == 0:
        return "0"
    exp = int(math.floor(math.log10(abs(x))))
    mant = x / 10 ** exp
    if abs(mant - round(mant)) < 1e-9:
        mant_s = f"{round(mant):d}"
    else:
        mant_s = f"{mant:.3g}"
    if exp == 0:
        return mant_s
    sign = "−" if exp < 0 else ""
    return f"{mant_s}×10<super>{sign}{abs(exp)}</super>"


def fmt_count(n) -> str:
    """Counts with a thin space as thousands separator (20 000), as in the GUI."""
    return f"{int(n):,}".replace(",", " ") if is_finite(n) else DASH
