"""Report text is escaped whatever the user typed (issue 11: "fuzz the report with hostile
strings: reportlab markup, control characters, right-to-left marks, 10,000-character names").

Every audit type's report is written from a result whose free-text fields — the audit's name,
the summary, the warnings, every attack's label — hold hostile strings; the PDF must be written
(never a reportlab parse error), markup must come out as the characters typed (no bold, no
link, no font change), control characters must not reach the page, and a 10,000-character name
must not break the layout."""

from __future__ import annotations

import copy
import re

import pytest

from engine.report import write_report
from tests.report.test_pdf import pdf_text

HOSTILE = [
    "<b>bold</b> <font size=40>big</font> <a href='http://x'>link</a> & &amp; &#x41; <para>",
    "Tab\tbell\x07null\x00escape\x1b[31mred form-feed\x0cend",
    "\u202eRTL override\u202c \u200fRLM\u200f \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627",
    "Unclosed <b <i> <!-- comment --> <![CDATA[x]]> {{template}} ${var} %s %d",
    "Long " + "x" * 10_000,
]
MARK = "HOSTILE-MARK"


def _poison(result: dict) -> dict:
    r = copy.deepcopy(result)
    r["name"] = MARK + " " + HOSTILE[0] + HOSTILE[4]
    r["summary"] = HOSTILE[1] + " " + HOSTILE[2] + " " + r.get("summary", "")
    r["warnings"] = list(r.get("warnings") or []) + HOSTILE[:4]
    for i, a in enumerate(r.get("attacks") or []):
        a["label"] = HOSTILE[i % 4] + " " + a.get("label", "")
    r.setdefault("config", {})["name"] = r["name"]
    return r


def _mechanism():
    from engine.audits.mechanism import demo_config, run

    return run(demo_config()).to_dict()


def _model():
    from tests.engine.test_report_model import model_result

    return model_result()


def _aggregates():
    from tests.engine.test_report_aggregates import contract_result

    return contract_result()


def _location():
    from engine.audits import location
    from tests.report.test_location_report import _config

    return location.run(_config()).to_dict()


@pytest.mark.parametrize("build", [_mechanism, _model, _aggregates, _location],
                         ids=["mechanism", "model", "aggregates", "location"])
def test_hostile_strings_are_printed_as_typed(build, tmp_path):
    result = _poison(build())
    path = tmp_path / "report.pdf"
    write_report(result, path)
    text = pdf_text(path)
    flat = re.sub(r"\s+", "", text)
    assert MARK in text
    assert "<b>bold</b>" in flat, "markup was interpreted instead of printed"
    assert "<fontsize=40>big</font>" in flat
    assert "\x00" not in text and "\x07" not in text and "\x1b" not in text


def test_a_gpu_run_says_its_last_digits_may_differ(tmp_path):
    result = _model()
    write_report(result, tmp_path / "cpu.pdf")
    assert "may differ in the last digits" not in pdf_text(tmp_path / "cpu.pdf")
    result["software"] = {**(result.get("software") or {}), "device": "cuda:0"}
    write_report(result, tmp_path / "gpu.pdf")
    assert "may differ in the last digits" in " ".join(pdf_text(tmp_path / "gpu.pdf").split())


def test_pdf_metadata_holds_no_invisible_or_control_characters(tmp_path):
    """Issue 18 (6): the page text was clean but the document's Title kept U+202E, U+202C and
    NUL from the audit's name — a PDF viewer's title bar and a file manager show the Title, and a
    right-to-left override there reorders the name a reader sees."""
    from pypdf import PdfReader

    result = _mechanism()
    name = "Q3\u202ecod.exe\u202c release\x00 zero\u200bwidth\nsecond line\r\u2028third\ufeff"
    result["name"] = result.setdefault("config", {})["name"] = name
    path = tmp_path / "report.pdf"
    write_report(result, path)
    meta = PdfReader(str(path)).metadata
    fields = {key: str(meta.get(key) or "") for key in ("/Title", "/Subject", "/Author",
                                                          "/Keywords", "/Creator")}
    assert "Q3cod.exe release zerowidth second line third" in fields["/Title"]
    for key, value in fields.items():
        for bad in ("\u202e", "\u202c", "\x00", "\u200b", "\n", "\r", "\u2028", "\ufeff"):
            assert bad not in value, f"{key} holds {bad!r}"
