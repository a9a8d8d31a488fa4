"""The model game (issue 19 item 1): load the training records, split them into the attacker's
population and the audit universe (members and non-members), train the audited model and the
attacker's shadow and reference models, query them, and play the membership attacks and the
attribute-inference game on their outputs (papers 001 and 004 §4; method notes in
docs/methods/model_audit.md).

The model audit (engine.audits.model) keeps its config, its run and its wording and calls this
game; the defences (engine.defences) call it too, to retrain and attack each defended model the
same way, and never the audit. The game reads its settings from any object with the fields of
:class:`ModelGameSettings` (the audit's ModelConfig has them), so it imports nothing above it.

It sits above engine.attacks, because it plays them, and below the defences and the audits
(docs/dev/layers.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from engine.attacks.model import ATTACKS as MODEL_ATTACKS
from engine.attacks.model.attribute import AttributeData
from engine.attacks.model.attribute import attack as attribute_attack
from engine.attacks.model.base import ModelOutputs, ReferenceOutputs
from engine.attacks.real_people import obvious_value, real_people
from engine.compute import cluster_of, run_units
from engine.data.errors import InputError
from engine.data.paths import resolve_path
from engine.data.purchase import generate_mixed_table, generate_purchase
from engine.data.tabular import TabularSchema, load_tabular_csv, tabular_from_frame
from engine.metrics import clopper_pearson, clustered_auc_ci
from engine.models import (
    TrainingSpec,
    reference_tasks,
    tasks_from_masks,
    train_many_mlps,
    train_model,
)
from engine.models.batched import cpu_group_size
from engine.policy import VerdictPolicy
from engine.results.result import input_entry
from engine.runtime import NEVER, CancelToken, Progress, device, rng

# Attacks that need reference models trained like the audited one on the audit universe.
NEEDS_REFERENCE = ("lira_online", "lira_offline", "rmia")
METRIC_ATTACKS = ("correctness", "confidence", "entropy", "modified_entropy", "top1")
# A loss per record gives the true class's probability p_y = exp(−loss) and nothing else: only
# the attack that reads p_y alone is exact; the others need every class's output.
LOSS_ONLY_ATTACKS = ("confidence",)
MAX_SENSITIVE_VALUES = 20


class ModelGameSettings(Protocol):
    """What the game reads from its settings (engine.audits.model.ModelConfig has all of it;
    the field comments there are the meanings)."""

    data: str
    synthetic: str
    synthetic_records: int
    schema: dict
    label: str
    member_column: str
    attacker_fraction: float
    train_fraction: float
    family: str
    attacks: tuple[str, ...]
    shadow_models: int
    reference_models: int
    cbtta_partition: str
    sensitive_feature: str
    attribute_classifier: str
    confidence: float
    seed: int
    # Read by the measuring and the summary (engine.games.model_measure, model_summary).
    exposed_count: int
    list_exposed_records: bool
    fpr_targets: tuple[float, ...]
    policy: VerdictPolicy

    def training_spec(self) -> TrainingSpec: ...


@dataclass
class Outputs:
    """What the attacks see: the audited model's outputs on the audit universe (with the
    membership truth, for evaluation only), the attacker's shadow outputs, and the reference
    models' outputs on the universe (or None)."""

    target: object                    # ModelOutputs, member = truth
    shadow: object                    # ModelOutputs, member known to the attacker
    references: object | None         # ReferenceOutputs on the universe
    rows: np.ndarray                  # (n,) CSV row numbers of the audited records
    class_labels: tuple
    model: dict                       # what was trained / read
    inputs: list
    threat: str                       # "shadow" | "supervised"
    evaluate_mask: np.ndarray | None = None   # supervised: the records not known to the attacker
    loss_only: bool = False           # the file held one loss per record (p_y only)
    attribute: dict | None = None     # the attribute-inference game's results, when asked
    warnings: tuple = ()              # sentences about the inputs, for result.json's warnings


def load_training_data(config: ModelGameSettings, cancel: CancelToken = NEVER):
    """(records, input entries): the CSV of ``config.data`` read with its schema, or the
    bundled synthetic dataset (no input entry) when no file is named."""
    if not config.data:
        if config.synthetic == "purchase":
            return generate_purchase(config.seed, config.synthetic_records, cancel=cancel), []
        frame = generate_mixed_table(config.seed, config.synthetic_records)
        return tabular_from_frame(frame, label="defaulted", source="synthetic mixed table"), []
    path = resolve_path(config.data)
    schema = TabularSchema.from_dict(config.schema, source=f"{path.name}, schema") \
        if config.schema else None
    data = load_tabular_csv(path, schema, label=config.label or None,
                            member_column=config.member_column or None)
    entry = input_entry(path, rows=data.n_records, role="training data")
    if data.missing_values:             # what was done with empty cells (issue 21)
        entry["missing_values"] = data.missing_values
    return data, [entry]


def split_records(config: ModelGameSettings, n: int, member_column: np.ndarray | None):
    """(population, universe, member-in-universe): seeded, disjoint. With a members column,
    the attacker's population is drawn from the non-members only."""
    g = rng(config.seed, "model-split")
    if member_column is not None:
        members = np.flatnonzero(member_column)
        others = g.permutation(np.flatnonzero(~member_column))
        k = int(round(config.attacker_fraction * others.size))
        population = np.sort(others[:k])
        universe = np.sort(np.r_[members, others[k:]])
        return population, universe, member_column[universe]
    order = g.permutation(n)
    k = int(round(config.attacker_fraction * n))
    population, universe = np.sort(order[:k]), np.sort(order[k:])
    inside = np.zeros(universe.size, dtype=bool)
    inside[g.permutation(universe.size)[:int(round(config.train_fraction * universe.size))]] = True
    return population, universe, inside


def train_and_query(config: ModelGameSettings, *, progress: Progress, cancel: CancelToken) -> Outputs:
    """Train the audited model, the shadow models and the reference models; their outputs."""

    data, inputs = load_training_data(config, cancel)
    cancel.check()
    X, y, k = data.X, data.y, data.n_classes
    if config.sensitive_feature:            # a wrong column name fails before any training
        sensitive_values(data, config.sensitive_feature)
    population, universe, inside = split_records(config, data.n_records, data.member)
    if inside.sum() < k or (~inside).sum() < 2 or population.size < 4:
        raise InputError(f"{data.source or 'the data'}: {data.n_records:,} records are too few "
                         f"to train on, keep non-members and give the attacker data; use more "
                         "records or lower the attacker's share.", key="data",
                         setting="attacker_fraction")
    spec = config.training_spec()
    dev = device()
    members = universe[inside]
    progress(0.0, "Training the audited model")
    target_model = train_model(spec, X[members], y[members], k, device=dev,
                               progress=progress.span(0.0, 0.3), cancel=cancel)
    target = ModelOutputs(target_model.predict_proba(X[universe]), y[universe], inside)

    # Shadow models on halves of the population; reference models on halves of the universe;
    # one stacked batch for MLPs (rows: universe then population).
    wanted = set(config.attacks)
    n_ref = config.reference_models if wanted & set(NEEDS_REFERENCE) else 0
    stacked = np.r_[universe, population]
    n_u = universe.size
    masks, seeds = [], []
    shadow_tasks = reference_tasks(config.shadow_models, config.seed, population.size,
                                   design="fixed_size")
    for t in shadow_tasks:
        m = np.zeros(stacked.size, dtype=bool)
        m[n_u:] = t.mask(population.size)
        masks.append(m)
        seeds.append(t.seed)
    if n_ref:
        for t in reference_tasks(n_ref, config.seed + 1, n_u, design="balanced"):
            m = np.zeros(stacked.size, dtype=bool)
            m[:n_u] = t.mask(n_u)
            masks.append(m)
            seeds.append(t.seed)
    masks = np.array(masks)
    # The stack is trained in parts, each an independent unit of engine.compute (issue 22
    # item 6): the same groups the batched trainer forms on its own, so the numbers are those
    # of one call over the whole stack, wherever the parts run.
    stack = StackInputs(spec=spec, X=X[stacked], y=y[stacked], k=k, device=dev, masks=masks,
                        seeds=tuple(int(x) for x in seeds),
                        parts=stack_parts(spec, masks.shape[0], X.shape[1], k, dev),
                        n_shadow=int(config.shadow_models))
    parts, where = run_units(cluster_of(config), train_stack_part, len(stack.parts), stack,
                             progress=progress.span(0.3, 0.85), cancel=cancel,
                             message="Shadow and reference models",
                             weights=[len(p) for p in stack.parts])
    probs = np.concatenate(parts)                       # (S + R, n_u + n_p, k)
    s = config.shadow_models
    shadow = ReferenceOutputs(probs[:s, n_u:], masks[:s, n_u:]).to_shadow(y[population])
    references = ReferenceOutputs(probs[s:, :n_u], masks[s:, :n_u]) if n_ref else None
    train_acc = float(np.mean(target_model.predict(X[members]) == y[members]))
    non = universe[~inside]
    test_acc = float(np.mean(target_model.predict(X[non]) == y[non]))
    model = {"family": config.family, "description": spec.describe(),
             "train_records": int(members.size), "test_records": int(non.size),
             "population_records": int(population.size), "classes": int(k),
             # Counted as the user's table counts them (issue 32 item 6): "features" is
             # the inputs the columns become (one per category, "was missing" flags).
             "feature_columns": len(data.schema.features),
             "features": int(X.shape[1]), "train_accuracy": train_acc,
             "test_accuracy": test_acc, "device": dev, "shadow_models": s,
             "reference_models": n_ref, **{f"training_{key}": v for key, v in
                                           (target_model.details or {}).items()
                                           if key in ("runtime_s", "device")},
             "computed_on": where}
    attribute = None
    if config.sensitive_feature:
        cancel.check()
        progress(0.9, f"Attribute inference: {config.sensitive_feature}")
        attribute = attribute_game(config, data, target_model, population, universe, inside)
    return Outputs(target, shadow, references, data.rows[universe], tuple(data.class_labels),
                   model, inputs, "shadow", attribute=attribute)


# --------------------------------------------------------------------------- the stack as units

@dataclass(frozen=True)
class StackInputs:
    """What every part of the shadow-and-reference stack reads (one copy per cluster)."""

    spec: TrainingSpec
    X: np.ndarray                     # the stacked rows: universe then population
    y: np.ndarray
    k: int
    device: str
    masks: np.ndarray                 # (S + R, rows): model r trains where masks[r]
    seeds: tuple[int, ...]            # model r's seed for the families trained one at a time
    parts: tuple[tuple[int, ...], ...]   # the models of each unit, in stack order
    n_shadow: int = 0                 # models 0 … n_shadow − 1 are shadows, the rest references


def stack_parts(spec: TrainingSpec, n_models: int, n_features: int, k: int,
                dev: str) -> tuple[tuple[int, ...], ...]:
    """The models of each unit: for MLPs the groups engine.models.batched trains as one stack
    on this device (all on a GPU, :func:`~engine.models.batched.cpu_group_size` on a CPU) —
    a different grouping changes the last bits of the weights — and one model per unit for
    the families trained one at a time."""
    if spec.family != "mlp":
        return tuple((r,) for r in range(n_models))
    size = n_models if not str(dev).startswith("cpu") else \
        cpu_group_size(spec.resolved(), n_features, k)
    return tuple(tuple(range(i, min(i + size, n_models))) for i in range(0, n_models, size))


def train_stack_part(index: int, shared: StackInputs, progress: Progress,
                     cancel: CancelToken) -> np.ndarray:
    """Part ``index`` of the stack (a unit of :mod:`engine.compute`): its models trained and
    queried on every stacked row, (models, rows, k). Each model draws from its own seed alone
    (``task_seed(spec.seed, r)`` for MLPs), so a part gives the same numbers wherever it runs."""
    part = list(shared.parts[index])
    X, y, k = shared.X, shared.y, shared.k
    if shared.spec.family == "mlp":
        tasks = tasks_from_masks(shared.masks.astype(bool), shared.spec.seed)
        # The progress line names what this part trains ("Training 2 shadow models"): the
        # walk-through read "Training 6 reference models" for 2 shadows and 4 references.
        shadows = sum(r < shared.n_shadow for r in part)
        what = ("shadow model" if shadows == len(part) else "reference model" if not shadows
                else "shadow and reference model")
        many = train_many_mlps(shared.spec, X, y, k, tasks=[tasks[r] for r in part],
                               device=shared.device, group_size=len(part), what=what,
                               progress=progress, cancel=cancel)
        return many.predict_proba(X, cancel=cancel)
    out = np.zeros((len(part), X.shape[0], k))
    for j, r in enumerate(part):
        cancel.check()
        m = shared.masks[r]
        fitted = train_model(replace(shared.spec, seed=shared.seeds[r]), X[m], y[m], k,
                             device=shared.device, cancel=cancel)
        out[j] = fitted.predict_proba(X)
    return out


# --------------------------------------------------------------------------- attribute inference

def sensitive_values(data, name: str):
    """(codes, value names, columns): the sensitive feature's value per record as a code into
    the value names, and the encoded columns that carry it (the attacker does not know them).

    A categorical feature is read back from its one-hot block; a numeric one qualifies when it
    takes at most MAX_SENSITIVE_VALUES distinct values (e.g. a 0/1 flag)."""
    where = data.source or "the data"
    try:
        col = data.schema.column(name)
    except (KeyError, ValueError, InputError):
        raise InputError(f"{where}: there is no column '{name}' to infer; choose the sensitive "
                         f"feature among: {', '.join(data.schema.features[:12])}"
                         f"{' …' if len(data.schema.features) > 12 else ''}.",
                         source=where, key="sensitive_feature") from None
    if not col.is_feature:
        raise InputError(f"{where}: '{name}' is the {col.role} column, not a feature the model "
                         "reads; choose one of its input features as the sensitive feature.",
                         source=where, key="sensitive_feature")
    names = list(data.feature_names)
    if col.kind == "categorical":
        cols = np.array([names.index(n) for n in col.encoded_names()])
        codes = np.argmax(data.X[:, cols], axis=1)
        values = tuple(str(c) for c in col.categories)
    else:
        cols = np.array([names.index(name)])
        raw = data.X[:, cols[0]]
        distinct, codes = np.unique(raw, return_inverse=True)
        if distinct.size > MAX_SENSITIVE_VALUES:
            raise InputError(f"{where}: '{name}' takes {distinct.size:,} different numbers; "
                             "attribute inference predicts a category. Choose a categorical "
                             f"feature (or one with at most {MAX_SENSITIVE_VALUES} values), or "
                             "band the numbers in the CSV first.",
                             source=where, key="sensitive_feature")
        if col.scale and col.mean is not None and col.sd:
            distinct = distinct * col.sd + col.mean        # back to the CSV's numbers
        values = tuple(f"{v:g}" for v in distinct)
    if np.unique(codes).size < 2:
        raise InputError(f"{where}: '{name}' takes one value in every record; there is nothing "
                         "to infer. Choose another sensitive feature.", source=where,
                         key="sensitive_feature")
    return codes.astype(np.int64), values, cols


def _attribute_scores(proba: np.ndarray, classes: np.ndarray, truth: np.ndarray,
                      confidence: float) -> dict:
    """Top-1 accuracy (Clopper–Pearson) and the one-vs-rest AUC (clustered by record:
    engine.metrics.clustered_auc_ci) of one predictor on some records."""

    pred = classes[np.argmax(proba, axis=1)]
    hits = int(np.sum(pred == truth))
    out = {"records": int(truth.size), "accuracy": hits / truth.size,
           "accuracy_ci": list(clopper_pearson(hits, truth.size, confidence))}
    labels = (truth[:, None] == classes[None, :])
    if labels.any() and not labels.all():
        auc, ci = clustered_auc_ci(proba.reshape(-1), labels.reshape(-1),
                                   np.repeat(np.arange(truth.size), classes.size), confidence)
        out["auc"], out["auc_ci"] = auc, list(ci)
    return out


def attribute_game(config: ModelGameSettings, data, target_model, population, universe,
                   inside) -> dict:
    """Attribute inference (issue 8; engine.attacks.model.attribute): the attacker holds its
    population with their sensitive values, knows every other feature of the audited records
    and sees the model's outputs on them. Measured on members and on non-members apart, each
    beside the data-only baseline: what the model adds for members but not for non-members is
    what it memorised; what it adds for both is what it learnt about the population."""

    codes, values, cols = sensitive_values(data, config.sensitive_feature)
    known = np.delete(data.X, cols, axis=1)
    probs = {name: target_model.predict_proba(data.X[idx])
             for name, idx in (("population", population), ("universe", universe))}
    attacker = AttributeData(known[population], probs["population"], codes[population])
    if np.unique(codes[population]).size < 2:
        raise InputError(f"{data.source or 'the data'}: the attacker's records all have the same "
                         f"'{config.sensitive_feature}'; use more records or a feature with "
                         "several common values.", key="sensitive_feature")
    outcome = attribute_attack(attacker, AttributeData(known[universe], probs["universe"], None),
                     classifier=config.attribute_classifier, seed=config.seed)
    truth = codes[universe]
    prior = np.bincount(codes[population], minlength=len(values)) / population.size
    # The officer's baseline (issue 32 item 1): the most common value among the people in
    # the data, said for everyone; the known-features classifier is the data-only guess.
    obvious = obvious_value(codes, len(values))
    guess = {which: outcome.classes[np.argmax(p, axis=1)]
             for which, p in (("model", outcome.proba_model),
                              ("baseline", outcome.proba_baseline))}
    groups = {}
    for group, mask in (("members", inside), ("non_members", ~inside)):
        groups[group] = {which: _attribute_scores(p[mask], outcome.classes, truth[mask],
                                                  config.confidence)
                         for which, p in (("model", outcome.proba_model),
                                          ("baseline", outcome.proba_baseline))}
        groups[group]["real_people"] = real_people(
            guess["model"][mask] == truth[mask], truth[mask] == obvious,
            obvious_label=values[obvious],
            data_only_correct=guess["baseline"][mask] == truth[mask],
            confidence=config.confidence)
    return {"feature": config.sensitive_feature, "values": list(values),
            "classifier": config.attribute_classifier,
            "attacker_records": int(population.size),
            "majority_share": float(prior.max()),
            "majority_value": values[int(np.argmax(prior))],
            "members": groups["members"], "non_members": groups["non_members"],
            # The people the model was trained on are the ones at risk: their block is the
            # attack's real-people figure (engine.attacks.real_people; the non-members' is
            # under "non_members").
            "real_people": groups["members"]["real_people"],
            "features_model": outcome.details["features_model"],
            "features_baseline": outcome.details["features_baseline"]}


def run_attacks(config: ModelGameSettings, out: Outputs, *, progress: Progress,
                cancel: CancelToken) -> list:
    """AttackOutcome per requested attack that the data allows, in the config's order; each
    from its entry of the table engine.attacks.model.ATTACKS."""

    names = [a for a in config.attacks if a not in NEEDS_REFERENCE or out.references is not None]
    if out.loss_only:
        names = [a for a in names if a in LOSS_ONLY_ATTACKS]
    outcomes = []
    dev = device()
    for i, name in enumerate(names):
        cancel.check()
        # The config's check admits only names of the table; the loop skipped others before
        # the table too.
        if name in MODEL_ATTACKS:
            outcomes += MODEL_ATTACKS[name](out, config, device=dev, cancel=cancel)
        progress((i + 1) / len(names), f"Attack {i + 1} of {len(names)}")
    return outcomes
