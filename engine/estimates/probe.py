"""How big a CSV file is, from its size on disk and its first megabyte — never the whole file,
so an estimate stays instant for a file of gigabytes.

``rows`` is the file's size divided by the mean length of the first lines (exact for a file
under a megabyte); ``columns`` the fields of the header; ``distinct`` the number of distinct
values per column among the sampled lines (a one-hot encoding's width is the sum over the
categorical columns). Results are cached by (path, size, modification time).
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass
from pathlib import Path

from engine.data.errors import InputError
from engine.data.paths import open_regular_file, require_regular_file

SAMPLE_BYTES = 1 << 20


@dataclass(frozen=True)
class CsvShape:
    rows: int                       # data rows (estimated beyond the first megabyte)
    columns: tuple[str, ...]        # header names
    distinct: tuple[int, ...]       # distinct values per column among the sampled rows
    numeric: tuple[bool, ...]       # every sampled value of the column reads as a number
    exact: bool                     # the whole file was sampled


def csv_shape(path: str | Path) -> CsvShape | None:
    """The shape of ``path``, or None if it cannot be read (the audit's loader will say why)."""
    try:
        # A regular file only: a named pipe would block open() (the run would hang before its
        # loader could refuse the file) and a device never ends.
        st = require_regular_file(path, "CSV file")
    except InputError:
        return None
    return _shape(str(path), st.st_size, st.st_mtime_ns)


def csv_sample(path: str | Path) -> tuple[tuple[str, ...], list[list[str]]] | None:
    """(header, rows) of the first megabyte of ``path`` (whole lines), or None if it cannot be
    read — for an estimate that needs the values themselves (a column's range)."""
    try:
        st = require_regular_file(path, "CSV file")      # as csv_shape: never a pipe or device
    except InputError:
        return None
    sample = _sample(str(path), st.st_size, st.st_mtime_ns)
    if sample is None:
        return None
    lines, _, _ = sample
    return (tuple(lines[0]), lines[1:]) if lines else ((), [])


@functools.lru_cache(maxsize=32)
def _sample(path: str, size: int, _mtime: int) -> tuple[list[list[str]], bool, int] | None:
    """(non-empty parsed lines, whole file sampled, bytes sampled)."""
    try:
        fh, size = open_regular_file(path, "CSV file")
        with fh:
            head = fh.read(min(SAMPLE_BYTES, size))
    except (InputError, OSError):
        return None
    exact = len(head) >= size
    if not exact:
        cut = head.rfind(b"\n")
        head = head[:cut + 1] if cut > 0 else head
    text = head.decode("utf-8-sig", errors="replace")
    try:
        dialect = csv.Sniffer().sniff(text[:65536], delimiters=",;\t|")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = ","
    try:
        lines = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error:
        # A field longer than the csv module's limit (128 KB: a huge cell, or a quote left
        # open that runs to the end of the sample): an estimate needs only the rough shape,
        # so split the lines at the delimiter, quotes and all. The loader says what is wrong.
        lines = [line.split(delimiter) for line in text.split("\n")]
    return [r for r in lines if r and r != [""]], exact, len(head)


@functools.lru_cache(maxsize=32)
def _shape(path: str, size: int, _mtime: int) -> CsvShape | None:
    sample = _sample(path, size, _mtime)
    if sample is None:
        return None
    lines, exact, sampled = sample
    if not lines:
        return CsvShape(0, (), (), (), exact)
    header, body = tuple(lines[0]), lines[1:]
    if exact or not body:
        rows = len(body)
    else:
        rows = int(round(len(body) * (size - len(lines[0]) - 1) / max(sampled, 1)))
    distinct, numeric = [], []
    for j in range(len(header)):
        values = [r[j].strip() for r in body if j < len(r)]
        distinct.append(len(set(values)))
        numeric.append(bool(values) and all(_is_number(v) for v in values if v))
    return CsvShape(rows, header, tuple(distinct), tuple(numeric), exact)


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
