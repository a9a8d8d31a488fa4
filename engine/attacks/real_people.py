"""The officer's own question beside a game's figure (issue 32 item 1): on the people's real
sensitive values, how often is the attacker's best guess right, against the obvious guess?

Why a second figure. Paper 003's attribute game (§2.3, Fig. 2) replaces each target's
sensitive value by a uniform draw, so whatever the attacker gets right beyond 1/|V| comes from
the release; that is the right scale for *the game*. An officer reads a percentage as being
about the real people, though, and on a skewed attribute (82 % "no") the obvious guess — the
most common value among the people in the data, said for everyone — already beats 1/|V|.
So each attribute attack is also scored on the release as actually published with the
people's real values, beside:

* the obvious guess: the most common value among the people in the data, for everyone;
* the data-only guess: the attacker's guess from everyone else's records alone (paper 003 §5
  baselines; engine.attacks.aggregates.data_only, or the model audit's known-features
  classifier).

Statistics, all on the same people (paired):

* accuracy k/n with a two-sided Clopper–Pearson interval;
* p_value: one-sided exact sign test (McNemar's exact test) that the attack beats the obvious
  guess: of the d people where exactly one of the two is right, the attack is right for b;
  under "no better than the obvious guess" b ~ Bin(d, ½) at most, p = P[Bin(d, ½) ≥ b];
* scaled score (accuracy − a0) / (1 − a0), a0 the obvious guess's accuracy on these people:
  0 = no better than the obvious guess, 1 = a sure answer, below 0 = worse. Its interval:
  the difference p_b − p_c (attack alone right minus obvious guess alone right) is
  q·(2π − 1), q the share of discordant people, π the attack's share among them; each gets an
  exact Clopper–Pearson interval at half the error (Bonferroni), and the difference's interval
  is the range of q·(2π − 1) over both boxes, divided by 1 − a0 (a0 is counted on these very
  people, not estimated). Conservative, so an interval above 0 always comes with p below the
  interval's one-sided error; the p-value is the sharper test (task A's Holm family reads it).

The people are the game's targets (a sample, as in the paper); nothing here draws anything.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from engine.metrics import clopper_pearson
from engine.numbers import whole_percent


def obvious_value(codes: np.ndarray, n_values: int) -> int:
    """The most common value among ``codes`` (ties: the first value in the domain's order,
    so the same data always names the same value)."""
    return int(np.argmax(np.bincount(np.asarray(codes, dtype=np.int64), minlength=n_values)))


def sign_test_p(b: int, c: int) -> float:
    """One-sided exact sign test (McNemar's exact test): P[Bin(b + c, ½) ≥ b]; 1 when no
    person separates the two guesses."""
    d = int(b) + int(c)
    if d == 0:
        return 1.0
    return float(stats.binom.sf(int(b) - 1, d, 0.5))


def difference_interval(b: int, c: int, n: int, confidence: float) -> tuple[float, float]:
    """Interval for p_b − p_c, the paired difference of two guesses' accuracies (module
    docstring): q·(2π − 1) over q's and π's Clopper–Pearson intervals at confidence
    1 − (1 − confidence)/2 each."""
    each = 1.0 - (1.0 - confidence) / 2
    d = int(b) + int(c)
    q_lo, q_hi = clopper_pearson(d, n, each)
    pi_lo, pi_hi = (0.0, 1.0) if d == 0 else clopper_pearson(int(b), d, each)
    # q·(2π − 1) is monotone in each variable, so its range is reached at the corners.
    corners = [q * (2 * p - 1) for q in (q_lo, q_hi) for p in (pi_lo, pi_hi)]
    return float(min(corners)), float(max(corners))


def real_people(correct, obvious_correct, *, obvious_label: str,
                data_only_correct=None, confidence: float = 0.95) -> dict:
    """The ``details["real_people"]`` block of an attribute attack (docs/methods/
    aggregates_audit.md "Real people"): ``correct`` and ``obvious_correct`` are (n,) booleans
    on the same people — the attack's and the obvious guess's — ``data_only_correct`` the
    data-only guess's (None when there is none)."""
    correct = np.asarray(correct, dtype=bool)
    obvious = np.asarray(obvious_correct, dtype=bool)
    n = int(correct.size)
    if n == 0 or obvious.size != n:
        raise ValueError("real_people needs the attack's and the obvious guess's results on "
                         "the same people")
    k, k0 = int(correct.sum()), int(obvious.sum())
    b = int(np.sum(correct & ~obvious))
    c = int(np.sum(~correct & obvious))
    a0 = k0 / n
    # With every person holding the obvious value nothing can beat it; the score is then the
    # plain difference (never above 0) rather than a division by zero.
    scale = 1.0 - a0 if a0 < 1.0 else 1.0
    lo, hi = difference_interval(b, c, n, confidence)
    out = {
        "n": n, "correct": k, "accuracy": k / n,
        "accuracy_ci": list(clopper_pearson(k, n, confidence)),
        "obvious_guess": {"value": str(obvious_label), "accuracy": a0, "correct": k0},
        "data_only": None,
        "scaled_score": (k - k0) / (n - k0) if k0 < n else (k - k0) / n,
        # The difference cannot fall below −a0 (the attack wrong wherever the obvious guess
        # is right) nor the score above 1; the interval is cut there.
        "scaled_score_ci": [max(lo, -a0) / scale, min(1.0, hi / scale)],
        "p_value": sign_test_p(b, c),
    }
    if data_only_correct is not None:
        d = np.asarray(data_only_correct, dtype=bool)
        out["data_only"] = {"accuracy": float(d.mean()), "correct": int(d.sum())}
    return out


def game_clause(accuracy: float, n_values: int, *, feature: str, noun: str = "person",
                what: str = "the tables") -> str:
    """The game's figure in the game's words, as a clause: what the game replaced, by what,
    and how often the attacker recovers it ("when a person's 'union' is replaced by a coin
    toss, the tables let the attacker recover the toss 60% of the time")."""
    draw, drawn = (("a coin toss", "the toss") if n_values == 2 else
                   (f"a value drawn at random among its {n_values} possible values",
                    "the drawn value"))
    return (f"when a {noun}'s '{feature}' is replaced by {draw}, {what} let the attacker "
            f"recover {drawn} {whole_percent(accuracy)} of the time")


def game_sentence(accuracy: float, n_values: int, *, feature: str, noun: str = "person",
                  what: str = "the tables", extra: str = "") -> str:
    """:func:`game_clause` as a sentence, blind guessing's rate (and ``extra``) beside it."""
    clause = game_clause(accuracy, n_values, feature=feature, noun=noun, what=what)
    inside = f"blind guessing: {whole_percent(1.0 / n_values)}" + (f"; {extra}" if extra else "")
    return f"{clause[0].upper()}{clause[1:]} ({inside})."


def beats_obvious(rp: dict) -> bool:
    """Whether the scaled score's interval lies above 0 (measurably better than the obvious
    guess); False for a block that lacks it (a damaged result file)."""
    ci = rp.get("scaled_score_ci") if isinstance(rp, dict) else None
    return (isinstance(ci, (list, tuple)) and len(ci) == 2
            and isinstance(ci[0], (int, float)) and not isinstance(ci[0], bool) and ci[0] > 0)


def real_people_sentence(rp: dict, *, feature: str, people: str = "people",
                         source: str = "the published tables") -> str:
    """The real-people figure in plain words (summary, page, report): the attack on the real
    values, the obvious guess, the data-only guess, the scaled score and what it means."""
    og, do = rp["obvious_guess"], rp.get("data_only")
    lo, hi = rp["accuracy_ci"]
    s_lo, s_hi = rp["scaled_score_ci"]
    text = (f"On the real '{feature}' of the {rp['n']:,} {people} attacked, the attacker's "
            f"best guess from {source} is right for {rp['correct']:,} "
            f"({whole_percent(rp['accuracy'])}, 95% interval {whole_percent(lo)} to "
            f"{whole_percent(hi)}); answering '{og['value']}' for everyone, the obvious guess, "
            f"is right {whole_percent(og['accuracy'])} of the time")
    if do is not None:
        text += (f", and the data-only guess from everyone else's records "
                 f"{whole_percent(do['accuracy'])}")
    text += (f". Scaled score {rp['scaled_score']:.2f} (95% interval {s_lo:.2f} to "
             f"{s_hi:.2f}), where 0 is no better than the obvious guess and 1 a sure answer: ")
    if beats_obvious(rp):
        text += "the attacker does measurably better than the obvious guess."
    else:
        text += "this cannot be told apart from the obvious guess."
    return text
