"""What the user asks of the defences step of a model audit (issue 9): which defences, at which
settings of their knobs, judged against which risk limit — the ``[defences]`` table of a model
config, validated into sentences like every other config key (engine.results.config_fields).

An empty list switches a defence off; ``enabled = false`` switches the whole step off. The
settings become :class:`~engine.defences.tradeoff.DefenceSetting` rows for
:func:`~engine.defences.tradeoff.tradeoff`; :func:`cost_in_models` counts the models a sweep trains (its time is
engine.estimates.model.defence_seconds) so a page can say both before anything runs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from engine.data.errors import InputError, given_value
from engine.defences.tradeoff import DefenceSetting, RiskLimit
from engine.games.model import NEEDS_REFERENCE
from engine.results.config_fields import as_bool, as_choice, as_number, reject_unknown_keys

RISK_METRICS = ("tpr", "auc", "accuracy", "advantage", "epsilon")
MAX_SETTINGS = 12            # per defence: each setting is at least one more model to train
MAX_REFERENCE_MODELS = 64    # each defended reference model trains the whole sweep again

@dataclass(frozen=True)
class DefenceConfig:
    """The ``[defences]`` table. Field comments are the tooltips' short form."""

    enabled: bool = False
    kcd_alphas: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)   # Eq. 1's α; [] = no KCD
    kcd_teachers: int = 5                                         # n teachers, each without its part
    dmp_temperatures: tuple[float, ...] = (1.0, 2.0, 4.0)         # softmax temperature; [] = no DMP
    dmp_reference: str = ""              # unlabelled CSV, training columns ("" = held-out split)
    dmp_drop_high_entropy: float = 0.0   # share of the most uncertain reference records removed
    dmp_reference_size: int = 0          # reference records used (0 = all)
    l2_weight_decays: tuple[float, ...] = (1e-4, 1e-3, 1e-2)      # [] = no L2
    early_stopping_epochs: tuple[int, ...] = ()                   # [] = no early stopping
    dpsgd_noise_multipliers: tuple[float, ...] = (0.5, 1.0, 2.0)  # σ; [] = none at fixed σ
    dpsgd_target_epsilons: tuple[float, ...] = ()                 # ε at δ; σ found for each
    dpsgd_clip_norm: float = 1.0                                  # per-sample clipping C
    limit_metric: str = "tpr"            # tpr | auc | accuracy | advantage | epsilon
    limit_value: float = 0.02            # the strongest attack must stay at or under this
    limit_fpr: float = 0.01              # the FPR of a TPR limit
    limit_use_upper: bool = False        # judge the upper end of the 95 % interval
    export_recommended: bool = False     # command line: write the recommended model's files
    # LiRA and RMIA re-run on every setting with this many reference models trained under its
    # defence (0 = not re-run; the audit's strongest attacks then do not judge the defences).
    # Each is a whole sweep again: the audit's heaviest job (engine.defences.tradeoff).
    reference_models: int = 4

    def to_dict(self) -> dict:
        d = asdict(self)
        for key, value in d.items():
            if isinstance(value, tuple):
                d[key] = list(value)
        return d

    @classmethod
    def from_dict(cls, d, source: str = "config") -> DefenceConfig:
        """Validate the ``[defences]`` table; each problem is one sentence naming its key,
        and its ``key`` is the setting's full name, "defences.kcd_teachers", so that the form
        shows it under that setting's field in the field's own words (issue 32 item 7)."""
        try:
            return cls._from_dict(d, source)
        except InputError as exc:
            if exc.key and not exc.key.startswith("defences"):
                raise InputError(str(exc), source=exc.source,
                                 key=f"defences.{exc.key}") from None
            raise

    @classmethod
    def _from_dict(cls, d, source: str) -> DefenceConfig:
        where = f"{source} [defences]"
        if not isinstance(d, dict):
            raise InputError(f"{source}: the defences section must be a table of settings.",
                             source=source, key="defences", setting="defences")
        reject_unknown_keys(cls, d, where)
        v: dict = {}
        for key in ("enabled", "limit_use_upper", "export_recommended"):
            if key in d:
                v[key] = as_bool(where, key, d[key])
        lists = {"kcd_alphas": dict(minimum=0, maximum=1),
                 "dmp_temperatures": dict(minimum=0, exclusive_minimum=True, maximum=100),
                 "l2_weight_decays": dict(minimum=0, exclusive_minimum=True, maximum=10),
                 "early_stopping_epochs": dict(integer=True, minimum=1, maximum=10_000),
                 "dpsgd_noise_multipliers": dict(minimum=0, exclusive_minimum=True,
                                                 maximum=1000),
                 "dpsgd_target_epsilons": dict(minimum=0, exclusive_minimum=True,
                                               maximum=1000)}
        for key, bounds in lists.items():
            if key in d:
                v[key] = _number_list(where, key, d[key], bounds)
        if "kcd_teachers" in d:
            v["kcd_teachers"] = as_number(where, "kcd_teachers", d["kcd_teachers"], integer=True,
                                          minimum=2, maximum=20)
        if "dmp_reference" in d:
            v["dmp_reference"] = str(d["dmp_reference"])[:1000]
        if "dmp_drop_high_entropy" in d:
            v["dmp_drop_high_entropy"] = as_number(where, "dmp_drop_high_entropy",
                                                   d["dmp_drop_high_entropy"], minimum=0,
                                                   maximum=1, exclusive_maximum=True)
        if "dmp_reference_size" in d:
            v["dmp_reference_size"] = as_number(where, "dmp_reference_size",
                                                d["dmp_reference_size"], integer=True,
                                                minimum=0, maximum=100_000_000)
        if "reference_models" in d:
            v["reference_models"] = as_number(where, "reference_models", d["reference_models"],
                                              integer=True, minimum=0,
                                              maximum=MAX_REFERENCE_MODELS)
            if v["reference_models"] == 1:
                raise InputError(f"{where}: one reference model cannot tell records a "
                                 "reference model trained on from records it did not; use 0 "
                                 "(do not re-run the strongest attacks) or at least 2.",
                                 source=where, key="defences.reference_models",
                                 setting="defences.reference_models")
        if "dpsgd_clip_norm" in d:
            v["dpsgd_clip_norm"] = as_number(where, "dpsgd_clip_norm", d["dpsgd_clip_norm"],
                                             minimum=0, exclusive_minimum=True, maximum=1e6)
        if "limit_metric" in d:
            v["limit_metric"] = as_choice(where, "limit_metric", d["limit_metric"], RISK_METRICS)
        if "limit_value" in d:
            v["limit_value"] = as_number(where, "limit_value", d["limit_value"], minimum=0)
        if "limit_fpr" in d:
            v["limit_fpr"] = as_number(where, "limit_fpr", d["limit_fpr"], minimum=0,
                                       maximum=1, exclusive_minimum=True,
                                       exclusive_maximum=True)
        config = cls(**v)
        config.validate(source)
        return config

    def validate(self, source: str = "config") -> DefenceConfig:
        """The checks that need more than one key: the limit's range, at least one defence."""
        where = f"{source} [defences]"
        self.risk_limit(source)
        if self.enabled and not self.settings():
            raise InputError(f"{where}: every defence's list of settings is empty; give at "
                             "least one (e.g. a cross-distillation mixing share of 1.0) or "
                             "turn the defences off.", source=source, key="defences.enabled",
                             setting="defences.enabled")
        return self

    def risk_limit(self, source: str = "config"):
        """The limit as the trade-off's :class:`RiskLimit` (its range checked)."""
        limit = RiskLimit(self.limit_metric, float(self.limit_value), float(self.limit_fpr),
                          bool(self.limit_use_upper))
        try:
            return limit.validate()
        except InputError as exc:
            raise InputError(f"{source} [defences]: {exc}", source=source,
                             key="defences." + (exc.key or "limit_value").replace(
                                 "limit.", "limit_")) from None

    def settings(self) -> list:
        """Every setting to train, in the order of the chart's legend (undefended first)."""
        out = [DefenceSetting.of("none")]
        teachers = {"n_teachers": int(self.kcd_teachers)} if self.kcd_teachers != 5 else {}
        out += [DefenceSetting.of("kcd", alpha=float(a), **teachers) for a in self.kcd_alphas]
        dmp_opts = {}
        if self.dmp_drop_high_entropy:
            dmp_opts["drop_high_entropy"] = float(self.dmp_drop_high_entropy)
        if self.dmp_reference_size:
            dmp_opts["reference_size"] = int(self.dmp_reference_size)
        out += [DefenceSetting.of("dmp", temperature=float(t), **dmp_opts)
                for t in self.dmp_temperatures]
        out += [DefenceSetting.of("l2", weight_decay=float(w)) for w in self.l2_weight_decays]
        out += [DefenceSetting.of("early_stopping", epochs=int(e))
                for e in self.early_stopping_epochs]
        clip = {"clip_norm": float(self.dpsgd_clip_norm)} if self.dpsgd_clip_norm != 1.0 else {}
        out += [DefenceSetting.of("dp_sgd", noise_multiplier=float(s), **clip)
                for s in self.dpsgd_noise_multipliers]
        out += [DefenceSetting.of("dp_sgd", target_epsilon=float(e), **clip)
                for e in self.dpsgd_target_epsilons]
        return out if len(out) > 1 else []

    def fpr_targets(self) -> tuple[float, ...]:
        return (float(self.limit_fpr),) if self.limit_metric == "tpr" else ()


def reference_models_run(config: DefenceConfig, attacks=None) -> int:
    """How many reference models each setting is trained again as, so that LiRA and RMIA can
    be re-run on it: ``config.reference_models`` when the audit asks for one of them
    (``attacks``: the audit's attack keys; None = assume it does), else 0."""
    if attacks is not None and not set(attacks) & set(NEEDS_REFERENCE):
        return 0
    n = int(config.reference_models)
    return n if n >= 2 else 0


def cost_in_models(config: DefenceConfig, attacks=None) -> dict[str, float]:
    """How many models each defence of a sweep trains (the same split of work as
    engine.defences.tradeoff._train_all): KCD n teachers + one student per α; DMP one student
    per setting (its teacher is the undefended model); L2 one per strength; early stopping one
    run for every epoch count; DP-SGD one per setting — each times (1 + the reference models
    of :func:`reference_models_run`), as every reference model trains the sweep again under
    the same defences. Models, not time: a distilled student trains until it converges and a
    DP-SGD model computes per-sample gradients (~36× a plain model on the reference CPU);
    their time is engine.estimates.model.defence_seconds."""
    copies = 1.0 + reference_models_run(config, attacks)
    return {name: models * copies for name, models in _sweep_models(config).items()}


def _sweep_models(config: DefenceConfig) -> dict[str, float]:
    """Models one sweep trains, per defence (:func:`cost_in_models` without references)."""
    cost = {"none": 1.0}
    if config.kcd_alphas:
        cost["kcd"] = float(config.kcd_teachers + len(config.kcd_alphas))
    if config.dmp_temperatures:
        cost["dmp"] = float(len(config.dmp_temperatures))
    if config.l2_weight_decays:
        cost["l2"] = float(len(config.l2_weight_decays))
    if config.early_stopping_epochs:
        cost["early_stopping"] = 1.0
    n_dp = len(config.dpsgd_noise_multipliers) + len(config.dpsgd_target_epsilons)
    if n_dp:
        cost["dp_sgd"] = float(n_dp)
    return cost


def _number_list(where: str, key: str, items, bounds: dict) -> tuple:
    """A list of numbers (possibly empty: the defence is off), duplicates dropped, sorted."""
    if isinstance(items, int | float) and not isinstance(items, bool):
        items = [items]
    if not isinstance(items, list | tuple):
        raise InputError(f"{where}: '{key}' must be a list of numbers such as "
                         f"{_EXAMPLES[key]} (got {given_value(items)}); [] switches it off.",
                         source=where, key=f"defences.{key}")
    if len(items) > MAX_SETTINGS:
        raise InputError(f"{where}: '{key}' has {len(items)} settings; at most {MAX_SETTINGS} "
                         "(each is another model to train).", source=where,
                         key=f"defences.{key}")
    values = []
    for item in items:
        try:
            values.append(as_number(where, key, item, **bounds))
        except InputError as exc:
            if key == "kcd_alphas":
                raise InputError(f"{where}: KCD's α weighs the teachers' soft labels against "
                                 f"the true labels (paper 004 Eq. 1), so each must lie in "
                                 f"[0, 1]; got {given_value(item)}. Use 0 for no distillation and 1 for "
                                 "soft labels only.", source=where,
                                 key="defences.kcd_alphas") from None
            raise InputError(str(exc), source=where, key=f"defences.{key}") from None
    return tuple(sorted(set(values)))


_EXAMPLES = {"kcd_alphas": "[0.5, 1.0]", "dmp_temperatures": "[1, 2, 4]",
             "l2_weight_decays": "[0.0001, 0.001]", "early_stopping_epochs": "[5, 10]",
             "dpsgd_noise_multipliers": "[0.5, 1, 2]", "dpsgd_target_epsilons": "[1, 3, 8]"}

FIELD_NAMES = tuple(f.name for f in fields(DefenceConfig))
