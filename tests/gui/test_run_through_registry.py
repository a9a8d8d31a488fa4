"""Every audit page starts its job through the registry (issue 33 item 2): no page calls an
audit's own ``run``, and the model page's defended models come back with the job's value (the
AuditResult's attachments), not through a dictionary the worker thread filled."""

from __future__ import annotations

from engine.audits import registry
from engine.audits.model import ModelConfig
from engine.results.result import AuditResult
from engine.runtime import NEVER, NO_PROGRESS
from gui.pages.audit_running import FinishedRun
from gui.pages.location_page import LocationPage
from gui.pages.mechanism_page import MechanismPage
from gui.pages.model_page import ModelPage


def test_no_page_runs_its_audit_itself():
    for page in (MechanismPage, LocationPage, ModelPage):
        assert "run_audit" not in vars(page), page.__name__


def test_the_model_pages_job_hands_back_its_attachments(main_window, monkeypatch):
    trade = object()                                  # the fitted defended models
    calls = []

    def fake_run(config, *, progress=None, cancel=None):
        calls.append(config)
        return AuditResult(audit_type="model", name="n", seed=1, config={}, software={},
                           runtime_s=0.0, attacks=[], theory={}, verdict={}, summary="s",
                           attachments={"tradeoff": trade})

    monkeypatch.setattr(registry, "run_audit", fake_run)
    page = main_window.audit_pages["model"]
    config = ModelConfig()
    finished = page.audit_job(config)(NO_PROGRESS, NEVER)
    assert calls == [config]
    assert isinstance(finished, FinishedRun)
    assert finished.result["summary"] == "s" and "attachments" not in finished.result
    assert finished.attachments == {"tradeoff": trade} and finished.config is config
    page.take_attachments(finished.attachments, finished.config)
    assert page._tradeoff is trade and page._tradeoff_config is config
