"""End to end: a real (small) mechanism audit rendered as a PDF, text checked against it."""

from __future__ import annotations

from engine.audits import mechanism
from engine.report import write_report
from engine.report.styles import fmt3, fmt_eps
from tests.report.test_pdf import pdf_text


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


def test_narrow_accounting_bracket_prints_distinct_ends(tmp_path):
    import re

    result = mechanism.run(mechanism.MechanismConfig(trials=1000)).to_dict()
    comp = result["theory"]["composed"]
    assert f"{comp['epsilon_pld_optimistic']:.3g}" == f"{comp['epsilon_pld_pessimistic']:.3g}"
    text = pdf_text(write_report(result, tmp_path / "r.pdf"))
    lo, hi = re.search(r"brackets the composed ε between (\d+(?:\.\d+)?) and (\d+(?:\.\d+)?)", text).groups()
    assert lo != hi and float(lo) <= float(hi)


def test_gaussian_audit_reports_the_labelled_gdp_heuristic_bound(tmp_path):
    result = mechanism.run(mechanism.MechanismConfig(mechanism="gaussian", trials=2000)).to_dict()
    gdp = result["attacks"][0]["details"]["epsilon_lower_bound_gdp"]
    assert gdp["heuristic"] is True
    text = pdf_text(write_report(result, tmp_path / "g.pdf"))
    assert "Gaussian-DP heuristic" in text and fmt_eps(gdp["value"]) in text
    laplace = mechanism.run(mechanism.MechanismConfig(trials=2000)).to_dict()
    assert "epsilon_lower_bound_gdp" not in laplace["attacks"][0]["details"]
    assert "Gaussian-DP heuristic" not in pdf_text(write_report(laplace, tmp_path / "l.pdf"))


def test_tpr_intervals_in_the_report_contain_the_exact_value_they_sit_beside(tmp_path):
    """The demo's defect: "exact 35.16 %" beside "37.4 % [36.7, 38.0]". The printed interval
    of the optimal attacker's TPR must contain the theory value printed in the same report,
    and the report explains why the interval is wider than a binomial one."""
    import re

    from engine.report.styles import fmt_pct

    result = mechanism.run(mechanism.MechanismConfig(trials=5000)).to_dict()
    text = " ".join(pdf_text(write_report(result, tmp_path / "t.pdf")).split())
    exact = {round(r["fpr"], 12): r["tpr"] for r in
             result["theory"]["optimal_attacker"]["tpr_at_fpr"]}
    for row in result["attacks"][0]["tpr_at_fpr"]:
        if not row["measurable"]:
            continue
        lo, hi = row["tpr_ci"]
        assert lo <= exact[round(row["fpr_target"], 12)] <= hi
        printed = re.search(rf"TPR at {re.escape(fmt_pct(row['fpr_target']))} FPR "
                            rf"{re.escape(fmt_pct(row['tpr']))} \[([\d.]+)%, ([\d.]+)%\]", text)
        assert printed, row
        assert float(printed.group(1)) == round(100 * lo, 1)
        assert float(printed.group(2)) == round(100 * hi, 1)
    assert "Intervals of TPR at a fixed FPR" in text
    assert "threshold's true FPR to lie in" in text
