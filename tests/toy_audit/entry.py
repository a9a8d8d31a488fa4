"""The toy audit's registry entry: the one entry a new audit type adds to
``engine.audits.registry.AUDIT_TYPES`` (the tests put it there with monkeypatch)."""

from __future__ import annotations

from engine.audits.registry import AuditType
from tests.toy_audit import audit

TOY = AuditType(
    "toy", "Coin tosses", "Can someone guess a fair coin?",
    report_title="Toy coin-toss audit",
    config=audit.ToyConfig, run=audit.run, demo=audit.demo_config,
    estimate="tests.toy_audit.estimate:estimate",
    calibration="tests.toy_audit.estimate:CONSTANTS",
    report_sections="tests.toy_audit.report:ToySections")
