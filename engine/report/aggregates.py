"""Report sections specific to the count-tables audit (paper 003; engine/audits/aggregates.py;
result contract: docs/dev/aggregates_result_contract.md).

A statistics office releases count tables ("people by sex and age group in block X"); the
question is whether one person's sensitive attribute can be learnt from them. The attacker plays
the attribute-inference game of paper 003 (§2.3, Fig. 2): the target's sensitive value is drawn
uniformly at random, so everything it learns comes from the tables. The game has no
"present / absent" people, so this audit writes its own sections 4 (how the attacks are
measured) and 5 (results): every attack ranks the possible values of each target, the (target,
value) pairs are pooled one-vs-rest, and the top-1 accuracy is read against chance 1/|V|. The
membership game of paper 003 §6 (when it was played), the DP bounds of the release, the
deterministic module's proofs, the sweeps of paper 003 Fig. 6 and 8, a published table's
findings and the exposed records (counted per table; listed only with ``include_records``)
complete it. Everything else is the shared report (engine/report/sections.py).

The hooks live here; the sections are in the modules beside it (issue 33 item 2):
``aggregates_words`` (plain words, shared readers), ``aggregates_setup`` (sections 2–4),
``aggregates_measured`` (5), ``aggregates_bounds`` (6 and 8), ``aggregates_exposed`` (9). Each
reads the result once through engine.results.loaded.load_result and then by attribute
(engine.results.aggregates; issue 33 item 1), so a hook takes a result dict or a loaded result.
"""

from __future__ import annotations

from reportlab.platypus import Flowable

from engine.report import aggregates_bounds, aggregates_measured, aggregates_setup
from engine.report.aggregates_exposed import exposed_records
from engine.report.aggregates_rules import rules_by_person, rules_results
from engine.report.aggregates_words import (
    aia_attacks,
    chance_corrected,
    mia_attacks,
    release_words,
)
from engine.report.sections import AuditSections
from engine.results.blocks import AttackEntry, BlockError


class AggregatesSections(AuditSections):
    """Sections 2, 3, 4, 5, 6, 8 and 9 for ``audit_type == "aggregates"``."""

    def audited(self, result) -> list[Flowable]:
        return aggregates_setup.audited(result)

    def threat_model(self, result) -> list[Flowable]:
        return aggregates_setup.threat_model(result)

    def describe_attack(self, attack) -> str:
        """How ``attack`` (an entry, or its dict) decides, in plain words."""
        if not isinstance(attack, AttackEntry):
            try:
                attack = AttackEntry.from_dict(attack)
            except BlockError:
                return ""
        return aggregates_setup.describe_attack(attack)

    def method_theory(self, result) -> list[Flowable]:
        return aggregates_setup.method_theory(result)

    def method_common(self, result) -> list[Flowable]:
        """Section 4's attack list and measurement method, in the attribute game's terms."""
        return aggregates_setup.method_common(result, self.describe_attack)

    def results(self, result) -> list[Flowable]:
        # The disclosure rules' verdict on each published cell (issue 34 item 2) is a result
        # about the release; what it means person by person is in section 9.
        return aggregates_measured.results(result) + rules_results(result)

    def theory(self, result) -> list[Flowable]:
        return aggregates_bounds.theory(result)

    def limitations(self, result) -> list[str]:
        return aggregates_bounds.limitations(result)

    def exposed(self, result, include_records: bool) -> list[Flowable]:
        # The rules against the attacks, person by person, follow the exposed records: both
        # say which people the tables give away.
        return exposed_records(result, include_records) + rules_by_person(result,
                                                                          include_records)


__all__ = ["AggregatesSections", "aia_attacks", "chance_corrected", "exposed_records",
           "mia_attacks", "release_words"]
