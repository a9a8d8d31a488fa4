"""Reading a user's text file before any parser sees it (issue 11, "Bad input").

Every loader (training tables, predictions, microdata, traces and releases, query files and
published tables, configs and projects) reads its file through :func:`read_text`, so that the
same mistakes get the same sentence everywhere and none reaches a parser that would answer
with a traceback, a hang or a silently wrong table:

* only a regular file is opened, and never more than its size is read
  (:mod:`engine.data.paths`): a named pipe, a device (``/dev/zero``, ``/dev/urandom``), a link
  that loops or points at nothing gets its own sentence instead of a hang or endless memory;
* a binary file renamed ``.csv`` (a NUL byte, or mostly control characters), and archives and
  workbooks by their first bytes — a ZIP (also an ``.xlsx``), gzip, bzip2, xz, 7-Zip, an old
  ``.xls``, a PDF, Parquet — are refused *without* decompressing anything (a zip bomb costs
  nothing);
* a first line (the header) longer than :data:`MAX_LINE_CHARS` without a line break, or any
  line that long, is refused after reading at most that much of the header (a 1 GB line is
  never read whole into a parser);
* text that is not UTF-8 gets the row of the first bad byte and, when the file reads as
  Latin-1 / Windows-1252, the word as it would read, so the officer knows what to re-save;
* what is usable is read correctly and said (logged): a UTF-8 byte-order mark is dropped,
  UTF-16 / UTF-32 with a byte-order mark are decoded, CRLF and old-Mac CR line ends become
  LF, and a file whose header is separated by ``;`` or tabs (Excel in many European locales)
  is read with that delimiter (:func:`sniff_delimiter`).

:func:`number_hint` turns a cell that is not a number into the reason a person can act on:
a decimal comma, a thousands separator, a percent sign; :func:`non_finite` and
:func:`non_finite_sentence` are the one rule and the one sentence for a cell that is a number but
not a finite one (an infinity, 1e309; issue 18). :func:`cell_text` is the one rule for
showing a cell's content in an error sentence (issue 11, "Personal data stays where it
belongs"): every loader quotes a cell through it, and names duplicates by their rows alone.
"""

from __future__ import annotations

import codecs
import csv
import io
import logging
import math
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from engine.data.errors import InputError
from engine.data.gaps import NUMBER_MARKS
from engine.data.paths import grew, open_regular_file, resolve_path

log = logging.getLogger("engine.data")

MAX_LINE_CHARS = 4_000_000      # a line longer than this is not a row of a table
MAX_COLUMNS = 100_000           # a header naming more columns is not a table's header
DELIMITERS = (",", ";", "\t")
_DELIMITER_NAMES = {",": "commas", ";": "semicolons (;)", "\t": "tabs"}
_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook is one too)"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"PK\x07\x08", "a ZIP archive"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel .xls workbook (or another Office file)"),
    (b"%PDF-", "a PDF document"),
    (b"PAR1", "a Parquet file"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8 with a byte-order mark"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Cells that mean "no value" (compared lower-case): an error in a numeric column, and in a
# categorical one unless a schema lists them as real categories.
# The marks of a missing value in a number column: the one list of engine.data.gaps (issue 31
# item 10: the published-table loader had its own list, without '.').
MISSING_MARKERS = NUMBER_MARKS
_NO_VALUE = MISSING_MARKERS | {"inf", "infinity"}     # what the rule below may always quote
SHORT_CELL = 3                  # a cell this short is quoted (it hardly tells who it is about)
SHORT_NON_FINITE = 12           # a number beyond float range this short ('1e309') is quoted


@dataclass
class TextInput:
    """A user's text file, decoded: ``text`` has LF line ends and no byte-order mark;
    ``delimiter`` is the field separator of its first line (:func:`sniff_delimiter`, "," unless
    asked); ``notes`` say what was assumed to read it (also logged)."""

    path: str
    text: str
    delimiter: str = ","
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        self.notes.append(text)
        log.info("%s: %s", self.path, text)
        _remember(self.path, self.notes)


# What was assumed to read each file, by the file's identity (path, size, modification time),
# so that the audit's result and the page that read the file can say it (issue 11: "load it
# correctly instead and say what was assumed") without every loader returning its notes.
_NOTES: OrderedDict[tuple, tuple[str, ...]] = OrderedDict()
_NOTES_LOCK = threading.Lock()
_NOTES_KEPT = 64


def _identity(path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return os.path.realpath(path), st.st_size, st.st_mtime_ns


def _remember(path, notes) -> None:
    key = _identity(path)
    if key is None:
        return
    with _NOTES_LOCK:
        _NOTES[key] = tuple(notes)
        _NOTES.move_to_end(key)
        while len(_NOTES) > _NOTES_KEPT:
            _NOTES.popitem(last=False)


def add_read_note(path, note: str) -> None:
    """Add ``note`` to what :func:`read_notes` says about ``path`` as it is now (a loader's own
    assumption, e.g. rows left out because a cell the loader needs was empty: issue 21), so
    that result.json's ``read_as`` and the run's warnings say it."""
    key = _identity(path)
    if key is None:
        return
    with _NOTES_LOCK:
        _NOTES[key] = (*_NOTES.get(key, ()), note)
        _NOTES.move_to_end(key)


def read_notes(path) -> list[str]:
    """What was assumed to read ``path`` the last time it was read, as it is now (a file
    changed since has no notes): e.g. "its columns are separated by semicolons (;), not
    commas; read with that separator"."""
    key = _identity(path)
    with _NOTES_LOCK:
        return list(_NOTES.get(key, ())) if key is not None else []


def read_text(path, *, kind: str = "CSV file", save_as: str = "UTF-8 CSV",
              empty: str | None = None, sniff: bool = False,
              missing: str | None = None) -> TextInput:
    """The decoded text of ``path`` or one :class:`InputError` sentence (module docstring).

    ``path`` is resolved by :func:`engine.data.paths.resolve_path` (``~``, the bundled
    samples) and must be a regular file (:func:`engine.data.paths.open_regular_file`: a FIFO,
    a device, a link loop get their own sentence before anything blocks); no more than the
    opened file's size is ever read, so an endless stream cannot grow memory. ``kind`` names
    the file in messages ("CSV file", "config file"); ``save_as`` is what to save it as;
    ``empty`` is the end of the sentence for an empty file (None: an empty text is returned);
    ``sniff``: find the delimiter of a CSV's first line; ``missing``: the end of the sentence
    for a path where nothing is (default "file not found; check the path.").
    """
    fp = resolve_path(path)
    p = str(fp)
    fh, size = open_regular_file(fp, kind, missing=missing)
    try:
        with fh:
            # At most size + 1 bytes in all: the + 1 notices a file that grows while read.
            head = fh.read(min(MAX_LINE_CHARS + 1, size + 1))
            _check_signature(p, head, kind, save_as)
            if sniff and _saved_project(head):
                # Issue 31 item 12: a project saved on one line (over 4 MB) read "not the
                # header row of a table", a smaller one as a table of one column '{'.
                raise InputError(f"{p}: is a project saved by this app, not a table of data; "
                                 f"open it with Open project… (the File menu), and choose "
                                 f"the CSV file itself as data.", source=p)
            bom = next(((b, enc, name) for b, enc, name in _BOMS if head.startswith(b)), None)
            wide = bom is not None and bom[1].startswith(("utf-16", "utf-32"))
            if not wide and len(head) > MAX_LINE_CHARS and not _has_line_end(head):
                raise InputError(f"{p}: row 1 is longer than {MAX_LINE_CHARS:,} characters "
                                 f"without a line break, so it is not the header row of a "
                                 f"table; check that this is the right file, saved as "
                                 f"{save_as} with one row per line.", source=p)
            rest = size + 1 - len(head)
            raw = head + fh.read(rest) if rest > 0 else head
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc}).", source=p) from None
    if len(raw) > size:
        raise grew(p)
    del head
    notes = []
    if wide and not _plausible(raw[len(bom[0]):], bom[1]):
        bom = None                      # FF FE by chance, not UTF-16 text: judged as UTF-8
    if bom is not None:
        raw = raw[len(bom[0]):]
        if bom[1] != "utf-8":
            notes.append(f"read as {bom[2]} text (it starts with a byte-order mark)")
    encoding = "utf-8" if bom is None else bom[1]
    if encoding == "utf-8" and b"\x00" in raw:
        row = raw[:raw.index(b"\x00")].count(b"\n") + 1
        raise InputError(f"{p}: contains binary data (a NUL byte in row {row}), so it is not a "
                         f"text {kind}; choose the file itself, or export the data again as "
                         f"{save_as}.", source=p)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InputError(_not_utf8(p, raw, exc, kind, save_as, encoding), source=p) from None
    del raw
    if "\r" in text:
        if "\n" not in text:
            notes.append("its lines end with CR (an old Mac format); read as ordinary lines")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if empty is not None and not text.strip():
        raise InputError(f"{p}: {empty}", source=p)
    out = TextInput(p, text)
    _remember(p, ())                    # a file read again without surprises has no notes
    for n in notes:
        out.note(n)
    if len(text) > MAX_LINE_CHARS:
        longest = max(text.split("\n"), key=len)
        if len(longest) > MAX_LINE_CHARS:
            row = text[:text.index(longest)].count("\n") + 1
            raise InputError(f"{p}: row {row:,} is {len(longest):,} characters long, more than "
                             f"{MAX_LINE_CHARS:,}, so it is not a row of a table; check that "
                             f"the file has one row per line (a missing line break or an "
                             f"unclosed quote joins rows).", source=p)
    if _CONTROL.search(text[:4096]) and len(_CONTROL.findall(text[:4096])) > 8:
        raise InputError(f"{p}: contains binary data (control characters), so it is not a "
                         f"text {kind}; choose the file itself, or export the data again as "
                         f"{save_as}.", source=p)
    if sniff:
        out.delimiter = sniff_delimiter(text)
        if out.delimiter != ",":
            out.note(f"its columns are separated by {_DELIMITER_NAMES[out.delimiter]}, not "
                     f"commas; read with that separator")
    return out


def _plausible(data: bytes, encoding: str) -> bool:
    """True when ``data`` reads as text in ``encoding`` (UTF-16/32): it decodes, and at least
    half of it is ASCII, as the names and numbers of a table or a config are."""
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return sum(ch.isascii() for ch in text) >= len(text) / 2


def _has_line_end(data: bytes) -> bool:
    return b"\n" in data or b"\r" in data


def _check_signature(p: str, head: bytes, kind: str, save_as: str) -> None:
    for magic, what in _SIGNATURES:
        if head.startswith(magic):
            fix = ("unzip it and choose the file inside, or open the workbook and save it as "
                   f"{save_as}" if "ZIP" in what else
                   f"open it in the program that made it and save the data as {save_as}")
            raise InputError(f"{p}: is {what}, not a text {kind}; {fix}.", source=p)


def _saved_project(head: bytes) -> bool:
    """True when a file's first bytes are a project file of this app (engine.project: a JSON
    object whose keys include "audit_type" and "config"), whatever its layout or size."""
    start = head[:65536].lstrip(codecs.BOM_UTF8).lstrip()
    return start.startswith(b"{") and b'"audit_type"' in start and b'"config"' in start


def _not_utf8(p: str, raw: bytes, exc: UnicodeDecodeError, kind: str, save_as: str,
              encoding: str) -> str:
    row = raw[:exc.start].count(b"\n") + raw[:exc.start].count(b"\r") \
        - raw[:exc.start].count(b"\r\n") + 1
    if encoding != "utf-8":
        return (f"{p}: is not valid {encoding.upper()} text (row {row:,}); save it as "
                f"{save_as}.")
    latin = raw.decode("cp1252", errors="replace")
    if len(_CONTROL.findall(latin[:4096])) > 8 or latin.count("\ufffd") > 8:
        return (f"{p}: contains binary data, so it is not a text {kind} (row {row:,} has "
                f"byte 0x{raw[exc.start]:02X}); choose the file itself, or export the data "
                f"again as {save_as}.")
    # The character, not the word around it: the word is a cell of a record (a name, a town).
    char = raw[exc.start:exc.start + 1].decode("cp1252", errors="replace")
    return (f"{p}: is not a UTF-8 text file — row {row:,} has byte 0x{raw[exc.start]:02X} "
            f"({char!r} if read as Latin-1 / Windows-1252); save it as {save_as}"
            f"{' (in Excel: Save As, CSV UTF-8)' if 'CSV' in save_as else ''}.")


def sniff_delimiter(text: str) -> str:
    """The separator of the first non-blank line (the header: the loaders skip blank lines
    above it, so a file that starts with an empty line was read as commas): the most frequent
    of ``,``, ``;`` and tab outside quotes (commas win a tie, and a line with none of them is
    one comma-separated column)."""
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    start = 0
    while True:              # skip lines holding only spaces, tabs or nothing
        end = text.find("\n", start, start + MAX_LINE_CHARS)
        if end < 0 or text[start:end].strip(" \t\r"):
            break
        start = end + 1
    for ch in text[start:start + MAX_LINE_CHARS]:
        if ch == '"':
            quoted = not quoted
        elif not quoted:
            if ch == "\n":
                break
            if ch in counts:
                counts[ch] += 1
    best = max(DELIMITERS, key=lambda d: (counts[d], d == ","))
    return best if counts[best] else ","


def header_names(inp: TextInput, *, skipinitialspace: bool = False) -> list[str]:
    """The names of the first row, stripped (read like the parser reads them: quoted names
    may hold line breaks and delimiters); an error sentence for a header that is not one."""
    reader = csv.reader(io.StringIO(inp.text.lstrip("\n")), delimiter=inp.delimiter,
                        skipinitialspace=skipinitialspace)
    try:
        first = next(reader, [])
    except csv.Error as exc:
        raise InputError(f"{inp.path}: row 1 (the header) cannot be read as CSV ({exc}); "
                         f"check its quotes, or save the file again as CSV.",
                         source=inp.path) from None
    if len(first) > MAX_COLUMNS:
        raise InputError(f"{inp.path}: row 1 names {len(first):,} columns, more than "
                         f"{MAX_COLUMNS:,}, so it is not a table's header; check that this is "
                         f"the right file and that row 1 names the columns.", source=inp.path)
    return [h.strip() for h in first]


def check_header(p: str, header: list[str], *, allow_blank: bool = False) -> None:
    """A sentence for an empty or repeated column name (which column, and the fix)."""
    if not any(h.strip() for h in header):
        # Issue 31 item 12: a first line of spaces read "column 1 of the header has no name".
        raise InputError(f"{p}: the first line is blank (only spaces or separators), where the "
                         f"header row naming the columns belongs; delete that line so that the "
                         f"header is the first line of the file.", source=p)
    if any(secret_marker(h) for h in header):
        # Issue 31 item 6: a key or a password file chosen by mistake is refused here, before
        # any later sentence could quote its first line as "column names".
        raise InputError(f"{p}: {NOT_A_HEADER}.", source=p)
    if not allow_blank:
        blank = [k for k, h in enumerate(header) if not h]
        if blank:
            raise InputError(f"{p}: column {blank[0] + 1} of the header has no name; name every "
                             f"column (or delete the empty column).", source=p)
    seen: dict[str, int] = {}
    for k, h in enumerate(header):
        if h and h in seen:
            # A first line that is not a header (a key, a password file) is not quoted (item 6).
            what = (f"names column '{h}' twice" if looks_like_header(header)
                    and plain_column_name(h) else "gives two columns the same name")
            raise InputError(f"{p}: the header {what} (columns {seen[h] + 1} and {k + 1}); "
                             f"give each column a distinct name.", source=p, key=h)
        seen.setdefault(h, k)


def header_mismatch(p: str, header: list[str], found: int) -> InputError:
    """The sentence for a header the table parser reads with another number of columns."""
    return InputError(f"{p}: row 1 (the header) names {len(header)} columns but is read as "
                      f"{found}; check the quotes in the header, or save the file again as "
                      f"CSV.", source=p)


_DECIMAL_COMMA = re.compile(r"^[+-]?\d*,\d+$")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}([,.\s\u00a0\u202f'’]\d{3})+([.,]\d+)?$")


def number_hint(value) -> str:
    """Why a cell is not a number, when a person wrote one: '' if nothing is recognised,
    else a clause to put after the value (it starts with '; ' and ends without a stop)."""
    text = str(value).strip()
    thousands, decimal = bool(_THOUSANDS.match(text)), bool(_DECIMAL_COMMA.match(text))
    if thousands and decimal:
        return (f"; it looks like a number written with a comma (a decimal comma or a "
                f"thousands separator) — write it with a decimal point and no separators, "
                f"e.g. {text.replace(',', '.')} or {text.replace(',', '')}")
    if thousands:
        plain = re.sub(r"[,.\s\u00a0\u202f'’](?=\d{3}(\D|$))", "", text).replace(",", ".")
        return (f"; it looks like a number written with a thousands separator — write it "
                f"without separators, e.g. {plain}")
    if decimal:
        return (f"; it looks like a number written with a decimal comma — write "
                f"{text.replace(',', '.')} (a decimal point), or export the file with '.' "
                f"as the decimal separator")
    if text.endswith("%") and _is_float(text[:-1]):
        return f"; it is a percentage — write it as a plain number (e.g. {text[:-1].strip()})"
    return ""


def non_finite(value) -> bool:
    """True for a cell that reads as a number but not as a finite one — the one rule every
    loader applies to a numeric cell (issue 18): an infinity however it is written ('inf',
    '+inf', '-Infinity', 'INF'), a number beyond the largest a computer stores (about 1.8e308:
    '1e309', '-1e400', a 310-digit integer; each reads as an infinity), or a signed 'nan'
    ('-nan'). A plain 'nan' / 'NaN' is a missing-value marker (:data:`MISSING_MARKERS`) and is
    reported as missing, not here. ``value`` may also be a float a parser already read."""
    text = str(value).strip()
    if not text or text.lower() in MISSING_MARKERS:
        return False
    try:
        return not math.isfinite(float(text))
    except (ValueError, OverflowError):
        return False


def non_finite_sentence(where: str, value, fix: str = "write a plain number or delete the "
                                                        "row") -> str:
    """The one sentence for a cell :func:`non_finite` accepts, the same in every loader:
    "<where> holds '1e309', which is not a finite number (<why>); <fix>." — ``where`` is
    "<file>: row R, column 'C'" as the loader numbers rows, ``fix`` the loader's own advice.
    The cell is shown by :func:`cell_text` (an infinity's spelling and a short number are
    quoted: they say nothing about a person)."""
    text = str(value).strip()
    word = text.lower().lstrip("+-")
    if word in ("inf", "infinity"):
        why = f"it stands for {'minus ' if text.startswith('-') else ''}infinity"
    elif word == "nan":
        why = "it stands for 'not a number'"
    else:
        why = ("it is beyond the largest number a computer can store, about ±1.8e308, so it "
               "would be read as infinity")
    return f"{where} holds {cell_text(text)}, which is not a finite number ({why}); {fix}."


def cell_text(value) -> str:
    """A cell of a user's data as an error sentence shows it — the one rule of every loader.

    Error messages reach logs, screenshots and support e-mails, so a record's content stays out
    of them unless it is the fix itself. A cell is quoted only when its characters are what the
    user must change and say next to nothing about a person: a number written in a locale's way
    or as a percentage ('1,5', '1 000', '12 %'), a missing-value marker ('n/a', 'NaN', '-'), an
    infinity ('inf', '-Infinity') or a short number beyond what a computer stores ('1e309', at
    most :data:`SHORT_NON_FINITE` characters), or a value of at most :data:`SHORT_CELL`
    characters ('x', 'M', '2.5'). Anything else — a name, an id, an address, a date, a long
    number — is described by its length and the kinds of characters in it ("a 17-character
    text of letters and digits"); the sentence's row and column say where to look. Ids and
    duplicated rows are named by their rows alone.
    """
    text = str(value).strip()
    if len(text) <= SHORT_CELL or text.lower().lstrip("+-") in _NO_VALUE or number_hint(text) \
            or (len(text) <= SHORT_NON_FINITE and non_finite(text)):
        return repr(text)
    if _is_float(text):
        return f"a {len(text)}-character number"
    kinds = [name for name, has in (("letters", str.isalpha), ("digits", str.isdigit))
             if any(has(c) for c in text)]
    # '½' and '²' are alphanumeric but neither letters nor digits: they are "other characters".
    if any(not (c.isalpha() or c.isdigit() or c.isspace()) for c in text):
        kinds.append("other characters")
    words = ", ".join(kinds[:-1]) + " and " + kinds[-1] if len(kinds) > 1 else kinds[0]
    return f"a {len(text)}-character text of {words}"


# What a table's column name looks like (issue 31 item 6): a file chosen by mistake — a password
# file, a private key — has its first line read as the header, and quoting it in the "columns
# found" sentence put the secret in the error box, the log and the screenshot.
MAX_NAME_CHARS = 40             # a longer "name" is described (cell_text), not quoted
_NAME_CHARS = re.compile(r"[\w .()\[\]/%#&+?'-]")    # letters, digits and usual punctuation
_KEY_BLOCK = re.compile(r"-----\s*(BEGIN|END)\b|^(ssh|ecdsa-sha2)-\w+ AAAA|PuTTY-User-Key-File",
                        re.IGNORECASE)
_HASH_PREFIX = re.compile(r"\$[0-9A-Za-z-]{1,12}\$")       # crypt(3): $1$ $2b$ $5$ $6$ $y$ $argon2id$
_TOKEN_RUN = re.compile(r"[A-Za-z0-9+/=_-]{20,}")           # base64, base64url (a JWT's parts)
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{32,}")                  # a hex digest or key
_EMAIL = re.compile(r"[^\s@]+@[^\s@]+\.\w+")


def _token_like(run: str) -> bool:
    """A 20+ character run of the base64 alphabet that mixes capitals, small letters and digits
    is a key or token, not a name ("HouseholdIncome2019" has no such run: it is 19 long)."""
    return (any(c.isdigit() for c in run) and any(c.isupper() for c in run)
            and any(c.islower() for c in run))


def secret_marker(name) -> bool:
    """True when a first-line field carries what only a key or password file holds: a PEM or
    OpenSSH block marker ("-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN PGP MESSAGE-----")
    or a crypt(3) password-hash prefix ('$6$', '$y$', '$2b$'). A line with one is never quoted."""
    text = str(name)
    return bool(_KEY_BLOCK.search(text) or _HASH_PREFIX.search(text))


def plain_column_name(name) -> bool:
    """True when ``name`` reads as a column name a person wrote and may be quoted as it is: at
    most :data:`MAX_NAME_CHARS` characters, nine in ten of them letters, digits, spaces or usual
    punctuation (``_ . - ( ) / % #``), no control character, and nothing secret-looking — no
    key-block marker or password-hash prefix (:func:`secret_marker`), no e-mail address, no
    20-character run of the base64 alphabet mixing capitals, small letters and digits (a token,
    a JWT) and no 32-digit hex run (a digest). ``root:x:0:0:root:/root:/bin/bash`` fails on its
    colons, a JWT on its runs, 'age' and 'income (USD)' pass."""
    text = str(name).strip()
    if not text or len(text) > MAX_NAME_CHARS or _CONTROL.search(text) or secret_marker(text) \
            or _EMAIL.search(text) or _HEX_RUN.search(text) \
            or any(_token_like(run) for run in _TOKEN_RUN.findall(text)):
        return False
    return sum(1 for c in text if _NAME_CHARS.match(c)) >= 0.9 * len(text)


def looks_like_header(names) -> bool:
    """True when a file's first row reads as the header row of a table: it names at least one
    column, no field carries a key-block marker or password-hash prefix (:func:`secret_marker`)
    and at least half of its named fields are plain column names (:func:`plain_column_name`).
    A key, a password file or a line of base64 fails; a header with one long or odd name among
    plain ones passes (that one name is described, :func:`column_name_text`)."""
    named = [str(n).strip() for n in names if str(n).strip()]
    if not named or any(secret_marker(n) for n in named):
        return False
    return 2 * sum(plain_column_name(n) for n in named) >= len(named)


def column_name_text(name) -> str:
    """A column name of a user's file as an error sentence shows it: quoted when it is a plain
    name (:func:`plain_column_name`), otherwise described like a record's cell by
    :func:`cell_text` ("a 106-character text of letters, digits and other characters") — a
    long or secret-looking field is cut the way record values are."""
    return repr(str(name)) if plain_column_name(name) else cell_text(name)


#: Said instead of the first line of a file that does not look like a table's header.
NOT_A_HEADER = ("the first line of the file does not look like the header row of a table (it "
                "is not quoted here since it may hold private data); choose the CSV file with "
                "the records")


def localized_number(value) -> bool:
    """True for a cell that is a number only in a locale's writing (1,5 or 1 000)."""
    text = str(value).strip()
    return bool(_DECIMAL_COMMA.match(text) or (_THOUSANDS.match(text)
                                               and not _is_float(text)))


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
