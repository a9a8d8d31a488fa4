"""Three real jobs projected past this machine (issue 22 item 7; docs/methods/scale.md).

``python -m bench.project_scale [--name value …]`` prints a markdown table: for each job, the
unit it splits into, the unit's cost, core-hours, the nodes a 24-hour turnaround needs, the
hours on a given number of nodes and the price, on CPU nodes and on GPU nodes, and the memory
one unit needs.

Where the numbers come from:

* **CPU seconds per unit are not guessed here**: they are the app's own cost models
  (engine/estimates/aggregates.py, model.py, location.py) called with the job's sizes, and
  those models read the constants measured on the reference machine
  (engine/estimates/calibration.py: a quiet 2-core x86-64 machine, no GPU). Change a constant
  and the table follows (tests/engine/test_project_scale.py checks it).
* **GPU seconds per unit** are measured by this script on the GPU torch sees, on a slice of
  the job's unit (a stack of the job's MLPs for a few hundred steps; a batch of the job's
  aggregates and a capped meta-classifier), scaled linearly to the whole unit. Without a GPU
  the GPU columns say "not measured (no GPU here)". The census job has no GPU path: its exact
  attack is an integer-programming solver that runs on CPUs.
* **Everything else is an assumption**, printed under the table with its value, and a
  command-line option: the sizes of the jobs, cores per node, the unit's cores, and prices
  (on-demand list prices of 2026 cloud instances, order of magnitude, to be replaced by
  yours).
"""

from __future__ import annotations

import math
import platform
import sys
import time
from dataclasses import dataclass, fields, replace
from datetime import date

import numpy as np

# DeSIA's exact attack at tract scale, measured (not a cost model: the auditor's shortcut is
# newer than the calibration): ``python -m bench.bench_tract --deterministic`` on the
# 29,500-record tract table (14,280 possible records, 592 cells), every one of its 542 unique
# targets, 2 shared cores at load ≈ 3.5, 27 Nov 2026 — the mean seconds per target (the sum
# of the units is what a projection needs; the median was 0.06 s, the largest 0.12 s; at load
# ≈ 10 the mean was 0.104 s) and the share of the tract's records that are unique.
TRACT_TARGET_SECONDS = 32.1 / 542
TRACT_UNIQUE_SHARE = 542 / 29_500


@dataclass(frozen=True)
class Assumptions:
    # Machines and prices (assumed: replace by your own).
    cores_per_node: int = 64
    core_hour_price: float = 0.04       # USD per core-hour, on-demand list price order, 2026
    gpus_per_node: int = 8
    gpu_hour_price: float = 3.00        # USD per GPU-hour (H100-class), on-demand, 2026
    cores_per_unit: int = 2             # a unit keeps the reference machine's 2 cores busy
    turnaround_hours: float = 24.0
    nodes: int = 100                    # the cluster the "hours on N nodes" column assumes
    # Census: every block's tables, DeSIA over every unique record.
    blocks: int = 6_000_000             # populated blocks of a large country's census
    records_per_block: int = 50
    unique_share: float = 0.4           # records unique on their quasi-identifiers
    census_shadows: int = 20_000        # shadow releases per block (DeSIA's default)
    # The same people's tract tables (bench/bench_tract.py's stand-in): unique on the tract's
    # quasi-identifiers, DeSIA's exact attack with the auditor's shortcut.
    tract_unique_share: float = TRACT_UNIQUE_SHARE
    # LiRA: 256 reference models of a 1-million-record model.
    lira_records: int = 1_000_000
    lira_features: int = 600
    lira_classes: int = 100
    lira_hidden: tuple = (256, 256)
    lira_epochs: int = 30
    lira_batch: int = 256
    reference_models: int = 256
    # Location: 200,000 shadows for each of 10,000 targets.
    targets: int = 10_000
    shadows: int = 200_000
    target_cells: int = 50              # k: cells of the target's trace the attack reads
    pool_people: int = 100_000          # people the unknown part of an aggregate is drawn from
    aggregate_people: int = 1_000       # people in one released aggregate
    city_sites: int = 1_000
    city_epochs: int = 168              # a week of hours
    obs_per_person: float = 50.0        # visits per person after clipping
    mechanism: str = "laplace"


# Census block release: 1- and 2-way marginals over sex (2), age in 5-year groups (18),
# race (7) and ethnicity (2); ethnicity is the sensitive column.
CENSUS_DOMAINS = (2, 18, 7, 2)


@dataclass(frozen=True)
class Job:
    name: str
    unit: str
    units: float
    cpu_seconds: float          # per unit, on the reference machine
    memory_bytes: float         # per unit
    gpu_seconds: float | None   # per unit, measured here; None: not measured
    gpu_note: str = ""


def _census_shape(a: Assumptions):
    from engine.estimates.aggregates import Shape
    from engine.games.aggregates_data import AUXILIARY_RATIO

    pairs = [(i, j) for i in range(len(CENSUS_DOMAINS)) for j in range(i + 1, len(CENSUS_DOMAINS))]
    m = sum(CENSUS_DOMAINS) + sum(CENSUS_DOMAINS[i] * CENSUS_DOMAINS[j] for i, j in pairs)
    per_record = len(CENSUS_DOMAINS) + len(pairs)          # statistics a record falls in
    qi = CENSUS_DOMAINS[:-1]
    sh = Shape(n=a.records_per_block, n_aux=AUXILIARY_RATIO * a.records_per_block,
               columns=len(CENSUS_DOMAINS), record_space=float(np.prod(CENSUS_DOMAINS)),
               domain_total=sum(CENSUS_DOMAINS), k=CENSUS_DOMAINS[-1],
               qi_cells=float(np.prod(qi)), candidates=CENSUS_DOMAINS[-1],
               tables_per_query=per_record / m, cover_per_query=per_record / m)
    return sh, m


def _tract_cells() -> int:
    from bench.bench_tract import SIZES

    return sum(SIZES) + sum(SIZES[i] * SIZES[j] for i in range(len(SIZES))
                            for j in range(i + 1, len(SIZES)))


def _tract_shape():
    """The tract table of bench/bench_tract.py as a cost-model shape (for the memory of one
    unit: the full model the shortcut falls back to)."""
    from bench.bench_tract import N_RECORDS, SIZES
    from engine.estimates.aggregates import Shape

    m = _tract_cells()
    per_record = len(SIZES) + len(SIZES) * (len(SIZES) - 1) // 2
    return Shape(n=N_RECORDS, n_aux=9 * N_RECORDS, columns=len(SIZES),
                 record_space=float(np.prod(SIZES)), domain_total=sum(SIZES), k=SIZES[-1],
                 qi_cells=float(np.prod(SIZES[:-1])), candidates=SIZES[-1],
                 tables_per_query=per_record / m, cover_per_query=per_record / m)


def census_jobs(a: Assumptions) -> list[Job]:
    from engine.estimates import aggregates as est

    sh, m = _census_shape(a)
    limit = 60.0                      # the solver's own time limit never binds at block size
    cal = est.constants("aggregates")
    unique = a.blocks * a.records_per_block * a.unique_share
    return [
        Job("Census: DeSIA's exact attack on every unique record (the auditor's shortcut)",
            "unique record", unique,
            est.infer_seconds(sh, m, limit, exact=True), est._solver_bytes(sh, m), None,
            "no GPU path (integer-programming solver)"),
        Job("Census tracts: DeSIA's exact attack on every unique record (the auditor's "
            "shortcut; measured at tract scale)", "unique record of a tract",
            a.blocks * a.records_per_block * a.tract_unique_share, TRACT_TARGET_SECONDS,
            est._solver_bytes(_tract_shape(), _tract_cells()), None,
            "no GPU path (integer-programming solver)"),
        Job(f"Census: {a.census_shadows:,} shadow releases per block", "block", a.blocks,
            est.shadow_seconds(sh, a.census_shadows, m),
            est._shadow_bytes(sh, a.census_shadows, m, cal["mia_copies"]), None,
            "no GPU path (numpy sampling on CPUs)"),
    ]


def _lira_sizes(a: Assumptions):
    return (a.lira_features, *a.lira_hidden, a.lira_classes)


def lira_job(a: Assumptions, gpu_seconds: float | None) -> Job:
    from engine.estimates import model as est
    from engine.models.batched import CPU_STEP_MACS

    sizes = _lira_sizes(a)
    macs = est.macs_per_row(sizes)
    rows = a.lira_records / 2                       # each reference model: half the records
    group = max(1, int(CPU_STEP_MACS // max(1, a.lira_batch * macs)))   # models per CPU stack
    train = est.training_seconds(group, rows, a.lira_epochs, a.lira_batch, macs) / group
    score = est.constants("model")["predict_seconds_per_mac"] * a.lira_records * macs
    memory = est.training_bytes(1, a.lira_batch, sizes) + a.lira_records * a.lira_features
    return Job(f"LiRA: {a.reference_models} reference models of a "
               f"{a.lira_records:,}-record model", "reference model", a.reference_models,
               train + score, memory, gpu_seconds)


def _city_sizes(a: Assumptions):
    from engine.estimates.location import Sizes

    return Sizes(users=a.pool_people, sites=a.city_sites, epochs=a.city_epochs,
                 mean_obs=a.obs_per_person, k_max=a.obs_per_person, source_rows=0)


def location_job(a: Assumptions, gpu_seconds: float | None) -> Job:
    from engine.estimates import location as est

    s = _city_sizes(a)
    m = a.target_cells
    draw = est.game_seconds(s, a.shadows, m, a.pool_people, a.aggregate_people, a.mechanism)
    meta = est.meta_seconds(a.shadows, m, m)
    memory = 4.0 * a.shadows * m * 3          # float32 aggregates, their copy and the noise
    return Job(f"Location: {a.shadows:,} shadows for each of {a.targets:,} targets", "target",
               a.targets, draw + meta, memory, gpu_seconds)


# --------------------------------------------------------------------------- GPU measurement

def measure_gpu(a: Assumptions, device: str, *, lira_rows: int = 20_000,
                lira_models: int = 16, aggregates: int = 20_000, meta_steps: int = 2_000
                ) -> dict[str, float]:
    """Seconds per unit on ``device``: the LiRA unit from one epoch of a stack of
    ``lira_models`` of the job's MLPs on ``lira_rows`` rows each (scaled to the unit's rows,
    epochs and its scoring pass); the location unit from drawing ``aggregates`` of the job's
    aggregates and ``meta_steps`` Adam steps of its meta-classifier (scaled to the job's
    shadows and the step count the cost model expects). Each after a warm-up of the same
    call."""
    import torch

    from engine.attacks.location import meta_classifier
    from engine.attacks.location.base import AttackData
    from engine.estimates import location as est_location
    from engine.games.location import AggregateSet, CellPool, unknown_counts
    from engine.models import TrainingSpec, reference_tasks
    from engine.models.batched import train_many_mlps
    from engine.runtime import rng

    def timed(fn):
        fn()
        if device.startswith("cuda"):
            torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        out = fn()
        if device.startswith("cuda"):
            torch.cuda.synchronize(device)
        return time.perf_counter() - t0, out

    g = np.random.default_rng(0)
    n = 2 * lira_rows
    X = (g.random((n, a.lira_features)) < 0.1).astype(np.float32)
    y = g.integers(0, a.lira_classes, n)
    spec = TrainingSpec(family="mlp", hidden=tuple(a.lira_hidden), epochs=1,
                        batch_size=a.lira_batch, seed=0)
    tasks = reference_tasks(lira_models, 0, n)
    train_s, stack = timed(lambda: train_many_mlps(spec, X, y, a.lira_classes, tasks=tasks,
                                                   device=device, group_size=lira_models))
    score_s, _ = timed(lambda: stack.confidence_logit(X, y))
    per_row_epoch = train_s / (lira_models * (n / 2))
    per_score_row = score_s / (lira_models * n)
    lira = (per_row_epoch * (a.lira_records / 2) * a.lira_epochs
            + per_score_row * a.lira_records)

    import scipy.sparse as sp

    share = min(1.0, a.obs_per_person * a.target_cells / (a.city_sites * a.city_epochs))
    rows = sp.csr_matrix((g.random((a.pool_people, a.target_cells)) < share).astype(np.uint8))
    pool = CellPool.from_rows(rows)
    draw_s, x = timed(lambda: unknown_counts(pool, a.aggregate_people, aggregates,
                                             rng(0, "project"), device=device))
    labels = g.random(aggregates) < 0.5
    shadow = AggregateSet(x=x + labels[:, None], labels=labels, unknown=None)
    data = AttackData(k=a.target_cells, target=np.ones(a.target_cells, dtype=np.float32),
                      shadow=shadow, test=shadow, mechanism="none", scale=0.0)
    saved = meta_classifier.MAX_STEPS
    meta_classifier.MAX_STEPS = meta_steps
    try:
        meta_s, out = timed(lambda: meta_classifier.attack(data, seed=0, device=device))
    finally:
        meta_classifier.MAX_STEPS = saved
    steps = max(1, int(out.details["training_steps"]))
    fit = 0.9 * a.shadows
    per_epoch = math.ceil(fit / min(meta_classifier.BATCH_SIZE, fit))
    expected = min(meta_classifier.MAX_STEPS,
                   per_epoch * est_location.constants("location")["meta_epochs"])
    location = draw_s * a.shadows / aggregates + meta_s * expected / steps
    return {"lira": lira, "location": location}


# --------------------------------------------------------------------------- the table

def _hours(seconds: float) -> str:
    return f"{seconds / 3600:,.3g} h" if seconds >= 360 else f"{seconds:,.3g} s"


def _bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:,.3g} {unit}"
    return f"{n:,.0f} B"


def _money(x: float) -> str:
    return f"${x:,.0f}" if x >= 10 else f"${x:,.2f}"


def _waves(units: float, unit_seconds: float, slots_per_node: int, a: Assumptions):
    """(nodes for the turnaround, hours on ``a.nodes`` nodes). A unit is not split: the units
    run in waves of one per slot (a slot: ``cores_per_unit`` cores, or one GPU), so a few long
    units take at least one unit's time however many nodes there are. Nodes: None when one
    unit alone takes longer than the turnaround."""
    slots_per_node = max(1, int(slots_per_node))
    hours = math.ceil(units / (slots_per_node * a.nodes)) * unit_seconds / 3600
    per_slot = math.floor(a.turnaround_hours * 3600 / unit_seconds) if unit_seconds > 0 \
        else math.inf
    if per_slot < 1:
        return None, hours
    nodes = 0 if units <= 0 else math.ceil(math.ceil(units / per_slot) / slots_per_node)
    return nodes, hours


def rows(a: Assumptions, jobs: list[Job]) -> list[dict]:
    """Each job's projected numbers (the table's rows, as numbers)."""
    out = []
    cpu_slots = a.cores_per_node // max(1, a.cores_per_unit)
    for job in jobs:
        core_hours = job.units * job.cpu_seconds * a.cores_per_unit / 3600
        nodes, hours = _waves(job.units, job.cpu_seconds, cpu_slots, a)
        row = {"job": job.name, "unit": job.unit, "units": job.units,
               "cpu_seconds": job.cpu_seconds, "core_hours": core_hours,
               "cpu_nodes_24h": nodes, "cpu_hours_on_nodes": hours,
               "cpu_cost": core_hours * a.core_hour_price, "memory": job.memory_bytes,
               "gpu_seconds": job.gpu_seconds, "gpu_note": job.gpu_note}
        if job.gpu_seconds is not None:
            gpu_hours = job.units * job.gpu_seconds / 3600
            nodes, hours = _waves(job.units, job.gpu_seconds, a.gpus_per_node, a)
            row.update(gpu_hours=gpu_hours, gpu_nodes_24h=nodes, gpu_hours_on_nodes=hours,
                       gpu_cost=gpu_hours * a.gpu_hour_price)
        out.append(row)
    return out


def _nodes(n) -> str:
    return "a unit alone takes longer" if n is None else f"{n:,}"


def table(a: Assumptions, jobs: list[Job], gpu_name: str | None) -> str:
    from engine.estimates import reference_machine

    lines = [
        f"Projection made {date.today().isoformat()} on {platform.machine()}, "
        f"{platform.system()}; CPU seconds per unit from the cost models' constants measured "
        f"on the reference machine ({reference_machine()}); GPU seconds per unit "
        + (f"measured here on {gpu_name}." if gpu_name else "not measured (no GPU here)."),
        "",
        "| job | unit | units | CPU s per unit (measured constants) | core-hours | CPU nodes "
        f"for {a.turnaround_hours:g} h | hours on {a.nodes} CPU nodes | CPU cost | "
        f"GPU s per unit | GPU-hours | GPU nodes for {a.turnaround_hours:g} h | hours on "
        f"{a.nodes} GPU nodes | GPU cost | memory per unit |",
        "|" + "---|" * 14,
    ]
    for r in rows(a, jobs):
        cpu = [f"{r['cpu_seconds']:,.3g}", f"{r['core_hours']:,.3g}", _nodes(r["cpu_nodes_24h"]),
               _hours(r["cpu_hours_on_nodes"] * 3600), _money(r["cpu_cost"])]
        if r["gpu_seconds"] is None:
            why = r["gpu_note"] or "not measured (no GPU here)"
            gpu = [why, "–", "–", "–", "–"]
        else:
            gpu = [f"{r['gpu_seconds']:,.3g}", f"{r['gpu_hours']:,.3g}",
                   _nodes(r["gpu_nodes_24h"]), _hours(r["gpu_hours_on_nodes"] * 3600),
                   _money(r["gpu_cost"])]
        lines.append(f"| {r['job']} | {r['unit']} | {r['units']:,.0f} | " + " | ".join(cpu)
                     + " | " + " | ".join(gpu) + f" | {_bytes(r['memory'])} |")
    lines += ["", "Assumptions (change them with --name value):", ""]
    lines += [f"- {f.name} = {getattr(a, f.name)}" for f in fields(a)]
    return "\n".join(lines)


def project(a: Assumptions, *, measure: bool = True) -> str:
    from engine.runtime import device

    gpu = device()
    gpu = gpu if gpu.startswith("cuda") and measure else None
    measured = measure_gpu(a, gpu) if gpu else {}
    gpu_name = None
    if gpu:
        import torch

        gpu_name = f"{torch.cuda.get_device_name(gpu)} ({gpu})"
    jobs = census_jobs(a) + [lira_job(a, measured.get("lira")),
                             location_job(a, measured.get("location"))]
    return table(a, jobs, gpu_name)


def parse(argv: list[str]) -> Assumptions:
    a = Assumptions()
    kinds = {f.name: type(getattr(a, f.name)) for f in fields(a)}
    changes = {}
    for i in range(0, len(argv) - 1, 2):
        name = argv[i].lstrip("-").replace("-", "_")
        if name not in kinds:
            raise SystemExit(f"Unknown assumption {argv[i]!r}; the names are: "
                             f"{', '.join(kinds)}.")
        kind = kinds[name]
        value = argv[i + 1]
        changes[name] = (tuple(int(v) for v in value.split(",")) if kind is tuple
                         else kind(value))
    return replace(a, **changes)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    print(project(parse(argv)), flush=True)


if __name__ == "__main__":
    main()
