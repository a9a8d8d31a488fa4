"""The words, types and shared readings of the Article 29 frame (engine.findings.article29's
module docstring): the three risks and their levels, :class:`RiskFinding` and
:class:`DpiaItem`, and the helpers every audit's mapping (engine.findings.risks) reads a
result with — whether an attack beat its baseline, how a figure with its interval is said, and
what a result's size could have seen."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.evidence import detectable_gain
from engine.headline import headline_of_result
from engine.numbers import is_finite
from engine.policy import VerdictPolicy
from engine.results.blocks import AttackEntry, Evidence, ExactAttacker
from engine.results.loaded import LoadedResult
from engine.wording import attack_words

SINGLING_OUT, LINKABILITY, INFERENCE = "singling_out", "linkability", "inference"
RISKS = (SINGLING_OUT, LINKABILITY, INFERENCE)
RISK_LABELS = {SINGLING_OUT: "Singling out", LINKABILITY: "Linkability",
               INFERENCE: "Inference"}
#: WP216 §3's three criteria (Annex A's definitions), in plain words.
RISK_MEANINGS = {
    SINGLING_OUT: "isolating some or all of the records of one person",
    LINKABILITY: "linking records of the same person, within the release or with other data "
                 "(here: telling whether a known person is in the release)",
    INFERENCE: "deducing, with significant probability, a person's value of one attribute "
               "from their other attributes",
}
FOUND, NOT_FOUND, NOT_TESTED = "found", "not_found", "not_tested"
LEVEL_LABELS = {FOUND: "Found, with evidence", NOT_FOUND: "Not found at this size",
                NOT_TESTED: "Not tested by this audit"}
#: The release-free guesses (engine.evidence.RELEASE_FREE_NAMES): baselines, never findings.
BASELINE_NAMES = frozenset({"data_only", "random_guess"})


@dataclass(frozen=True)
class RiskFinding:
    """One WP216 risk as this audit found it: the risk's key and label, the level, one plain
    sentence, the figures behind it as (label, value in words) pairs and the names of the
    attacks they come from."""

    risk: str
    label: str
    level: str
    sentence: str
    figures: tuple[tuple[str, str], ...] = ()
    source_attacks: tuple[str, ...] = ()

    @property
    def level_label(self) -> str:
        """"Found, with evidence", "Not found at this size" or "Not tested by this audit"."""
        return LEVEL_LABELS[self.level]

    @property
    def meaning(self) -> str:
        """What WP216 means by the risk, in plain words."""
        return RISK_MEANINGS[self.risk]

    def as_text(self) -> str:
        """The finding as plain text (the results page's "Copy as text")."""
        lines = [f"{self.label}: {self.level_label}.", f"  {self.sentence}"]
        lines += [f"  - {label}: {value}" for label, value in self.figures]
        return "\n".join(lines)


@dataclass(frozen=True)
class DpiaItem:
    """One thing a DPIA needs from this audit: what it is (``label``) and what the audit says."""

    label: str
    text: str


def finding(risk: str, level: str, sentence: str, figures: Iterable = (),
            sources: Iterable = ()) -> RiskFinding:
    """A :class:`RiskFinding` of ``risk`` with its label."""
    return RiskFinding(risk, RISK_LABELS[risk], level, sentence, tuple(figures), tuple(sources))


def not_tested(risk: str, why: str, figures: Iterable = ()) -> RiskFinding:
    return finding(risk, NOT_TESTED, why, figures)


# --------------------------------------------------------------------------- the context

@dataclass(frozen=True)
class Context:
    """What every mapping reads: the loaded result, its policy and confidence, and the
    verdict's evidence (engine.evidence; None for a result saved before issue 32)."""

    result: LoadedResult
    policy: VerdictPolicy
    confidence: float
    evidence: Evidence | None
    # The attack the verdict's headline quotes (engine.headline): quoted first for a risk
    # it speaks to, so the three risks and the verdict name one strongest attack.
    headline_name: str | None = None

    @classmethod
    def of(cls, result: LoadedResult) -> Context:
        pol = result.config.get("policy")
        try:
            policy = VerdictPolicy.from_dict(pol) if isinstance(pol, dict) else VerdictPolicy()
        except Exception:  # noqa: BLE001 - a damaged policy block reads as the default
            policy = VerdictPolicy()
        conf = result.config.get("confidence")
        head = headline_of_result(result)
        v = result.verdict
        return cls(result=result, policy=policy,
                   confidence=float(conf) if is_finite(conf) and 0 < conf < 1 else 0.95,
                   evidence=v.evidence_block if v is not None else None,
                   headline_name=head.name if head is not None else None)

    @property
    def tested(self) -> frozenset:
        """The attacks the verdict's evidence tested."""
        return frozenset(t.attack for t in self.evidence.tests) if self.evidence else frozenset()

    @property
    def counted(self) -> frozenset:
        """The attacks with a figure that beat its baseline after Holm's correction."""
        return (frozenset(t.attack for t in self.evidence.tests if t.counted)
                if self.evidence else frozenset())

    @property
    def alpha(self) -> float:
        """The one-sided level of Holm's first step (the strictest): what a single figure had
        to pass to be counted (α / m; α = (1 − confidence)/2 without evidence)."""
        ev = self.evidence
        alpha = ev.alpha if ev is not None and is_finite(ev.alpha) else (1 - self.confidence) / 2
        return alpha / max(ev.m if ev is not None and ev.m else 1, 1)


# --------------------------------------------------------------------------- words

def pct(v) -> str:
    return f"{v:.1%}" if is_finite(v) else "—"


def with_ci(v, ci, ctx: Context, digits: str = "%") -> str:
    """"85.0 % (95 % interval 45.7 % to 88.1 %)" (``digits`` "2": a score to two places), or
    the value alone when there is no interval."""
    def one(x):
        return f"{x:.2f}" if digits == "2" else pct(x)
    text = one(v) if is_finite(v) else "—"
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(is_finite(x) for x in ci):
        text += f" ({ctx.confidence:.0%} interval {one(ci[0])} to {one(ci[1])})"
    return text


def plain(a: AttackEntry) -> str:
    """The attack's plain name (engine.wording)."""
    return attack_words(a.name, a.label).plain_name


def live(entries: Iterable[AttackEntry]) -> list[AttackEntry]:
    """Attacks that read the release and could be read (baselines and damaged ones left out)."""
    return [a for a in entries if a.problem is None and a.name not in BASELINE_NAMES]


def interval_above(ci, baseline) -> bool:
    """Whether an interval's lower end lies above ``baseline``."""
    return bool(isinstance(ci, (list, tuple)) and len(ci) == 2 and is_finite(ci[0])
                and is_finite(baseline) and ci[0] > baseline)


def beats(ctx: Context, a: AttackEntry, chance: float | None = None,
          top1_ci=None) -> tuple[bool, bool]:
    """(whether ``a`` beat its baseline, whether that is the verdict's corrected test). An
    attack the verdict tested counts when Holm counted it (engine.evidence); one it did not
    test (a result from before issue 32) when its interval lies above the baseline: the top-1
    interval above chance for an attribute attack, else the balanced accuracy's above ½ or the
    measurable TPR's above the policy's false-alarm rate."""
    if a.name in ctx.tested:
        return a.name in ctx.counted, True
    if chance is not None:
        return interval_above(top1_ci, chance), False
    if interval_above(a.accuracy_ci, 0.5):
        return True, False
    row = a.tpr_at(ctx.policy.fpr)
    return (row is not None and row.measured_tpr is not None
            and interval_above(row.tpr_ci, ctx.policy.fpr)), False


def tested_words(corrected: bool, ctx: Context) -> str:
    """How the figure was judged, for the sentence."""
    if corrected and ctx.evidence is not None:
        m = ctx.evidence.m
        return (f"it counts after correcting for the {m} test{'s' if m != 1 else ''} the "
                "verdict weighed")
    return "its interval lies above the baseline, not corrected for the number of attacks run"


def trials(a: AttackEntry) -> int | None:
    """The test cases behind an attack's accuracy."""
    n = a.details.get("accuracy_trials") if isinstance(a.details, dict) else None
    if is_finite(n):
        return int(n)
    if is_finite(a.n_positive) and is_finite(a.n_negative):
        return int(a.n_positive + a.n_negative)
    return None


def size_words(ctx: Context, n: int | None, baseline: float, units: str,
               baseline_words: str = "guessing", doing: str = "be right") -> str:
    """What this many trials could have seen: "With 2,000 trials, an attack would have had to
    be right at least 53.1 % of the time (guessing: 50.0 %) to be seen, so …" — why a risk
    not found is not a risk ruled out (engine.evidence.detectable_gain at 80 % power, at the
    level of Holm's first step)."""
    if not n:
        return "This is not evidence that the risk is absent."
    gain = detectable_gain(int(n), float(baseline), ctx.alpha)
    if gain is None:
        return (f"With {int(n):,} {units}, even a perfect attack could not have been told from "
                f"{baseline_words}, so this is not evidence that the risk is absent.")
    return (f"With {int(n):,} {units}, an attack would have had to {doing} at least "
            f"{baseline + gain:.1%} of the time ({baseline_words}: {baseline:.1%}) to be "
            "seen, so this is not evidence that the risk is absent.")


def strongest(ctx: Context, entries: list[AttackEntry]) -> AttackEntry | None:
    """The attack quoted for a risk: one that beat its baseline first, then the verdict's
    headline attack, then the higher balanced accuracy."""
    if not entries:
        return None
    return max(entries, key=lambda a: (beats(ctx, a)[0], a.name == ctx.headline_name,
                                       a.accuracy if is_finite(a.accuracy) else -1.0))


def membership_figures(ctx: Context, a: AttackEntry) -> list[tuple[str, str]]:
    """An attack of a membership game: how often it is right, and the share of people present
    it spots at the policy's false-alarm rate (or that this cannot be measured)."""
    fpr = ctx.policy.fpr
    out = [(f"{plain(a)}: right (guessing: 50%)", with_ci(a.accuracy, a.accuracy_ci, ctx))]
    row = a.tpr_at(fpr)
    if row is not None and row.measured_tpr is not None:
        out.append((f"{plain(a)}: people present spotted while wrongly accusing {fpr:.0%} "
                    "of the others", with_ci(row.measured_tpr, row.tpr_ci, ctx)))
    elif row is not None:
        out.append((f"{plain(a)}: people present spotted at {fpr:.0%} false alarms",
                    "not measurable (too few test cases without the person)"))
    return out


def exact_figures(ex: ExactAttacker | None, fpr: float, who: str) -> list[tuple[str, str]]:
    """An exact attacker of DP theory: how often it is right and its TPR at ``fpr``."""
    if ex is None:
        return []
    out = [(f"{who}: right", pct(ex.accuracy))]
    tpr = ex.tpr_at(fpr)
    if is_finite(tpr):
        out.append((f"{who}: people present spotted at {fpr:.0%} false alarms", pct(tpr)))
    return out


def reaches_medium(ex: ExactAttacker | None, policy: VerdictPolicy) -> bool:
    """Whether an exact optimum reaches the policy's medium line (a proof, not a sample)."""
    if ex is None:
        return False
    tpr = ex.tpr_at(policy.fpr)
    return ((is_finite(ex.accuracy) and ex.accuracy >= policy.medium_accuracy)
            or (is_finite(tpr) and tpr >= policy.medium_tpr))


def membership_game(ctx: Context, entries: list[AttackEntry], *, game: str, units: str,
                    exact: ExactAttacker | None = None, exact_who: str = "",
                    extra: Iterable = ()) -> RiskFinding:
    """Linkability from a membership game (WP216 §3: a known person linked to the release):
    found when an attack beat guessing, or when the exact optimum reaches the policy's
    medium line; not found at this size otherwise; not tested without a game."""
    figures: list[tuple[str, str]] = []
    best = strongest(ctx, entries)
    won, corrected = beats(ctx, best) if best is not None else (False, False)
    if best is not None:
        figures += membership_figures(ctx, best)
    figures += exact_figures(exact, ctx.policy.fpr, exact_who)
    figures += list(extra)
    sources = (best.name,) if best is not None else ()
    if won:
        return finding(LINKABILITY, FOUND,
                       f"{game}: the {plain(best).lower()} tells whether a known person is in "
                       f"the release better than guessing: {tested_words(corrected, ctx)}.",
                       figures, sources)
    if reaches_medium(exact, ctx.policy):
        return finding(LINKABILITY, FOUND,
                       f"{game}: {exact_who[0].lower() + exact_who[1:]} is right "
                       f"{pct(exact.accuracy)} of the time — at or above the policy's medium "
                       "line. This is computed exactly for the attacker the audit assumes, "
                       "not measured.", figures, sources)
    if best is None and exact is None:
        return not_tested(LINKABILITY, "This audit ran no membership attack.", figures)
    sentence = (f"{game}: no attack could be told from guessing at this size. "
                + size_words(ctx, trials(best) if best is not None else None, 0.5, units))
    if exact is not None:
        sentence += (f" {exact_who} is right {pct(exact.accuracy)} of the time, below the "
                     "policy's medium line.")
    return finding(LINKABILITY, NOT_FOUND, sentence, figures, sources)
