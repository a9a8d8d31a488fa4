"""The count-table audit's run beyond the attribute game (paper 003): the published table's
findings, the membership game (§6.1 Fig. 9) in one block, and the sweeps over m/|D| and ε
(Fig. 6, 8). Moved out of the audit's run (issue 33 item 2).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, replace

from engine.aggregates.queries import published_gaps
from engine.attacks.aggregates import LABELS
from engine.compute import ComputeSettings, Executor, InProcessExecutor, job_executor
from engine.data.paths import resolve_path
from engine.games.aggregates import play_aia
from engine.games.aggregates_data import AggregatesGameSettings, AuditData
from engine.games.aggregates_membership import play_mia
from engine.games.aggregates_scoring import evaluate, evaluate_mia, published_findings
from engine.results.result import input_entry
from engine.runtime import CancelToken, Progress

# DEFAULT_MIA_ATTACKS (engine.games.aggregates) is the config's default too; LABELS, the
# attacks' names in the results, come with the attack tables.
PUBLISHED_NOTE = ("Each candidate is a combination of quasi-identifiers seen in the "
                  "attacker's sample; 'determined' means: if a person with it is counted in "
                  "the table and is the only one with it, the published counts leave one "
                  "possible value of the sensitive attribute.")


def progress_ends(config: AggregatesGameSettings) -> tuple[float, float]:
    """Where the attribute game's and the membership game's shares of the progress bar end."""
    has_sweeps = bool(config.sweep_fractions or config.sweep_epsilons)
    aia_end = 0.55 if config.membership else 0.8
    if has_sweeps:
        aia_end *= 0.7
    mia_end = aia_end
    if config.membership and config.release != "published":
        mia_end = aia_end + (0.25 if not has_sweeps else 0.15)
    return aia_end, mia_end


def published_part(config: AggregatesGameSettings, data: AuditData, inputs: list[dict], *,
                   progress: Progress, cancel: CancelToken) -> tuple[dict, list[dict]]:
    """The published table's input entry (appended to ``inputs``) and findings: (the findings,
    the exposed records)."""
    table = resolve_path(str(config.release_options["path"]))
    # Empty counts first (left out, or the file refused, before any solve), so that the
    # input's entry lists them per column as microdata's does (issue 21).
    gaps = published_gaps(table, config.release_options.get("missing", "drop_rows"))
    inputs.append(input_entry(table, role="published_table"))
    if gaps:
        inputs[-1]["missing_values"] = gaps
    published, exposed = published_findings(config, data, progress=progress, cancel=cancel)
    published["note"] = PUBLISHED_NOTE
    return published, exposed


def membership_part(config: AggregatesGameSettings, data: AuditData, *, progress: Progress,
                    cancel: CancelToken) -> tuple[dict | None, list[dict], int]:
    """The membership game when the settings ask for it (never on a published table):
    (its block of the theory, its attack entries, its solves stopped by the clock)."""
    if not (config.membership and config.release != "published"):
        return None, [], 0
    mia = play_mia(config, data=data, progress=progress, cancel=cancel)
    mia_attacks = evaluate_mia(config, mia)
    proved = mia.determined
    membership = {"attacks": mia_attacks, "targets": int(mia.member.size),
                  "proved": int(proved.sum()),
                  "proved_correct": int((mia.determined_value[proved]
                                         == mia.member[proved].astype(int)).sum()),
                  "computed_on": mia.computed_on}
    return membership, mia_attacks, mia.details["solves_stopped_by_clock"]


@dataclass(frozen=True)
class SweepInputs:
    """What every sweep point reads (one copy per cluster)."""

    config: AggregatesGameSettings
    data: AuditData
    parameter: str                    # "fraction" or "epsilon"
    values: tuple


def sweep_point(index: int, shared: SweepInputs, progress: Progress,
                cancel: CancelToken) -> dict:
    """Sweep point ``index`` (a unit of engine.compute): the AIA game replayed at that value
    with the sweep attacks on ``sweep_targets`` targets. Its game draws from the config's seed
    alone, as every point's does, so the point is the same wherever it runs; its own targets'
    units run where the point runs (in this process, or inside its cluster worker)."""
    config, value = shared.config, shared.values[index]
    changes = {"fraction": value} if shared.parameter == "fraction" else {
        "epsilon": value,
        "mechanism": config.mechanism if config.mechanism != "none" else "laplace"}
    sub = replace(config, attacks=config.sweep_attacks, max_targets=config.sweep_targets,
                  membership=False, compute=ComputeSettings(), **changes)
    outcome = play_aia(sub, data=shared.data, cancel=cancel, progress=progress,
                       executor=InProcessExecutor(), real_people=False)
    return {"queries": outcome.details["n_queries"],
            "solves_stopped_by_clock": outcome.details["solves_stopped_by_clock"],
            "determined_share": float(outcome.determined.mean()),
            "noise_scale": outcome.details["noise_scale"],
            "attacks": {a["name"]: {"auc": a["auc"], "auc_ci": a["auc_ci"],
                                    "top1_accuracy": a["details"]["top1_accuracy"],
                                    "top1_accuracy_ci": a["details"]["top1_accuracy_ci"]}
                        for a in evaluate(sub, outcome)}}


def sweep(config: AggregatesGameSettings, data: AuditData, parameter: str, values, *,
          progress: Progress, cancel: CancelToken, executor: Executor | None = None) -> dict:
    """Paper 003 Fig. 6 (``parameter = "fraction"``, m/|D|) and Fig. 8 (``"epsilon"``,
    Laplace noise per statistic, or the configured mechanism): the AIA game replayed at each
    value with the sweep attacks on ``sweep_targets`` targets, each value one unit
    (:func:`sweep_point`) on ``executor`` (default: the job's for the config's cluster)."""
    values = tuple(sorted(values, reverse=(parameter == "epsilon")))
    with (job_executor(config.compute.cluster) if executor is None
          else nullcontext(executor)) as units:
        points = units.map(sweep_point, len(values),
                           SweepInputs(config, data, parameter, values), progress=progress,
                           cancel=cancel, message="Sweep: values")
        where = units.where
    out = {"parameter": parameter, "values": list(values),
           "queries": [p["queries"] for p in points],
           "determined_share": [p["determined_share"] for p in points],
           "noise_scale": [p["noise_scale"] for p in points],
           "attacks": {a: [p["attacks"][a] for p in points if a in p["attacks"]]
                       for a in config.sweep_attacks},
           "labels": {a: LABELS[a] for a in config.sweep_attacks},
           "solves_stopped_by_clock": sum(p["solves_stopped_by_clock"] for p in points),
           "computed_on": where}
    return out


def all_sweeps(config: AggregatesGameSettings, data: AuditData, start: float, *,
               progress: Progress, cancel: CancelToken) -> tuple[dict, int]:
    """Every sweep the settings ask for (only the ε sweep on a published table), sharing the
    progress bar from ``start`` to 97 %: (the sweeps by name, their solves stopped by the
    clock)."""
    sweeps: dict = {}
    if not (config.sweep_fractions or config.sweep_epsilons):
        return sweeps, 0
    parts = [(k, v) for k, v in (("fraction", config.sweep_fractions),
                                  ("epsilon", config.sweep_epsilons)) if v]
    if config.release == "published":
        parts = [(k, v) for k, v in parts if k == "epsilon"]
    for j, (param, values) in enumerate(parts):
        lo = start + (0.97 - start) * j / len(parts)
        hi = start + (0.97 - start) * (j + 1) / len(parts)
        sweeps["fraction" if param == "fraction" else "noise"] = sweep(
            config, data, param, values, progress=progress.span(lo, hi), cancel=cancel)
    clock_cuts = sum(sw["solves_stopped_by_clock"] for sw in sweeps.values())
    if sweeps:      # every sweep ran on the job's one executor
        sweeps["computed_on"] = next(iter(sweeps.values()))["computed_on"]
    return sweeps, clock_cuts
