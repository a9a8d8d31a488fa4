"""Seeded sample data for the machine-learning model audit (issue 8, "Bundled sample").

* :func:`generate_purchase` — a wide binary "purchase-style" dataset like Purchase100 (paper
  004 §4.1, from Shokri et al.: one record per customer, 600 binary features, each "bought this
  item or not", records clustered into 100 classes of purchase styles; paper 001 Table 1 also
  uses the 2-, 10-, 20- and 50-class versions). The real data cannot ship with the app, so the
  generator draws what matters to membership inference: every item has a popularity, every
  class a prototype — a vector of purchase probabilities that tilts the popularities towards
  the items of its style — and every customer buys each item independently with the
  probabilities of its class. With few records per class and 600 features, a large network
  (paper 004 §4.2: 1024-512-256-128, tanh) fits its training records perfectly but generalises
  much less well: the overfitting the audit measures. ``contrast`` sets how distinct the styles
  are (0.6: a 256-unit network trained on 10 records per class reaches about 0.45 test
  accuracy, on 25 per class about 0.75, and 1.0 on its training records).
* :func:`generate_mixed_table` — a small mixed-type table of personal records (credit
  customers: age, sex, region, education, employment, income, debts, late payments, a
  health condition and whether they ``defaulted``), to show the zero-code intake (one-hot
  categories, standardised numbers, an id column that is ignored) and attribute inference
  (``health`` is the sensitive attribute; it also raises the risk of default, so a model's
  outputs carry information about it).

Regenerate the bundled samples with::

    python -m engine.data.purchase --out resources/model --seed 0
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.errors import InputError, given_value
from engine.data.tabular import TabularColumn, TabularData, TabularSchema
from engine.runtime import NEVER, CancelToken, rng

PURCHASE_LABEL = "label"
MIXED_LABEL = "defaulted"
MIXED_SENSITIVE = "health"
MIXED_ID = "customer_id"
MIXED_COLUMNS = ("customer_id", "age", "sex", "region", "education", "employment", "income",
                 "credit_cards", "debt_ratio", "late_payments", "health", "defaulted")
REGIONS = ("Capital", "North", "South", "East", "West")
EDUCATION = ("primary", "secondary", "vocational", "bachelor", "master")
EMPLOYMENT = ("employed", "self-employed", "unemployed", "retired", "student")
HEALTH = ("none", "chronic illness")
# Item popularities ~ Beta(1, 5): a customer buys about one item in six.
_POPULARITY = (1.0, 5.0)
_GENERATE_BATCH_VALUES = 1 << 22   # purchases drawn between two cancel checks


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise InputError(f"'{name}' must be a whole number of at least {minimum}, got "
                         f"{given_value(value)}.", key=name)
    return int(value)


# --------------------------------------------------------------------------- purchase

def purchase_schema(n_features: int = 600, n_classes: int = 100) -> TabularSchema:
    """Features ``item_000`` … (0/1, kept unscaled) and the label ``label`` ("0" … "99")."""
    width = max(3, len(str(n_features - 1)))
    cols = [TabularColumn(f"item_{j:0{width}d}", "feature", "numeric", scale=False)
            for j in range(n_features)]
    cols.append(TabularColumn(PURCHASE_LABEL, "label", "categorical",
                              tuple(str(c) for c in range(n_classes))))
    return TabularSchema(tuple(cols))


def generate_purchase(seed: int = 0, n_records: int = 10_000, n_features: int = 600,
                      n_classes: int = 100, *, contrast: float = 0.6,
                      labels: str = "prototype", n_styles: int | None = None,
                      cancel: CancelToken = NEVER) -> TabularData:
    """A Purchase100-like dataset (paper 004 §4.1) as :class:`TabularData` (member None).

    ``labels`` chooses how a customer gets its class:

    * ``"prototype"`` (the default, the app's sample data): labels are drawn first and the
      purchases from the class's prototype, described below — classes overlap, so the label is
      *not* a function of the purchases (there is Bayes error) and a model that fits its
      training records memorises labels its features cannot explain;
    * ``"kmeans"``: Purchase100's own construction (Shokri et al. 2017, §"Data"; paper 004 §4.1:
      "the data are clustered into 100 classes representing different purchase styles") —
      customers first, labels after, by k-means on the purchase vectors, so the label is a
      deterministic function of the features: :func:`generate_purchase_kmeans`, whose
      docstring says how and why. ``n_styles`` is used only there.

    The ``"prototype"`` construction:

    Item j has popularity π_j ~ Beta(1, 5); class c's prototype buys it with probability
    ``sigmoid(logit(π_j) + contrast · z_cj)``, z_cj ~ N(0, 1) (larger ``contrast``: more
    distinct purchase styles, an easier task, less overfitting); the classes are balanced
    (``n_records / n_classes`` customers each, the first ``n_records mod n_classes`` classes one
    more) and each customer's purchases are independent draws from its class's prototype.
    ``X`` is 0/1 float32, ``rows`` are the rows of the CSV :func:`write_purchase_csv` writes.
    Deterministic per ``seed`` (stream ``rng(seed, "purchase")``).
    """
    if labels == "kmeans":
        return generate_purchase_kmeans(seed, n_records, n_features, n_classes,
                                        contrast=contrast, n_styles=n_styles)
    if labels != "prototype":
        raise InputError(f"'labels' must be 'prototype' or 'kmeans', got {given_value(labels)}.",
                         key="labels")
    if n_styles is not None:
        raise InputError("The number of shopping styles is a setting of the k-means "
                         "construction only; choose k-means labels with it, or leave it out.",
                         key="n_styles", setting="n_styles")
    n_features = _check_count(n_features, "n_features", 1)
    n_classes = _check_count(n_classes, "n_classes", 2)
    n_records = _check_count(n_records, "n_records", 2 * n_classes)
    contrast = _check_contrast(contrast)
    g = rng(seed, "purchase")
    pi = g.beta(*_POPULARITY, size=n_features)
    pi = np.clip(pi, 1e-4, 1 - 1e-4)
    logits = np.log(pi / (1 - pi)) + float(contrast) * g.standard_normal((n_classes, n_features))
    prototypes = 1.0 / (1.0 + np.exp(-logits))
    y = g.permutation(np.resize(np.arange(n_classes, dtype=np.int64), n_records))
    # In row batches: the same draws as one (n_records, n_features) call, less memory, and
    # ``cancel`` is checked between batches (Purchase100's 197,324 records take seconds).
    X = np.empty((n_records, n_features), dtype=np.float32)
    proto = prototypes.astype(np.float32)
    step = max(1, _GENERATE_BATCH_VALUES // n_features)
    for lo in range(0, n_records, step):
        cancel.check()
        hi = min(n_records, lo + step)
        X[lo:hi] = g.random((hi - lo, n_features), dtype=np.float32) < proto[y[lo:hi]]
    schema = purchase_schema(n_features, n_classes)
    return TabularData(X=X, y=y, class_labels=schema.class_labels,
                       feature_names=schema.encoded_names(),
                       rows=np.arange(2, n_records + 2, dtype=np.int64), member=None,
                       schema=schema, source=f"synthetic purchases (seed {seed})")


def _check_contrast(contrast) -> float:
    if isinstance(contrast, bool) or not isinstance(contrast, int | float) or contrast < 0 \
            or not np.isfinite(contrast):
        raise InputError(f"'contrast' must be a number of at least 0, got {given_value(contrast)}.",
                         key="contrast")
    return float(contrast)


KMEANS_FIT_RECORDS = 20_000   # k-means is fitted on at most this many records (then predicts)


def generate_purchase_kmeans(seed: int = 0, n_records: int = 10_000, n_features: int = 600,
                             n_classes: int = 100, *, contrast: float = 0.6,
                             n_styles: int | None = None) -> TabularData:
    """Purchase100 as Shokri et al. (2017) built it, on synthetic customers: purchases first,
    then labels by k-means clustering of the purchase vectors (paper 004 §4.1: "the data are
    clustered into 100 classes representing different purchase styles").

    Why a second construction. In :func:`generate_purchase`'s default the label is drawn first
    and the purchases from that class's prototype, so two customers with the same purchases can
    have different labels: part of every label is noise the features cannot explain, and a
    model that fits its training records has to memorise it — an irreducible member/non-member
    difference that no defence which keeps the fit can remove. In the real Purchase100 the label
    *is* a function of the purchases (the index of the nearest k-means centroid), so a model
    can generalise to every record, and membership is exposed only by what it has not yet
    learnt. Defences such as KCD (paper 004 §3) were measured there.

    Construction (deterministic per ``seed``; streams ``rng(seed, "purchase-kmeans", …)``):

    1. Item popularities π_j ~ Beta(1, 5) as in the default construction.
    2. ``n_styles`` latent purchase styles (default 2 · ``n_classes``: more styles than classes,
       so a class is a region of purchase space that holds several styles, or part of one, not
       a copy of a single generating distribution), style s buying item j with probability
       ``sigmoid(logit(π_j) + contrast · z_sj)``, z_sj ~ N(0, 1).
    3. Each customer draws one style uniformly and buys every item independently with its
       probabilities (0/1 features).
    4. k-means (scikit-learn ``KMeans``, Lloyd, k-means++ initialisation, one run,
       ``random_state`` drawn from the seed) clusters the purchase vectors into ``n_classes``
       clusters — fitted on all records, or on a seeded subsample of
       ``KMEANS_FIT_RECORDS`` when there are more (then every record gets its nearest
       centroid) — and each record's label is its cluster: a deterministic function of its
       features. Clusters are numbered by decreasing size (ties by centroid order), so label
       0 is the largest class. Classes are not balanced, as in Purchase100.

    A cluster may come out empty only in degenerate data; the class then has no records (the
    schema still lists it). ``n_records`` must be at least 2 · ``n_classes``.
    """
    from sklearn.cluster import KMeans

    n_features = _check_count(n_features, "n_features", 1)
    n_classes = _check_count(n_classes, "n_classes", 2)
    n_records = _check_count(n_records, "n_records", 2 * n_classes)
    contrast = _check_contrast(contrast)
    n_styles = 2 * n_classes if n_styles is None else _check_count(n_styles, "n_styles", 1)
    g = rng(seed, "purchase-kmeans", "customers")
    pi = np.clip(g.beta(*_POPULARITY, size=n_features), 1e-4, 1 - 1e-4)
    logits = np.log(pi / (1 - pi)) + contrast * g.standard_normal((n_styles, n_features))
    styles = (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)
    style = g.integers(0, n_styles, size=n_records)
    X = (g.random((n_records, n_features), dtype=np.float32) < styles[style]).astype(np.float32)

    k = rng(seed, "purchase-kmeans", "clustering")
    fit_rows = (np.arange(n_records) if n_records <= KMEANS_FIT_RECORDS
                else np.sort(k.choice(n_records, KMEANS_FIT_RECORDS, replace=False)))
    km = KMeans(n_clusters=n_classes, init="k-means++", n_init=1, algorithm="lloyd",
                random_state=int(k.integers(0, 2**31 - 1)))
    km.fit(X[fit_rows].astype(np.float64))
    cluster = km.predict(X.astype(np.float64)).astype(np.int64)
    sizes = np.bincount(cluster, minlength=n_classes)
    order = np.lexsort((np.arange(n_classes), -sizes))       # largest cluster first
    relabel = np.empty(n_classes, dtype=np.int64)
    relabel[order] = np.arange(n_classes)
    y = relabel[cluster]
    schema = purchase_schema(n_features, n_classes)
    return TabularData(X=X, y=y, class_labels=schema.class_labels,
                       feature_names=schema.encoded_names(),
                       rows=np.arange(2, n_records + 2, dtype=np.int64), member=None,
                       schema=schema,
                       source=f"synthetic purchases, k-means labels (seed {seed})")


def write_purchase_csv(data: TabularData, path: str | Path) -> Path:
    """Write 0/1 features as a CSV that :func:`engine.data.tabular.load_tabular_csv` reads
    back: a column per encoded feature, then ``label`` (the class label) and, when the data
    have membership flags, ``member`` (0/1)."""
    X = data.X
    if not np.isin(X, (0.0, 1.0)).all():
        raise ValueError("write_purchase_csv writes 0/1 features only")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    n, d = X.shape
    header = list(data.feature_names) + [PURCHASE_LABEL]
    tail = np.asarray(data.class_labels, dtype=object)[data.y]
    if data.member is not None:
        header.append("member")
        tail = tail + np.where(data.member, ",1", ",0").astype(object)
    # "0,1,0,…," per row as bytes: digits interleaved with commas, then the label.
    cells = np.full((n, 2 * d), ord(","), dtype=np.uint8)
    cells[:, 0::2] = X.astype(np.uint8) + ord("0")
    with open(out, "wb") as f:
        f.write((",".join(header) + "\n").encode("utf-8"))
        for row, t in zip(cells, tail, strict=True):
            f.write(row.tobytes() + t.encode("utf-8") + b"\n")
    return out


# --------------------------------------------------------------------------- mixed table

def generate_mixed_table(seed: int = 0, n: int = 2000) -> pd.DataFrame:
    """A small mixed-type table of credit customers, one row each (columns ``MIXED_COLUMNS``).

    ``customer_id`` ("C00001", …: an id, ignored by the intake), ``age`` (18–90), ``sex``,
    ``region``, ``education``, ``employment`` (depends on age), ``income`` (yearly, log-normal,
    rises with education and age), ``credit_cards`` (0–6), ``debt_ratio`` (debts / income),
    ``late_payments`` (0–12, more with high debt), ``health`` ("none" / "chronic illness", more
    common with age: the sensitive attribute for attribute inference) and the binary label
    ``defaulted`` (0/1, about one customer in five; more likely with late payments, debt, low
    income, unemployment and illness). Deterministic per ``seed`` (stream ``rng(seed,
    "mixed")``); load it with ``tabular_from_frame(df, label="defaulted")``.
    """
    n = _check_count(n, "n", 4)
    g = rng(seed, "mixed")
    age = np.clip(np.rint(18 + g.gamma(3.0, 9.0, n)), 18, 90).astype(np.int64)
    sex = np.where(g.random(n) < 0.5, "F", "M")
    region = g.choice(np.array(REGIONS), n, p=[0.3, 0.2, 0.2, 0.15, 0.15])
    edu = g.choice(len(EDUCATION), n, p=[0.1, 0.35, 0.2, 0.25, 0.1])
    # Employment by age: students are young, the retired old.
    u = g.random(n)
    p_student = np.where(age < 26, 0.45, 0.01)
    p_retired = np.clip((age - 60) / 8.0, 0.0, 0.95)
    emp = np.where(u < p_student, 4,
                   np.where(u < p_student + p_retired, 3,
                            np.where(g.random(n) < 0.08, 2,
                                     np.where(g.random(n) < 0.15, 1, 0))))
    log_income = (np.log(24_000) + 0.18 * edu + 0.012 * np.minimum(age - 18, 35)
                  + np.select([emp == 1, emp == 2, emp == 3, emp == 4],
                              [0.1, -0.9, -0.3, -1.0], 0.0)
                  + (region == "Capital") * 0.15 + g.normal(0.0, 0.35, n))
    income = (np.rint(np.exp(log_income) / 100.0) * 100).astype(np.int64)
    cards = np.minimum(g.poisson(1.2 + 0.15 * edu), 6)
    debt_ratio = np.round(np.clip(g.gamma(2.0, 0.2, n) + 0.1 * cards, 0.0, 3.0), 2)
    late = np.minimum(g.poisson(0.3 + 1.2 * debt_ratio), 12)
    chronic = g.random(n) < 1 / (1 + np.exp(-(-3.2 + 0.045 * (age - 18))))
    z = (-1.9 + 0.55 * late + 1.1 * (debt_ratio - 0.5) - 0.8 * (log_income - np.log(24_000))
         + 0.9 * (emp == 2) + 0.9 * chronic)
    defaulted = (g.random(n) < 1 / (1 + np.exp(-z))).astype(np.int64)
    width = max(5, len(str(n)))
    return pd.DataFrame({
        "customer_id": [f"C{i:0{width}d}" for i in range(1, n + 1)],
        "age": age,
        "sex": sex,
        "region": region,
        "education": np.asarray(EDUCATION)[edu],
        "employment": np.asarray(EMPLOYMENT)[emp],
        "income": income,
        "credit_cards": cards.astype(np.int64),
        "debt_ratio": debt_ratio,
        "late_payments": late.astype(np.int64),
        "health": np.where(chronic, HEALTH[1], HEALTH[0]),
        "defaulted": defaulted,
    }, columns=list(MIXED_COLUMNS))


def write_mixed_csv(df: pd.DataFrame, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out, index=False, lineterminator="\n")
    return out


# --------------------------------------------------------------------------- CLI

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m engine.data.purchase",
        description="Write the model audit's sample data: purchase_sample.csv (a Purchase100-"
                    "like wide binary table, paper 004 §4.1) and mixed_sample.csv (a small "
                    "mixed-type table of credit customers).")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--records", type=int, default=2000, help="purchase records")
    ap.add_argument("--features", type=int, default=600)
    ap.add_argument("--classes", type=int, default=100)
    ap.add_argument("--mixed-records", type=int, default=2000)
    args = ap.parse_args(argv)
    try:
        purchases = generate_purchase(args.seed, args.records, args.features, args.classes)
        mixed = generate_mixed_table(args.seed, args.mixed_records)
    except InputError as exc:
        print(exc.one_line())
        return 2
    out = Path(args.out)
    p1 = write_purchase_csv(purchases, out / "purchase_sample.csv")
    p2 = write_mixed_csv(mixed, out / "mixed_sample.csv")
    print(f"wrote {p1} ({purchases.n_records:,} records × {purchases.n_features} binary "
          f"features, {purchases.n_classes} classes, {p1.stat().st_size / 1e6:.1f} MB; "
          f"{purchases.X.mean():.1%} of the cells are 1) and {p2} ({len(mixed):,} records, "
          f"{mixed[MIXED_LABEL].mean():.1%} defaulted, "
          f"{(mixed[MIXED_SENSITIVE] == HEALTH[1]).mean():.1%} with a chronic illness)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
