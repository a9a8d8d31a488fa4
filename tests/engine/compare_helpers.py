"""A tiny location comparison shared by the comparison tests (engine.compare): small enough
that four candidates run in a few seconds, with every candidate differing only in ε."""

from __future__ import annotations

from engine.compare import Candidate, CandidateSet

# The smallest sizes the location config accepts (test/shadow/sweep minima), a small
# synthetic city and one attack: each candidate runs in about a second.
TINY_BASE = {
    "audit_type": "location", "name": "tiny location", "traces": "",
    "city_users": 200, "city_epochs": 24, "aggregate_size": 20,
    "test_aggregates": 200, "shadow_aggregates": 100, "sweep_targets": 0,
    "sweep_test_aggregates": 200, "attacks": ["one_threshold", "likelihood_ratio"],
    "mechanism": "laplace", "epsilon": 0.5, "seed": 3,
}
EPSILONS = (0.1, 0.5, 1.0, 2.0)


def tiny_set(epsilons=EPSILONS, **base_changes) -> CandidateSet:
    return CandidateSet(audit_type="location", base={**TINY_BASE, **base_changes},
                        candidates=tuple(Candidate(f"ε = {e:g}", {"epsilon": e})
                                         for e in epsilons),
                        name="tiny ε comparison", source="tiny spec")


SPEC = """\
audit_type = "location"
name = "tiny"
[base]
traces = ""
city_users = 200
city_epochs = 24
aggregate_size = 20
test_aggregates = 200
shadow_aggregates = 100
sweep_targets = 0
sweep_test_aggregates = 200
attacks = ["one_threshold"]
seed = 3
"""


def spec_text(*candidates: str, head: str = SPEC) -> str:
    """A spec file's text: ``head`` and one [[candidate]] table per TOML body given."""
    return head + "".join(f"\n[[candidate]]\n{body}\n" for body in candidates)
