"""The count-table audit's theory block (paper 003): what ε-DP would allow here, the release
and the deterministic module in figures, and the game's facts. Moved out of the audit's run
(issue 33 item 2).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from engine.games.aggregates import AiaOutcome
from engine.games.aggregates_data import AggregatesGameSettings
from engine.mechanisms.tradeoff import dp_region_tpr_upper


def dp_theory(config: AggregatesGameSettings, release, n_values: int) -> dict | None:
    """What ε-DP would allow here (None without noise).

    The release's ε is for adding or removing one person: with ``budget = "release"`` the
    noise is calibrated to the release's exact L1 sensitivity, so ε_release = ε; with
    ``"per_query"`` every query gets ε at sensitivity 1 and a person touches at most
    ``sensitivity`` released queries, so ε_release = ε · sensitivity (basic composition).
    Changing one person's sensitive value is a removal and an addition: ε' = 2 ε_release
    (group privacy), which is what the attribute game tests. Under a uniform prior over |V|
    values no attacker's top-1 accuracy exceeds e^ε' / (e^ε' + |V| − 1) (plus δ for the
    discrete Gaussian); in the membership game (also a change of one record) the accuracy and
    the ROC region follow from ε' and δ.
    """
    if config.mechanism == "none":
        return None
    sens = float(release.sensitivity)
    eps = config.epsilon if config.budget == "release" else config.epsilon * sens
    delta = config.delta if config.mechanism == "discrete_gaussian" else 0.0
    eps_change = 2.0 * eps
    delta_change = (1.0 + math.exp(eps)) * delta     # group privacy for 2 steps
    e = math.exp(min(eps_change, 700.0))
    aia = min(1.0, e / (e + n_values - 1) + delta_change)
    mia = min(1.0, e / (1.0 + e) + delta_change / 2)
    fpr = np.unique(np.r_[0.0, np.geomspace(1e-4, 1.0, 200)])
    return {"epsilon_release": eps, "epsilon_change": eps_change, "delta": delta_change,
            "sensitivity": sens, "budget": config.budget,
            "aia_top1_bound": aia, "mia_accuracy_bound": mia,
            "dp_region": {"epsilon": eps_change, "delta": delta_change, "fpr": fpr.tolist(),
                          "tpr_upper": np.asarray(dp_region_tpr_upper(
                              fpr, eps_change, delta_change)).tolist()},
            "note": ("ε for the whole release: " + (
                f"ε = {config.epsilon:g} calibrated to the release's sensitivity {sens:g}"
                if config.budget == "release" else
                f"{config.epsilon:g} per statistic × {sens:g} statistics a person can "
                "change") + "; changing one person's value costs twice that.")}


def release_summary(config: AggregatesGameSettings, outcome: AiaOutcome) -> dict:
    d = outcome.details
    tables: dict[str, int] = {}
    for q in outcome.queries:
        tables[q.table or "(custom)"] = tables.get(q.table or "(custom)", 0) + 1
    return {"kind": config.release,
            "fraction": None if config.release == "published" or not config.fraction
            else config.fraction,
            "queries": d["n_queries"], "candidates": d["n_candidates"],
            "tables": [{"table": t, "cells": k} for t, k in tables.items()],
            "sensitivity": d["sensitivity"], "sensitivity_exact": d["sensitivity_exact"],
            "mechanism": config.mechanism,
            "epsilon": None if config.mechanism == "none" else config.epsilon,
            "delta": config.delta if config.mechanism == "discrete_gaussian" else None,
            "budget": config.budget, "noise_scale": d["noise_scale"],
            "preview": [{"table": t, "label": lab, "count": c}
                        for t, lab, c in d["released_preview"]]}


def deterministic_summary(outcome: AiaOutcome) -> dict:
    sec = np.asarray(outcome.details["deterministic_seconds"])
    status = outcome.details["deterministic_status"]
    settled = outcome.details.get("deterministic_settled_by", [])
    correct = outcome.determined & (outcome.determined_value == outcome.truth)
    return {"targets": int(outcome.truth.size), "determined": int(outcome.determined.sum()),
            "correct": int(correct.sum()),
            "time_limited": int(sum(st == "time_limit" for st in status)),
            # How each answer was reached (desia_deterministic: the auditor's shortcut).
            "settled_by": {how: int(sum(h == how for h in settled))
                           for how in ("witness table", "released zeros", "solver")},
            "median_s": float(np.median(sec)) if sec.size else 0.0,
            "p95_s": float(np.quantile(sec, 0.95)) if sec.size else 0.0,
            "computed_on": outcome.details.get("deterministic_computed_on")}


def theory_block(config: AggregatesGameSettings, outcome: AiaOutcome, clock_cuts: int,
                 membership: dict | None, sweeps: dict, published: dict | None) -> dict:
    """The result's theory block: the attribute game's facts, the release, what ε-DP allows,
    the deterministic module, the membership game, the sweeps and the published table's
    findings."""
    domain = outcome.details["domain"]
    s = outcome.sensitive_column
    n_values = domain.sizes[s]
    dp = dp_theory(config, SimpleNamespace(sensitivity=outcome.details["sensitivity"]),
                   n_values)
    det = deterministic_summary(outcome)
    theory = {
        "game": {"sensitive": domain.columns[s], "values": list(domain.labels[s]),
                 "chance": 1.0 / n_values, "quasi_identifiers": list(domain.columns[:s]),
                 "records": outcome.details["n_records"],
                 "auxiliary_records": outcome.details["n_auxiliary"],
                 "auxiliary_source": outcome.details["auxiliary_source"],
                 "unique_records": outcome.details["unique_records"],
                 "targets": int(outcome.truth.size),
                 "solves_stopped_by_clock": int(clock_cuts)},
        "release": release_summary(config, outcome),
        "dp": dp, "deterministic": det, "membership": membership, "sweeps": sweeps,
    }
    if published is not None:
        theory["published"] = published
    return theory
