"""The result block ``theory["rules"]`` of the count-table audit (issue 34 item 2; contract:
docs/dev/aggregates_result_contract.md, "The rules beside the attacks"): every rule run over
the release's cells (engine.rules.checks, engine.rules.differencing), the failing cells with
their reasons, per table and in sum, and — given the per-target comparison of
engine.rules.compare — where the rules and the attacks disagree.
"""

from __future__ import annotations

from engine.rules import checks
from engine.rules.cells import Cells
from engine.rules.differencing import differencing
from engine.rules.settings import RuleSettings

# The rules in display order, with the plain label the GUI and the report use.
RULES: tuple[tuple[str, str], ...] = (
    ("threshold", "Threshold (too few people in a cell)"),
    ("zeros", "Zeros (an empty cell)"),
    ("group", "Group disclosure (everyone in a group shares one value)"),
    ("differencing", "Differencing (a small group recovered by subtraction)"),
    ("dominance", "Dominance (n,k): a few contributors make most of a sum"),
    ("p_ratio", "p % rule: the largest contributor estimated closely"),
)
MAX_CELLS = 500       # failing cells listed in the block (the rest counted)
NEEDS_VALUES = ("dominance", "p_ratio")


def failures_by_cell(cells: Cells, settings: RuleSettings, sizes: tuple[int, ...],
                     total: float | None) -> tuple[list[list[str]], list[list[str]],
                                                    dict[str, int | None]]:
    """Every rule over every cell: (rules failed per cell, reasons per cell, cells failing
    each rule — None for a rule not run)."""
    runs = {
        "threshold": checks.threshold(cells, settings),
        "zeros": checks.zeros(cells, settings) if settings.zeros_disclosive else None,
        "group": checks.group(cells, settings) if settings.group_disclosure else None,
        "differencing": (differencing(cells, sizes, total, settings.threshold)
                         if settings.differencing else None),
        "dominance": checks.dominance(cells, settings),
        "p_ratio": checks.p_ratio(cells, settings),
    }
    failed: list[list[str]] = [[] for _ in range(cells.size)]
    reasons: list[list[str]] = [[] for _ in range(cells.size)]
    labels = dict(RULES)
    for name, found in runs.items():
        for f in found or ():
            failed[f.cell].append(name)
            reasons[f.cell].append(f"{labels[name].split(' (')[0].split(':')[0]}: {f.reason}")
    by_rule = {name: (None if found is None else len(found)) for name, found in runs.items()}
    return failed, reasons, by_rule


def _per_table(cells: Cells, failed: list[list[str]]) -> list[dict]:
    order: dict[str, dict] = {}
    for i in range(cells.size):
        t = cells.tables[i] or "(custom)"
        row = order.setdefault(t, {"table": t, "cells": 0, "failed": 0, "by_rule": {}})
        row["cells"] += 1
        if failed[i]:
            row["failed"] += 1
        for r in failed[i]:
            row["by_rule"][r] = row["by_rule"].get(r, 0) + 1
    for row in order.values():
        row["passes"] = row["failed"] == 0
    return list(order.values())


def summary_sentence(n_cells: int, n_failed: int, by_rule: dict[str, int | None],
                     settings: RuleSettings, microdata: bool) -> str:
    labels = dict(RULES)
    ran = [f"{labels[r].split(' (')[0].split(':')[0].lower()} {k}"
           for r, k in by_rule.items() if k]
    if n_failed:
        head = (f"The rules fail: {n_failed} of {n_cells} published cells break at least one "
                f"rule ({', '.join(ran)}).")
    else:
        head = (f"Every one of the {n_cells} published cells passes the rules "
                f"(threshold {settings.threshold}).")
    if not microdata:
        head += (" The table was checked as published, without the people behind it: the "
                 "dominance and p % rules need the microdata.")
    elif not settings.value_column:
        head += " No value column was named, so the cells were not checked as sums."
    return head


def rules_block(cells: Cells, settings: RuleSettings, checked: tuple, *, targets: list[dict],
                disagreement: dict, seconds: float | None) -> dict:
    """The block (module docstring); ``checked`` is what :func:`failures_by_cell` returned
    for these cells."""
    failed, reasons, by_rule = checked[0], checked[1], dict(checked[2])
    if not cells.from_microdata:
        by_rule["dominance"] = by_rule["p_ratio"] = None
    bad = [i for i in range(cells.size) if failed[i]]
    listed = [{"table": cells.tables[i] or "(custom)", "label": cells.labels[i],
               "count": float(cells.count[i]), "failed": failed[i],
               "reason": " ".join(reasons[i])} for i in bad[:MAX_CELLS]]
    return {
        "parameters": settings.to_dict(),
        "microdata": cells.from_microdata,
        "tables": _per_table(cells, failed),
        "cells": listed,
        "cells_truncated": max(0, len(bad) - MAX_CELLS),
        "summary": {"passes": not bad, "cells": cells.size, "failed_cells": len(bad),
                    "by_rule": by_rule,
                    "sentence": summary_sentence(cells.size, len(bad), by_rule, settings,
                                                 cells.from_microdata)},
        "targets": targets,
        "disagreement": disagreement,
        "policy_follows": settings.policy_follows,
        "followed_sentence": "",
        # a wall-clock measurement: "_s", as every other in result.json (determinism checks)
        "runtime_s": None if seconds is None else round(float(seconds), 3),
    }
