"""Bundled "bring your own predictions" sample (issue 8): two predictions CSVs made from the
bundled purchase-style sample ``resources/model/purchase_sample.csv``.

The files show the predictions path of the model audit (``ModelConfig(source="predictions",
predictions=..., reference_predictions=...)``) without a model built elsewhere:

* ``sample_predictions.csv`` — the audited model's outputs on the *audit universe*: per record
  an ``id``, the true ``label``, ``member`` (1 = the model was trained on the record, 0 = not)
  and the model's probability for every class (``p_0`` … ``p_99``);
* ``sample_shadow_predictions.csv`` — the same columns for a *shadow* model: a look-alike
  that the attacker trained on half of its own records (same population, disjoint from the
  audit universe), with its outputs on all of those records and which ones it trained on.

How they are made (:func:`make_sample_predictions`, seeded, deterministic on one machine):
the 2,000 customers of the purchase sample are split with ``rng(seed, "sample-predictions",
"split")`` into the attacker's population (``attacker_fraction`` = 40 %, 800 records) and the
audit universe (1,200 records); the audited model trains on a random half of the universe
(600 records: its members), the shadow model on a random half of the population (400). Both
are the app's default MLP (``TrainingSpec()``: one hidden layer of 128 ReLU units, Adam,
30 epochs, batch 128), trained on the CPU on one thread. With 6 training records per class
and 600 features the models fit their training records and generalise poorly: the overfitting
the audit measures.

Probabilities are written with ``decimals`` decimals (4: the files stay under 1 MB); each row
is rounded and its largest entry absorbs the rounding residue, so every row sums to 1 to
within 1e-9 and the loader reads it without complaint. A probability below 0.00005 is
written as 0 (the attacks floor probabilities inside logarithms, base.PROB_FLOOR).

``id`` is ``c<k>`` for the customer on data row k of ``purchase_sample.csv`` (line k + 1 of
the file, counting the header as line 1), so every prediction points back at its record.

Regenerate the bundled files, from the repository root::

    python -m engine.data.sample_predictions --out resources/model --seed 0

The same seed gives byte-identical files on one machine; another CPU or thread library may
change a few last decimals (matrix products sum in a different order), never the ids, labels
or members.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.data.paths import APP_FOLDER
from engine.data.predictions import write_predictions_csv
from engine.data.tabular import load_tabular_csv
from engine.models import TrainingSpec, train_model
from engine.runtime import rng, torch_threads

SAMPLE_DIR = APP_FOLDER / "resources" / "model"
PURCHASE_SAMPLE = SAMPLE_DIR / "purchase_sample.csv"
PREDICTIONS_FILE = "sample_predictions.csv"
SHADOW_FILE = "sample_shadow_predictions.csv"
SEED = 0
ATTACKER_FRACTION = 0.4
TRAIN_FRACTION = 0.5
DECIMALS = 4


@dataclass(frozen=True, eq=False)
class SamplePredictions:
    """The two models' outputs, as they are written (``eq=False``: arrays)."""

    target_probs: np.ndarray        # (n_universe, k) rounded probabilities
    target_labels: np.ndarray       # (n_universe,) class codes
    target_member: np.ndarray       # (n_universe,) bool
    target_ids: np.ndarray          # (n_universe,) object "c<k>"
    shadow_probs: np.ndarray        # (n_population, k)
    shadow_labels: np.ndarray
    shadow_member: np.ndarray
    shadow_ids: np.ndarray
    class_names: tuple[str, ...]
    details: dict                   # accuracies and sizes, for documentation


def round_rows(probs: np.ndarray, decimals: int = DECIMALS) -> np.ndarray:
    """Rows rounded to ``decimals`` decimals whose entries still sum to 1: the rounding
    residue goes to each row's largest entry (which stays in [0, 1])."""
    p = np.asarray(probs, dtype=np.float64)
    out = np.round(p, decimals)
    top = np.argmax(out, axis=1)
    rows = np.arange(out.shape[0])
    out[rows, top] = np.round(out[rows, top] + (1.0 - out.sum(axis=1)), decimals)
    return np.clip(out, 0.0, 1.0)


def _split(n: int, seed: int, attacker_fraction: float, train_fraction: float):
    """(population, universe, universe members, population members): seeded, disjoint."""
    g = rng(seed, "sample-predictions", "split")
    order = g.permutation(n)
    k = int(round(attacker_fraction * n))
    population, universe = np.sort(order[:k]), np.sort(order[k:])
    inside = np.zeros(universe.size, dtype=bool)
    inside[g.permutation(universe.size)[:int(round(train_fraction * universe.size))]] = True
    shadow_in = np.zeros(population.size, dtype=bool)
    shadow_in[g.permutation(population.size)[:int(round(0.5 * population.size))]] = True
    return population, universe, inside, shadow_in


def make_sample_predictions(seed: int = SEED, *, data_path: str | Path = PURCHASE_SAMPLE,
                            attacker_fraction: float = ATTACKER_FRACTION,
                            train_fraction: float = TRAIN_FRACTION,
                            decimals: int = DECIMALS) -> SamplePredictions:
    """Train the audited and the shadow model on the purchase sample; their rounded outputs
    (module docstring). Deterministic for ``seed`` on one machine (CPU, one thread)."""
    data = load_tabular_csv(data_path)
    X, y, k = data.X, data.y, data.n_classes
    population, universe, inside, shadow_in = _split(data.n_records, seed, attacker_fraction,
                                                     train_fraction)
    spec = TrainingSpec(seed=seed)
    shadow_spec = TrainingSpec(seed=seed + 1)
    members, shadow_members = universe[inside], population[shadow_in]
    with torch_threads(1):
        target = train_model(spec, X[members], y[members], k, device="cpu")
        shadow = train_model(shadow_spec, X[shadow_members], y[shadow_members], k, device="cpu")
        target_probs = round_rows(target.predict_proba(X[universe]), decimals)
        shadow_probs = round_rows(shadow.predict_proba(X[population]), decimals)
    # data.rows are CSV lines (header = line 1): data row k is line k + 1.
    ids = np.array([f"c{r - 1}" for r in data.rows], dtype=object)

    def accuracy(p, labels, mask):
        return float(np.mean(np.argmax(p[mask], axis=1) == labels[mask]))

    details = {
        "seed": int(seed), "source": Path(data_path).name, "records": int(data.n_records),
        "classes": int(k), "universe_records": int(universe.size),
        "population_records": int(population.size), "target_train_records": int(inside.sum()),
        "shadow_train_records": int(shadow_in.sum()), "model": spec.describe(),
        "decimals": int(decimals),
        "target_train_accuracy": accuracy(target_probs, y[universe], inside),
        "target_test_accuracy": accuracy(target_probs, y[universe], ~inside),
        "shadow_train_accuracy": accuracy(shadow_probs, y[population], shadow_in),
        "shadow_test_accuracy": accuracy(shadow_probs, y[population], ~shadow_in),
    }
    return SamplePredictions(target_probs, y[universe], inside, ids[universe],
                             shadow_probs, y[population], shadow_in, ids[population],
                             tuple(data.class_labels), details)


def write_sample_predictions(out_dir: str | Path = SAMPLE_DIR, seed: int = SEED, *,
                             sample: SamplePredictions | None = None,
                             **kwargs) -> tuple[Path, Path]:
    """Write ``sample_predictions.csv`` and ``sample_shadow_predictions.csv`` into
    ``out_dir`` (columns ``id, label, member, p_<class> …``, the layout
    :func:`engine.data.predictions.load_predictions_csv` reads); returns their paths.
    ``sample``: outputs made beforehand by :func:`make_sample_predictions` (else made here
    from ``seed`` and ``kwargs``)."""
    s = sample if sample is not None else make_sample_predictions(seed, **kwargs)
    out = Path(out_dir)
    target = write_predictions_csv(out / PREDICTIONS_FILE, labels=s.target_labels,
                                   member=s.target_member, probs=s.target_probs,
                                   class_names=s.class_names, ids=s.target_ids)
    shadow = write_predictions_csv(out / SHADOW_FILE, labels=s.shadow_labels,
                                   member=s.shadow_member, probs=s.shadow_probs,
                                   class_names=s.class_names, ids=s.shadow_ids)
    return target, shadow


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.data.sample_predictions",
        description="Write the bundled bring-your-own-predictions sample CSVs.")
    parser.add_argument("--out", default=str(SAMPLE_DIR), help="output folder")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--data", default=str(PURCHASE_SAMPLE),
                        help="the purchase-style sample CSV to train on")
    parser.add_argument("--decimals", type=int, default=DECIMALS)
    args = parser.parse_args(argv)
    for p in write_sample_predictions(args.out, args.seed, data_path=args.data,
                                      decimals=args.decimals):
        print(f"wrote {p} ({p.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
