"""Cost model of the machine-learning model audit (engine/audits/model.py) and its defences
(engine/defences).

Sizes: n records (the synthetic table's or the CSV's, :mod:`engine.estimates.probe`), d
encoded features, k classes; the split of engine.audits.model.split_records (the attacker's
population, the audit universe, the audited model's members); the architecture's layers.

* **Training an MLP** is steps × the time of one step. A step of a stack of m models
  (engine.models.batched: shadows and references train together) multiplies
  m × batch × (multiply-adds of one row), forward and backward; its time was measured over that
  product (``step_seconds``: small steps are overhead, large ones run at the cores' speed) —
  so the estimate follows the thread choice and stacking of engine.models.mlp.
  Steps = epochs × ⌈largest model's records / batch⌉.
* **Predictions** of every model on every record: multiply-adds × ``predict_seconds_per_mac``.
* **Attacks**: per attack, seconds per (record × class) (the attack classifiers of ML-Leaks
  and Shokri, the thresholds, the per-class breakdown, the intervals); LiRA and RMIA also read
  every reference model's output (× references).
* **Other families** (logistic regression, random forest, gradient boosting): seconds per
  model per (record × feature × class), measured on scikit-learn's fits.
* **Defences** (issue 9): the trade-off trains, per defence, the stacks of
  engine.defences.tradeoff._train_all (KCD: n teachers on (n−1)/n of the members, then one
  student per α; DMP: one student per temperature on the reference records — students train
  until the stack's slowest has converged, :func:`student_epochs` times the recipe's epochs
  (by its α or temperature); L2: one per
  strength; early stopping: one; DP-SGD: one per setting at ``dpsgd_factor`` times a plain
  model, per-sample gradients being its cost) and attacks each setting with the 8 supervised
  attacks. When the audit runs LiRA or RMIA, every setting is also trained again as
  ``[defences] reference_models`` reference models under its defence (issue 22 item 1:
  engine.defences.tradeoff.defended_references trains the whole sweep once per reference
  model, on about as many records as the audited model), so the training counts
  (1 + reference models) times, and LiRA/RMIA read every reference model's output per
  setting — the audit's heaviest job.

Memory: the data (n × d float32, twice: the table and the training tensor), the stacked
parameters with their gradients and Adam moments (4 copies), a step's activations, and the
(models × records × classes) float64 probabilities every model's outputs are kept as — the
largest item when there are many reference models — times ``bytes_factor`` plus
``bytes_fixed`` (what numpy and torch allocate beside the arrays named here; the scikit-learn
families have their own pair, ``family_bytes_*``). The trade-off's measuring of a setting (the
8 supervised attacks, no attack models on shadows) has its own cost, ``tradeoff_measure_seconds``
(fixed + per record × class), and DP-SGD a set-up time ``dpsgd_fixed_seconds`` beside its
per-sample-gradient factor.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace

import numpy as np

from engine.attacks.model.base import SUPERVISED_KNOWN
from engine.data.paths import resolve_path
from engine.defences.config import reference_models_run
from engine.defences.tradeoff import SUPERVISED_ATTACKS
from engine.estimates import CostEstimate, CostPart, constants
from engine.estimates.probe import csv_shape
from engine.estimates.scaling import loglog
from engine.games.model import NEEDS_REFERENCE
from engine.models.spec import ARCHITECTURES


def data_size(config) -> tuple[int, int, int]:
    """(records, encoded features, classes) without reading the data."""
    if config.source == "predictions":
        shape = csv_shape(_path(config.predictions))
        if shape is None:
            return 1000, 0, 10
        classes = max(2, len(shape.columns) - 3)     # id, label, member + a column per class
        return max(shape.rows, 1), 0, classes
    if not config.data:
        if config.synthetic == "purchase":
            return int(config.synthetic_records), 600, 100
        return int(config.synthetic_records), 24, 2
    shape = csv_shape(_path(config.data))
    if shape is None:
        return 1000, 10, 2
    label = config.label or _guess_label(shape.columns)
    schema = (config.schema or {}).get("columns") or []
    width, classes = 0, 2
    if schema:
        for col in schema:
            role, kind = col.get("role"), col.get("kind", "numeric")
            if role == "feature":
                width += max(1, len(col.get("categories") or [])) if kind == "categorical" else 1
            elif role == "label":
                classes = max(2, len(col.get("categories") or []) or classes)
    for name, distinct, numeric in zip(shape.columns, shape.distinct, shape.numeric,
                                       strict=False):
        if name == label:
            classes = max(classes, distinct)
        elif not schema and name != config.member_column:
            # Inferred schemas one-hot a text column (and drop an id-like one).
            width += 1 if numeric or distinct > 0.9 * max(shape.rows, 1) else distinct
    return max(shape.rows, 1), max(width, 1), max(classes, 2)


def _guess_label(columns) -> str:
    for name in columns:
        if name.strip().lower() in ("label", "class", "target", "y", "outcome"):
            return name
    return columns[-1] if columns else ""


def _path(path: str):
    return resolve_path(path)


def layer_sizes(config, d: int, k: int) -> tuple[int, ...]:
    return (d, *ARCHITECTURES[config.architecture].hidden, k)


def macs_per_row(sizes) -> int:
    return int(sum(a * b for a, b in zip(sizes[:-1], sizes[1:], strict=False)))


def training_seconds(models: int, records: float, epochs: int, batch: int, macs: int) -> float:
    """Time to train a stack of ``models`` MLPs on ``records`` rows each (engine.models.mlp)."""
    CAL = constants("model")
    if models <= 0 or records <= 0:
        return 0.0
    b = int(min(batch, max(records, 1)))
    steps = epochs * math.ceil(records / b)
    # Each call also sets up its tensors and optimiser once (bench/estimates_model_parts).
    return CAL.get("training_call_seconds", 0.0) \
        + steps * loglog(CAL["step_seconds"], models * b * macs)


def training_bytes(models: int, batch: int, sizes) -> float:
    params = sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:], strict=False))
    activations = batch * sum(sizes[1:]) * 3            # forward values, their gradients
    return 4.0 * models * (4 * params + activations)


def estimate(config) -> CostEstimate:
    CAL = constants("model")
    n, d, k = data_size(config)
    parts: list[CostPart] = _startup_parts(config)      # empty once torch has started
    resident = 8.0 * n * max(d, 1)
    attacks = [a for a in config.attacks]
    if config.source == "predictions":
        parts.append(CostPart(f"Reading the predictions ({n:,} records)",
                              CAL["load_seconds_per_cell"] * n * k, 8.0 * n * k, "predictions",
                              "load"))
        # Without a reference predictions file the attacker's known half of the file is the
        # shadow outputs (engine.audits.model.supervised_split).
        parts.append(_attacks_part(attacks, n, k, 0, shadow_rows=SUPERVISED_KNOWN * n))
        return _scaled(8.0 * n * k, "predictions", parts, "bytes")

    parts.append(CostPart(f"Reading or drawing the data ({n:,} records)",
                          CAL["load_seconds_per_cell"] * n * max(d, 1), 0.0,
                          "synthetic_records" if not config.data else "data", "load"))
    population = config.attacker_fraction * n
    universe = n - population
    members = config.train_fraction * universe
    n_ref = config.reference_models if set(attacks) & set(NEEDS_REFERENCE) else 0
    n_shadow = config.shadow_models
    stacked_models = n_shadow + n_ref
    if config.family == "mlp":
        sizes = layer_sizes(config, d, k)
        macs = macs_per_row(sizes)
        target_s = training_seconds(1, members, config.epochs, config.batch_size, macs)
        # Stacked shadows (half the population each) and references (about half the universe).
        stack_rows = max(population / 2 if n_shadow else 0, universe / 2 if n_ref else 0)
        stack_s = training_seconds(stacked_models, stack_rows, config.epochs,
                                   config.batch_size, macs)
        predict_s = CAL["predict_seconds_per_mac"] * (stacked_models + 1) * n * macs
        parts.append(CostPart(f"Training the audited model ({members:,.0f} records × "
                              f"{config.epochs} epochs)", target_s,
                              training_bytes(1, config.batch_size, sizes), "epochs",
                              "training"))
        setting = "reference_models" if n_ref >= n_shadow else "shadow_models"
        parts.append(CostPart(f"Training {stacked_models:,} shadow and reference models "
                              f"together ({config.epochs} epochs)", stack_s + predict_s,
                              training_bytes(stacked_models, config.batch_size, sizes)
                              + 8.0 * stacked_models * n * k, setting, "training"))
    else:
        per_model = loglog(CAL["family_seconds"][config.family], n / 2 * max(d, 1) * k)
        parts.append(CostPart(f"Training {stacked_models + 1:,} {config.family.replace('_', ' ')}"
                              " models one after another", per_model * (stacked_models + 1),
                              8.0 * (stacked_models + 1) * n * k,
                              "shadow_models" if n_shadow >= n_ref else "reference_models",
                              "training"))
    # Every shadow model's outputs on the whole population, in or out (games.model: the
    # shadow stack's outputs reshaped by ReferenceOutputs.to_shadow).
    parts.append(_attacks_part(attacks, universe, k, n_ref, shadow_rows=n_shadow * population))
    if config.sensitive_feature:
        parts.append(CostPart("Attribute inference", CAL["attack_seconds_per_cell"] * 4 * n * k,
                              8.0 * n * (d + k), "sensitive_feature", "attribute"))
    if config.defences.enabled and config.family == "mlp":
        parts.append(_defences_part(config, members, universe - members, d, k))
    return _scaled(resident, "synthetic_records" if not config.data else "data", parts,
                   "bytes" if config.family == "mlp" else "family_bytes")


def _scaled(resident: float, setting: str, parts: list[CostPart], kind: str) -> CostEstimate:
    """The estimate with every byte count scaled by a measured factor and a fixed part added
    (what numpy, torch or scikit-learn allocate beside the arrays the parts name): ``bytes``
    for MLPs, ``family_bytes`` for the scikit-learn families (their fits copy and bin the
    data)."""
    CAL = constants("model")
    f = CAL.get(f"{kind}_factor", 1.0)
    fixed = CAL.get(f"{kind}_fixed", 0.0)
    return CostEstimate.from_parts("model", f * resident + fixed, setting,
                                   [replace(p, bytes=f * p.bytes) for p in parts])


# The attacks that train models of their own (the attack models of Shokri et al. and
# ML-Leaks): with them, even a predictions file starts torch's training code.
TRAINING_ATTACKS = ("ml_leaks", "shokri")


def _startup_parts(config) -> list[CostPart]:
    """Torch's training code loads the first time a model trains in this process (its compiler
    package, ~2 s on the reference machine: bench/estimates_model_parts); counted while it
    has not happened yet, so a second run in the same session is not estimated longer than
    it takes."""
    CAL = constants("model")
    trains = (config.source != "predictions" and config.family == "mlp") \
        or bool(set(config.attacks) & set(TRAINING_ATTACKS))
    if not trains or "torch._dynamo" in sys.modules or not CAL.get("startup_seconds"):
        return []
    return [CostPart("Loading the training library (once per session)",
                     CAL["startup_seconds"], 0.0, "", "startup")]


def attack_seconds(name: str, records: float, k: int, n_ref: int,
                   shadow_rows: float | None = None) -> float:
    """One attack on ``records`` audited records × ``k`` classes: its measured fixed cost plus
    its cost per cell (× the reference models for LiRA and RMIA); the shared per-cell
    constants for a table measured before the per-attack costs.

    Shokri's and ML-Leaks' attack models train on the shadow outputs (every shadow model's
    outputs on its half of the attacker's population: ``shadow_rows`` rows), not on the audited
    records, so their cells are shadow rows × classes (issue 33 item 5: counted on the audited
    records, the quick model sample's Shokri attack was estimated 1.8 s for a 15 s run with
    8 shadow models)."""
    CAL = constants("model")
    refs = n_ref if name in NEEDS_REFERENCE else 1
    rows = shadow_rows if (name in TRAINING_ATTACKS and shadow_rows is not None) else records
    costs = CAL.get("attack_costs", {})
    if name in costs:
        fixed, per_cell = costs[name]
        return fixed + per_cell * rows * k * refs
    per_cell = CAL["reference_attack_seconds_per_cell" if name in NEEDS_REFERENCE
                   else "attack_seconds_per_cell"]
    return per_cell * rows * k * refs


def _attacks_part(attacks, records: float, k: int, n_ref: int,
                  shadow_rows: float | None = None) -> CostPart:
    plain = [a for a in attacks if a not in NEEDS_REFERENCE]
    with_ref = [a for a in attacks if a in NEEDS_REFERENCE] if n_ref else []
    seconds = sum(attack_seconds(a, records, k, n_ref, shadow_rows) for a in plain + with_ref)
    memory = 8.0 * records * k * (4 + (n_ref * 2 if with_ref else 0))
    return CostPart(f"{len(plain) + len(with_ref)} attacks on {records:,.0f} records", seconds,
                    memory, "reference_models" if with_ref else "attacks", "attacks")


def defence_seconds(config, members: float | None = None, held_out: float | None = None,
                    ) -> dict[str, float]:
    """Seconds of each defence of the trade-off sweep, its settings attacked (the undefended
    model under "none"): the stacks of engine.defences.tradeoff._train_all (module docstring).
    ``members`` / ``held_out``: the audited model's training records and the records it never
    saw (default: from the config's data and split)."""
    CAL = constants("model")
    n, d, k = data_size(config)
    if members is None or held_out is None:
        universe = n - config.attacker_fraction * n
        members = config.train_fraction * universe
        held_out = universe - members
    dc = config.defences
    macs = macs_per_row(layer_sizes(config, d, k))
    e, b = config.epochs, config.batch_size
    one = training_seconds(1, members, e, b, macs)
    # Measuring one setting: the supervised attacks' metrics on the audit universe, and LiRA /
    # RMIA over the defended reference models' outputs when they are re-run.
    fixed, per_cell = CAL.get("tradeoff_measure_seconds",
                              [0.0, len(SUPERVISED_ATTACKS) * CAL["attack_seconds_per_cell"]])
    n_ref = reference_models_run(dc, config.attacks)
    with_ref = [a for a in config.attacks if a in NEEDS_REFERENCE] if n_ref else []
    cells = (members + held_out) * k
    attack = fixed + per_cell * cells \
        + sum(attack_seconds(a, members + held_out, k, n_ref) for a in with_ref) \
        + CAL["predict_seconds_per_mac"] * n_ref * (members + held_out) * macs
    # The reference models of a setting train on balanced halves of the audit universe —
    # about as many records as the audited model's members — under the same defence.
    copies = 1 + n_ref
    out = {"none": copies * one + attack}
    if dc.kcd_alphas:
        t = dc.kcd_teachers
        students = student_epochs("kcd", dc.kcd_alphas, members)
        out["kcd"] = (copies * (training_seconds(t, members * (t - 1) / t, e, b, macs)
                                + training_seconds(len(dc.kcd_alphas), members, e, b, macs)
                                * students)
                      + len(dc.kcd_alphas) * attack)
    if dc.dmp_temperatures:
        ref = dc.dmp_reference_size or held_out
        students = student_epochs("dmp", dc.dmp_temperatures, ref)
        out["dmp"] = (copies * training_seconds(len(dc.dmp_temperatures), ref, e, b, macs)
                      * students + len(dc.dmp_temperatures) * attack)
    if dc.l2_weight_decays:
        out["l2"] = (copies * training_seconds(len(dc.l2_weight_decays), members, e, b, macs)
                     + len(dc.l2_weight_decays) * attack)
    if dc.early_stopping_epochs:
        out["early_stopping"] = (copies * training_seconds(1, members,
                                                           max(dc.early_stopping_epochs), b,
                                                           macs)
                                 + len(dc.early_stopping_epochs) * attack)
    n_dp = len(dc.dpsgd_noise_multipliers) + len(dc.dpsgd_target_epsilons)
    if n_dp:
        # DP-SGD's Opacus trainer takes one model at a time: its reference models too.
        out["dp_sgd"] = n_dp * (copies * (CAL.get("dpsgd_fixed_seconds", 0.0)
                                          + CAL["dpsgd_factor"] * one) + attack)
    return out


def student_epochs(defence: str, knobs, records: float) -> float:
    """How many times the recipe's epochs a defence's stack of distilled students trains.

    Students train "until the training converges" (paper 004 Alg. 1 step 3, Alg. 2 step 6;
    engine.models.mlp.Convergence), all of a defence's students as one stack that steps until
    the last of them has converged — so the stack costs its slowest student's epochs. How long
    a student takes depends on its knob — KCD's α, the weight of the soft labels (α = 1 fits
    the teachers' soft labels to the tolerance: 31 to 38 times the recipe's epochs in the
    calibration's runs; α ≤ 0.25 about the recipe's), DMP's temperature T — and on the
    ``records`` it trains on. ``CAL["kcd_student_epochs"]`` / ``["dmp_student_epochs"]`` are
    ``[[records, [[knob, epochs ÷ recipe epochs], …]], …]``: counted (not timed) in the
    calibration's runs at two sizes; linear between knobs, log-linear between sizes, the
    nearest outside both.
    """
    CAL = constants("model")
    tables = CAL.get(f"{defence}_student_epochs")
    if not tables:                              # constants from before the tables
        return float(CAL.get("student_epochs", 1.0))

    def at_size(table) -> float:
        knob = np.array([row[0] for row in table], dtype=float)
        factor = np.array([row[1] for row in table], dtype=float)
        order = np.argsort(knob)
        return max(float(np.interp(float(v), knob[order], factor[order])) for v in knobs)

    sizes = np.log(np.array([float(size) for size, _ in tables]))
    factors = np.array([at_size(table) for _, table in tables])
    order = np.argsort(sizes)
    return float(np.interp(math.log(max(float(records), 1.0)), sizes[order], factors[order]))


def _defences_part(config, members: float, held_out: float, d: int, k: int) -> CostPart:
    """The trade-off sweep of engine.defences.tradeoff: :func:`defence_seconds` summed; its
    memory is the largest stack's training plus every setting's outputs."""
    dc = config.defences
    sizes = layer_sizes(config, d, k)
    settings = 1 + len(dc.kcd_alphas) + len(dc.dmp_temperatures) + len(dc.l2_weight_decays) \
        + len(dc.early_stopping_epochs) + len(dc.dpsgd_noise_multipliers) \
        + len(dc.dpsgd_target_epsilons)
    biggest_stack = max([1, dc.kcd_teachers if dc.kcd_alphas else 1, len(dc.kcd_alphas),
                         len(dc.dmp_temperatures), len(dc.l2_weight_decays)])
    n_ref = reference_models_run(dc, config.attacks)
    # Counted as the summary and the report count them (engine.defences.audit): the defence
    # settings, with the undefended model that every one is compared with named apart, so the
    # estimate never says 14 where the results say 13 (issue 32 item 6).
    defended = settings - 1
    what = (f"Defences: the undefended model and {defended} defence "
            f"setting{'' if defended == 1 else 's'} trained and attacked")
    if n_ref:
        what += (f", each trained again as {n_ref} reference models under its defence for "
                 "the attacks that train copies of the model")
    # Memory: the largest stack, every setting's outputs, and the reference models' outputs
    # on the audit universe (float32, kept per setting for LiRA and RMIA).
    universe = members + held_out
    return CostPart(what, sum(defence_seconds(config, members, held_out).values()),
                    training_bytes(biggest_stack, config.batch_size, sizes)
                    + 8.0 * settings * members * k * 2 + 4.0 * settings * n_ref * universe * k,
                    "defences.reference_models" if n_ref else "defences.enabled", "defences")
