"""What a predictions file must hold for the model audit's attacks, checked as soon as it is
read and before any attack runs (issue 18: a 3-record, 50-class file was refused only inside
the first attack, with a sentence that named neither the file nor the cause).

The numbers come from the attacks themselves:

* Without shadow predictions the attacker is the supervised one of paper 004 §4.3
  (:func:`engine.attacks.model.base.supervised_split`): it knows ``round(f · c)`` of the ``c``
  members and as many of the non-members (f = ½), learns its thresholds and attack models from
  those, and is measured on the rest. Every attack needs both members and non-members on both
  sides (``ModelOutputs.require_membership``; an AUC needs both), which for f = ½ means at least
  2 members and 2 non-members. With shadow predictions the two files are used whole, and their
  loader already asks for both kinds of record in each.
* The per-class attacks (paper 004's class-dependent thresholds for confidence and the
  entropies, Shokri et al.'s per-class attack models) fit a class's own threshold only from
  :data:`engine.attacks.model.metric.MIN_CLASS_RECORDS` attacker members and as many
  non-members of that class; a class with fewer uses the one threshold fitted on all classes.
  With a single class, or with no class that full, every per-class threshold is that one: the
  attacks still run, but what they measure is worth a warning.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.attacks.model.metric import MIN_CLASS_RECORDS
from engine.data.errors import InputError
from engine.results.result import input_entry

#: Attacks whose fitting is done class by class (metric thresholds per true class; the Shokri
#: attack's model per class; CBTTA's default partition is by true label).
PER_CLASS_ATTACKS = ("confidence", "entropy", "modified_entropy", "shokri", "cbtta")


def predictions_entry(pred, path, *, role: str) -> dict:
    """result.json's ``inputs`` entry of a predictions file: the file, its hash, the records
    kept and, when records with empty cells were left out (engine.data.predictions'
    ``_handle_gaps``, issue 21), how many per column and the sentence the summary and the
    report's gaps table quote."""
    entry = input_entry(path, rows=pred.n_records, role=role)
    if pred.missing_values:
        entry["missing_values"] = pred.missing_values
    return entry


def known_count(count: int, known_fraction: float) -> int:
    """How many of ``count`` records the supervised attacker knows — the rounding of
    :func:`engine.attacks.model.base.supervised_split`."""
    return int(round(known_fraction * count))


def smallest_split_count(known_fraction: float) -> int:
    """The fewest members (or non-members) that leave at least one on each side of the split."""
    c = 1
    while not 1 <= known_count(c, known_fraction) <= c - 1:
        c += 1
    return c


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def check_sizes(pred, path, *, has_shadow: bool, known_fraction: float) -> None:
    """Refuse, in one sentence naming the file, a predictions file too small for the split the
    attacks need (module docstring). ``pred``: a loaded :class:`engine.data.predictions.
    Predictions`."""
    if has_shadow:
        return              # the loader asked each file for members and non-members
    members = int(np.sum(pred.member))
    others = pred.n_records - members
    need = smallest_split_count(known_fraction)
    if members >= need and others >= need:
        return
    per_class = int(np.ceil(MIN_CLASS_RECORDS / known_fraction))
    classes = pred.n_classes
    raise InputError(
        f"{path}: {_count(pred.n_records, 'record', 'records')} "
        f"({_count(members, 'member', 'members')}, "
        f"{_count(others, 'non-member', 'non-members')}) for "
        f"{_count(classes, 'class', 'classes')} are too few: without shadow predictions the "
        f"attacker learns from half of the members and half of the non-members and is measured "
        f"on the others, so the file needs at least {need} members and {need} non-members "
        f"(and {per_class} of each per class, {2 * per_class * classes:,} records for "
        f"{classes:,} classes, for each class to get its own threshold) — add records, or give "
        f"the predictions of a shadow model trained like this one.",
        source=str(path), key="predictions")


def class_warnings(pred, path, shadow_labels, shadow_member, attacks,
                   shadow_path=None) -> list[str]:
    """Warnings (result.json's ``warnings``, the report's section 8) when the per-class attacks
    reduce to their one-threshold forms: one class only, or no class with enough attacker
    records for a threshold of its own (module docstring). ``shadow_path``: the shadow
    predictions' file, None when the attacker's records are half of ``path``'s."""
    per_class = [a for a in attacks if a in PER_CLASS_ATTACKS]
    name = Path(str(path)).name
    present = np.unique(pred.labels)
    if present.size == 1:
        label = str(pred.class_names[int(present[0])])
        cls = f"'{label}'" if len(label) <= 20 else "one class"
        return [f"Every record in {name} has the same true class ({cls}), so membership is "
                "measured within that class only"
                + (": the attacks that fit a threshold or an attack model for each class had "
                   "this one class, so each fitted one for all records," if per_class else ",")
                + " and nothing here says how the model treats records of other classes."]
    if not per_class:
        return []
    labels = np.asarray(shadow_labels, dtype=np.int64)
    member = np.asarray(shadow_member, dtype=bool)
    # A loss-only shadow file names its classes from its own labels: size by both.
    counts = np.zeros((max(pred.n_classes, int(labels.max(initial=-1)) + 1), 2), dtype=np.int64)
    np.add.at(counts, (labels, member.astype(np.int64)), 1)
    if np.any(counts.min(axis=1) >= MIN_CLASS_RECORDS):
        return []
    where = (f"the {labels.size:,} records of {Path(str(shadow_path)).name}"
             if shadow_path is not None else f"the {labels.size:,} records it knows of {name}")
    return [f"No class has the {MIN_CLASS_RECORDS} members and {MIN_CLASS_RECORDS} non-members "
            f"a threshold of its own needs among the attacker's records ({where}, over "
            f"{_count(pred.n_classes, 'class', 'classes')}): the attacks that fit a threshold "
            "or an attack model for each class used one for all classes."]
