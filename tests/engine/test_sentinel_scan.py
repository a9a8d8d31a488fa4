"""Planted values leave an audit only when the user asked for records (issue 11: "Records reach
the report, result.json, logs and error messages only when the user asked").

Every audit type runs through the command line (``main.main(["run", CONFIG, "--out", DIR])``)
on small files in which every place a personal record can hold a value carries a unique
planted string; then every output is scanned for them: each file of the output folder
(result.json, config.toml, report.pdf — its extracted text, charts included, and every
decompressed object: content streams, metadata, bookmarks — and any other file), stdout and
stderr (at the file-descriptor level, so a solver's C++ output counts), every logging record
of every logger at DEBUG level, and every file left in the session's temporary folder.

The rule (what is personal)
---------------------------
* **Personal, everywhere** (``ID``, ``TEXT``): a record's identifier (the user ids of location
  traces, the ids of microdata rows, training records and predictions) and a record's free
  content (text columns no audit reads). They never appear unless asked.
* **Domain** (``DOMAIN``): the values a column takes — categories, class labels, the
  sensitive attribute's values, site names. Released tables, per-class rates and attribute
  inference are made of them, so they may appear; but tied to one exposed record they
  describe that record, so the exposed-records part of the outputs (result.json's
  ``exposed_records`` and the target's id, the report's section 9) holds no planted value of
  any kind unless asked. The released cells that pin an exposed record down ("sex=…, age=…")
  count as its description too.
* **Schema** (``SCHEMA``): what the user typed about the data — the audit's name, column
  names. They may appear anywhere, and do: the test checks that they reach result.json,
  config.toml, the PDF and (through its metadata) the PDF's objects, which shows that the
  scanner reads each output. A person's id typed into the configuration (``target_id``) stays
  in result.json and config.toml, which reproduce the run, but a report withholds it.
* **Asking**: the audit's ``list_exposed_ids`` / ``list_exposed_records`` keep records in
  result.json; the report prints them only when also written with records included
  (``--include-records``). The test checks both ways: with both, the exposed records' planted
  values are printed; a report of the same result written without records holds none.
* **Error messages** show a cell through :func:`engine.data.text_input.cell_text`: quoted
  only when its characters are the fix ('1,5', 'n/a', three characters at most), otherwise
  described ("a 17-character text of letters"), with the file, row and column; duplicates and
  ids are named by their rows. An unexpected error's message is shown with its quoted values
  replaced (:func:`engine.data.errors.internal_error_text`).

Sizes are tiny (a few seconds per audit on two cores); tests/engine/test_determinism.py and
test_cancel.py run the same audits at similar sizes."""

from __future__ import annotations

import csv
import json
import logging
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from pypdf import PdfReader
from pypdf.generic import StreamObject

import main as cli
from engine import private_tmp
from engine.data.errors import InputError, internal_error_text, internal_traceback
from engine.data.text_input import cell_text
from engine.project import config_to_toml

ROOT = Path(__file__).resolve().parents[2]
ID, TEXT, DOMAIN, SCHEMA = "zqxid", "zqxtx", "zqxdm", "kwvsch"
PERSONAL = (ID, TEXT)                 # never, anywhere, unless asked
PLANTED = (ID, TEXT, DOMAIN)          # never in the exposed-records part unless asked
SECTION_9 = re.compile(r"9\. Exposed records(.*)10\. Reproducibility appendix", re.S)


# --------------------------------------------------------------------------- the scanner

def pdf_texts(path: Path) -> tuple[str, str]:
    """(extracted text of every page, every object of the file decoded): the first finds text
    drawn with the embedded fonts, tables and charts alike; the second what the text layer
    does not show (document info, bookmarks, annotations, standard-font strings)."""
    reader = PdfReader(str(path))
    text = "\n".join(p.extract_text() or "" for p in reader.pages)
    objects = []
    for number in range(1, int(reader.trailer["/Size"])):
        obj = reader.get_object(number)
        data = obj.get_data() if isinstance(obj, StreamObject) else str(obj)
        objects.append(data.decode("latin-1") if isinstance(data, bytes) else data)
    return text, "\n".join(objects)


def found(marker: str, text: str) -> list[str]:
    """Every planted value with ``marker`` in ``text`` (also when a line break or a space
    split it: pypdf breaks lines wherever the layout does; without the spaces a value may run
    into the next word, which is fine for telling that something leaked)."""
    return sorted(set(re.findall(rf"{marker}(?:(?!{marker})\w)*", _flat(text), re.I)))


def shows(value: str, text: str) -> bool:
    """Whether ``text`` holds ``value`` (whatever the line breaks and spaces)."""
    return _flat(value) in _flat(text)


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


def outputs(out: Path, streams: str, logs: str, tmp: Path) -> dict[str, str]:
    """Everything a run left behind, by where it is: output files, streams, log, temp files."""
    seen = {"stdout/stderr": streams, "log records": logs}
    for f in sorted(p for p in out.rglob("*") if p.is_file()):
        if f.suffix == ".pdf":
            seen[f"{f.name} (text)"], seen[f"{f.name} (objects)"] = pdf_texts(f)
        else:
            seen[f.name] = f.read_bytes().decode("utf-8", errors="replace")
    for f in sorted(p for p in tmp.rglob("*") if p.is_file()):
        seen[f"temp file {f.relative_to(tmp)}"] = f.read_bytes().decode("latin-1")
    return seen


def leaks(seen: dict[str, str], markers=PERSONAL) -> dict[str, str]:
    """Where planted values with ``markers`` are, with a few of them."""
    out = {}
    for where, text in seen.items():
        hits = [v for m in markers for v in found(m, text)]
        if hits:
            out[where] = f"{len(hits)} planted values, e.g. {', '.join(hits[:3])}"
    return out


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(f"{record.name}: {record.getMessage()} {record.exc_text or ''}")


@contextmanager
def every_log_record():
    """Every record of every logger at DEBUG level: each logger is lowered to DEBUG for the
    run, and the handler sits on the root and on every logger that does not propagate."""
    handler = _Records()
    loggers = [logging.getLogger()] + [lg for lg in logging.root.manager.loggerDict.values()
                                       if isinstance(lg, logging.Logger)]
    hooked = [lg for lg in loggers if lg is loggers[0] or not lg.propagate]
    old = [(lg, lg.level) for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.DEBUG)
    for lg in hooked:
        lg.addHandler(handler)
    try:
        yield handler.lines
    finally:
        for lg in hooked:
            lg.removeHandler(handler)
        for lg, level in old:
            lg.setLevel(level)


@pytest.fixture
def run_cli(tmp_path, monkeypatch, capfd):
    """Run ``main.main(["run", config, "--out", out, *flags])`` with a fresh private temporary
    folder under tmp_path; returns (exit code, outputs by place, out folder)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setattr(private_tmp, "_active", None)
    for name in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.setenv(name, str(tmp))
    count = iter(range(100))

    def run(config: dict, *flags: str):
        n = next(count)
        path = tmp_path / f"config{n}.toml"
        path.write_text(config_to_toml(config), encoding="utf-8")
        out = tmp_path / f"out{n}"
        capfd.readouterr()
        with every_log_record() as logs:
            code = cli.main(["run", str(path), "--out", str(out), *flags])
        streams = "".join(capfd.readouterr())
        return code, outputs(out, streams, "\n".join(logs), tmp), out
    return run


# --------------------------------------------------------------------------- planted inputs

def _traces(path: Path) -> None:
    """300 people at 12 sites over 48 hours: ids and site names planted."""
    g = np.random.default_rng(1)
    rows = set()
    for u in range(300):
        for _ in range(int(g.integers(5, 30))):
            rows.add((f"{ID}u{u:04d}", f"{DOMAIN}site{int(g.integers(0, 12)):02d}",
                      int(g.integers(0, 48))))
    _write(path, [f"{SCHEMA}user", "site", "epoch"], sorted(rows))


def _microdata(src: Path, path: Path, n: int, tag: str) -> None:
    """The sample census block's rows with an id and a note per person, and every category
    (block, sex, race, Hispanic origin) planted; the schema is inferred, so no category was
    typed by the user."""
    rows = list(csv.reader(src.open(encoding="utf-8")))
    head, body = rows[0], rows[1:n + 1]
    out = []
    for i, r in enumerate(body):
        values = [v if h == "age" else f"{DOMAIN}{v.replace(' ', '')}" for h, v in zip(head, r,
                                                                                strict=True)]
        out.append([f"{ID}p{tag}{i:04d}", *values, f"{TEXT}{tag}{i:04d} lives at 3 Elm Street"])
    _write(path, ["person_id", *head, f"{SCHEMA}note"], out)


def _training_table(path: Path) -> None:
    """400 rows of the mixed sample: customer ids, a free-text note, the regions and the
    label's classes planted."""
    rows = list(csv.reader((ROOT / "resources/model/mixed_sample.csv").open(encoding="utf-8")))
    head, body = rows[0], rows[1:401]
    out = []
    for i, r in enumerate(body):
        cells = dict(zip(head, r, strict=True))
        cells["customer_id"] = f"{ID}c{i:04d}"
        cells["region"] = f"{DOMAIN}{cells['region']}"
        cells["defaulted"] = f"{DOMAIN}class{cells['defaulted']}"
        out.append([*cells.values(), f"{TEXT}c{i:04d} called on 5 May"])
    _write(path, [*head, f"{SCHEMA}note"], out)


def _predictions(src: Path, path: Path) -> None:
    rows = list(csv.reader(src.open(encoding="utf-8")))
    _write(path, rows[0], [[f"{ID}r{i:04d}", *r[1:]] for i, r in enumerate(rows[1:401])])


def _write(path: Path, header, rows) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def configs(tmp_path: Path, audit: str, records: bool) -> dict:
    """A tiny config of ``audit`` on planted files; ``records``: the user asks for records."""
    name = f"{SCHEMA}name {audit}"
    if audit == "mechanism":         # reads no records: its name is all the user typed
        return dict(audit_type="mechanism", name=name, trials=2000, observations=3)
    if audit == "location":
        _traces(tmp_path / "traces.csv")
        return dict(audit_type="location", name=name, traces=str(tmp_path / "traces.csv"),
                    user_col=f"{SCHEMA}user", aggregate_size=49, test_aggregates=400,
                    shadow_aggregates=200, sweep_targets=1, sweep_test_aggregates=200,
                    attacks=["one_threshold", "two_threshold"], seed=3,
                    list_exposed_ids=records,
                    # asked for records: a person chosen by the id the user typed
                    **({"target": "id", "target_id": f"{ID}u0042"} if records else {}))
    if audit == "aggregates":
        sample = ROOT / "resources" / "aggregates"
        _microdata(sample / "sample_block.csv", tmp_path / "block.csv", 80, "b")
        _microdata(sample / "sample_auxiliary.csv", tmp_path / "aux.csv", 400, "a")
        return dict(audit_type="aggregates", name=name, data=str(tmp_path / "block.csv"),
                    auxiliary=str(tmp_path / "aux.csv"), sensitive="hispanic",
                    release="marginals", fraction=0.0, attacks=["data_only"],
                    membership=False, max_targets=8, n_shadow=300,
                    list_exposed_records=records)
    if audit == "model":
        _training_table(tmp_path / "train.csv")
        return dict(audit_type="model", name=name, data=str(tmp_path / "train.csv"),
                    label="defaulted", epochs=5, shadow_models=2, reference_models=2,
                    attacks=["btta", "confidence", "lira_online"], exposed_count=5,
                    list_exposed_records=records)
    sample = ROOT / "resources" / "model"          # model-predictions
    _predictions(sample / "sample_predictions.csv", tmp_path / "pred.csv")
    _predictions(sample / "sample_shadow_predictions.csv", tmp_path / "shadow.csv")
    return dict(audit_type="model", name=name, source="predictions",
                predictions=str(tmp_path / "pred.csv"),
                reference_predictions=str(tmp_path / "shadow.csv"),
                attacks=["btta", "confidence", "modified_entropy"], exposed_count=5,
                list_exposed_records=records)


# --------------------------------------------------------------------------- the audits

AUDITS = ["mechanism", "location", "aggregates", "model", "model-predictions"]


@pytest.mark.parametrize("audit", AUDITS)
def test_planted_values_stay_out_unless_records_are_asked_for(audit, tmp_path, run_cli):
    """By default no planted personal value anywhere, and nothing about an exposed record;
    asked for (audit and report), the exposed records' values are printed — nowhere else —
    and the same result written without records holds none of them."""
    code, seen, out = run_cli(configs(tmp_path, audit, records=False))
    assert code == 0, seen["stdout/stderr"]
    bad = leaks(seen)
    assert not bad, f"{audit}: personal values leaked: {bad}"
    bad = leaks(exposed_parts(out), PLANTED)
    assert not bad, f"{audit}: exposed records described: {bad}"
    # The scanner reads every output: the schema-level names the user typed reach them all.
    for where in ("result.json", "config.toml", "report.pdf (text)", "report.pdf (objects)"):
        assert found(SCHEMA, seen[where]), f"{audit}: the audit's name is not in {where}"
    if audit == "mechanism":
        return

    code, seen, out = run_cli(configs(tmp_path, audit, records=True), "--include-records")
    assert code == 0, seen["stdout/stderr"]
    # config.toml is what the user typed (here the target's id): it reproduces the run. The
    # predictions audit lists members by row: its records are nowhere, even when asked.
    asked = ("result.json", "report.pdf", "config.toml") if audit != "model-predictions" else ()
    others = {where: text for where, text in seen.items() if not where.startswith(asked)}
    bad = leaks(others)
    assert not bad, f"{audit}: records outside the outputs they were asked for: {bad}"
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    report = exposed_parts(out)["report"]
    missing = [v for v in listed_values(audit, result) if not shows(v, report)]
    assert not missing, f"{audit}: listed records missing from the report: {missing}"

    from engine.report import write_report

    write_report(result, out / "report.pdf")           # the same result, without records
    text, objects = pdf_texts(out / "report.pdf")
    bad = leaks({"text": text, "objects": objects})
    assert not bad, f"{audit}: a report without records: {bad}"
    bad = leaks({"report": exposed_parts(out)["report"]}, PLANTED)
    assert not bad, f"{audit}: a report without records describes them: {bad}"


def exposed_parts(out: Path) -> dict[str, str]:
    """What an audit's outputs say about individual people: result.json's exposed records and
    target, and the report's section 9 and "The target" (section 3, location audit)."""
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    text, _ = pdf_texts(out / "report.pdf")
    m = SECTION_9.search(text)
    assert m, "section 9 not found in the report"
    target = re.search(r"The target(.*?)4\. Method", text, re.S)
    return {"result.json": json.dumps([result.get("exposed_records"),
                                       (result.get("theory") or {}).get("target")],
                                      ensure_ascii=False),
            "report": m.group(1) + (target.group(1) if target else "")}


def listed_values(audit: str, result: dict) -> list[str]:
    """The planted values of the records a result lists (it was asked to)."""
    records = result["exposed_records"]
    assert records, f"{audit}: no exposed record to list at this size"
    if audit == "location":
        values = [p["id"] for p in records[0]["people"]] + [result["theory"]["target"]["id"]]
    elif audit == "aggregates":
        values = [v for r in records for v in [*r["record"].values(), r["value"]]]
    elif audit == "model":
        values = [r["label"] for r in records]
    else:                       # predictions: members are listed by row
        assert all("row" in r for r in records)
        values = []
    return [v for v in values if v.startswith(PLANTED)]


def test_the_scanner_reads_text_drawn_in_a_chart(tmp_path):
    """A planted value drawn only in a chart (not in any paragraph) is found, and one written
    nowhere is not: the scan can fail."""
    from reportlab.graphics.shapes import Drawing
    from reportlab.platypus import SimpleDocTemplate

    from engine.report import styles as st
    from engine.report.charts import text

    st.register_fonts()
    d = Drawing(300, 60)
    d.add(text(10, 20, f"legend {ID}chart7 (k = 3)", 8))
    path = tmp_path / "chart.pdf"
    SimpleDocTemplate(str(path)).build([d])
    page, objects = pdf_texts(path)
    assert found(ID, page) == [f"{ID}chart7"]
    assert not found(TEXT, page + objects)


# --------------------------------------------------------------------------- error messages

def _bad(tmp_path: Path, name: str, header: list[str], rows: list[list]) -> Path:
    path = tmp_path / name
    _write(path, header, rows)
    return path


def _error(fn, *args, **kw) -> str:
    with pytest.raises(InputError) as info:
        fn(*args, **kw)
    # What the command line shows: the sentence, then the config file's line when the error
    # names a setting (issue 32 item 7: the key beside the sentence, not in it).
    return " ".join(filter(None, [info.value.one_line(), info.value.config_line()]))


def bad_inputs(tmp_path: Path):
    """(what, message, [phrases it must hold]) for bad files carrying planted values."""
    from engine.aggregates.queries import Domain, load_published_rows
    from engine.data.microdata import Schema, load_microdata_csv
    from engine.data.predictions import load_predictions_csv, match_predictions
    from engine.data.tabular import load_tabular_csv
    from engine.data.traces import find_user, load_traces_csv

    long = f"{ID}Jane Doe, 3 Elm Street"
    described = f"a {len(long)}-character text"        # how a cell like it is shown
    traces = _bad(tmp_path, "traces.csv", ["user_id", "site", "epoch"],
                  [[f"{ID}a", "s1", 0], [f"{ID}b", "s2", long], [f"{ID}c", "s1", 1]])
    yield ("traces: text in the epoch column",
           _error(load_traces_csv, traces),
           ["traces.csv", "row 3", "column 'epoch'", described, "number epochs"])
    dup = _bad(tmp_path, "dup.csv", ["user_id", "site", "epoch"],
               [[f"{ID}a", f"{DOMAIN}s1", 0], [f"{ID}b", "s2", 0], [f"{ID}a", f"{DOMAIN}s1", 0]])
    yield ("traces: a repeated row",
           _error(load_traces_csv, dup), ["dup.csv", "rows 2 and 4", "remove the duplicates"])
    good = load_traces_csv(_bad(tmp_path, "ok.csv", ["user_id", "site", "epoch"],
                                [[f"{ID}a", "s1", 0], [f"{ID}b", "s2", 1]]))
    yield ("traces: a target id that is not there",
           _error(find_user, good, f"{ID}nobody"), ["target_id", "ok.csv", "copy it"])
    schema = Schema.from_dict({"columns": [
        {"name": "id", "role": "ignore", "kind": "categorical"},
        {"name": "age", "kind": "integer", "low": 0, "high": 120},
        {"name": "town", "kind": "categorical", "categories": ["North", "South"]},
        {"name": "sick", "role": "sensitive", "kind": "categorical",
         "categories": ["yes", "no"]}]})
    header = ["id", "age", "town", "sick"]
    micro = _bad(tmp_path, "micro.csv", header, [[f"{ID}1", 30, "North", "yes"],
                                                  [f"{ID}2", long, "South", "no"]])
    yield ("microdata: text in an integer column", _error(load_microdata_csv, micro, schema),
           ["micro.csv", "row 3", "column 'age'", described, "write a plain number"])
    micro = _bad(tmp_path, "micro2.csv", header, [[f"{ID}1", 30, f"{DOMAIN}Westend", "yes"],
                                                   [f"{ID}2", 40, "South", "no"]])
    yield ("microdata: a value outside the categories",
           _error(load_microdata_csv, micro, schema),
           ["micro2.csv", "row 2", "column 'town'", "'North', 'South'", "correct the value"])
    micro = _bad(tmp_path, "micro3.csv", header, [[f"{ID}1", "1,5", "North", "yes"],
                                                   [f"{ID}2", 40, "South", "no"]])
    yield ("microdata: a decimal comma is quoted (it is the fix)",
           _error(load_microdata_csv, micro, schema),
           ["micro3.csv", "row 2", "column 'age'", "'1,5'", "decimal comma"])
    table = _bad(tmp_path, "train.csv", ["id", "age", "label"],
                 [[f"{ID}{i % 5}", long if i == 3 else i, i % 2] for i in range(10)])
    yield ("training table: text in a numeric feature", _error(load_tabular_csv, table),
           ["train.csv", "row 5", "column 'age'", described, "write a plain number"])
    table = _bad(tmp_path, "train2.csv", ["id", "age", "label"],
                 [[f"{ID}{i % 5}", i, i % 2] for i in range(10)])
    yield ("training table: a duplicated id", _error(load_tabular_csv, table, id_column="id"),
           ["train2.csv", "rows 2 and 7", "column 'id'", "correct one of them"])
    table = _bad(tmp_path, "train3.csv", ["age", "label"],
                 [[i, f"{DOMAIN}rare" if i == 4 else i % 2] for i in range(10)])
    yield ("training table: a class with one record", _error(load_tabular_csv, table),
           ["train3.csv", "row 6", "label column 'label'", "add records of that class"])
    head = ["id", "label", "member", "p_a", "p_b"]
    pred = _bad(tmp_path, "pred.csv", head, [[f"{ID}1", "a", 1, 0.5, 0.5],
                                             [f"{ID}2", "b", 0, long, 0.5]])
    yield ("predictions: text for a probability", _error(load_predictions_csv, pred),
           ["pred.csv", "row 3", "column 'p_a'", described, "write a plain number"])
    pred = _bad(tmp_path, "pred2.csv", head, [[f"{ID}1", "a", 1, 0.5, 0.5],
                                              [f"{ID}1", "b", 0, 0.5, 0.5]])
    yield ("predictions: a duplicated id", _error(load_predictions_csv, pred, id_col="id"),
           ["pred2.csv", "rows 2 and 3", "column 'id'", "correct one of them"])
    pred = _bad(tmp_path, "pred3.csv", head, [[f"{ID}1", "a", 1, 0.5, 0.5],
                                              [f"{ID}2", f"{DOMAIN}cat", 0, 0.5, 0.5]])
    yield ("predictions: a label that names no class", _error(load_predictions_csv, pred),
           ["pred3.csv", "row 3", "column 'label'", "correct the label"])
    ok = load_predictions_csv(_bad(tmp_path, "pred4.csv", head,
                                   [[f"{ID}1", "a", 1, 0.6, 0.4], [f"{ID}2", "b", 0, 0.5, 0.5]]),
                              id_col="id")
    yield ("predictions: data ids without a prediction",
           _error(match_predictions, ok, ids=[f"{ID}1", f"{ID}2", f"{ID}3"]),
           ["pred4.csv", "record number 3", "add its row"])
    latin = tmp_path / "latin.csv"
    latin.write_bytes(f"user_id,site,epoch\n{ID}Müller,s1,0\n".encode("cp1252"))
    yield ("a file that is not UTF-8", _error(load_traces_csv, latin),
           ["latin.csv", "row 2", "'ü'", "save it as UTF-8"])
    published = _bad(tmp_path, "published.csv", ["sex", "count"], [["F", long], ["M", 3]])
    yield ("published table: text for a count",
           _error(load_published_rows, published, Domain(("sex",), (("F", "M"),))),
           ["published.csv", "row 2", "column 'count'", described])


def test_error_messages_name_the_place_and_the_fix_without_the_records(tmp_path):
    for what, message, phrases in bad_inputs(tmp_path):
        assert not found(ID, message) and not found(TEXT, message) \
            and not found(DOMAIN, message), f"{what}: {message}"
        for phrase in phrases:
            assert phrase in message, f"{what}: {phrase!r} not in: {message}"


def test_cell_text_quotes_only_what_is_the_fix():
    for value in ("1,5", "1 000", "52,000", "12 %", "n/a", "NaN", "-", "inf", "x", "M", "2.5"):
        assert cell_text(value) == repr(value), value
    assert cell_text("Jane Doe") == "a 8-character text of letters"
    assert cell_text("2024-13-45") == "a 10-character text of digits and other characters"
    assert cell_text("C-1042 b") == "a 8-character text of letters, digits and other characters"
    assert cell_text("123456") == "a 6-character number"


def test_a_bad_file_on_the_command_line(tmp_path, run_cli):
    """The one line on stderr, the log and the output folder hold no planted value."""
    traces = _bad(tmp_path, "traces.csv", ["user_id", "site", "epoch"],
                  [[f"{ID}a", "s1", 0], [f"{ID}b", "s2", f"{TEXT} at home"]])
    code, seen, _ = run_cli({"audit_type": "location", "traces": str(traces)})
    assert code == 2
    assert "row 3, column 'epoch'" in seen["stdout/stderr"]
    assert not leaks(seen), leaks(seen)


def test_an_internal_error_is_reported_without_the_values_in_its_message(tmp_path, run_cli,
                                                                        monkeypatch):
    """A bug whose exception quotes a record (as pandas and numpy do) exits 1 with one line
    and no planted value; the traceback for support keeps where it happened."""
    from engine.audits import location

    def broken(*args, **kw):
        raise ValueError(f"could not convert string to float: '{ID}Jane Doe'")

    monkeypatch.setattr(location, "exposed_people", broken)
    traces = tmp_path / "traces.csv"
    _traces(traces)
    config = configs(tmp_path, "location", records=False)
    code, seen, _ = run_cli(config)
    assert code == 1
    assert "internal error: ValueError: could not convert string to float: '…'" \
        in seen["stdout/stderr"]
    assert not leaks(seen), leaks(seen)
    try:
        broken()
    except ValueError as exc:
        assert not found(ID, internal_error_text(exc) + internal_traceback(exc))
        assert "in broken" in internal_traceback(exc)
