"""The disclosure rules officers already apply, beside the attacks (issue 34 item 2).

For every published cell of a count-table release: the threshold rule, zeros, group (class)
disclosure, differencing and, for tables of sums, the n,k dominance and p % rules (ACRO /
SACRO defaults; Eurostat and ONS SDC handbooks) — then, per target of the count-table game
(paper 003), where the rules and the attacks disagree. Method notes: docs/methods/rules.md.

* :mod:`engine.rules.settings` — :class:`RuleSettings`, the ``[rules]`` table;
* :mod:`engine.rules.cells` — the cells, their people, sums and top contributors;
* :mod:`engine.rules.checks` — one function per rule; :mod:`engine.rules.differencing`;
* :mod:`engine.rules.compare` — rules vs attacks per target;
* :mod:`engine.rules.block` — the result block; :mod:`engine.rules.verdict` — which verdict
  the policy follows.

Qt-free; sits above engine.aggregates (the counting queries) and below the games and audits
that call it (docs/dev/layers.md).
"""

from engine.rules.block import RULES, failures_by_cell, rules_block
from engine.rules.cells import Cells, cells_from_counts, cells_from_microdata
from engine.rules.compare import (
    AGREEMENTS,
    CONFIDENT,
    compare_targets,
    confident_right,
    disagreement,
    holding_cells,
)
from engine.rules.settings import POLICY_FOLLOWS, RuleSettings
from engine.rules.verdict import follow_policy, rules_level

__all__ = ["AGREEMENTS", "CONFIDENT", "POLICY_FOLLOWS", "RULES", "Cells", "RuleSettings",
           "cells_from_counts", "cells_from_microdata", "compare_targets", "confident_right",
           "disagreement", "failures_by_cell", "follow_policy", "holding_cells",
           "rules_block", "rules_level"]
