"""The verdict's measured error rates reach the user (issue 32 item 3): the bundled file has a
null and a leak measurement for every audit type, the report's "What this audit cannot tell"
section quotes them, and the docs carry the file's numbers (the claims test
tests/claims/test_verdict_error_rates.py checks the file equals what the games give)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import error_rates as er
from engine.report import write_report
from engine.report.sections import verdict_error_rate_limitations
from tests.report.test_pdf import pdf_text

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "methods" / "intervals.md", ROOT / "docs" / "user_guide.md")


@pytest.mark.parametrize("audit_type", er.AUDIT_TYPES)
def test_each_audit_type_has_null_and_leak_rates_and_a_sentence(audit_type):
    rates = er.error_rates(audit_type)
    assert rates is not None
    for kind in ("null", "leak"):
        pooled = rates[kind]
        assert pooled and pooled["games"] == sum(c["games"] for c in pooled["cases"])
        assert pooled["count"] == sum(c["count"] for c in pooled["cases"])
        for c in pooled["cases"]:
            assert sum(c["levels"].values()) == c["games"]
            assert c["ci95"][0] <= c["rate"] <= c["ci95"][1]
    text = er.sentence(audit_type)
    null, leak = rates["null"], rates["leak"]
    assert (f"On {null['games']} releases that carry nothing about the people, the verdict "
            f"said more than low risk in {null['count']} ({er._pct(null['rate'])}") in text
    expected = " or ".join(sorted({c["expected_level"] for c in leak["cases"]}))
    assert f"reached {expected} risk in {leak['count']} ({er._pct(leak['rate'])}" in text
    # The report's section 8 bullet is that sentence; no config key or snake_case name in it.
    assert verdict_error_rate_limitations({"audit_type": audit_type}) == [text]
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), text


def test_the_report_prints_the_rates(tmp_path, mechanism_result):
    text = pdf_text(write_report(mechanism_result, tmp_path / "report.pdf"))
    section8 = text[text.find("What this audit cannot tell"):]
    assert re.sub(r"\s+", " ", er.sentence("mechanism")) in section8


def test_without_the_file_the_report_says_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(er, "ERROR_RATES_FILE", tmp_path / "missing.json")
    er._document.cache_clear()
    try:
        assert er.error_rates("model") is None and er.sentence("model") is None
        assert verdict_error_rate_limitations({"audit_type": "model"}) == []
    finally:
        er._document.cache_clear()


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_docs_quote_the_bundled_numbers(doc):
    """Both documents carry the table made from the bundled file, row for row, and no other
    version of it (scripts/verdict_error_rates.py writes it after measuring)."""
    text = doc.read_text(encoding="utf-8")
    table = er.markdown_table()
    assert table.count("\n") >= 2 + 10 - 1          # header, rule and one row per case
    assert f"<!-- verdict-error-rates:start -->\n{table}\n<!-- verdict-error-rates:end -->" \
        in text
    assert "How often the verdict is wrong" in text
