"""What to do next (issue 20): release-side changes, each with what the audit measured of it.

Checked on the saved projects of all four audit types (tests/data/projects): every step that
says "Measured" or "Computed" quotes a figure the result holds, every step the audit did not
measure says so, the steps carry no attack acronyms, and a damaged result gives fewer steps,
never an exception. The report's first page and the results page show the same list.
"""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from engine.next_steps import NOT_MEASURED, next_steps
from engine.report.pdf import write_report

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"
TYPES = ("mechanism", "location", "aggregates", "model")
ACRONYMS = re.compile(r"\b(LiRA|RMIA|BTTA|CBTTA|DeSIA|CIP|RAP|MLP|KCD|DMP|DP-SGD|TPR|FPR|AUC)\b")


def saved_result(audit_type: str) -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text())["result"]


@pytest.mark.parametrize("audit_type", TYPES)
def test_every_step_says_whether_its_effect_was_measured(audit_type):
    steps = next_steps(saved_result(audit_type))
    assert steps
    for step in steps:
        assert step.action and step.effect
        if step.measured:
            assert step.effect.startswith(("Measured", "Computed", "The attacks tried")), step
        else:
            assert step.effect.startswith(NOT_MEASURED), step
        assert not ACRONYMS.search(step.sentence()), step


def test_the_figures_quoted_are_the_results_own():
    mechanism = saved_result("mechanism")
    inverse = mechanism["theory"]["inverse"]
    first = next_steps(mechanism)[0]
    assert f"ε = {inverse['max_epsilon_per_observation']:.3g}" in first.action
    assert f"{inverse['max_tpr']:.1%}" in first.effect

    aggregates = saved_result("aggregates")
    det = aggregates["theory"]["deterministic"]
    step = next(s for s in next_steps(aggregates) if "pin people down" in s.action)
    assert f"{det['determined']} of {det['targets']}" in step.effect

    model = saved_result("model")
    gap = model["theory"]["generalization_gap"]
    step = next(s for s in next_steps(model) if "Stop training earlier" in s.action)
    assert f"{gap['train_accuracy']:.1%}" in step.effect
    assert f"{gap['test_accuracy']:.1%}" in step.effect


def test_without_noise_adding_noise_is_not_claimed_as_measured():
    location = copy.deepcopy(saved_result("location"))
    location["config"]["mechanism"] = "none"
    step = next(s for s in next_steps(location) if "Add noise" in s.action)
    assert not step.measured and step.effect.startswith(NOT_MEASURED)


def test_a_model_audit_without_defences_says_they_were_not_measured():
    model = copy.deepcopy(saved_result("model"))
    model["theory"]["defences"] = None
    step = next_steps(model)[0]
    assert not step.measured and "Defences step" in step.effect


@pytest.mark.parametrize("audit_type", TYPES)
def test_a_damaged_result_gives_fewer_steps_never_an_exception(audit_type):
    rng = random.Random(20)
    original = saved_result(audit_type)
    junk = (None, "x", -1, float("nan"), [], {}, [None], True)
    for _ in range(200):
        result = copy.deepcopy(original)
        node = result
        path = []
        while isinstance(node, dict) and node:
            key = rng.choice(sorted(node, key=str))
            path.append(key)
            if rng.random() < 0.35 or not isinstance(node[key], dict):
                node[key] = rng.choice(junk)
                break
            node = node[key]
        for step in next_steps(result):
            assert isinstance(step.sentence(), str)
    assert next_steps(None) == [] and next_steps({"audit_type": "other"}) == []


def test_the_reports_first_page_lists_what_to_do_next(tmp_path):
    result = saved_result("aggregates")
    path = tmp_path / "report.pdf"
    write_report(result, path)
    first_pages = " ".join(page.extract_text() for page in PdfReader(str(path)).pages[:2])
    text = " ".join(first_pages.split())
    assert "What to do next" in text
    for step in next_steps(result):
        assert " ".join(step.action.split())[:40] in text



def test_a_dp_bound_of_100_percent_is_not_called_a_limit():
    """Walk-through 2026-11-26: "with today's ε no attacker can be right more than 100.0 % of
    the time" reads as a guarantee; at that bound the step says the ε sets no real limit."""
    location = saved_result("location")
    loose, tight = copy.deepcopy(location), copy.deepcopy(location)
    loose["theory"]["dp_bound_accuracy"] = 0.9999
    tight["theory"]["dp_bound_accuracy"] = 0.62
    step = next(s for s in next_steps(loose) if "smaller ε per hour" in s.action)
    assert "sets no real limit" in step.effect and "can be right more than" not in step.effect
    step = next(s for s in next_steps(tight) if "smaller ε per hour" in s.action)
    assert "no attacker can be right more than 62.0%" in step.effect


def test_the_defence_settings_are_counted_as_the_summary_counts_them():
    """Walk-through 2026-11-26: the saved model audit's summary said "None of the 4 defence
    settings tried" and its next step "none of the 5 ways of training tried" (the undefended
    model counted too)."""
    model = saved_result("model")
    rows = model["theory"]["defences"]["rows"]
    defended = sum(1 for r in rows if r["defence"] != "none")
    assert defended < len(rows)
    step = next(s for s in next_steps(model) if "defence" in s.action)
    assert f"{defended} defence settings tried" in step.effect
