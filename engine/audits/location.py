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

This module keeps the audit's settings, its run and its demo; the game (steps 1–3, and the
replays and sweep of step 6) is engine.games.location with its location_* modules, the theory
engine.games.location_theory, the verdict and summary engine.games.location_summary.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from engine.attacks.location import two_threshold
from engine.compute import ComputeSettings, one_executor_per_job
from engine.data.errors import InputError, given_value
from engine.data.paths import APP_FOLDER
from engine.data.traces import RELEASE_MISSING
from engine.games.location import play_main
from engine.games.location_repeats import replay_into, sweep_of
from engine.games.location_setup import GAUSSIAN_FAMILY, game_facts, set_up
from engine.games.location_summary import random_guess, verdict_and_summary
from engine.games.location_theory import dp_bound_accuracy, exposed_people, theory_for
from engine.mechanisms.arguments import MECHANISM_NAMES
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

SAMPLE_TRACES = APP_FOLDER / "resources" / "location" / "sample_city.csv"
MECHANISMS = (*MECHANISM_NAMES, "none")
ATTACKERS = ("informed", "partial", "auxiliary")
TARGET_RULES = ("most_exposed", "observations", "random", "id")
ATTACKS = ("one_threshold", "two_threshold", "meta_classifier", "meta_classifier_100",
           "reference", "likelihood_ratio")
DEFAULT_ATTACKS = ("one_threshold", "two_threshold", "meta_classifier", "reference",
                   "likelihood_ratio")
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


# One executor for the whole job: one private Ray instance for cluster = "local" (issue 22).
@one_executor_per_job
def run(config: LocationConfig, *, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> AuditResult:
    """Run the whole location audit (see module docstring): config → game → attacks →
    theory → headline → result."""
    if not isinstance(config, LocationConfig):
        raise TypeError("run() needs a LocationConfig")
    config.validate()
    clock = Stopwatch()
    dev = device()
    game = set_up(config, dev, progress=progress, cancel=cancel)
    scenario, attacks, test_labels, release_verdicts = play_main(config, game, progress=progress,
                                                                 cancel=cancel)
    replays_overview = replay_into(config, game, attacks, progress=progress.span(0.75, 0.80),
                                   cancel=cancel)
    theory = theory_for(config, game.scale, scenario.k, scenario.k_epochs,
                        config.measured_fpr_targets())
    if game.scale is not None:
        theory["dp_bound_accuracy"] = dp_bound_accuracy(config, game.scale, scenario.k_epochs)
    if release_verdicts is not None:
        theory["published_release"] = {
            "path": game.inputs[-1]["path"], "attacks": release_verdicts,
            "note": "Metrics above are the attacker's own estimate on simulated releases from "
                    "its auxiliary data; the verdicts here are its conclusions on the "
                    "published release."}
    # Accuracy against the number of positive observations (paper 000 Fig. 13/14).
    theory["sweep"] = sweep_of(config, game, progress=progress.span(0.75, 0.95), cancel=cancel)
    exposed = exposed_people(config, game.traces, game.clipped, game.scale)
    verdict, summary, warnings = verdict_and_summary(config, scenario.k, attacks, theory,
                                                     exposed, release_verdicts)
    theory.update(game_facts(config, game, scenario.k, scenario.k_epochs))
    if replays_overview is not None:
        theory["repetitions"] = replays_overview
    progress(1.0, "Done")
    return AuditResult(
        audit_type="location", name=config.name, seed=config.seed, config=config.to_dict(),
        software=software_versions(dev), runtime_s=round(clock.elapsed(), 3),
        attacks=attacks, baselines=[random_guess(config, test_labels)], theory=theory,
        verdict=verdict, summary=summary, warnings=warnings + input_warnings(game.inputs),
        inputs=game.inputs, exposed_records=[exposed])


def demo_config() -> LocationConfig:
    """The bundled example: the sample city CSV, Laplace noise ε = 0.5 per hour, both views."""
    return LocationConfig(name="Sample: people per site and hour, Laplace ε = 0.5",
                          traces=str(SAMPLE_TRACES.relative_to(APP_FOLDER)), aggregate_size=499,
                          test_aggregates=20_000, sweep_test_aggregates=2000)

