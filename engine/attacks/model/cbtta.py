"""Categorical Bayesian Take-the-Typical Attack (paper 001 §CBTTA, Thm 3).

The records are split into parts D_i, and BTTA runs inside each part with that part's training
accuracy p0_i, test accuracy p1_i and member share q_i (paper 001 Appendix A, Claims 1–5). The
partitions of the paper:

* ``PTL`` — by true label y;
* ``PPL`` — by predicted label argmax M(x);
* ``PTC`` — by the confidence M_y(x) in the true label, n equal bins of [0, 1]:
  [0, 1/n), …, [(n − 1)/n, 1];
* ``PPC`` — by the top confidence max_j M_j(x), which lies in [1/m, 1] for m classes, n equal
  bins of width (m − 1)/(mn);
* ``correct`` — by correctness, only useful in combinations;

and their intersections, written with "+" ("PTL+PTC", "PPL+PPC": the combinations the paper
recommends). The paper advises against PTL+PPL: each part then has accuracy 0 or 1 and BTTA
degenerates to Take-the-Typical inside it; it is allowed here (with q_i estimated per part it
is still the Bayes rule on that information) but flagged. Note that "X+correct" decides exactly
as "X": BTTA already splits every part by correctness.

Parameters come from shadow models (paper 001: "By training models which mimic the behavior of
the target model we can observe ... the individual training accuracy for each category"): the
pooled shadow outputs with their membership give, per part and correctness, the member and
non-member counts. With a target prior q (default: the shadow member share) the rule in part i
for correctness c is

    member iff q·P(i, c | member) ≥ (1 − q)·P(i, c | non-member),

which is BTTA with p0_i = P(c | i, member), p1_i = P(c | i, non-member) and
q_i = q·P(i | member) / (q·P(i | member) + (1 − q)·P(i | non-member)) — the same decision,
written without dividing by zero for parts where one side is empty. For PTL the paper assumes
q_i = q; we estimate it like the others (it is ≈ q when classes are split at random).

Parts with fewer than ``min_part_records`` shadow records (default 30, members and
non-members together) fall back to the global BTTA parameters estimated from all shadow
records; a (part, correctness) cell with no shadow record at all gets the part's posterior q_i.
Thm 3: with exact parameters CBTTA is the most accurate attack given the partition; a finer
partition is never less accurate in expectation (paper 001 §Results).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.attacks.model import btta
from engine.attacks.model.base import ModelOutputs, correct, true_class_prob
from engine.attacks.outcome import AttackOutcome

PARTITIONS = ("PTL", "PPL", "PTC", "PPC", "correct")
DEFAULT_BINS = 10
MIN_PART_RECORDS = 30

PARTITION_LABELS = {
    "PTL": "true label",
    "PPL": "predicted label",
    "PTC": "confidence in the true label",
    "PPC": "top confidence",
    "correct": "correctness",
}


def _parse(partition: str) -> list[str]:
    parts = [p.strip() for p in str(partition).split("+") if p.strip()]
    if not parts:
        raise ValueError("empty partition")
    for p in parts:
        if p not in PARTITIONS:
            raise ValueError(f"unknown partition {p!r}; choose from {', '.join(PARTITIONS)}")
    if len(set(parts)) != len(parts):
        raise ValueError(f"partition {partition!r} repeats a component")
    return parts


def _component(probs, labels, name: str, n_bins: int) -> tuple[np.ndarray, int]:
    """Codes in [0, size) for one partition component, and its size."""
    k = probs.shape[1]
    if name == "PTL":
        return np.asarray(labels, dtype=np.int64), k
    if name == "PPL":
        return np.argmax(probs, axis=1).astype(np.int64), k
    if name == "correct":
        return correct(probs, labels).astype(np.int64), 2
    if name == "PTC":
        # I_i = [(i − 1)/n, i/n), the last closed at 1.
        v = true_class_prob(probs, labels)
        return np.clip(np.floor(v * n_bins), 0, n_bins - 1).astype(np.int64), n_bins
    # PPC: the top confidence lies in [1/m, 1]; n bins of width (m − 1)/(mn).
    v = probs.max(axis=1)
    width = (k - 1) / (k * n_bins)
    return np.clip(np.floor((v - 1.0 / k) / width), 0, n_bins - 1).astype(np.int64), n_bins


def components(partition: str, n_classes: int, n_bins: int = DEFAULT_BINS
               ) -> list[tuple[str, int]]:
    """The partition's components with their number of values (the mixed radix of part ids)."""
    return [(p, n_classes if p in ("PTL", "PPL") else 2 if p == "correct" else n_bins)
            for p in _parse(partition)]


def part_ids(probs, labels, partition: str, n_bins: int = DEFAULT_BINS
             ) -> tuple[np.ndarray, list[tuple[str, int]]]:
    """Part id of every record (mixed-radix code of the components) and the components with
    their sizes, for :func:`describe_part`."""
    probs = np.asarray(probs)
    code = np.zeros(probs.shape[0], dtype=np.int64)
    comps = []
    for name in _parse(partition):
        c, size = _component(probs, labels, name, n_bins)
        code = code * size + c
        comps.append((name, size))
    return code, comps


def describe_part(pid: int, comps: list[tuple[str, int]], n_classes: int, n_bins: int) -> str:
    """Plain words for a part id, e.g. "true label 3 & confidence in the true label in
    [0.9, 1]"."""
    words = []
    for name, size in reversed(comps):
        v = int(pid % size)
        pid //= size
        if name in ("PTL", "PPL"):
            words.append(f"{PARTITION_LABELS[name]} {v}")
        elif name == "correct":
            words.append("labelled correctly" if v else "labelled wrongly")
        else:
            lo0, w = (0.0, 1.0 / n_bins) if name == "PTC" else (
                1.0 / n_classes, (n_classes - 1) / (n_classes * n_bins))
            lo, hi = lo0 + v * w, lo0 + (v + 1) * w
            close = "]" if v == n_bins - 1 else ")"
            words.append(f"{PARTITION_LABELS[name]} in [{lo:.3g}, {hi:.3g}{close}")
    return " & ".join(reversed(words))


@dataclass(frozen=True)
class CBTTAModel:
    """CBTTA's parameters, estimated from shadow outputs."""

    partition: str
    n_bins: int
    n_classes: int
    q: float                        # prior P(member) of the audited records
    q_source: str
    min_part_records: int
    global_params: btta.BTTAParams  # fallback for thin parts
    parts: np.ndarray               # (P,) part ids seen in the shadow data, sorted
    counts: np.ndarray              # (P, 2, 2) shadow counts [part, correct, member]
    n_in: int                       # shadow members
    n_out: int                      # shadow non-members

    def estimated(self) -> np.ndarray:
        """(P,) bool: parts with enough shadow records to use their own parameters."""
        return self.counts.sum(axis=(1, 2)) >= self.min_part_records

    def posterior_table(self) -> tuple[np.ndarray, np.ndarray]:
        """(P, 2) P(member | part, correctness) and the (P, 2) decisions (ties → member)."""
        q = self.q
        a = q * self.counts[:, :, 1] / self.n_in           # q·P(part, c | member)
        b = (1 - q) * self.counts[:, :, 0] / self.n_out    # (1 − q)·P(part, c | non-member)
        part_a, part_b = a.sum(axis=1), b.sum(axis=1)
        q_part = np.divide(part_a, part_a + part_b, out=np.full(part_a.shape, q),
                           where=(part_a + part_b) > 0)
        empty = (a + b) <= 0
        post = np.divide(a, a + b, out=np.broadcast_to(q_part[:, None], a.shape).copy(),
                         where=~empty)
        decide = np.where(empty, post >= 0.5, a >= b)
        # Parts too thin for their own estimate use the global BTTA (by correctness).
        g_post = btta.posteriors(self.global_params)
        g_dec = btta.decision_rule(self.global_params)
        thin = ~self.estimated()
        post[thin] = [g_post[1], g_post[0]]                # column 0 = wrong, 1 = correct
        decide[thin] = [g_dec[1], g_dec[0]]
        return post, decide

    def part_parameters(self, max_parts: int = 2000) -> list[dict]:
        """Per part: shadow counts, p0_i, p1_i, q_i, case, whether it fell back (JSON)."""
        comps = components(self.partition, self.n_classes, self.n_bins)
        est = self.estimated()
        rows = []
        for j, pid in enumerate(self.parts[:max_parts]):
            c = self.counts[j]
            n_in_i, n_out_i = int(c[:, 1].sum()), int(c[:, 0].sum())
            p0 = c[1, 1] / n_in_i if n_in_i else None
            p1 = c[1, 0] / n_out_i if n_out_i else None
            a, b = self.q * n_in_i / self.n_in, (1 - self.q) * n_out_i / self.n_out
            row = {"part": describe_part(int(pid), comps, self.n_classes, self.n_bins),
                   "shadow_members": n_in_i, "shadow_non_members": n_out_i,
                   "p0_train_accuracy": None if p0 is None else float(p0),
                   "p1_test_accuracy": None if p1 is None else float(p1),
                   "q_part": float(a / (a + b)) if a + b > 0 else None,
                   "uses_global_btta": bool(not est[j])}
            if est[j] and p0 is not None and p1 is not None:
                row["case"] = btta.case(btta.BTTAParams(float(p0), float(p1), row["q_part"]))
            rows.append(row)
        return rows


def fit(shadow: ModelOutputs, partition: str = "PPL", *, n_bins: int = DEFAULT_BINS,
        q: float | None = None, min_part_records: int = MIN_PART_RECORDS) -> CBTTAModel:
    """Estimate CBTTA's per-part parameters from shadow outputs with known membership."""
    member = shadow.require_membership("shadow outputs for CBTTA")
    _parse(partition)
    ids, _ = part_ids(shadow.probs, shadow.labels, partition, n_bins)
    c = correct(shadow.probs, shadow.labels).astype(np.int64)
    parts, inv = np.unique(ids, return_inverse=True)
    counts = np.zeros((parts.size, 2, 2), dtype=np.int64)
    np.add.at(counts, (inv, c, member.astype(np.int64)), 1)
    q_val = float(member.mean()) if q is None else float(q)
    return CBTTAModel(partition=partition, n_bins=int(n_bins), n_classes=shadow.n_classes,
                      q=q_val, q_source="shadow member share" if q is None else "given",
                      min_part_records=int(min_part_records),
                      global_params=btta.params_from_counts(c.astype(bool), member, q_val),
                      parts=parts, counts=counts, n_in=int(member.sum()),
                      n_out=int((~member).sum()))


def attack(target: ModelOutputs, model: CBTTAModel) -> AttackOutcome:
    """CBTTA on the audited outputs: locate each record's part, apply that part's BTTA.

    Score = P(member | part, correctness) under the shadow estimates; decision = Alg. 1 in the
    part (threshold ½, ties → member). Records in parts the shadow data never showed use the
    global BTTA.
    """
    if target.n_classes != model.n_classes:
        raise ValueError("target and shadow outputs have different numbers of classes")
    ids, _ = part_ids(target.probs, target.labels, model.partition, model.n_bins)
    c = correct(target.probs, target.labels).astype(np.int64)
    post, decide = model.posterior_table()
    pos = np.searchsorted(model.parts, ids)
    pos_c = np.clip(pos, 0, max(model.parts.size - 1, 0))
    seen = (pos < model.parts.size) & (model.parts[pos_c] == ids) if model.parts.size else \
        np.zeros(ids.size, dtype=bool)
    g_scores, g_dec = btta.scores_from_correctness(c.astype(bool), model.global_params)
    scores = np.where(seen, post[pos_c, c], g_scores)
    decisions = np.where(seen, decide[pos_c, c], g_dec)
    # Keep "score ≥ ½ ⇔ decision" exact (a rounded posterior could sit on ½).
    below = np.nextafter(0.5, 0.0)
    scores = np.where(decisions, np.maximum(scores, 0.5), np.minimum(scores, below))
    comps = _parse(model.partition)
    est = model.estimated()
    details = {
        "paper": "001 §CBTTA, Thm 3",
        "partition": model.partition,
        "partition_words": " × ".join(PARTITION_LABELS[p] for p in comps),
        "n_bins": model.n_bins,
        "q_prior": model.q,
        "q_source": model.q_source,
        "parameter_source": "shadow models",
        "min_part_records": model.min_part_records,
        "n_parts": int(model.parts.size),
        "n_parts_estimated": int(est.sum()),
        "n_parts_global_fallback": int((~est).sum()),
        "target_records_in_unseen_parts": int((~seen).sum()),
        "target_records_in_fallback_parts": int(np.sum(seen & ~est[pos_c])),
        "global_parameters": model.global_params.to_dict(),
        "parts": model.part_parameters(),
    }
    if "PTL" in comps and "PPL" in comps:
        details["warning"] = ("true label × predicted label gives parts with accuracy 0 or 1; "
                              "paper 001 advises against it (BTTA becomes Take-the-Typical in "
                              "each part)")
    name = "cbtta_" + model.partition.lower().replace("+", "_")
    label = f"Categorical BTTA, partition {model.partition} (paper 001 §CBTTA)"
    return AttackOutcome(name, label, scores, 0.5, details, decisions=decisions)
