"""Audit of location / time-series aggregates: "Can someone tell whether a person is in these
counts of people per place and hour?" (paper 000).

1. Load traces (CSV, or the bundled synthetic city), clip every person to at most C sites per
   epoch (§2.2.2), pick the target (by id, the most exposed person, or at random).
2. Split everyone else into the *release pool* (the people a release is drawn from) and the
   attacker's disjoint *auxiliary pool*; define what the attacker knows (informed θ = 1,
   partial θ, auxiliary θ = 0; Def. 3).
3. Play the membership game on the cells that carry signal (engine.games.location): shadow
   aggregates for the attacker (Alg. 1), test aggregates for the evaluation, both balanced,
   with the same clipping and noise.
4. Run the attacks (one- and two-threshold, MLP meta-classifiers, the reference attack, and a
   likelihood-ratio attack beyond the paper) and measure them with the shared metric layer;
   accuracy uses each attack's own threshold from the shadow data.
5. Theory: the exact optimal (informed) attacker for the target's k positive observations, and
   what ε-DP per epoch allows in the worst case over those epochs (Thm 1, KOV composition).
6. Accuracy against the number of positive observations (Fig. 13/14) over several targets, the
   people exposed (everyone whose k makes the optimal attacker cross the policy's line) and the
   verdict.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from engine.attacks.location import ATTACKS as LOCATION_ATTACKS
from engine.attacks.location import two_threshold
from engine.attacks.location.base import AttackData
from engine.auditing import evaluate_attack
from engine.audits.config_fields import (
    as_bool,
    as_choice,
    as_choice_list,
    as_number,
    begin_from_dict,
    common_fields,
)
from engine.audits.mechanism import tradeoff_summary
from engine.audits.result import (
    REDACTED,
    AuditResult,
    input_entry,
    input_warnings,
    software_versions,
)
from engine.compute import ComputeSettings, one_executor_per_job, run_units
from engine.data.city import generate_city
from engine.data.errors import InputError, given_value
from engine.data.paths import resolve_path
from engine.data.traces import (
    RELEASE_MISSING,
    Release,
    clip_per_epoch,
    find_user,
    load_release,
    load_traces_csv,
    validate_audit_sizes,
)
from engine.evidence import verdict_block
from engine.games.location import AggregateSet, CellPool, play
from engine.headline import not_measurable_sentence, tpr_at
from engine.mechanisms import MECHANISM_LABELS, SCALE_NAMES
from engine.mechanisms.accounting import compose
from engine.mechanisms.arguments import MECHANISM_NAMES
from engine.mechanisms.calibration import noise_scale
from engine.mechanisms.tradeoff import (
    dp_region_tpr_upper,
    mechanism_tradeoff,
    pure_dp_worst_case_tradeoff,
)
from engine.metrics import rates_at_threshold, split_for_selection
from engine.numbers import whole_percent
from engine.plots.series import dp_bound_warning
from engine.policy import VerdictPolicy
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch, device, rng
from engine.wording import plain_name

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_TRACES = ROOT / "resources" / "location" / "sample_city.csv"
MECHANISMS = (*MECHANISM_NAMES, "none")
GAUSSIAN_FAMILY = ("gaussian", "discrete_gaussian")
ATTACKERS = ("informed", "partial", "auxiliary")
TARGET_RULES = ("most_exposed", "observations", "random", "id")
ATTACKS = ("one_threshold", "two_threshold", "meta_classifier", "meta_classifier_100",
           "reference", "likelihood_ratio")
DEFAULT_ATTACKS = ("one_threshold", "two_threshold", "meta_classifier", "reference",
                   "likelihood_ratio")
SWEEP_ATTACKS = ("one_threshold", "two_threshold", "likelihood_ratio")
THRESHOLD_RULES = tuple(two_threshold.RULE_WORDS)


@dataclass(frozen=True)
class LocationConfig:
    """What the user audits. Field comments are the tooltips' short form."""

    schema_version: int = 1
    name: str = "Location aggregates audit"
    traces: str = ""                  # CSV of traces (user, site, epoch); "" = synthetic city
    user_col: str = "user_id"
    site_col: str = "site"
    epoch_col: str = "epoch"
    count_col: str = ""               # optional count column ("" = none)
    epoch_unit: str = ""              # "" (integers) | "hour" | "day" (timestamps binned)
    release: str = ""                 # a published release CSV (site, epoch, count) to attack;
    #                                   the traces are then the attacker's auxiliary data
    release_missing: str = "drop_rows"  # a release row with an empty cell: drop_rows (its
    #                                   count is unknown; the run stops if an attack needs
    #                                   it) | error (refuse the file) — never read as 0
    city_users: int = 16_000          # synthetic city: people ...
    city_epochs: int = 800            # ... and hourly epochs (12 × 8 grid of sites)
    target: str = "most_exposed"      # most_exposed | observations | random | id
    target_id: str = ""               # with target = "id"
    target_observations: int = 60     # with target = "observations": the person closest to this k
    attacker: str = "informed"        # informed | partial | auxiliary
    known_fraction: float = 0.5       # θ for the partial attacker
    auxiliary_size: int = 0           # people in the attacker's auxiliary pool; 0 = half the rest
    aggregate_size: int = 1999        # n: people in a release besides the target
    clip_per_epoch: int = 1           # C: sites per person and epoch kept
    mechanism: str = "laplace"        # laplace | gaussian | discrete_laplace | discrete_gaussian | none
    epsilon: float = 0.5              # ε per epoch (each person's epoch row has sensitivity C)
    delta: float = 1e-5
    shadow_aggregates: int = 2000     # shadow aggregates for training (paper: 2,000)
    large_shadow_aggregates: int = 0  # optional second MLP with this many (paper: 200,000)
    test_aggregates: int = 50_000     # evaluation aggregates (paper: 50,000)
    attacks: tuple[str, ...] = DEFAULT_ATTACKS
    reference_traces: int = 5         # Dwork et al.: reference people from the auxiliary pool
    per_cell_fpr: float = 0.0         # two-threshold: 0 = per-cell rule below, else each
    #                                   cell's threshold at this FPR (Alg. 7)
    threshold_rule: str = "best_accuracy"  # two-threshold per-cell rule: best_accuracy (each
    #                                   cell's most accurate shadow threshold) | midpoint
    #                                   (paper 000 Alg. 5: midpoint of the per-cell means)
    repetitions: int = 1              # independent replays of the main game (a fresh split of
    #                                   the people into the attacker's and the release pool,
    #                                   fresh shadow and test releases), to show how much the
    #                                   numbers move
    sweep_targets: int = 6            # targets with different k for accuracy vs observations
    sweep_test_aggregates: int = 4000
    confidence: float = 0.95
    fpr_targets: tuple[float, ...] = (0.001, 0.01, 0.1)
    list_exposed_ids: bool = False    # list exposed people by id (redacted by default)
    seed: int = 7
    policy: VerdictPolicy = field(default_factory=VerdictPolicy)
    compute: ComputeSettings = field(default_factory=ComputeSettings)  # where repetitions run

    audit_type = "location"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["attacks"] = list(self.attacks)
        d["fpr_targets"] = list(self.fpr_targets)
        d["policy"] = self.policy.to_dict()
        d["compute"] = self.compute.to_dict()
        return {"audit_type": self.audit_type, **d}

    @classmethod
    def from_dict(cls, d: dict, source: str = "config") -> LocationConfig:
        """Validate a user dict; every problem is one InputError sentence naming the key."""
        d = begin_from_dict(cls, d, source)
        v = common_fields(d, source)
        for key in ("traces", "release", "user_col", "site_col", "epoch_col", "count_col",
                    "target_id"):
            if key in d:
                v[key] = str(d[key])[:1000]
        choices = {"epoch_unit": ("", "hour", "day"), "target": TARGET_RULES,
                   "attacker": ATTACKERS, "mechanism": MECHANISMS,
                   "threshold_rule": THRESHOLD_RULES, "release_missing": RELEASE_MISSING}
        for key, allowed in choices.items():
            if key in d:
                v[key] = as_choice(source, key, d[key], allowed)
        integers = {"city_users": (10, 200_000),
                    "city_epochs": (1, 20_000), "auxiliary_size": (0, 10_000_000),
                    "aggregate_size": (1, 10_000_000), "clip_per_epoch": (1, 10_000),
                    "shadow_aggregates": (100, 2_000_000),
                    "large_shadow_aggregates": (0, 2_000_000),
                    "test_aggregates": (200, 2_000_000), "reference_traces": (1, 1000),
                    "sweep_targets": (0, 50), "sweep_test_aggregates": (200, 200_000),
                    "repetitions": (1, 100),
                    "target_observations": (1, 1_000_000)}
        for key, (lo, hi) in integers.items():
            if key in d:
                v[key] = as_number(source, key, d[key], integer=True, minimum=lo, maximum=hi)
        if "per_cell_fpr" in d:
            v["per_cell_fpr"] = as_number(source, "per_cell_fpr", d["per_cell_fpr"], minimum=0,
                                          maximum=1, exclusive_maximum=True)
        if "known_fraction" in d:
            v["known_fraction"] = as_number(source, "known_fraction", d["known_fraction"],
                                            minimum=0, maximum=1)
        if "epsilon" in d:
            v["epsilon"] = as_number(source, "epsilon", d["epsilon"], minimum=0,
                                     exclusive_minimum=True, maximum=100)
        if "delta" in d:
            v["delta"] = as_number(source, "delta", d["delta"], minimum=0, maximum=0.1)
        if "attacks" in d:
            v["attacks"] = as_choice_list(source, "attacks", d["attacks"], ATTACKS,
                                          DEFAULT_ATTACKS)
        if "list_exposed_ids" in d:
            v["list_exposed_ids"] = as_bool(source, "list_exposed_ids", d["list_exposed_ids"])
        if "compute" in d:
            v["compute"] = ComputeSettings.from_dict(d["compute"], source)
        config = cls(**v)
        config.validate(source)
        return config

    def validate(self, source: str = "config") -> None:
        """Cross-field rules (single fields are checked in from_dict)."""
        if self.target == "id" and not self.target_id.strip():
            raise InputError(f"{source}: the target id is required when the target is "
                             "chosen by id (or choose the most exposed person as the target).",
                             source=source, key="target_id", setting="target_id")
        if self.release and self.attacker != "auxiliary":
            raise InputError(f"{source}: a published release can only be attacked by the "
                             "attacker who knows nobody in the release but has similar "
                             "people's traces (the traces are the attacker's data, not the "
                             "released people); choose that attacker.", source=source,
                             key="attacker")
        if self.per_cell_fpr and self.threshold_rule != "best_accuracy":
            raise InputError(f"{source}: the two-threshold attack's rule "
                             f"{given_value(self.threshold_rule)} and its per-place "
                             f"false-positive rate of {self.per_cell_fpr:g} ask for two "
                             "different thresholds per place; set that false-positive rate to "
                             "0 to use this rule, or choose the best-accuracy rule.",
                             source=source, key="threshold_rule", setting="threshold_rule")
        if self.mechanism in GAUSSIAN_FAMILY and self.delta <= 0:
            raise InputError(f"{source}: δ (failure probability) must be greater than 0 "
                             f"for the {self.mechanism.replace('_', ' ')} mechanism (e.g. "
                             "1e-5).", source=source, key="delta", setting="delta")

    def measured_fpr_targets(self) -> tuple[float, ...]:
        return tuple(sorted({*self.fpr_targets, self.policy.fpr}))

    def unknown_size(self, aggregate_size: int | None = None) -> int:
        """How many of the n other people in a release the attacker does not know (n is
        ``aggregate_size``, by default the config's)."""
        n = self.aggregate_size if aggregate_size is None else aggregate_size
        if self.attacker == "informed":
            return 0
        if self.attacker == "auxiliary":
            return n
        return int(round((1.0 - self.known_fraction) * n))


# --------------------------------------------------------------------------- data

def load_population(config: LocationConfig, *, progress: Progress = NO_PROGRESS,
                    cancel: CancelToken = NEVER):
    """(traces, inputs) for the config: the user's CSV or the seeded synthetic city."""
    if config.traces:
        path = resolve_path(config.traces)
        traces = load_traces_csv(path, user_col=config.user_col, site_col=config.site_col,
                                 epoch_col=config.epoch_col, count_col=config.count_col or None,
                                 epoch_unit=config.epoch_unit or None)
        entry = input_entry(path, rows=int(traces.matrix.nnz))
        if traces.missing_values:       # rows left out for a gap, per column (issue 21)
            entry["missing_values"] = traces.missing_values
        return traces, [entry]
    traces = generate_city(config.seed, n_users=config.city_users, n_epochs=config.city_epochs,
                           progress=progress, cancel=cancel)
    return traces, []


def load_published(config: LocationConfig, traces) -> tuple[Release, dict]:
    """(release, input record) of the published release, on the traces' grid; the record
    lists the release's empty cells per column (issue 21), as the traces' record does."""
    path = resolve_path(config.release)
    release = load_release(path, sites=traces.site_labels, epochs=traces.epoch_labels,
                           integer_counts=config.mechanism in ("none", "discrete_laplace",
                                                               "discrete_gaussian"),
                           allow_negative=config.mechanism != "none", fill_missing=True,
                           missing=config.release_missing)
    entry = input_entry(path, rows=int(release.values.size))
    if release.missing_values:
        entry["missing_values"] = release.missing_values
    return release, entry


def sampling_device(dev: str) -> str:
    """Aggregates are drawn with torch on a GPU and with sparse numpy products on the CPU
    (faster there than dense torch selections)."""
    return dev if dev.startswith("cuda") else "numpy"


def epoch_sensitivity(mechanism: str, clip: int) -> float:
    """A person changes one epoch's row by at most C ones: L1 = C, L2 = √C."""
    return math.sqrt(clip) if mechanism in GAUSSIAN_FAMILY else float(clip)


def cell_noise_scale(config: LocationConfig) -> float | None:
    if config.mechanism == "none":
        return None
    sens = epoch_sensitivity(config.mechanism, config.clip_per_epoch)
    if config.mechanism in ("discrete_laplace", "discrete_gaussian"):
        sens = max(1.0, float(math.ceil(sens)))
    return float(noise_scale(config.mechanism, config.epsilon, config.delta, sens))


def choose_target(config: LocationConfig, traces, clipped: sp.csr_matrix,
                  g: np.random.Generator) -> int:
    k = clipped.getnnz(axis=1)
    if config.target == "id":
        return find_user(traces, config.target_id)
    if config.target == "random":
        candidates = np.flatnonzero(k > 0)
        return int(g.choice(candidates))
    if config.target == "observations":       # paper 000 §5 audits targets of a given k
        return int(np.argmin(np.abs(k - config.target_observations)))
    return int(np.argmax(k))          # most positive observations: the most exposed person


# --------------------------------------------------------------------------- the game

@dataclass(frozen=True)
class Scenario:
    """Everything the attacks of one target need."""

    target_row: int
    k: int                            # the target's positive observations after clipping
    k_epochs: int                     # distinct epochs among them (what DP composes over)
    data: AttackData
    large_shadow: object | None       # AggregateSet for the large MLP, if requested


def build_scenario(config: LocationConfig, traces, clipped: sp.csr_matrix, target_row: int,
                   release_rows: np.ndarray, aux_rows: np.ndarray, scale: float | None,
                   g_seed: tuple, *, n_test: int, with_reference: bool, with_large: bool,
                   progress: Progress, cancel: CancelToken,
                   published: Release | None = None,
                   sampling_device: str = "numpy") -> Scenario:
    """Shadow and test aggregates for one target.

    ``published``: a published release (engine.data.traces.Release); a count it left empty
    that the attacks read stops the run with one sentence. Then nobody is known to be
    released (``release_rows`` is empty): the test aggregates are the attacker's own validation
    draws from its auxiliary pool, and the published release's read cells are appended as the
    last test row (label False, a placeholder: :func:`split_published` takes it off)."""
    z_row = clipped[target_row]
    target_cells = z_row.indices.astype(np.int64)
    k = int(target_cells.size)
    if k == 0:
        raise InputError("The target person has no observations after clipping; choose "
                         "another target.", key="target_id")
    epochs = np.unique(target_cells // traces.n_sites)
    ref_vector = None
    cells = target_cells
    if with_reference:
        g_ref = rng(config.seed, "reference-traces", *g_seed)
        n_ref = min(config.reference_traces, aux_rows.size)
        refs = g_ref.choice(aux_rows, size=n_ref, replace=False)
        ref_mean = np.asarray(clipped[refs].mean(axis=0)).ravel()
        extra = np.setdiff1d(np.flatnonzero(ref_mean), target_cells)
        cells = np.r_[target_cells, extra]
        ref_vector = ref_mean[cells].astype(np.float32)
    if published is not None:
        # An empty released count is unknown, never scored as 0: stop before any shadow
        # release is drawn if an attack reads one.
        published.require(cells)
    z = np.zeros(cells.size, dtype=np.float32)
    z[:k] = 1.0
    on_cells = clipped[:, cells]
    aux_pool = CellPool.from_rows(on_cells[aux_rows])
    release_pool = aux_pool if published is not None else CellPool.from_rows(on_cells[release_rows])
    unknown = config.unknown_size()
    mech = config.mechanism
    sc = scale if scale is not None else 1.0
    shadow = play(z, aux_pool, unknown, config.shadow_aggregates, mech, sc,
                  rng(config.seed, "shadow", *g_seed), keep_unknown=True, device=sampling_device,
                  progress=progress.span(0.0, 0.2), cancel=cancel)
    large = None
    if with_large and config.large_shadow_aggregates:
        large = play(z, aux_pool, unknown, config.large_shadow_aggregates, mech, sc,
                     rng(config.seed, "shadow-large", *g_seed), device=sampling_device,
                     progress=progress.span(0.2, 0.6),
                     cancel=cancel)
    test = play(z, release_pool, unknown, n_test, mech, sc, rng(config.seed, "test", *g_seed),
                device=sampling_device, progress=progress.span(0.6, 1.0), cancel=cancel)
    if published is not None:
        row = np.asarray(published.values, dtype=np.float32).ravel()[cells][None, :]
        test = AggregateSet(x=np.vstack([test.x, row]), labels=np.r_[test.labels, False],
                            unknown=None)
    data = AttackData(k=k, target=z, shadow=shadow, test=test, mechanism=mech, scale=sc,
                      reference=ref_vector)
    return Scenario(target_row, k, int(epochs.size), data, large)


def split_published(outcomes, scenario: Scenario):
    """Take the published release's score (last test row) off every outcome.

    Returns (outcomes on the validation aggregates, test labels, {name: release verdict})."""
    labels = scenario.data.test.labels[:-1]
    verdicts = {}
    for o in outcomes:
        score, o.scores = float(o.scores[-1]), o.scores[:-1]
        absent = o.scores[~labels]
        present = o.scores[labels]
        verdicts[o.name] = {
            "label": o.label, "score": score, "threshold": float(o.threshold),
            "says_present": bool(score >= o.threshold),
            # How often a simulated release *without* the target scores at least this high:
            # the false-accusation rate of flagging this release (a p-value).
            "share_absent_at_least": float(np.mean(absent >= score)),
            "share_present_at_least": float(np.mean(present >= score)),
        }
    return outcomes, labels, verdicts


def run_attacks(config: LocationConfig, scenario: Scenario, names, dev: str, *,
                progress: Progress, cancel: CancelToken):
    """AttackOutcome per requested attack name, in the config's order; each from its entry of
    the table engine.attacks.location.ATTACKS."""
    data = scenario.data
    outs = []
    for i, name in enumerate(names):
        cancel.check()
        sub = progress.span(i / len(names), (i + 1) / len(names))
        # The config's check admits only names of the table; the loop skipped others before
        # the table too.
        if name in LOCATION_ATTACKS:
            outs += LOCATION_ATTACKS[name](data, config, large_shadow=scenario.large_shadow,
                                           device=dev, progress=sub, cancel=cancel)
        sub(1.0, "")
    return outs


# --------------------------------------------------------------------------- theory

def theory_for(config: LocationConfig, scale: float | None, k: int, k_epochs: int,
               fpr_targets) -> dict:
    """What DP permits and the exact optimum, for a target with k positive observations."""
    if scale is None:
        return {"mechanism": "none", "observations": k, "epochs": k_epochs,
                "note": "No noise: nothing bounds the attacker; with exact knowledge of the "
                        "others it is always right."}
    mech = config.mechanism
    sens = epoch_sensitivity(mech, config.clip_per_epoch)
    if mech in ("discrete_laplace", "discrete_gaussian"):
        sens = max(1.0, float(math.ceil(sens)))
    optimal = mechanism_tradeoff(mech, scale, 1.0, k)
    composed = compose(mech, scale, sens, k_epochs, config.delta if config.delta > 0 else 1e-12,
                       epsilon0=config.epsilon)
    eps_total = float(composed.epsilon)
    worst = None
    if mech not in GAUSSIAN_FAMILY:
        worst = tradeoff_summary(pure_dp_worst_case_tradeoff(config.epsilon, k_epochs),
                                  fpr_targets)
    region_fpr = np.unique(np.r_[0.0, np.geomspace(1e-6, 1.0, 300)])
    return {
        "mechanism": mech, "mechanism_label": MECHANISM_LABELS[mech],
        "noise_scale": scale, "noise_scale_name": SCALE_NAMES[mech],
        "epsilon_per_epoch": config.epsilon, "delta": config.delta,
        "clip_per_epoch": config.clip_per_epoch, "observations": k, "epochs": k_epochs,
        "composed": composed.to_dict(), "epsilon_total": eps_total,
        "optimal_attacker": tradeoff_summary(optimal, fpr_targets),
        "worst_case_dp": worst,
        "dp_region": {"epsilon": eps_total, "delta": config.delta, "fpr": region_fpr.tolist(),
                      "tpr_upper": np.asarray(dp_region_tpr_upper(region_fpr, eps_total,
                                                                  config.delta)).tolist()},
    }


def dp_bound_accuracy(config: LocationConfig, scale: float, k_epochs: int) -> float:
    """Best balanced accuracy ε-DP per epoch allows over k_epochs epochs (paper 000 Thm 1)."""
    if config.mechanism in GAUSSIAN_FAMILY:
        sens = epoch_sensitivity(config.mechanism, config.clip_per_epoch)
        eps = compose(config.mechanism, scale, sens, k_epochs, config.delta).epsilon
        return float(min(1.0, (math.exp(eps) + config.delta) / (1.0 + math.exp(eps))))
    return float(pure_dp_worst_case_tradeoff(config.epsilon, k_epochs).accuracy())


def exposed_people(config: LocationConfig, traces, clipped: sp.csr_matrix,
                   scale: float | None) -> dict:
    """Everyone whose number of positive observations lets the optimal informed attacker reach
    the policy's high-risk line (TPR ≥ high_tpr at FPR = policy.fpr, or accuracy ≥ high_accuracy).

    The informed attacker's success depends on a person only through k (their observations
    after clipping), and grows with k, so one exact threshold k* splits everyone."""
    k_all = clipped.getnnz(axis=1)
    policy = config.policy
    if scale is None:
        k_star = 1
    else:
        def risky(k: int) -> bool:
            t = mechanism_tradeoff(config.mechanism, scale, 1.0, k)
            return t.tpr_at(policy.fpr) >= policy.high_tpr or t.accuracy() >= policy.high_accuracy
        hi = int(max(k_all.max(), 1))
        if not risky(hi):
            k_star = None
        else:
            lo = 0
            while hi - lo > 1:          # risky(lo) False (k = 0 knows nothing), risky(hi) True
                mid = (lo + hi) // 2
                if risky(mid):
                    hi = mid
                else:
                    lo = mid
            k_star = hi
    exposed = np.flatnonzero(k_all >= k_star) if k_star is not None else np.array([], int)
    line = (f"the best informed attacker reaches TPR ≥ {policy.high_tpr:.0%} at "
            f"{policy.fpr:.0%} FPR or accuracy ≥ {policy.high_accuracy:.0%} (the policy's "
            "high-risk line)")
    plural = "" if k_star == 1 else "s"
    out = {"rule": (f"at least {k_star} observation{plural} after clipping" if k_star is not None
                    else "no number of observations in the data reaches the line"),
           "policy_line": line,
           "min_observations": k_star, "count": int(exposed.size),
           "population": int(k_all.size),
           "share": float(exposed.size / max(k_all.size, 1)),
           "ids_listed": bool(config.list_exposed_ids)}
    if config.list_exposed_ids:
        order = exposed[np.argsort(-k_all[exposed], kind="stable")]
        out["people"] = [{"id": traces.user_ids[i], "observations": int(k_all[i])}
                         for i in order[:1000]]
    return out


def _exposed_sentence(exposed: dict) -> str:
    """How many people the best possible attacker puts at high risk (:func:`exposed_people`),
    with the number of observations that does it, in the officer's words."""
    count, population = exposed["count"], exposed["population"]
    k_star = exposed.get("min_observations")
    if k_star is None or count == 0:
        return (f"None of the {population:,} people is seen often enough for even the best "
                "possible attacker to reach the high-risk line.")
    seen = "in any" if k_star == 1 else f"in {k_star:,} or more"
    return (f"{count:,} of {population:,} people are at high risk: the best possible attacker "
            f"reaches the verdict's high-risk line for anyone seen {seen} of the released "
            "counts.")


# --------------------------------------------------------------------------- the audit

def largest_aggregate_size(config: LocationConfig, aux_size: int, release_size: int) -> int:
    """The largest n (people in a release besides the target) that these pools can play, 0 if
    none (issue 18: the old hint offered the population's size, which the pools then refused).

    The game (:func:`build_scenario`, :mod:`engine.games.location`) draws the n others of a
    release from the release pool, and the attacker simulates its ``unknown_size(n)`` unknown
    people from its auxiliary pool (and, for the test releases, from the release pool, which
    n ≤ release pool already covers). The observation sweep's targets are taken out of
    whichever pool holds them (:func:`observation_sweep`), so while the sweep runs each pool
    counts one person fewer. A published release has no release pool: its attacker draws all n
    from the auxiliary pool, which is everyone besides the target.
    """
    if config.release:
        return max(0, aux_size)
    spare = 1 if config.sweep_targets > 0 else 0
    most = release_size - spare
    room = aux_size - spare
    if most < 1 or config.unknown_size(most) <= room:
        return max(0, most)
    # unknown_size(n) never decreases with n: the largest n that fits, by bisection.
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if config.unknown_size(mid) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo


def check_aggregate_size(config: LocationConfig, aux_size: int, release_size: int) -> None:
    """One sentence when n does not fit the pools, naming the largest n that does."""
    n = config.aggregate_size
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        return  # not a whole number: engine.data.traces.validate_audit_sizes says so
    limit = largest_aggregate_size(config, aux_size, release_size)
    if n <= limit:
        return
    sweep = (" (one fewer in each, as the observation sweep takes its targets out of them)"
             if config.sweep_targets > 0 and not config.release else "")
    if config.release:
        raise InputError(f"The number of people in a release, n = {n:,}, is larger than the "
                         f"{aux_size:,} people "
                         "the attacker can draw its simulated releases from (everyone besides "
                         f"the target); choose n of at most {limit:,} or load more traces.",
                         key="aggregate_size")
    unknown = ("" if config.attacker == "informed" else
               f" (it must supply the {config.unknown_size(n):,} people per release the "
               "attacker does not know)")
    pools = (f"the traces hold {aux_size + release_size:,} people besides the target: "
             f"{aux_size:,} in the attacker's auxiliary pool{unknown} and {release_size:,} left "
             f"for releases{sweep}")
    if limit < 1:
        raise InputError(f"No release size fits: {pools}; lower the number of people in the "
                         "attacker's own data, or load more traces.", key="auxiliary_size")
    raise InputError(f"The number of people in a release, n = {n:,}, is too large for the two "
                     f"pools: {pools}. Choose n of at most {limit:,}, or change the number of "
                     "people in the attacker's own data to move people between the pools.",
                     key="aggregate_size")


# One executor for the whole job: one private Ray instance for cluster = "local" (issue 22).
@one_executor_per_job
def run(config: LocationConfig, *, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> AuditResult:
    """Run the whole location audit (see module docstring)."""
    if not isinstance(config, LocationConfig):
        raise TypeError("run() needs a LocationConfig")
    config.validate()
    clock = Stopwatch()
    warnings: list[str] = []
    fpr_targets = config.measured_fpr_targets()
    dev = device()

    progress(0.0, "Loading the traces")
    traces, inputs = load_population(config, progress=progress.span(0.0, 0.08), cancel=cancel)
    # The pools' sizes before any work. Their limit on n is checked before the population's
    # (validate_audit_sizes): that one is larger, and a hint from it was refused here (issue 18).
    n_others = traces.n_users - 1
    aux_size = n_others if config.release else config.auxiliary_size or n_others // 2
    if not config.release and aux_size >= n_others:
        raise InputError(f"{aux_size:,} people in the attacker's own data leaves nobody to "
                         f"release: the data has {n_others:,} people besides the target; use "
                         "fewer.", key="auxiliary_size", setting="auxiliary_size")
    check_aggregate_size(config, aux_size, 0 if config.release else n_others - aux_size)
    validate_audit_sizes(n_others, config.aggregate_size, config.clip_per_epoch,
                         None if config.mechanism == "none" else config.epsilon)
    cancel.check()
    progress(0.08, "Clipping every person to C sites per hour")
    clipped = sp.csr_matrix(clip_per_epoch(traces, config.clip_per_epoch,
                                           rng(config.seed, "clipping")))
    g = rng(config.seed, "target-and-pools")
    target_row = choose_target(config, traces, clipped, g)
    others = np.delete(np.arange(traces.n_users), target_row)
    others = g.permutation(others)
    published = load_published(config, traces) if config.release else None
    if published is not None:
        inputs.append(published[1])
    aux_rows, release_rows = np.sort(others[:aux_size]), np.sort(others[aux_size:])
    scale = cell_noise_scale(config)
    cancel.check()

    # The main target: every attack.
    progress(0.10, "Building shadow and test aggregates")
    scenario = build_scenario(config, traces, clipped, target_row, release_rows, aux_rows,
                              scale, ("main",), n_test=config.test_aggregates,
                              with_reference="reference" in config.attacks,
                              with_large=any(a.startswith("meta") for a in config.attacks),
                              progress=progress.span(0.10, 0.45), cancel=cancel,
                              published=None if published is None else published[0],
                              sampling_device=sampling_device(dev))
    outcomes = run_attacks(config, scenario, config.attacks, dev,
                           progress=progress.span(0.45, 0.75), cancel=cancel)
    test_labels = scenario.data.test.labels
    release_verdicts = None
    if published is not None:
        outcomes, test_labels, release_verdicts = split_published(outcomes, scenario)
    attacks = []
    for o in outcomes:
        cancel.check()
        attacks.append(evaluate_attack(o.name, o.label, o.scores, test_labels,
                                       delta=config.delta, confidence=config.confidence,
                                       fpr_targets=fpr_targets, details=o.details,
                                       accuracy_threshold=o.threshold, cancel=cancel))
    replays_overview = None
    if config.repetitions > 1 and published is None:
        replays, replays_overview = replay_main_game(
            config, traces, clipped, target_row, release_rows, aux_rows, scale, dev, attacks,
            progress=progress.span(0.75, 0.80), cancel=cancel)
        for a in attacks:
            a["details"]["repetitions"] = replays[a["name"]]
    theory = theory_for(config, scale, scenario.k, scenario.k_epochs, fpr_targets)
    if scale is not None:
        theory["dp_bound_accuracy"] = dp_bound_accuracy(config, scale, scenario.k_epochs)

    # Accuracy against the number of positive observations (paper 000 Fig. 13/14).
    if release_verdicts is not None:
        theory["published_release"] = {
            "path": inputs[-1]["path"], "attacks": release_verdicts,
            "note": "Metrics above are the attacker's own estimate on simulated releases from "
                    "its auxiliary data; the verdicts here are its conclusions on the "
                    "published release."}
    theory["sweep"] = {} if published is not None else observation_sweep(config, traces, clipped, target_row, release_rows,
                                        aux_rows, scale, dev,
                                        progress=progress.span(0.75, 0.95), cancel=cancel)
    exposed = exposed_people(config, traces, clipped, scale)

    # Verdict from the strongest attacker: the exact optimum (informed) or any measured attack.
    policy = config.policy
    opt_tpr = opt_acc = None
    opt = theory.get("optimal_attacker")
    if opt and config.attacker == "informed":
        row = tpr_at(opt, policy.fpr)
        opt_tpr, opt_acc = (row or {}).get("tpr", 0.0), opt["accuracy"]
    # Only attacks that beat guessing after Holm's correction over all of them raise the
    # level; the exact optimum is a proof (engine.evidence, issue 32 item 2).
    verdict, head, _evidence = verdict_block(
        attacks, policy, confidence=config.confidence, optimum_tpr=opt_tpr,
        optimum_accuracy=opt_acc, units="test releases", members=RELEASE_MEMBERS)
    warnings += _warnings(config, attacks, theory)
    # A measured point of the sweep above the ε-DP bound by more than chance explains over all
    # the points plotted (issue 32 item 5): a warning, and a word in the banner's summary.
    bound_warning = dp_bound_warning({"attacks": attacks, "theory": theory,
                                      "config": config.to_dict()})
    if bound_warning:
        warnings.append(bound_warning)
    warnings += [a["details"]["repetitions"]["sentence"] for a in attacks
                 if (a["details"].get("repetitions") or {}).get("sentence")]
    who = ("the most exposed person" if config.target == "most_exposed" else "the target")
    # The summary quotes counted figures only (engine.evidence): a rate that did not beat
    # guessing after correction is not said as the attacker's.
    if head.verdict_tpr_measured is not None:
        spots = (f", and spots {head.verdict_tpr:.1%} of {RELEASE_MEMBERS[0]} while "
                 f"wrongly accusing {policy.fpr:.1%} of {RELEASE_MEMBERS[1]}")
    elif not head.tpr_measurable:
        spots = ("; " + not_measurable_sentence(head.n_negative, policy.fpr,
                                                "test releases without the person"))
    else:
        spots = ""
    if head.accuracy_from is None and head.tpr_from is None:
        summary = (f"No attack run could tell whether {who} (who appears in {scenario.k} of "
                   f"the released counts) is in this release better than guessing: "
                   f"{_evidence.sentence[0].lower()}{_evidence.sentence[1:]}")
    else:
        summary = (f"An attacker who {_attacker_words(config)} can tell whether {who} "
                   f"(who appears in {scenario.k} of the released counts) is in this release "
                   f"correctly {whole_percent(head.verdict_accuracy)} of the time{spots}."
                   + _repetitions_words(attacks, head.accuracy_from))
    if config.target == "most_exposed":
        # Not "as much or more": the count is everyone the best possible attacker puts at
        # high risk (exposed_people), a line the most exposed person need not be near.
        summary += f" {_exposed_sentence(exposed)}"
    if head.found and head.accuracy is not None:
        # Name the strongest attack run (the one the results tables and the report quote),
        # by its plain name; the figures above may be the exact optimum's (engine.headline).
        summary += (f" The strongest attack run is the {head.short_label().lower()}, right "
                    f"{whole_percent(head.accuracy)} of the time"
                    + (", which cannot be told from guessing." if not head.distinguishable
                       else ".")
                    + ("" if head.accuracy_from == head.label
                       else _repetitions_words(attacks, head.label)))
    if bound_warning:
        summary += (" Warning: a measured accuracy is above the most the claimed ε allows, by "
                    "more than chance explains (see the warnings).")
    if release_verdicts is not None:
        says = [v for v in release_verdicts.values() if v["says_present"]]
        best_name, best = min(release_verdicts.items(),
                              key=lambda kv: kv[1]["share_absent_at_least"])
        summary = (f"On the published release, {len(says)} of {len(release_verdicts)} attacks "
                   f"conclude that the target (who appears in {scenario.k} of the counts) is in it. A "
                   f"release without the target scores as high as this one in "
                   f"{best['share_absent_at_least']:.1%} of the attacker's simulations "
                   f"({plain_name(best_name).lower()}). {summary}")
    theory.update({"target": {"rule": config.target,
                              "id": traces.user_ids[target_row] if config.list_exposed_ids or
                              config.target == "id" else REDACTED,
                              "observations": scenario.k, "epochs": scenario.k_epochs},
                   "attacker": config.attacker, "unknown_people": config.unknown_size(),
                   "population": traces.n_users, "sites": traces.n_sites,
                   "epochs_total": traces.n_epochs, "release_pool": int(release_rows.size),
                   "auxiliary_pool": int(aux_rows.size)})
    if replays_overview is not None:
        theory["repetitions"] = replays_overview
    progress(1.0, "Done")
    return AuditResult(
        audit_type="location", name=config.name, seed=config.seed, config=config.to_dict(),
        software=software_versions(dev), runtime_s=round(clock.elapsed(), 3),
        attacks=attacks, baselines=[_random_guess(config, test_labels)],
        theory=theory,
        verdict=verdict,
        summary=summary, warnings=warnings + input_warnings(inputs), inputs=inputs,
        exposed_records=[exposed])


def _repetitions_words(attacks: list[dict], label: str | None) -> str:
    """" Over the 10 repetitions … right 96.6 % of the time on average …": the mean over the
    re-split repetitions with its spread, for the attack (by label) whose first-repetition
    accuracy the sentence before quotes; "" when that attack was played once. The first
    repetition alone can sit far from the rest (issue 22: 0.69 against 0.97), so the summary
    never leaves it as the only figure (issue 32 item 6)."""
    attack = next((a for a in attacks if label and (a.get("label") or a.get("name")) == label),
                  None)
    reps = ((attack or {}).get("details") or {}).get("repetitions") or {}
    values = reps.get("accuracy") or []
    if len(values) < 2 or not isinstance(reps.get("accuracy_mean"), float):
        return ""
    return (f" Over the {len(values)} repetitions of the game with the people split afresh, "
            f"that attack was right {reps['accuracy_mean']:.1%} of the time on average "
            f"(standard deviation {100 * reps['accuracy_sd']:.1f} points, from "
            f"{reps['accuracy_min']:.1%} to {reps['accuracy_max']:.1%}); the "
            f"{reps['accuracy'][0]:.1%} above is the first repetition's, the one the tables "
            "show.")


#: The location game's "present" and "absent" cases, in the words of the summary and of the
#: verdict's reasons alike (issue 32 item 6: "spots 100 % of releases containing them" beside
#: "spots 100 % of the people present" told two stories about one figure).
RELEASE_MEMBERS = ("the releases containing the target", "the releases without the target")


def split_for_repetition(config: LocationConfig, n_users: int, target_row: int,
                         aux_size: int, repetition: int) -> tuple[np.ndarray, np.ndarray]:
    """(auxiliary rows, release rows) of repetition r ≥ 1: everyone but the target, split afresh
    into the attacker's auxiliary pool (``aux_size`` people) and the release pool, from the
    seeded stream ("attacker-split", r). Repetition 0 is :func:`run`'s own split, drawn from
    the "target-and-pools" stream after the target's pick, so its numbers never move (issue 22:
    which people the attacker happens to know moved one auxiliary attack from 0.69 to 0.97)."""
    if repetition < 1:
        raise ValueError("repetition 0 is the run's own split")
    others = np.delete(np.arange(n_users), target_row)
    others = rng(config.seed, "attacker-split", repetition).permutation(others)
    return np.sort(others[:aux_size]), np.sort(others[aux_size:])


@dataclass(frozen=True)
class ReplayInputs:
    """What every repetition of the main game reads (shared once with a cluster's workers)."""

    config: LocationConfig
    traces: object
    clipped: sp.csr_matrix
    target_row: int
    aux_rows: np.ndarray
    scale: float | None
    dev: str


def replay_once(index: int, shared: ReplayInputs, progress: Progress,
                cancel: CancelToken) -> tuple[float, dict[str, tuple[float, float]]]:
    """Repetition ``index + 1`` of the main game (a unit of :mod:`engine.compute`): a fresh
    split of the people, fresh shadow and test releases, every attack. Returns (the share of
    the first auxiliary pool this repetition's pool holds, {attack: (accuracy, AUC)})."""
    config, r = shared.config, index + 1
    aux_r, release_r = split_for_repetition(config, shared.traces.n_users, shared.target_row,
                                            shared.aux_rows.size, r)
    overlap = float(np.intersect1d(aux_r, shared.aux_rows, assume_unique=True).size
                    / max(shared.aux_rows.size, 1))
    sc = build_scenario(config, shared.traces, shared.clipped, shared.target_row, release_r,
                        aux_r, shared.scale, ("main", "replay", r),
                        n_test=config.test_aggregates,
                        with_reference="reference" in config.attacks,
                        with_large=any(a.startswith("meta") for a in config.attacks),
                        progress=progress.span(0, 0.6), cancel=cancel,
                        sampling_device=sampling_device(shared.dev))
    measured = {}
    for o in run_attacks(config, sc, config.attacks, shared.dev, progress=progress.span(0.6, 1.0),
                         cancel=cancel):
        e = evaluate_attack(o.name, o.label, o.scores, sc.data.test.labels,
                            delta=config.delta, accuracy_threshold=o.threshold)
        measured[o.name] = (e["accuracy"], e["auc"])
    return overlap, measured


def replay_main_game(config: LocationConfig, traces, clipped, target_row: int, release_rows,
                     aux_rows, scale, dev, first: list[dict], *, progress: Progress,
                     cancel: CancelToken) -> tuple[dict, dict]:
    """Play the main game ``repetitions − 1`` more times, each with a fresh split of the people
    into the attacker's auxiliary pool and the release pool (same sizes, same target) and fresh
    shadow and test releases (paper 000 repeats its experiments). The first run's interval
    covers only the test releases' chance; the spread across repetitions also covers which
    people the attacker knows and which ones are released.

    Returns ({attack name: per-repetition accuracies and AUCs with their mean, sd, min, max and,
    when the spread exceeds the first run's interval, a sentence saying so}, an overview: the
    count and how much of the first auxiliary pool each repetition's pool shares)."""
    runs = {a["name"]: {"accuracy": [a["accuracy"]], "auc": [a["auc"]]} for a in first}
    overlap = [1.0]
    # Each repetition is an independent unit (engine.compute): seeded by its number, so it
    # gives the same numbers in this process or on a Ray cluster.
    shared = ReplayInputs(config, traces, clipped, target_row, aux_rows, scale, dev)
    replays, where = run_units(config.compute.cluster, replay_once, config.repetitions - 1,
                               shared, progress=progress, cancel=cancel,
                               message="Replaying the game with a fresh split")
    for pool_overlap, measured in replays:
        overlap.append(pool_overlap)
        for name, (accuracy, auc) in measured.items():
            runs[name]["accuracy"].append(accuracy)
            runs[name]["auc"].append(auc)
    by_name = {a["name"]: a for a in first}
    for name, v in runs.items():
        for key in ("accuracy", "auc"):
            values = np.asarray(v[key], dtype=float)
            v[key + "_mean"] = float(values.mean())
            v[key + "_sd"] = float(values.std(ddof=1))
            v[key + "_min"] = float(values.min())
            v[key + "_max"] = float(values.max())
        ci = by_name[name].get("accuracy_ci") or [math.nan, math.nan]
        v["accuracy_ci_half_width"] = float(0.5 * (ci[1] - ci[0]))
        v["split_redrawn"] = True
        v["sentence"] = spread_sentence(by_name[name]["label"], v, config.attacker)
    overview = {"count": config.repetitions, "split_redrawn": True,
                "auxiliary_pool_overlap": overlap, "computed_on": where,
                "note": "Each repetition splits the people afresh into the attacker's own "
                        "data and the people released (same sizes, same target), then plays "
                        "the game again with fresh simulated releases; the first repetition "
                        "is the run reported above."}
    return runs, overview


def spread_sentence(label: str, reps: dict, attacker: str) -> str:
    """A plain sentence when an attack's accuracy moves between repetitions by more than its
    first run's interval claims (standard deviation over the repetitions above the interval's
    half-width); "" otherwise. The first run's interval only covers the chance of its test
    releases, not which people the attacker knows (issue 22)."""
    sd, half = reps.get("accuracy_sd"), reps.get("accuracy_ci_half_width")
    if not (isinstance(sd, float) and isinstance(half, float) and math.isfinite(sd)
            and sd > half):
        return ""
    n = len(reps.get("accuracy") or [])
    # In % and points, as the summary quotes the mean and spread (issue 32 item 6).
    ranged = (f"the accuracy ranged {reps['accuracy_min']:.1%}–{reps['accuracy_max']:.1%} "
              f"(standard deviation {100 * sd:.1f} points), more than the first run's "
              f"interval of ± {100 * half:.1f} points allows for, so read that interval as "
              "too narrow.")
    if attacker == "informed":
        # The informed attacker subtracts everyone else: only the simulated releases (and the
        # reference attack's reference people) change between repetitions.
        return f"{label}: the result moves from one repetition to the next: across {n} " \
               f"repetitions {ranged}"
    return (f"{label}: the result depends on which people the attacker happens to know: "
            f"across {n} splits {ranged}")


@dataclass(frozen=True)
class SweepInputs:
    """What every sweep target reads (shared once with a cluster's workers)."""

    config: LocationConfig
    traces: object
    clipped: sp.csr_matrix
    rows: tuple[int, ...]             # the sweep targets, fewest hours first
    release_rows: np.ndarray
    aux_rows: np.ndarray
    scale: float | None
    dev: str


def sweep_point(index: int, shared: SweepInputs, progress: Progress, cancel: CancelToken):
    """Sweep target ``index`` (a unit of :mod:`engine.compute`): its k, hours, the exact
    optimum and the DP bound, and each cheap attack's accuracy with its interval."""
    config, row = shared.config, shared.rows[index]
    # The sweep target leaves the pools: nobody is both target and released "other".
    rel = shared.release_rows[shared.release_rows != row]
    aux = shared.aux_rows[shared.aux_rows != row]
    sc = build_scenario(config, shared.traces, shared.clipped, row, rel, aux, shared.scale,
                        ("sweep", index), n_test=config.sweep_test_aggregates,
                        with_reference=False, with_large=False, progress=progress.span(0, 0.7),
                        cancel=cancel, sampling_device=sampling_device(shared.dev))
    outs = run_attacks(config, sc, SWEEP_ATTACKS, shared.dev, progress=progress.span(0.7, 1.0),
                       cancel=cancel)
    optimal = bound = None
    if shared.scale is not None:
        optimal = float(mechanism_tradeoff(config.mechanism, shared.scale, 1.0, sc.k).accuracy())
        bound = dp_bound_accuracy(config, shared.scale, sc.k_epochs)
    measured = {}
    for o in outs:
        r = evaluate_attack(o.name, o.label, o.scores, sc.data.test.labels, delta=config.delta,
                            confidence=config.confidence, accuracy_threshold=o.threshold)
        # The counts behind the accuracy, for the family-wise test of every point against the
        # ε-DP bound (engine.plots.series.dp_bound_check; issue 32 item 5).
        s, y = np.asarray(o.scores), np.asarray(sc.data.test.labels, dtype=bool)
        if o.threshold is None:      # evaluate_attack measured on the split it did not select on
            keep = ~split_for_selection(y)
            s, y = s[keep], y[keep]
        counts = rates_at_threshold(s, y, r["details"]["accuracy_threshold"])
        measured[o.name] = {"accuracy": r["accuracy"], "accuracy_ci": r["accuracy_ci"],
                            "accuracy_counts": list(counts)}
    return sc.k, sc.k_epochs, optimal, bound, measured


def observation_sweep(config: LocationConfig, traces, clipped, main_target: int, release_rows,
                      aux_rows, scale, dev, *, progress: Progress, cancel: CancelToken) -> dict:
    """Accuracy of the cheap attacks for targets spread over k, with the theory lines."""
    if config.sweep_targets <= 0:
        return {}
    k_all = clipped.getnnz(axis=1)
    candidates = np.r_[release_rows, aux_rows]
    candidates = candidates[k_all[candidates] > 0]
    qs = np.linspace(0.05, 0.99, config.sweep_targets)
    chosen = []
    for q in qs:
        kq = np.quantile(k_all[candidates], q)
        row = int(candidates[np.argmin(np.abs(k_all[candidates] - kq))])
        if row not in chosen:
            chosen.append(row)
    # The sweep always uses the three cheap attacks (no training), whatever the main run uses.
    out = {"observations": [], "epochs": [], "optimal_accuracy": [], "dp_bound_accuracy": [],
           "test_aggregates": config.sweep_test_aggregates,
           "attacks": {name: [] for name in SWEEP_ATTACKS}}
    # Each sweep target is an independent unit (engine.compute), seeded by its number.
    rows = sorted(chosen, key=lambda r: k_all[r])
    shared = SweepInputs(config, traces, clipped, tuple(rows), release_rows, aux_rows, scale, dev)
    points, where = run_units(config.compute.cluster, sweep_point, len(rows), shared,
                              progress=progress, cancel=cancel,
                              message="Measuring people seen in fewer or more hours")
    for k, k_epochs, optimal, bound, measured in points:
        out["observations"].append(k)
        out["epochs"].append(k_epochs)
        if scale is not None:
            out["optimal_accuracy"].append(optimal)
            out["dp_bound_accuracy"].append(bound)
        for name, point in measured.items():
            out["attacks"][name].append(point)
    out["computed_on"] = where
    return out


def _attacker_words(config: LocationConfig) -> str:
    if config.attacker == "informed":
        return ("knows everyone else in the release (the worst case differential privacy "
                "protects against)")
    if config.attacker == "partial":
        return f"knows {config.known_fraction:.0%} of the other people in the release"
    return "knows nobody in the release but has similar people's traces"


def _warnings(config: LocationConfig, attacks: list[dict], theory: dict) -> list[str]:
    out = []
    bound = theory.get("dp_bound_accuracy")
    if bound is not None:
        for a in attacks:
            if a["accuracy_ci"][0] > bound + 1e-9:
                out.append(f"{a['label']}: accuracy {a['accuracy']:.3f} exceeds what "
                           f"ε = {config.epsilon:g} per hour allows ({bound:.3f}). The noise "
                           "does not give the claimed guarantee, or the clipping is off.")
    if config.mechanism == "none":
        out.append("No DP noise: the release has no formal protection; the verdict rests on "
                   "the attacks alone.")
    if config.attacker != "informed":
        out.append("The attacker modelled here knows less than DP assumes; the exact optimum "
                   "shown is the informed attacker's, an upper bound for this one.")
    return out


def _random_guess(config: LocationConfig, labels: np.ndarray) -> dict:
    return {"name": "random_guess", "label": "Random guess (no information)",
            "n_positive": int(labels.sum()), "n_negative": int((~labels).sum()),
            "auc": 0.5, "accuracy": 0.5, "advantage": 0.0,
            "tpr_at_fpr": [{"fpr_target": t, "tpr": t} for t in config.measured_fpr_targets()]}


def demo_config() -> LocationConfig:
    """The bundled example: the sample city CSV, Laplace noise ε = 0.5 per hour, both views."""
    return LocationConfig(name="Sample: people per site and hour, Laplace ε = 0.5",
                          traces=str(SAMPLE_TRACES.relative_to(ROOT)), aggregate_size=499,
                          test_aggregates=20_000, sweep_test_aggregates=2000)
