"""Audit of fixed aggregate statistics: "Will this count table let someone learn a person's
attribute?" (paper 003; method notes in docs/methods/aggregates_audit.md).

1. Data (:func:`load_data`): the protected microdata (a CSV with its schema, or the synthetic
   census block) and the attacker's auxiliary sample (a CSV, or resampled from the protected
   records other than the targets); for a published table, the attacker's sample stands in.
2. Release (:func:`setup_game`): the candidate queries (P-tables, marginals, custom, published),
   a random fraction m/|D| of them, noise with rounding and clamping (engine.aggregates).
3. The attribute game (:func:`play_aia`, below) and the membership game (:func:`play_mia`,
   §6.1 Fig. 9), each attack scored through the shared metric layer (:func:`evaluate`).
4. Exposed records: the targets the tables provably determine, with the cells that pin them.
5. Sweeps over m/|D| and ε (Fig. 6, 8); the DP comparison (:func:`dp_theory`); the verdict.

The game (paper 003 §2.3, Fig. 2): for every target unique on its quasi-identifiers, the
challenger re-draws the target's sensitive value uniformly — so whatever the attacker learns
comes from the release, not from the data's marginals — computes the release on that dataset
(the same released queries for every target), and the attacker, who knows the target's
quasi-identifiers, |D|, the domains and an auxiliary sample, outputs a score per sensitive
value. Attacks: DeSIA (deterministic module, then the stochastic module where the first cannot
decide) and its ablations (Table 3), CIP and RAP reconstructions with the neighbourhood vote,
a data-only guess and random guessing. Metrics pool the (target, value) pairs one-vs-rest:
score = the attack's score for that value, member = it is the target's value.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from engine.aggregates.queries import Domain, answers
from engine.aggregates.release import (
    BUDGETS,
    KINDS,
    MECHANISMS,
    ReleaseSpec,
    build_release,
    noisy_answers,
)
from engine.attacks.aggregates import desia_deterministic as dd
from engine.attacks.aggregates.desia_stochastic import MODELS
from engine.auditing import evaluate_attack
from engine.audits.config_fields import (
    as_bool,
    as_choice,
    as_choice_list,
    as_number,
    begin_from_dict,
    common_fields,
)
from engine.audits.result import (
    REDACTED,
    AuditResult,
    input_entry,
    input_warnings,
    software_versions,
)
from engine.data.errors import InputError
from engine.data.microdata import Schema
from engine.headline import headline
from engine.metrics import clopper_pearson
from engine.policy import VerdictPolicy
from engine.runtime import (
    NEVER,
    NO_PROGRESS,
    CancelToken,
    Progress,
    Stopwatch,
    device,
    rng,
)
from engine.wording import plain_name

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BLOCK = ROOT / "resources" / "aggregates" / "sample_block.csv"
SAMPLE_AUXILIARY = ROOT / "resources" / "aggregates" / "sample_auxiliary.csv"
RELEASE_KINDS = KINDS
ATTACKS = ("desia", "desia_no_verification", "desia_no_uniqueness", "desia_stochastic_only",
           "desia_deterministic_only", "desia_synthetic", "likelihood", "cip_rand",
           "cip_init", "rap_rand", "rap_init", "data_only")
DEFAULT_ATTACKS = ("desia", "desia_no_verification", "desia_stochastic_only", "cip_rand",
                   "data_only")
MIA_ATTACKS = ("desia_mia", "desia_mia_stochastic_only", "cip_rand_mia", "rap_rand_mia")
DEFAULT_MIA_ATTACKS = ("desia_mia", "desia_mia_stochastic_only", "cip_rand_mia")
SWEEP_ALLOWED = ("desia", "desia_stochastic_only", "cip_rand", "rap_rand", "data_only")
SWEEP_ATTACKS = ("desia", "cip_rand", "data_only")
LABELS = {
    "desia": "DeSIA: deterministic then stochastic module (paper 003 §3)",
    "desia_no_verification": "DeSIA without the verification step (Table 3 ablation)",
    "desia_no_uniqueness": "DeSIA without the uniqueness constraint (Table 3 ablation)",
    "desia_stochastic_only": "DeSIA stochastic module only (Table 3 ablation)",
    "desia_deterministic_only": "DeSIA deterministic module only, else a uniform guess",
    "cip_rand": "CIP-rand reconstruction + neighbourhood vote (paper 003 §2.5)",
    "cip_init": "CIP-init reconstruction + neighbourhood vote (paper 003 §2.5)",
    "rap_rand": "RAP-rand relaxed reconstruction + neighbourhood vote (paper 003 §2.5)",
    "rap_init": "RAP-init relaxed reconstruction + neighbourhood vote (paper 003 §2.5)",
    "desia_synthetic": "Synthetic data + uniqueness instead of the solver (Table 3 ablation)",
    "likelihood": "Likelihood attack: per-statistic Gaussian vote (paper 003 §7.2)",
    "data_only": "Data-only guess: the most frequent value among similar auxiliary records",
    "desia_mia": "DeSIA-MIA: deterministic membership check, then the stochastic module (§6.2)",
    "desia_mia_stochastic_only": "DeSIA-MIA stochastic module only (§6.2)",
    "cip_rand_mia": "CIP-rand reconstruction MIA: share of reconstructions holding the record "
                    "(§6.3)",
    "rap_rand_mia": "RAP-rand reconstruction MIA: share of reconstructions holding the record "
                    "(§6.3)",
}


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

    audit_type = "aggregates"

    def to_dict(self) -> dict:
        d = asdict(self)
        for key in ("attacks", "mia_attacks", "fpr_targets", "sweep_fractions",
                    "sweep_epsilons", "sweep_attacks"):
            d[key] = list(getattr(self, key))
        d["policy"] = self.policy.to_dict()
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
                    raise InputError(f"{source}: '{key}' must be a list of numbers such as "
                                     f"[0.1, 0.25, 1.0] (or empty for no sweep); got "
                                     f"{items!r}.", source=source, key=key)
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
                    raise InputError(f"{source}: '{key}' must be a table of keys and values "
                                     f"(got {d[key]!r}).", source=source, key=key)
                v[key] = _plain(d[key])
        config = cls(**v)
        config.validate(source)
        return config

    def validate(self, source: str = "config") -> None:
        """Cross-field rules (single fields are checked in from_dict)."""
        if self.schema:
            Schema.from_dict(self.schema, source=f"{source}, schema")
        if self.release in ("custom", "published") and not str(
                self.release_options.get("path", "")).strip():
            what = ("query file (CSV or TOML)" if self.release == "custom"
                    else "published table (CSV with a 'count' column)")
            raise InputError(f"{source}: release = '{self.release}' reads a {what}; set "
                             f"release_options.path to it.", source=source,
                             key="release_options.path")
        if self.release == "published":
            if not self.data:
                raise InputError(f"{source}: a published table is attacked with an auxiliary "
                                 "sample; set 'data' to the attacker's microdata CSV (people "
                                 "like those counted, with the same columns).", source=source,
                                 key="data")
            if self.published_records < 1:
                raise InputError(f"{source}: 'published_records' must give |D|, the number of "
                                 "people behind the published table (the attacker knows it; "
                                 "it is usually the table's total).", source=source,
                                 key="published_records")
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


@dataclass
class AiaOutcome:
    """Per attack: (T, V) scores; the game's truth; the deterministic module's findings."""

    scores: dict[str, np.ndarray]
    truth: np.ndarray                 # (T,) the re-drawn sensitive codes
    targets: np.ndarray               # (T,) record indices in the protected data
    determined: np.ndarray            # (T,) bool: provably determined by the release
    determined_value: np.ndarray      # (T,) the value proved (-1 where not)
    queries: list = field(default_factory=list)
    target_codes: np.ndarray | None = None   # (T, c) the targets' coded records
    sensitive_column: int = -1
    details: dict = field(default_factory=dict)


def _domain_and_codes(microdata, columns):
    idx = [microdata.schema.index(c) for c in columns]
    labels = tuple(tuple(microdata.schema.column(c).labels()) for c in columns)
    return Domain(columns=tuple(columns), labels=labels), np.ascontiguousarray(
        microdata.codes[:, idx]).astype(np.int32)


# --------------------------------------------------------------------------- data

AUXILIARY_RATIO = 9      # paper 003 §5: D_aux is 9× the protected dataset (90 % / 10 %)


@dataclass(frozen=True)
class AuditData:
    """The records one audit runs on.

    ``protected``: D (for a published table: a stand-in of |D| records drawn from the
    attacker's sample, used to simulate the game); ``auxiliary``: D_aux, or None when it is
    resampled from the protected records once the targets are known (see
    :func:`resampled_auxiliary`); ``auxiliary_source``: "file", "synthetic",
    "protected_records" or "published_sample"; ``inputs``: the files read, with hashes."""

    protected: object
    auxiliary: object | None
    auxiliary_source: str
    inputs: list


def resolve_path(path: str) -> Path:
    """The file a typed path names: engine.data.paths.resolve_path, the loaders' one rule
    (``~`` expanded; as written, or in the app folder for the bundled samples)."""
    from engine.data.paths import resolve_path as resolve

    return resolve(path)


def _with_sensitive(microdata, sensitive: str, source: str):
    from engine.data.microdata import Microdata

    schema = microdata.schema
    if sensitive:
        if sensitive not in schema.names:
            raise InputError(f"{source}: there is no column '{sensitive}' to infer; columns: "
                             f"{', '.join(schema.names)} — choose one of them as the "
                             "sensitive attribute.", source=source, key="sensitive")
        schema = schema.with_roles(sensitive=sensitive)
    try:
        schema.validate_for_audit()
    except InputError as exc:
        raise InputError(f"{source}: {exc}", source=source, key=exc.key) from None
    return Microdata(schema, microdata.codes, microdata.source, microdata.open_labels,
                     microdata.missing_values)


def load_data(config: AggregatesConfig) -> AuditData:
    """The protected records and the attacker's auxiliary sample (module docstring)."""
    from engine.data.census import generate_census_blocks
    from engine.data.microdata import infer_schema_from_csvs, load_microdata_csv

    if not config.data:
        protected, auxiliary = generate_census_blocks(
            config.seed, records_per_block=config.census_records,
            n_auxiliary=config.census_auxiliary, sensitive=config.sensitive or "race")
        return AuditData(protected, auxiliary, "synthetic", [])
    path = resolve_path(config.data)
    apath = resolve_path(config.auxiliary) if config.auxiliary else None
    if config.schema:
        schema = Schema.from_dict(config.schema, source=f"{path.name}, schema")
    elif apath is not None and config.release != "published":
        schema = infer_schema_from_csvs([path, apath])   # domains cover both files
    else:
        schema = None
    records = load_microdata_csv(path, schema)
    records = _with_sensitive(records, config.sensitive, str(path))
    inputs = [input_entry(path, rows=records.n_records,
                          role="published_sample" if config.release == "published"
                          else "protected")]
    if records.missing_values:          # what was done with empty cells (issue 21)
        inputs[0]["missing_values"] = records.missing_values
    if config.release == "published":
        need = 2 * config.published_records
        if records.n_records < need:
            raise InputError(f"{path}: the attacker's sample has {records.n_records:,} records; "
                             f"simulating releases of |D| = {config.published_records:,} people "
                             f"needs at least {need:,} (|D| to stand in for the published "
                             "people, the rest as the attacker's auxiliary data); give a larger "
                             "sample.", source=str(path), key="data")
        order = rng(config.seed, "aggregates-published-standin").permutation(records.n_records)
        stand_in = records.subset(np.sort(order[:config.published_records]))
        rest = records.subset(np.sort(order[config.published_records:]))
        return AuditData(stand_in, rest, "published_sample", inputs)
    if apath is None:
        return AuditData(records, None, "protected_records", inputs)
    aux = load_microdata_csv(apath, records.schema)
    inputs.append(input_entry(apath, rows=aux.n_records, role="auxiliary"))
    if aux.missing_values:
        inputs[-1]["missing_values"] = aux.missing_values
    return AuditData(records, aux, "file", inputs)


def resampled_auxiliary(protected, targets: np.ndarray, seed: int):
    """D_aux when the user gives none: 9·|D| records drawn with replacement from the protected
    records that are not targets — an attacker who knows the population's distribution as
    well as the data itself shows it (strong, hence conservative); never the targets."""
    keep = np.setdiff1d(np.arange(protected.n_records), targets)
    if keep.size == 0:
        raise InputError("Every record is a target, so no auxiliary sample can be drawn from "
                         "the others; give an auxiliary CSV or lower 'max_targets'.",
                         key="auxiliary")
    g = rng(seed, "aggregates-auxiliary")
    rows = g.choice(keep, AUXILIARY_RATIO * protected.n_records, replace=True)
    return protected.subset(np.sort(rows))


@dataclass(frozen=True)
class GameSetup:
    """What both games start from: the coded data (quasi-identifiers, then the sensitive
    column), the targets unique on their quasi-identifiers, and the release definition."""

    domain: Domain
    codes: np.ndarray                 # (n, c) protected records
    aux_codes: np.ndarray             # (m, c) the attacker's auxiliary records
    targets: np.ndarray               # (T,) record indices, at most config.max_targets
    spec: ReleaseSpec
    base: object                      # the Release on the protected data (queries, noise)
    queries: list
    unique_records: int = 0           # records unique on their quasi-identifiers
    auxiliary_source: str = "synthetic"


def setup_game(config: AggregatesConfig, stream: str, data: AuditData | None = None
               ) -> tuple[GameSetup, np.random.Generator]:
    """Data, targets and released queries; the returned generator (stream ``stream``) has
    drawn the target sample and goes on with the game's secret draws."""
    from engine.data.microdata import require_unique_targets

    data = data or load_data(config)
    protected = data.protected
    qi_names = list(protected.schema.quasi_identifiers)
    sensitive = protected.schema.sensitive
    columns = qi_names + [sensitive]
    domain, codes = _domain_and_codes(protected, columns)
    g = rng(config.seed, stream)
    unique = require_unique_targets(protected)
    targets = unique
    if targets.size > config.max_targets:
        targets = np.sort(g.choice(targets, config.max_targets, replace=False))
    auxiliary = data.auxiliary
    if auxiliary is None:
        auxiliary = resampled_auxiliary(protected, targets, config.seed)
    _, aux_codes = _domain_and_codes(auxiliary, columns)
    if aux_codes.shape[0] < codes.shape[0]:
        raise InputError(f"The attacker's auxiliary sample has {aux_codes.shape[0]:,} records "
                         f"but each simulated dataset needs |D| = {codes.shape[0]:,} of them; "
                         "give a larger auxiliary sample (paper 003 uses 9× |D|).",
                         key="auxiliary")
    spec = config.release_spec()
    base = build_release(spec, domain, codes, rng(config.seed, "aggregates-release"))
    if not base.queries:
        raise InputError("The release holds no statistics (no query matched the data's "
                         "columns); check the release settings.", key="release")
    return GameSetup(domain, codes, aux_codes, targets, spec, base, list(base.queries),
                     int(unique.size), data.auxiliary_source), g


def record_space(domain: Domain):
    """Every possible record of the audited columns, for the exact (solver) modules; an
    InputError sentence naming the largest columns when they allow too many."""
    return dd.RecordSpace.of(domain)


def shadow_noise(spec: ReleaseSpec, sensitivity: float):
    """The release's noise, for the stochastic module's shadow answers (§5.6: the attacker
    knows the mechanism and trains on releases noised the same way); None without noise."""
    if spec.mechanism == "none":
        return None

    def noise(answers_, g):
        return noisy_answers(answers_, spec, sensitivity, g)
    return noise


def released_per_target(config: AggregatesConfig, game: GameSetup, truth: np.ndarray
                        ) -> np.ndarray:
    """(T, m) the release each target's game publishes: the protected data with that target's
    sensitive value re-drawn (Fig. 2), answered and noised (one noise stream per target)."""
    codes, s = game.codes, game.codes.shape[1] - 1
    released = np.zeros((game.targets.size, len(game.queries)))
    for i, t in enumerate(game.targets):
        data_t = codes.copy()
        data_t[t, s] = truth[i]
        released[i] = noisy_answers(answers(game.queries, data_t), game.spec,
                                    game.base.sensitivity,
                                    rng(config.seed, "aggregates-noise", i))
    return released


def play_aia(config: AggregatesConfig, *, data: AuditData | None = None,
             progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> AiaOutcome:
    """The AIA game of Fig. 2 with every requested attack (see module docstring)."""
    from engine.attacks.aggregates import cip, rap
    from engine.attacks.aggregates.desia_stochastic import score_many_targets
    from engine.attacks.aggregates.likelihood import likelihood_attack

    game, g = setup_game(config, "aggregates-aia", data)
    domain, codes, aux_codes, targets = game.domain, game.codes, game.aux_codes, game.targets
    queries = game.queries
    s = codes.shape[1] - 1                                 # sensitive column index
    n_values = domain.sizes[s]
    truth = g.integers(0, n_values, targets.size)
    released = released_per_target(config, game, truth)
    n = codes.shape[0]
    wanted = set(config.attacks)
    scores: dict[str, np.ndarray] = {}
    uniform = np.full((targets.size, n_values), 1.0 / n_values)

    # Deterministic module (and its ablations) per target.
    space = record_space(domain)
    masks = [space.matches(q.conditions) for q in queries]
    determined = np.zeros(targets.size, dtype=bool)
    det_value = np.full(targets.size, -1)
    det_seconds = np.zeros(targets.size)
    det_status = []
    guess_no_verify = np.full(targets.size, -1)
    guess_no_unique = np.full(targets.size, -1)
    # Always run: the exposed records come from it, whatever attacks are listed.
    det_progress = progress.span(0.0, 0.35)
    for i, t in enumerate(targets):
        cancel.check()
        qi = {c: int(codes[t, c]) for c in range(s)}
        out = dd.infer(space, masks, released[i], n, qi, s,
                       time_limit=config.solver_time_limit, seed=config.seed, cancel=cancel)
        det_seconds[i] = out.seconds
        det_status.append(out.status)
        if out.status == "determined":
            determined[i], det_value[i] = True, out.value
        if "desia_no_verification" in wanted:
            o2 = dd.infer(space, masks, released[i], n, qi, s, verify=False,
                          time_limit=config.solver_time_limit, seed=config.seed, cancel=cancel)
            guess_no_verify[i] = -1 if o2.value is None else o2.value
        if "desia_no_uniqueness" in wanted:
            o3 = dd.infer(space, masks, released[i], n, qi, s, uniqueness=False,
                          time_limit=config.solver_time_limit, seed=config.seed, cancel=cancel)
            guess_no_unique[i] = -1 if o3.value is None else o3.value
        det_progress((i + 1) / targets.size, f"Deterministic module: target {i + 1:,} of "
                                             f"{targets.size:,}")

    noise = shadow_noise(game.spec, game.base.sensitivity)
    stochastic = None
    if wanted & {"desia", "desia_no_verification", "desia_no_uniqueness",
                 "desia_stochastic_only"}:
        results = score_many_targets(queries, released, codes[targets], s, aux_codes, n,
                                     domain, n_shadow=config.n_shadow, model=config.model,
                                     noise=noise, seed=config.seed,
                                     progress=progress.span(0.35, 0.6), cancel=cancel)
        stochastic = np.array([r["probabilities"] for r in results])

    def certain_where(found: np.ndarray, fallback: np.ndarray) -> np.ndarray:
        out = fallback.copy()
        hit = found >= 0
        out[hit] = 0.0
        out[np.flatnonzero(hit), found[hit]] = 1.0
        return out

    if "desia" in wanted:
        scores["desia"] = certain_where(det_value, stochastic)
    if "desia_no_verification" in wanted:
        scores["desia_no_verification"] = certain_where(guess_no_verify, stochastic)
    if "desia_no_uniqueness" in wanted:
        scores["desia_no_uniqueness"] = certain_where(guess_no_unique, stochastic)
    if "desia_stochastic_only" in wanted:
        scores["desia_stochastic_only"] = stochastic
    if "desia_deterministic_only" in wanted:
        scores["desia_deterministic_only"] = certain_where(det_value, uniform)
    if "likelihood" in wanted:
        lik = progress.span(0.6, 0.7)
        out = np.zeros((targets.size, n_values))
        for i, t in enumerate(targets):
            out[i] = likelihood_attack(queries, released[i], codes[t], s, aux_codes, n, domain,
                                       n_shadow=config.n_shadow, seed=config.seed,
                                       cancel=cancel)["probabilities"]
            lik((i + 1) / targets.size, f"Likelihood attack: target {i + 1:,} of "
                                        f"{targets.size:,}")
        scores["likelihood"] = out

    # Reconstruction baselines: K reconstructions of each target's release. RAP's
    # reconstructions also give the "synthetic data" rows of Table 3.
    recon_names = [a for a in ("cip_rand", "cip_init", "rap_rand", "rap_init") if a in wanted]
    if "desia_synthetic" in wanted and "rap_rand" not in recon_names:
        recon_names.append("rap_rand")
    rec_progress = progress.span(0.7, 0.97)
    synthetic = np.zeros((targets.size, n_values))
    for j, name in enumerate(recon_names):
        method, mode = name.split("_")
        out = np.zeros((targets.size, n_values))
        for i, t in enumerate(targets):
            cancel.check()
            kwargs = dict(k=config.reconstructions, mode=mode, seed=config.seed + i,
                          auxiliary=aux_codes if mode == "init" else None, cancel=cancel)
            if method == "cip":
                recon = cip.reconstruct_cip(domain.sizes, queries, released[i], n,
                                            time_limit=config.solver_time_limit, **kwargs)
            else:
                recon = rap.reconstruct_rap(domain.sizes, queries, released[i], n, **kwargs)
                if name == "rap_rand":
                    synthetic[i] = unique_match_votes(recon.records, codes[t], s, n_values)
            vote = cip.attribute_inference(recon, codes[[t]], s, n_values,
                                           qi_columns=list(range(s)), seed=config.seed + i)
            out[i] = vote.scores[0]
            rec_progress((j + (i + 1) / targets.size) / len(recon_names),
                         f"{LABELS[name].split(' ')[0]}: target {i + 1:,} of {targets.size:,}")
        if name in wanted:
            scores[name] = out
    if "desia_synthetic" in wanted:
        scores["desia_synthetic"] = synthetic

    if "data_only" in wanted:
        scores["data_only"] = data_only_scores(aux_codes, codes[targets], s, n_values)
    scores = {name: scores[name] for name in config.attacks if name in scores}
    return AiaOutcome(scores=scores, truth=truth, targets=targets, determined=determined,
                      determined_value=det_value, queries=queries,
                      target_codes=codes[targets], sensitive_column=s,
                      details={"n_queries": len(queries), "n_records": n,
                               "n_auxiliary": int(aux_codes.shape[0]),
                               "unique_records": game.unique_records,
                               "auxiliary_source": game.auxiliary_source,
                               "sensitivity": float(game.base.sensitivity),
                               "sensitivity_exact": bool(game.base.sensitivity_exact),
                               "noise_scale": float(game.base.noise_scale or 0.0),
                               "n_candidates": int(game.base.n_candidates),
                               "deterministic_seconds": det_seconds,
                               "deterministic_status": det_status,
                               "released_preview": list(zip(
                                   [q.table for q in queries], [q.label for q in queries],
                                   game.base.released_answers.tolist(), strict=True))[:40],
                               "domain": domain})


def unique_match_votes(records: np.ndarray, target: np.ndarray, s: int, n_values: int
                       ) -> np.ndarray:
    """The "synthetic data + uniqueness" row of paper 003 Table 3: the value a reconstruction
    gives the target when exactly one of its records has the target's quasi-identifiers (the
    uniqueness the attacker knows), without verification; shares over the K reconstructions
    that have one such record, uniform when none has."""
    hit = (records[:, :, :s] == target[None, None, :s]).all(axis=2)          # (K, n)
    one = hit.sum(axis=1) == 1
    if not one.any():
        return np.full(n_values, 1.0 / n_values)
    values = records[one][hit[one]][:, s]
    counts = np.bincount(values, minlength=n_values)[:n_values].astype(float)
    return counts / counts.sum()


@dataclass
class MiaOutcome:
    scores: dict[str, np.ndarray]     # per attack: (T,) score of "the target is in the data"
    member: np.ndarray                # (T,) the secret bits b
    determined: np.ndarray            # (T,) membership proved by the tables
    determined_value: np.ndarray      # (T,) 1 / 0 where proved, -1 elsewhere


def play_mia(config: AggregatesConfig, *, data: AuditData | None = None,
             progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> MiaOutcome:
    """The MIA game of paper 003 §6.1 (Fig. 9): per target, a secret bit b; the release is
    computed on D without the target (b = 0) or without another target (b = 1), so |D| − 1
    records either way; DeSIA-MIA (§6.2) and the CIP / RAP reconstruction MIAs (§6.3)."""
    from engine.attacks.aggregates import cip, rap
    from engine.attacks.aggregates.desia_stochastic import membership_score_many_targets

    game, g = setup_game(config, "aggregates-mia", data)
    domain, codes, aux_codes, targets = game.domain, game.codes, game.aux_codes, game.targets
    spec, base, queries = game.spec, game.base, game.queries
    if targets.size < 2:
        raise InputError("The membership game needs at least two unique records (one is "
                         "left out in its place); switch 'membership' off for this data.",
                         key="membership")
    space = record_space(domain)
    masks = [space.matches(q.conditions) for q in queries]
    member = g.integers(0, 2, targets.size).astype(bool)
    if min(member.sum(), (~member).sum()) < 2:
        # Each target is a member with probability ½ (Fig. 9); the metric layer needs two of
        # each to choose a threshold on one half and measure it on the other.
        raise InputError(f"The membership game drew {int(member.sum())} member(s) and "
                         f"{int((~member).sum())} non-member(s) among its {targets.size} "
                         "targets; at least two of each are needed to measure an attack. "
                         "Raise 'max_targets' (20 or more) or switch 'membership' off.",
                         key="max_targets")
    n = codes.shape[0] - 1
    noise = shadow_noise(spec, base.sensitivity)
    wanted = [a for a in config.mia_attacks if a in MIA_ATTACKS] or list(DEFAULT_MIA_ATTACKS)
    scores = {name: np.zeros(targets.size) for name in wanted}
    determined = np.zeros(targets.size, dtype=bool)
    det_value = np.full(targets.size, -1)
    released = np.zeros((targets.size, len(queries)))
    solve_progress = progress.span(0.0, 0.6)
    for i, t in enumerate(targets):
        cancel.check()
        others = targets[targets != t]
        drop = int(g.choice(others)) if member[i] else int(t)
        data_i = np.delete(codes, drop, axis=0)
        released[i] = noisy_answers(answers(queries, data_i), spec, base.sensitivity,
                                    rng(config.seed, "aggregates-mia-noise", i))
        det = dd.infer_membership(space, masks, released[i], n, codes[t],
                                  time_limit=config.solver_time_limit, seed=config.seed,
                                  cancel=cancel)
        if det.status == "determined":
            determined[i], det_value[i] = True, det.value
        if "cip_rand_mia" in scores:
            recon = cip.reconstruct_cip(domain.sizes, queries, released[i], n,
                                        k=config.reconstructions, seed=config.seed + i,
                                        time_limit=config.solver_time_limit, cancel=cancel)
            scores["cip_rand_mia"][i] = cip.membership_scores(recon, codes[[t]])[0]
        if "rap_rand_mia" in scores:
            recon = rap.reconstruct_rap(domain.sizes, queries, released[i], n,
                                        k=config.reconstructions, seed=config.seed + i,
                                        cancel=cancel)
            scores["rap_rand_mia"][i] = cip.membership_scores(recon, codes[[t]])[0]
        solve_progress((i + 1) / targets.size, f"Membership game: target {i + 1:,} of "
                                               f"{targets.size:,}")
    if {"desia_mia", "desia_mia_stochastic_only"} & set(scores):
        stoch = np.array([r["probability_member"] for r in membership_score_many_targets(
            queries, released, codes[targets], aux_codes, n + 1, domain,
            n_shadow=config.n_shadow, model=config.model, noise=noise, seed=config.seed,
            progress=progress.span(0.6, 1.0), cancel=cancel)])
        if "desia_mia" in scores:
            scores["desia_mia"] = np.where(determined, det_value, stoch).astype(float)
        if "desia_mia_stochastic_only" in scores:
            scores["desia_mia_stochastic_only"] = stoch
    return MiaOutcome(scores, member, determined, det_value)


def data_only_scores(aux_codes: np.ndarray, target_codes: np.ndarray, s: int,
                     n_values: int) -> np.ndarray:
    """The same guess without the release: the sensitive values' frequencies among auxiliary
    records matching the target on as many quasi-identifiers as possible (all, then all but
    one, …), add-½ smoothed. Tells how much of an attack's success the release explains."""
    out = np.zeros((target_codes.shape[0], n_values))
    for i, t in enumerate(target_codes):
        matches = aux_codes[:, :s] == t[:s]
        agree = matches.sum(axis=1)
        for need in range(s, -1, -1):
            rows = agree >= need
            if rows.any():
                counts = np.bincount(aux_codes[rows, s], minlength=n_values) + 0.5
                out[i] = counts / counts.sum()
                break
    return out


def exposed_records(outcome: AiaOutcome, *, list_records: bool = False) -> list[dict]:
    """The deterministically vulnerable targets — provably determined by the tables — each
    with the released cells that pin it down: the released queries that can count a record
    with the target's quasi-identifiers (whatever its sensitive value), and their tables, so
    the officer sees which tables to coarsen or suppress. Records are redacted by default
    (:func:`exposed_entry`)."""
    if not outcome.queries:
        return []
    domain = outcome.details.get("domain")
    s = outcome.sensitive_column
    out = []
    for i in np.flatnonzero(outcome.determined):
        codes = outcome.target_codes[i]
        cells = [q for q in outcome.queries
                 if all(codes[c] in allowed for c, allowed in q.conditions if c != s)]
        out.append(exposed_entry(domain, codes, int(outcome.determined_value[i]), cells, s,
                                 listed=list_records and domain is not None,
                                 value_correct=bool(outcome.determined_value[i]
                                                    == outcome.truth[i])))
    return out


def exposed_entry(domain, codes, value: int, cells: list, s: int, *, listed: bool,
                  value_correct: bool | None) -> dict:
    """One exposed record of result.json. The tables of the released cells that pin it down
    are always kept (what to coarsen first, as the report counts them per table). The record's
    quasi-identifiers, its value and the cells themselves — whose labels spell out the
    quasi-identifiers ("P12: sex=Male, age=21") — are kept only with ``listed`` (the user's
    list_exposed_records); otherwise the record and the value read "(redacted)" and only the
    number of cells is kept."""
    # Cells that condition on the sensitive value say what it is; list them first.
    cells = sorted(cells, key=lambda q: not any(c == s for c, _ in q.conditions))
    entry = {"record": REDACTED, "value": REDACTED, "determined": True,
             "value_correct": value_correct, "pinning_count": len(cells),
             "tables": sorted({q.table for q in cells if q.table})}
    if listed:
        entry["record"] = {domain.columns[c]: domain.labels[c][int(codes[c])]
                           for c in range(s)}
        entry["value"] = domain.labels[s][value]
        entry["pinning_cells"] = [q.label for q in cells]
    return entry


def _member_matrix(truth: np.ndarray, n_values: int) -> np.ndarray:
    member = np.zeros((truth.size, n_values), dtype=bool)
    member[np.arange(truth.size), truth] = True
    return member


def top1_guesses(scores: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """Each target's guessed value (row of ``scores``, one column per value): the value with
    the highest score, ties broken uniformly at random.

    Why at random: an attack with no evidence about a target scores every value alike (the
    deterministic module on a target it could not prove); ``argmax`` would then always name
    the first category, and its top-1 accuracy would read as the share of targets whose value
    happens to be listed first (0.000 under noise in the sample) instead of a blind guess."""
    top = scores >= scores.max(axis=1, keepdims=True)
    n_tied = top.sum(axis=1)
    pick = np.minimum((generator.random(len(scores)) * n_tied).astype(np.int64), n_tied - 1)
    rank_among_tied = np.cumsum(top, axis=1) - 1
    return np.argmax(top & (rank_among_tied == pick[:, None]), axis=1)


def evaluate(config: AggregatesConfig, outcome: AiaOutcome) -> list[dict]:
    """Every attack through the shared metric layer over the pooled one-vs-rest (target,
    value) pairs, with the AUC interval clustered by target (Obuchowski: a target's |V| pairs
    share one release), plus its top-1 accuracy with a Clopper–Pearson interval beside the
    chance level 1/|V|, and the AUC on the targets the deterministic module left undecided
    (paper 003 Fig. 5). Top-1 guesses break ties at random (:func:`top1_guesses`), each
    attack from its own stream of the config's seed."""
    from engine.metrics import clustered_auc_ci

    n_values = next(iter(outcome.scores.values())).shape[1]
    member = _member_matrix(outcome.truth, n_values)
    clusters = np.repeat(np.arange(outcome.truth.size), n_values)
    undecided = ~outcome.determined
    attacks = []
    for name, sc in outcome.scores.items():
        guesses = top1_guesses(sc, rng(config.seed, "aggregates-top1-ties", name))
        top1 = guesses == outcome.truth
        lo, hi = clopper_pearson(int(top1.sum()), top1.size, config.confidence)
        rest = None
        if undecided.sum() >= 2 and undecided.sum() < undecided.size:
            auc_u, ci_u = clustered_auc_ci(sc[undecided].ravel(), member[undecided].ravel(),
                                           np.repeat(np.arange(int(undecided.sum())),
                                                     n_values), config.confidence)
            rest = {"auc": auc_u, "auc_ci": list(ci_u), "targets": int(undecided.sum())}
        entry = evaluate_attack(
            name, LABELS[name], sc.ravel(), member.ravel(), delta=0.0,
            confidence=config.confidence, fpr_targets=config.fpr_targets,
            details={"game": "aia", "paper": "003", "top1_accuracy": float(top1.mean()),
                     "top1_accuracy_ci": [lo, hi], "chance": 1.0 / n_values,
                     "excluding_determined": rest, "targets": int(top1.size)})
        auc, ci = clustered_auc_ci(sc.ravel(), member.ravel(), clusters, config.confidence)
        entry["auc"], entry["auc_ci"] = auc, list(ci)
        entry["auc_ci_method"] = "clustered DeLong (Obuchowski 1997), clusters = targets"
        attacks.append(entry)
    return attacks


def evaluate_mia(config: AggregatesConfig, outcome: MiaOutcome) -> list[dict]:
    """The membership attacks through the shared metric layer (one trial per target)."""
    out = []
    for name, sc in outcome.scores.items():
        out.append(evaluate_attack(name, LABELS[name], sc, outcome.member, delta=0.0,
                                   confidence=config.confidence,
                                   fpr_targets=config.fpr_targets,
                                   details={"game": "mia", "paper": "003"}))
    return out


def chance_corrected_accuracy(top1: float, chance: float) -> float:
    """Top-1 accuracy on the balanced-accuracy scale the verdict policy reads: 0.5 at chance
    (1/|V|), 1 when always right — 0.5 + (top1 − chance) / (2 (1 − chance))."""
    return float(0.5 + max(0.0, top1 - chance) / (2.0 * (1.0 - chance)))


# --------------------------------------------------------------------------- theory

def dp_theory(config: AggregatesConfig, release, n_values: int) -> dict | None:
    """What ε-DP would allow here (None without noise).

    The release's ε is for adding or removing one person: with ``budget = "release"`` the
    noise is calibrated to the release's exact L1 sensitivity, so ε_release = ε; with
    ``"per_query"`` every query gets ε at sensitivity 1 and a person touches at most
    ``sensitivity`` released queries, so ε_release = ε · sensitivity (basic composition).
    Changing one person's sensitive value is a removal and an addition: ε' = 2 ε_release
    (group privacy), which is what the attribute game tests. Under a uniform prior over |V|
    values no attacker's top-1 accuracy exceeds e^ε' / (e^ε' + |V| − 1) (plus δ for the
    discrete Gaussian); in the membership game (also a change of one record) the accuracy and
    the ROC region follow from ε' and δ.
    """
    from engine.mechanisms.tradeoff import dp_region_tpr_upper

    if config.mechanism == "none":
        return None
    sens = float(release.sensitivity)
    eps = config.epsilon if config.budget == "release" else config.epsilon * sens
    delta = config.delta if config.mechanism == "discrete_gaussian" else 0.0
    eps_change = 2.0 * eps
    delta_change = (1.0 + math.exp(eps)) * delta     # group privacy for 2 steps
    e = math.exp(min(eps_change, 700.0))
    aia = min(1.0, e / (e + n_values - 1) + delta_change)
    mia = min(1.0, e / (1.0 + e) + delta_change / 2)
    fpr = np.unique(np.r_[0.0, np.geomspace(1e-4, 1.0, 200)])
    return {"epsilon_release": eps, "epsilon_change": eps_change, "delta": delta_change,
            "sensitivity": sens, "budget": config.budget,
            "aia_top1_bound": aia, "mia_accuracy_bound": mia,
            "dp_region": {"epsilon": eps_change, "delta": delta_change, "fpr": fpr.tolist(),
                          "tpr_upper": np.asarray(dp_region_tpr_upper(
                              fpr, eps_change, delta_change)).tolist()},
            "note": ("ε for the whole release: " + (
                f"ε = {config.epsilon:g} calibrated to the release's sensitivity {sens:g}"
                if config.budget == "release" else
                f"{config.epsilon:g} per statistic × {sens:g} statistics a person can "
                "change") + "; changing one person's value costs twice that.")}


def release_summary(config: AggregatesConfig, outcome: AiaOutcome) -> dict:
    d = outcome.details
    tables: dict[str, int] = {}
    for q in outcome.queries:
        tables[q.table or "(custom)"] = tables.get(q.table or "(custom)", 0) + 1
    return {"kind": config.release,
            "fraction": None if config.release == "published" or not config.fraction
            else config.fraction,
            "queries": d["n_queries"], "candidates": d["n_candidates"],
            "tables": [{"table": t, "cells": k} for t, k in tables.items()],
            "sensitivity": d["sensitivity"], "sensitivity_exact": d["sensitivity_exact"],
            "mechanism": config.mechanism,
            "epsilon": None if config.mechanism == "none" else config.epsilon,
            "delta": config.delta if config.mechanism == "discrete_gaussian" else None,
            "budget": config.budget, "noise_scale": d["noise_scale"],
            "preview": [{"table": t, "label": lab, "count": c}
                        for t, lab, c in d["released_preview"]]}


def deterministic_summary(outcome: AiaOutcome) -> dict:
    sec = np.asarray(outcome.details["deterministic_seconds"])
    status = outcome.details["deterministic_status"]
    correct = outcome.determined & (outcome.determined_value == outcome.truth)
    return {"targets": int(outcome.truth.size), "determined": int(outcome.determined.sum()),
            "correct": int(correct.sum()),
            "time_limited": int(sum(st == "time_limit" for st in status)),
            "median_s": float(np.median(sec)) if sec.size else 0.0,
            "p95_s": float(np.quantile(sec, 0.95)) if sec.size else 0.0}


# --------------------------------------------------------------------------- sweeps

def sweep(config: AggregatesConfig, data: AuditData, parameter: str, values, *,
          progress: Progress, cancel: CancelToken) -> dict:
    """Paper 003 Fig. 6 (``parameter = "fraction"``, m/|D|) and Fig. 8 (``"epsilon"``,
    Laplace noise per statistic, or the configured mechanism): the AIA game replayed at each
    value with the sweep attacks on ``sweep_targets`` targets."""
    out = {"parameter": parameter, "values": [], "queries": [], "determined_share": [],
           "noise_scale": [], "attacks": {a: [] for a in config.sweep_attacks},
           "labels": {a: LABELS[a] for a in config.sweep_attacks}}
    values = sorted(values, reverse=(parameter == "epsilon"))
    for i, value in enumerate(values):
        cancel.check()
        changes = {"fraction": value} if parameter == "fraction" else {
            "epsilon": value,
            "mechanism": config.mechanism if config.mechanism != "none" else "laplace"}
        sub = replace(config, attacks=config.sweep_attacks, max_targets=config.sweep_targets,
                      membership=False, **changes)
        outcome = play_aia(sub, data=data, cancel=cancel,
                           progress=progress.span(i / len(values), (i + 1) / len(values)))
        out["values"].append(value)
        out["queries"].append(outcome.details["n_queries"])
        out["determined_share"].append(float(outcome.determined.mean()))
        out["noise_scale"].append(outcome.details["noise_scale"])
        for a in evaluate(sub, outcome):
            out["attacks"][a["name"]].append({
                "auc": a["auc"], "auc_ci": a["auc_ci"],
                "top1_accuracy": a["details"]["top1_accuracy"],
                "top1_accuracy_ci": a["details"]["top1_accuracy_ci"]})
    return out


# --------------------------------------------------------------------------- published

def published_findings(config: AggregatesConfig, data: AuditData, *, progress: Progress,
                       cancel: CancelToken) -> tuple[dict, list[dict]]:
    """For a published table: is it consistent (the solver proves it or names the rows that
    conflict), and whose sensitive value does it pin down? Every quasi-identifier combination
    of the attacker's sample (at most ``max_targets``… ×10) is checked with the deterministic
    module on the published counts: "if a person with these quasi-identifiers is among the
    |D| counted, and unique there, the table says their value is v"."""
    from engine.aggregates.consistency import check_published_consistency
    from engine.aggregates.queries import load_published_rows

    path = resolve_path(str(config.release_options["path"]))
    protected = data.protected
    qi_names = list(protected.schema.quasi_identifiers)
    columns = qi_names + [protected.schema.sensitive]
    domain, _ = _domain_and_codes(protected, columns)
    rows = load_published_rows(path, domain)
    queries, counts = rows.queries, rows.counts
    n = config.published_records
    check = check_published_consistency(domain, queries, counts, n, source=rows.source,
                                        lines=rows.lines,
                                        time_limit=max(config.solver_time_limit, 10.0),
                                        cancel=cancel)
    _, sample = _domain_and_codes(data.auxiliary, columns)
    _, stand_in = _domain_and_codes(protected, columns)
    every = np.vstack([stand_in, sample])
    s = len(qi_names)
    combos = np.unique(every[:, :s], axis=0)
    limit = 10 * config.max_targets
    if combos.shape[0] > limit:
        pick = rng(config.seed, "aggregates-published-combos").choice(combos.shape[0], limit,
                                                                      replace=False)
        combos = combos[np.sort(pick)]
    space = record_space(domain)
    masks = [space.matches(q.conditions) for q in queries]
    exposed = []
    for i, combo in enumerate(combos):
        cancel.check()
        out = dd.infer(space, masks, counts, n, {c: int(combo[c]) for c in range(s)}, s,
                       time_limit=config.solver_time_limit, seed=config.seed, cancel=cancel)
        if out.status == "determined":
            cells = [q for q in queries
                     if all(combo[c] in allowed for c, allowed in q.conditions if c != s)]
            exposed.append(exposed_entry(domain, combo, out.value, cells, s,
                                         listed=config.list_exposed_records,
                                         value_correct=None))
        progress((i + 1) / combos.shape[0], f"Published table: combination {i + 1:,} of "
                                             f"{combos.shape[0]:,}")
    findings = {"path": str(path), "rows": len(queries), "records": n,
                "consistent": check.consistent, "consistency_note": check.note,
                "candidates": int(combos.shape[0]), "determined": len(exposed),
                "note": "Each candidate is a combination of quasi-identifiers seen in the "
                        "attacker's sample; 'determined' means: if a person with it is "
                        "counted in the table and is the only one with it, the published "
                        "counts leave one possible value of the sensitive attribute."}
    return findings, exposed


# --------------------------------------------------------------------------- the audit

def run(config: AggregatesConfig, *, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> AuditResult:
    """The count-tables audit (module docstring): data, release, the AIA game with every
    attack, the MIA game, sweeps, exposed records, DP comparison and verdict."""
    if not isinstance(config, AggregatesConfig):
        raise TypeError("run() needs an AggregatesConfig")
    config.validate()
    clock = Stopwatch()
    progress(0.0, "Loading the records")
    data = load_data(config)
    inputs = list(data.inputs)
    published = None
    exposed: list[dict]
    has_sweeps = bool(config.sweep_fractions or config.sweep_epsilons)
    aia_end = 0.55 if config.membership else 0.8
    if has_sweeps:
        aia_end *= 0.7
    if config.release == "published":
        inputs.append(input_entry(resolve_path(str(config.release_options["path"])),
                                  role="published_table"))
        published, exposed = published_findings(config, data, progress=progress.span(0.0, 0.1),
                                                 cancel=cancel)
    outcome = play_aia(config, data=data, progress=progress.span(0.1, aia_end), cancel=cancel)
    attacks = evaluate(config, outcome)
    if config.release != "published":
        exposed = exposed_records(outcome, list_records=config.list_exposed_records)
    domain = outcome.details["domain"]
    s = outcome.sensitive_column
    n_values = domain.sizes[s]
    chance = 1.0 / n_values

    membership = None
    mia_attacks: list[dict] = []
    mia_end = aia_end
    if config.membership and config.release != "published":
        mia_end = aia_end + (0.25 if not has_sweeps else 0.15)
        mia = play_mia(config, data=data, progress=progress.span(aia_end, mia_end),
                       cancel=cancel)
        mia_attacks = evaluate_mia(config, mia)
        proved = mia.determined
        membership = {"attacks": mia_attacks, "targets": int(mia.member.size),
                      "proved": int(proved.sum()),
                      "proved_correct": int((mia.determined_value[proved]
                                             == mia.member[proved].astype(int)).sum())}
    sweeps: dict = {}
    if has_sweeps:
        parts = [(k, v) for k, v in (("fraction", config.sweep_fractions),
                                      ("epsilon", config.sweep_epsilons)) if v]
        if config.release == "published":
            parts = [(k, v) for k, v in parts if k == "epsilon"]
        for j, (param, values) in enumerate(parts):
            lo = mia_end + (0.97 - mia_end) * j / len(parts)
            hi = mia_end + (0.97 - mia_end) * (j + 1) / len(parts)
            sweeps["fraction" if param == "fraction" else "noise"] = sweep(
                config, data, param, values, progress=progress.span(lo, hi), cancel=cancel)

    dp = dp_theory(config, SimpleNamespace(sensitivity=outcome.details["sensitivity"]),
                   n_values)
    det = deterministic_summary(outcome)
    theory = {
        "game": {"sensitive": domain.columns[s], "values": list(domain.labels[s]),
                 "chance": chance, "quasi_identifiers": list(domain.columns[:s]),
                 "records": outcome.details["n_records"],
                 "auxiliary_records": outcome.details["n_auxiliary"],
                 "auxiliary_source": outcome.details["auxiliary_source"],
                 "unique_records": outcome.details["unique_records"],
                 "targets": int(outcome.truth.size)},
        "release": release_summary(config, outcome),
        "dp": dp, "deterministic": det, "membership": membership, "sweeps": sweeps,
    }
    if published is not None:
        theory["published"] = published

    # Verdict: the strongest attacker over both games; AIA top-1 accuracy on the policy's
    # balanced-accuracy scale (0.5 = chance).
    policy = config.policy

    def balanced(a: dict) -> float | None:
        d = a.get("details") or {}
        if d.get("game") == "aia":
            return chance_corrected_accuracy(d["top1_accuracy"], chance)
        return a.get("accuracy")

    verdict_head = headline(attacks + mia_attacks, policy, accuracy_of=balanced)
    level, reasons = policy.level(
        verdict_head.verdict_tpr_measured, verdict_head.verdict_accuracy,
        "Counting a blind guess as 50 %, the attacker is right {:.1%} of the time")
    n_exposed = len(exposed)
    if n_exposed and config.release != "published":
        reasons.append(f"{n_exposed} of {det['targets']} targets are provably determined by the "
                       "tables: their sensitive value follows with certainty.")
        if level == "low":
            level = "medium"
            reasons.append("Raised to medium: a value proved from the tables is a certain "
                           "disclosure for that person, whatever the averages say.")
    # The attack every place quotes (summary, results, report): the strongest attribute
    # attack by the policy (engine.headline).
    head = headline(attacks, policy, accuracy_of=balanced)
    best = next(a for a in attacks if a["name"] == head.name)
    summary = (f"From these {theory['release']['queries']:,} released counts, an attacker who "
               f"knows a person's {', '.join(domain.columns[:s])} and the number of people in "
               f"the data guesses their '{domain.columns[s]}' right "
               f"{best['details']['top1_accuracy']:.0%} of the time with "
               f"the {head.short_label().lower()} (blind guessing: {chance:.0%}; AUC {best['auc']:.2f}). ")
    if config.release != "published":
        summary += (f"For {n_exposed} of the {det['targets']} people attacked the tables leave "
                    "only one possible value.")
    else:
        summary += (f"The published table pins down the value of {published['determined']} of "
                    f"the {published['candidates']} combinations of quasi-identifiers checked.")
    if membership:
        bm = max(mia_attacks, key=lambda a: a["auc"])
        summary += (f" Whether a person is in the data at all: best AUC {bm['auc']:.2f} "
                    f"({plain_name(bm).lower()}).")
    warnings = _warnings(config, attacks, theory)
    progress(1.0, "Done")
    return AuditResult(
        audit_type="aggregates", name=config.name, seed=config.seed, config=config.to_dict(),
        software=software_versions(device()), runtime_s=round(clock.elapsed(), 3),
        attacks=attacks, baselines=[_random_guess(config, outcome)], theory=theory,
        verdict={"level": level, "policy": policy.name, "policy_rules": policy.rules(),
                 "reasons": reasons, "headline": head.to_dict()},
        summary=summary, warnings=warnings + input_warnings(inputs), inputs=inputs,
        exposed_records=exposed)


def _warnings(config: AggregatesConfig, attacks: list[dict], theory: dict) -> list[str]:
    out = []
    dp = theory.get("dp")
    if dp is not None:
        for a in attacks:
            lo = a["details"]["top1_accuracy_ci"][0]
            if lo > dp["aia_top1_bound"] + 1e-9:
                out.append(f"{a['label']}: top-1 accuracy {a['details']['top1_accuracy']:.3f} "
                           f"exceeds what ε' = {dp['epsilon_change']:.3g} allows "
                           f"({dp['aia_top1_bound']:.3f}); the noise does not give the "
                           "claimed guarantee.")
    if config.mechanism == "none":
        out.append("No noise: the counts are exact and carry no formal protection; the verdict "
                   "rests on the attacks alone.")
    if theory["game"]["auxiliary_source"] == "protected_records":
        out.append("No auxiliary sample was given: the attacker's sample was resampled from "
                   "the protected records other than the targets — an attacker who knows the "
                   "population this well is strong, so the results err on the side of risk. "
                   "Give a real auxiliary CSV for a more realistic attacker.")
    if theory["deterministic"]["time_limited"]:
        out.append(f"The solver hit its time limit for {theory['deterministic']['time_limited']} "
                   "targets; they count as undecided (raise 'solver_time_limit' to settle "
                   "them).")
    if theory["game"]["targets"] < 30:
        out.append(f"Only {theory['game']['targets']} targets were attacked: intervals are "
                   "wide; raise 'max_targets' if the data has more unique records.")
    return out


def _random_guess(config: AggregatesConfig, outcome: AiaOutcome) -> dict:
    n_values = next(iter(outcome.scores.values())).shape[1]
    t = outcome.truth.size
    return {"name": "random_guess", "label": "Random guess (no information)",
            "n_positive": t, "n_negative": t * (n_values - 1), "auc": 0.5, "accuracy": 0.5,
            "advantage": 0.0, "details": {"top1_accuracy": 1.0 / n_values,
                                          "chance": 1.0 / n_values},
            "tpr_at_fpr": [{"fpr_target": f, "tpr": f} for f in config.fpr_targets]}


def demo_config() -> AggregatesConfig:
    """The bundled example, paper 003's PPMF setting on the sample census block (450 people)
    and its auxiliary sample: Hispanic origin is the sensitive attribute, the Census P-tables
    (P12, P12A–G by race, P12H Hispanic, P12I White not Hispanic) are released with
    m = 0.25·|D| cells drawn at random, exact counts; both games, no sweeps."""
    return AggregatesConfig(
        name="Sample: census block counts, a quarter of the cells released, no noise",
        data=str(SAMPLE_BLOCK.relative_to(ROOT)),
        auxiliary=str(SAMPLE_AUXILIARY.relative_to(ROOT)),
        schema=_sample_schema(), sensitive="hispanic",
        release_options={"hispanic_col": "hispanic", "hispanic_label": "Hispanic",
                         "white_label": "White"},
        max_targets=60, n_shadow=20_000, reconstructions=10)


def _sample_schema() -> dict:
    from engine.data.census import census_schema

    return census_schema(("block_000",), sensitive="hispanic").to_dict()
