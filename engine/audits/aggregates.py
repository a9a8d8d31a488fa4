"""Audit of fixed aggregate statistics: "Will this count table let someone learn a person's
attribute?" (paper 003; method notes in docs/methods/aggregates_audit.md).

The game — the data, the release, the attribute game (Fig. 2) and the membership game
(§6.1 Fig. 9) with every attack, scored through the shared metric layer, and the exposed
records — is engine.games.aggregates; the attacks are the tables of engine.attacks.aggregates.
This module keeps what the user sets and reads:

1. the config (:class:`AggregatesConfig`) and its checks, and the bundled example
   (:func:`demo_config`);
2. the run (:func:`run`): the game, the sweeps over m/|D| and ε (Fig. 6, 8; :func:`sweep`), the
   published-table findings;
3. the theory: what ε-DP allows (:func:`dp_theory`), the release and the deterministic
   module in figures;
4. the verdict, the summary and the warnings, in words.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from engine.aggregates.release import BUDGETS, KINDS, MECHANISMS, ReleaseSpec
from engine.attacks.aggregates import (
    ATTRIBUTE_ATTACKS,
    MEMBERSHIP_ATTACKS,
)
from engine.attacks.aggregates.stochastic_model import MODELS
from engine.compute import ComputeSettings, one_executor_per_job
from engine.data.census import census_schema
from engine.data.errors import InputError, given_value
from engine.data.microdata import Schema
from engine.data.paths import APP_FOLDER
from engine.games.aggregates import DEFAULT_MIA_ATTACKS, play_aia
from engine.games.aggregates_data import load_data
from engine.games.aggregates_parts import (
    all_sweeps,
    membership_part,
    progress_ends,
    published_part,
)
from engine.games.aggregates_rules import rules_part, value_numbers
from engine.games.aggregates_scoring import evaluate, exposed_records
from engine.games.aggregates_summary import (
    random_guess,
    theory_warnings,
    verdict_and_summary,
)
from engine.games.aggregates_theory import theory_block
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
from engine.rules import RuleSettings, follow_policy
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch, device

SAMPLE_BLOCK = APP_FOLDER / "resources" / "aggregates" / "sample_block.csv"
SAMPLE_AUXILIARY = APP_FOLDER / "resources" / "aggregates" / "sample_auxiliary.csv"
RELEASE_KINDS = KINDS
ATTACKS = tuple(ATTRIBUTE_ATTACKS)
DEFAULT_ATTACKS = ("desia", "desia_no_verification", "desia_stochastic_only", "cip_rand",
                   "best_of", "data_only")
MIA_ATTACKS = tuple(MEMBERSHIP_ATTACKS)
SWEEP_ALLOWED = ("desia", "desia_stochastic_only", "cip_rand", "rap_rand", "data_only")
SWEEP_ATTACKS = ("desia", "cip_rand", "data_only")
# DEFAULT_MIA_ATTACKS (engine.games.aggregates) is the config's default too; LABELS, the
# attacks' names in the results, come with the attack tables.

@dataclass(frozen=True)
class AggregatesConfig:
    """What the user audits. Field comments are the tooltips' short form; every key is in
    docs/config_reference.md ("Count tables")."""

    schema_version: int = 1
    name: str = "Count tables audit"
    # --- data
    data: str = ""                    # microdata CSV of the protected records; "" = synthetic
    #                                   census block (or, with release = "published", the
    #                                   attacker's auxiliary sample)
    auxiliary: str = ""               # CSV of the attacker's auxiliary sample (same columns);
    #                                   "" = the protected records other than the targets
    schema: dict = field(default_factory=dict)   # Schema.to_dict(); {} = inferred from data
    sensitive: str = ""               # the attribute to infer; "" = the schema's sensitive
    #                                   column (synthetic census: race)
    census_records: int = 450         # synthetic census block: protected records ...
    census_auxiliary: int = 4000      # ... and auxiliary records (paper 003 §5)
    # --- release
    release: str = "p_tables"         # p_tables | marginals | custom | published
    release_options: dict = field(default_factory=dict)  # p_tables: age_bins; marginals:
    #                                   ways, buckets, columns; custom / published: path
    fraction: float = 0.25            # release m = fraction·|D| of the queries; 0 = all
    mechanism: str = "none"           # none | laplace | discrete_laplace | discrete_gaussian
    epsilon: float = 1.0              # ε (per query or for the whole release, see budget)
    delta: float = 1e-5               # δ for the discrete Gaussian
    budget: str = "per_query"         # per_query (paper 003 §5.6) | release
    published_records: int = 0        # |D| behind a published table (release = "published")
    # --- attacks
    attacks: tuple[str, ...] = DEFAULT_ATTACKS
    membership: bool = True           # also play the membership game (Fig. 9)
    mia_attacks: tuple[str, ...] = DEFAULT_MIA_ATTACKS
    model: str = "logistic"           # stochastic module: logistic | mlp | random_forest | svm
    n_shadow: int = 20_000            # shadow datasets of the stochastic module (§4.3)
    reconstructions: int = 10         # K for CIP and RAP
    solver_time_limit: float = 10.0   # seconds per CP-SAT solve
    max_targets: int = 50             # unique targets attacked (a random sample if more)
    # --- sweeps (Fig. 6 and Fig. 8)
    sweep_fractions: tuple[float, ...] = ()    # e.g. (0.05, 0.1, 0.25, 0.5, 1.0)
    sweep_epsilons: tuple[float, ...] = ()     # e.g. (10, 2, 1, 0.5, 0.1), Laplace per query
    sweep_attacks: tuple[str, ...] = SWEEP_ATTACKS
    sweep_targets: int = 30
    # --- measurement and reporting
    list_exposed_records: bool = False   # show exposed records' values (redacted by default)
    confidence: float = 0.95
    fpr_targets: tuple[float, ...] = (0.001, 0.01, 0.1)
    seed: int = 7
    policy: VerdictPolicy = field(default_factory=VerdictPolicy)
    # where the deterministic module's targets are solved (issue 22 item 6)
    compute: ComputeSettings = field(default_factory=ComputeSettings)
    # the disclosure rules beside the attacks (issue 34 item 2; engine.rules; ACRO defaults)
    rules: dict = field(default_factory=lambda: RuleSettings().to_dict())

    audit_type = "aggregates"

    def to_dict(self) -> dict:
        d = asdict(self)
        for key in ("attacks", "mia_attacks", "fpr_targets", "sweep_fractions",
                    "sweep_epsilons", "sweep_attacks"):
            d[key] = list(getattr(self, key))
        d["policy"] = self.policy.to_dict()
        d["compute"] = self.compute.to_dict()
        return {"audit_type": self.audit_type, **d}

    @classmethod
    def from_dict(cls, d: dict, source: str = "config") -> AggregatesConfig:
        """Validate a user dict; every problem is one InputError sentence naming the key."""
        d = begin_from_dict(cls, d, source)
        v = common_fields(d, source)
        for key in ("data", "auxiliary", "sensitive"):
            if key in d:
                v[key] = str(d[key])[:1000]
        choices = {"release": RELEASE_KINDS, "mechanism": MECHANISMS, "budget": BUDGETS,
                   "model": MODELS}
        for key, allowed in choices.items():
            if key in d:
                v[key] = as_choice(source, key, d[key], allowed)
        integers = {"census_records": (10, 100_000), "census_auxiliary": (10, 1_000_000),
                    "published_records": (0, 100_000_000), "n_shadow": (100, 1_000_000),
                    "reconstructions": (1, 1000), "max_targets": (1, 100_000),
                    "sweep_targets": (5, 10_000)}
        for key, (lo, hi) in integers.items():
            if key in d:
                v[key] = as_number(source, key, d[key], integer=True, minimum=lo, maximum=hi)
        if "fraction" in d:
            v["fraction"] = as_number(source, "fraction", d["fraction"], minimum=0,
                                      maximum=100)
        if "epsilon" in d:
            v["epsilon"] = as_number(source, "epsilon", d["epsilon"], minimum=0,
                                     exclusive_minimum=True, maximum=100)
        if "delta" in d:
            v["delta"] = as_number(source, "delta", d["delta"], minimum=0,
                                   exclusive_minimum=True, maximum=0.1)
        if "solver_time_limit" in d:
            v["solver_time_limit"] = as_number(source, "solver_time_limit",
                                               d["solver_time_limit"], minimum=0.1,
                                               maximum=3600)
        for key, allowed, default in (("attacks", ATTACKS, DEFAULT_ATTACKS),
                                      ("mia_attacks", MIA_ATTACKS, DEFAULT_MIA_ATTACKS),
                                      ("sweep_attacks", SWEEP_ALLOWED, SWEEP_ATTACKS)):
            if key in d:
                v[key] = as_choice_list(source, key, d[key], allowed, default)
        for key, lo, hi in (("sweep_fractions", 0.0, 100.0), ("sweep_epsilons", 0.0, 100.0)):
            if key in d:
                items = d[key]
                if not isinstance(items, (list, tuple)):
                    what = "released shares" if key == "sweep_fractions" else "ε values"
                    raise InputError(f"{source}: the sweep's {what} must be a list of numbers "
                                     f"such as 0.1, 0.25, 1.0 (or empty for no sweep); got "
                                     f"{given_value(items)}.", source=source, key=key,
                                     setting=key)
                if len(items) > 12:
                    raise InputError(f"{source}: '{key}' has {len(items)} values; a sweep "
                                     "takes at most 12 (each is a full game).", source=source,
                                     key=key)
                v[key] = tuple(as_number(source, key, x, minimum=lo, exclusive_minimum=True,
                                         maximum=hi) for x in items)
        for key in ("membership", "list_exposed_records"):
            if key in d:
                v[key] = as_bool(source, key, d[key])
        for key in ("schema", "release_options"):
            if key in d:
                if not isinstance(d[key], dict):
                    what = "data's description" if key == "schema" else "release's options"
                    raise InputError(f"{source}: the {what} must be a table of settings "
                                     f"(got {given_value(d[key])}).", source=source, key=key,
                                     setting=key)
                v[key] = _plain(d[key])
        if "compute" in d:
            v["compute"] = ComputeSettings.from_dict(d["compute"], source)
        if "rules" in d:
            v["rules"] = RuleSettings.from_dict(d["rules"], source).to_dict()
        config = cls(**v)
        config.validate(source)
        return config

    def validate(self, source: str = "config") -> None:
        """Cross-field rules (single fields are checked in from_dict)."""
        if self.schema:
            Schema.from_dict(self.schema, source=f"{source}, schema")
        rules = RuleSettings.from_dict(self.rules, source)
        if rules.value_column and self.schema and self.release != "published":
            value_numbers(Schema.from_dict(self.schema), rules.value_column)
        if self.release in ("custom", "published") and not str(
                self.release_options.get("path", "")).strip():
            what = ("query file (CSV or TOML)" if self.release == "custom"
                    else "published table (CSV with a 'count' column)")
            raise InputError(f"{source}: this release reads a {what}; choose that file "
                             f"as the release's file.", source=source,
                             key="release_options.path", setting="release_options.path")
        if self.release == "published":
            if not self.data:
                raise InputError(f"{source}: a published table is attacked with an auxiliary "
                                 "sample; choose the attacker's records file (a CSV of people "
                                 "like those counted, with the same columns).", source=source,
                                 key="data", setting="data")
            if self.published_records < 1:
                raise InputError(f"{source}: the people counted in the table must give |D|, "
                                 "the number of people behind the published table (the "
                                 "attacker knows it; it is usually the table's total).",
                                 source=source, key="published_records",
                                 setting="published_records")
        try:
            self.release_spec()
        except InputError as exc:
            raise InputError(f"{source}: {exc}", source=source,
                             key=exc.key or "release_options") from None

    def release_spec(self, *, fraction: float | None = ..., epsilon: float | None = ...,
                     mechanism: str | None = None) -> ReleaseSpec:
        """The ReleaseSpec of this config, optionally with another fraction or noise (sweeps)."""
        f = self.fraction if fraction is ... else fraction
        mech = mechanism or self.mechanism
        eps = self.epsilon if epsilon is ... else epsilon
        return ReleaseSpec(kind=self.release, options=dict(self.release_options),
                           fraction=None if (not f or self.release == "published") else f,
                           mechanism=mech, epsilon=None if mech == "none" else eps,
                           delta=self.delta if mech == "discrete_gaussian" else None,
                           budget=self.budget)


def _plain(value):
    """TOML/JSON tables as plain dicts and lists (tomllib gives dicts already; the GUI may hand
    over tuples)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# --------------------------------------------------------------------------- the audit

@one_executor_per_job
def run(config: AggregatesConfig, *, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> AuditResult:
    """The count-tables audit (module docstring): data, release, the AIA game with every
    attack, the MIA game, sweeps, exposed records, DP comparison and verdict. Every part's
    units run on the job's one executor (engine.compute: one private Ray instance per job for
    ``cluster = "local"``)."""
    if not isinstance(config, AggregatesConfig):
        raise TypeError("run() needs an AggregatesConfig")
    config.validate()
    clock = Stopwatch()
    progress(0.0, "Loading the records")
    data = load_data(config)
    inputs = list(data.inputs)
    aia_end, mia_end = progress_ends(config)
    published = None
    if config.release == "published":
        published, exposed = published_part(config, data, inputs,
                                            progress=progress.span(0.0, 0.1), cancel=cancel)
    outcome = play_aia(config, data=data, progress=progress.span(0.1, aia_end), cancel=cancel)
    attacks = evaluate(config, outcome)
    if config.release != "published":
        exposed = exposed_records(outcome, list_records=config.list_exposed_records)
    membership, mia_attacks, mia_cuts = membership_part(
        config, data, progress=progress.span(aia_end, mia_end), cancel=cancel)
    sweeps, sweep_cuts = all_sweeps(config, data, mia_end, progress=progress, cancel=cancel)
    # Reconstruction solves that the wall-clock backstop stopped before their deterministic
    # limit (a very busy computer): the one way a seed's numbers can differ on a rerun.
    clock_cuts = outcome.details["solves_stopped_by_clock"] + mia_cuts + sweep_cuts
    theory = theory_block(config, outcome, clock_cuts, membership, sweeps, published)
    theory["rules"] = rules_part(config, data, outcome, progress=progress.span(0.97, 0.99),
                                 cancel=cancel)
    verdict, summary = verdict_and_summary(config, attacks, mia_attacks, membership, exposed,
                                           theory, outcome)
    verdict = follow_policy(verdict, theory["rules"])
    warnings = theory_warnings(config, attacks, theory)
    progress(1.0, "Done")
    return AuditResult(
        audit_type="aggregates", name=config.name, seed=config.seed, config=config.to_dict(),
        software=software_versions(device()), runtime_s=round(clock.elapsed(), 3),
        attacks=attacks, baselines=[random_guess(config, outcome)], theory=theory,
        verdict=verdict,
        summary=summary, warnings=warnings + input_warnings(inputs), inputs=inputs,
        exposed_records=exposed)


def demo_config() -> AggregatesConfig:
    """The bundled example, paper 003's PPMF setting on the sample census block (450 people)
    and its auxiliary sample: Hispanic origin is the sensitive attribute, the Census P-tables
    (P12, P12A–G by race, P12H Hispanic, P12I White not Hispanic) are released with
    m = 0.25·|D| cells drawn at random, exact counts; both games, no sweeps. 5,000 shadow
    datasets and 5 reconstructions per target (paper 003: 20,000 and 100) keep it under two
    minutes on two cores (issue 33 item 3; with 20,000 and 10 it took 2.7 minutes and gave the
    same verdict and real-people figures)."""
    return AggregatesConfig(
        name="Sample: census block counts, a quarter of the cells released, no noise",
        data=str(SAMPLE_BLOCK.relative_to(APP_FOLDER)),
        auxiliary=str(SAMPLE_AUXILIARY.relative_to(APP_FOLDER)),
        schema=_sample_schema(), sensitive="hispanic",
        release_options={"hispanic_col": "hispanic", "hispanic_label": "Hispanic",
                         "white_label": "White"},
        max_targets=60, n_shadow=5_000, reconstructions=5)


def _sample_schema() -> dict:
    return census_schema(("block_000",), sensitive="hispanic").to_dict()
