"""Audit of a machine-learning model: "Does this model reveal who it was trained on?"
(papers 001 and 004 §4; method notes in docs/methods/model_audit.md). What is still missing
for issue 8 is listed in docs/dev/model_audit_status.md.

Two ways in, no code either way:

* ``source = "train"``: records from a CSV (or a bundled synthetic dataset) are split, seeded,
  into the attacker's *population* (data from the same distribution, never trained on by the
  audited model) and the *audit universe*; the audited model trains on a share of the
  universe (its members; a 0/1 members column can say which instead), the rest are the
  non-members it is measured on. The attacker trains *shadow models* on halves of its
  population (Shokri et al.; paper 001 §"shadow models") and *reference models* on halves of
  the universe (LiRA/RMIA's threat model: the attacker knows the candidate records and the
  training recipe). All small MLPs train as one stacked batch (engine.models.batched).
* ``source = "predictions"``: a CSV of the model's outputs (probabilities, logits or loss),
  the true label and whether each record was a training member — a model built elsewhere is
  audited without loading it. An optional second CSV of the same columns from a shadow model
  gives the attacker's data; without one, the attacker knows half of the members and
  non-members (the supervised threat model of paper 004 §4.3) and is measured on the rest.

Attacks (engine.attacks.model) score every audited record; thresholds come from shadow or
reference data, never from the records they are measured on. Theory: BTTA's exact metrics and
paper 001 Thm 2's bound — no attack that knows only the train and test accuracies does better —
from the model's own accuracies, drawn as a line on the ROC; the generalization gap overall and
per class.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from engine.audits.config_fields import (
    as_bool,
    as_choice,
    as_choice_list,
    as_number,
    begin_from_dict,
    common_fields,
)
from engine.audits.result import AuditResult, input_entry, input_warnings, software_versions
from engine.data.errors import InputError
from engine.defences.config import DefenceConfig
from engine.policy import VerdictPolicy
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch, device, rng

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("train", "predictions")
SYNTHETIC = ("purchase", "mixed")
FAMILIES = ("mlp", "logistic", "random_forest", "gradient_boosting")
ARCHITECTURES = ("small", "purchase")
PREDICTION_KINDS = ("probabilities", "logits", "loss")
ATTACKS = ("btta", "cbtta", "correctness", "confidence", "entropy", "modified_entropy", "top1",
           "ml_leaks", "shokri", "lira_online", "lira_offline", "rmia", "label_only")
DEFAULT_ATTACKS = ("btta", "cbtta", "confidence", "modified_entropy", "ml_leaks", "shokri",
                   "lira_online", "lira_offline", "rmia", "label_only")
NEEDS_REFERENCE = ("lira_online", "lira_offline", "rmia")
METRIC_ATTACKS = ("correctness", "confidence", "entropy", "modified_entropy", "top1")
PARTITIONS = ("PTL", "PPL", "PTC", "PPC", "PTL+PTC", "PPL+PPC")
# A loss per record gives the true class's probability p_y = exp(−loss) and nothing else: only
# the attack that reads p_y alone is exact; the others need every class's output.
LOSS_ONLY_ATTACKS = ("confidence",)
SUPERVISED_KNOWN = 0.5     # share of a predictions file's members (and non-members) the
                           # attacker knows without shadow predictions (paper 004 §4.3)
ATTRIBUTE_CLASSIFIERS = ("logistic", "boosting")
MAX_SENSITIVE_VALUES = 20
ATTRIBUTE_MARGIN = 0.02    # accuracy points below which "the model adds" is not worded as such


@dataclass(frozen=True)
class ModelConfig:
    """What the user audits. Field comments are the tooltips' short form."""

    schema_version: int = 1
    name: str = "Model audit"
    source: str = "train"             # train | predictions
    # --- train in the app
    data: str = ""                    # CSV, one record per row; "" = a synthetic dataset
    synthetic: str = "purchase"       # purchase (600 binary features, 100 classes) | mixed
    synthetic_records: int = 4000
    schema: dict = field(default_factory=dict)   # TabularSchema.to_dict(); {} = inferred
    label: str = ""                   # the label column ("" = a column named label/class/…)
    member_column: str = ""           # 0/1 column: 1 = trained on ("" = a seeded split)
    attacker_fraction: float = 0.5    # records held by the attacker, never trained on
    train_fraction: float = 0.5       # share of the rest the audited model trains on
    family: str = "mlp"               # mlp | logistic | random_forest | gradient_boosting
    architecture: str = "small"       # small | purchase (1024-512-256-128 tanh, paper 004)
    epochs: int = 30
    batch_size: int = 128
    weight_decay: float = 0.0
    # --- bring your own predictions
    predictions: str = ""             # CSV: outputs per record, label, member
    prediction_kind: str = "probabilities"   # probabilities | logits | loss
    reference_predictions: str = ""   # optional CSV of a shadow model's outputs, same columns
    # --- attacks
    attacks: tuple[str, ...] = DEFAULT_ATTACKS
    shadow_models: int = 8            # trained on halves of the attacker's population
    reference_models: int = 16        # trained on halves of the audit universe (LiRA, RMIA)
    cbtta_partition: str = "PTL"      # PTL | PPL | PTC | PPC | PTL+PTC | PPL+PPC
    sensitive_feature: str = ""       # attribute inference: a categorical feature ("" = off)
    attribute_classifier: str = "logistic"   # logistic | boosting
    exposed_count: int = 20           # most exposed members listed (row numbers)
    list_exposed_records: bool = False   # also their labels (values stay out otherwise)
    confidence: float = 0.95
    fpr_targets: tuple[float, ...] = (0.001, 0.01, 0.1)
    seed: int = 7
    policy: VerdictPolicy = field(default_factory=VerdictPolicy)
    # --- defences (issue 9): retrain with each defence, attack each, recommend one
    defences: DefenceConfig = field(default_factory=DefenceConfig)

    audit_type = "model"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["attacks"] = list(self.attacks)
        d["fpr_targets"] = list(self.fpr_targets)
        d["policy"] = self.policy.to_dict()
        d["defences"] = self.defences.to_dict()
        return {"audit_type": self.audit_type, **d}

    @classmethod
    def from_dict(cls, d: dict, source: str = "config") -> ModelConfig:
        """Validate a user dict; every problem is one InputError sentence naming the key."""
        d = begin_from_dict(cls, d, source)
        v = common_fields(d, source)
        for key in ("data", "label", "member_column", "predictions", "reference_predictions",
                    "sensitive_feature"):
            if key in d:
                v[key] = str(d[key])[:1000]
        choices = {"source": SOURCES, "synthetic": SYNTHETIC, "family": FAMILIES,
                   "architecture": ARCHITECTURES, "prediction_kind": PREDICTION_KINDS,
                   "cbtta_partition": PARTITIONS, "attribute_classifier": ATTRIBUTE_CLASSIFIERS}
        for key, allowed in choices.items():
            if key in d:
                v[key] = as_choice(source, key, d[key], allowed)
        integers = {"synthetic_records": (200, 1_000_000), "epochs": (1, 10_000),
                    "batch_size": (1, 100_000), "shadow_models": (1, 256),
                    "reference_models": (2, 1024), "exposed_count": (0, 10_000)}
        for key, (lo, hi) in integers.items():
            if key in d:
                v[key] = as_number(source, key, d[key], integer=True, minimum=lo, maximum=hi)
        for key in ("attacker_fraction", "train_fraction"):
            if key in d:
                v[key] = as_number(source, key, d[key], minimum=0, maximum=1,
                                   exclusive_minimum=True, exclusive_maximum=True)
        if "weight_decay" in d:
            v["weight_decay"] = as_number(source, "weight_decay", d["weight_decay"], minimum=0,
                                          maximum=10)
        if "attacks" in d:
            v["attacks"] = as_choice_list(source, "attacks", d["attacks"], ATTACKS,
                                          DEFAULT_ATTACKS)
        for key in ("schema",):
            if key in d:
                if not isinstance(d[key], dict):
                    raise InputError(f"{source}: '{key}' must be a table (got {d[key]!r}).",
                                     source=source, key=key)
                v[key] = dict(d[key])
        if "list_exposed_records" in d:
            v["list_exposed_records"] = as_bool(source, "list_exposed_records", d["list_exposed_records"])
        if "defences" in d:
            v["defences"] = DefenceConfig.from_dict(d["defences"], source)
        config = cls(**v)
        config.validate(source)
        return config

    def validate(self, source: str = "config") -> None:
        if self.source == "predictions" and not self.predictions:
            raise InputError(f"{source}: source = 'predictions' reads the model's outputs from "
                             "a CSV; set 'predictions' to it (or source = 'train').",
                             source=source, key="predictions")
        if self.defences.enabled:
            self.defences.validate(source)
            if self.source != "train":
                raise InputError(f"{source}: defences retrain the model, so they need its "
                                 "training data; a predictions file cannot be retrained. Set "
                                 "source = 'train' or switch the defences off "
                                 "([defences] enabled = false).", source=source,
                                 key="defences.enabled")
            if self.family != "mlp":
                raise InputError(f"{source}: the defences (KCD, DMP, DP-SGD, L2, early "
                                 f"stopping) train neural networks; the model family "
                                 f"'{self.family}' has no such training. Choose family = "
                                 "'mlp' or switch the defences off ([defences] enabled = "
                                 "false).", source=source, key="defences.enabled")

    def training_spec(self):
        from engine.models import TrainingSpec

        return TrainingSpec(family=self.family, architecture=self.architecture,
                            epochs=self.epochs if self.family == "mlp" else None,
                            batch_size=self.batch_size if self.family == "mlp" else None,
                            weight_decay=self.weight_decay, seed=self.seed)


def resolve_path(path: str) -> Path:
    """The file a typed path names: engine.data.paths.resolve_path, the loaders' one rule."""
    from engine.data.paths import resolve_path as resolve

    return resolve(path)


# --------------------------------------------------------------------------- the model's outputs

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


def _load_training_data(config: ModelConfig, cancel: CancelToken = NEVER):
    from engine.data.purchase import generate_mixed_table, generate_purchase
    from engine.data.tabular import TabularSchema, load_tabular_csv, tabular_from_frame

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


def split_records(config: ModelConfig, n: int, member_column: np.ndarray | None):
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


def train_and_query(config: ModelConfig, *, progress: Progress, cancel: CancelToken) -> Outputs:
    """Train the audited model, the shadow models and the reference models; their outputs."""
    from engine.attacks.model.base import ModelOutputs, ReferenceOutputs
    from engine.models import reference_tasks, train_many_mlps, train_model

    data, inputs = _load_training_data(config, cancel)
    cancel.check()
    X, y, k = data.X, data.y, data.n_classes
    if config.sensitive_feature:            # a wrong column name fails before any training
        sensitive_values(data, config.sensitive_feature)
    population, universe, inside = split_records(config, data.n_records, data.member)
    if inside.sum() < k or (~inside).sum() < 2 or population.size < 4:
        raise InputError(f"{data.source or 'the data'}: {data.n_records:,} records are too few "
                         f"to train on, keep non-members and give the attacker data; use more "
                         "records or lower 'attacker_fraction'.", key="data")
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
    sub = progress.span(0.3, 0.85)
    if config.family == "mlp":
        many = train_many_mlps(spec, X[stacked], y[stacked], k, masks, device=dev,
                               progress=sub, cancel=cancel)
        probs = many.predict_proba(X[stacked], cancel=cancel)         # (S + R, n_u + n_p, k)
    else:
        probs = np.zeros((masks.shape[0], stacked.size, k))
        for r, m in enumerate(masks):
            cancel.check()
            fitted = train_model(replace(spec, seed=int(seeds[r])), X[stacked][m],
                                 y[stacked][m], k, device=dev, cancel=cancel)
            probs[r] = fitted.predict_proba(X[stacked])
            sub((r + 1) / masks.shape[0], f"Shadow and reference models: {r + 1} of "
                                          f"{masks.shape[0]}")
    s = config.shadow_models
    shadow = ReferenceOutputs(probs[:s, n_u:], masks[:s, n_u:]).to_shadow(y[population])
    references = ReferenceOutputs(probs[s:, :n_u], masks[s:, :n_u]) if n_ref else None
    train_acc = float(np.mean(target_model.predict(X[members]) == y[members]))
    non = universe[~inside]
    test_acc = float(np.mean(target_model.predict(X[non]) == y[non]))
    model = {"family": config.family, "description": spec.describe(),
             "train_records": int(members.size), "test_records": int(non.size),
             "population_records": int(population.size), "classes": int(k),
             "features": int(X.shape[1]), "train_accuracy": train_acc,
             "test_accuracy": test_acc, "device": dev, "shadow_models": s,
             "reference_models": n_ref, **{f"training_{key}": v for key, v in
                                           (target_model.details or {}).items()
                                           if key in ("runtime_s", "device")}}
    attribute = None
    if config.sensitive_feature:
        cancel.check()
        progress(0.9, f"Attribute inference: {config.sensitive_feature}")
        attribute = attribute_game(config, data, target_model, population, universe, inside)
    return Outputs(target, shadow, references, data.rows[universe], tuple(data.class_labels),
                   model, inputs, "shadow", attribute=attribute)


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
    from engine.metrics import clopper_pearson, clustered_auc_ci

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


def attribute_game(config: ModelConfig, data, target_model, population, universe,
                   inside) -> dict:
    """Attribute inference (issue 8; engine.attacks.model.attribute): the attacker holds its
    population with their sensitive values, knows every other feature of the audited records
    and sees the model's outputs on them. Measured on members and on non-members apart, each
    beside the data-only baseline: what the model adds for members but not for non-members is
    what it memorised; what it adds for both is what it learnt about the population."""
    from engine.attacks.model.attribute import AttributeData, attack

    codes, values, cols = sensitive_values(data, config.sensitive_feature)
    known = np.delete(data.X, cols, axis=1)
    probs = {name: target_model.predict_proba(data.X[idx])
             for name, idx in (("population", population), ("universe", universe))}
    attacker = AttributeData(known[population], probs["population"], codes[population])
    if np.unique(codes[population]).size < 2:
        raise InputError(f"{data.source or 'the data'}: the attacker's records all have the same "
                         f"'{config.sensitive_feature}'; use more records or a feature with "
                         "several common values.", key="sensitive_feature")
    outcome = attack(attacker, AttributeData(known[universe], probs["universe"], None),
                     classifier=config.attribute_classifier, seed=config.seed)
    truth = codes[universe]
    prior = np.bincount(codes[population], minlength=len(values)) / population.size
    groups = {}
    for group, mask in (("members", inside), ("non_members", ~inside)):
        groups[group] = {which: _attribute_scores(p[mask], outcome.classes, truth[mask],
                                                  config.confidence)
                         for which, p in (("model", outcome.proba_model),
                                          ("baseline", outcome.proba_baseline))}
    return {"feature": config.sensitive_feature, "values": list(values),
            "classifier": config.attribute_classifier,
            "attacker_records": int(population.size),
            "majority_share": float(prior.max()),
            "majority_value": values[int(np.argmax(prior))],
            "members": groups["members"], "non_members": groups["non_members"],
            "features_model": outcome.details["features_model"],
            "features_baseline": outcome.details["features_baseline"]}


# --------------------------------------------------------------------------- predictions

def read_predictions(config: ModelConfig) -> Outputs:
    """The bring-your-own-predictions path (module docstring)."""
    from engine.attacks.model.base import ModelOutputs, supervised_split
    from engine.audits.predictions_intake import check_sizes, class_warnings
    from engine.data.predictions import load_predictions_csv

    path = resolve_path(config.predictions)
    pred = load_predictions_csv(path, kind=config.prediction_kind)
    loss_only = pred.probs is None
    if loss_only and not set(config.attacks) & set(LOSS_ONLY_ATTACKS):
        raise InputError(f"{path}: holds only a loss per record, which gives the true class's "
                         "probability and nothing else; of the attacks only 'confidence' works "
                         "from it. Add it to the attacks, or export every class's "
                         "probability (or logit).", source=str(path), key="attacks")
    target = ModelOutputs(_outputs_from(pred), pred.labels, pred.member)
    inputs = [input_entry(path, rows=pred.n_records, role="predictions")]
    evaluate_mask = None
    ref = None
    if config.reference_predictions:
        rpath = resolve_path(config.reference_predictions)
        ref = load_predictions_csv(rpath, kind=config.prediction_kind, like=pred)
    # Sizes against what the attacks need, before any of them (or their imports) runs.
    check_sizes(pred, path, has_shadow=ref is not None, known_fraction=SUPERVISED_KNOWN)
    if ref is not None:
        shadow = ModelOutputs(_outputs_from(ref), ref.labels, ref.member)
        inputs.append(input_entry(rpath, rows=ref.n_records, role="shadow predictions"))
        threat = "shadow"
    else:
        shadow, evaluate_mask = supervised_split(target, SUPERVISED_KNOWN, config.seed)
        threat = "supervised"
    notes = class_warnings(pred, path, shadow.labels, shadow.member, config.attacks,
                           rpath if ref is not None else None)
    model = {"family": "external", "description": f"predictions read from {path.name}",
             "train_records": int(pred.member.sum()),
             "test_records": int((~pred.member).sum()), "classes": int(pred.n_classes)}
    if loss_only:   # which class the model predicts is unknown: no accuracies
        model["mean_loss_members"] = float(np.mean(pred.loss[pred.member]))
        model["mean_loss_non_members"] = float(np.mean(pred.loss[~pred.member]))
    else:
        model["train_accuracy"] = float(np.mean(pred.correct[pred.member]))
        model["test_accuracy"] = float(np.mean(pred.correct[~pred.member]))
    return Outputs(target, shadow, None, np.asarray(pred.rows), tuple(pred.class_names), model,
                   inputs, threat, evaluate_mask, loss_only=loss_only, warnings=tuple(notes))


def _outputs_from(pred) -> np.ndarray:
    """Class probabilities of a predictions file. A loss-only file gives p_y = exp(−loss) for
    the true class; the rest is spread evenly over the other classes so the array is a valid
    distribution — only attacks in LOSS_ONLY_ATTACKS, which read p_y alone, may use it."""
    if pred.probs is not None:
        return pred.probs
    k = max(int(pred.n_classes), 2)
    py = np.exp(-np.asarray(pred.loss, dtype=np.float64))
    probs = np.repeat(((1.0 - py) / (k - 1))[:, None], k, axis=1)
    probs[np.arange(py.size), pred.labels] = py
    return probs


# --------------------------------------------------------------------------- attacks

def run_attacks(config: ModelConfig, out: Outputs, *, progress: Progress,
                cancel: CancelToken) -> list:
    """AttackOutcome per requested attack that the data allows, in the config's order."""
    from engine.attacks.model import btta, cbtta, label_only, lira, metric, ml_leaks, rmia
    from engine.attacks.model import shadow as shokri

    names = [a for a in config.attacks if a not in NEEDS_REFERENCE or out.references is not None]
    if out.loss_only:
        names = [a for a in names if a in LOSS_ONLY_ATTACKS]
    outcomes = []
    dev = device()
    for i, name in enumerate(names):
        cancel.check()
        if name == "btta":
            outcomes.append(btta.attack(out.target, btta.params_from_outputs(out.shadow),
                                        source="the attacker's shadow models"))
        elif name == "cbtta":
            outcomes.append(cbtta.attack(out.target, cbtta.fit(out.shadow,
                                                               config.cbtta_partition)))
        elif name in METRIC_ATTACKS:
            outcomes += metric.run(out.target, out.shadow, metrics=(name,))
        elif name == "ml_leaks":
            outcomes.append(ml_leaks.attack(out.target, out.shadow, seed=config.seed,
                                            device=dev, cancel=cancel))
        elif name == "shokri":
            outcomes.append(shokri.attack(out.target, out.shadow, seed=config.seed,
                                          device=dev, cancel=cancel))
        elif name in ("lira_online", "lira_offline"):
            outcomes.append(lira.attack(out.target, out.references,
                                        online=name == "lira_online"))
        elif name == "rmia":
            outcomes.append(rmia.attack(out.target, out.references))
        elif name == "label_only":
            outcomes.append(label_only.attack(out.target))
        progress((i + 1) / len(names), f"Attack {i + 1} of {len(names)}")
    return outcomes


def per_class_breakdown(outcome, member: np.ndarray, labels: np.ndarray, class_labels,
                        confidence: float) -> list[dict]:
    """One attack, class by class (issue 8, "per-class breakdown"): its AUC with the DeLong
    interval and its own decisions' TPR and FPR among the class's members and non-members.
    Classes with no member or no non-member among the evaluated records are left out. Paper
    004 §5 reports attacks per class because a class the model fits worse leaks more."""
    from engine.metrics import delong_auc_ci

    rows = []
    for k in np.unique(labels):
        mask = labels == k
        pos, neg = int(np.sum(member[mask])), int(np.sum(~member[mask]))
        if not pos or not neg:
            continue
        auc, ci = delong_auc_ci(outcome.scores[mask], member[mask], confidence)
        d = outcome.decisions[mask]
        rows.append({"class": str(class_labels[int(k)]) if int(k) < len(class_labels)
                     else str(int(k)),
                     "n_members": pos, "n_non_members": neg, "auc": auc, "auc_ci": list(ci),
                     "tpr": float(np.sum(d & member[mask]) / pos),
                     "fpr": float(np.sum(d & ~member[mask]) / neg)})
    return rows


def exposed_members(config: ModelConfig, out: Outputs, outcome, evaluated: np.ndarray) -> list:
    """The members the strongest attack is surest about: row numbers (and labels if asked)."""
    member = np.asarray(out.target.member)
    idx = np.flatnonzero(member & evaluated)
    order = idx[np.argsort(-outcome.scores[idx], kind="stable")][:config.exposed_count]
    rows = []
    for rank, i in enumerate(order, start=1):
        entry = {"rank": rank, "row": int(out.rows[i]), "score": float(outcome.scores[i]),
                 "attack": outcome.name}
        if config.list_exposed_records:
            entry["label"] = str(out.class_labels[int(out.target.labels[i])])
        rows.append(entry)
    return rows


def run(config: ModelConfig, *, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> AuditResult:
    """The model audit (module docstring)."""
    if not isinstance(config, ModelConfig):
        raise TypeError("run() needs a ModelConfig")
    config.validate()
    clock = Stopwatch()
    with_defences = config.defences.enabled
    # With defences, the audit itself takes about the first third of the time (a default
    # sweep trains ~20 models against the audit's ~25 smaller stacked ones, and attacks each).
    audit_part = progress.span(0.0, 0.35) if with_defences else progress
    if config.source == "train":
        out = train_and_query(config, progress=audit_part.span(0.0, 0.7), cancel=cancel)
    else:
        audit_part(0.0, "Reading the predictions")
        out = read_predictions(config)
    # Imported once the inputs are read and checked: scipy.stats alone took 7 s of the 8 s a
    # 3-record predictions file waited for its refusal on a busy machine (issue 18).
    from engine.attacks.model import btta
    from engine.attacks.model.base import evaluate
    from engine.attacks.model.label_only import generalization_gap

    outcomes = run_attacks(config, out, progress=audit_part.span(0.7, 0.95), cancel=cancel)
    member = np.asarray(out.target.member)
    evaluated = out.evaluate_mask if out.evaluate_mask is not None else np.ones_like(member)
    attacks = []
    labels = np.asarray(out.target.labels)[evaluated.astype(bool)]
    for o in outcomes:
        if out.evaluate_mask is not None:
            o.scores, o.decisions = o.scores[evaluated], o.decisions[evaluated]
        entry = evaluate(o, member[evaluated], delta=0.0, confidence=config.confidence,
                         fpr_targets=config.fpr_targets)
        entry["per_class"] = per_class_breakdown(o, member[evaluated].astype(bool), labels,
                                                 out.class_labels, config.confidence)
        attacks.append(entry)
    policy = config.policy
    best_tpr, best_acc = policy.strongest(attacks)
    level, reasons = policy.level(best_tpr, best_acc)
    strongest = max(attacks, key=lambda a: (next((r["tpr"] for r in a["tpr_at_fpr"]
                                                  if abs(r["fpr_target"] - policy.fpr) < 1e-12),
                                                 0.0), a["auc"])) if attacks else None
    exposed = []
    if strongest is not None:
        best_outcome = next(o for o in outcomes if o.name == strongest["name"])
        full_scores = np.zeros(member.size)
        full_scores[np.flatnonzero(evaluated)] = best_outcome.scores
        best_outcome.scores = full_scores
        exposed = exposed_members(config, out, best_outcome, evaluated.astype(bool))
    theory = {"model": out.model, "threat_model": out.threat,
              "strongest": None if strongest is None else {
                  "name": strongest["name"], "label": strongest["label"],
                  "auc": strongest["auc"], "accuracy": strongest["accuracy"]}}
    if not out.loss_only:
        # Thm 2 from the model's own train/test accuracy: what knowing only those allows.
        own = btta.params_from_outputs(out.target)
        gap = generalization_gap(out.target, config.confidence)
        for row in gap["per_class"]:
            row["class"] = str(out.class_labels[row["class"]])
        theory["btta_bound"] = {
            "params": own.to_dict(), "expected": btta.expected_metrics(own),
            "accuracy_bound": btta.accuracy_bound(own),
            "balanced_accuracy_bound": btta.balanced_accuracy_bound(own),
            "roc": btta.roc_bound(own),
            "source": "the model's train/test accuracy (paper 001 Thm 2)"}
        theory["generalization_gap"] = gap
    if out.attribute is not None:
        theory["attribute_inference"] = out.attribute
    m = out.model
    if out.loss_only:
        summary = (f"The model's mean loss is {m['mean_loss_members']:.3g} on its training "
                   f"records and {m['mean_loss_non_members']:.3g} on others. ")
    else:
        summary = (f"The model is right on {m['train_accuracy']:.0%} of its training records "
                   f"and {m['test_accuracy']:.0%} of others. ")
    if strongest is not None:
        tpr = next((r["tpr"] for r in strongest["tpr_at_fpr"]
                    if abs(r["fpr_target"] - policy.fpr) < 1e-12), 0.0)
        summary += (f"The strongest attack ({strongest['label'].split(':')[0]}) tells members "
                    f"from non-members with AUC {strongest['auc']:.2f} and finds {tpr:.1%} of "
                    f"the members while wrongly accusing {policy.fpr:.0%} of the others")
        if "btta_bound" in theory:
            summary += (f"; knowing only the two accuracies, no attack's balanced accuracy "
                        f"exceeds {theory['btta_bound']['balanced_accuracy_bound']:.0%}")
        summary += "."
    summary += "".join(" " + i["missing_values"]["sentence"] for i in out.inputs
                       if i.get("missing_values"))
    if out.attribute is not None:
        summary += " " + attribute_sentence(out.attribute)
    warnings = list(out.warnings)
    if out.references is None and set(config.attacks) & set(NEEDS_REFERENCE) \
            and not out.loss_only:
        warnings.append("LiRA and RMIA need reference models trained like the audited one; "
                        "with predictions from elsewhere they were not run.")
    if out.loss_only:
        skipped = [a for a in config.attacks if a not in LOSS_ONLY_ATTACKS]
        warnings.append("The predictions hold one loss per record: only the confidence attack "
                        "(the true class's probability, exp(−loss)) could run"
                        + (f"; skipped: {', '.join(skipped)}" if skipped else "")
                        + ". Without the predicted class the accuracies, the generalization "
                        "gap and paper 001's bound are unknown.")
    if config.sensitive_feature and out.attribute is None:
        warnings.append("Attribute inference needs the records' features; a predictions file "
                        "holds only the model's outputs, so it was not run.")
    if out.threat == "supervised":
        warnings.append("No shadow predictions were given: the attacker is assumed to know "
                        "half of the members and non-members (paper 004 §4.3) and is measured "
                        "on the other half.")
    attachments = {}
    if with_defences:
        from engine.defences.audit import run_defences

        theory["defences"], attachments["tradeoff"] = run_defences(
            config, progress=progress.span(0.35, 1.0), cancel=cancel)
        summary += " " + theory["defences"]["summary"]
    progress(1.0, "Done")
    return AuditResult(
        audit_type="model", name=config.name, seed=config.seed, config=config.to_dict(),
        software=software_versions(device()), runtime_s=round(clock.elapsed(), 3),
        attacks=attacks, baselines=[], theory=theory,
        verdict={"level": level, "policy": policy.name, "policy_rules": policy.rules(),
                 "reasons": reasons},
        summary=summary, warnings=warnings + input_warnings(out.inputs), inputs=out.inputs,
        exposed_records=exposed,
        attachments=attachments)


def attribute_sentence(a: dict) -> str:
    """The attribute game in plain words, with its reading (shared by the summary, the page
    and the report): what the model adds for members beyond what it adds for people it never
    saw is what it memorised about them; what it adds for both is population statistics."""
    mem, non = a["members"], a["non_members"]
    gain_mem = mem["model"]["accuracy"] - mem["baseline"]["accuracy"]
    gain_non = non["model"]["accuracy"] - non["baseline"]["accuracy"]
    text = (f"Predicting '{a['feature']}' from the model's outputs is right for "
            f"{mem['model']['accuracy']:.0%} of the training members and "
            f"{non['model']['accuracy']:.0%} of the non-members; from the other features "
            f"alone, {mem['baseline']['accuracy']:.0%} and {non['baseline']['accuracy']:.0%} "
            f"(always guessing '{a['majority_value']}': {a['majority_share']:.0%}).")
    if gain_mem - gain_non > ATTRIBUTE_MARGIN:
        text += (" The model helps more for its members: it leaks their value beyond what it "
                 "learnt about the population.")
    elif max(gain_mem, gain_non) > ATTRIBUTE_MARGIN:
        text += (" The model helps about as much for people it never saw: it learnt how the "
                 "feature relates to the others in the population — a statistical inference, "
                 "not a leak of its training records.")
    else:
        text += " The model adds little to what the other features already tell."
    return text


def demo_config() -> ModelConfig:
    """The bundled example: an MLP trained on 4,000 purchase-style records (600 binary
    features, 100 classes; paper 004 §4.1), the attacker holding half of them, every attack
    with 8 shadow and 16 reference models; then the defences step with issue 9's sweep (KCD at
    5 α, DMP at 3 temperatures, L2 at 3 strengths, DP-SGD at 3 noise levels) judged against
    TPR ≤ 2 % at 1 % FPR."""
    return ModelConfig(name="Sample: MLP on purchase-style records", synthetic="purchase",
                       synthetic_records=4000, epochs=30, shadow_models=8,
                       reference_models=16, defences=DefenceConfig(enabled=True))
