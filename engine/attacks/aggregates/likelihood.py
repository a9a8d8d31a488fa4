"""The likelihood attack of paper 003 §7.2: a per-statistic Gaussian vote, the baseline that
shows DeSIA's machine-learning model is needed (Fig. 12).

With the shadow datasets of the stochastic module (§3.2, re-randomised sensitive values, the
target with a uniformly random value z_{i,*}), group them by the target's value b:
G_b = {D_shadow^i | z_{i,*} = b}. For each statistic q, μ_{q,b} and σ_{q,b} are the mean and
standard deviation of q over G_b, and

    Pr[r_{u*}^n = b] = Φ((q(D) − μ_{q,b}) / σ_{q,b}),

with Φ the *density* of the standard normal, as the paper writes it (no 1/σ factor; pass
``scale_by_sigma=True`` for the proper Gaussian density). Each statistic votes for the value
of maximum likelihood; only the statistics of

    Q_{u*} = {q | r_{u*}^i ∈ V_i^q for every non-sensitive i, and V_n^q ≠ 𝒱_n}

vote — those with a condition on the sensitive attribute that do not exclude the target on
its other attributes, so whether they count the target depends only on its sensitive value.
The prediction is the majority vote. Details the paper leaves open, fixed here: a statistic
whose maximum is tied between several values splits its vote equally among them; σ is floored
at 1e-6 (a constant statistic then votes only for the groups whose mean it equals); the
returned ``probabilities`` are the vote shares (uniform when Q_{u*} is empty).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.aggregates.queries import CountingQuery
from engine.attacks.aggregates.desia_stochastic import (
    ShadowAnswers,
    as_domain,
    check_shadow_sizes,
    codes_of,
    label_stream,
    released_matrix,
    target_answers,
    target_candidate_rows,
)
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress

SIGMA_FLOOR = 1e-6


def voting_queries(queries: Sequence[CountingQuery], target_codes, sensitive: int,
                   n_values: int) -> np.ndarray:
    """Boolean mask of Q_{u*} (§7.2): the query constrains the sensitive column to a proper
    subset of its values, and the target's non-sensitive values satisfy its other
    conditions."""
    t = np.asarray(target_codes).reshape(-1)
    out = np.zeros(len(queries), dtype=bool)
    for i, q in enumerate(queries):
        ok = True
        restricts = False
        for col, allowed in q.conditions:
            if col == sensitive:
                restricts = len(set(allowed) & set(range(n_values))) < n_values
            elif int(t[col]) not in allowed:
                ok = False
                break
        out[i] = ok and restricts
    return out


def likelihood_votes(shadow_answers: np.ndarray, shadow_labels: np.ndarray, released,
                     n_values: int, *, scale_by_sigma: bool = False) -> np.ndarray:
    """(n_queries,) × n_values vote matrix: row q holds q's vote (1, or a tie split).

    ``shadow_answers`` (N, m) are the voting statistics on the shadow datasets, ``shadow_labels``
    (N,) the target's value in each, ``released`` (m,) the values q(D)."""
    x = np.asarray(shadow_answers, dtype=np.float64)
    z = np.asarray(shadow_labels, dtype=np.int64)
    r = np.asarray(released, dtype=np.float64).reshape(-1)
    m = x.shape[1]
    mu = np.zeros((n_values, m))
    sd = np.ones((n_values, m))
    present = np.zeros(n_values, dtype=bool)
    for b in range(n_values):
        grp = x[z == b]
        if grp.shape[0]:
            present[b] = True
            mu[b] = grp.mean(axis=0)
            sd[b] = grp.std(axis=0)
    sd = np.maximum(sd, SIGMA_FLOOR)
    u = (r[None, :] - mu) / sd
    like = np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi)
    if scale_by_sigma:
        like = like / sd
    like[~present] = -1.0                       # a value no shadow dataset had cannot win
    best = like.max(axis=0)
    winners = (like == best[None, :]).T.astype(np.float64)      # (m, n_values)
    return winners / winners.sum(axis=1, keepdims=True)


def likelihood_attack(release_queries: Sequence[CountingQuery], released_answers,
                      target_record_qi_codes, sensitive_column, auxiliary, dataset_size: int,
                      domain, *, n_shadow: int = 20_000, scale_by_sigma: bool = False,
                      seed: int = 0, progress: Progress = NO_PROGRESS,
                      cancel: CancelToken = NEVER) -> dict:
    """The likelihood attack (paper 003 §7.2) on one target, with the same shadow datasets
    (same seed → same samples and labels) as :func:`desia_stochastic.fit_and_score`.

    Returns ``probabilities`` (vote shares per sensitive value), ``prediction`` (None when no
    statistic votes), ``labels``, ``n_voting`` (|Q_{u*}|) and ``votes`` (per value).
    """
    dom = as_domain(domain)
    sens = dom.index(sensitive_column)
    queries = list(release_queries)
    released = released_matrix(released_answers, len(queries))[0]
    aux = codes_of(auxiliary, dom, "auxiliary data")
    n_shadow, size = check_shadow_sizes(n_shadow, dataset_size, aux.shape[0], 0)
    k = dom.sizes[sens]
    rows = target_candidate_rows(target_record_qi_codes, dom, sens)
    mask = voting_queries(queries, rows[0], sens, k)
    if not mask.any():
        cancel.check()
        progress(1.0, "No released statistic can vote for this target")
        return {"probabilities": np.full(k, 1.0 / k), "prediction": None,
                "labels": dom.labels[sens], "n_voting": 0, "votes": np.zeros(k)}
    voting = [q for q, keep in zip(queries, mask, strict=True) if keep]
    shadows = ShadowAnswers(voting, aux, dom, sens, n_shadow, size - 1,
                            randomise_sensitive=True, extra=False, seed=seed,
                            progress=progress.span(0.0, 0.9), cancel=cancel)
    contrib = target_answers(voting, rows)
    z = label_stream(seed, "desia-aia-labels", rows[0], sens).integers(0, k, size=n_shadow)
    x = shadows.aux_answers + contrib[z]
    cancel.check()
    votes = likelihood_votes(x, z, released[mask], k, scale_by_sigma=scale_by_sigma).sum(axis=0)
    progress(1.0, "Counted the likelihood votes")
    share = votes / votes.sum()
    return {"probabilities": share, "prediction": int(np.argmax(share)),
            "labels": dom.labels[sens], "n_voting": int(mask.sum()), "votes": votes}
