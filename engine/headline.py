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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass

from engine.metrics import min_negatives_for
from engine.numbers import is_finite, same_rate
from engine.policy import LEVELS, VerdictPolicy
from engine.results.blocks import AttackEntry, BlockError, TprRow, Verdict, tpr_row_at
from engine.wording import attack_words

__all__ = ["Headline", "as_entry", "banded_attack", "headline", "headline_of_result",
           "measurable_tpr", "not_measurable_sentence", "same_rate", "tpr_at"]


def as_entry(attack) -> AttackEntry | None:
    """``attack`` as a typed :class:`AttackEntry` (an entry as it is, a result.json dict read
    by ``from_dict``), or None when it is neither or damaged (it is then left out, as
    :func:`engine.results.result.result_problem` has named it)."""
    if isinstance(attack, AttackEntry):
        return attack if attack.problem is None else None
    if isinstance(attack, Mapping):
        try:
            return AttackEntry.from_dict(dict(attack))
        except BlockError:
            return None
    return None


def tpr_at(attack, fpr: float):
    """The attack's TPR-at-FPR row for false-alarm rate ``fpr``, or None: a :class:`TprRow`
    for a typed entry; for an entry still passed as a dict (callers not yet typed, issue 33
    item 1) the dict row itself. Both are found by :func:`engine.results.blocks.tpr_row_at`,
    the one lookup of a rate."""
    if isinstance(attack, AttackEntry):
        return attack.tpr_at(fpr)
    rows = attack.get("tpr_at_fpr") if isinstance(attack, Mapping) else None
    typed: list[tuple[TprRow, dict]] = []
    for row in rows or []:
        try:
            typed.append((TprRow.from_dict(row), row))
        except BlockError:
            continue
    found = tpr_row_at([t for t, _ in typed], fpr)
    return next((d for t, d in typed if t is found), None) if found is not None else None


def measurable_tpr(attack, fpr: float) -> float | None:
    """The TPR at ``fpr`` when it is measurable (and a finite number), else None."""
    entry = as_entry(attack)
    row = entry.tpr_at(fpr) if entry is not None else None
    return row.measured_tpr if row is not None else None


def not_measurable_sentence(n_negative, fpr: float,
                            negatives: str = "test cases without the person") -> str:
    """Why a TPR at ``fpr`` is not printed, and what it would take to measure it: a clause
    that completes "…, but " or starts a sentence once capitalised."""
    need = min_negatives_for(fpr)
    have = f"{int(n_negative):,}" if is_finite(n_negative) else "fewer"
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


def _interval(value) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(is_finite(v) for v in value):
        return float(value[0]), float(value[1])
    return None


def headline(attacks: Iterable, policy: VerdictPolicy, *,
             accuracy_of: Callable | None = None,
             optimum_tpr: float | None = None, optimum_accuracy: float | None = None,
             optimum_label: str = "the best possible attacker (exact theory)",
             counted: Mapping | frozenset | None = None) -> Headline:
    """The strongest of ``attacks`` by ``policy`` and the verdict's figures (module docstring).

    ``attacks``: typed :class:`AttackEntry` objects, or result dicts (the audits pass the
    entries they are writing; each is read by :func:`as_entry`). ``accuracy_of`` maps an
    attack, as it was passed, to its accuracy on the policy's balanced scale (default: its
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
    if counted is not None and not isinstance(counted, Mapping):
        counted = {pair: None for pair in counted}
    counted_names = {name for name, _ in counted} if counted is not None else set()
    fpr = policy.fpr
    best, best_acc, best_key = None, None, None
    verdict_tpr, tpr_from = 0.0, None
    verdict_acc, acc_from = 0.5, None
    for given in attacks:
        a = as_entry(given)
        if a is None:
            continue
        tpr = measurable_tpr(a, fpr)
        acc = accuracy_of(given) if accuracy_of is not None else a.accuracy
        acc = float(acc) if is_finite(acc) else None
        label = a.label or a.name
        v_tpr, v_acc = tpr, acc
        if counted is not None:
            v_tpr = _counted_value(counted, a.name, "tpr", tpr)
            v_acc = _counted_value(counted, a.name, "accuracy", acc)
        if v_tpr is not None and (tpr_from is None or v_tpr > verdict_tpr):
            verdict_tpr, tpr_from = v_tpr, label
        if v_acc is not None and (acc_from is None or v_acc > verdict_acc):
            verdict_acc, acc_from = v_acc, label
        level = policy.level(tpr or 0.0, acc if acc is not None else 0.5)[0]
        key = ((a.name in counted_names,) if counted is not None else ()) + (
               LEVELS.index(level), -1.0 if tpr is None else tpr,
               -1.0 if acc is None else acc, float(a.auc) if is_finite(a.auc) else -1.0)
        if best_key is None or key > best_key:
            best, best_acc, best_key = a, acc, key
    # The exact optimum is the most any attacker of this threat model can achieve (Neyman–
    # Pearson, paper 002 Thm 1): where the audit computes it, it IS the verdict's figure. A
    # simulated attack quoted above it would be sampling noise presented as a proven maximum
    # (issue 32 item 6: "at most 80.1 %" beside an exact 79.0 %).
    if optimum_tpr is not None and is_finite(optimum_tpr):
        verdict_tpr, tpr_from = float(optimum_tpr), optimum_label
    if optimum_accuracy is not None and is_finite(optimum_accuracy):
        verdict_acc, acc_from = float(optimum_accuracy), optimum_label
    if best is None:
        return Headline(fpr=fpr, verdict_tpr=verdict_tpr, verdict_accuracy=verdict_acc,
                        tpr_from=tpr_from, accuracy_from=acc_from)
    row = best.tpr_at(fpr)
    tpr = measurable_tpr(best, fpr)
    level_index = best_key[1] if counted is not None else best_key[0]
    return Headline(
        fpr=fpr, name=best.name, label=best.label or best.name,
        plain_name=attack_words(best.name, best.label).plain_name,
        level=LEVELS[level_index], tpr=tpr,
        tpr_ci=_interval(row.tpr_ci) if tpr is not None and row is not None else None,
        tpr_measurable=tpr is not None,
        n_negative=int(best.n_negative) if is_finite(best.n_negative) else None,
        accuracy=best_acc,
        accuracy_ci=_interval(best.accuracy_ci),
        auc=float(best.auc) if is_finite(best.auc) else None,
        auc_ci=_interval(best.auc_ci),
        verdict_tpr=verdict_tpr, verdict_accuracy=verdict_acc,
        tpr_from=tpr_from, accuracy_from=acc_from,
        distinguishable=counted is None or best.name in counted_names)


def _counted_value(counted: Mapping, name, figure: str, own: float | None) -> float | None:
    """The counted value of ``name``'s ``figure`` (its own when the pair was given without
    one), or None when that figure was not counted."""
    if (name, figure) not in counted:
        return None
    v = counted[(name, figure)]
    return float(v) if is_finite(v) else own


def _parts(result) -> tuple[Verdict | None, tuple[AttackEntry, ...], Mapping, object]:
    """The verdict, attacks, config and theory of ``result``: a loaded result
    (engine.results.loaded.LoadedResult, read by attribute) or a result.json dict (read here
    by the blocks' ``from_dict``; callers not yet passing the loaded result, issue 33)."""
    if not isinstance(result, Mapping):
        verdict = getattr(result, "verdict", None)
        block = getattr(result, "headline_block", None)
        if verdict is None and isinstance(block, Mapping):
            # a verdict that cannot be read keeps its stored headline (checked on its own)
            verdict = Verdict(level="low", headline=dict(block))
        return (verdict, tuple(a for a in getattr(result, "attacks", ()) if a.problem is None),
                getattr(result, "config", None) or {}, getattr(result, "theory", None))
    verdict = None
    if isinstance(result.get("verdict"), Mapping):
        try:
            verdict = Verdict.from_dict(dict(result["verdict"]))
        except BlockError:
            # a damaged verdict keeps a usable stored headline (it is checked on its own)
            block = result["verdict"].get("headline")
            verdict = Verdict(level="low", headline=block if isinstance(block, dict) else None)
    raw = result.get("attacks")
    attacks = tuple(e for e in map(as_entry, raw) if e is not None) \
        if isinstance(raw, list) else ()
    return verdict, attacks, result.get("config") or {}, result.get("theory")


def headline_of_result(result, *, stored: bool = True) -> Headline | None:
    """The headline a saved result stores (``verdict.headline``), rebuilt from its attacks and
    policy when it has none (a result saved before headlines existed) or ``stored`` is False.
    None when the result has no attacks to quote. ``result``: a loaded result or its dict."""
    if result is None or isinstance(result, (str, bytes, list, tuple)):
        return None
    verdict, attacks, config, _ = _parts(result)
    block = verdict.headline if stored and verdict is not None else None
    if isinstance(block, dict):
        parsed = _stored_headline(block)
        if parsed is not None:
            return parsed
    if not attacks:
        return None
    pol = config.get("policy") if isinstance(config, Mapping) else None
    try:
        policy = VerdictPolicy.from_dict(pol) if isinstance(pol, Mapping) else VerdictPolicy()
    except Exception:  # noqa: BLE001 - a damaged policy block: the default policy's rate
        policy = VerdictPolicy()
    return headline(attacks, policy)


def banded_attack(result, attacks: Iterable | None = None) -> str | None:
    """The attack whose confidence band a ROC chart draws by default — the strongest, so the
    screen and the PDF show the same one band instead of a stack of bands that hides every
    curve (issue 21): the stored headline's attack, else the one the result names as strongest
    (``theory.strongest``, results of early versions), else the headline rebuilt from the
    attacks. ``attacks``: the entries the chart draws (default: the result's own)."""
    if result is None or isinstance(result, (str, bytes, list, tuple)):
        return None
    verdict, own, config, theory = _parts(result)
    entries = own if attacks is None else tuple(e for e in map(as_entry, attacks)
                                                if e is not None)
    names = {a.name for a in entries}
    stored = verdict.headline if verdict is not None and isinstance(verdict.headline, dict) \
        else {}
    extra = theory if isinstance(theory, Mapping) else getattr(theory, "extra", None) or {}
    named = extra.get("strongest") if isinstance(extra.get("strongest"), Mapping) else {}
    for name in (stored.get("name"), named.get("name")):
        if name in names:
            return name
    if not entries:
        return None
    pol = config.get("policy") if isinstance(config, Mapping) else None
    try:
        policy = VerdictPolicy.from_dict(pol) if isinstance(pol, Mapping) else VerdictPolicy()
    except Exception:  # noqa: BLE001 - a damaged policy block: the default policy's rate
        policy = VerdictPolicy()
    head = headline(entries, policy)
    return head.name if head.name in names else None


def _stored_headline(d: dict) -> Headline | None:
    """A stored headline block, or None when any field is not of its type (a damaged or
    hand-edited result: the headline is then rebuilt from the attacks)."""
    def number_or_none(v):
        return v is None or is_finite(v)

    def interval_or_none(v):
        return v is None or _interval(v) is not None

    fields = Headline.__dataclass_fields__
    values = {k: v for k, v in d.items() if k in fields}
    if not (is_finite(values.get("fpr")) and 0 < values["fpr"] < 1
            and values.get("level", "low") in LEVELS
            and all(isinstance(values.get(k), (str, type(None)))
                    for k in ("name", "label", "plain_name", "tpr_from", "accuracy_from"))
            and all(number_or_none(values.get(k))
                    for k in ("tpr", "n_negative", "accuracy", "auc"))
            and all(is_finite(values.get(k, 0.0)) for k in ("verdict_tpr", "verdict_accuracy"))
            and all(interval_or_none(values.get(k)) for k in ("tpr_ci", "accuracy_ci", "auc_ci"))
            and isinstance(values.get("tpr_measurable", False), bool)
            and isinstance(values.get("distinguishable", True), bool)):
        return None
    for k in ("tpr_ci", "accuracy_ci", "auc_ci"):
        if values.get(k) is not None:
            values[k] = _interval(values[k])
    return Headline(**values)
