"""DeSIA's stochastic module (paper 003 §3.2, Alg. 2) and its membership variant (§6.2).

Attribute inference (AIA, the game of §2.3 / Fig. 2). The challenger re-draws the target's
sensitive value uniformly, so the only signal about it is the release. The attacker builds N
shadow datasets (Alg. 2): s − 1 records drawn without replacement from the auxiliary data,
plus the target's quasi-identifiers with a uniformly random value z_{i,*} (the label). The
released queries are evaluated on every shadow dataset (the features), a classifier is trained
on 2/3 of them and validated on the other 1/3 (§4.3), and applied to the released answers
Q(D): the output is the probability of every sensitive value for the target.

Other records' values (``other_values``; issue 22 item 3). Alg. 2 as published gives each of
the s − 1 auxiliary records a uniformly random sensitive value z_{i,j} too ("uniform"): right
when the defender re-randomises every value, as in the paper's experiments. The game the audit
plays (engine.games.aggregates) re-draws only the target's value; everyone else keeps their
real one, and real sensitive columns are skewed (census marital status: 44 % never married,
0.6 % separated). A classifier trained on a uniform background is then applied to releases on
a skewed one, and reads the common value's large counts as evidence. The default, "kept",
draws the shadows of that game: the auxiliary records keep their own values and only the
target's is drawn. On the public tables of docs/methods/aggregates_audit.md it scores above
the uniform shadows under noise (numbers there); "uniform" stays for the paper's setting.

Membership inference (MIA, §6.1 / Fig. 9, §6.2). Each shadow dataset draws a bit b_i: b_i = 1
→ s − 1 auxiliary records plus the target record; b_i = 0 → s auxiliary records. The classifier
predicts b from the answers. (Auxiliary records keep their own values, as in Fig. 9; pass
``randomise_sensitive=True`` to re-randomise them as in the AIA game.)

Models (§4.3, §7.1): "logistic" — L2-penalised logistic regression whose penalty is chosen by
seeded 3-fold cross-validation over a grid (at most 1000 iterations), the paper's default;
"mlp" — hidden layers (50, 20); "random_forest" — 100 Gini trees, √features per split; "svm" —
RBF kernel (probabilities by Platt scaling). Features are standardised first.

Speed (issue 22 item 5). Only the released queries the classifier sees (the signal cells,
below) are computed, and each shadow dataset is drawn as counts of auxiliary records per
*class* — records that add the same to every signal cell — rather than as a list of records
(:class:`SignalShadows`): a multivariate hypergeometric draw of the s − 1 auxiliary records
over the classes, a multinomial split of each class over the re-drawn sensitive values, and
the counts times the classes' signatures. This is the same distribution as drawing the records
and building the whole table, restricted to the signal cells; the cost per shadow follows the
number of classes (tens for marginals), not the 30,000 records or the hundreds of cells of a
tract-sized table (20,000 shadows in about a second where building whole tables took about
15 minutes; bench/bench_tract.py). Every target draws its own shadows, in independent seeded
chunks of at most CHUNK_CELLS class counts each, so memory is bounded whatever the size of
the auxiliary data. :class:`ShadowAnswers` (whole tables, shared by many targets) is kept for
the likelihood attack.

Feature choice (documented deviation, ``features=``). The paper feeds all m released answers
to the classifier. For AIA the default here is ``"target"``: only the queries whose conditions
can count the target for *some* sensitive value (its quasi-identifiers satisfy the query's
non-sensitive conditions). The other queries count only the s − 1 other records, whose values
are independent of the target's (re-randomised) value, so they carry label information only
as weak covariates through sampling without replacement; dropping them removes noise
dimensions the classifier would otherwise have to shrink, and makes fitting much faster on
big releases. ``features="all"`` reproduces the paper; the tests check that the choice loses
no accuracy. For MIA the default is also ``"target"``: the queries that count the target
record. A query that cannot count it shifts with membership only through the one auxiliary
record a non-member dataset holds in the target's place, and within a table that partitions
the records this shift is carried by the target's own cell: given that cell's count, the
other cells are the same number of auxiliary records drawn without replacement from the
records outside it under both labels (with the whole table released, the target's cell is a
sufficient statistic for membership). ``features="all"`` keeps every query, as the paper.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.aggregates.queries import (
    CountingQuery,
    Domain,
    answers_many,
    contribution_classes,
    query_matrix,
)
from engine.attacks.aggregates.stochastic_model import (
    check_model,
    train_and_predict,
)
from engine.data.errors import InputError, given_value
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng

FEATURES = ("target", "all")
# The other records' sensitive values in the attribute game's shadow datasets (module
# docstring, "Other records' values"): "kept" — their own recorded values (the default; the
# game of engine.games.aggregates re-draws only the target's value); "uniform" — each re-drawn
# uniformly, as paper 003 Alg. 2 does.
OTHER_VALUES = ("kept", "uniform")
_RANDOM_NUMBERS_PER_BATCH = 20_000_000
_MAX_BATCH = 2048
SHADOW_CHUNK = 2_000          # shadow datasets per seeded chunk (one unit of work)
CHUNK_CELLS = 4_000_000       # a chunk holds at most this many class counts at once

Noise = Callable[[np.ndarray, np.random.Generator], np.ndarray]


# =========================================================================== inputs

def as_domain(domain) -> Domain:
    """A :class:`Domain`, or one built from a microdata ``Schema`` (its columns' labels)."""
    if isinstance(domain, Domain):
        return domain
    if hasattr(domain, "columns") and hasattr(domain, "names"):
        return Domain(tuple(domain.names), tuple(tuple(c.labels()) for c in domain.columns))
    raise InputError("The domain must be an aggregates Domain or a microdata Schema.",
                     key="domain")


def codes_of(data, domain: Domain, what: str) -> np.ndarray:
    arr = getattr(data, "codes", data)
    arr = domain.check_codes(arr)
    if arr.shape[0] == 0:
        raise InputError(f"The {what} has no records; the shadow datasets are drawn from it.",
                         key="auxiliary")
    return arr


def _check_other_values(other_values: str) -> str:
    if other_values not in OTHER_VALUES:
        raise InputError(f"Unknown choice {given_value(other_values)} for the other records' sensitive "
                         "values in the shadow datasets; choose 'kept' (their own values) or "
                         "'uniform' (re-drawn at random, as in the paper).", key="other_values")
    return other_values


def _check_features(features: str) -> str:
    if features not in FEATURES:
        raise InputError(f"Unknown feature choice {given_value(features)}; choose the target's "
                         f"counts (only the counts that can include the target) or all counts "
                         f"(every released count).",
                         key="features")
    return features


def check_shadow_sizes(n_shadow, dataset_size, n_aux: int, extra: int) -> tuple[int, int]:
    if isinstance(n_shadow, bool) or int(n_shadow) != n_shadow or n_shadow < 30:
        raise InputError(f"The number of shadow datasets must be a whole number of at least "
                         f"30 (the paper uses 20,000), got {given_value(n_shadow)}.", key="n_shadow")
    if isinstance(dataset_size, bool) or int(dataset_size) != dataset_size or dataset_size < 1:
        raise InputError(f"The dataset size |D| must be a whole number of at least 1, got "
                         f"{given_value(dataset_size)}.", key="dataset_size")
    need = int(dataset_size) - 1 + extra
    if need > n_aux:
        raise InputError(f"Each shadow dataset draws {need:,} auxiliary records without "
                         f"replacement, but the auxiliary data hold only {n_aux:,}; give more "
                         f"auxiliary records (the paper uses 9x the protected dataset).",
                         key="auxiliary")
    return int(n_shadow), int(dataset_size)


def released_matrix(released_answers, n_queries: int, n_targets: int = 1) -> np.ndarray:
    """The released answers as (n_targets, n_queries) floats: one release shared by every
    target, or one release per target (the AIA game re-randomises each target's sensitive
    value, so each target faces its own release)."""
    released = np.asarray(released_answers, dtype=np.float64)
    if released.ndim == 0 or released.shape[-1] != n_queries or released.ndim > 2 \
            or (released.ndim == 2 and released.shape[0] not in (1, n_targets)):
        size = released.shape[-1] if released.ndim else 1
        raise InputError(f"{size} released answers were given for {n_queries} queries; give "
                         "one answer per released query.", key="released")
    return np.broadcast_to(released.reshape(-1, n_queries), (n_targets, n_queries))


def target_candidate_rows(target_codes, domain: Domain, sensitive: int) -> np.ndarray:
    """(|V_n|, c) codes: the target with each sensitive value."""
    t = np.asarray(target_codes, dtype=np.int64).reshape(-1)
    if t.size != len(domain.columns):
        raise InputError(f"The target record must give a code for each of the "
                         f"{len(domain.columns)} columns (the sensitive one is ignored in "
                         f"attribute inference); got {t.size}.", key="target")
    k = domain.sizes[sensitive]
    rows = np.repeat(t[None, :], k, axis=0)
    rows[:, sensitive] = np.arange(k)
    return domain.check_codes(rows)


# =========================================================================== shadow machinery

class ShadowAnswers:
    """The auxiliary part of N shadow datasets' answers (paper 003 §3.2, Alg. 2 lines 2–9).

    ``aux_answers`` (N × m, int64): the released queries on the s − 1 sampled auxiliary
    records (with re-randomised sensitive values when ``randomise_sensitive``); for MIA also
    ``extra_answers`` (N × m): the answers on one more auxiliary record (the s-th record of a
    non-member shadow dataset).
    """

    def __init__(self, queries: Sequence[CountingQuery], auxiliary_codes: np.ndarray,
                 domain: Domain, sensitive: int, n_shadow: int, n_take: int, *,
                 randomise_sensitive: bool, extra: bool, seed: int,
                 progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> None:
        k = domain.sizes[sensitive]
        n_aux = auxiliary_codes.shape[0]
        self.k = k if randomise_sensitive else 1
        if randomise_sensitive:
            pool = np.repeat(auxiliary_codes, k, axis=0)
            pool[:, sensitive] = np.tile(np.arange(k, dtype=np.int32), n_aux)
        else:
            pool = auxiliary_codes
        qm = query_matrix(list(queries), pool) if queries else sp.csr_matrix((0, pool.shape[0]))
        m = qm.shape[0]
        self.aux_answers = np.zeros((n_shadow, m), dtype=np.int64)
        self.extra_answers = np.zeros((n_shadow, m), dtype=np.int64) if extra else None
        width = n_take + (1 if extra else 0)
        batch = int(max(16, min(_MAX_BATCH, _RANDOM_NUMBERS_PER_BATCH // max(n_aux, 1))))
        g = rng(seed, "desia-shadow", "auxiliary-sample")
        for start in range(0, n_shadow, batch):
            cancel.check()
            stop = min(n_shadow, start + batch)
            b = stop - start
            idx = _sample_without_replacement(g, b, n_aux, width)
            col = idx * self.k
            if randomise_sensitive:
                col = col + g.integers(0, k, size=idx.shape)
            self.aux_answers[start:stop] = _answers_of(qm, col[:, :n_take], len(pool))
            if extra:
                self.extra_answers[start:stop] = _answers_of(qm, col[:, n_take:], len(pool))
            progress(stop / n_shadow, f"Built {stop:,} of {n_shadow:,} shadow datasets")

    @property
    def n_shadow(self) -> int:
        return int(self.aux_answers.shape[0])


def _sample_without_replacement(g: np.random.Generator, rows: int, n: int, take: int
                                ) -> np.ndarray:
    """(rows, take) int64: each row ``take`` distinct indices of range(n), uniformly."""
    if take == 0:
        return np.zeros((rows, 0), dtype=np.int64)
    keys = g.random((rows, n), dtype=np.float32)
    if take >= n:
        return np.argsort(keys, axis=1).astype(np.int64)
    return np.argpartition(keys, take - 1, axis=1)[:, :take].astype(np.int64)


def _answers_of(qm: sp.csr_matrix, columns: np.ndarray, n_pool: int) -> np.ndarray:
    """Answers on datasets given as rows of pool columns (a sparse membership matrix)."""
    b, w = columns.shape
    if qm.shape[0] == 0:
        return np.zeros((b, 0), dtype=np.int64)
    member = sp.csr_matrix((np.ones(b * w, dtype=np.int64), columns.reshape(-1),
                            np.arange(0, b * w + 1, w)), shape=(b, n_pool))
    return answers_many(qm, member, batch=max(b, 1))


def target_answers(queries: Sequence[CountingQuery], target_rows: np.ndarray) -> np.ndarray:
    """(rows, m) int64: which released queries count each row (0/1)."""
    if not queries:
        return np.zeros((target_rows.shape[0], 0), dtype=np.int64)
    return query_matrix(list(queries), target_rows).T.toarray().astype(np.int64)


# =========================================================================== signal cells

@dataclass(frozen=True)
class SignalShadows:
    """One target's N shadow datasets (paper 003 §3.2, Alg. 2; §6.2 for membership), built
    only on its signal cells and drawn as class counts.

    Why this is the same game as building every shadow table. The classifier sees only the
    released queries in ``mask`` (the signal cells, :func:`_feature_mask`). For those queries
    a record matters only through its class (:func:`contribution_classes`: records that add
    the same to every signal cell), so a shadow dataset is summed up by how many of its
    records fall in each class. Drawing s − 1 auxiliary records without replacement puts a
    multivariate hypergeometric number of them in each class; re-drawing each one's
    sensitive value uniformly splits a class's count multinomially over the values. The
    features are these counts times the classes' signatures, plus the target's own row —
    exactly the answers of the whole shadow table restricted to the signal cells, at a cost
    per shadow that grows with the number of classes (tens for marginals) instead of with
    the records (30,000) and queries (hundreds).

    The shadows are cut into chunks of ``chunk_rows``; chunk j draws everything it needs
    (class counts, the extra record of a non-member dataset, the labels, the noise) from
    ``rng(seed, stream, *key, j)``, so each chunk is an independent unit of work and a
    target's shadows do not depend on the other targets. A chunk holds at most CHUNK_CELLS
    class counts (``chunk_rows`` × classes × values), whatever the size of the auxiliary data.
    """

    signature: np.ndarray        # (C, v, m_s) what one record of each class adds, per value
    class_sizes: np.ndarray      # (C,) auxiliary records in each class
    target_rows: np.ndarray      # (k_t, m_s) the target's own row, per label
    n_take: int                  # auxiliary records in every shadow dataset (s − 1)
    n_shadow: int
    membership: bool             # labels b ∈ {0, 1} (MIA) or the target's value (AIA)
    seed: int
    stream: tuple
    noise: Noise | None = None

    @property
    def n_features(self) -> int:
        return int(self.signature.shape[2])

    @property
    def chunk_rows(self) -> int:
        c, v, m = self.signature.shape
        return int(max(1, min(SHADOW_CHUNK, CHUNK_CELLS // max(c * v + m, 1))))

    @property
    def n_chunks(self) -> int:
        return -(-self.n_shadow // self.chunk_rows)

    def chunk(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """(features (b × m_s) int64 or float, labels (b,)) of the shadows of chunk ``j``."""
        start = j * self.chunk_rows
        b = min(self.n_shadow, start + self.chunk_rows) - start
        g = rng(self.seed, *self.stream, j)
        c, v, m = self.signature.shape
        counts = g.multivariate_hypergeometric(self.class_sizes, self.n_take, size=b)
        split = (g.multinomial(counts, np.full(v, 1.0 / v)) if v > 1
                 else counts[:, :, None])                                    # (b, C, v)
        x = split.reshape(b, c * v) @ self.signature.reshape(c * v, m)
        if self.membership:
            # The s-th record of a non-member dataset: one more draw from what is left.
            left = np.cumsum(self.class_sizes[None, :] - counts, axis=1)
            u = g.random(b) * left[:, -1]
            cls = np.minimum((left <= u[:, None]).sum(axis=1), c - 1)
            val = g.integers(0, v, size=b) if v > 1 else np.zeros(b, dtype=np.int64)
            y = g.integers(0, 2, size=b)
            x = x + np.where(y[:, None] == 1, self.target_rows[0][None, :],
                             self.signature[cls, val])
        else:
            y = g.integers(0, self.target_rows.shape[0], size=b)
            x = x + self.target_rows[y]
        if self.noise is not None:
            x = np.asarray(self.noise(x, g))
        return x, y

    def build(self, cancel: CancelToken = NEVER,
              progress: Progress = NO_PROGRESS) -> tuple[np.ndarray, np.ndarray]:
        """Every chunk in order: (N × m_s features, N labels)."""
        xs, ys = [], []
        for j in range(self.n_chunks):
            cancel.check()
            x, y = self.chunk(j)
            xs.append(x)
            ys.append(y)
            done = min(self.n_shadow, (j + 1) * self.chunk_rows)
            progress((j + 1) / self.n_chunks,
                     f"Built {done:,} of {self.n_shadow:,} shadow datasets")
        return np.concatenate(xs), np.concatenate(ys)


def signal_shadows(queries: Sequence[CountingQuery], mask: np.ndarray, contrib: np.ndarray,
                   auxiliary: np.ndarray, n_take: int, n_shadow: int, *, sensitive: int | None,
                   n_values: int, membership: bool, seed: int, stream: tuple,
                   noise: Noise | None = None) -> SignalShadows:
    """The :class:`SignalShadows` of one target: ``mask`` picks the signal cells among
    ``queries``, ``contrib`` (k_t × m) is the target's own row per label, ``sensitive`` the
    column re-drawn in every shadow dataset (None: records keep their values)."""
    signal = [q for q, keep in zip(queries, mask, strict=True) if keep]
    sig, sizes, _ = contribution_classes(signal, auxiliary, redrawn_column=sensitive,
                                         n_values=n_values)
    return SignalShadows(sig, sizes, np.ascontiguousarray(contrib[:, mask]), int(n_take),
                         int(n_shadow), membership, int(seed), tuple(stream), noise)


def attribute_shadows(queries: Sequence[CountingQuery], mask: np.ndarray, contrib: np.ndarray,
                      auxiliary: np.ndarray, n_take: int, n_shadow: int, *, sensitive: int,
                      n_values: int, other_values: str, seed: int, stream: tuple,
                      noise: Noise | None = None) -> SignalShadows:
    """One target's attribute-game shadows: the label is the target's value (``n_values``
    of them); the ``n_take`` auxiliary records keep their own ``sensitive`` values
    (``other_values="kept"``) or each get a uniform one ("uniform", Alg. 2 as published)."""
    _check_other_values(other_values)
    redrawn = sensitive if other_values == "uniform" else None
    return signal_shadows(queries, mask, contrib, auxiliary, n_take, n_shadow,
                          sensitive=redrawn, n_values=n_values if redrawn is not None else 1,
                          membership=False, seed=seed, stream=stream, noise=noise)


# =========================================================================== AIA

def _feature_mask(features: str, contributions: np.ndarray) -> np.ndarray:
    """Queries used as features: all, or those some row of ``contributions`` can count."""
    if features == "all":
        return np.ones(contributions.shape[1], dtype=bool)
    return contributions.any(axis=0)


def label_stream(seed: int, kind: str, target_row: np.ndarray, sensitive: int | None):
    key = [int(v) for j, v in enumerate(target_row) if j != sensitive]
    return rng(seed, kind, *key)


def score_many_targets(release_queries: Sequence[CountingQuery], released_answers,
                       targets_codes, sensitive_column, auxiliary, dataset_size: int, domain,
                       *, n_shadow: int = 20_000, model: str = "logistic",
                       features: str = "target", noise: Noise | None = None, seed: int = 0,
                       other_values: str = "kept", progress: Progress = NO_PROGRESS,
                       cancel: CancelToken = NEVER, also_released=None) -> list[dict]:
    """Alg. 2 (paper 003 §3.2) for many targets that share one set of auxiliary samples.

    ``targets_codes`` is (K, c): each target's codes (its sensitive entry is ignored). Every
    target gets its own labels z_{i,*} (a stream keyed by its quasi-identifiers, so a target's
    result does not depend on the other targets) and its own classifier. ``other_values``:
    the auxiliary records keep their own sensitive values ("kept", the game's model) or get
    uniform ones ("uniform", Alg. 2 as published); module docstring. Returns one dict per
    target as :func:`fit_and_score` does. ``also_released``: a second release per target
    (or one for all) scored by the same classifier, as ``also_probabilities``
    (:func:`train_and_predict`; issue 32 item 1).
    """
    dom = as_domain(domain)
    check_model(model)
    _check_features(features)
    _check_other_values(other_values)
    sens = dom.index(sensitive_column)
    queries = list(release_queries)
    targets = np.asarray(targets_codes)
    targets = targets.reshape(1, -1) if targets.ndim == 1 else targets
    released = released_matrix(released_answers, len(queries), targets.shape[0])
    also = (None if also_released is None
            else released_matrix(also_released, len(queries), targets.shape[0]))
    aux = codes_of(auxiliary, dom, "auxiliary data")
    n_shadow, size = check_shadow_sizes(n_shadow, dataset_size, aux.shape[0], 0)
    rows = [target_candidate_rows(t, dom, sens) for t in targets]
    k = dom.sizes[sens]
    results = []
    for i, trows in enumerate(rows):
        cancel.check()
        span = progress.span(i / len(rows), (i + 1) / len(rows))
        t0 = time.perf_counter()
        contrib = target_answers(queries, trows)                      # (k, m)
        mask = _feature_mask(features, contrib)
        key = [int(v) for j, v in enumerate(trows[0]) if j != sens]
        plan = attribute_shadows(queries, mask, contrib, aux, size - 1, n_shadow,
                                 sensitive=sens, n_values=k, other_values=other_values,
                                 seed=seed, stream=("desia-aia-shadows", *key), noise=noise)
        x, z = plan.build(cancel, span.span(0.0, 0.5))
        t1 = time.perf_counter()
        out = train_and_predict(x, z, released[i][mask], k, model=model, seed=seed,
                                cancel=cancel, also=None if also is None else also[i][mask])
        out.pop("_val_proba")
        p = out["probabilities"]
        out.update({"prediction": int(np.argmax(p)), "labels": dom.labels[sens],
                    "model": model, "features": features, "n_features": int(mask.sum()),
                    "n_queries": len(queries), "n_shadow": n_shadow,
                    "other_values": other_values,
                    "n_classes": int(plan.class_sizes.size),
                    "seconds": {"shadows": t1 - t0, "fit": time.perf_counter() - t1}})
        results.append(out)
        span(1.0, f"Scored {i + 1:,} of {len(rows):,} targets")
    return results


def fit_and_score(release_queries: Sequence[CountingQuery], released_answers,
                  target_record_qi_codes, sensitive_column, auxiliary, dataset_size: int,
                  domain, *, n_shadow: int = 20_000, model: str = "logistic",
                  features: str = "target", noise: Noise | None = None, seed: int = 0,
                  other_values: str = "kept", progress: Progress = NO_PROGRESS,
                  cancel: CancelToken = NEVER) -> dict:
    """DeSIA's stochastic module for one target (paper 003 §3.2, Alg. 2; game of Fig. 2).

    * ``release_queries`` / ``released_answers``: Q and Q(D) (m queries).
    * ``target_record_qi_codes``: the target's codes, one per domain column (the sensitive
      entry is ignored — the attacker knows only the quasi-identifiers, §2.2).
    * ``sensitive_column``: name or index in ``domain`` (a Domain or a microdata Schema).
    * ``auxiliary``: D_aux as a (n_aux, c) codes array or a Microdata; ``dataset_size`` = |D|.
    * ``model``: "logistic" (default, §4.3), "mlp", "random_forest" or "svm" (§7.1).
    * ``features``: "target" (default; see the module docstring) or "all" (as in the paper).
    * ``noise``: optional ``noise(answers, generator) -> answers`` applied to the shadow
      answers, to mirror a noisy release (§5.6).
    * ``other_values``: "kept" (default) — the auxiliary records in the shadow datasets keep
      their own sensitive values and only the target's is drawn (the game the audit plays);
      "uniform" — every one re-drawn uniformly, Alg. 2 as published (module docstring).

    Returns a dict: ``probabilities`` (|V_n|,) of each sensitive value, ``prediction``,
    ``labels``, ``validation_accuracy`` and ``validation_auc`` (pooled one-vs-rest) of the
    classifier on the held-out third of the shadows, ``l2_C`` (logistic only), sizes and
    timings. Deterministic per ``seed``.
    """
    return score_many_targets(release_queries, released_answers,
                              np.asarray(target_record_qi_codes).reshape(1, -1),
                              sensitive_column, auxiliary, dataset_size, domain,
                              n_shadow=n_shadow, model=model, features=features, noise=noise,
                              seed=seed, other_values=other_values, progress=progress,
                              cancel=cancel)[0]


# =========================================================================== MIA

def membership_fit_and_score(release_queries: Sequence[CountingQuery], released_answers,
                             target_record_codes, auxiliary, dataset_size: int, domain, *,
                             n_shadow: int = 20_000, model: str = "logistic",
                             features: str = "target", randomise_sensitive: bool = False,
                             sensitive_column=None, noise: Noise | None = None,
                             seed: int = 0, progress: Progress = NO_PROGRESS,
                             cancel: CancelToken = NEVER) -> dict:
    """DeSIA-MIA's stochastic module (paper 003 §6.2; game of §6.1 / Fig. 9).

    Each shadow dataset draws b_i ∈ {0, 1} uniformly: b_i = 1 → |D| − 1 auxiliary records and
    the target record (all of its attributes are known, Fig. 9); b_i = 0 → |D| auxiliary
    records. The classifier learns b from the answers. Returns ``probability_member``,
    ``prediction`` (0/1), the validation accuracy and AUC, sizes and timings.
    ``randomise_sensitive`` re-randomises the auxiliary records' ``sensitive_column`` in every
    shadow dataset (use it when the protected data's values were randomised too).
    """
    return membership_score_many_targets(
        release_queries, released_answers, np.asarray(target_record_codes).reshape(1, -1),
        auxiliary, dataset_size, domain, n_shadow=n_shadow, model=model, features=features,
        randomise_sensitive=randomise_sensitive, sensitive_column=sensitive_column,
        noise=noise, seed=seed, progress=progress, cancel=cancel)[0]


def membership_score_many_targets(release_queries: Sequence[CountingQuery], released_answers,
                                  targets_codes, auxiliary, dataset_size: int, domain, *,
                                  n_shadow: int = 20_000, model: str = "logistic",
                                  features: str = "target", randomise_sensitive: bool = False,
                                  sensitive_column=None, noise: Noise | None = None,
                                  seed: int = 0, progress: Progress = NO_PROGRESS,
                                  cancel: CancelToken = NEVER) -> list[dict]:
    """:func:`membership_fit_and_score` for many targets, each with its own release (row of
    ``released_answers``), sharing one set of auxiliary shadow samples (they do not depend on
    the target), so the shadow answers are computed once; each target keeps its own labels
    b_i and classifier. Same numbers as calling the single-target function per target."""
    dom = as_domain(domain)
    check_model(model)
    _check_features(features)
    queries = list(release_queries)
    targets = dom.check_codes(np.atleast_2d(np.asarray(targets_codes)))
    released = released_matrix(released_answers, len(queries), targets.shape[0])
    aux = codes_of(auxiliary, dom, "auxiliary data")
    n_shadow, size = check_shadow_sizes(n_shadow, dataset_size, aux.shape[0], 1)
    if randomise_sensitive and sensitive_column is None:
        raise InputError("Re-randomising the sensitive values needs the sensitive column; "
                         "name it in the data's description.",
                         key="sensitive_column")
    sens = dom.index(sensitive_column) if randomise_sensitive else None
    contribs = target_answers(queries, targets)                          # (T, m)
    results = []
    for i, target in enumerate(targets):
        cancel.check()
        span = progress.span(i / targets.shape[0], (i + 1) / targets.shape[0])
        t0 = time.perf_counter()
        contrib = contribs[i][None, :]
        mask = _feature_mask(features, contrib)
        plan = signal_shadows(queries, mask, contrib, aux, size - 1, n_shadow,
                              sensitive=sens, n_values=dom.sizes[sens] if sens is not None
                              else 1, membership=True, seed=seed,
                              stream=("desia-mia-shadows", *(int(v) for v in target)),
                              noise=noise)
        x, b = plan.build(cancel, span.span(0.0, 0.5))
        t1 = time.perf_counter()
        out = train_and_predict(x, b, released[i][mask], 2, model=model, seed=seed,
                                cancel=cancel)
        out.pop("_val_proba")
        p = out.pop("probabilities")
        out.update({"probability_member": float(p[1]), "prediction": int(p[1] > 0.5),
                    "model": model, "features": features, "n_features": int(mask.sum()),
                    "n_queries": len(queries), "n_shadow": n_shadow,
                    "n_classes": int(plan.class_sizes.size),
                    "seconds": {"shadows": t1 - t0, "fit": time.perf_counter() - t1}})
        results.append(out)
        span(1.0, f"Membership classifier {i + 1:,} of {targets.shape[0]:,}")
    return results
