"""Property-based tests of every loader (issue 11, "Bad input"): arbitrary bytes and arbitrary
well-formed CSVs (and JSON/TOML documents for configs and projects) give either a valid load or
the project's :class:`InputError` sentence — never another exception, never a hang.

``derandomize=True`` makes the examples the same on every run (CI is deterministic). No
hypothesis ``deadline``: a per-example time limit fails on a loaded machine (issue 18), and a
hang is not caught by it anyway (the deadline is checked after an example returns). The
example counts keep the whole module well under a minute on two cores."""

from __future__ import annotations

import csv
import io
import json
import string
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.aggregates.queries import Domain, load_published_rows, load_queries_file
from engine.data.errors import InputError
from engine.data.microdata import load_microdata_csv
from engine.data.predictions import load_predictions_csv
from engine.data.tabular import load_tabular_csv
from engine.data.traces import load_release_csv, load_traces_csv
from engine.project import load_config, load_project

FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
FUZZ_BYTES = settings(FUZZ, max_examples=100)

DOMAIN = Domain(("sex", "age", "race"),
                (("Male", "Female"), tuple(str(a) for a in range(0, 10)),
                 ("White", "Black", "Asian")))

# Every loader, called the way the app calls it on a file it was given.
LOADERS = {
    "tabular": load_tabular_csv,
    "predictions": load_predictions_csv,
    "predictions_loss": lambda p: load_predictions_csv(p, kind="loss"),
    "microdata": load_microdata_csv,
    "traces": load_traces_csv,
    "traces_hourly": lambda p: load_traces_csv(p, epoch_unit="hour", count_col="count"),
    "release": load_release_csv,
    "queries": lambda p: load_queries_file(p, DOMAIN),
    "queries_toml": lambda p: load_queries_file(p, DOMAIN),
    "published": lambda p: load_published_rows(p, DOMAIN),
    "config": load_config,
    "config_json": load_config,
    "project": load_project,
}
SUFFIX = {"queries_toml": ".toml", "config": ".toml", "config_json": ".json",
          "project": ".praudit.json"}
CSV_LOADERS = ["tabular", "predictions", "predictions_loss", "microdata", "traces",
               "traces_hourly", "release", "queries", "published"]

# Column names a loader looks for, so that random tables reach past the header checks.
NAMES = ["label", "member", "id", "p_0", "p_1", "loss", "age", "sex", "race", "user_id",
         "site", "epoch", "count", "lat", "lon", "x", "", "a\u2028b", "a\x0cb", "a\nb", " a",
         "a,b", "a;b"]
CELLS = ["", " ", "0", "1", "2", "0.5", "-1", "1e308", "NaN", "nan", "inf", "-inf", "1,5",
         "1 000", "1.000,5", "NA", "?", "Male", "Female", "White", "0-9", "3-1", "a|b",
         "2024-03-01T14:00", "not a date", "=HYPERLINK()", "'=x", '"', "\n", "\r\n",
         "line\nbreak", "\u200f\u05e9\u05dc\u05d5\u05dd", "\u202eevil", "é", "\x00", "ß",
         "99999999999999999999", "0x10", "True", "007"]
cell = st.one_of(st.sampled_from(CELLS), st.text(max_size=8),
                 st.integers(-10, 10).map(str), st.floats(allow_nan=True).map(repr))
header_name = st.one_of(st.sampled_from(NAMES), st.text(max_size=6))


@st.composite
def csv_tables(draw) -> str:
    """A well-formed CSV: a header (names may repeat or be empty) and rows of the same width,
    quoted by the csv module, with a random delimiter and line ending."""
    n_cols = draw(st.integers(1, 6))
    header = draw(st.lists(header_name, min_size=n_cols, max_size=n_cols))
    rows = draw(st.lists(st.lists(cell, min_size=n_cols, max_size=n_cols), max_size=12))
    delimiter = draw(st.sampled_from([",", ",", ",", ";", "\t"]))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter, lineterminator=end,
                   quoting=draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL])))
    w.writerow(header)
    w.writerows(rows)
    text = buf.getvalue()
    return ("\ufeff" if draw(st.booleans()) and draw(st.booleans()) else "") + text


json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6),
                        st.floats(allow_nan=False), st.text(max_size=10),
                        st.sampled_from(["mechanism", "location", "aggregates", "model",
                                         "laplace", "gaussian", "census"]))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.text(string.ascii_lowercase + "_", max_size=12), inner, max_size=5)),
    max_leaves=12)
CONFIG_KEYS = ["audit_type", "epsilon", "delta", "mechanism", "sensitivity", "observations",
               "seed", "name", "data", "release", "schema", "policy", "noise_scale", "kind"]


@st.composite
def config_docs(draw) -> dict:
    doc = draw(st.dictionaries(st.sampled_from(CONFIG_KEYS), json_value, max_size=6))
    if draw(st.booleans()):
        doc["audit_type"] = draw(st.sampled_from(["mechanism", "location", "aggregates",
                                                  "model", "defences", "x"]))
    return doc


@st.composite
def project_docs(draw) -> dict:
    doc = draw(st.dictionaries(st.sampled_from(["audit_type", "config", "result",
                                                "decision_log", "schema_version", "name",
                                                "saved", "other"]), json_value, max_size=7))
    if draw(st.booleans()):
        doc.setdefault("audit_type", "mechanism")
        doc.setdefault("config", {})
    return doc


def _toml(doc: dict) -> str:
    """A TOML document for a JSON-like dict (keys quoted; values as inline TOML)."""
    def value(v):
        if v is None:
            return '""'
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(v) if isinstance(v, float) and v == v and abs(v) != float("inf") \
                else str(v) if isinstance(v, int) else "nan"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        return json.dumps(str(v))
    return "".join(f"{json.dumps(k)} = {value(v)}\n" for k, v in doc.items())


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("data.csv", "label,member,p_0,p_1\n" + "0,1,0.5,0.5\n" * 2000)
    return buf.getvalue()


ZIP = _zip()


def _load(name: str, path: Path) -> None:
    """Run one loader; anything but a load or an InputError sentence fails the test."""
    try:
        LOADERS[name](path)
    except InputError as exc:
        line = exc.one_line()
        assert line and "\n" not in line and "Traceback" not in line, line
        assert path.name in line or str(path) in line, line


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / f"fuzz_{name}{SUFFIX.get(name, '.csv')}"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_arbitrary_bytes_give_a_load_or_a_sentence(name, tmp_path):
    @FUZZ_BYTES
    @given(data=st.one_of(st.binary(max_size=300),
                          st.text(max_size=200).map(lambda t: t.encode("utf-8")),
                          st.text(max_size=100).map(lambda t: t.encode("utf-16"))))
    @example(data=ZIP)                                            # a zip renamed .csv
    @example(data=b"a" * 300_000 + b"\n1\n")                   # a field past csv's limit
    @example(data=b"a," * 150_000 + b"\n")                      # 150,000 columns
    @example(data="a\u2028b,c\n1,2\n".encode())                # a header splitlines splits
    @example(data=b'"a\nb",label\n1,x\n2,y\n')                 # a quoted newline in the header
    @example(data=b"label,member,p_0,p_1\r0,1,0.5,0.5\r1,0,0.2,0.8\r")   # CR line ends
    @example(data=b"[" * 100_000)                                # nesting past the recursion limit
    def check(data):
        _load(name, _write(tmp_path, name, data))
    check()


@pytest.mark.parametrize("name", CSV_LOADERS)
def test_arbitrary_csv_tables_give_a_load_or_a_sentence(name, tmp_path):
    @FUZZ
    @given(text=csv_tables(), encoding=st.sampled_from(["utf-8", "utf-8", "latin-1"]))
    def check(text, encoding):
        _load(name, _write(tmp_path, name, text.encode(encoding, errors="replace")))
    check()


def test_arbitrary_query_toml_gives_a_load_or_a_sentence(tmp_path):
    @FUZZ
    @given(queries=st.lists(st.dictionaries(st.sampled_from(["sex", "age", "race", "label",
                                                             "x"]), json_value, max_size=4),
                            max_size=4))
    def check(queries):
        text = "".join("[[query]]\n" + _toml(q) for q in queries)
        _load("queries_toml", _write(tmp_path, "queries_toml", text.encode()))
    check()


@pytest.mark.parametrize("suffix", ["config", "config_json"])
def test_arbitrary_configs_give_a_config_or_a_sentence(suffix, tmp_path):
    @FUZZ
    @given(doc=config_docs())
    def check(doc):
        text = _toml(doc) if suffix == "config" else json.dumps(doc)
        _load(suffix, _write(tmp_path, suffix, text.encode()))
    check()


def test_arbitrary_projects_give_a_project_or_a_sentence(tmp_path):
    @FUZZ
    @given(doc=st.one_of(project_docs(), json_value))
    def check(doc):
        _load("project", _write(tmp_path, "project", json.dumps(doc).encode()))
    check()
