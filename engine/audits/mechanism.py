"""Audit of a DP mechanism: "What does this ε really allow an attacker to do?" (paper 002).

The user gives a noise mechanism, its ε per observation (or its noise scale), δ, the
sensitivity Δ and the number k of observations per person. The audit

1. composes the privacy loss over k observations (PLD accountant bracket, GDP, KOV worst case);
2. computes the *exact* trade-off curve of the Neyman–Pearson optimal attacker — the strongest
   membership attack there is against this mechanism (accuracy, AUC, TPR at low FPR);
3. plays the membership game N times per hypothesis with the optimal and a naive attacker and
   measures them with confidence intervals and empirical ε lower bounds (paper 002 Cor. 1) — a
   check that the theory is right and a demonstration an officer can trust;
4. answers the what-if questions: how risk moves with ε (or k), and the largest ε per
   observation that keeps the optimal attacker under a limit;
5. turns the strongest attacker's numbers into a verdict with an editable policy.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy.stats import norm

from engine.attacks.dp_mechanism import ATTACK_LABELS, naive_sum_statistic, optimal_statistic
from engine.auditing import evaluate_attack, gdp_heuristic_epsilon_lower_bound
from engine.config_file import read_config_file
from engine.data.errors import InputError
from engine.data.paths import APP_FOLDER
from engine.evidence import verdict_block
from engine.games.membership import MechanismGame, play, tradeoff_summary
from engine.mechanisms import MECHANISM_LABELS, SCALE_NAMES
from engine.mechanisms.accounting import compose
from engine.mechanisms.arguments import MECHANISM_NAMES
from engine.mechanisms.calibration import gaussian_epsilon, noise_scale
from engine.mechanisms.tradeoff import (
    dp_region_tpr_upper,
    mechanism_tradeoff,
    pure_dp_worst_case_tradeoff,
)
from engine.metrics import min_negatives_for
from engine.numbers import whole_percent
from engine.policy import VerdictPolicy
from engine.results.config_fields import as_choice, as_number, begin_from_dict, common_fields
from engine.results.result import AuditResult, software_versions
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch, rng

DISCRETE = ("discrete_laplace", "discrete_gaussian")
GAUSSIAN_FAMILY = ("gaussian", "discrete_gaussian")
POSTPROCESS_MODES = ("none", "round", "round_nonnegative")
MAX_TRIALS = 2_000_000
MAX_OBSERVATIONS = 10_000
INVERSE_EPSILON_RANGE = (1e-3, 50.0)


@dataclass(frozen=True)
class MechanismConfig:
    """What the user audits. Field comments are the tooltips' short form."""

    schema_version: int = 1
    name: str = "Mechanism audit"
    mechanism: str = "laplace"          # laplace | gaussian | discrete_laplace | discrete_gaussian
    noise_from: str = "epsilon"         # "epsilon": calibrate noise from ε (and δ); "scale": use noise_scale
    epsilon: float = 1.0                # ε per observation
    noise_scale: float | None = None    # b (Laplace), σ (Gaussian), t (discrete Laplace), σ (discrete Gaussian)
    delta: float = 1e-5                 # δ: Gaussian calibration and the composed ε is reported at this δ
    sensitivity: float = 1.0            # Δ: most one person can change one observation
    observations: int = 10              # k observations (releases) per person
    trials: int = 20_000                # N membership games per hypothesis
    postprocess: str = "none"           # none | round | round_nonnegative
    baseline_count: float = 100.0       # everyone else's contribution (known to the attacker)
    confidence: float = 0.95
    bound_interval: str = "clopper-pearson"  # ε lower bound: "clopper-pearson" (exact) or "jeffreys"
    fpr_targets: tuple[float, ...] = (0.001, 0.01, 0.1)
    sweep: str = "epsilon"              # what-if sweep over "epsilon" or "observations"
    limit_fpr: float = 0.01             # inverse question: keep TPR at this FPR ...
    limit_tpr: float = 0.05             # ... at or below this
    seed: int = 7
    policy: VerdictPolicy = field(default_factory=VerdictPolicy)

    audit_type = "mechanism"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["fpr_targets"] = list(self.fpr_targets)
        d["policy"] = self.policy.to_dict()
        if d["noise_scale"] is None:
            del d["noise_scale"]  # TOML has no null
        return {"audit_type": self.audit_type, **d}

    @classmethod
    def from_dict(cls, d: dict, source: str = "config") -> MechanismConfig:
        """Validate a user dict; every problem is one InputError sentence naming the key."""
        d = begin_from_dict(cls, d, source)
        v = common_fields(d, source)
        if "mechanism" in d:
            v["mechanism"] = as_choice(source, "mechanism", d["mechanism"], MECHANISM_NAMES)
        if "noise_from" in d:
            v["noise_from"] = as_choice(source, "noise_from", d["noise_from"], ("epsilon", "scale"))
        if "epsilon" in d:
            v["epsilon"] = as_number(source, "epsilon", d["epsilon"], minimum=0,
                                     exclusive_minimum=True, maximum=100)
        if d.get("noise_scale") is not None:
            v["noise_scale"] = as_number(source, "noise_scale", d["noise_scale"], minimum=0,
                                         exclusive_minimum=True)
        if "delta" in d:
            v["delta"] = as_number(source, "delta", d["delta"], minimum=0, maximum=0.1,
                                   exclusive_maximum=False)
        if "sensitivity" in d:
            v["sensitivity"] = as_number(source, "sensitivity", d["sensitivity"], minimum=0,
                                         exclusive_minimum=True)
        if "observations" in d:
            v["observations"] = as_number(source, "observations", d["observations"],
                                          integer=True, minimum=1, maximum=MAX_OBSERVATIONS)
        if "trials" in d:
            v["trials"] = as_number(source, "trials", d["trials"], integer=True, minimum=100,
                                    maximum=MAX_TRIALS)
        if "postprocess" in d:
            v["postprocess"] = as_choice(source, "postprocess", d["postprocess"], POSTPROCESS_MODES)
        if "baseline_count" in d:
            v["baseline_count"] = as_number(source, "baseline_count", d["baseline_count"], minimum=0)
        if "bound_interval" in d:
            v["bound_interval"] = as_choice(source, "bound_interval", d["bound_interval"],
                                            ("clopper-pearson", "jeffreys"))
        if "sweep" in d:
            v["sweep"] = as_choice(source, "sweep", d["sweep"], ("epsilon", "observations"))
        if "limit_fpr" in d:
            v["limit_fpr"] = as_number(source, "limit_fpr", d["limit_fpr"], minimum=0, maximum=0.5,
                                       exclusive_minimum=True)
        if "limit_tpr" in d:
            v["limit_tpr"] = as_number(source, "limit_tpr", d["limit_tpr"], minimum=0, maximum=1,
                                       exclusive_minimum=True, exclusive_maximum=True)
        config = cls(**v)
        config.validate(source)
        return config

    def validate(self, source: str = "config") -> None:
        """Cross-field rules (single fields are checked in from_dict)."""
        if self.noise_from == "scale" and self.noise_scale is None:
            raise InputError(f"{source}: the noise scale is required when the noise is "
                             "given by its scale (or give ε per observation instead).",
                             source=source, key="noise_scale", setting="noise_scale")
        if self.mechanism in GAUSSIAN_FAMILY and self.noise_from == "epsilon" and self.delta <= 0:
            raise InputError(f"{source}: δ (failure probability) must be greater than 0 "
                             f"for the {self.mechanism.replace('_', ' ')} mechanism calibrated "
                             "from ε (e.g. 1e-5).", source=source, key="delta", setting="delta")
        if self.mechanism in DISCRETE:
            for key in ("sensitivity", "baseline_count"):
                value = getattr(self, key)
                if value != int(value):
                    raise InputError(f"{source}: '{key}' must be a whole number for the "
                                     f"{self.mechanism.replace('_', ' ')} mechanism (got {value}).",
                                     source=source, key=key)
        if self.limit_tpr <= self.limit_fpr:
            raise InputError(f"{source}: the highest acceptable share of people spotted "
                             f"({self.limit_tpr:g}) must exceed the false-positive rate it is "
                             f"judged at ({self.limit_fpr:g}): even random guessing spots as "
                             "many people as it wrongly accuses.", source=source,
                             key="limit_tpr", setting="limit_tpr")

    def measured_fpr_targets(self) -> tuple[float, ...]:
        """The FPR targets to measure: the user's plus the verdict policy's (the verdict reads it)."""
        return tuple(sorted({*self.fpr_targets, self.policy.fpr}))


# --------------------------------------------------------------------------- noise parameters

def resolve_noise(config: MechanismConfig) -> tuple[float, float]:
    """(noise scale, ε per observation) for the config, whichever of the two it gives."""

    if config.noise_from == "epsilon":
        return noise_scale(config.mechanism, config.epsilon, config.delta, config.sensitivity), \
            config.epsilon
    return float(config.noise_scale), epsilon_from_scale(config.mechanism, config.noise_scale,
                                                         config.delta, config.sensitivity)


def epsilon_from_scale(mechanism: str, scale: float, delta: float, sensitivity: float) -> float:
    """ε per observation that a noise scale gives (at δ for the Gaussian family)."""

    if mechanism in ("laplace", "discrete_laplace"):
        return sensitivity / scale
    if mechanism == "gaussian":
        # The analytic Gaussian mechanism's δ(ε) is exactly the μ-GDP curve with μ = Δ/σ.
        return gaussian_epsilon(delta, sensitivity / scale)
    # Discrete Gaussian: invert the exact calibration (σ decreases as ε grows) by bisection.
    lo, hi = 1e-4, 100.0
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if noise_scale(mechanism, mid, delta, sensitivity) > scale:
            lo = mid
        else:
            hi = mid
    return hi


# --------------------------------------------------------------------------- what-if questions

def sweep_values(config: MechanismConfig, epsilon0: float) -> list[float]:
    if config.sweep == "epsilon":
        lo, hi = max(epsilon0 / 10, 0.01), min(epsilon0 * 10, 20.0)
        values = np.geomspace(lo, max(hi, lo * 1.01), 24)
        return sorted({*np.round(values, 6).tolist(), round(epsilon0, 6)})
    k = config.observations
    values = np.unique(np.round(np.geomspace(1, max(4 * k, 20), 24)).astype(int))
    return sorted({*values.tolist(), k})


def what_if_sweep(config: MechanismConfig, scale: float, epsilon0: float, *,
                  progress: Progress, cancel: CancelToken) -> dict:
    """Optimal attacker's accuracy, AUC and TPR at the policy FPR as ε or k varies (exact)."""

    values = sweep_values(config, epsilon0)
    fpr = config.policy.fpr
    out = {"parameter": config.sweep, "values": [], "accuracy": [], "auc": [], "tpr_at_fpr": [],
           "fpr": fpr, "current": epsilon0 if config.sweep == "epsilon" else config.observations}
    for i, value in enumerate(values):
        cancel.check()
        if config.sweep == "epsilon":
            s = noise_scale(config.mechanism, value, config.delta, config.sensitivity)
            t = mechanism_tradeoff(config.mechanism, s, config.sensitivity, config.observations,
                                   cancel=cancel)
        else:
            t = mechanism_tradeoff(config.mechanism, scale, config.sensitivity, int(value),
                                   cancel=cancel)
        out["values"].append(float(value))
        out["accuracy"].append(float(t.accuracy()))
        out["auc"].append(float(t.auc()))
        out["tpr_at_fpr"].append(float(t.tpr_at(fpr)))
        progress((i + 1) / len(values), f"What-if sweep: {i + 1} of {len(values)} settings")
    return out


INVERSE_RELATIVE_PRECISION = 1e-4   # stop bisecting once ε is pinned to 0.01 %


def inverse_question(config: MechanismConfig, *, progress: Progress, cancel: CancelToken) -> dict:
    """Largest ε per observation (smallest noise) keeping optimal TPR@limit_fpr ≤ limit_tpr.

    Gaussian: exact. TPR(α) = Φ(Φ⁻¹(α) + μ) ≤ L  ⇔  μ ≤ Φ⁻¹(L) − Φ⁻¹(α), and μ = √k·Δ/σ.
    Other mechanisms: the optimal attacker's TPR at a fixed FPR grows with ε, so bisection on
    log ε over [1e-3, 50] finds the boundary; it stops at a relative precision of 1e-4 (about 17
    trade-off evaluations instead of 40 — each costs an FFT convolution for Laplace noise).
    """


    k, fpr, limit = config.observations, config.limit_fpr, config.limit_tpr
    base = {"fpr": fpr, "max_tpr": limit, "observations": k,
            "noise_scale_name": SCALE_NAMES[config.mechanism]}

    def tpr_for_scale(s: float) -> float:
        t = mechanism_tradeoff(config.mechanism, s, config.sensitivity, k, cancel=cancel)
        return float(t.tpr_at(fpr))

    if config.mechanism == "gaussian":
        mu_max = float(norm.ppf(limit) - norm.ppf(fpr))
        sigma = math.sqrt(k) * config.sensitivity / mu_max
        eps = gaussian_epsilon(config.delta, config.sensitivity / sigma) if config.delta > 0 \
            else None
        progress(1.0, "Largest safe ε found (closed form)")
        return {**base, "feasible": True, "max_epsilon_per_observation": eps,
                "min_noise_scale": sigma, "achieved_tpr": tpr_for_scale(sigma),
                "method": "closed form", "note": "" if eps is not None else
                "With δ = 0 no ε gives Gaussian noise; the smallest σ is the answer."}

    def tpr_for(eps: float) -> tuple[float, float]:
        s = noise_scale(config.mechanism, eps, config.delta, config.sensitivity)
        return tpr_for_scale(s), s

    lo, hi = INVERSE_EPSILON_RANGE
    tpr_lo, _ = tpr_for(lo)
    tpr_hi, scale_hi = tpr_for(hi)
    base["method"] = "bisection"
    if tpr_lo > limit:
        return {**base, "feasible": False, "max_epsilon_per_observation": None,
                "min_noise_scale": None, "achieved_tpr": tpr_lo,
                "note": f"Even ε = {lo:g} per observation lets the best possible attacker "
                        "exceed the limit."}
    if tpr_hi <= limit:
        return {**base, "feasible": True, "max_epsilon_per_observation": hi,
                "min_noise_scale": scale_hi, "achieved_tpr": tpr_hi,
                "note": f"Every ε up to {hi:g} per observation stays within the limit."}
    a, b = math.log(lo), math.log(hi)
    steps = math.ceil(math.log2((b - a) / math.log1p(INVERSE_RELATIVE_PRECISION)))
    for i in range(steps):
        cancel.check()
        mid = 0.5 * (a + b)
        if tpr_for(math.exp(mid))[0] <= limit:
            a = mid
        else:
            b = mid
        progress((i + 1) / steps, "Finding the largest safe ε")
    eps = math.exp(a)
    tpr, s = tpr_for(eps)
    return {**base, "feasible": True, "max_epsilon_per_observation": eps, "min_noise_scale": s,
            "achieved_tpr": tpr, "note": ""}


# --------------------------------------------------------------------------- plain language

def plain_summary(config: MechanismConfig, epsilon0: float, accuracy: float, tpr: float,
                  level: str, strongest=None) -> str:
    """The sentences on the cover of the report. ``strongest``: the headline
    (engine.headline) whose attack — the strongest run, by its plain name — ends them."""
    k = config.observations
    obs = "observation" if k == 1 else "observations"
    named = ""
    if strongest is not None and strongest.found and strongest.accuracy is not None:
        named = (f" The strongest attack run is the {strongest.short_label().lower()}, right "
                 f"{whole_percent(strongest.accuracy)} of the time"
                 + (", which cannot be told from guessing." if not strongest.distinguishable
                    else "."))
    return (f"An attacker who already knows everyone else's data can tell whether a given person "
            f"is in this release correctly at most {whole_percent(accuracy)} of the time; with ε = "
            f"{epsilon0:.3g} per observation and {k} {obs} per person, that risk is {level}. "
            f"Even when it may wrongly accuse only {config.policy.fpr:.0%} of the people who are "
            f"absent, the attacker correctly spots {tpr:.1%} of the people who are present."
            + named)


# --------------------------------------------------------------------------- the job

def exact_theory(config: MechanismConfig, *, progress: Progress, cancel: CancelToken
                 ) -> tuple[dict, object]:
    """Step 1: the noise, the privacy loss composed over k observations and the exact optimal
    attacker (paper 002 Thm 1). Returns (the result's theory block without the what-if
    questions, the optimal attacker's trade-off); ``progress`` is the run's (0–10 %)."""
    k, delta, sens = config.observations, config.delta, config.sensitivity
    fpr_targets = config.measured_fpr_targets()
    progress(0.0, "Calibrating the noise")
    scale, epsilon0 = resolve_noise(config)
    cancel.check()
    progress(0.02, "Composing the privacy loss over k observations")
    composed = compose(config.mechanism, scale, sens, k, delta if delta > 0 else 1e-12,
                       epsilon0=epsilon0)
    cancel.check()
    progress(0.06, "Computing the optimal attacker exactly")
    optimal = mechanism_tradeoff(config.mechanism, scale, sens, k, cancel=cancel)
    theory_opt = tradeoff_summary(optimal, fpr_targets)
    cancel.check()
    worst = None
    if config.mechanism not in GAUSSIAN_FAMILY:
        worst = tradeoff_summary(pure_dp_worst_case_tradeoff(epsilon0, k), fpr_targets)
    eps_total = float(composed.epsilon)
    region_fpr = np.unique(np.r_[0.0, np.geomspace(1e-6, 1.0, 300)])
    dp_region = {"epsilon": eps_total, "delta": delta, "fpr": region_fpr.tolist(),
                 "tpr_upper": np.asarray(dp_region_tpr_upper(region_fpr, eps_total, delta)).tolist()}
    cancel.check()
    theory = {
        "mechanism": config.mechanism,
        "mechanism_label": MECHANISM_LABELS[config.mechanism],
        "noise_scale": scale,
        "noise_scale_name": SCALE_NAMES[config.mechanism],
        "epsilon_per_observation": epsilon0,
        "delta": delta,
        "sensitivity": sens,
        "observations": k,
        "composed": composed.to_dict(),
        "epsilon_total": eps_total,
        "optimal_attacker": theory_opt,
        "worst_case_dp": worst,
        "dp_region": dp_region,
    }
    return theory, optimal


def play_and_measure(config: MechanismConfig, scale: float, *, progress: Progress,
                     cancel: CancelToken) -> tuple[list[dict], np.ndarray]:
    """Steps 2–3: the membership game (engine.games.membership) with the optimal and the naive
    statistic, each measured with intervals and empirical ε lower bounds. Returns (the attack
    entries, the trials' labels); ``progress`` is the run's (10–78 %)."""
    k, delta, sens = config.observations, config.delta, config.sensitivity
    game = MechanismGame(mechanism=config.mechanism, scale=scale, sensitivity=sens,
                         observations=k, trials=config.trials, postprocess=config.postprocess,
                         baseline=config.baseline_count)
    opt_stat, opt_words = optimal_statistic(config.mechanism, sens)
    statistics = {"np_optimal": opt_stat, "naive_sum": naive_sum_statistic}
    scores, labels = play(game, statistics, rng(config.seed, "membership-game"),
                          progress=progress.span(0.10, 0.70), cancel=cancel)
    attacks = []
    words = {"np_optimal": opt_words, "naive_sum": "sum over the k releases of (x − others)"}
    for i, name in enumerate(statistics):
        cancel.check()
        details = {"statistic": words[name], "paper": "002 §3, Thm 1"}
        if name == "naive_sum" and config.mechanism in GAUSSIAN_FAMILY:
            details["note"] = "For Gaussian noise the naive sum is the optimal statistic."
        if config.mechanism == "gaussian" and delta > 0:
            # Only the (continuous) Gaussian mechanism has an exactly Gaussian trade-off curve.
            details["epsilon_lower_bound_gdp"] = gdp_heuristic_epsilon_lower_bound(
                scores[name], labels, delta=delta, confidence=config.confidence)
        attacks.append(evaluate_attack(name, ATTACK_LABELS[name], scores[name], labels,
                                       delta=delta, confidence=config.confidence,
                                       fpr_targets=config.measured_fpr_targets(),
                                       details=details, interval_method=config.bound_interval,
                                       cancel=cancel))
        progress(0.70 + 0.08 * (i + 1) / len(statistics), "Measuring the attacks")
    return attacks, labels


def run(config: MechanismConfig, *, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> AuditResult:
    """Run the whole mechanism audit (see module docstring): config → exact theory → game →
    attacks → what-if questions → headline → result."""
    if not isinstance(config, MechanismConfig):
        raise TypeError("run() needs a MechanismConfig")
    config.validate()
    clock = Stopwatch()
    # 1. Theory: accounting and the exact optimal attacker.
    theory, optimal = exact_theory(config, progress=progress, cancel=cancel)
    scale, epsilon0 = theory["noise_scale"], theory["epsilon_per_observation"]
    # 2–3. The membership game; metrics with intervals and empirical ε lower bounds.
    attacks, labels = play_and_measure(config, scale, progress=progress, cancel=cancel)
    # 4. What-if questions (exact theory, fast).
    theory["sweep"] = what_if_sweep(config, scale, epsilon0, progress=progress.span(0.78, 0.90),
                                    cancel=cancel)
    theory["inverse"] = inverse_question(config, progress=progress.span(0.90, 0.99),
                                         cancel=cancel)
    # 5. Verdict: the exact optimum (a proof) and the measured attacks that beat guessing
    # after Holm's correction over all of them (engine.evidence, issue 32 item 2).
    policy = config.policy
    verdict, head, _evidence = verdict_block(
        attacks, policy, confidence=config.confidence,
        optimum_tpr=float(optimal.tpr_at(policy.fpr)),
        optimum_accuracy=float(optimal.accuracy()), units="trials")
    warnings = _warnings(config, attacks, theory["optimal_attacker"], theory["epsilon_total"])
    progress(1.0, "Done")
    return AuditResult(
        audit_type="mechanism", name=config.name, seed=config.seed, config=config.to_dict(),
        software=software_versions("cpu"), runtime_s=round(clock.elapsed(), 3),
        attacks=attacks, baselines=[_random_guess_baseline(config, labels)], theory=theory,
        verdict=verdict,
        summary=plain_summary(config, epsilon0, head.verdict_accuracy, head.verdict_tpr,
                              verdict["level"], head),
        warnings=warnings, inputs=[], exposed_records=[])


def _random_guess_baseline(config: MechanismConfig, labels: np.ndarray) -> dict:
    """What an attacker with no information achieves: TPR = FPR, accuracy ½, AUC ½."""
    return {"name": "random_guess", "label": "Random guess (no information)",
            "n_positive": int(labels.sum()), "n_negative": int((~labels).sum()),
            "auc": 0.5, "accuracy": 0.5, "advantage": 0.0,
            "tpr_at_fpr": [{"fpr_target": t, "tpr": t} for t in config.measured_fpr_targets()]}


def _warnings(config: MechanismConfig, attacks: list[dict], theory_opt: dict,
              eps_total: float) -> list[str]:
    out = []
    n_neg = config.trials

    for t in config.measured_fpr_targets():
        if n_neg < min_negatives_for(t):
            out.append(f"TPR at {t:.1%} FPR is not measurable with {n_neg:,} non-members "
                       f"(needs at least {min_negatives_for(t):,}); the exact theory value is "
                       "still reported.")
    if config.postprocess != "none":
        out.append("Theory is computed for the mechanism before rounding/clamping; "
                   "post-processing can only lower an attacker's success, so theory is an upper "
                   "bound here.")
    opt = next(a for a in attacks if a["name"] == "np_optimal")
    lo, hi = opt["auc_ci"]
    tol = theory_opt["numerical_error"] + 1e-9
    if config.postprocess == "none" and not (lo - tol <= theory_opt["auc"] <= hi + tol):
        out.append(f"The simulated best possible attacker's AUC interval [{lo:.3f}, {hi:.3f}] "
                   "does not "
                   f"contain the exact value {theory_opt['auc']:.3f}. With 95 % intervals this "
                   "happens by chance 1 time in 20; if it persists with another seed, report it.")
    for a in attacks:
        eb = a["epsilon_lower_bound"]
        if eb["value"] > 0.9 * eb["max_certifiable"] and eb["max_certifiable"] < eps_total:
            out.append(f"{a['label']}: the empirical ε lower bound {eb['value']:.2f} is close to the "
                       f"most {n_neg:,} trials can certify ({eb['max_certifiable']:.2f}); more "
                       "trials would certify a larger ε.")
    return out


SAMPLE_CONFIG = APP_FOLDER / "resources" / "configs" / "mechanism_demo.toml"


def demo_config() -> MechanismConfig:
    """The bundled example (resources/configs/mechanism_demo.toml): Laplace counts, ε = 1 per
    observation, 10 observations per person. The GUI's sample audit reads the same file."""
    return MechanismConfig.from_dict(read_config_file(SAMPLE_CONFIG), str(SAMPLE_CONFIG))
