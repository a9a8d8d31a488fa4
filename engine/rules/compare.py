"""Per target: the rules' verdict on the cells that hold the person, beside what the attacks did
(issue 34 item 2: "the rules pass, but the attack proves the person's value" and "the rules
fail, yet no attack could use it").

A target of the count-table game (paper 003 §2.3, Fig. 2) is held by every released cell that
counts a record with its quasi-identifiers, whatever its sensitive value — the cells the
exposed-records list names as pinning it down (engine.games.aggregates_scoring
.exposed_records). The rules fail for the target when one of those cells fails a rule.

What the attacks did, read from what the game keeps per target:

* ``attack_proves``: the deterministic module proved the target's value from the counts
  (paper 003 Alg. 1), and the value proved is the one in the game;
* ``attack_found``: some attack that reads the tables (not the data-only guess) named the
  target's value as its single top guess, with at least :data:`CONFIDENT` of its weight on it.
  A top guess alone would not do: with two sensitive values a coin is right for half the
  targets, and "an attack found it" would then say nothing. A proof counts as found.

The four outcomes (``agreement``): ``both_flag`` (the rules fail and an attack proved or found
the value), ``rules_pass_attack_proves`` (every cell holding the person passes, yet the tables
prove the value), ``rules_fail_no_attack`` (a cell fails, yet no attack proved or confidently
found the value) and ``both_pass``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from engine.aggregates.queries import query_matrix
from engine.rules.cells import without_sensitive

CONFIDENT = 0.9       # share of an attack's weight on its top guess to count as "found"
AGREEMENTS = ("both_flag", "rules_pass_attack_proves", "rules_fail_no_attack", "both_pass")
MAX_TARGET_CELLS = 20  # cells named per target (the count says how many more)


def holding_cells(queries, target_codes: np.ndarray, s: int) -> np.ndarray:
    """(cells × targets) bool: cell i counts a record with target t's quasi-identifiers
    (its condition on the sensitive column dropped); one sparse product, no loop per
    target."""
    if not len(queries) or not len(target_codes):
        return np.zeros((len(queries), len(target_codes)), dtype=bool)
    groups = [without_sensitive(q, s) for q in queries]
    return query_matrix(groups, np.asarray(target_codes)).toarray().astype(bool)


def confident_right(scores: Mapping[str, np.ndarray], truth: np.ndarray,
                    exclude: Sequence[str] = ()) -> tuple[np.ndarray, list[str | None]]:
    """Per target: did an attack (not in ``exclude``) name the true value as its single top
    guess with at least :data:`CONFIDENT` of its weight (negative scores count as 0)? And
    the attack most confident among those that did (None where none did)."""
    t = truth.size
    best = np.zeros(t)
    who: list[str | None] = [None] * t
    for name, sc in scores.items():
        if name in exclude:
            continue
        w = np.clip(np.asarray(sc, dtype=float), 0.0, None)
        total = w.sum(axis=1)
        share = np.divide(w, total[:, None], out=np.zeros_like(w), where=total[:, None] > 0)
        top = share.argmax(axis=1)
        ordered = np.sort(share, axis=1)
        single = ordered[:, -1] > (ordered[:, -2] if share.shape[1] > 1 else -1.0)
        mine = share[np.arange(t), truth]
        right = (top == truth) & single & (mine >= CONFIDENT) & (mine > best)
        for i in np.flatnonzero(right):
            best[i], who[i] = mine[i], name
    return best > 0, who


def agreement(rules_fail: bool, proves: bool, found: bool) -> str:
    if rules_fail:
        return "both_flag" if (proves or found) else "rules_fail_no_attack"
    return "rules_pass_attack_proves" if proves else "both_pass"


def _cells_named(indices, labels, tables, listed: bool) -> list[str]:
    """The cells' labels, or — when records are not listed — their tables with a count
    ("P12H (2 cells)"): a label spells out the person's quasi-identifiers."""
    indices = list(indices)
    if listed:
        named = [labels[i] for i in indices[:MAX_TARGET_CELLS]]
        if len(indices) > MAX_TARGET_CELLS:
            named.append(f"and {len(indices) - MAX_TARGET_CELLS} more")
        return named
    per: dict[str, int] = {}
    for i in indices:
        per[tables[i] or "(custom)"] = per.get(tables[i] or "(custom)", 0) + 1
    return [f"{t} ({k} cell{'s' if k != 1 else ''})" for t, k in per.items()]


def compare_targets(target_ids: Sequence[str], holds: np.ndarray,
                    failed: Sequence[Sequence[str]], labels: Sequence[str],
                    tables: Sequence[str], proves: np.ndarray, found: np.ndarray,
                    attack: Sequence[str | None], *, listed: bool = False) -> list[dict]:
    """One entry per target (module docstring): ``holds`` from :func:`holding_cells`,
    ``failed[i]`` the rules cell i fails, ``proves`` / ``found`` / ``attack`` per target."""
    failing = np.array([bool(f) for f in failed], dtype=bool)
    out = []
    for t, tid in enumerate(target_ids):
        mine = np.flatnonzero(holds[:, t])
        bad = mine[failing[mine]] if mine.size else mine
        rules_fail = bool(bad.size)
        rules = sorted({r for i in bad for r in failed[i]})
        p, f = bool(proves[t]), bool(found[t]) or bool(proves[t])
        out.append({"target": str(tid), "rules_fail": rules_fail, "failed": rules,
                    "cells": _cells_named(bad if rules_fail else mine, labels, tables, listed),
                    "attack_proves": p, "attack_found": f,
                    "attack": ("deterministic module" if p and attack[t] is None
                               else attack[t]),
                    "agreement": agreement(rules_fail, p, f)})
    return out


def disagreement(targets: list[dict], *, note: str = "") -> dict:
    """The four counts over the targets and one sentence for the officer."""
    counts = {a: sum(1 for t in targets if t["agreement"] == a) for a in AGREEMENTS}
    n = len(targets)
    found_only = sum(1 for t in targets
                     if t["agreement"] == "both_pass" and t["attack_found"])
    if not n:
        sentence = note or "No target was compared: the audit attacked no one."
    else:
        sentence = (
            f"Of {n} targets, the rules and the attacks agree on "
            f"{counts['both_flag'] + counts['both_pass']} ({counts['both_flag']} flagged by "
            f"both, {counts['both_pass']} by neither). The rules pass, yet the tables prove "
            f"the value, for {counts['rules_pass_attack_proves']}; the rules fail, yet no "
            f"attack proved or confidently found the value, for "
            f"{counts['rules_fail_no_attack']}.")
        if found_only:
            sentence += (f" For {found_only} more the rules pass and no proof was found, but an "
                         f"attack still named the value with at least {CONFIDENT:.0%} "
                         "confidence.")
        if note:
            sentence += " " + note
    return {**counts, "rules_pass_attack_proves": counts["rules_pass_attack_proves"],
            "sentence": sentence}
