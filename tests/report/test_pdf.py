"""The PDF report: it builds, and its text carries the sections and numbers of the result."""

from __future__ import annotations

import re

import pytest
from pypdf import PdfReader

from engine.report import write_report
from engine.report.sections import SECTION_TITLES
from engine.report.styles import fmt3, fmt_eps, fmt_pct


def pdf_text(path) -> str:
    """All page text, whitespace collapsed (pypdf breaks lines wherever the layout does)."""
    reader = PdfReader(str(path))
    return re.sub(r"\s+", " ", " ".join(p.extract_text() or "" for p in reader.pages))


@pytest.fixture
def written(tmp_path, mechanism_result):
    path = write_report(mechanism_result, tmp_path / "report.pdf")
    return path, pdf_text(path), mechanism_result


def test_writes_a_pdf_and_returns_its_path(written, tmp_path):
    path, _, _ = written
    assert path == tmp_path / "report.pdf"
    assert path.read_bytes()[:5] == b"%PDF-"
    assert len(PdfReader(str(path)).pages) >= 6


def test_every_section_heading_in_order(written):
    _, text, _ = written
    positions = [text.find(f"{i}. {title}") for i, title in enumerate(SECTION_TITLES, 1)]
    assert all(p >= 0 for p in positions), dict(zip(SECTION_TITLES, positions, strict=True))
    assert positions == sorted(positions)


def test_verdict_summary_and_key_numbers(written):
    _, text, result = written
    level = result["verdict"]["level"]
    assert f"{level.upper()} RISK" in text
    assert f"Verdict: {level.upper()} risk" in text
    assert re.sub(r"\s+", " ", result["summary"]) in text
    assert fmt_eps(result["theory"]["epsilon_total"]) in text
    assert "Composed ε over k observations" in text
    for a in result["attacks"]:
        assert fmt3(a["auc"]) in text
        assert fmt_pct(a["accuracy"]) in text
    assert "Clopper–Pearson" in text
    for rule in result["verdict"]["policy_rules"]:
        assert rule in text


def test_not_measurable_is_said(written):
    _, text, result = written
    rows = [r for a in result["attacks"] for r in a["tpr_at_fpr"]]
    assert any(r["measurable"] is False for r in rows)      # the fixture has N = 2 000
    assert "not measurable with 2 000 non-members" in text


def test_measurable_everywhere_has_no_not_measurable(tmp_path, mechanism_result):
    for a in mechanism_result["attacks"]:
        for r in a["tpr_at_fpr"]:
            r["measurable"] = True
    mechanism_result["warnings"] = []
    text = pdf_text(write_report(mechanism_result, tmp_path / "r.pdf"))
    assert "not measurable" not in text


def test_footer_and_page_numbers_on_each_page(written):
    path, _, result = written
    reader = PdfReader(str(path))
    n = len(reader.pages)
    for i, page in enumerate(reader.pages, 1):
        t = re.sub(r"\s+", " ", page.extract_text())
        assert f"Page {i} of {n}" in t
        assert f"Privacy Risk Auditor {result['software']['app']} — " in t


def test_user_text_is_escaped_not_parsed(tmp_path, mechanism_result):
    nasty = "Audit <b>&amp; <i>unclosed & co</b>"
    mechanism_result["name"] = nasty
    mechanism_result["config"]["name"] = nasty
    mechanism_result["warnings"] = ["Warning with <font name='x'>markup</font> & <br/> tags"]
    mechanism_result["attacks"][0]["label"] = "Attack <script> & more"
    path = write_report(mechanism_result, tmp_path / "nasty.pdf")
    text = pdf_text(path)
    assert "Audit <b>&amp; <i>unclosed & co</b>" in text
    assert "Warning with <font name='x'>markup</font> & <br/> tags" in text
    assert "Attack <script> & more" in text


def test_inverse_not_feasible_and_gaussian_without_worst_case(tmp_path, mechanism_result):
    th = mechanism_result["theory"]
    th["inverse"].update(feasible=False, max_epsilon_per_observation=None, min_noise_scale=None)
    th["worst_case_dp"] = None
    th["composed"].update(epsilon_kov_worst_case=None, epsilon_basic=None, epsilon_gdp=3.2,
                          gdp_mu=1.1)
    text = pdf_text(write_report(mechanism_result, tmp_path / "g.pdf"))
    assert "no setting achieves this" in text
    assert "Gaussian DP (closed form)" in text
    assert "Worst case of k-fold" not in text


def test_missing_and_null_values_do_not_crash(tmp_path, mechanism_result):
    a = mechanism_result["attacks"][0]
    a["auc_ci"] = None
    a["epsilon_lower_bound"]["value"] = None        # result.py turns inf/NaN into None
    a["roc"] = {"fpr": [], "tpr": []}
    mechanism_result["theory"]["sweep"] = None
    mechanism_result["runtime_s"] = None
    mechanism_result["created"] = "not a date"
    assert write_report(mechanism_result, tmp_path / "m.pdf").exists()


def test_other_audit_types_use_generic_sections(tmp_path, mechanism_result):
    r = dict(mechanism_result, audit_type="location", theory={},
             inputs=[{"path": "data/traces <1>.csv", "sha256": "ab" * 32, "rows": 1234}],
             exposed_records=[{"id": "user-000123", "reason": "unique trajectory"},
                              {"id": "user-000456", "reason": "rare place"}])
    text = pdf_text(write_report(r, tmp_path / "loc.pdf"))
    assert "data/traces <1>.csv" in text
    assert "2 records were flagged" in text
    assert "user-000123" not in text and "us" in text      # redacted by default
    text = pdf_text(write_report(r, tmp_path / "loc2.pdf", include_records=True))
    assert "user-000123" in text


def test_mechanism_audit_says_no_records(written):
    _, text, _ = written
    assert "no individual records are involved" in text.lower()
    assert "python main.py run CONFIG.toml --out DIR" in text


def test_jeffreys_bound_is_labelled_as_approximate(tmp_path):
    from engine.audits.mechanism import MechanismConfig, run
    from engine.report import write_report

    result = run(MechanismConfig(trials=2000, observations=2, bound_interval="jeffreys")).to_dict()
    path = write_report(result, tmp_path / "j.pdf")
    text = " ".join(" ".join(p.extract_text().split()) for p in __import__("pypdf").PdfReader(
        str(path)).pages)
    assert "Jeffreys (approximate)" in text
    assert "do not guarantee coverage" in text
