"""The combination attack on count tables (issue 22 item 3): the deterministic proofs first,
then, for the targets they leave open, the better of a learned (stochastic) scorer and a
reconstruction scorer — the choice made on a shadow game the attacker plays on its own
auxiliary data, never on the targets.

Why a choice at all. Paper 003 (§5.1, §5.6) finds DeSIA's stochastic module ahead of the
reconstruction attacks (CIP, RAP), most of all under noise. On real census-like tables the
order can reverse (docs/methods/aggregates_audit.md, "Real census-like tables"): when the
released marginals leave few datasets consistent with them, CIP's reconstructions agree with
the truth and its neighbourhood vote is sharp, while the published stochastic module's
classifier, trained on shadow datasets whose sensitive values are all random, learned the
wrong background. Its shadows now keep the other records' values, which put it ahead of
CIP-rand under noise on the tables measured, but neither is guaranteed to win on every
table, release and noise, so the attacker measures it — on data it can simulate:

1. :func:`shadow_game`: the attacker draws datasets of |D| records from its auxiliary sample,
   takes records unique on their quasi-identifiers there as stand-in targets, re-draws each
   one's sensitive value uniformly and publishes the same queries on that dataset with the same
   noise (the game of paper 003 Fig. 2, played on the attacker's own records, where it knows
   the answers).
2. The game (engine.games.aggregates) runs the proofs and every candidate scorer on those
   stand-in targets exactly as on the real ones.
3. :func:`choose`: the candidate with the highest pooled one-vs-rest AUC on the stand-in
   targets the proofs left open (all of them when fewer than two are open); a tie keeps the
   earlier candidate.
4. :func:`combine`: where the proofs name a value it is certain; elsewhere the chosen
   candidate's scores.

Nothing here reads the real targets' sensitive values or releases: :func:`shadow_game` sees the
attacker's view without them, so the choice is the same whatever the targets' values are (the
tests permute them to check).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from engine.aggregates.queries import answers
from engine.metrics import auc_score
from engine.runtime import rng

Noise = Callable[[np.ndarray, np.random.Generator], np.ndarray]

MIN_OPEN_TARGETS = 2       # fewer stand-in targets left open by the proofs: judge on all
MAX_SHADOW_DATASETS = 50   # datasets the attacker draws at most to find its stand-in targets


@dataclass(frozen=True)
class ShadowGame:
    """The attacker's own game: ``view`` is a GameView whose targets and releases are the
    stand-in targets' (one release per stand-in target); ``truth`` their re-drawn values."""

    view: object
    truth: np.ndarray
    unique_records: int           # records unique on their quasi-identifiers, all datasets


def _draw_dataset(aux: np.ndarray, n: int, s: int, g: np.random.Generator):
    """One shadow dataset: ``n`` records drawn without replacement from the auxiliary sample
    (in sample order), and the rows of it unique on their quasi-identifiers (columns < s)."""
    data = aux[np.sort(g.choice(aux.shape[0], min(n, aux.shape[0]), replace=False))]
    _, inverse, counts = np.unique(data[:, :s], axis=0, return_inverse=True, return_counts=True)
    return data, np.flatnonzero(counts[np.ravel(inverse)] == 1)


def shadow_game(view, noise: Noise | None, n_targets: int, seed: int) -> ShadowGame | None:
    """Step 1 of the module docstring: datasets of ``view.n_records`` records drawn without
    replacement from the auxiliary sample, one after another (at most
    :data:`MAX_SHADOW_DATASETS`), each giving stand-in targets among its records unique on
    their quasi-identifiers, until ``n_targets`` are found; each stand-in's value re-drawn and
    its own (noised) release on its dataset. None when no drawn dataset has a unique record.

    Several datasets, because one is not enough: an auxiliary sample resampled with
    replacement from the protected records (the audit's default) repeats records, so a
    dataset drawn from it holds few unique ones — on the public census table of
    docs/methods/aggregates_audit.md one dataset gave 2 to 5 stand-ins, and a choice on so
    few picked the weaker scorer in 2 of 7 repetitions."""
    aux = np.asarray(view.aux_codes)
    n, s = int(view.n_records), int(view.sensitive_column)
    g = rng(seed, "best-of-shadow-game")
    rows, truths, unique_total = [], [], 0
    for _ in range(MAX_SHADOW_DATASETS):
        if len(truths) >= n_targets:
            break
        data, unique = _draw_dataset(aux, n, s, g)
        unique_total += int(unique.size)
        if unique.size == 0:
            continue
        picked = np.sort(g.choice(unique, min(int(n_targets) - len(truths), unique.size),
                                  replace=False))
        for row in picked:
            value = int(g.integers(0, view.n_values))
            data_j = data.copy()
            data_j[row, s] = value
            counts_j = answers(view.queries, data_j)
            rows.append((counts_j if noise is None else noise(
                counts_j, rng(seed, "best-of-shadow-noise", len(truths))), data[row]))
            truths.append(value)
    if not truths:
        return None
    released = np.array([r for r, _ in rows], dtype=float)
    codes = np.array([c for _, c in rows])
    return ShadowGame(replace(view, released=released, target_codes=codes),
                      np.array(truths), unique_total)


@dataclass(frozen=True)
class Choice:
    """Which candidate the shadow game chose, and what it measured: the AUC of every candidate
    on the stand-in targets judged, how many there were and how many the proofs settled."""

    name: str
    shadow_auc: dict
    shadow_targets: int
    judged_targets: int
    proved_targets: int

    def to_dict(self) -> dict:
        return {"chosen": self.name, "shadow_auc": dict(self.shadow_auc),
                "shadow_targets": self.shadow_targets,
                "judged_targets": self.judged_targets,
                "proved_targets": self.proved_targets}


def choose(candidate_scores: Mapping[str, np.ndarray], truth: np.ndarray,
           proved: np.ndarray) -> Choice:
    """Step 3: the candidate with the highest pooled one-vs-rest AUC on the stand-in targets
    the proofs left open (``proved`` < 0), or on all of them when fewer than
    :data:`MIN_OPEN_TARGETS` are open. Ties keep the earlier candidate (dict order)."""
    names = list(candidate_scores)
    truth = np.asarray(truth)
    proved = np.asarray(proved)
    first = np.asarray(candidate_scores[names[0]])
    member = np.zeros(first.shape, dtype=bool)
    member[np.arange(truth.size), truth] = True
    judged = proved < 0
    if judged.sum() < MIN_OPEN_TARGETS:
        judged = np.ones(truth.size, dtype=bool)
    aucs = {name: auc_score(np.asarray(sc)[judged].ravel(), member[judged].ravel())
            for name, sc in candidate_scores.items()}
    best = names[0]
    for name in names[1:]:
        if aucs[name] > aucs[best]:
            best = name
    return Choice(best, aucs, int(truth.size), int(judged.sum()), int((proved >= 0).sum()))


def no_shadow_targets(candidates: tuple[str, ...]) -> Choice:
    """The choice when the attacker's own dataset had no unique record to play: the first
    candidate, with nothing measured."""
    return Choice(candidates[0], {}, 0, 0, 0)


def combine(proved: np.ndarray, chosen_scores: np.ndarray) -> np.ndarray:
    """Step 4: ``chosen_scores`` (T, |V|), with the proved value (≥ 0) certain where there
    is one."""
    out = np.array(chosen_scores, dtype=float, copy=True)
    hit = np.asarray(proved) >= 0
    out[hit] = 0.0
    out[np.flatnonzero(hit), np.asarray(proved)[hit]] = 1.0
    return out


# --------------------------------------------------------------------------- membership game
# The same combination for the membership game (paper 003 §6.1, Fig. 9): the deterministic
# membership check's proofs, then the better of DeSIA-MIA's stochastic module (§6.2) and the
# CIP-rand reconstruction MIA (§6.3: the share of reconstructions holding the record), chosen
# on the attacker's own stand-in targets. These are the attack's parts; the membership game
# plays them as "best_of_mia" (engine.games.aggregates.play_mia and
# choose_membership_on_shadow_game; docs/methods/aggregates_audit.md, "The membership game").

def membership_shadow_game(view, noise: Noise | None, n_targets: int,
                           seed: int) -> ShadowGame | None:
    """The membership game of Fig. 9 played on the attacker's own records: datasets of
    ``view.n_records + 1`` records drawn without replacement from the auxiliary sample (at
    most :data:`MAX_SHADOW_DATASETS`); in each, stand-in targets among its records unique on
    their quasi-identifiers (the real game's targets); per stand-in a bit b (uniform): its release is the dataset without another
    unique record (b = 1, the stand-in is in) or without the stand-in (b = 0), so
    ``view.n_records`` records either way, as in the real game. ``truth`` holds the bits.
    Reads only the auxiliary sample, the queries and the sizes of ``view``. None when no
    drawn dataset has two unique records."""
    aux = np.asarray(view.aux_codes)
    n, s = int(view.n_records) + 1, int(view.sensitive_column)
    g = rng(seed, "best-of-membership-shadow-game")
    rows, bits, unique_total = [], [], 0
    for _ in range(MAX_SHADOW_DATASETS):
        if len(bits) >= n_targets:
            break
        data, unique = _draw_dataset(aux, n, s, g)
        unique_total += int(unique.size)
        if unique.size < 2:
            continue
        picked = np.sort(g.choice(unique, min(int(n_targets) - len(bits), unique.size),
                                  replace=False))
        for row in picked:
            member = int(g.integers(0, 2))
            drop = int(g.choice(unique[unique != row])) if member else int(row)
            counts_j = answers(view.queries, np.delete(data, drop, axis=0))
            rows.append((counts_j if noise is None else noise(
                counts_j, rng(seed, "best-of-membership-noise", len(bits))), data[row]))
            bits.append(member)
    if not bits:
        return None
    released = np.array([r for r, _ in rows], dtype=float)
    codes = np.array([c for _, c in rows])
    return ShadowGame(replace(view, released=released, target_codes=codes),
                      np.array(bits), unique_total)


def choose_membership(candidate_scores: Mapping[str, np.ndarray], member: np.ndarray,
                      proved: np.ndarray) -> Choice:
    """:func:`choose` for the membership game: each candidate's AUC of its score of "in the
    data" against the stand-ins' bits, on the stand-ins the proofs left open (``proved`` < 0)
    or on all when fewer than :data:`MIN_OPEN_TARGETS` are open, or when the open ones hold
    one bit only (no AUC). Ties keep the earlier candidate."""
    names = list(candidate_scores)
    member = np.asarray(member).astype(bool)
    proved = np.asarray(proved)
    judged = proved < 0
    if judged.sum() < MIN_OPEN_TARGETS or member[judged].all() or not member[judged].any():
        judged = np.ones(member.size, dtype=bool)
    if member[judged].all() or not member[judged].any():
        return Choice(names[0], {}, int(member.size), 0, int((proved >= 0).sum()))
    aucs = {name: auc_score(np.asarray(sc, dtype=float)[judged], member[judged])
            for name, sc in candidate_scores.items()}
    best = names[0]
    for name in names[1:]:
        if aucs[name] > aucs[best]:
            best = name
    return Choice(best, aucs, int(member.size), int(judged.sum()), int((proved >= 0).sum()))


def combine_membership(proved: np.ndarray, chosen_scores: np.ndarray) -> np.ndarray:
    """(T,) the chosen candidate's scores, 1 or 0 where the proofs settled membership."""
    proved = np.asarray(proved)
    return np.where(proved >= 0, proved, np.asarray(chosen_scores, dtype=float)).astype(float)
