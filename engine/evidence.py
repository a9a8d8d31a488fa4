"""Only evidence raises a verdict level (issue 32 item 2): one-sided tests, Holm's correction.

Before this module the verdict read the *largest* point estimate over every attack run. With
m attacks, the largest of m noisy figures sits above chance by luck alone far more often than
1 time in 20 (the issue's release under overwhelming noise judged MEDIUM on a 60 % score whose
own interval held 50 %). Now a figure may raise the level only when the data show it beats its
baseline after allowing for the number of figures tried:

* each figure that can raise a level gets a **one-sided p-value** that is the exact inversion
  of the interval the pages already show (ARCHITECTURE §5): "p < 2.5 %" ⇔ "its 95 % interval
  lies above the baseline". Balanced accuracy vs ½ (Clopper–Pearson with equal classes, MOVER
  otherwise: :func:`engine.metrics.accuracy_p_value`); the TPR at the policy's false-alarm
  rate t vs t, for measurable rows (order statistic + Clopper–Pearson:
  :func:`engine.metrics.tpr_p_value`); a count-table attribute attack's top-1 accuracy vs the
  chance 1/|V| of paper 003's game (exact binomial — the game draws each target's value
  uniformly); and, where an attack entry carries ``details["real_people"]["p_value"]``, its
  test against the obvious guess on the people's real values (issue 32 item 1);
* **Holm's step-down procedure** (Holm 1979, Scand. J. Statist. 6:65) over the family of
  every such figure of every attack that reads the release (release-free baselines such as the
  data-only guess are what the attacks are compared with, not members of the family), at the
  family-wise one-sided level α = (1 − confidence)/2 — 2.5 % for the 95 % intervals shown.
  Holm needs no assumption about how the attacks' figures are correlated (they are: the
  attacks read the same trials);
* the level is :meth:`engine.policy.VerdictPolicy.level` of the **counted** figures only,
  plus the exact optimum of DP theory where the audit computes one (a proof, not a
  measurement: "computed exactly");
* how much evidence there was: :func:`detectable_gain` and :func:`size_for_gain` (exact
  binomial power) say what gain this many trials would detect and how many a gain of 10 points
  takes; a result too small to rule out medium risk says so, with the size that would.

Qt-free; every figure is computed from counts stored at evaluation time, never from maxima.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats

from engine.headline import headline
from engine.numbers import is_finite
from engine.policy import VerdictPolicy

METHOD = "Holm"
#: Attacks that ignore the release (the baselines the attacks are compared with): never in
#: the family, never raise a level.
RELEASE_FREE_NAMES = frozenset({"data_only", "random_guess"})
GUESSING = "guessing"
OBVIOUS_GUESS = "the obvious guess"
POWER = 0.8


# --------------------------------------------------------------------------- one test

@dataclass
class Test:
    """One figure of one attack tested against its baseline (module docstring).

    ``kind`` is the policy figure it can raise: ``"tpr"`` (TPR at the policy's false-alarm
    rate) or ``"accuracy"`` (the balanced-accuracy scale; ``level_value`` puts a top-1 or a
    real-people score on it). ``adjusted_p`` is Holm's adjusted p-value; ``counted`` is True
    when Holm rejects "no better than the baseline"."""

    attack: str
    label: str
    figure: str                  # "accuracy" | "tpr" | "top1" | "real_people"
    kind: str                    # "accuracy" | "tpr"
    value: float                 # the figure as shown (accuracy, TPR, top-1 share …)
    baseline: float              # what the baseline gets on the same figure
    baseline_words: str          # "guessing" or "the obvious guess"
    p_value: float
    level_value: float           # on the policy's scale (balanced accuracy or TPR)
    n: int | None = None         # trials behind the figure
    adjusted_p: float = 1.0
    counted: bool = False
    __test__ = False            # not a pytest test class, whatever its name

    def to_dict(self) -> dict:
        return asdict(self)


def chance_scaled(top1: float, chance: float) -> float:
    """Top-1 accuracy on the balanced scale (½ at chance 1/|V|, 1 when always right): the
    same map as the count-table audit's ``chance_corrected_accuracy``."""
    return float(0.5 + max(0.0, top1 - chance) / (2.0 * (1.0 - chance)))


def tests_of(attack: dict, policy: VerdictPolicy) -> list[Test]:
    """The tests ``attack`` contributes to the family (module docstring), from the counts and
    p-values :func:`engine.auditing.evaluate_attack` stored. A figure without its p-value
    (a result saved before issue 32) contributes nothing."""
    if not isinstance(attack, dict):
        return []
    name = str(attack.get("name"))
    label = str(attack.get("label") or name)
    d = attack.get("details") if isinstance(attack.get("details"), dict) else {}
    out: list[Test] = []
    if d.get("game") == "aia":
        # Paper 003's attribute game: the pooled (target, value) pairs are |V| dependent
        # trials per target, so neither their accuracy nor their TPR is a valid test; the
        # top-1 guess per target is one independent Bernoulli trial at chance 1/|V|.
        chance, targets = d.get("chance"), d.get("targets")
        p = d.get("top1_p_value")
        if p is None and is_finite(d.get("top1_correct")) and is_finite(chance) and targets:
            p = top1_p_value(int(d["top1_correct"]), int(targets), float(chance))
        if is_finite(p) and is_finite(d.get("top1_accuracy")) and is_finite(chance):
            out.append(Test(name, label, "top1", "accuracy", float(d["top1_accuracy"]),
                            float(chance), GUESSING, float(p),
                            chance_scaled(float(d["top1_accuracy"]), float(chance)),
                            int(targets) if is_finite(targets) else None))
    else:
        p = attack.get("accuracy_p_value")
        if is_finite(p) and is_finite(attack.get("accuracy")):
            n = (d.get("accuracy_trials") if is_finite(d.get("accuracy_trials"))
                 else attack.get("n_positive", 0) + attack.get("n_negative", 0))
            out.append(Test(name, label, "accuracy", "accuracy", float(attack["accuracy"]),
                            0.5, GUESSING, float(p), float(attack["accuracy"]), int(n)))
        for row in attack.get("tpr_at_fpr") or []:
            if not isinstance(row, dict) or not _same(row.get("fpr_target"), policy.fpr):
                continue
            if row.get("measurable", True) and is_finite(row.get("p_value")) \
                    and is_finite(row.get("tpr")):
                out.append(Test(name, label, "tpr", "tpr", float(row["tpr"]), policy.fpr,
                                GUESSING, float(row["p_value"]), float(row["tpr"]),
                                attack.get("n_positive")))
    real = d.get("real_people")
    if isinstance(real, dict) and is_finite(real.get("p_value")):
        value = real.get("accuracy")
        base = real.get("baseline", real.get("obvious_guess"))
        if isinstance(base, dict):
            base = base.get("accuracy")
        score = real.get("score")
        if not is_finite(score) and is_finite(value) and is_finite(base) and base < 1:
            score = (value - base) / (1.0 - base)
        if is_finite(value) and is_finite(base) and is_finite(score):
            out.append(Test(name, label, "real_people", "accuracy", float(value), float(base),
                            OBVIOUS_GUESS, float(real["p_value"]),
                            0.5 + max(0.0, float(score)) / 2.0,
                            real.get("n") if is_finite(real.get("n")) else None))
    return out


def _same(a, b) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-15)
    except (TypeError, ValueError):
        return False


def top1_p_value(correct: int, targets: int, chance: float) -> float:
    """P[Bin(targets, chance) ≥ correct]: the exact one-sided test that the top-1 guess
    beats chance (inverts the Clopper–Pearson interval shown beside it)."""
    if targets <= 0:
        return 1.0
    return float(min(1.0, stats.binom.sf(correct - 1, targets, chance)))


# --------------------------------------------------------------------------- Holm

def holm(p_values, alpha: float) -> tuple[list[float], list[bool]]:
    """Holm's step-down procedure: adjusted p-values and which hypotheses are rejected at
    family-wise level ``alpha`` (Holm 1979). The i-th smallest p (0-based) is compared with
    α/(m − i); the first that fails stops the procedure. Adjusted p = the running maximum of
    min(1, (m − i) p_(i)); rejected ⇔ adjusted p ≤ α."""
    p = [float(v) for v in p_values]
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted, [a <= alpha for a in adjusted]


# --------------------------------------------------------------------------- power

def _critical_count(n: int, p0: float, alpha: float) -> int | None:
    """Smallest k with P[Bin(n, p0) ≥ k] ≤ α (None when even n successes are not enough)."""
    k = int(stats.binom.isf(alpha, n, p0)) + 1
    while k > 0 and stats.binom.sf(k - 2, n, p0) <= alpha:
        k -= 1
    while k <= n and stats.binom.sf(k - 1, n, p0) > alpha:
        k += 1
    return k if k <= n else None


def detectable_gain(n: int, p0: float, alpha_per_test: float,
                    power: float = POWER) -> float | None:
    """The smallest gain g such that an attack whose true success rate is p0 + g beats p0 in
    an exact one-sided binomial test at level ``alpha_per_test`` with probability ≥ ``power``
    on ``n`` trials (None when no gain can: n too small). The k* successes needed come from
    the null; the power P[Bin(n, p) ≥ k*] increases in p, so p is found by bisection."""
    if n is None or n < 1:
        return None
    k = _critical_count(int(n), p0, alpha_per_test)
    if k is None:
        return None
    lo, hi = p0, 1.0
    if stats.binom.sf(k - 1, n, hi) < power:
        return None
    # Three vectorised grid refinements (each 1/512 of the last bracket): the same answer as
    # a bisection to ~1e-8, in three calls instead of sixty.
    for _ in range(3):
        grid = np.linspace(lo, hi, 513)
        ok = np.nonzero(stats.binom.sf(k - 1, n, grid) >= power)[0]
        first = int(ok[0])
        lo, hi = float(grid[max(first - 1, 0)]), float(grid[first])
    return float(hi - p0)


def size_for_gain(gain: float, p0: float, alpha_per_test: float, power: float = POWER,
                  n_max: int = 10_000_000) -> int | None:
    """About how many trials detect ``gain`` (:func:`detectable_gain` ≤ gain): doubling, then
    bisection. The binomial's discreteness makes the detectable gain a slightly saw-toothed
    function of n, so the answer is "about" this many (the texts say so)."""
    if not 0 < gain < 1 - p0:
        return None

    def ok(n):
        g = detectable_gain(n, p0, alpha_per_test, power)
        return g is not None and g <= gain

    hi = 8
    while not ok(hi):
        hi *= 2
        if hi > n_max:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


# --------------------------------------------------------------------------- the weighing

@dataclass
class Evidence:
    """What :func:`weigh` decided: every test with its Holm-adjusted p-value, the counted
    figures (maxima over counted tests, on the policy's scales), the exact figures of theory
    used, and how much evidence there was (module docstring)."""

    alpha: float
    tests: list[Test]
    counted_tpr: float | None = None
    counted_tpr_from: str | None = None
    counted_accuracy: float | None = None
    counted_accuracy_from: str | None = None
    exact: list[dict] = field(default_factory=list)
    n: int | None = None
    units: str = "trials"
    detectable_gain: float | None = None
    size_for_10_points: int | None = None
    size_for_medium: int | None = None
    undecided: bool = False
    sentence: str = ""

    @property
    def m(self) -> int:
        return len(self.tests)

    @property
    def counted(self) -> list[str]:
        """Names of the attacks with at least one counted figure, in test order."""
        seen: list[str] = []
        for t in self.tests:
            if t.counted and t.attack not in seen:
                seen.append(t.attack)
        return seen

    def counted_pairs(self) -> dict[tuple[str, str], float]:
        """{(attack, "tpr" | "accuracy"): its largest counted value on the policy's scale}:
        what :func:`engine.headline.headline` reads as ``counted``."""
        out: dict[tuple[str, str], float] = {}
        for t in self.tests:
            if t.counted:
                key = (t.attack, t.kind)
                out[key] = max(out.get(key, -1.0), t.level_value)
        return out

    def cannot_tell(self) -> list[str]:
        """Names of the attacks none of whose figures beat the baseline after correction."""
        counted = set(self.counted)
        seen: list[str] = []
        for t in self.tests:
            if t.attack not in counted and t.attack not in seen:
                seen.append(t.attack)
        return seen

    def to_dict(self) -> dict:
        return {"method": METHOD, "alpha": self.alpha, "m": self.m,
                "tests": [t.to_dict() for t in self.tests], "counted": self.counted,
                "cannot_tell": self.cannot_tell(), "exact": list(self.exact), "n": self.n,
                "units": self.units, "detectable_gain": self.detectable_gain,
                "size_for_10_points": self.size_for_10_points,
                "size_for_medium": self.size_for_medium, "undecided": self.undecided,
                "sentence": self.sentence}


def family_alpha(confidence: float) -> float:
    """The family-wise one-sided level that matches the two-sided intervals shown."""
    return (1.0 - float(confidence)) / 2.0


def weigh(attacks: Iterable[dict], policy: VerdictPolicy, *, alpha: float = 0.025,
          exclude: Iterable[str] = RELEASE_FREE_NAMES,
          hypotheses_of: Callable[[dict, VerdictPolicy], list[Test]] = tests_of,
          optimum_tpr: float | None = None, optimum_accuracy: float | None = None,
          optimum_label: str = "the best possible attacker (computed exactly)",
          units: str = "trials") -> Evidence:
    """Holm over every test of every attack not in ``exclude``; the counted figures; the
    exact optimum of theory where given; how much evidence (module docstring)."""
    skip = set(exclude)
    attacks = [a for a in attacks if isinstance(a, dict) and a.get("name") not in skip]
    tests = [t for a in attacks for t in hypotheses_of(a, policy)]
    adjusted, rejected = holm([t.p_value for t in tests], alpha)
    for t, adj, rej in zip(tests, adjusted, rejected, strict=True):
        t.adjusted_p, t.counted = float(adj), bool(rej)
    ev = Evidence(alpha=float(alpha), tests=tests, units=units)
    for t in tests:
        if not t.counted:
            continue
        if t.kind == "tpr" and (ev.counted_tpr is None or t.level_value > ev.counted_tpr):
            ev.counted_tpr, ev.counted_tpr_from = t.level_value, t.label
        if t.kind == "accuracy" and (ev.counted_accuracy is None
                                     or t.level_value > ev.counted_accuracy):
            ev.counted_accuracy, ev.counted_accuracy_from = t.level_value, t.label
    if is_finite(optimum_tpr):
        ev.exact.append({"figure": "tpr", "value": float(optimum_tpr), "label": optimum_label})
    if is_finite(optimum_accuracy):
        ev.exact.append({"figure": "accuracy", "value": float(optimum_accuracy),
                         "label": optimum_label})
    _how_much(ev, policy)
    return ev


def _how_much(ev: Evidence, policy: VerdictPolicy) -> None:
    """n, the detectable gain, the sizes and the sentence of ``ev`` (module docstring). The
    power is that of the first Holm step (α/m), the strictest one, for an accuracy-type
    figure of the attack with the most trials (an attribute attack: its top-1 vs chance)."""
    acc_tests = [t for t in ev.tests if t.kind == "accuracy" and t.figure != "real_people"
                 and t.n]
    m = max(ev.m, 1)
    per_test = ev.alpha / m
    if acc_tests:
        ref = max(acc_tests, key=lambda t: t.n)
        ev.n, p0 = int(ref.n), ref.baseline
        ev.detectable_gain = detectable_gain(ev.n, p0, per_test)
        ev.size_for_10_points = size_for_gain(0.10, p0, per_test)
        # The gain in this figure that puts an attack at the policy's medium line.
        # (a top-1 share: the balanced scale's ½ → 1 is chance → 1 in the share).
        medium = policy.medium_accuracy - 0.5
        if ref.figure == "top1":
            medium *= 2.0 * (1.0 - p0)
        ev.undecided = ev.detectable_gain is None or ev.detectable_gain > medium + 1e-12
        if ev.undecided:
            ev.size_for_medium = size_for_gain(medium, p0, per_test)
    counted = [t for t in ev.tests if t.counted]
    baseline = (f"{GUESSING} or {OBVIOUS_GUESS}"
                if any(t.baseline_words == OBVIOUS_GUESS for t in ev.tests) else GUESSING)
    tests_words = f"{ev.m} test{'s' if ev.m != 1 else ''}"
    parts: list[str] = []
    if not ev.tests:
        parts.append("No attack figure could be tested against guessing, so no measured "
                     "attack raises the level.")
    elif counted:
        parts.append(f"{len(counted)} of {tests_words} beat {baseline} after correcting for "
                     f"the number of tests; the level rests on them.")
    else:
        with_n = f" with {ev.n:,} {ev.units}" if ev.n else ""
        parts.append(f"No attack did measurably better than {baseline}{with_n} "
                     f"({tests_words}).")
        if ev.size_for_10_points:
            parts[-1] = parts[-1][:-1] + (f"; about {ev.size_for_10_points:,} would detect a "
                                          "gain of 10 points.")
    if ev.exact:
        parts.append("The best possible attacker's figures are computed exactly, not "
                     "measured, so they count without a test.")
    if ev.undecided and not counted and not ev.exact:
        if ev.size_for_medium:
            parts.append(f"That is too few to rule out medium risk: it takes about "
                         f"{ev.size_for_medium:,} {ev.units} to detect an attack at the "
                         "medium line.")
        else:
            parts.append("That is too few to rule out medium risk.")
    ev.sentence = " ".join(parts)


# --------------------------------------------------------------------------- the verdict

def verdict_block(attacks: list[dict], policy: VerdictPolicy, *, confidence: float = 0.95,
                  accuracy_of: Callable[[dict], float | None] | None = None,
                  accuracy_words: str | Callable = "The attacker is right {:.1%} of the time",
                  optimum_tpr: float | None = None, optimum_accuracy: float | None = None,
                  optimum_label: str = "the best possible attacker (exact theory)",
                  exclude: Iterable[str] = RELEASE_FREE_NAMES, units: str = "trials",
                  quoted: list[dict] | None = None,
                  members: tuple[str, str] = ("the people present", "the people absent")):
    """The ``verdict`` dict of a result, its headline and the evidence, for every audit type:
    the level from counted figures (and exact theory) only, the reasons that decided it, the
    headline attack (counted attacks first) and ``verdict.evidence``.

    ``quoted``: the attacks the headline may name (default: ``attacks`` less ``exclude``).
    ``accuracy_words``: the accuracy's sentence for :meth:`VerdictPolicy.level`, or a
    function of the headline giving it (whose attack gave the counted accuracy decides the
    words). Returns ``(verdict, head, evidence)``."""
    ev = weigh(attacks, policy, alpha=family_alpha(confidence), exclude=exclude,
               optimum_tpr=optimum_tpr, optimum_accuracy=optimum_accuracy,
               optimum_label=optimum_label, units=units)
    skip = set(exclude)
    pool = quoted if quoted is not None else (
        [a for a in attacks if a.get("name") not in skip] or attacks)
    head = headline(pool, policy, accuracy_of=accuracy_of, optimum_tpr=optimum_tpr,
                    optimum_accuracy=optimum_accuracy, optimum_label=optimum_label,
                    counted=ev.counted_pairs())
    tpr = head.verdict_tpr_measured
    acc = head.verdict_accuracy
    if tpr is None and ev.counted_accuracy is None and not ev.exact:
        level, reasons = "low", [ev.sentence]
    else:
        words = accuracy_words(head) if callable(accuracy_words) else accuracy_words
        level, reasons = policy.level(tpr, acc, words, members)
        if tpr is None:
            # policy.level's last reason says the rate "could not be measured"; keep it only
            # when that is so, else say the measured rates did not beat guessing.
            measurable = any(t.kind == "tpr" for t in ev.tests)
            if measurable:
                reasons[-1] = (f"No attack's share of people spotted while wrongly accusing "
                               f"{policy.fpr:.0%} of the others beat guessing after "
                               "correction, so the level rests on how often the attacker "
                               "is right.")
        reasons.append(ev.sentence)
    verdict = {"level": level, "policy": policy.name, "policy_rules": policy.rules(),
               "reasons": reasons, "headline": head.to_dict(), "evidence": ev.to_dict()}
    return verdict, head, ev


def evidence_of(result: Mapping) -> dict | None:
    """The stored ``verdict.evidence`` of a result, or None (a result saved before issue 32:
    the pages then say nothing about evidence)."""
    v = result.get("verdict") if isinstance(result, Mapping) else None
    ev = v.get("evidence") if isinstance(v, Mapping) else None
    return ev if isinstance(ev, Mapping) and isinstance(ev.get("tests"), list) else None
