"""Which audit types exist, and how to build their configs and run them.

An audit type is registered with its Config class and its ``run`` function; the CLI, the GUI and
project files all go through this table, so adding an audit type is one entry here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from engine.data.errors import InputError


@dataclass(frozen=True)
class AuditType:
    name: str
    title: str
    question: str
    module: str | None          # engine.audits.<module>, None while not implemented yet

    @property
    def available(self) -> bool:
        return self.module is not None

    def load(self):
        if self.module is None:
            raise InputError(f"The '{self.name}' audit is not available in this version yet.")
        return importlib.import_module(self.module)


AUDIT_TYPES: dict[str, AuditType] = {
    "mechanism": AuditType("mechanism", "DP mechanism",
                           "What does this ε really allow an attacker to do?",
                           "engine.audits.mechanism"),
    "location": AuditType("location", "Location data",
                          "Can someone tell whether a person is in these counts of people per "
                          "place and hour?", "engine.audits.location"),
    "aggregates": AuditType("aggregates", "Count tables",
                            "Will this count table let someone learn a person's attribute?",
                            "engine.audits.aggregates"),
    "model": AuditType("model", "Machine-learning model",
                       "Does this model reveal who it was trained on?", "engine.audits.model"),
}


def config_from_dict(d: dict, source: str = "config"):
    """Build the right Config for ``d['audit_type']`` (InputError on anything wrong)."""
    if not isinstance(d, dict):
        raise InputError(f"{source}: the config must be a table of keys and values.")
    audit_type = d.get("audit_type")
    if audit_type is None:
        raise InputError(f"{source}: missing key 'audit_type'; allowed values: "
                         f"{', '.join(AUDIT_TYPES)}.", source=source, key="audit_type")
    if not isinstance(audit_type, str) or audit_type not in AUDIT_TYPES:
        raise InputError(f"{source}: 'audit_type' must be one of {', '.join(AUDIT_TYPES)} "
                         f"(got {audit_type!r}).", source=source, key="audit_type")
    module = AUDIT_TYPES[audit_type].load()
    config_cls = next(getattr(module, n) for n in dir(module)
                      if n.endswith("Config") and getattr(getattr(module, n), "audit_type", None)
                      == audit_type)
    return config_cls.from_dict(d, source)


def run_audit(config, *, progress=None, cancel=None):
    """Run the audit matching ``config`` (the job contract of ARCHITECTURE §3)."""
    from engine.runtime import NEVER, NO_PROGRESS

    module = AUDIT_TYPES[config.audit_type].load()
    return module.run(config, progress=progress or NO_PROGRESS, cancel=cancel or NEVER)


def demo_config(name: str):
    if name not in AUDIT_TYPES:
        raise InputError(f"unknown demo {name!r}; choose one of {', '.join(AUDIT_TYPES)}.")
    module = AUDIT_TYPES[name].load()
    return module.demo_config()
