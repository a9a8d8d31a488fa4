"""What was assumed to read a file reaches the user (issue 11: "Where the data is usable (BOM,
CRLF, ;), load it correctly instead and say what was assumed"): the notes of
engine.data.text_input travel with the file's identity into result.json's ``inputs``, the
result's warnings (the results page and the report) and the page's status line."""

from __future__ import annotations

import codecs
import time

from engine.data.text_input import read_notes, read_text
from engine.results.result import input_entry, input_warnings


def test_notes_are_kept_per_file_and_forgotten_when_it_changes(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("a;b\n1;2\n", encoding="utf-8")
    read_text(path, sniff=True)
    assert any("semicolons" in n for n in read_notes(path))
    time.sleep(0.01)
    path.write_text("a,b\n1,2\n", encoding="utf-8")          # fixed: no note any more
    assert read_notes(path) == []                            # another identity: nothing known
    read_text(path, sniff=True)
    assert read_notes(path) == []
    wide = tmp_path / "wide.csv"
    wide.write_bytes(codecs.BOM_UTF16_LE + "a,b\n1,2\n".encode("utf-16-le"))
    read_text(wide, sniff=True)
    assert read_notes(wide) == ["read as UTF-16 text (it starts with a byte-order mark)"]


def test_input_entries_and_warnings_say_it(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("a\tb\n1\t2\n", encoding="utf-8")
    read_text(path, sniff=True)
    entry = input_entry(path, rows=1, role="training data")
    assert entry["rows"] == 1 and len(entry["sha256"]) == 64
    assert entry["read_as"] == ["its columns are separated by tabs, not commas; read with that "
                                "separator"]
    assert input_warnings([entry]) == ["people.csv: its columns are separated by tabs, not "
                                       "commas; read with that separator."]
    plain = tmp_path / "plain.csv"
    plain.write_text("a,b\n1,2\n", encoding="utf-8")
    read_text(plain, sniff=True)
    assert "read_as" not in input_entry(plain) and input_warnings([input_entry(plain)]) == []


def test_an_audit_of_a_semicolon_file_says_how_it_read_it(tmp_path):
    from engine.audits.model import ModelConfig, run
    from engine.data.purchase import generate_mixed_table

    frame = generate_mixed_table(0, 300)
    path = tmp_path / "credit.csv"
    frame.to_csv(path, sep=";", index=False)
    result = run(ModelConfig(data=str(path), label="defaulted", epochs=2, shadow_models=2,
                             attacks=("confidence",)))
    assert result.inputs[0]["read_as"] == ["its columns are separated by semicolons (;), not "
                                           "commas; read with that separator"]
    assert "credit.csv: its columns are separated by semicolons (;)" in " ".join(
        result.warnings)
    assert result.to_dict()["inputs"][0]["read_as"]


def test_the_report_prints_it_beside_the_input_files(tmp_path):
    import re

    from pypdf import PdfReader

    from engine.report import write_report

    path = tmp_path / "people.csv"
    path.write_text("a;b\n1;2\n", encoding="utf-8")
    read_text(path, sniff=True)
    from dataclasses import replace

    from engine.audits.registry import demo_config, run_audit
    result = run_audit(replace(demo_config("mechanism"), trials=1000)).to_dict()
    result["inputs"] = [input_entry(path, rows=1, role="data")]
    write_report(result, tmp_path / "r.pdf")
    text = re.sub(r"\s+", " ", " ".join(p.extract_text() or ""
                                       for p in PdfReader(tmp_path / "r.pdf").pages))
    assert "people.csv was read with an assumption: its columns are separated by semicolons" \
        in text
