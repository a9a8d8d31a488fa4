"""Privacy–utility trade-off of the model defences, and the recommended setting (issue 9).

:func:`tradeoff` takes the model audit's description of what is audited (its ModelConfig, read
through :class:`TradeoffSettings`: data, split, architecture, epochs, seed) and a list
of defence settings, trains each defended model on the audited model's training records, and
measures every one the same way:

* **utility** — accuracy on the audit's non-members (the records no model trained on), with
  its Clopper–Pearson interval; training accuracy; the generalization gap;
* **risk** — the model game's attacks (engine.games.model.run_attacks) under the
  *supervised* threat model of paper 004 §4.3: the attacker knows half of the members and half
  of the non-members (the same halves for every setting) and is measured on the other halves.
  That is the setting paper 004 evaluates KCD and DMP in, and the attacker then queries the
  defended model itself, so no shadow model has to be trained with each defence;
* **the strongest attacks of the audit** — LiRA and RMIA (issue 22 item 1), when the audit asks
  for them and ``reference_models`` ≥ 2: the attacker knows the defence (Kerckhoffs's
  principle, the standard for evaluating defences), so every reference model is trained *under
  the same defence and recipe* as the setting it attacks, on a balanced half of the audit
  universe, exactly as the audit's own reference models are (engine.games.model). Reference
  model r trains the whole sweep on its half with one call of :func:`_train_all` — the same
  stacks as the audited sweep (KCD's students of every α, all L2 strengths, all DMP settings
  each one stack of engine.models.batched; DP-SGD's Opacus trainer one model at a time) — so
  setting i's reference models are model i of every reference sweep. Its seed is
  ``task_seed(seed of the config's stream "defences/reference-models", r)``: same config and
  seed, same numbers. The attacks are scored on the same evaluated half as the supervised
  ones, so every attack of a row is measured on the same records.

  For each metric the *strongest* of all these attacks is reported — the largest AUC, balanced accuracy, TPR at each FPR target (with the interval
  of that attack) and empirical ε lower bound (engine.auditing, at the stated δ) — and the
  setting's one strongest attack by the audit's headline rule (engine.headline), which the
  sentences name;
* **DP-SGD only** — the accountant's ε beside the empirical lower bound, and the (ε, δ)-DP
  region on the ROC (paper 002 Thm 1) with whether every attack's ROC stays inside it.

:func:`recommend` picks the setting that keeps the strongest attack under the user's limit
(e.g. TPR ≤ 2 % at 1 % FPR) at the least loss of test accuracy, or says plainly that none
does and what to try instead.

Speed: the undefended model is also DMP's teacher; KCD's teachers are shared by every α of a
sweep; the students of all α, all L2 strengths and all DMP settings train as stacks; early
stopping at several epoch counts is one run (engine.defences.baselines).

Where: the sweep's jobs (:func:`sweep_parts`) and the reference models under each defence
(one per reference model) are independent units of engine.compute (issue 22 item 6), run in
this process or on the Ray cluster of the config's ``[compute]`` table; each keeps its stacks
whole and draws from its own seed, so the numbers are the same wherever they run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from engine.attacks.model.base import (
    ModelOutputs,
    ReferenceOutputs,
    evaluate,
    supervised_split,
)
from engine.attacks.model.label_only import generalization_gap
from engine.attacks.outcome import AttackOutcome
from engine.auditing import empirical_epsilon_lower_bound
from engine.compute import Executor, InProcessExecutor, cluster_of, executor_for
from engine.data.errors import InputError, given_value
from engine.defences.baselines import early_stopping_many, l2_many, undefended
from engine.defences.common import DEFENCES
from engine.defences.dmp import DMPSetting, dmp_many, load_reference_csv
from engine.defences.dpsgd import dp_sgd
from engine.defences.export import export_model, export_predictions, training_data_sha256
from engine.defences.kcd import DEFAULT_TEACHERS, kcd_many
from engine.games.model import (
    NEEDS_REFERENCE,
    ModelGameSettings,
    Outputs,
    load_training_data,
    resolve_path,
    run_attacks,
    split_records,
)
from engine.headline import headline, same_rate, tpr_at
from engine.mechanisms.tradeoff import dp_region_tpr_upper
from engine.metrics import min_negatives_for
from engine.models import reference_tasks
from engine.results.result import to_plain
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch, rng
from engine.runtime import device as default_device
from engine.wording import plain_name  # the attacks by their plain names, not their codes

# Attacks that read only the model's outputs on the attacker's known records (paper 004 §4.4:
# the metric attacks, ML-Leaks; plus BTTA/CBTTA of paper 001 and Shokri's per-class attack).
SUPERVISED_ATTACKS = ("btta", "cbtta", "confidence", "entropy", "modified_entropy", "top1",
                      "ml_leaks", "shokri")
KNOBS = {"none": None, "kcd": "alpha", "dmp": "temperature", "dp_sgd": "noise_multiplier",
         "l2": "weight_decay", "early_stopping": "epochs"}
OPTIONS = {"none": (), "kcd": ("n_teachers", "temperature"),
           "dmp": ("drop_high_entropy", "reference_size"),
           "dp_sgd": ("clip_norm", "target_epsilon"), "l2": (), "early_stopping": ()}
KNOB_SYMBOLS = {"alpha": "α", "temperature": "T", "noise_multiplier": "σ",
                "weight_decay": "λ", "epochs": "epochs", "n_teachers": "teachers",
                "drop_high_entropy": "drop", "reference_size": "reference",
                "clip_norm": "C", "target_epsilon": "target ε"}
# The same settings in plain words (issue 20: the summary and the first page carry no Greek
# letters but ε and δ, and no acronyms).
PLAIN_DEFENCES = {"none": "no defence", "kcd": "cross-distillation",
                  "dmp": "distillation on reference data", "dp_sgd": "private training",
                  "l2": "weight decay", "early_stopping": "early stopping"}
PLAIN_KNOBS = {"alpha": "mixing share", "temperature": "temperature",
               "noise_multiplier": "noise multiplier", "weight_decay": "",
               "epochs": "after epochs"}
RISK_METRICS = ("tpr", "auc", "accuracy", "advantage", "epsilon")
# The fewest reference models LiRA and RMIA are re-run with on defended models: each record
# must be inside at least one and outside at least one (the balanced design of
# engine.models.batched.reference_tasks).
MIN_REFERENCE_MODELS = 2
KNOWN_FRACTION = 0.5          # the attacker's share of members and non-members (§4.3)
_REGION_FPR = np.r_[0.0, np.logspace(-4, 0, 81)]


# --------------------------------------------------------------------------- settings

class TradeoffSettings(ModelGameSettings, Protocol):
    """What the trade-off reads from the model audit's config besides the game's settings
    (engine.audits.model.ModelConfig has all of it; the defences never import the audit)."""

    source: str
    fpr_targets: tuple[float, ...]
    policy: Any                       # a VerdictPolicy: its ``fpr`` is the policy's FPR

    def validate(self, source: str = "config") -> None: ...



@dataclass(frozen=True)
class DefenceSetting:
    """One defence at one setting of its knob(s): ``knobs`` as sorted (name, value) pairs."""

    defence: str
    knobs: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, defence: str, knobs: dict | None = None, **more) -> DefenceSetting:
        """Checked setting: the defence exists, its main knob is given, every knob is known."""
        if defence not in DEFENCES:
            raise InputError(f"Unknown defence {given_value(defence)}; choose one of "
                             f"{', '.join(DEFENCES)}.", key="defence")
        values = {**(knobs or {}), **more}
        main = KNOBS[defence]
        allowed = ({main} if main else set()) | set(OPTIONS[defence])
        unknown = sorted(set(values) - allowed)
        if unknown:
            raise InputError(f"The {defence} defence has no setting {given_value(unknown[0])}; its settings "
                             f"are {', '.join(sorted(allowed)) or 'none'}.", key=unknown[0])
        # DP-SGD may be asked for a target ε instead: the noise is then found for it.
        if main and main not in values and not (defence == "dp_sgd"
                                                and "target_epsilon" in values):
            raise InputError(f"Give the {defence} defence its {main.replace('_', ' ')}.",
                             key=main)
        return cls(defence, tuple(sorted(values.items())))

    def get(self, name: str, default=None):
        return dict(self.knobs).get(name, default)

    @property
    def value(self):
        """The main knob's value (None for no defence)."""
        main = KNOBS[self.defence]
        return self.get(main) if main else None

    def label(self) -> str:
        name = {"none": "No defence", "kcd": "KCD", "dmp": "DMP", "dp_sgd": "DP-SGD",
                "l2": "L2", "early_stopping": "Early stopping"}[self.defence]
        if not self.knobs:
            return name
        main = KNOBS[self.defence]
        order = [k for k in [main] if self.get(k) is not None] + \
            [k for k, _ in self.knobs if k != main]
        parts = [f"{KNOB_SYMBOLS.get(k, k)} = {self.get(k):g}" if isinstance(self.get(k), float)
                 else f"{KNOB_SYMBOLS.get(k, k)} = {self.get(k)}" for k in order
                 if self.get(k) is not None]
        return f"{name} {', '.join(parts)}"

    def plain_label(self) -> str:
        """The setting in plain words for the summary and the report's first page (issue
        20): "weight decay 0.01", "private training, noise multiplier 1"; :meth:`label`
        keeps the symbols for the defences section and the methods."""
        name = PLAIN_DEFENCES[self.defence]
        main = KNOBS[self.defence]
        value = self.get(main) if main else None
        if value is None:
            return name
        words = PLAIN_KNOBS.get(main, main.replace("_", " "))
        return f"{name}, {words} {value:g}" if words else f"{name} {value:g}"

    def to_dict(self) -> dict:
        return {"defence": self.defence, "knobs": dict(self.knobs), "label": self.label(),
                "plain_label": self.plain_label()}


def as_settings(items: Iterable) -> list[DefenceSetting]:
    """Settings from :class:`DefenceSetting`, ``(defence, {knob: value})``, ``(defence,
    value-of-its-main-knob)`` or a bare defence name (``"none"``)."""
    out = []
    for item in items:
        if isinstance(item, DefenceSetting):
            out.append(DefenceSetting.of(item.defence, dict(item.knobs)))
        elif isinstance(item, str):
            out.append(DefenceSetting.of(item))
        elif isinstance(item, tuple | list) and len(item) == 2:
            defence, knobs = item
            if isinstance(knobs, dict):
                out.append(DefenceSetting.of(defence, knobs))
            elif knobs is None:
                out.append(DefenceSetting.of(defence))
            else:
                main = KNOBS.get(defence)
                if main is None and defence in KNOBS:
                    raise InputError("'none' takes no setting.", key="defence")
                out.append(DefenceSetting.of(defence, {main: knobs} if main else None))
        else:
            raise InputError(f"Cannot read the defence setting {given_value(item)}; give a "
                             "defence's name and the value of its setting.", key="defence")
    return out


def default_sweep(*, alphas: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0),
                  temperatures: Sequence[float] = (1.0, 2.0, 4.0),
                  weight_decays: Sequence[float] = (1e-4, 1e-3, 1e-2),
                  noise_multipliers: Sequence[float] = (0.5, 1.0, 2.0),
                  epochs: Sequence[int] = (), n_teachers: int = 5) -> list[DefenceSetting]:
    """The issue's benchmark sweep: no defence, KCD at 5 α, DMP at 3 temperatures, L2 at 3
    strengths, DP-SGD at 3 noise levels (early stopping when ``epochs`` are given)."""
    out = [DefenceSetting.of("none")]
    teachers = {} if int(n_teachers) == 5 else {"n_teachers": int(n_teachers)}
    out += [DefenceSetting.of("kcd", alpha=float(a), **teachers) for a in alphas]
    out += [DefenceSetting.of("dmp", temperature=float(t)) for t in temperatures]
    out += [DefenceSetting.of("l2", weight_decay=float(w)) for w in weight_decays]
    out += [DefenceSetting.of("early_stopping", epochs=int(e)) for e in epochs]
    out += [DefenceSetting.of("dp_sgd", noise_multiplier=float(s)) for s in noise_multipliers]
    return out


# --------------------------------------------------------------------------- result

@dataclass
class TradeOff:
    """Rows (JSON-ready, one per setting, in the order given) and the fitted models, with what
    export needs: the audit universe's features, labels and membership."""

    rows: list[dict]
    models: list = field(repr=False)
    info: dict = field(default_factory=dict)
    X: np.ndarray | None = field(default=None, repr=False)        # audit universe
    y: np.ndarray | None = field(default=None, repr=False)
    member: np.ndarray | None = field(default=None, repr=False)
    class_labels: tuple = ()
    feature_names: tuple = ()

    def to_dict(self) -> dict:
        return to_plain({**self.info, "rows": self.rows})

    def export(self, index: int, directory: str | Path, *, name: str = "model") -> dict:
        """Weights (safetensors), model card (JSON) and predictions (CSV, the format the
        model audit's predictions path reads) of the model of row ``index``."""
        row = self.rows[index]
        model = self.models[index]
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        risk = {k: row[k] for k in ("label", "test_accuracy", "test_accuracy_ci",
                                    "train_accuracy", "generalization_gap", "risk")}
        risk["threat_model"] = self.info.get("threat_model")
        risk["delta"] = self.info.get("delta")
        if "dp" in row:
            risk["dp"] = {k: v for k, v in row["dp"].items() if k != "region"}
        paths = export_model(model, directory / f"{name}.safetensors",
                             training_data=self.info["data"], measured_risk=risk,
                             class_labels=self.class_labels, feature_names=self.feature_names)
        paths["predictions"] = export_predictions(model, self.X, self.y, self.member,
                                                  directory / f"{name}_predictions.csv",
                                                  class_names=self.class_labels)
        return paths


# --------------------------------------------------------------------------- training

def _plan(settings: list[DefenceSetting]) -> list[tuple[str, Any, float]]:
    """The sweep's jobs in training order: (kind, key, work in models trained). Shared work
    is one job (module docstring): KCD's teachers per (teachers, temperature), every DMP
    setting, every L2 strength, every early-stopping count; DP-SGD one job per setting."""
    by = _by_defence(settings)
    jobs: list[tuple[str, Any, float]] = [("none", None, 1.0)]
    jobs += [("kcd", key, key[0] + len(idx)) for key, idx in _kcd_groups(settings).items()]
    if by["dmp"]:
        jobs.append(("dmp", None, len(by["dmp"])))
    if by["l2"]:
        jobs.append(("l2", None, len(by["l2"])))
    if by["early_stopping"]:
        jobs.append(("early_stopping", None, 1.0))
    # Work estimate per job, in models trained (DP-SGD's per-sample gradients cost ~3 models).
    jobs += [("dp_sgd", i, 3.0) for i in by["dp_sgd"]]
    return jobs


def _by_defence(settings: list[DefenceSetting]) -> dict[str, list[int]]:
    return {d: [i for i, s in enumerate(settings) if s.defence == d] for d in DEFENCES}


def _kcd_groups(settings: list[DefenceSetting]) -> dict[tuple, list[int]]:
    groups: dict[tuple, list[int]] = {}
    for i, s in enumerate(settings):
        if s.defence == "kcd":
            key = (int(s.get("n_teachers", DEFAULT_TEACHERS)), float(s.get("temperature", 1.0)))
            groups.setdefault(key, []).append(i)
    return groups


def _train_all(settings: list[DefenceSetting], X, y, k: int, spec, *, seed: int, delta: float,
               reference, device, progress: Progress, cancel: CancelToken) -> list:
    """A fitted model per setting; shared work is done once (module docstring)."""
    got = _train_jobs(_plan(settings), settings, X, y, k, spec, seed=seed, delta=delta,
                      reference=reference, device=device, progress=progress, cancel=cancel)
    return [got[i] for i in range(len(settings))]


def _train_jobs(jobs: list[tuple[str, Any, float]], settings: list[DefenceSetting], X, y,
                k: int, spec, *, seed: int, delta: float, reference, device,
                progress: Progress, cancel: CancelToken) -> dict[int, Any]:
    """The fitted models of ``jobs`` (of :func:`_plan`), by setting index. Every job draws
    from ``seed`` alone, so a job gives the same model whichever jobs run beside it; DMP's
    teacher is the undefended model, trained by the "none" job, which must come first."""
    by = _by_defence(settings)
    kcd_groups = _kcd_groups(settings)
    total = sum(w for *_, w in jobs)
    models: dict[int, Any] = {}
    done = 0.0
    teacher = None
    for kind, key, weight in jobs:
        cancel.check()
        part = progress.span(done / total, (done + weight) / total)
        done += weight
        if kind == "none":
            teacher = undefended(X, y, k, spec, seed=seed, device=device, progress=part,
                                 cancel=cancel)
            for i in by["none"]:
                models[i] = teacher
        elif kind == "kcd":
            idx = kcd_groups[key]
            got = kcd_many(X, y, k, spec, alphas=[settings[i].value for i in idx],
                           n_teachers=key[0], temperature=key[1], seed=seed, device=device,
                           progress=part, cancel=cancel)
            for i, m in zip(idx, got, strict=True):
                models[i] = m
        elif kind == "dmp":
            if reference is None:
                raise InputError("DMP needs reference records: a held-out split of the data or "
                                 "an unlabelled reference CSV.", key="reference")
            dmp_settings = [DMPSetting(float(settings[i].value),
                                       float(settings[i].get("drop_high_entropy", 0.0)),
                                       settings[i].get("reference_size")) for i in by["dmp"]]
            got = dmp_many(X, y, k, spec, reference, settings=dmp_settings, seed=seed,
                           teacher=teacher, device=device, progress=part, cancel=cancel)
            for i, m in zip(by["dmp"], got, strict=True):
                models[i] = m
        elif kind == "l2":
            got = l2_many(X, y, k, spec, weight_decays=[settings[i].value for i in by["l2"]],
                          seed=seed, device=device, progress=part, cancel=cancel)
            for i, m in zip(by["l2"], got, strict=True):
                models[i] = m
        elif kind == "early_stopping":
            got = early_stopping_many(X, y, k, spec,
                                      epochs=[settings[i].value for i in by["early_stopping"]],
                                      seed=seed, device=device, progress=part, cancel=cancel)
            for i, m in zip(by["early_stopping"], got, strict=True):
                models[i] = m
        else:
            s = settings[key]
            models[key] = dp_sgd(X, y, k, spec, noise_multiplier=s.value,
                                 target_epsilon=s.get("target_epsilon"), delta=delta,
                                 clip_norm=s.get("clip_norm", 1.0), seed=seed, device=device,
                                 progress=part, cancel=cancel)
    return models


# --------------------------------------------------------------------------- the sweep as units

@dataclass(frozen=True)
class SweepInputs:
    """What every unit of a defences sweep reads (one copy per cluster; issue 22 item 6)."""

    settings: tuple[DefenceSetting, ...]
    X: np.ndarray                     # the training records of the models trained
    y: np.ndarray
    k: int
    spec: Any
    seed: int
    delta: float
    reference: Any                    # DMP's reference records (or None)
    device: str
    parts: tuple = ()                 # sweep units: the jobs (of _plan) of each
    X_u: np.ndarray | None = None     # reference units: the audit universe,
    tasks: tuple = ()                 # and each reference model's half of it


def sweep_parts(settings: list[DefenceSetting]) -> tuple:
    """The sweep's units: the undefended model with DMP (its students distil it), then each
    other job of :func:`_plan` — the stacks stay whole inside their unit."""
    jobs = _plan(settings)
    first = tuple(j for j in jobs if j[0] in ("none", "dmp"))
    return (first,) + tuple((j,) for j in jobs if j[0] not in ("none", "dmp"))


def train_sweep_part(index: int, shared: SweepInputs, progress: Progress,
                     cancel: CancelToken) -> dict[int, Any]:
    """Unit ``index`` of the sweep (a unit of :mod:`engine.compute`): its settings' models,
    by setting index, each seeded by the config's seed alone."""
    return _train_jobs(list(shared.parts[index]), list(shared.settings), shared.X, shared.y,
                       shared.k, shared.spec, seed=shared.seed, delta=shared.delta,
                       reference=shared.reference, device=shared.device, progress=progress,
                       cancel=cancel)


def train_reference_sweep(index: int, shared: SweepInputs, progress: Progress,
                          cancel: CancelToken) -> np.ndarray | str:
    """Reference model ``index`` under every setting (a unit of :mod:`engine.compute`): the
    whole sweep trained on its half of the universe with its own seed (the sweep's stacks
    inside the unit), every model queried on the universe: (settings, n_u, k) float32. A
    defence that does not fit the smaller half gives its sentence instead (the caller says the
    strongest attacks were not re-run)."""
    task = shared.tasks[index]
    prefix = f"Reference model {index + 1} of {len(shared.tasks)} under each defence"

    def report(fraction, message=""):
        progress(fraction, f"{prefix}: {message}" if message else prefix)

    settings = list(shared.settings)
    try:
        models = _train_all(settings, shared.X[task.rows], shared.y[task.rows], shared.k,
                            shared.spec, seed=task.seed, delta=shared.delta,
                            reference=shared.reference, device=shared.device,
                            progress=Progress(report), cancel=cancel)
    except InputError as exc:
        return str(exc)
    probs = np.empty((len(settings), shared.X.shape[0], int(shared.k)), dtype=np.float32)
    for i, model in enumerate(models):
        cancel.check()
        probs[i] = model.predict_proba(shared.X)
    return probs


def train_sweep(settings: list[DefenceSetting], X, y, k: int, spec, *, seed: int,
                delta: float, reference, device, executor: Executor | None = None,
                progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> list:
    """A fitted model per setting, the sweep's units run by ``executor`` (default in this
    process); the same models as :func:`_train_all`."""
    parts = sweep_parts(settings)
    shared = SweepInputs(tuple(settings), X, y, k, spec, seed, delta, reference, str(device),
                         parts=parts)
    got = (executor or InProcessExecutor()).map(
        train_sweep_part, len(parts), shared, progress=progress, cancel=cancel,
        message="Defended models", weights=[sum(w for *_, w in p) for p in parts])
    models = {i: m for part in got for i, m in part.items()}
    return [models[i] for i in range(len(settings))]


def defended_references(settings: list[DefenceSetting], X_u, y_u, k: int, spec, *,
                        n_models: int, seed: int, delta: float, reference, device,
                        executor: Executor | None = None,
                        progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER,
                        ) -> list[ReferenceOutputs]:
    """Setting i's reference models' outputs on the audit universe: ``n_models`` reference
    models per setting, each trained *under that setting's defence* on a balanced half of the
    universe (module docstring; the attacker knows the defence).

    Reference model r is one unit (:func:`train_reference_sweep`, run by ``executor``,
    default in this process): it trains every setting on its half with one
    :func:`_train_all` call (the sweep's own stacks), seeded ``task_seed(s, r)`` with ``s``
    drawn from the config's seed (stream "defences/reference-models"); its models are queried
    and dropped inside the unit, so memory holds outputs, not models. Progress and cancel
    reach every reference model and, inside it, every defence's stack. An
    :class:`InputError` from a reference model's smaller training set (e.g. too few records
    of a class for KCD's teachers) is raised: the caller says the strongest attacks were not
    re-run."""
    n_u = int(y_u.size)
    campaign = int(rng(seed, "defences", "reference-models").integers(0, 2**63 - 1))
    tasks = reference_tasks(int(n_models), campaign, n_u, design="balanced")
    members = np.array([t.mask(n_u) for t in tasks])
    shared = SweepInputs(tuple(settings), X_u, y_u, k, spec, seed, delta, reference,
                         str(device), tasks=tuple(tasks))
    got = (executor or InProcessExecutor()).map(
        train_reference_sweep, len(tasks), shared, progress=progress, cancel=cancel)
    problem = next((g for g in got if isinstance(g, str)), None)
    if problem is not None:
        raise InputError(problem, key="reference_models")
    return [ReferenceOutputs(np.stack([g[i] for g in got]), members)
            for i in range(len(settings))]


# --------------------------------------------------------------------------- measuring

def _compact(a: dict) -> dict:
    """An attack's metrics without the bulky parts the trade-off table does not show."""
    return {"name": a["name"], "label": a["label"], "auc": a["auc"], "auc_ci": a["auc_ci"],
            "accuracy": a["accuracy"], "accuracy_ci": a["accuracy_ci"],
            "advantage": a["advantage"], "advantage_ci": a["advantage_ci"],
            "tpr_at_fpr": a["tpr_at_fpr"],
            "epsilon_lower_bound": a["epsilon_lower_bound"]["value"],
            "epsilon_max_certifiable": a["epsilon_lower_bound"].get("max_certifiable"),
            "roc": a["roc"]}


def _strongest(attacks: list[dict], fpr_targets: Sequence[float], delta: float,
               family_bounds: list[dict] | None = None) -> dict:
    """Per metric, the attack that scores highest and its value with its interval.

    The ε lower bound is the largest of ``family_bounds`` (each attack's bound at the
    Bonferroni level of :func:`family_epsilon_bounds`) when given: the largest of several
    95 % bounds is not itself a 95 % bound."""
    short = {a["name"]: short_attack_name(a) for a in attacks}

    def best(metric: str) -> dict:
        a = max(attacks, key=lambda r: r[metric])
        return {"value": float(a[metric]), "ci": list(a[f"{metric}_ci"]), "attack": a["name"],
                "attack_label": short[a["name"]]}

    risk = {"auc": best("auc"), "accuracy": best("accuracy"), "advantage": best("advantage")}
    per_fpr = []
    for t in fpr_targets:
        rows = [(a["name"], r) for a in attacks for r in a["tpr_at_fpr"]
                if same_rate(r["fpr_target"], t)]
        measurable = [(n, r) for n, r in rows if r.get("measurable", True)]
        pool = measurable or rows
        name, r = max(pool, key=lambda nr: nr[1]["tpr"])
        per_fpr.append({"fpr": float(t), "value": float(r["tpr"]), "ci": list(r["tpr_ci"]),
                        "attack": name, "attack_label": short[name],
                        "measurable": bool(measurable)})
    risk["tpr_at_fpr"] = per_fpr
    bounds = family_bounds or [a["epsilon_lower_bound"] for a in attacks]
    m = len(bounds) if family_bounds else 1
    i = max(range(len(attacks)), key=lambda j: bounds[j]["value"])
    eps, bound = attacks[i], bounds[i]
    ceiling = bound.get("max_certifiable")
    risk["epsilon"] = {"value": float(bound["value"]), "ci": None,
                       "attack": eps["name"], "attack_label": short[eps["name"]],
                       "delta": float(delta),
                       # the confidence that every attack's bound holds at once, which is
                       # what the largest of them needs (Bonferroni over the attacks)
                       "confidence": float(1.0 - (1.0 - bound["confidence"]) * m),
                       "per_attack_confidence": float(bound["confidence"]),
                       "attacks_together": m,
                       # the largest bound a perfect attack could certify on these records
                       "max_certifiable": None if ceiling is None else float(ceiling)}
    return risk


def family_epsilon_bounds(outcomes, member: np.ndarray, delta: float,
                          confidence: float) -> list[dict]:
    """Each attack's ε lower bound (paper 002 Cor. 1, engine.auditing) at confidence
    1 − (1 − ``confidence``) / m for m attacks, so that all m hold together with probability
    ``confidence`` and so does the largest, which is the one the trade-off reports (Bonferroni;
    m = 8 supervised attacks: 99.4 % each for 95 % together). The threshold is chosen on the
    same selection split as the per-attack metrics."""
    level = 1.0 - (1.0 - confidence) / max(1, len(outcomes))
    return [empirical_epsilon_lower_bound(o.scores, member, delta=delta, confidence=level)
            for o in outcomes]


def short_attack_name(attack: dict) -> str:
    """"ML-Leaks adversary 1: one attack model on …" → "ML-Leaks adversary 1" (for sentences)."""
    return str(attack.get("label") or attack["name"]).split(":")[0].split(" (")[0].strip()


def measure(config, model, X_u, y_u, inside, *, attacks: Sequence[str], delta: float,
            fpr_targets: Sequence[float], references: ReferenceOutputs | None = None,
            reference_attacks: Sequence[str] = (), cancel: CancelToken = NEVER,
            progress: Progress = NO_PROGRESS) -> dict:
    """Utility and risk of one fitted model on the audit universe (module docstring).
    ``references``: the outputs on the universe of reference models trained under this
    model's defence; with them the ``reference_attacks`` (LiRA, RMIA) run too, scored on the
    same evaluated half as the supervised attacks."""
    probs = model.predict_proba(X_u)
    target = ModelOutputs(probs, y_u, inside)
    known, evaluated = supervised_split(target, KNOWN_FRACTION, config.seed)
    out = Outputs(target=target, shadow=known, references=references,
                  rows=np.arange(y_u.size), class_labels=tuple(), model={}, inputs=[],
                  threat="supervised", evaluate_mask=evaluated)
    names = tuple(attacks) + (tuple(reference_attacks) if references is not None else ())
    outcomes = run_attacks(replace(config, attacks=names), out, progress=progress,
                           cancel=cancel)
    member = np.asarray(inside, dtype=bool)
    results, subs = [], []
    for o in outcomes:
        sub = AttackOutcome(o.name, o.label, o.scores[evaluated], o.threshold, o.details)
        subs.append(sub)
        results.append(evaluate(sub, member[evaluated], delta=delta,
                                confidence=config.confidence, fpr_targets=tuple(fpr_targets)))
    gap = generalization_gap(target, config.confidence)
    risk = _strongest(results, fpr_targets, delta,
                      family_epsilon_bounds(subs, member[evaluated], delta, config.confidence))
    policy_fpr = config.policy.fpr
    risk["tpr"] = tpr_at(risk, policy_fpr)
    # The setting's one strongest attack by the audit's headline rule (engine.headline: the
    # policy's level, then the measurable TPR at its FPR, balanced accuracy, AUC) — the same
    # rule the verdict names the audit's strongest attack by, applied to this setting.
    head = headline(results, config.policy)
    strongest = {"name": head.name, "label": short_attack_name({"name": head.name,
                                                                "label": head.label}),
                 "level": head.level, "tpr": head.tpr, "tpr_measurable": head.tpr_measurable,
                 "accuracy": head.accuracy, "auc": head.auc} if head.found else None
    return {"test_accuracy": gap["test_accuracy"], "test_accuracy_ci": gap["test_accuracy_ci"],
            "train_accuracy": gap["train_accuracy"],
            "train_accuracy_ci": gap["train_accuracy_ci"],
            "generalization_gap": gap["gap"], "risk": risk, "strongest": strongest,
            "attacks_run": [a["name"] for a in results],
            "reference_models": 0 if references is None else references.n_models,
            "attacks": [_compact(a) for a in results]}


def _dp_check(row: dict, defence: dict) -> dict:
    """DP-SGD's claim against what the attacks show: the accountant's ε beside the largest
    empirical lower bound (paper 002 Thm 1 at the same δ, with its confidence), and the
    (ε, δ)-DP region of the ROC to draw.

    The test of the claim is the lower bound (``within_claim``). ``roc_points_above_region``
    only counts measured ROC points (estimates, no interval) above the region's edge: near
    FPR = 0 the edge is δ, so one member found before the first false alarm already puts an
    estimate above it — sampling noise, not evidence, which the lower bound accounts for.
    """
    eps, delta = float(defence["epsilon"]), float(defence["delta"])
    upper = dp_region_tpr_upper(_REGION_FPR, eps, delta)
    above = 0
    for a in row["attacks"]:
        f, t = np.asarray(a["roc"]["fpr"]), np.asarray(a["roc"]["tpr"])
        above += int(np.sum(t > dp_region_tpr_upper(f, eps, delta) + 1e-12))
    lower = row["risk"]["epsilon"]
    ceiling = lower.get("max_certifiable")
    # Above the ceiling no attack on this many records could contradict the claim: the check
    # passes by construction and says nothing (paper 002 Cor. 1 needs enough trials).
    testable = ceiling is None or eps < ceiling
    return {"accountant_epsilon": eps, "delta": delta, "accountant": defence["accountant"],
            "empirical_epsilon_lower_bound": lower["value"], "attack": lower["attack"],
            "confidence": lower["confidence"],
            "attacks_together": int(lower.get("attacks_together", 1)),
            "within_claim": bool(lower["value"] <= eps),
            "max_certifiable": ceiling, "testable": bool(testable),
            "verdict": ("consistent with the claim" if lower["value"] <= eps and testable
                        else "not testable at this size: a perfect attack on these records "
                             f"could certify at most ε = {ceiling:.2f}" if not testable
                        else "the attacks contradict the claim"),
            "roc_points_above_region": above,
            "region": {"fpr": _REGION_FPR.tolist(), "tpr": upper.tolist()}}


# --------------------------------------------------------------------------- the sweep

def tradeoff(config: TradeoffSettings, settings: Iterable, *, reference_csv: str | Path = "",
             delta: float | None = None, attacks: Sequence[str] = SUPERVISED_ATTACKS,
             extra_fpr_targets: Sequence[float] = (), reference_models: int = 0,
             reference_attacks: Sequence[str] = (),
             progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> TradeOff:
    """Train every defence setting on the audited model's training records and measure it
    (module docstring). ``config``: a ModelConfig with ``source = "train"``; ``settings``: see
    :func:`as_settings` (the undefended model is added first when missing). DMP's reference set
    is ``reference_csv`` (unlabelled, the training data's columns) or else the attacker's
    held-out share of the data (records neither member nor non-member of the audit). ``delta``:
    δ of DP-SGD's accountant and of every empirical ε bound (default 1e-5, or 1 / (10 n) when
    that is smaller). ``extra_fpr_targets``: FPRs to measure TPR at besides the config's (a
    risk limit's FPR). ``reference_attacks`` (of LiRA and RMIA) are re-run on every setting
    with ``reference_models`` reference models trained under its defence
    (:func:`defended_references`); with fewer than two, or none asked, they are not, and
    ``info["reference_attacks_skipped"]`` says why."""
    if not callable(getattr(config, "training_spec", None)):
        raise TypeError("tradeoff() needs the model audit's settings (a ModelConfig)")
    config.validate()
    if config.source != "train":
        raise InputError("Defences retrain the model, so they need its training data: set "
                         "source = 'train' (a predictions file cannot be retrained).",
                         key="source")
    settings = as_settings(settings)
    if not any(s.defence == "none" for s in settings):
        settings.insert(0, DefenceSetting.of("none"))
    unknown = [a for a in attacks if a in NEEDS_REFERENCE]
    if unknown:
        names = ", ".join(plain_name(a) for a in unknown)
        raise InputError(f"{names}: these attacks need reference models trained with each "
                         "defence: list them among the attacks re-run with reference models "
                         "and give a number of reference models, not among the supervised "
                         "attacks.", key="attacks")
    ref_attacks = tuple(dict.fromkeys(a for a in reference_attacks if a in NEEDS_REFERENCE))
    n_ref = int(reference_models) if ref_attacks else 0
    skipped = None
    if ref_attacks and n_ref < MIN_REFERENCE_MODELS:
        skipped = "switched off" if n_ref == 0 else "too few reference models"
        n_ref = 0
    clock = Stopwatch()
    progress(0.0, "Loading the data")
    data, inputs = load_training_data(config, cancel)
    X, y, k = data.X, data.y, data.n_classes
    population, universe, inside = split_records(config, data.n_records, data.member)
    members = universe[inside]
    if inside.sum() < k or (~inside).sum() < 2:
        raise InputError(f"{data.source or 'the data'}: {data.n_records:,} records are too few "
                         "to train on and keep non-members; use more records.", key="data")
    spec = config.training_spec()
    n_members = int(members.size)
    if delta is None:
        delta = min(1e-5, 1.0 / (10 * n_members))
    reference, reference_source = None, None
    if any(s.defence == "dmp" for s in settings):
        if reference_csv:
            reference = load_reference_csv(resolve_path(str(reference_csv)), data.schema)
            reference_source = str(reference_csv)
        else:
            reference = X[population]
            reference_source = (f"held-out split: the {population.size} records kept out of "
                                "training and of the audit")
    dev = default_device()
    # Progress: the sweep, then its copy per reference model (each as long), then the attacks.
    whole = 1.0 + n_ref + 0.5
    trained_at = (1.0 + n_ref) / whole
    # The defended models and the reference models under each defence are independent units
    # (engine.compute; issue 22 item 6), run where the config's [compute] says.
    executor = executor_for(cluster_of(config))
    try:
        models = train_sweep(settings, X[members], y[members], k, spec, seed=config.seed,
                             delta=delta, reference=reference, device=dev, executor=executor,
                             progress=progress.span(0.0, 1.0 / whole), cancel=cancel)
        references: list = [None] * len(settings)
        skipped_reason = None
        if n_ref:
            try:
                references = defended_references(
                    settings, X[universe], y[universe], k, spec, n_models=n_ref,
                    seed=config.seed, delta=delta, reference=reference, device=dev,
                    executor=executor, progress=progress.span(1.0 / whole, trained_at),
                    cancel=cancel)
            except InputError as exc:
                # The reference models train on half the audit universe: a defence that fits
                # the audited model's training set may not fit that (KCD's teachers, DP-SGD's
                # δ).
                skipped, skipped_reason = "too few records", str(exc)
                references = [None] * len(settings)
                n_ref = 0
        computed_on = executor.where
    finally:
        executor.close()
    fprs = tuple(sorted(set(config.fpr_targets) | {config.policy.fpr}
                        | {float(f) for f in extra_fpr_targets}))
    rows = []
    span = progress.span(trained_at, 1.0)
    for i, (s, model) in enumerate(zip(settings, models, strict=True)):
        cancel.check()
        span(i / len(settings), f"Attacking {s.label()} ({i + 1} of {len(settings)})")
        row = {"index": i, **s.to_dict(),
               **measure(config, model, X[universe], y[universe], inside, attacks=attacks,
                         delta=delta, fpr_targets=fprs, references=references[i],
                         reference_attacks=ref_attacks, cancel=cancel,
                         progress=span.span(i / len(settings), (i + 1) / len(settings)))}
        defence = dict((model.details or {}).get("defence", {"name": "none"}))
        row["defence_details"] = defence
        row["training_runtime_s"] = float((model.details or {}).get("runtime_s", 0.0))
        if s.defence == "dp_sgd":
            row["dp"] = _dp_check(row, defence)
        rows.append(row)
    span(1.0, "Done")
    info = {"threat_model": "supervised",
            "threat_model_text": "The attacker knows half of the training records and half of "
                                 "the others and queries each defended model on them (paper "
                                 "004 §4.3, supervised inference); it is measured on the "
                                 "other halves.",
            "attacks": list(attacks), "reference_attacks": list(ref_attacks) if n_ref else [],
            "reference_attacks_asked": list(ref_attacks),
            "reference_models": int(n_ref),
            "reference_attacks_skipped": skipped, "reference_attacks_skipped_reason":
                skipped_reason,
            "reference_threat_model_text": "For the attacks that need reference models, the "
                                           "attacker knows the defence: each of its reference "
                                           "models is trained with the same defence and recipe "
                                           "on a random half of the audited records."
            if n_ref else None,
            "delta": float(delta), "confidence": config.confidence,
            "fpr_targets": list(fprs), "policy_fpr": config.policy.fpr, "seed": config.seed,
            "spec": spec.to_dict(), "description": spec.describe(), "device": dev,
            "data": {"sha256": training_data_sha256(X[members], y[members]),
                     "source": data.source, "records": int(data.n_records),
                     "members": n_members, "non_members": int((~inside).sum()),
                     "features": int(X.shape[1]), "classes": int(k), "inputs": inputs},
            "reference": reference_source, "computed_on": computed_on,
            "runtime_s": clock.elapsed()}
    return TradeOff(rows, models, info, X[universe], y[universe], inside,
                    tuple(data.class_labels), tuple(data.feature_names))


# --------------------------------------------------------------------------- recommendation

@dataclass(frozen=True)
class RiskLimit:
    """The most risk the user accepts from the strongest attack: ``metric`` ≤ ``value``.

    ``metric``: ``tpr`` (TPR at ``fpr``), ``auc``, ``accuracy`` (balanced), ``advantage`` or
    ``epsilon`` (the empirical lower bound). ``use_upper``: judge the upper end of the metric's
    interval rather than its estimate (cautious: the limit must hold with 95 % confidence).
    """

    metric: str = "tpr"
    value: float = 0.02
    fpr: float = 0.01
    use_upper: bool = False

    def validate(self) -> RiskLimit:
        if self.metric not in RISK_METRICS:
            raise InputError(f"Unknown risk metric {given_value(self.metric)} for the limit; choose one of "
                             f"{', '.join(RISK_METRICS)}.", key="limit.metric")
        v = float(self.value)
        ranges = {"tpr": (0.0, 1.0), "auc": (0.5, 1.0), "accuracy": (0.5, 1.0),
                  "advantage": (0.0, 1.0), "epsilon": (0.0, np.inf)}
        lo, hi = ranges[self.metric]
        if not np.isfinite(v) or not lo <= v <= hi:
            raise InputError(f"A limit on {self.describe_metric()} must lie between {lo:g} and "
                             f"{hi:g}; got {given_value(self.value)}.", key="limit.value")
        if self.metric == "tpr" and not 0.0 < float(self.fpr) < 1.0:
            raise InputError(f"The limit's FPR must lie between 0 and 1; got {given_value(self.fpr)}.",
                             key="limit.fpr")
        return self

    def describe_metric(self) -> str:
        return {"tpr": f"TPR at {self.fpr:.2%} FPR".replace(".00%", "%"),
                "auc": "AUC", "accuracy": "balanced accuracy", "advantage": "advantage",
                "epsilon": "the empirical ε lower bound"}[self.metric]

    def plain(self) -> str:
        """The limit in plain words, for the summary and the report's first page."""
        upper = " (counting the upper end of its 95 % interval)" if self.use_upper else ""
        if self.metric == "tpr":
            return (f"spotting at most {self.value:.1%} of the training records while wrongly "
                    f"accusing {self.fpr:.0%} of the others{upper}")
        words = {"auc": "an AUC", "accuracy": "a balanced accuracy",
                 "advantage": "an advantage", "epsilon": "a measured ε"}[self.metric]
        return f"{words} of at most {self.value:.3g}{upper}"

    def describe(self) -> str:
        value = f"{self.value:.1%}" if self.metric == "tpr" else f"{self.value:.3g}"
        upper = " (upper end of its 95 % interval)" if self.use_upper else ""
        return f"{self.describe_metric()}{upper} ≤ {value}"


def row_risk(row: dict, limit: RiskLimit) -> tuple[float | None, str]:
    """The strongest attack's value of the limit's metric for one row (None: not measurable),
    and the attack's name."""
    risk = row["risk"]
    if limit.metric == "tpr":
        entry = tpr_at(risk, limit.fpr)
        if entry is None:
            got = ", ".join(f"{r['fpr']:.2%}" for r in risk["tpr_at_fpr"])
            raise InputError(f"The trade-off measured the share of people spotted at "
                             f"false-positive rates of {got}, not at {limit.fpr:.2%}; set the "
                             "limit at one of those, or add that rate to the false-positive "
                             "rates the audit measures.", key="limit.fpr",
                             setting="fpr_targets")
        if not entry["measurable"]:
            return None, entry.get("attack_label", entry["attack"])
    else:
        entry = risk[limit.metric]
    value = entry["ci"][1] if limit.use_upper and entry.get("ci") else entry["value"]
    return float(value), entry.get("attack_label", entry["attack"])


# The four answers to "does the model as trained need a defence for this limit?" (issue 32
# item 4), decided once by :func:`defence_decision` and read by every text.
DECISION_STATES = ("needed", "within", "undecided", "not_measurable")


def _undefended_figures(limit: RiskLimit, attacks: Sequence[dict] | None,
                        base_row: dict | None) -> tuple[list[dict], str]:
    """The undefended model's figures of the limit's metric, one per attack: ``value``,
    ``lower``/``upper`` (its 95 % interval; ``lower`` = value for the ε bound, which is itself
    a lower bound), ``measurable``, ``n_negative`` and the attack's short name. The main
    audit's ``attacks`` (every record it scored) when they carry the metric, else the sweep's
    undefended row (scored on the supervised evaluated half only)."""
    figures = []
    for a in attacks or []:
        if limit.metric == "tpr":
            r = tpr_at(a, limit.fpr)
            if r is None:
                continue
            value, ci, ok = r.get("tpr"), r.get("tpr_ci"), bool(r.get("measurable", True))
        elif limit.metric == "epsilon":
            bound = a.get("epsilon_lower_bound")
            value = bound.get("value") if isinstance(bound, dict) else bound
            ci, ok = None, True
        else:
            value, ci, ok = a.get(limit.metric), a.get(f"{limit.metric}_ci"), True
        if value is None:
            continue
        figures.append(_figure(value, ci, ok, a.get("n_negative"), short_attack_name(a),
                               limit))
    if figures:
        return figures, "audit"
    if base_row is None:
        return [], "none"
    risk = base_row["risk"]
    if limit.metric == "tpr":
        entry = tpr_at(risk, limit.fpr)
        if entry is None:
            return [], "none"
        ok = bool(entry.get("measurable", True))
    else:
        entry, ok = risk[limit.metric], True
    return [_figure(entry["value"], entry.get("ci"), ok, None,
                    entry.get("attack_label", entry.get("attack")), limit)], "sweep"


def _figure(value, ci, measurable, n_negative, attack, limit: RiskLimit) -> dict:
    lower = upper = None
    if ci is not None and len(ci) == 2 and ci[0] is not None:
        lower, upper = float(ci[0]), float(ci[1])
    if limit.metric == "epsilon":
        lower = float(value)
    return {"value": float(value), "lower": lower, "upper": upper,
            "measurable": bool(measurable), "attack": str(attack),
            "n_negative": None if n_negative is None else int(n_negative)}


def _plain_figure(limit: RiskLimit, f: dict) -> str:
    """The undefended model's figure in plain words (no metric acronyms: the same sentence
    is on the first page and in the next steps)."""
    interval = (f" (95 % interval {_fmt(limit, f['lower'])}–{_fmt(limit, f['upper'])})"
                if f["lower"] is not None and f["upper"] is not None else "")
    if limit.metric == "tpr":
        return (f"the strongest attack spots {_fmt(limit, f['value'])} of the training "
                f"records{interval} while wrongly accusing {limit.fpr:.0%} of the others")
    words = {"auc": "an AUC", "accuracy": "a balanced accuracy", "advantage": "an advantage",
             "epsilon": "a measured ε"}[limit.metric]
    return f"the strongest attack reaches {words} of {_fmt(limit, f['value'])}{interval}"


def defence_decision(limit: RiskLimit, *, attacks: Sequence[dict] | None = None,
                     base_row: dict | None = None) -> dict:
    """Whether the model as trained needs a defence for ``limit`` (issue 32 item 4): decided
    once, from the undefended model's own figures (the main audit's ``attacks``, else the
    sweep's undefended ``base_row``), and read by the summary, the next steps, the report's
    Defences section and the results page.

    ``state``: ``needed`` — some attack's 95 % interval lies wholly above the limit (its lower
    end > the limit: the model fails it measurably); ``within`` — every measurable attack is
    within the limit by the rule the settings are judged by (its estimate, or the upper end of
    its interval when the limit says so); ``undecided`` — otherwise (an interval reaches both
    sides of the limit); ``not_measurable`` — no attack's TPR at the limit's FPR can be
    measured on this many non-members (⌈3/t⌉ needed, ARCHITECTURE §5), which is never counted
    as failing. Only ``needed`` leads to a recommended defence. The "needed" test reads each
    attack's own 95 % interval and is not corrected for the number of attacks (a false
    "needed" costs a defence the officer can weigh; docs/methods/defences.md)."""
    limit = limit.validate() if isinstance(limit, RiskLimit) else RiskLimit(**limit).validate()
    figures, source = _undefended_figures(limit, attacks, base_row)
    need = min_negatives_for(limit.fpr) if limit.metric == "tpr" else None
    out = {"state": "not_measurable", "value": None, "lower": None, "upper": None,
           "attack": None, "limit": limit.describe(), "source": source,
           "records_needed": need, "n_negative": None, "sentence": ""}
    measured = [f for f in figures if f["measurable"]]
    if not measured:
        have = max((f["n_negative"] for f in figures if f["n_negative"] is not None),
                   default=None)
        out["n_negative"] = have
        had = f", and the audit had {have:,}" if have is not None else ""
        takes = (f"how many members an attack spots while wrongly accusing {limit.fpr:.0%} of "
                 f"the others takes at least {need:,} records that were not in the training "
                 f"data to measure{had}" if need else "the audit did not measure it")
        out["sentence"] = (
            f"Whether the model needs a defence cannot be measured at this size: {takes}. No "
            "defence is recommended on this evidence, and no setting is counted as failing; "
            + (f"audit with at least {need:,} such records to decide." if need else
               "measure it to decide."))
        return out
    failing = [f for f in measured if f["lower"] is not None and f["lower"] > limit.value]

    def judged(f):
        return f["upper"] if limit.use_upper and f["upper"] is not None else f["value"]

    if failing:
        top = max(failing, key=lambda f: f["lower"])
        state = "needed"
    else:
        top = max(measured, key=judged)
        state = "within" if judged(top) <= limit.value else "undecided"
    figure = _plain_figure(limit, top)
    limit_words = f"your limit of {_fmt(limit, limit.value)}"
    if state == "needed":
        sentence = (f"A defence is needed: the model as trained exceeds {limit_words} "
                    f"measurably ({figure}; the whole interval lies above the limit).")
    elif state == "within":
        on = " (the upper end of its interval included)" if limit.use_upper else ""
        sentence = (f"No defence is needed: the model as trained already keeps the strongest "
                    f"attack within {limit_words}{on} ({figure}). The defences were measured "
                    "for comparison only.")
    else:
        sentence = (f"Whether the model needs a defence cannot be decided at this size: "
                    f"{figure}, an interval that reaches both sides of {limit_words}. No "
                    "defence is recommended on this evidence; more records that were not in "
                    "the training data would narrow the interval and decide it.")
    out.update(state=state, value=top["value"], lower=top["lower"], upper=top["upper"],
               attack=top["attack"], n_negative=top["n_negative"], sentence=sentence,
               records_needed=None)
    return out


def recommend(rows: Sequence[dict], limit: RiskLimit, *, decision: dict | None = None,
              raise_if_none: bool = False) -> dict:
    """The setting that keeps the strongest attack within ``limit`` at the least loss of test
    accuracy (ties: the lower risk), or a plain statement that none does and what to try.

    Returns ``{"met", "needed", "decision", "index", "label", "accuracy_cost", "risk",
    "statement", "candidates", "not_measurable"}``; with ``raise_if_none`` an unmet limit is an
    InputError instead. ``decision``: :func:`defence_decision`'s dict (issue 32 item 4); unless
    its state is ``needed`` nothing is recommended — ``met`` is True when the model as trained
    is within the limit, None when that is undecided or not measurable, and the statement is
    the decision's sentence. Rows whose limit metric is not measurable are listed in
    ``not_measurable`` and never counted as failing.
    """
    limit = limit.validate() if isinstance(limit, RiskLimit) else RiskLimit(**limit).validate()
    if not rows:
        raise InputError("There are no trade-off rows to choose from; run the trade-off first.",
                         key="rows")
    base = next((r for r in rows if r["defence"] == "none"), None)
    base_acc = base["test_accuracy"] if base is not None else max(r["test_accuracy"]
                                                                   for r in rows)
    judged, not_measurable = [], []
    for r in rows:
        value, attack = row_risk(r, limit)
        if value is None:
            not_measurable.append(r["index"])
        else:
            judged.append((r, value, attack))
    ok = [(r, v, a) for r, v, a in judged if v <= limit.value]
    if decision is not None and decision.get("state") != "needed":
        return {"met": True if decision.get("state") == "within" else None, "needed": False,
                "decision": decision, "index": None, "label": None, "accuracy_cost": None,
                "risk": decision.get("value"), "attack": decision.get("attack"),
                "limit": limit.describe(), "statement": decision["sentence"],
                "candidates": [t[0]["index"] for t in ok], "not_measurable": not_measurable}
    gate = {"needed": True, "decision": decision}
    if decision is not None:
        # Needed: the recommendation is a defence, not the model as trained again.
        ok = [t for t in ok if t[0]["defence"] != "none"]
    if ok:
        r, v, a = max(ok, key=lambda t: (t[0]["test_accuracy"], -t[1]))
        cost = base_acc - r["test_accuracy"]
        statement = (f"{r['label']} keeps the strongest attack within the limit "
                     f"({limit.describe_metric()} {_fmt(limit, v)}, by {a}) with test accuracy "
                     f"{r['test_accuracy']:.1%}")
        statement += (f", {cost:.1%} below the undefended model's {base_acc:.1%}."
                      if base is not None and cost > 0 else
                      f", no lower than the undefended model's {base_acc:.1%}."
                      if base is not None else ".")
        if decision is not None:
            statement = decision["sentence"] + " " + statement
        return {"met": True, **gate, "index": r["index"], "label": r["label"],
                "accuracy_cost": cost,
                "risk": v, "attack": a, "limit": limit.describe(), "statement": statement,
                "candidates": [t[0]["index"] for t in ok], "not_measurable": not_measurable}
    if judged:
        r, v, a = min(judged, key=lambda t: (t[1], -t[0]["test_accuracy"]))
        closest = (f" The lowest is {r['label']} with {limit.describe_metric()} "
                   f"{_fmt(limit, v)} ({a}), test accuracy {r['test_accuracy']:.1%}.")
    else:
        closest = (f" {limit.describe_metric()} could not be measured for any setting: too few "
                   "non-members for that FPR.")
    defended_nm = [r for r in rows if r["index"] in not_measurable and r["defence"] != "none"]
    if judged and defended_nm:
        # Not measurable is not failing (issue 32 item 4): said apart, with the size needed.
        closest += (f" {len(defended_nm)} setting{'s' if len(defended_nm) != 1 else ''} could "
                    "not be measured at this size (it takes at least "
                    f"{min_negatives_for(limit.fpr):,} non-members in the records the attacks "
                    "are scored on) and "
                    + ("is" if len(defended_nm) == 1 else "are") + " not counted.")
    # The defences by the names the Defences step gives them (walk-through 2026-11-26: "KCD
    # with α = 1, … DP-SGD …, stronger L2" named nothing the officer had seen on the page).
    statement = (f"No setting meets the limit {limit.describe()}.{closest} Ways forward: accept "
                 "a higher limit, try stronger settings (cross-distillation with a mixing share "
                 "of 1, a higher distillation temperature, a larger noise multiplier for private "
                 "training, stronger weight decay), or train on more records, which lowers every "
                 "attack's advantage.")
    if decision is not None:
        statement = decision["sentence"] + " " + statement
    if raise_if_none:
        raise InputError(statement, key="limit")
    return {"met": False, **gate, "index": None, "label": None, "accuracy_cost": None, "risk": None,
            "attack": None, "limit": limit.describe(), "statement": statement,
            "candidates": [], "not_measurable": not_measurable}


def _fmt(limit: RiskLimit, v: float) -> str:
    return f"{v:.1%}" if limit.metric == "tpr" else f"{v:.3f}"
