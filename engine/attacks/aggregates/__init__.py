"""Attacks on fixed aggregate statistics (paper 003): DeSIA, its ablations and its baselines,
as two name → attack tables that the count-table game (engine.games.aggregates) plays:

* :data:`ATTRIBUTE_ATTACKS` — the attribute game (Fig. 2): each entry says how its scores per
  target and sensitive value are made from what the game gathers;
* :data:`MEMBERSHIP_ATTACKS` — the membership game (§6.1, Fig. 9).

Every ablation of Table 3 is an entry of its own that names the option it changes (the
deterministic module without verification or without the uniqueness constraint, the
stochastic module alone, reconstructed records in place of the solver), so no attack is
switched on or off by a branch inside the game. The label of each entry is the name the
results and the report show.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.attacks.aggregates import cip, rap
from engine.attacks.aggregates.data_only import data_only_scores
from engine.attacks.aggregates.likelihood import likelihood_attack
from engine.compute import InProcessExecutor
from engine.runtime import CancelToken, Progress


@dataclass(frozen=True)
class GameView:
    """What the attacker of either game holds (paper 003 §2.3, §6.1) and the attack settings.

    ``target_codes`` are the targets' coded records (quasi-identifiers, then the sensitive
    column): the attribute attacks read the quasi-identifiers only; ``released`` is each
    target's own release (one row per target); ``n_records`` is the size of the released
    dataset the reconstructions rebuild."""

    domain: object                    # engine.aggregates.queries.Domain
    queries: list
    released: np.ndarray              # (T, m)
    target_codes: np.ndarray          # (T, c)
    aux_codes: np.ndarray             # (a, c) the auxiliary sample
    n_records: int                    # |D|
    sensitive_column: int
    n_shadow: int
    reconstructions: int              # K for CIP and RAP
    solver_time_limit: float
    seed: int

    @property
    def n_values(self) -> int:
        return int(self.domain.sizes[self.sensitive_column])


# --------------------------------------------------------------------------- reconstructions

def _cip(view: GameView, i: int, mode: str, cancel: CancelToken) -> cip.Reconstructions:
    return cip.reconstruct_cip(view.domain.sizes, view.queries, view.released[i],
                               view.n_records, k=view.reconstructions, mode=mode,
                               seed=view.seed + i,
                               auxiliary=view.aux_codes if mode == "init" else None,
                               time_limit=view.solver_time_limit, cancel=cancel)


def _rap(view: GameView, i: int, mode: str, cancel: CancelToken) -> cip.Reconstructions:
    return _rap_many(view, [i], mode, cancel)[0]


def _rap_many(view: GameView, indices: Sequence[int], mode: str, cancel: CancelToken
              ) -> list[cip.Reconstructions]:
    # RAP is gradient descent, not a solver: no time limit to pass. Each target's models are
    # the ones it gets alone (rap.reconstruct_rap_many).
    return rap.reconstruct_rap_many(view.domain.sizes, view.queries,
                                    view.released[list(indices)], view.n_records,
                                    seeds=[view.seed + i for i in indices],
                                    k=view.reconstructions, mode=mode,
                                    auxiliary=view.aux_codes if mode == "init" else None,
                                    cancel=cancel)


@dataclass(frozen=True)
class Reconstruction:
    """K reconstructions of one target's release (paper 003 §2.5): the method and whether its
    records start at random ("rand") or from the auxiliary sample ("init"). ``build_many``,
    where the method has one, makes several targets' reconstructions in one go (the same
    ones)."""

    short_label: str
    build: Callable[[GameView, int, str, CancelToken], cip.Reconstructions]
    mode: str
    build_many: Callable[[GameView, Sequence[int], str, CancelToken],
                         list[cip.Reconstructions]] | None = None

    def __call__(self, view: GameView, i: int, cancel: CancelToken):
        return self.build(view, i, self.mode, cancel)

    def many(self, view: GameView, indices: Sequence[int], cancel: CancelToken):
        if self.build_many is None:
            return [self.build(view, i, self.mode, cancel) for i in indices]
        return self.build_many(view, indices, self.mode, cancel)


# Made once per target for all the attacks that read them (CIP-rand's reconstructions serve
# both games' CIP-rand attacks; RAP-rand's also the synthetic-data ablation).
RECONSTRUCTIONS = {
    "cip_rand": Reconstruction("CIP-rand", _cip, "rand"),
    "cip_init": Reconstruction("CIP-init", _cip, "init"),
    "rap_rand": Reconstruction("RAP-rand", _rap, "rand", _rap_many),
    "rap_init": Reconstruction("RAP-init", _rap, "init", _rap_many),
}


def neighbourhood_vote(recon, view: GameView, i: int) -> np.ndarray:
    """Paper 003 §2.5 (b): the sensitive values of the reconstructed records nearest the
    target's quasi-identifiers (engine.attacks.aggregates.cip.attribute_inference)."""
    s = view.sensitive_column
    return cip.attribute_inference(recon, view.target_codes[[i]], s, view.n_values,
                                   qi_columns=list(range(s)), seed=view.seed + i).scores[0]


def unique_match(recon, view: GameView, i: int) -> np.ndarray:
    """Table 3 "synthetic data + uniqueness" (engine.attacks.aggregates.cip.unique_match_votes)."""
    return cip.unique_match_votes(recon.records, view.target_codes[i], view.sensitive_column,
                                  view.n_values)


def holds_record(recon, view: GameView, i: int) -> float:
    """Paper 003 §6.3: the share of the reconstructions that hold the target's record."""
    return float(cip.membership_scores(recon, view.target_codes[[i]])[0])


# --------------------------------------------------------------------------- attribute game

@dataclass(frozen=True)
class DeterministicOptions:
    """The deterministic module's options (engine.attacks.aggregates.desia_deterministic.infer;
    paper 003 Table 3 switches each off in one ablation)."""

    verify: bool = True               # prove the value (off: the first feasible value)
    uniqueness: bool = True           # the target is unique on its quasi-identifiers


AS_PUBLISHED = DeterministicOptions()


@dataclass(frozen=True)
class Desia:
    """DeSIA or one of its ablations: where the deterministic module (run with
    ``deterministic``) names a value, that value is certain; elsewhere the scores of
    ``fallback`` — "stochastic" (the stochastic module, §3.2) or "uniform" (a blind guess).
    ``deterministic = None``: the module is not read at all."""

    label: str
    deterministic: DeterministicOptions | None
    fallback: str


@dataclass(frozen=True)
class FromReconstructions:
    """An attack that reads K reconstructions of each target's release
    (:data:`RECONSTRUCTIONS`): ``read`` gives one target's scores from them."""

    label: str
    reconstruction: str
    read: Callable


@dataclass(frozen=True)
class Scored:
    """An attack that scores every target itself: ``score(view, progress=, cancel=,
    executor=)`` gives the (T, |V|) scores (``executor``: where its per-target units run)."""

    label: str
    score: Callable[..., np.ndarray]


@dataclass(frozen=True)
class BestOf:
    """The combination (engine.attacks.aggregates.best_of, issue 22): the deterministic
    module's proofs, then for the targets they leave open the better of ``candidates`` (names
    of the same game's table: :data:`ATTRIBUTE_ATTACKS` or :data:`MEMBERSHIP_ATTACKS`), chosen
    on a shadow game of ``shadow_targets`` stand-in targets the attacker plays on its
    auxiliary sample."""

    label: str
    candidates: tuple[str, ...]
    shadow_targets: int = 30


def likelihood_target(index: int, view: GameView, progress: Progress,
                      cancel: CancelToken) -> np.ndarray:
    """Target ``index``'s scores by paper 003 §7.2 (engine.attacks.aggregates.likelihood): a
    unit of engine.compute (issue 22 item 6), from the target's own release; its shadows are
    seeded by the config's seed, as every target's are."""
    return likelihood_attack(view.queries, view.released[index], view.target_codes[index],
                             view.sensitive_column, view.aux_codes, view.n_records,
                             view.domain, n_shadow=view.n_shadow, seed=view.seed,
                             cancel=cancel)["probabilities"]


def likelihood_scores(view: GameView, *, progress: Progress, cancel: CancelToken,
                      executor=None) -> np.ndarray:
    """Paper 003 §7.2 per target, each target a unit on ``executor`` (default: this
    process, one after another)."""
    t = view.target_codes.shape[0]
    rows = (executor or InProcessExecutor()).map(
        likelihood_target, t, view, progress=progress, cancel=cancel,
        message="Likelihood attack: targets")
    return np.array(rows, dtype=float).reshape(t, view.n_values)


def data_only(view: GameView, *, progress: Progress, cancel: CancelToken,
              executor=None) -> np.ndarray:
    """The data-only guess (engine.attacks.aggregates.data_only): the release is not read.
    One vectorised count over the auxiliary sample (milliseconds), so it stays in this
    process whatever ``executor`` is."""
    return data_only_scores(view.aux_codes, view.target_codes, view.sensitive_column,
                            view.n_values)


ATTRIBUTE_ATTACKS: dict[str, Desia | FromReconstructions | Scored | BestOf] = {
    "desia": Desia("DeSIA: deterministic then stochastic module (paper 003 §3)",
                   AS_PUBLISHED, "stochastic"),
    "desia_no_verification": Desia(
        "DeSIA without the verification step (Table 3 ablation)",
        DeterministicOptions(verify=False), "stochastic"),
    "desia_no_uniqueness": Desia(
        "DeSIA without the uniqueness constraint (Table 3 ablation)",
        DeterministicOptions(uniqueness=False), "stochastic"),
    "desia_stochastic_only": Desia("DeSIA stochastic module only (Table 3 ablation)",
                                   None, "stochastic"),
    "desia_deterministic_only": Desia(
        "DeSIA deterministic module only, else a uniform guess", AS_PUBLISHED, "uniform"),
    "desia_synthetic": FromReconstructions(
        "Synthetic data + uniqueness instead of the solver (Table 3 ablation)", "rap_rand",
        unique_match),
    "likelihood": Scored("Likelihood attack: per-statistic Gaussian vote (paper 003 §7.2)",
                         likelihood_scores),
    "cip_rand": FromReconstructions(
        "CIP-rand reconstruction + neighbourhood vote (paper 003 §2.5)", "cip_rand",
        neighbourhood_vote),
    "cip_init": FromReconstructions(
        "CIP-init reconstruction + neighbourhood vote (paper 003 §2.5)", "cip_init",
        neighbourhood_vote),
    "rap_rand": FromReconstructions(
        "RAP-rand relaxed reconstruction + neighbourhood vote (paper 003 §2.5)", "rap_rand",
        neighbourhood_vote),
    "rap_init": FromReconstructions(
        "RAP-init relaxed reconstruction + neighbourhood vote (paper 003 §2.5)", "rap_init",
        neighbourhood_vote),
    "best_of": BestOf(
        "Best of proofs, reconstruction and learning: proofs, then the better of DeSIA's "
        "stochastic module and CIP-rand, chosen on a shadow game",
        ("desia_stochastic_only", "cip_rand")),
    "data_only": Scored(
        "Data-only guess: the most frequent value among similar auxiliary records", data_only),
}


# Attacks that never read the released tables: what the attacker knows without them. The
# audit shows them beside the others as a baseline, never as the tables' own risk.
RELEASE_FREE = ("data_only",)


# --------------------------------------------------------------------------- membership game

@dataclass(frozen=True)
class DesiaMembership:
    """DeSIA-MIA (§6.2): where the deterministic membership check proves the target in or out,
    that answer; elsewhere the stochastic module's probability. ``deterministic = False`` is
    the stochastic module alone."""

    label: str
    deterministic: bool


MEMBERSHIP_ATTACKS: dict[str, DesiaMembership | FromReconstructions | BestOf] = {
    "desia_mia": DesiaMembership(
        "DeSIA-MIA: deterministic membership check, then the stochastic module (§6.2)", True),
    "desia_mia_stochastic_only": DesiaMembership("DeSIA-MIA stochastic module only (§6.2)",
                                                 False),
    "cip_rand_mia": FromReconstructions(
        "CIP-rand reconstruction MIA: share of reconstructions holding the record (§6.3)",
        "cip_rand", holds_record),
    "rap_rand_mia": FromReconstructions(
        "RAP-rand reconstruction MIA: share of reconstructions holding the record (§6.3)",
        "rap_rand", holds_record),
    "best_of_mia": BestOf(
        "Best of the membership attacks: the deterministic membership check, then the better "
        "of DeSIA-MIA's stochastic module and the CIP-rand reconstruction MIA, chosen on a "
        "shadow game",
        ("desia_mia_stochastic_only", "cip_rand_mia")),
}

LABELS = {name: attack.label
          for name, attack in (*ATTRIBUTE_ATTACKS.items(), *MEMBERSHIP_ATTACKS.items())}
