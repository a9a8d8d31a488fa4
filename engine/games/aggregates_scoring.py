"""The count-table game's scoring and findings (moved out of engine/games/aggregates.py,
issue 33 item 2): the records the release exposes, what a published table pins down, and every
attack's entry through the shared metric layer (top-1 accuracy, the pooled one-vs-rest
decisions, the real-people figure).
"""

from __future__ import annotations

import numpy as np

from engine.aggregates.consistency import check_published_consistency
from engine.aggregates.queries import load_published_rows
from engine.attacks.aggregates import (
    AS_PUBLISHED,
    LABELS,
)
from engine.attacks.real_people import real_people as real_people_block
from engine.auditing import evaluate_attack
from engine.compute import Executor
from engine.data.paths import resolve_path
from engine.evidence import top1_p_value
from engine.games.aggregates import (
    AiaOutcome,
    RealPlay,
    record_space,
    units_of,
)
from engine.games.aggregates_data import (
    AggregatesGameSettings,
    AuditData,
    domain_and_codes,
)
from engine.games.aggregates_membership import (
    MiaOutcome,
)
from engine.games.aggregates_units import (
    DeterministicInputs,
    prove_target,
)
from engine.metrics import clopper_pearson, clustered_auc_ci
from engine.results.result import REDACTED
from engine.runtime import CancelToken, Progress, rng

# What runs as a unit of engine.compute here (issue 22 item 6; docs/methods/scale.md): each
# target's deterministic proofs (:func:`prove_target`, :func:`prove_membership`), its
# stochastic module — every seeded chunk of its shadow datasets and its classifier
# (:func:`stochastic_target`) — and its reconstructions (:func:`reconstruct_target`; on a GPU
# up to 64 targets' RAP reconstructions train as one unit, :func:`reconstruct_targets`), in
# both games and in the combination's shadow game; the count-tables audit's sweep points are
# units of engine.audits.aggregates.



def exposed_records(outcome: AiaOutcome, *, list_records: bool = False) -> list[dict]:
    """The deterministically vulnerable targets — provably determined by the tables — each
    with the released cells that pin it down: the released queries that can count a record
    with the target's quasi-identifiers (whatever its sensitive value), and their tables, so
    the officer sees which tables to coarsen or suppress. Records are redacted by default
    (:func:`exposed_entry`)."""
    if not outcome.queries:
        return []
    domain = outcome.details.get("domain")
    s = outcome.sensitive_column
    out = []
    for i in np.flatnonzero(outcome.determined):
        codes = outcome.target_codes[i]
        cells = [q for q in outcome.queries
                 if all(codes[c] in allowed for c, allowed in q.conditions if c != s)]
        out.append(exposed_entry(domain, codes, int(outcome.determined_value[i]), cells, s,
                                 listed=list_records and domain is not None,
                                 value_correct=bool(outcome.determined_value[i]
                                                    == outcome.truth[i])))
    return out


def exposed_entry(domain, codes, value: int, cells: list, s: int, *, listed: bool,
                  value_correct: bool | None) -> dict:
    """One exposed record of result.json. The tables of the released cells that pin it down
    are always kept (what to coarsen first, as the report counts them per table). The record's
    quasi-identifiers, its value and the cells themselves — whose labels spell out the
    quasi-identifiers ("P12: sex=Male, age=21") — are kept only with ``listed`` (the user's
    list_exposed_records); otherwise the record and the value read "(redacted)" and only the
    number of cells is kept."""
    # Cells that condition on the sensitive value say what it is; list them first.
    cells = sorted(cells, key=lambda q: not any(c == s for c, _ in q.conditions))
    entry = {"record": REDACTED, "value": REDACTED, "determined": True,
             "value_correct": value_correct, "pinning_count": len(cells),
             "tables": sorted({q.table for q in cells if q.table})}
    if listed:
        entry["record"] = {domain.columns[c]: domain.labels[c][int(codes[c])]
                           for c in range(s)}
        entry["value"] = domain.labels[s][value]
        entry["pinning_cells"] = [q.label for q in cells]
    return entry


def published_findings(config: AggregatesGameSettings, data: AuditData, *, progress: Progress,
                       cancel: CancelToken, executor: Executor | None = None
                       ) -> tuple[dict, list[dict]]:
    """For a published table: is it consistent (the solver proves it or names the rows that
    conflict), and whose sensitive value does it pin down? Every quasi-identifier combination
    of the attacker's sample (at most ``max_targets``… ×10) is checked with the deterministic
    module on the published counts: "if a person with these quasi-identifiers is among the
    |D| counted, and unique there, the table says their value is v". The findings' sentence
    for the reader is the audit's (engine.audits.aggregates)."""
    path = resolve_path(str(config.release_options["path"]))
    protected = data.protected
    qi_names = list(protected.schema.quasi_identifiers)
    columns = qi_names + [protected.schema.sensitive]
    domain, _ = domain_and_codes(protected, columns)
    rows = load_published_rows(path, domain)
    queries, counts = rows.queries, rows.counts
    n = config.published_records
    check = check_published_consistency(domain, queries, counts, n, source=rows.source,
                                        lines=rows.lines,
                                        time_limit=max(config.solver_time_limit, 10.0),
                                        cancel=cancel)
    _, sample = domain_and_codes(data.auxiliary, columns)
    _, stand_in = domain_and_codes(protected, columns)
    every = np.vstack([stand_in, sample])
    s = len(qi_names)
    combos = np.unique(every[:, :s], axis=0)
    limit = 10 * config.max_targets
    if combos.shape[0] > limit:
        pick = rng(config.seed, "aggregates-published-combos").choice(combos.shape[0], limit,
                                                                      replace=False)
        combos = combos[np.sort(pick)]
    space = record_space(domain)
    masks = [space.matches(q.conditions) for q in queries]
    # Each combination's proof is a unit of engine.compute, on the published counts.
    every_release = np.ascontiguousarray(np.broadcast_to(
        np.asarray(counts), (combos.shape[0], len(queries))))
    with units_of(config, executor) as units:
        solved = units.map(prove_target, combos.shape[0], DeterministicInputs(
            space, masks, every_release, n, combos[:, :s], s, (AS_PUBLISHED,),
            config.solver_time_limit, config.seed, step="Published table: combination"),
            progress=progress, cancel=cancel, message="Published table: combinations")
        where = units.where
    exposed = []
    for combo, ((value, status, _seconds, _settled),) in zip(combos, solved, strict=True):
        if status == "determined":
            cells = [q for q in queries
                     if all(combo[c] in allowed for c, allowed in q.conditions if c != s)]
            exposed.append(exposed_entry(domain, combo, value, cells, s,
                                         listed=config.list_exposed_records,
                                         value_correct=None))
    findings = {"path": str(path), "rows": len(queries), "records": n,
                "consistent": check.consistent, "consistency_note": check.note,
                "candidates": int(combos.shape[0]), "determined": len(exposed),
                "computed_on": where}
    return findings, exposed


def _member_matrix(truth: np.ndarray, n_values: int) -> np.ndarray:
    member = np.zeros((truth.size, n_values), dtype=bool)
    member[np.arange(truth.size), truth] = True
    return member


def top1_guesses(scores: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """Each target's guessed value (row of ``scores``, one column per value): the value with
    the highest score, ties broken uniformly at random.

    Why at random: an attack with no evidence about a target scores every value alike (the
    deterministic module on a target it could not prove); ``argmax`` would then always name
    the first category, and its top-1 accuracy would read as the share of targets whose value
    happens to be listed first (0.000 under noise in the sample) instead of a blind guess."""
    top = scores >= scores.max(axis=1, keepdims=True)
    n_tied = top.sum(axis=1)
    pick = np.minimum((generator.random(len(scores)) * n_tied).astype(np.int64), n_tied - 1)
    rank_among_tied = np.cumsum(top, axis=1) - 1
    return np.argmax(top & (rank_among_tied == pick[:, None]), axis=1)


def evaluate(config: AggregatesGameSettings, outcome: AiaOutcome) -> list[dict]:
    """Every attack through the shared metric layer over the pooled one-vs-rest (target,
    value) pairs, with the AUC interval clustered by target (Obuchowski: a target's |V| pairs
    share one release), plus its top-1 accuracy with a Clopper–Pearson interval beside the
    chance level 1/|V|, and the AUC on the targets the deterministic module left undecided
    (paper 003 Fig. 5). Top-1 guesses break ties at random (:func:`top1_guesses`), each
    attack from its own stream of the config's seed.

    With the outcome's :class:`RealPlay`, each entry also gets ``details["real_people"]``
    (engine.attacks.real_people; issue 32 item 1): the attack's top-1 guess on the release as
    published against the targets' real values, beside the obvious guess and the data-only
    guess on the same targets, with its scaled score and exact one-sided p-value."""
    n_values = next(iter(outcome.scores.values())).shape[1]
    member = _member_matrix(outcome.truth, n_values)
    clusters = np.repeat(np.arange(outcome.truth.size), n_values)
    undecided = ~outcome.determined
    attacks = []
    for name, sc in outcome.scores.items():
        guesses = top1_guesses(sc, rng(config.seed, "aggregates-top1-ties", name))
        top1 = guesses == outcome.truth
        lo, hi = clopper_pearson(int(top1.sum()), top1.size, config.confidence)
        rest = None
        if undecided.sum() >= 2 and undecided.sum() < undecided.size:
            auc_u, ci_u = clustered_auc_ci(sc[undecided].ravel(), member[undecided].ravel(),
                                           np.repeat(np.arange(int(undecided.sum())),
                                                     n_values), config.confidence)
            rest = {"auc": auc_u, "auc_ci": list(ci_u), "targets": int(undecided.sum())}
        entry = evaluate_attack(
            name, LABELS[name], sc.ravel(), member.ravel(), delta=0.0,
            confidence=config.confidence, fpr_targets=config.fpr_targets,
            details={"game": "aia", "paper": "003", "top1_accuracy": float(top1.mean()),
                     "top1_accuracy_ci": [lo, hi], "chance": 1.0 / n_values,
                     # The count and the exact test against chance (engine.evidence).
                     "top1_correct": int(top1.sum()),
                     "top1_p_value": top1_p_value(int(top1.sum()), int(top1.size),
                                                  1.0 / n_values),
                     "excluding_determined": rest, "targets": int(top1.size)})
        if outcome.real is not None:
            entry["details"]["real_people"] = _real_people_of(config, outcome.real, name)
        choice = outcome.details.get("best_of_choices", {}).get(name)
        if choice is not None:            # what the combination chose, on its shadow game
            entry["details"]["shadow_choice"] = choice
        auc, ci = clustered_auc_ci(sc.ravel(), member.ravel(), clusters, config.confidence)
        entry["auc"], entry["auc_ci"] = auc, list(ci)
        entry["auc_ci_method"] = "clustered DeLong (Obuchowski 1997), clusters = targets"
        attacks.append(entry)
    return attacks


def _real_people_of(config: AggregatesGameSettings, real: RealPlay, name: str) -> dict:
    """One attack's real-people block: its top-1 guesses on the published release (ties
    broken from a stream of the config's seed, its own per attack; the data-only guess's
    stream is the one its own entry uses) against the real values."""
    def right(sc: np.ndarray, who: str) -> np.ndarray:
        return top1_guesses(sc, rng(config.seed, "aggregates-real-top1-ties", who)) == real.truth
    return real_people_block(right(real.scores[name], name), real.truth == real.obvious,
                             obvious_label=real.obvious_label,
                             data_only_correct=right(real.data_only, "data_only"),
                             confidence=config.confidence)


def evaluate_mia(config: AggregatesGameSettings, outcome: MiaOutcome) -> list[dict]:
    """The membership attacks through the shared metric layer (one trial per target); the
    combination's entry keeps what its rehearsal chose (``shadow_choice``, as in
    :func:`evaluate`)."""
    out = []
    choices = outcome.details.get("best_of_choices", {})
    for name, sc in outcome.scores.items():
        details = {"game": "mia", "paper": "003"}
        if name in choices:
            details["shadow_choice"] = choices[name]
        out.append(evaluate_attack(name, LABELS[name], sc, outcome.member, delta=0.0,
                                   confidence=config.confidence,
                                   fpr_targets=config.fpr_targets, details=details))
    return out
