"""End to end: a real (small) mechanism audit rendered as a PDF, text checked against it."""

from __future__ import annotations

import pytest

from engine.report import write_report
from engine.report.styles import fmt3, fmt_eps
from tests.report.test_pdf import pdf_text

mechanism = pytest.importorskip("engine.audits.mechanism")


def test_real_result_renders(tmp_path):
    config = mechanism.MechanismConfig(name="Small <real> run & check", trials=2000)
    result = mechanism.run(config).to_dict()
    text = pdf_text(write_report(result, tmp_path / "report.pdf"))
    assert "Small <real> run & check" in text
    assert result["verdict"]["level"].upper() + " RISK" in text
    assert fmt_eps(result["theory"]["epsilon_total"]) in text
    for a in result["attacks"]:
        assert fmt3(a["auc"]) in text
    assert "not measurable with 2 000 non-members" in text   # TPR at 0.1 % needs 3 000
    assert "no individual records are involved" in text.lower()
