"""The machine-learning model audit's PDF report section (engine/report/model.py).

Built from a hand-made result.json of the shape engine.audits.model.run() gives (attack entries
from the shared ``evaluate_attack`` on simulated scores, the Thm 2 bound from
engine.attacks.model.btta), so the tests stay fast; a real run takes tens of seconds. Exposed
members carry labels that appear nowhere else, so the text shows whether the report printed
them.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from engine.attacks.model import btta
from engine.auditing import evaluate_attack
from engine.audits.registry import AUDIT_TYPES
from engine.headline import headline
from engine.policy import VerdictPolicy
from engine.report import write_report
from engine.report.model import BOUND_LABEL, ModelSections, bound_auc, bound_tpr
from engine.report.pdf import build_story
from engine.report.sections import SECTION_TITLES
from engine.report.styles import fmt3, fmt_pct

try:
    from pypdf import PdfReader
except ImportError:  # pragma: no cover - pypdf is a test dependency; fall back to the story
    PdfReader = None

N = 400                       # members = non-members
P0, P1 = 0.95, 0.55           # train / test accuracy of the audited model
FPR_TARGETS = (0.001, 0.01, 0.1)
SECRET_LABELS = ["Diagnosis-ZQX-1", "Diagnosis-ZQX-2", "Diagnosis-ZQX-3"]
ROWS = [31337, 4242, 1717]


def _attack(name: str, label: str, scores, member, details: dict) -> dict:
    return evaluate_attack(name, label, scores, member, delta=0.0, fpr_targets=FPR_TARGETS,
                           details=details)


def model_result(*, listed: bool = True, threat: str = "shadow") -> dict:
    from engine.audits.model import ModelConfig

    rng = np.random.default_rng(3)
    member = np.r_[np.ones(N, bool), np.zeros(N, bool)]
    correct = np.where(member, rng.random(2 * N) < P0, rng.random(2 * N) < P1)
    params = btta.BTTAParams(P0, P1, 0.5)
    b_scores, _ = btta.scores_from_correctness(correct, params)
    attacks = [
        _attack("btta", btta.LABEL, b_scores, member,
                {"paper": "001 Alg. 1, §Metrics, Thm 2", "parameters": params.to_dict()}),
        _attack("metric_confidence", "Confidence in the true class, class thresholds "
                "(Song & Mittal; paper 004)", rng.normal(0, 1, 2 * N) + 1.5 * member, member,
                {"paper": "004 §4.4.1", "metric": "confidence"}),
        _attack("rmia_offline", "RMIA offline (Zarifzadeh et al. 2024)",
                rng.normal(0, 1, 2 * N) + 3.0 * member, member,
                {"paper": "Zarifzadeh et al. 2024 (RMIA)"}),
    ]
    policy = VerdictPolicy()
    head = headline(attacks, policy)
    level, reasons = policy.level(head.verdict_tpr_measured, head.verdict_accuracy)
    per_class = [{"class": f"class-{c}", "n_members": 20, "n_non_members": 20,
                  "train_accuracy": 0.95, "train_accuracy_ci": [0.75, 1.0],
                  "test_accuracy": 0.95 - g, "test_accuracy_ci": [0.5, 0.9], "gap": g}
                 for c, g in enumerate([0.1, 0.7, 0.3, 0.65, 0.2])]
    per_class.append({"class": "tiny-class", "n_members": 2, "n_non_members": 1,
                      "train_accuracy": 1.0, "test_accuracy": 0.0, "gap": 1.0})
    cfg = ModelConfig(name="Clinic model <v2> & co", list_exposed_records=listed,
                      shadow_models=8, reference_models=16).to_dict()
    exposed = []
    for rank, (row, lab) in enumerate(zip(ROWS, SECRET_LABELS, strict=True), 1):
        e = {"rank": rank, "row": row, "score": 0.99 - rank / 100, "attack": "rmia_offline"}
        if listed:
            e["label"] = lab
        exposed.append(e)
    theory = {
        "model": {"family": "mlp", "description": "MLP 128 relu, adam lr 0.001, 30 epochs",
                  "train_records": N, "test_records": N, "population_records": 533,
                  "classes": 6, "features": 40, "train_accuracy": P0, "test_accuracy": P1,
                  "device": "cpu", "shadow_models": 8, "reference_models": 16,
                  "training_runtime_s": 1.5, "training_device": "cpu"},
        "threat_model": threat,
        "btta_bound": {"params": params.to_dict(), "expected": btta.expected_metrics(params),
                       "accuracy_bound": btta.accuracy_bound(params),
                       "balanced_accuracy_bound": btta.balanced_accuracy_bound(params),
                       "roc": btta.roc_bound(params),
                       "source": "the model's train/test accuracy (paper 001 Thm 2)"},
        "generalization_gap": {"n_members": N, "n_non_members": N, "train_accuracy": P0,
                               "train_accuracy_ci": [0.93, 0.97], "test_accuracy": P1,
                               "test_accuracy_ci": [0.50, 0.60], "gap": P0 - P1,
                               "per_class": per_class},
    }
    return {
        "schema_version": 1, "audit_type": "model", "name": cfg["name"], "seed": 7,
        "created": "2026-11-22T02:31:10+00:00", "config": cfg, "config_sha256": "cd" * 32,
        "inputs": [], "software": {"app": "0.1.0", "python": "3.11", "device": "cpu"},
        "runtime_s": 80.0,
        "summary": "The model is right on 95% of its training records and 55% of others.",
        "attacks": attacks, "baselines": [], "theory": theory, "exposed_records": exposed,
        "verdict": {"level": level, "policy": policy.name, "policy_rules": policy.rules(),
                    "reasons": reasons},
        "warnings": ["LiRA and RMIA need reference models trained like the audited one."],
    }


def pdf_text(result: dict, path, include_records: bool = False) -> str:
    write_report(result, path, include_records=include_records)
    assert path.read_bytes()[:5] == b"%PDF-"
    if PdfReader is None:  # pragma: no cover
        return " ".join(str(f) for f in build_story(result, include_records))
    reader = PdfReader(str(path))
    return re.sub(r"\s+", " ", " ".join(p.extract_text() or "" for p in reader.pages))


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    result = model_result()
    return result, pdf_text(result, tmp_path_factory.mktemp("model") / "full.pdf")


def test_registered_for_the_model_audit():
    assert AUDIT_TYPES["model"].sections() is ModelSections


def test_sections_in_order_with_the_model_subsections(full):
    result, text = full
    at = [text.find(f"{i}. {title}") for i, title in enumerate(SECTION_TITLES, 1)]
    assert all(p >= 0 for p in at) and at == sorted(at), dict(zip(SECTION_TITLES, at,
                                                                  strict=True))
    assert "Machine-learning model membership audit" in text
    assert "Clinic model <v2> & co" in text
    ordered = ["What was audited:", "What the attacker knows (shadow threat model)",
               "The weakest informed attacker",
               "BTTA and the generalization-gap bound (paper 001)", "How the attacks are measured",
               "How well each attack tells members from non-members", "ROC curves",
               "The strongest attack against the Thm 2 bound", "Generalization gap",
               "Each attack against the Thm 2 bound"]
    pos = [text.find(s) for s in ordered]
    assert all(p >= 0 for p in pos), dict(zip(ordered, pos, strict=True))
    assert pos == sorted(pos), dict(zip(ordered, pos, strict=True))
    # The DP-mechanism wording of the shared sections does not appear.
    assert "simulated games" not in text.split("8. Limitations")[0]


def test_model_split_accuracies_and_bound(full):
    result, text = full
    th = result["theory"]
    assert "trained on 400 records" in text and "400 records it never saw" in text
    assert f"{fmt_pct(P0)} of its training records correctly and {fmt_pct(P1)}" in text
    assert "generalization gap of 40.0 percentage points" in text
    assert "Attacker's population 533" in text
    bb = th["btta_bound"]
    assert bb["roc"]["statement"] in text
    assert f"exceeds {fmt_pct(bb['balanced_accuracy_bound'])} (paper 001 Thm 2)" in text
    # The bound on the ROC is the polyline (0,0)-(p1,p0)-(1,1): TPR = FPR·p0/p1 below p1.
    assert bound_tpr(result, 0.01) == pytest.approx(0.01 * P0 / P1)
    assert bound_auc(result) == pytest.approx(0.5 * (1 + P0 - P1))
    assert "Thm 2 bound: knowing only the accuracies" in text
    assert fmt_pct(0.01 * P0 / P1) in text and fmt_pct(0.1 * P0 / P1) in text
    assert f"Verdict: {result['verdict']['level'].upper()} risk" in text
    assert result["warnings"][0] in text


def test_attack_table_and_strongest_against_the_bound(full):
    result, text = full
    for a in result["attacks"]:
        assert fmt3(a["auc"]) in text and fmt_pct(a["accuracy"]) in text
        assert f"[{fmt3(a['auc_ci'][0])}, {fmt3(a['auc_ci'][1])}]" in text
        ten = next(r for r in a["tpr_at_fpr"] if r["fpr_target"] == 0.1)
        assert fmt_pct(ten["tpr"]) in text
        assert f"[{fmt_pct(ten['tpr_ci'][0])}, {fmt_pct(ten['tpr_ci'][1])}]" in text
    assert "TPR at 10.0% FPR" in text and "TPR at 0.1% FPR" in text
    assert "not measurable" in text and "needs at least 3 000 non-members" in text
    best = result["attacks"][2]
    lim = result["theory"]["btta_bound"]["balanced_accuracy_bound"]
    assert f"Comparison-with-other-records attack beats the bound by {100 * (best['accuracy'] - lim):.1f} percentage " \
           "points" in text
    assert "The strongest attack, Comparison-with-other-records attack" in text
    assert "Song & Mittal" in text and "Zarifzadeh et al. 2024" in text
    assert "above" in text and "Empirical ε lower bound" in text


def test_generalization_gap_largest_classes_first(full):
    _, text = full
    assert "95.0% [93.0%, 97.0%] of its 400 members" in text
    gap = text.split("Generalization gap")[1]
    assert gap.find("class-1") < gap.find("class-3") < gap.find("class-2") < gap.find("class-4")
    assert "tiny-class" not in gap.split("6. Comparison")[0]      # too few records to rank
    assert "+70.0 points" in gap


def test_exposed_members_rows_without_labels(full):
    result, text = full
    assert result["exposed_records"][0]["label"] == SECRET_LABELS[0]   # the result has them
    section = text.split("9. Exposed records")[1]
    for row in ROWS:
        assert str(row) in section
    for secret in SECRET_LABELS + ["ZQX"]:
        assert secret not in text
    assert "labels are withheld" in section and "Label (class)" not in section


def test_exposed_members_labels_with_include_records(tmp_path):
    text = pdf_text(model_result(), tmp_path / "listed.pdf", include_records=True)
    for secret in SECRET_LABELS:
        assert secret in text
    assert "Treat this page as personal data" in text


def test_include_records_cannot_add_what_the_result_redacted(tmp_path):
    text = pdf_text(model_result(listed=False), tmp_path / "redacted.pdf",
                    include_records=True)
    assert "ZQX" not in text and "list_exposed_records = false" in text
    assert str(ROWS[0]) in text


def test_supervised_threat_and_sparse_result(tmp_path):
    result = model_result(threat="supervised")
    result["theory"]["model"].update(family="external", population_records=None)
    result["config"].update(source="predictions", predictions="preds <x>.csv")
    text = pdf_text(result, tmp_path / "supervised.pdf")
    assert "supervised inference (paper 004 §4.3)" in text
    assert "predictions file preds <x>.csv" in text
    assert "indicative only" in text
    result["theory"] = {}
    result["attacks"][1]["auc_ci"] = None
    result["exposed_records"] = []
    text = pdf_text(result, tmp_path / "sparse.pdf")
    assert "No members are listed" in text
    result["attacks"] = []
    text = pdf_text(result, tmp_path / "empty.pdf")
    assert "No attack results are recorded" in text


def test_roc_chart_draws_extra_lines():
    from reportlab.graphics.shapes import PolyLine

    from engine.report.charts import roc_chart

    result = model_result()
    curve = result["theory"]["btta_bound"]["roc"]["curve"]

    def lines(d):
        return sum(isinstance(x, PolyLine) for x in d.getContents())

    for log in (False, True):
        plain = roc_chart(result, log_scale=log)
        extra = roc_chart(result, log_scale=log, extra_lines=[(BOUND_LABEL, curve)])
        assert lines(extra) > lines(plain)
    only = roc_chart({"attacks": []}, log_scale=True, extra_lines=[(BOUND_LABEL, curve)])
    assert not any(getattr(x, "text", "") == "no ROC data" for x in only.getContents())


def test_config_reference_lists_every_model_key():
    import dataclasses
    import pathlib

    from engine.audits.model import ModelConfig

    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "config_reference.md"
           ).read_text(encoding="utf-8")
    section = doc.split('## Machine-learning model (`audit_type = "model"`)')[1].split("\n## ")[0]
    for f in dataclasses.fields(ModelConfig):
        if f.name != "policy":
            assert f"| `{f.name}` |" in section, f.name
    assert "| `audit_type` |" in section and "`[policy]`" in section


# --------------------------------------------------------------------------- issue 8 additions

def _with_per_class_and_attribute(result: dict) -> dict:
    for a in result["attacks"]:
        a["per_class"] = [{"class": f"class-{c}", "n_members": 20, "n_non_members": 20,
                           "auc": 0.5 + 0.08 * c, "auc_ci": [0.3 + 0.08 * c, 0.7 + 0.05 * c],
                           "tpr": 0.1 * c, "fpr": 0.05} for c in range(6)]
    gap = result["theory"]["generalization_gap"]
    gap["gap_ci"] = [0.33, 0.47]
    result["theory"]["attribute_inference"] = {
        "feature": "HIV status", "values": ["neg", "pos"], "classifier": "logistic",
        "attacker_records": 533, "majority_share": 0.9, "majority_value": "neg",
        "members": {"model": {"records": N, "accuracy": 0.97, "accuracy_ci": [0.95, 0.98],
                              "auc": 0.9, "auc_ci": [0.85, 0.94]},
                    "baseline": {"records": N, "accuracy": 0.9, "accuracy_ci": [0.87, 0.93],
                                 "auc": 0.6, "auc_ci": [0.52, 0.68]}},
        "non_members": {"model": {"records": N, "accuracy": 0.91, "accuracy_ci": [0.88, 0.94],
                                  "auc": 0.62, "auc_ci": [0.55, 0.7]},
                        "baseline": {"records": N, "accuracy": 0.9,
                                     "accuracy_ci": [0.87, 0.93], "auc": 0.6,
                                     "auc_ci": [0.52, 0.68]}},
        "features_model": "log-probabilities of the model + known features",
        "features_baseline": "known features"}
    return result


def test_per_class_attack_and_attribute_inference_sections(tmp_path):
    text = pdf_text(_with_per_class_and_attribute(model_result()), tmp_path / "more.pdf")
    flat = " ".join(text.split())
    assert "The strongest attack class by class" in flat
    assert "across 6 classes its AUC ranges from 0.500 to 0.900" in flat
    # the class where the strongest attack does best comes first in its table
    assert flat.index("class-5") < flat.index("class-0", flat.index("class by class"))
    assert "Attribute inference: HIV status" in flat
    assert "helps more for its members" in flat
    assert "[33.0, 47.0]" in flat                     # the gap's own interval


def test_loss_only_result_has_no_bound_and_says_why(tmp_path):
    result = model_result(threat="supervised")
    result["config"].update(source="predictions", prediction_kind="loss",
                            predictions="loss.csv")
    theory = result["theory"]
    for key in ("btta_bound", "generalization_gap"):
        theory.pop(key)
    theory["model"] = {"family": "external", "train_records": N, "test_records": N,
                       "classes": 6, "mean_loss_members": 0.25, "mean_loss_non_members": 1.5}
    result["attacks"] = result["attacks"][1:2]
    flat = " ".join(pdf_text(result, tmp_path / "loss.pdf").split())
    assert "No generalization-gap bound" in flat and "0.250 / 1.50" in flat
    assert "sees its loss on the record" in flat
    assert "The weakest informed attacker" not in flat and "Solid black line" not in flat


# --------------------------------------------------------------------------- issue 9: defences

def _risk(auc: float, tpr: float | None, eps: float, fpr: float = 0.01) -> dict:
    """A row's ``risk`` as engine.defences.tradeoff._strongest writes it (trimmed)."""
    entries = [{"fpr": t, "value": tpr if tpr is not None else 0.0,
                "ci": [max(0.0, (tpr or 0) - 0.05), min(1.0, (tpr or 0) + 0.05)],
                "attack": "metric_confidence", "measurable": tpr is not None}
               for t in (0.001, 0.01, 0.1)]
    return {"auc": {"value": auc, "ci": [auc - 0.02, min(1.0, auc + 0.02)], "attack": "shokri"},
            "accuracy": {"value": auc - 0.05, "ci": [auc - 0.08, auc - 0.02],
                         "attack": "metric_confidence"},
            "advantage": {"value": 2 * auc - 1.1, "ci": [2 * auc - 1.2, 2 * auc - 1.0],
                          "attack": "metric_confidence"},
            "tpr_at_fpr": entries, "tpr": next(e for e in entries if e["fpr"] == fpr),
            "epsilon": {"value": eps, "ci": None, "attack": "ml_leaks", "delta": 1e-5,
                        "confidence": 0.95, "max_certifiable": 4.21}}


def _row(index, defence, knobs, label, acc, auc, tpr, eps, **more) -> dict:
    return {"index": index, "defence": defence, "knobs": knobs, "label": label,
            "test_accuracy": acc, "test_accuracy_ci": [acc - 0.03, acc + 0.03],
            "train_accuracy": 1.0, "train_accuracy_ci": [0.99, 1.0],
            "generalization_gap": 1.0 - acc, "risk": _risk(auc, tpr, eps),
            "attacks": [{"name": "ml_leaks", "label": "ML-Leaks adversary 1 (paper 004)",
                         "auc": auc}], **more}


def defences_theory(*, met: bool = True) -> dict:
    """A trimmed ``theory["defences"]`` of the shape engine.defences.audit.run_defences gives
    (values like the bundled demo's: every defence but DP-SGD leaves the risk near the top)."""
    dp = {"accountant_epsilon": 15.41, "delta": 1e-5, "accountant": "rdp",
          "empirical_epsilon_lower_bound": 0.24, "attack": "ml_leaks", "confidence": 0.95,
          "within_claim": True, "max_certifiable": 4.21, "testable": False,
          "verdict": "not testable at this size: a perfect attack on these records could "
                     "certify at most ε = 4.21"}
    rows = [
        _row(0, "none", {}, "No defence", 0.40, 1.0, 1.0, 4.2),
        _row(1, "kcd", {"alpha": 0.5}, "KCD α = 0.5", 0.41, 1.0, 1.0, 4.21),
        _row(2, "kcd", {"alpha": 1.0}, "KCD α = 1", 0.17, 0.96, 0.67, 3.5),
        _row(3, "dmp", {"temperature": 2.0}, "DMP T = 2", 0.39, 0.999, 0.99, 3.77),
        _row(4, "l2", {"weight_decay": 0.01}, "L2 λ = 0.01", 0.409, 0.997, 0.958, 3.58),
        _row(5, "early_stopping", {"epochs": 5}, "Early stopping epochs = 5", 0.35, 0.9,
             0.4, 2.9),
        _row(6, "dp_sgd", {"noise_multiplier": 1.0}, "DP-SGD σ = 1", 0.25, 0.69, 0.015,
             0.24, dp=dp),
    ]
    limit = {"metric": "tpr", "value": 0.02, "fpr": 0.01, "use_upper": False,
             "text": "TPR at 1% FPR ≤ 2.0%"}
    if met:
        rec = {"met": True, "index": 6, "label": "DP-SGD σ = 1", "accuracy_cost": 0.15,
               "risk": 0.015, "attack": "metric_confidence", "limit": limit["text"],
               "statement": "DP-SGD σ = 1 keeps the strongest attack within the limit (TPR at "
                            "1% FPR 1.5%, by metric_confidence) with test accuracy 25.0%, "
                            "15.0% below the undefended model's 40.0%.",
               "candidates": [6], "not_measurable": []}
    else:
        rec = {"met": False, "index": None, "label": None, "accuracy_cost": None,
               "risk": None, "attack": None, "limit": limit["text"],
               "statement": "No setting meets the limit TPR at 1% FPR ≤ 2.0%. The lowest is "
                            "DP-SGD σ = 1 with TPR at 1% FPR 1.5% (metric_confidence). Ways "
                            "forward: accept a higher limit.",
               "candidates": [], "not_measurable": []}
    dp_sentence = ("DP-SGD σ = 1: the accountant promises ε = 15.41 at δ = 1e-05; the attacks "
                   "certify at least ε = 0.24 (95% confidence) — not a test of the promise.")
    return {"threat_model": "supervised",
            "threat_model_text": "The attacker knows half of the training records and half "
                                 "of the others (paper 004 §4.3, supervised inference).",
            "attacks": ["btta", "ml_leaks"], "delta": 1e-5, "confidence": 0.95,
            "fpr_targets": [0.001, 0.01, 0.1], "policy_fpr": 0.01, "seed": 7,
            "data": {"source": "synthetic purchases (seed 7)", "records": 4000,
                     "members": 1000, "non_members": 1000},
            "reference": "held-out split: the 2000 records kept out of training and of the "
                         "audit",
            "runtime_s": 37.5, "limit": limit, "recommendation": rec,
            "cost_in_models": {"none": 1.0, "kcd": 10.0, "dmp": 3.0, "l2": 3.0,
                               "dp_sgd": 3.0},
            "sentences": [rec["statement"], dp_sentence],
            "most_vulnerable": {"index": 0, "label": "No defence", "auc": 1.0,
                                "is_undefended": True, "undefended_within_interval": True},
            "rows": rows}


def _flat(result: dict, path) -> str:
    return " ".join(pdf_text(result, path).split())


def _defences_part(flat: str) -> str:
    assert "Defences: retraining the model to leak less" in flat
    return flat.split("Defences: retraining the model to leak less")[1].split("6. Comparison")[0]


def test_defences_section_with_recommendation_chart_and_table(tmp_path):
    result = model_result()
    result["theory"]["defences"] = defences_theory()
    flat = _flat(result, tmp_path / "def.pdf")
    part = _defences_part(flat)
    assert "Recommendation: DP-SGD σ = 1 keeps the strongest attack within the limit" in part
    assert "may find at most 2.0% of the members" in part
    assert "How to read this." in part
    assert "Privacy against utility of each defence setting" in part      # the chart
    # The chart's legend words are the screen's (engine.plots.series).
    assert "DMP (distillation on reference data)" in part and "KCD, by α" not in part
    assert "Every setting measured" in part and "TPR at 1.0% FPR" in part
    assert part.index("No defence undefended") < part.index("KCD α = 0.5")   # undefended first
    assert "DP-SGD σ = 1 recommended" in part
    assert "supervised inference" in part and "In plain words" in part
    assert "DMP's reference data" in part and "held-out split" in part
    assert "DP-SGD: the promise against the evidence" in part
    assert "Not testable at this size" in part and "15.41" in part
    # The limitations name the defences' threat model and what was not re-run.
    limits = flat.split("8. Limitations")[1].split("9. Exposed records")[0]
    assert "Defences: the retrained models were attacked only under the supervised" in limits
    assert "LiRA and RMIA" in limits


def test_defences_chart_draws_every_curve_the_limit_and_the_ring():
    from reportlab.graphics.shapes import Circle, Group, PolyLine

    from engine.report.defences import defences_chart

    drawing, close_up, metric, missing = defences_chart(defences_theory())
    assert metric == "tpr" and missing == []

    def walk(node):
        for x in getattr(node, "contents", None) or node.getContents():
            yield x
            if isinstance(x, Group):
                yield from walk(x)

    items = list(walk(drawing))
    strings = " ".join(getattr(x, "text", "") for x in items)
    assert "your limit" in strings and "(recommended)" in strings and "no defence" in strings
    # the KCD curve joins its two settings; the ring is a wide circle around the recommended
    assert sum(isinstance(x, PolyLine) for x in items) >= 3
    assert any(isinstance(x, Circle) and x.r > 6 for x in items)


def test_no_defences_section_without_defences(full):
    result, text = full
    assert "defences" not in result["theory"]
    flat = " ".join(text.split())
    assert "Defences: retraining" not in flat and "Privacy against utility" not in flat
    assert "Defences: the retrained models" not in flat
    from engine.report.defences import defences_section

    assert defences_section({"theory": {"defences": {"rows": []}}}) == []
    assert defences_section({"theory": {"defences": "broken"}}) == []


def test_defences_limit_not_met(tmp_path):
    result = model_result()
    result["theory"]["defences"] = defences_theory(met=False)
    part = _defences_part(_flat(result, tmp_path / "unmet.pdf"))
    assert "No setting meets the limit TPR at 1% FPR ≤ 2.0%. The lowest is DP-SGD" in part
    assert "Recommendation:" not in part and "recommended" not in part.split("Setting")[1]


def test_defences_tpr_not_measurable(tmp_path):
    from engine.report.defences import defences_chart

    block = defences_theory(met=False)
    for row in block["rows"][2:4]:                  # two settings: TPR not measurable
        row["risk"] = _risk(row["risk"]["auc"]["value"], None, 3.0)
    result = model_result()
    result["theory"]["defences"] = block
    part = _defences_part(_flat(result, tmp_path / "nm.pdf"))
    assert "not measurable needs ≥ 300 non-members" in part
    assert "Not drawn (its risk could not be measured): KCD α = 1, DMP T = 2." in part
    # No setting measurable at the limit's FPR: the chart falls back on the AUC.
    for row in block["rows"]:
        row["risk"] = _risk(row["risk"]["auc"]["value"], None, 3.0)
    _, _, metric, missing = defences_chart(block)
    assert metric == "auc" and missing == []
    part = _defences_part(_flat(result, tmp_path / "none_measurable.pdf"))
    assert "could not be measured for any setting" in part


def test_defences_single_setting_sweep(tmp_path):
    block = defences_theory(met=False)
    block["rows"] = block["rows"][:2]
    result = model_result()
    result["theory"]["defences"] = block
    part = _defences_part(_flat(result, tmp_path / "one.pdf"))
    assert "1 defence setting — KCD" in part and "DP-SGD: the promise" not in part
    block["rows"] = block["rows"][:1]                 # only the undefended model
    part = _defences_part(_flat(result, tmp_path / "none.pdf"))
    assert "0 defence settings" in part and "No defence" in part


def test_defences_hostile_labels_are_escaped(tmp_path):
    block = defences_theory()
    bad = "KCD <b>α</b> & <font size=40>x</font>"
    block["rows"][1]["label"] = bad
    block["rows"][1]["knobs"] = {}                    # the chart label comes from the label
    block["recommendation"]["statement"] = "Use <i>this</i> & that < 2."
    block["reference"] = "file <evil>.csv & co"
    block["threat_model_text"] = "<para>knows & sees</para>"
    result = model_result()
    result["theory"]["defences"] = block
    part = _defences_part(_flat(result, tmp_path / "hostile.pdf"))
    assert bad in part
    assert "Use <i>this</i> & that < 2." in part
    assert "file <evil>.csv & co" in part and "<para>knows & sees</para>" in part


def _story_text(flowables) -> str:
    """The words of a list of flowables (paragraphs, inside kept-together groups and tables),
    without rendering a PDF."""
    from reportlab.platypus import KeepTogether, Paragraph, Table

    out = []
    for f in flowables:
        if isinstance(f, Paragraph):
            out.append(f.getPlainText())
        elif isinstance(f, KeepTogether):
            out.append(_story_text(f._content))
        elif isinstance(f, Table):
            out.append(_story_text(c for row in f._cellvalues for c in row
                                   if isinstance(c, Paragraph)))
    return " ".join(out)


def test_a_damaged_verdict_or_bound_is_said_in_the_report_not_raised():
    """Issue 19 item 5: the report reads the verdict and paper 001's bound through their typed
    blocks (engine.results.blocks.Verdict, BttaBound). A result that did not pass
    engine.results.result.result_problem — reasons that are not a list, a bound whose ROC is
    not a table — says the verdict cannot be read and leaves the bound out, where reading them
    field by field raised TypeError and AttributeError while building the story."""
    result = model_result()
    result["verdict"]["reasons"] = 5
    result["theory"]["btta_bound"]["roc"] = "x"
    text = _story_text(build_story(result))
    assert "The saved verdict cannot be read: the verdict's reasons are not a list of " \
           "sentences." in text
    assert "Thm 2 bound: knowing only the accuracies" not in text
    assert "Generalization gap" in text                     # the gap block still reads
