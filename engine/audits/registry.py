"""Which audit types exist, and everything the app needs to know about each: one
:class:`AuditType` entry per audit in :data:`AUDIT_TYPES` (issue 19 item 2).

An entry names the audit's Config class, its ``run`` (the job contract of ARCHITECTURE §3), its
bundled example (``demo``), its cost model and measured constants (``engine.estimates``) and
its report sections (``engine.report``). The CLI, project files, the estimates, the report and
the GUI's page table (``gui/pages/registry.py``, keyed on these entries) all find an audit type
here and nowhere else, so adding one is one entry here plus its own files
(docs/dev/adding_an_audit_type.md).

Where the registry sits in the layers (docs/dev/layers.md): directly above the audits, which
it imports at module level, so the config classes, ``run`` and the demos are ordinary imports
that import-linter and the layers test see. The cost model, its constants and the report
sections live in layers *above* this one (the estimates and the report dispatch through this
table, so the registry cannot import them without a circle; the report also pulls in
reportlab, which the app loads only when a report is written). Those three are named as
``"module:attribute"`` strings and loaded by one function, :func:`load`, when first asked
for; ``tests/engine/test_registry_toy.py`` resolves every one of them, so a misspelt name fails a
test rather than a run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.audits import aggregates, location, mechanism, model
from engine.data.errors import InputError, given_value
from engine.runtime import NEVER, NO_PROGRESS


def load(reference: str) -> Any:
    """The object a ``"package.module:attribute"`` reference names, importing its module (once;
    Python keeps it) and reading the attribute at each call, so a module reloaded since (the
    calibration bench rewrites the constants and reloads them) is read as it is now."""
    module_name, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


@dataclass(frozen=True)
class AuditType:
    """One audit type: its words for the home page and where each of its parts lives."""

    name: str                   # the ``audit_type`` key of configs, results and projects
    title: str                  # the home page card's title
    question: str               # ... and the question it answers, in the officer's words
    report_title: str           # the report cover's subtitle
    config: type                # Config class: from_dict(d, source), to_dict(), audit_type
    run: Callable               # run(config, *, progress, cancel) -> AuditResult
    demo: Callable[[], Any]     # the bundled example's Config
    estimate: str               # "module:function": estimate(config) -> CostEstimate
    calibration: str            # "module:TABLE": the cost model's measured constants
    report_sections: str        # "module:Class": an engine.report.sections.AuditSections

    def cost_model(self) -> Callable:
        return load(self.estimate)

    def constants(self) -> dict:
        return load(self.calibration)

    def sections(self) -> type:
        return load(self.report_sections)


AUDIT_TYPES: dict[str, AuditType] = {entry.name: entry for entry in (
    AuditType(
        "mechanism", "DP mechanism", "What does this ε really allow an attacker to do?",
        report_title="Differential-privacy mechanism audit",
        config=mechanism.MechanismConfig, run=mechanism.run, demo=mechanism.demo_config,
        estimate="engine.estimates.mechanism:estimate",
        calibration="engine.estimates.calibration:MECHANISM",
        report_sections="engine.report.mechanism:MechanismSections"),
    AuditType(
        "location", "Location data",
        "Can someone tell whether a person is in these counts of people per place and hour?",
        report_title="Location-aggregate membership audit",
        config=location.LocationConfig, run=location.run, demo=location.demo_config,
        estimate="engine.estimates.location:estimate",
        calibration="engine.estimates.calibration:LOCATION",
        report_sections="engine.report.location:LocationSections"),
    AuditType(
        "aggregates", "Count tables",
        "Will this count table let someone learn a person's attribute?",
        report_title="Aggregate-statistics attribute-inference audit",
        config=aggregates.AggregatesConfig, run=aggregates.run, demo=aggregates.demo_config,
        estimate="engine.estimates.aggregates:estimate",
        calibration="engine.estimates.calibration:AGGREGATES",
        report_sections="engine.report.aggregates:AggregatesSections"),
    AuditType(
        "model", "Machine-learning model", "Does this model reveal who it was trained on?",
        report_title="Machine-learning model membership audit",
        config=model.ModelConfig, run=model.run, demo=model.demo_config,
        estimate="engine.estimates.model:estimate",
        calibration="engine.estimates.calibration:MODEL",
        report_sections="engine.report.model:ModelSections"),
)}


def config_from_dict(d: dict, source: str = "config"):
    """Build the right Config for ``d['audit_type']`` (InputError on anything wrong)."""
    if not isinstance(d, dict):
        raise InputError(f"{source}: the config must be a table of keys and values.")
    audit_type = d.get("audit_type")
    if audit_type is None:
        raise InputError(f"{source}: the config does not say which audit to run; name one "
                         f"of {', '.join(AUDIT_TYPES)}.", source=source, key="audit_type",
                         setting="audit_type")
    if not isinstance(audit_type, str) or audit_type not in AUDIT_TYPES:
        raise InputError(f"{source}: the audit to run must be one of "
                         f"{', '.join(AUDIT_TYPES)} (got {given_value(audit_type)}).",
                         source=source, key="audit_type", setting="audit_type")
    return AUDIT_TYPES[audit_type].config.from_dict(d, source)


def run_audit(config, *, progress=None, cancel=None):
    """Run the audit matching ``config`` (the job contract of ARCHITECTURE §3)."""
    return AUDIT_TYPES[config.audit_type].run(config, progress=progress or NO_PROGRESS,
                                              cancel=cancel or NEVER)


def demo_config(name: str):
    if name not in AUDIT_TYPES:
        raise InputError(f"unknown demo {given_value(name)}; choose one of {', '.join(AUDIT_TYPES)}.")
    return AUDIT_TYPES[name].demo()
