"""The one headline of an audit: which attack is the strongest, and the figures quoted for it.

Issue 19 ("one headline") and issue 20 ("one story everywhere"): the verdict banner, the
summary, the results tables, the report's cover and its body all quote the strongest attack.
When each place chose it by its own rule (the summary by AUC, the verdict by TPR, the report
by a name stored in ``theory``), the same page could name two different attacks, and a rate
that was flagged *not measurable* was still printed as a number. Every place now reads
:func:`headline`.

The rule (ARCHITECTURE §5 metric definitions; the verdict policy of :mod:`engine.policy`):

* a TPR at the policy's false-alarm rate counts only where it is *measurable* — at least
  ⌈3/t⌉ negatives (:func:`engine.metrics.min_negatives_for`); otherwise it is never printed
  as a number, and :func:`not_measurable_sentence` says what it would take;
* the strongest attack is the one whose own figures would give the highest verdict level under
  the policy; among those at the same level, the higher measurable TPR at the policy's FPR,
  then the higher balanced accuracy, then the higher AUC; a tie keeps the first listed;
* the verdict itself reads the largest measurable TPR and the largest balanced accuracy over
  every attack (and the exact optimum of theory where the audit has one), exactly as before;
  :class:`Headline` carries both, and which attack each verdict figure came from.

Qt-free and independent of any one audit type: the audits call it with their result entries
(the ARCHITECTURE §4 shape), the report and the GUI call :func:`headline_of_result` with a
saved result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass

from engine.metrics import min_negatives_for
from engine.policy import LEVELS, VerdictPolicy
from engine.wording import attack_words

# Two false-alarm rates are the same setting when they agree to this relative precision
# (configs store 0.01; a float written and read back, or 1/100 computed, must still match).
_FPR_REL_TOL = 1e-9


def same_rate(a, b) -> bool:
    """True when two false-alarm rates name the same setting."""
    try:
        return math.isclose(float(a), float(b), rel_tol=_FPR_REL_TOL, abs_tol=1e-15)
    except (TypeError, ValueError):
        return False


def tpr_at(attack: dict, fpr: float) -> dict | None:
    """The attack's TPR-at-FPR row for false-alarm rate ``fpr``, or None.

    Result entries key the rate as ``fpr_target`` (an attack: the rate its threshold was set
    for) and theory's curves as ``fpr`` (an exact rate): both are read here, so no caller
    compares floats with a bare tolerance of its own."""
    for row in attack.get("tpr_at_fpr") or []:
        if not isinstance(row, dict):
            continue
        target = row.get("fpr_target", row.get("fpr"))
        if same_rate(target, fpr):
            return row
    return None


def measurable_tpr(attack: dict, fpr: float) -> float | None:
    """The TPR at ``fpr`` when it is measurable (and a finite number), else None."""
    row = tpr_at(attack, fpr)
    if row is None or not row.get("measurable", True):
        return None
    value = row.get("tpr")
    return float(value) if _finite(value) else None


def not_measurable_sentence(n_negative, fpr: float,
                            negatives: str = "test cases without the person") -> str:
    """Why a TPR at ``fpr`` is not printed, and what it would take to measure it: a clause
    that completes "…, but " or starts a sentence once capitalised."""
    need = min_negatives_for(fpr)
    have = f"{int(n_negative):,}" if _finite(n_negative) else "fewer"
    return (f"how many it spots while wrongly accusing {fpr:.0%} of the others cannot be "
            f"measured: that takes at least {need:,} {negatives}, and the audit had {have}")


@dataclass(frozen=True)
class Headline:
    """The strongest attack and the figures every place quotes for it (module docstring).

    ``tpr`` is None when the TPR at ``fpr`` is not measurable (``tpr_measurable`` False);
    ``accuracy`` is on the policy's balanced scale (0.5 = chance). ``verdict_tpr`` and
    ``verdict_accuracy`` are the figures the verdict reads (the largest over every attack and
    the optimum of theory), with the label of what gave each (``tpr_from``, ``accuracy_from``).
    """

    fpr: float
    name: str | None = None
    label: str | None = None
    plain_name: str | None = None              # the catalogue's plain name (engine.wording)
    level: str = "low"                         # the level this attack's own figures give
    tpr: float | None = None
    tpr_ci: tuple[float, float] | None = None
    tpr_measurable: bool = False
    n_negative: int | None = None
    accuracy: float | None = None
    accuracy_ci: tuple[float, float] | None = None
    auc: float | None = None
    auc_ci: tuple[float, float] | None = None
    verdict_tpr: float = 0.0
    verdict_accuracy: float = 0.5
    tpr_from: str | None = None
    accuracy_from: str | None = None
    # False when the quoted attack beat none of its baselines after Holm's correction
    # (engine.evidence, issue 32 item 2): it is then "cannot be told from guessing". True for
    # a headline built without evidence (a result saved before issue 32).
    distinguishable: bool = True

    @property
    def found(self) -> bool:
        """False when no attack was run (nothing to quote)."""
        return self.name is not None

    @property
    def verdict_tpr_measured(self) -> float | None:
        """The verdict's TPR, or None when neither an attack nor theory measured one."""
        return self.verdict_tpr if self.tpr_from is not None else None

    def short_label(self) -> str:
        """The attack's plain name (engine.wording's catalogue; issue 20 "plain words
        first"): the technical label stays in ``label`` for the methods appendix."""
        if self.plain_name:
            return self.plain_name
        return attack_words(self.name, self.label).plain_name if self.found else ""

    def tpr_text(self) -> str:
        """"spots 12.0 % of … while wrongly accusing 1 %" or why it cannot be said."""
        if self.tpr is None:
            return not_measurable_sentence(self.n_negative, self.fpr)
        return f"spots {self.tpr:.1%} of them while wrongly accusing {self.fpr:.0%} of the others"

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("tpr_ci", "accuracy_ci", "auc_ci"):
            if d[k] is not None:
                d[k] = list(d[k])
        return d


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def _interval(value) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(_finite(v) for v in value):
        return float(value[0]), float(value[1])
    return None


def headline(attacks: Iterable[dict], policy: VerdictPolicy, *,
             accuracy_of: Callable[[dict], float | None] | None = None,
             optimum_tpr: float | None = None, optimum_accuracy: float | None = None,
             optimum_label: str = "the best possible attacker (exact theory)",
             counted: Mapping | frozenset | None = None) -> Headline:
    """The strongest of ``attacks`` by ``policy`` and the verdict's figures (module docstring).

    ``accuracy_of`` maps an attack to its accuracy on the policy's balanced scale (default: its
    ``accuracy``; the count-table audit puts top-1 accuracy on that scale). ``optimum_tpr`` /
    ``optimum_accuracy``: the exact optimal attacker of DP theory, where the audit computes it;
    it counts for the verdict, not as the quoted attack.

    ``counted`` (engine.evidence, issue 32 item 2): the figures that beat their baseline after
    Holm's correction, as ``{(attack name, "tpr" | "accuracy"): value on the policy's scale}``
    (a set of such pairs reads the values from the attacks). When given, the verdict figures
    are the maxima over counted figures only (plus theory's optimum), and an attack with a
    counted figure ranks before every attack without one. ``None`` keeps the rule of the
    module docstring (a result saved before issue 32).
    """
    acc_of = accuracy_of or (lambda a: a.get("accuracy"))
    if counted is not None and not isinstance(counted, Mapping):
        counted = {pair: None for pair in counted}
    counted_names = {name for name, _ in counted} if counted is not None else set()
    fpr = policy.fpr
    best, best_key = None, None
    verdict_tpr, tpr_from = 0.0, None
    verdict_acc, acc_from = 0.5, None
    for a in attacks:
        if not isinstance(a, dict):
            continue
        tpr = measurable_tpr(a, fpr)
        acc = acc_of(a)
        acc = float(acc) if _finite(acc) else None
        label = a.get("label") or a.get("name")
        v_tpr, v_acc = tpr, acc
        if counted is not None:
            v_tpr = _counted_value(counted, a.get("name"), "tpr", tpr)
            v_acc = _counted_value(counted, a.get("name"), "accuracy", acc)
        if v_tpr is not None and (tpr_from is None or v_tpr > verdict_tpr):
            verdict_tpr, tpr_from = v_tpr, label
        if v_acc is not None and (acc_from is None or v_acc > verdict_acc):
            verdict_acc, acc_from = v_acc, label
        level = policy.level(tpr or 0.0, acc if acc is not None else 0.5)[0]
        auc = a.get("auc")
        key = ((a.get("name") in counted_names,) if counted is not None else ()) + (
               LEVELS.index(level), -1.0 if tpr is None else tpr,
               -1.0 if acc is None else acc, float(auc) if _finite(auc) else -1.0)
        if best_key is None or key > best_key:
            best, best_key = a, key
    # The exact optimum is the most any attacker of this threat model can achieve (Neyman–
    # Pearson, paper 002 Thm 1): where the audit computes it, it IS the verdict's figure. A
    # simulated attack quoted above it would be sampling noise presented as a proven maximum
    # (issue 32 item 6: "at most 80.1 %" beside an exact 79.0 %).
    if optimum_tpr is not None and _finite(optimum_tpr):
        verdict_tpr, tpr_from = float(optimum_tpr), optimum_label
    if optimum_accuracy is not None and _finite(optimum_accuracy):
        verdict_acc, acc_from = float(optimum_accuracy), optimum_label
    if best is None:
        return Headline(fpr=fpr, verdict_tpr=verdict_tpr, verdict_accuracy=verdict_acc,
                        tpr_from=tpr_from, accuracy_from=acc_from)
    row = tpr_at(best, fpr) or {}
    tpr = measurable_tpr(best, fpr)
    acc = acc_of(best)
    n_neg = best.get("n_negative")
    level_index = best_key[1] if counted is not None else best_key[0]
    return Headline(
        fpr=fpr, name=best.get("name"), label=best.get("label") or best.get("name"),
        plain_name=attack_words(best.get("name"), best.get("label")).plain_name,
        level=LEVELS[level_index], tpr=tpr,
        tpr_ci=_interval(row.get("tpr_ci")) if tpr is not None else None,
        tpr_measurable=tpr is not None,
        n_negative=int(n_neg) if _finite(n_neg) else None,
        accuracy=float(acc) if _finite(acc) else None,
        accuracy_ci=_interval(best.get("accuracy_ci")),
        auc=float(best["auc"]) if _finite(best.get("auc")) else None,
        auc_ci=_interval(best.get("auc_ci")),
        verdict_tpr=verdict_tpr, verdict_accuracy=verdict_acc,
        tpr_from=tpr_from, accuracy_from=acc_from,
        distinguishable=counted is None or best.get("name") in counted_names)


def _counted_value(counted: Mapping, name, figure: str, own: float | None) -> float | None:
    """The counted value of ``name``'s ``figure`` (its own when the pair was given without
    one), or None when that figure was not counted."""
    if (name, figure) not in counted:
        return None
    v = counted[(name, figure)]
    return float(v) if _finite(v) else own


def headline_of_result(result: dict, *, stored: bool = True) -> Headline | None:
    """The headline a saved result stores (``verdict.headline``), rebuilt from its attacks and
    policy when it has none (a result saved before headlines existed) or ``stored`` is False.
    None when the result has no attacks to quote."""
    if not isinstance(result, dict):
        return None
    verdict = result.get("verdict") if isinstance(result.get("verdict"), dict) else {}
    block = verdict.get("headline") if stored else None
    if isinstance(block, dict):
        parsed = _stored_headline(block)
        if parsed is not None:
            return parsed
    attacks = result.get("attacks")
    if not isinstance(attacks, list) or not attacks:
        return None
    pol = (result.get("config") or {}).get("policy")
    try:
        policy = VerdictPolicy.from_dict(pol) if isinstance(pol, dict) else VerdictPolicy()
    except Exception:  # noqa: BLE001 - a damaged policy block: the default policy's rate
        policy = VerdictPolicy()
    return headline(attacks, policy)


def banded_attack(result: dict) -> str | None:
    """The attack whose confidence band a ROC chart draws by default — the strongest, so the
    screen and the PDF show the same one band instead of a stack of bands that hides every
    curve (issue 21): the stored headline's attack, else the one the result names as strongest
    (``theory.strongest``), else the headline rebuilt from the attacks."""
    if not isinstance(result, dict):
        return None
    names = {a.get("name") for a in result.get("attacks") or [] if isinstance(a, dict)}
    verdict = result.get("verdict") if isinstance(result.get("verdict"), dict) else {}
    stored = verdict.get("headline") if isinstance(verdict.get("headline"), dict) else {}
    theory = result.get("theory") if isinstance(result.get("theory"), dict) else {}
    named = theory.get("strongest") if isinstance(theory.get("strongest"), dict) else {}
    for name in (stored.get("name"), named.get("name")):
        if name in names:
            return name
    head = headline_of_result(result, stored=False)
    return head.name if head is not None and head.name in names else None


def _stored_headline(d: dict) -> Headline | None:
    """A stored headline block, or None when any field is not of its type (a damaged or
    hand-edited result: the headline is then rebuilt from the attacks)."""
    def number_or_none(v):
        return v is None or _finite(v)

    def interval_or_none(v):
        return v is None or _interval(v) is not None

    fields = Headline.__dataclass_fields__
    values = {k: v for k, v in d.items() if k in fields}
    if not (_finite(values.get("fpr")) and 0 < values["fpr"] < 1
            and values.get("level", "low") in LEVELS
            and all(isinstance(values.get(k), (str, type(None)))
                    for k in ("name", "label", "plain_name", "tpr_from", "accuracy_from"))
            and all(number_or_none(values.get(k))
                    for k in ("tpr", "n_negative", "accuracy", "auc"))
            and all(_finite(values.get(k, 0.0)) for k in ("verdict_tpr", "verdict_accuracy"))
            and all(interval_or_none(values.get(k)) for k in ("tpr_ci", "accuracy_ci", "auc_ci"))
            and isinstance(values.get("tpr_measurable", False), bool)
            and isinstance(values.get("distinguishable", True), bool)):
        return None
    for k in ("tpr_ci", "accuracy_ci", "auc_ci"):
        if values.get(k) is not None:
            values[k] = _interval(values[k])
    return Headline(**values)
