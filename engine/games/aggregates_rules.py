"""The disclosure rules beside the count-table attacks (issue 34 item 2): the run's part that
applies the rules officers already use (engine.rules: threshold, zeros, group disclosure,
differencing, and with a value column n,k dominance and p %) to the released cells, then
compares them, target by target, with what the game's attacks did. Method notes:
docs/methods/rules.md; result contract: docs/dev/aggregates_result_contract.md.

It reads what the game keeps: the released queries, each target's coded record, the
deterministic module's proofs (``determined``, ``determined_value`` against the game's
``truth``) and every attack's per-target scores (paper 003 §2.3, Fig. 2). It changes none of
them and draws no random number, so every other figure of the result stays as it was.
"""

from __future__ import annotations

import numpy as np

from engine.aggregates.queries import load_published_rows
from engine.attacks.aggregates import RELEASE_FREE
from engine.data.errors import InputError
from engine.data.paths import resolve_path
from engine.games.aggregates import AiaOutcome
from engine.games.aggregates_data import AggregatesGameSettings, AuditData, domain_and_codes
from engine.rules import (
    RuleSettings,
    cells_from_counts,
    cells_from_microdata,
    compare_targets,
    confident_right,
    disagreement,
    failures_by_cell,
    holding_cells,
    rules_block,
)
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch

PUBLISHED_NOTE = ("A table already published is checked as published: the audit does not hold "
                  "the people behind it, so no person is compared.")


def value_of(microdata, column: str) -> np.ndarray:
    """Each record's number in ``column`` (the rules' value column): an integer column by its
    range, or a category column whose categories are all numbers. An InputError naming
    ``rules.value_column`` otherwise (:func:`value_numbers`)."""
    numbers = value_numbers(microdata.schema, column)
    return numbers[microdata.codes[:, microdata.schema.index(column)]]


def value_numbers(schema, column: str) -> np.ndarray:
    """The number each code of ``column`` stands for (the audit's config checks it before the
    game, when it holds a schema)."""
    key = "rules.value_column"
    if column not in schema.names:
        raise InputError(f"The disclosure rules' value column '{column}' is not a column of the "
                         f"data; columns: {', '.join(schema.names)} — choose one of them, or "
                         "leave it empty to check the counts only.", key=key, setting=key)
    col = schema.column(column)
    if col.kind == "integer" and col.bins is None:
        return np.arange(col.domain_size, dtype=float) + float(col.low)
    try:
        numbers = np.array([float(v) for v in col.labels()]) if col.kind == "categorical" \
            else None
    except ValueError:
        numbers = None
    if numbers is None or not np.isfinite(numbers).all():
        raise InputError(f"The disclosure rules' value column '{column}' does not hold exact "
                         f"numbers (it is {col.kind}{', cut into bins' if col.bins else ''}); "
                         "describe it as a whole-number column with its low and high values, "
                         "or choose another column.", key=key, setting=key)
    return numbers


def rules_part(config: AggregatesGameSettings, data: AuditData, outcome: AiaOutcome, *,
               progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> dict | None:
    """The ``theory["rules"]`` block (None when the rules are off), after the attacks."""
    settings = RuleSettings.from_dict(config.rules, "config")
    if not settings.enabled:
        return None
    progress(0.0, "Checking the disclosure rules")
    cancel.check()
    clock = Stopwatch()
    protected = data.protected
    columns = [*protected.schema.quasi_identifiers, protected.schema.sensitive]
    domain, codes = domain_and_codes(protected, columns)
    s = len(columns) - 1
    n_values = domain.sizes[s]
    if config.release == "published":
        rows = load_published_rows(resolve_path(str(config.release_options["path"])), domain)
        cells = cells_from_counts(rows.queries, rows.counts, s, n_values)
        total = float(config.published_records)
    else:
        values = (value_of(protected, settings.value_column) if settings.value_column
                  else None)
        cells = cells_from_microdata(outcome.queries, codes, s, n_values, values=values,
                                     top_k=max(2, settings.dominance_n))
        total = float(codes.shape[0])
    cancel.check()
    checked = failures_by_cell(cells, settings, domain.sizes, total)
    progress(0.6, "Checking the disclosure rules: the targets")
    cancel.check()
    if config.release == "published":
        targets, agree = [], disagreement([], note=PUBLISHED_NOTE)
    else:
        holds = holding_cells(outcome.queries, outcome.target_codes, s)
        proves = outcome.determined & (outcome.determined_value == outcome.truth)
        found, attack = confident_right(outcome.scores, outcome.truth, exclude=RELEASE_FREE)
        targets = compare_targets(target_ids(outcome.targets), holds, checked[0],
                                  cells.labels, cells.tables, proves, found, attack,
                                  listed=config.list_exposed_records)
        agree = disagreement(targets)
    block = rules_block(cells, settings, checked, targets=targets, disagreement=agree,
                        seconds=clock.elapsed())
    block["cells_listed"] = bool(config.list_exposed_records)
    progress(1.0, "Checked the disclosure rules")
    return block


def target_ids(targets: np.ndarray) -> list[str]:
    """A target's identifier in the rules block: its row among the protected records, counted
    from 1 ("record 18"). The exposed-records list names the proved targets in the same
    order as these, without the number (it writes no identifier)."""
    return [f"record {int(t) + 1}" for t in np.asarray(targets).ravel()]
