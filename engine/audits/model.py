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

The game itself — loading, the split, training and querying the models, playing the attacks
and the attribute game — is engine.games.model; this module keeps the config, the predictions
intake, ``run`` and the wording, and calls the defences step (engine.defences) when asked.

Attacks (engine.attacks.model) score every audited record; thresholds come from shadow or
reference data, never from the records they are measured on. Theory: BTTA's exact metrics and
paper 001 Thm 2's bound — no attack that knows only the train and test accuracies does better —
from the model's own accuracies, drawn as a line on the ROC; the generalization gap overall and
per class.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from engine.attacks.model.base import SUPERVISED_KNOWN, ModelOutputs, supervised_split
from engine.audits.predictions_intake import check_sizes, class_warnings, predictions_entry
from engine.compute import ComputeSettings, one_executor_per_job
from engine.data.errors import InputError, given_value
from engine.data.paths import resolve_path
from engine.data.predictions import load_predictions_csv
from engine.defences.audit import run_defences
from engine.defences.config import DefenceConfig
from engine.defences.tradeoff import DefenceSetting
from engine.defences.tradeoff import tradeoff as run_tradeoff
from engine.evidence import verdict_block
from engine.games.model import (
    LOSS_ONLY_ATTACKS,
    Outputs,
    run_attacks,
    train_and_query,
)
from engine.games.model_measure import exposed_of, measure
from engine.games.model_summary import (
    model_summary,
    model_theory,
    model_warnings,
)
from engine.models import TrainingSpec
from engine.policy import VerdictPolicy
from engine.results.config_fields import (
    as_bool,
    as_choice,
    as_choice_list,
    as_number,
    begin_from_dict,
    common_fields,
)
from engine.results.result import AuditResult, input_warnings, software_versions
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch, device

SOURCES = ("train", "predictions")
SYNTHETIC = ("purchase", "mixed")
FAMILIES = ("mlp", "logistic", "random_forest", "gradient_boosting")
ARCHITECTURES = ("small", "purchase")
PREDICTION_KINDS = ("probabilities", "logits", "loss")
ATTACKS = ("btta", "cbtta", "correctness", "confidence", "entropy", "modified_entropy", "top1",
           "ml_leaks", "shokri", "lira_online", "lira_offline", "rmia", "label_only")
DEFAULT_ATTACKS = ("btta", "cbtta", "confidence", "modified_entropy", "ml_leaks", "shokri",
                   "lira_online", "lira_offline", "rmia", "label_only")
PARTITIONS = ("PTL", "PPL", "PTC", "PPC", "PTL+PTC", "PPL+PPC")
ATTRIBUTE_CLASSIFIERS = ("logistic", "boosting")


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
    # --- where the shadow, reference and defended models train (issue 22 item 6)
    compute: ComputeSettings = field(default_factory=ComputeSettings)

    audit_type = "model"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["attacks"] = list(self.attacks)
        d["fpr_targets"] = list(self.fpr_targets)
        d["policy"] = self.policy.to_dict()
        d["defences"] = self.defences.to_dict()
        d["compute"] = self.compute.to_dict()
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
                    raise InputError(f"{source}: the data's description must be a table "
                                     f"of settings (got {given_value(d[key])}).",
                                     source=source, key=key, setting=key)
                v[key] = dict(d[key])
        if "list_exposed_records" in d:
            v["list_exposed_records"] = as_bool(source, "list_exposed_records", d["list_exposed_records"])
        if "defences" in d:
            v["defences"] = DefenceConfig.from_dict(d["defences"], source)
        if "compute" in d:
            v["compute"] = ComputeSettings.from_dict(d["compute"], source)
        config = cls(**v)
        config.validate(source)
        return config

    def validate(self, source: str = "config") -> None:
        if self.source == "predictions" and not self.predictions:
            raise InputError(f"{source}: auditing from the model's predictions reads its "
                             "outputs from a CSV; choose that file as the predictions file (or "
                             "train the model here instead).", source=source,
                             key="predictions", setting="predictions")
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
        return TrainingSpec(family=self.family, architecture=self.architecture,
                            epochs=self.epochs if self.family == "mlp" else None,
                            batch_size=self.batch_size if self.family == "mlp" else None,
                            weight_decay=self.weight_decay, seed=self.seed)


# --------------------------------------------------------------------------- predictions

def read_predictions(config: ModelConfig) -> Outputs:
    """The bring-your-own-predictions path (module docstring)."""
    path = resolve_path(config.predictions)
    pred = load_predictions_csv(path, kind=config.prediction_kind)
    loss_only = pred.probs is None
    if loss_only and not set(config.attacks) & set(LOSS_ONLY_ATTACKS):
        raise InputError(f"{path}: holds only a loss per record, which gives the true class's "
                         "probability and nothing else; of the attacks only the confidence "
                         "check works from it. Add it to the attacks, or export every class's "
                         "probability (or logit).", source=str(path), key="attacks")
    target = ModelOutputs(_outputs_from(pred), pred.labels, pred.member)
    inputs = [predictions_entry(pred, path, role="predictions")]
    evaluate_mask = None
    ref = None
    if config.reference_predictions:
        rpath = resolve_path(config.reference_predictions)
        ref = load_predictions_csv(rpath, kind=config.prediction_kind, like=pred)
    # Sizes against what the attacks need, before any of them (or their imports) runs.
    check_sizes(pred, path, has_shadow=ref is not None, known_fraction=SUPERVISED_KNOWN)
    if ref is not None:
        shadow = ModelOutputs(_outputs_from(ref), ref.labels, ref.member)
        inputs.append(predictions_entry(ref, rpath, role="shadow predictions"))
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








# One executor for the whole job: one private Ray instance for cluster = "local" (issue 22).
@one_executor_per_job
def run(config: ModelConfig, *, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> AuditResult:
    """The model audit (module docstring): config → game (train and query, or read the
    predictions) → attacks → headline → defences → result."""
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
    outcomes = run_attacks(config, out, progress=audit_part.span(0.7, 0.95), cancel=cancel)
    attacks, ranked = measure(config, out, outcomes, cancel=cancel)
    # One headline (engine.headline): the verdict, the summary, the report and the results
    # page all quote the same attack and figures; a rate that is not measurable is never one.
    # Only attacks that beat guessing after Holm's correction over all of them raise the
    # level (engine.evidence, issue 32 item 2).
    verdict, head, _evidence = verdict_block(attacks, config.policy,
                                             confidence=config.confidence,
                                             units="test records of both groups")
    strongest = next((a for a in attacks if a["name"] == head.name), None)
    exposed = exposed_of(config, out, strongest, outcomes, ranked)
    # The strongest attack is the verdict's headline (verdict.headline below); theory no
    # longer repeats it (issue 19 item 5: one place to read it).
    theory = model_theory(config, out)
    summary = model_summary(config, out, attacks, head, strongest, theory)
    warnings = model_warnings(config, out, ranked)
    attachments = {}
    if with_defences:
        theory["defences"], attachments["tradeoff"] = run_defences(
            config, undefended=attacks, progress=progress.span(0.35, 1.0), cancel=cancel)
        summary += " " + theory["defences"]["summary"]
    progress(1.0, "Done")
    return AuditResult(
        audit_type="model", name=config.name, seed=config.seed, config=config.to_dict(),
        software=software_versions(device()), runtime_s=round(clock.elapsed(), 3),
        attacks=attacks, baselines=[], theory=theory,
        verdict=verdict,
        summary=summary, warnings=warnings + input_warnings(out.inputs), inputs=out.inputs,
        exposed_records=exposed,
        attachments=attachments)




def export_setting(result: dict, index: int, directory, *, tradeoff=None,
                   progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> dict:
    """Write the model of trade-off row ``index`` of a model audit's ``result`` (its dict) into
    ``directory``: from ``tradeoff`` (this session's fitted models) when given, else trained
    again from the result's config — the same seed and records give the same model (every
    random stream comes from the config's seed) — and measured again for its card. Here, not in
    engine.defences, because it reads the audit's config back from the result."""
    block = (result.get("theory") or {}).get("defences") or {}
    rows = block.get("rows") or []
    row = next((r for r in rows if r.get("index") == index), None)
    if row is None:
        raise InputError(f"The result has no defence setting number {index}; run the audit "
                         "with defences first.", key="defences")
    name = _file_stem(row["label"])
    if tradeoff is not None:
        progress(0.5, f"Writing {row['label']}")
        return tradeoff.export(index, directory, name=name)
    config = ModelConfig.from_dict(result["config"], source="the result's config")
    setting = DefenceSetting.of(row["defence"], row.get("knobs") or {})
    d = config.defences
    fprs = d.fpr_targets()
    again = run_tradeoff(config, [setting], reference_csv=d.dmp_reference,
                         extra_fpr_targets=fprs, progress=progress, cancel=cancel)
    position = next(i for i, r in enumerate(again.rows) if r["label"] == row["label"])
    return again.export(position, directory, name=name)


def _file_stem(label: str) -> str:
    """'KCD α = 0.5' → 'model_KCD_alpha_0.5' (a file name that every system accepts)."""
    words = {"α": "alpha", "σ": "sigma", "λ": "lambda", "ε": "epsilon"}
    for symbol, word in words.items():
        label = label.replace(symbol, word)
    safe = "".join(c if c.isalnum() or c in ".-" else "_" for c in label)
    while "__" in safe:
        safe = safe.replace("__", "_")
    return "model_" + safe.strip("_")[:80]


def demo_config() -> ModelConfig:
    """The bundled example, quick (issue 33 item 3: every sample finishes in under 2 minutes on
    2 quiet cores): an MLP trained for 20 epochs on 4,000 purchase-style records (600 binary
    features, 100 classes; paper 004 §4.1), the attacker holding half of them, every default
    attack with 8 shadow and 16 reference models; then the defences step at one setting per
    defence (KCD α = 0.5, DMP T = 4, L2 λ = 0.01, DP-SGD σ = 2), each also trained as 2
    reference models under its defence so that LiRA and RMIA judge it, against TPR ≤ 2 % at
    1 % FPR. The full sweep is :func:`thorough_config`."""
    return ModelConfig(name="Sample: neural network on purchase-style records", synthetic="purchase",
                       synthetic_records=4000, epochs=20, shadow_models=8,
                       reference_models=16,
                       defences=DefenceConfig(enabled=True, kcd_alphas=(0.5,),
                                              dmp_temperatures=(4.0,), l2_weight_decays=(0.01,),
                                              dpsgd_noise_multipliers=(2.0,),
                                              reference_models=2))


def thorough_config() -> ModelConfig:
    """The thorough sample (issue 33 item 3; the sample before it): the same data and attacks,
    the model trained for 30 epochs, then issue 9's whole sweep (KCD at 5 α, DMP at 3
    temperatures, L2 at 3 strengths, DP-SGD at 3 noise levels), each setting also trained as 4
    reference models under its defence: minutes, not seconds (its estimate is shown where it is
    offered)."""
    return ModelConfig(name="Thorough sample: neural network on purchase-style records, every "
                            "defence setting", synthetic="purchase",
                       synthetic_records=4000, epochs=30, shadow_models=8,
                       reference_models=16,
                       defences=DefenceConfig(enabled=True, reference_models=4))
