"""Audit of fixed aggregate statistics: "Will this count table let someone learn a person's
attribute?" (paper 003). Engine part, attribute inference (AIA); not yet registered as an
available audit (GUI page, report section, MIA game and sweeps follow).

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

from dataclasses import asdict, dataclass, field

import numpy as np

from engine.aggregates.queries import Domain, answers
from engine.aggregates.release import ReleaseSpec, build_release, noisy_answers
from engine.attacks.aggregates import desia_deterministic as dd
from engine.metrics import clopper_pearson, evaluate_attack
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch, rng

ATTACKS = ("desia", "desia_no_verification", "desia_no_uniqueness", "desia_stochastic_only",
           "desia_deterministic_only", "cip_rand", "cip_init", "rap_rand", "rap_init",
           "data_only")
DEFAULT_ATTACKS = ("desia", "desia_no_verification", "desia_stochastic_only", "cip_rand",
                   "data_only")
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
    "data_only": "Data-only guess: the most frequent value among similar auxiliary records",
}


@dataclass(frozen=True)
class AggregatesConfig:
    schema_version: int = 1
    name: str = "Count tables audit"
    census_records: int = 450         # synthetic census block (the data until loaders land)
    census_auxiliary: int = 4000
    sensitive: str = "race"
    release: str = "p_tables"         # p_tables | marginals
    fraction: float = 0.25            # release m = fraction · |D| of the candidate queries
    mechanism: str = "none"           # none | laplace | discrete_laplace
    epsilon: float = 1.0
    max_targets: int = 50
    attacks: tuple[str, ...] = DEFAULT_ATTACKS
    n_shadow: int = 20_000
    reconstructions: int = 10         # K for CIP and RAP
    solver_time_limit: float = 10.0   # seconds per CP-SAT solve
    confidence: float = 0.95
    fpr_targets: tuple[float, ...] = (0.001, 0.01, 0.1)
    seed: int = 7

    audit_type = "aggregates"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["attacks"] = list(self.attacks)
        d["fpr_targets"] = list(self.fpr_targets)
        return {"audit_type": self.audit_type, **d}


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


def setup_game(config: AggregatesConfig, stream: str) -> tuple[GameSetup, np.random.Generator]:
    """Data, targets and released queries; the returned generator (stream ``stream``) has
    drawn the target sample and goes on with the game's secret draws."""
    from engine.data.census import generate_census_blocks
    from engine.data.microdata import unique_targets

    protected, auxiliary = generate_census_blocks(
        config.seed, records_per_block=config.census_records,
        n_auxiliary=config.census_auxiliary, sensitive=config.sensitive)
    qi_names = list(protected.schema.quasi_identifiers)
    columns = qi_names + [config.sensitive]
    domain, codes = _domain_and_codes(protected, columns)
    _, aux_codes = _domain_and_codes(auxiliary, columns)
    g = rng(config.seed, stream)
    targets = unique_targets(protected, qi_names)
    if targets.size > config.max_targets:
        targets = np.sort(g.choice(targets, config.max_targets, replace=False))
    spec = ReleaseSpec(kind=config.release, fraction=config.fraction,
                       mechanism=config.mechanism,
                       epsilon=None if config.mechanism == "none" else config.epsilon,
                       budget="per_query")
    base = build_release(spec, domain, codes, rng(config.seed, "aggregates-release"))
    return GameSetup(domain, codes, aux_codes, targets, spec, base, list(base.queries)), g


def play_aia(config: AggregatesConfig, *, progress: Progress = NO_PROGRESS,
             cancel: CancelToken = NEVER) -> AiaOutcome:
    """The AIA game of Fig. 2 with every requested attack (see module docstring)."""
    from engine.attacks.aggregates import cip, rap
    from engine.attacks.aggregates.desia_stochastic import score_many_targets

    game, g = setup_game(config, "aggregates-aia")
    domain, codes, aux_codes, targets = game.domain, game.codes, game.aux_codes, game.targets
    spec, base, queries = game.spec, game.base, game.queries
    s = codes.shape[1] - 1                                 # sensitive column index
    n_values = domain.sizes[s]
    truth = g.integers(0, n_values, targets.size)
    released = np.zeros((targets.size, len(queries)))
    for i, t in enumerate(targets):                        # each target's own dataset
        data_t = codes.copy()
        data_t[t, s] = truth[i]
        released[i] = noisy_answers(answers(queries, data_t), spec, base.sensitivity,
                                    rng(config.seed, "aggregates-noise", i))
    n = codes.shape[0]
    wanted = set(config.attacks)
    scores: dict[str, np.ndarray] = {}
    uniform = np.full((targets.size, n_values), 1.0 / n_values)

    # Deterministic module (and its ablations) per target.
    space = dd.RecordSpace.of(domain.sizes)
    masks = [space.matches(q.conditions) for q in queries]
    determined = np.zeros(targets.size, dtype=bool)
    det_value = np.full(targets.size, -1)
    guess_no_verify = np.full(targets.size, -1)
    guess_no_unique = np.full(targets.size, -1)
    det_progress = progress.span(0.0, 0.35)
    for i, t in enumerate(targets):
        cancel.check()
        qi = {c: int(codes[t, c]) for c in range(s)}
        out = dd.infer(space, masks, released[i], n, qi, s,
                       time_limit=config.solver_time_limit, seed=config.seed, cancel=cancel)
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

    stochastic = None
    if wanted & {"desia", "desia_no_verification", "desia_no_uniqueness",
                 "desia_stochastic_only"}:
        results = score_many_targets(queries, released, codes[targets], s, aux_codes, n,
                                     domain, n_shadow=config.n_shadow, seed=config.seed,
                                     progress=progress.span(0.35, 0.7), cancel=cancel)
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

    # Reconstruction baselines: K reconstructions of each target's release.
    recon_names = [a for a in ("cip_rand", "cip_init", "rap_rand", "rap_init") if a in wanted]
    rec_progress = progress.span(0.7, 0.97)
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
            vote = cip.attribute_inference(recon, codes[[t]], s, n_values,
                                           qi_columns=list(range(s)), seed=config.seed + i)
            out[i] = vote.scores[0]
            rec_progress((j + (i + 1) / targets.size) / len(recon_names),
                         f"{name}: target {i + 1:,} of {targets.size:,}")
        scores[name] = out

    if "data_only" in wanted:
        scores["data_only"] = data_only_scores(aux_codes, codes[targets], s, n_values)
    return AiaOutcome(scores=scores, truth=truth, targets=targets, determined=determined,
                      determined_value=det_value, queries=queries,
                      target_codes=codes[targets], sensitive_column=s,
                      details={"n_queries": len(queries), "n_records": n,
                               "n_auxiliary": int(aux_codes.shape[0]),
                               "sensitivity": float(base.sensitivity),
                               "noise_scale": float(base.noise_scale or 0.0)})


MIA_ATTACKS = ("desia_mia", "desia_mia_stochastic_only", "cip_rand_mia")


@dataclass
class MiaOutcome:
    scores: dict[str, np.ndarray]     # per attack: (T,) score of "the target is in the data"
    member: np.ndarray                # (T,) the secret bits b
    determined: np.ndarray            # (T,) membership proved by the tables
    determined_value: np.ndarray      # (T,) 1 / 0 where proved, -1 elsewhere


def play_mia(config: AggregatesConfig, *, progress: Progress = NO_PROGRESS,
             cancel: CancelToken = NEVER) -> MiaOutcome:
    """The MIA game of paper 003 §6.1 (Fig. 9): per target, a secret bit b; the release is
    computed on D without the target (b = 0) or without another target (b = 1), so |D| − 1
    records either way; DeSIA-MIA (§6.2) and the CIP reconstruction MIA (§6.3) score it."""
    from engine.attacks.aggregates import cip
    from engine.attacks.aggregates.desia_stochastic import membership_fit_and_score

    game, g = setup_game(config, "aggregates-mia")
    domain, codes, aux_codes, targets = game.domain, game.codes, game.aux_codes, game.targets
    spec, base, queries = game.spec, game.base, game.queries
    space = dd.RecordSpace.of(domain.sizes)
    masks = [space.matches(q.conditions) for q in queries]
    member = g.integers(0, 2, targets.size).astype(bool)
    n = codes.shape[0] - 1
    wanted = set(config.attacks) & set(MIA_ATTACKS) or set(MIA_ATTACKS)
    scores = {name: np.zeros(targets.size) for name in MIA_ATTACKS if name in wanted}
    determined = np.zeros(targets.size, dtype=bool)
    det_value = np.full(targets.size, -1)
    for i, t in enumerate(targets):
        cancel.check()
        others = targets[targets != t]
        drop = int(g.choice(others)) if member[i] else int(t)
        data = np.delete(codes, drop, axis=0)
        released = noisy_answers(answers(queries, data), spec, base.sensitivity,
                                 rng(config.seed, "aggregates-mia-noise", i))
        det = dd.infer_membership(space, masks, released, n, codes[t],
                                  time_limit=config.solver_time_limit, seed=config.seed,
                                  cancel=cancel)
        if det.status == "determined":
            determined[i], det_value[i] = True, det.value
        stoch = membership_fit_and_score(queries, released, codes[t], aux_codes, n + 1,
                                         domain, n_shadow=config.n_shadow, seed=config.seed,
                                         cancel=cancel)["probability_member"]
        if "desia_mia" in scores:
            scores["desia_mia"][i] = det.value if det.status == "determined" else stoch
        if "desia_mia_stochastic_only" in scores:
            scores["desia_mia_stochastic_only"][i] = stoch
        if "cip_rand_mia" in scores:
            recon = cip.reconstruct_cip(domain.sizes, queries, released, n,
                                        k=config.reconstructions, seed=config.seed + i,
                                        time_limit=config.solver_time_limit, cancel=cancel)
            scores["cip_rand_mia"][i] = cip.membership_scores(recon, codes[[t]])[0]
        progress((i + 1) / targets.size, f"MIA game: target {i + 1:,} of {targets.size:,}")
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
    the officer sees which tables to coarsen or suppress. Records are redacted by default."""
    if not outcome.queries:
        return []
    out = []
    for i in np.flatnonzero(outcome.determined):
        t = int(outcome.targets[i])
        cells = [q for q in outcome.queries
                 if all(outcome.target_codes[i, c] in allowed for c, allowed in q.conditions
                        if c != outcome.sensitive_column)]
        out.append({
            "record": t if list_records else "(redacted)",
            "determined": True,
            "value_correct": bool(outcome.determined_value[i] == outcome.truth[i]),
            "pinning_cells": [q.label for q in cells],
            "tables": sorted({q.table for q in cells if q.table}),
        })
    return out


def evaluate(config: AggregatesConfig, outcome: AiaOutcome) -> list[dict]:
    """Every attack through the shared metric layer (pooled one-vs-rest), plus its top-1
    accuracy with a Clopper–Pearson interval beside the chance level 1/|V|."""
    n_values = next(iter(outcome.scores.values())).shape[1]
    member = np.zeros((outcome.truth.size, n_values), dtype=bool)
    member[np.arange(outcome.truth.size), outcome.truth] = True
    attacks = []
    for name, sc in outcome.scores.items():
        top1 = sc.argmax(axis=1) == outcome.truth
        lo, hi = clopper_pearson(int(top1.sum()), top1.size, config.confidence)
        attacks.append(evaluate_attack(
            name, LABELS[name], sc.ravel(), member.ravel(), delta=0.0,
            confidence=config.confidence, fpr_targets=config.fpr_targets,
            details={"top1_accuracy": float(top1.mean()), "top1_accuracy_ci": [lo, hi],
                     "chance": 1.0 / n_values, "paper": "003"}))
    return attacks


def run(config: AggregatesConfig, *, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> dict:
    """The AIA game and its metrics as a result-like dict (until the audit is registered)."""
    clock = Stopwatch()
    outcome = play_aia(config, progress=progress.span(0, 0.97), cancel=cancel)
    attacks = evaluate(config, outcome)
    vulnerable = exposed_records(outcome)
    progress(1.0, "Done")
    return {"audit_type": "aggregates", "config": config.to_dict(), "attacks": attacks,
            "exposed_records": vulnerable, "details": outcome.details,
            "runtime_s": round(clock.elapsed(), 3)}
