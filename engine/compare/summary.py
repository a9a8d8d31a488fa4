"""The comparison itself, from the candidates' results alone (pure; no run, no file): each
candidate's headline risk with its interval, its cost to the data's users, its verdict,
whether it meets the policy, which pairs cannot be told apart, and the most useful candidate
that meets the policy (issue 34 item 1).

* **Risk** is the audit's headline (engine.headline: the strongest attack by the verdict
  policy) with its interval: the share of targets it spots at the policy's false-alarm rate
  (TPR at FPR) when that is measurable for every candidate, else its balanced accuracy — one
  metric for all rows, so they can be read against each other. ``bound`` is what DP theory
  allows for that figure: the location audit's ``dp_bound_accuracy`` (paper 000 Thm 1), or the
  (ε, δ)-DP region at the composed ε (paper 002 Thm 1: TPR ≤ e^ε·FPR + δ; balanced accuracy
  ≤ (e^ε + δ)/(1 + e^ε)).
* **Meets the policy**: the candidate's verdict (engine.policy, the levels its own result
  reached) is at most the comparison's ``highest_level`` ("low" by default).
* **Best**: the lowest cost (engine.compare.utility) among the candidates that meet the policy;
  a tie goes to the lower risk, then to the one listed first.
* **Cannot be told apart at this size**: two candidates whose risk intervals overlap (or one of
  which has no interval). The test is the overlap of the two intervals each result stores
  (Clopper–Pearson for a rate, the metric layer's bootstrap for accuracy, ARCHITECTURE §5): two
  95 % intervals that do not overlap mean the difference is significant at well below 5 %
  (Schenker & Gentleman 2001, *Am. Stat.* 55:182), so the rule only errs towards "cannot be told
  apart". A paired test on the same people (McNemar on the two candidates' decisions per test
  case — the candidates share their random streams) would be sharper, but it needs every
  decision, and a comparison keeps only the results (one candidate's arrays at a time).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from engine.compare.types import CandidateRow, Comparison, PairTest, RiskFigure
from engine.compare.utility import cost_of
from engine.headline import headline_of_result
from engine.policy import LEVELS, VerdictPolicy
from engine.results.loaded import load_result


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _ci_text(ci) -> str:
    return f" ({_pct(ci[0])} to {_pct(ci[1])})" if ci is not None else ""


def dp_bound(loaded, metric: str, fpr: float) -> float | None:
    """What DP theory allows for ``metric`` in this result (module docstring), or None."""
    th = loaded.theory
    if metric == "accuracy":
        own = getattr(th, "dp_bound_accuracy", None)
        if _finite(own):
            return float(own)
        eps, delta = getattr(th, "epsilon_total", None), getattr(th, "delta", None)
        if _finite(eps) and _finite(delta):
            return float(min(1.0, (math.exp(min(eps, 700.0)) + delta)
                             / (1.0 + math.exp(min(eps, 700.0)))))
        return None
    region = getattr(th, "dp_region", None)
    if region is not None and region.fpr and region.tpr_upper:
        xs, ys = list(region.fpr), list(region.tpr_upper)
        points = list(zip(xs, ys, strict=False))
        for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
            if x0 <= fpr <= x1:
                return float(y0 if x1 == x0 else y0 + (y1 - y0) * (fpr - x0) / (x1 - x0))
    return None


def risk_metric(loaded_results: Sequence) -> str:
    """"tpr" when every result's headline TPR at the policy's rate is measurable with an
    interval, else "accuracy" (module docstring)."""
    heads = [headline_of_result(r) for r in loaded_results]
    if heads and all(h is not None and h.tpr is not None and h.tpr_ci is not None
                     for h in heads):
        return "tpr"
    return "accuracy"


def risk_of(loaded, metric: str) -> RiskFigure:
    head = headline_of_result(loaded)
    fpr = loaded.policy_fpr
    bound = dp_bound(loaded, metric, fpr)
    name = head.short_label() if head is not None and head.found else "no attack"
    if metric == "tpr":
        value = head.tpr if head is not None else None
        ci = head.tpr_ci if head is not None else None
        label = f"Share of targets spotted at {fpr:.0%} false alarms"
        sentence = (f"The strongest attack ({name}) spots {_pct(value)}{_ci_text(ci)} of its "
                    f"targets while wrongly accusing {fpr:.0%} of the others (guessing spots "
                    f"{fpr:.0%})." if value is not None else "No attack's rate was measured.")
        return RiskFigure("tpr", label, value, ci, fpr, sentence, bound)
    value = head.accuracy if head is not None else None
    ci = head.accuracy_ci if head is not None else None
    sentence = (f"The strongest attack ({name}) is right {_pct(value)}{_ci_text(ci)} of the "
                "time (guessing: 50%)." if value is not None
                else "No attack's accuracy was measured.")
    return RiskFigure("accuracy", "Attacker's balanced accuracy", value, ci, 0.5, sentence,
                      bound)


def _overlap(a: RiskFigure | None, b: RiskFigure | None) -> bool | None:
    if a is None or b is None or a.ci is None or b.ci is None:
        return None
    return a.ci[0] <= b.ci[1] and b.ci[0] <= a.ci[1]


def pair_tests(rows: Sequence[CandidateRow]) -> tuple[PairTest, ...]:
    """Every pair of finished candidates, told apart or not (module docstring)."""
    done = [r for r in rows if r.status == "finished"]
    out = []
    for i, a in enumerate(done):
        for b in done[i + 1:]:
            overlap = _overlap(a.risk, b.risk)
            names = f"“{a.label}” and “{b.label}”"
            if overlap is None:
                out.append(PairTest(a.index, b.index, False,
                                    f"{names} cannot be told apart at this size: one of them "
                                    "has no interval for its risk."))
            elif overlap:
                out.append(PairTest(a.index, b.index, False,
                                    f"{names} cannot be told apart at this size: their risk "
                                    "intervals overlap, so the difference between them may "
                                    "be chance; more test cases would narrow both."))
            else:
                lower = a if a.risk.value <= b.risk.value else b
                out.append(PairTest(a.index, b.index, True,
                                    f"{names} differ: their risk intervals do not overlap, and "
                                    f"“{lower.label}” is the safer."))
    return tuple(out)


def meets(level: str | None, highest_level: str) -> bool | None:
    if level not in LEVELS:
        return None
    return LEVELS.index(level) <= LEVELS.index(highest_level)


def _best(rows: Sequence[CandidateRow]) -> CandidateRow | None:
    ok = [r for r in rows if r.status == "finished" and r.meets_policy
          and r.cost is not None and r.cost.value is not None]
    if not ok:
        return None
    return min(ok, key=lambda r: (r.cost.value,
                                  r.risk.value if r.risk and r.risk.value is not None
                                  else math.inf, r.index))


def compare_results(cset_or_labels, results: Sequence, *, statuses: Sequence | None = None,
                    errors: Sequence | None = None, folders: Sequence | None = None,
                    shas: Sequence | None = None, runtimes: Sequence | None = None,
                    highest_level: str | None = None) -> Comparison:
    """The :class:`Comparison` of ``results`` (result dicts, None for a candidate without one)
    for ``cset_or_labels``: a :class:`engine.compare.candidates.CandidateSet` or the labels.
    ``statuses`` etc.: per candidate, as :func:`engine.compare.run.run_comparison` knows them
    (default: "finished" where there is a result, "pending" where not)."""
    if isinstance(cset_or_labels, Sequence) and not isinstance(cset_or_labels, str):
        labels, overrides = list(cset_or_labels), [{}] * len(cset_or_labels)
        audit_type, name, seed, level = None, "Comparison", None, highest_level or "low"
    else:
        cs = cset_or_labels
        labels = [c.label for c in cs.candidates]
        overrides = [dict(c.overrides) for c in cs.candidates]
        audit_type, name, seed = cs.audit_type, cs.name, cs.seed
        level = highest_level or cs.highest_level
    n = len(labels)
    statuses = list(statuses or ["finished" if r is not None else "pending" for r in results])
    errors = list(errors or [None] * n)
    folders = list(folders or [None] * n)
    shas = list(shas or [None] * n)
    runtimes = list(runtimes or [None] * n)
    loaded = [load_result(r) if r is not None else None for r in results]
    finished = [x for x, s in zip(loaded, statuses, strict=True)
                if x is not None and s == "finished"]
    metric = risk_metric(finished)
    if audit_type is None and finished:
        audit_type = finished[0].audit_type
    policy = VerdictPolicy()
    if finished and isinstance(finished[0].config.get("policy"), Mapping):
        try:
            policy = VerdictPolicy.from_dict(dict(finished[0].config["policy"]))
        except ValueError:
            pass
    rows = []
    for i in range(n):
        res, status = loaded[i], statuses[i]
        ok = res is not None and status == "finished"
        verdict = res.verdict if ok else None
        level_i = verdict.level if verdict is not None else None
        rows.append(CandidateRow(
            index=i + 1, label=labels[i], overrides=overrides[i], status=status,
            error=errors[i], risk=risk_of(res, metric) if ok else None,
            cost=cost_of(res) if ok else None, verdict_level=level_i,
            verdict_sentence=(" ".join(verdict.reasons) if verdict is not None else ""),
            meets_policy=meets(level_i, level) if ok else None, result_sha256=shas[i],
            folder=folders[i], runtime_s=runtimes[i] if runtimes[i] is not None
            else (res.runtime_s if ok else None)))
    rows = _model_losses(rows)
    best = _best(rows)
    if best is not None:
        risk = _pct(best.risk.value) if best.risk.value is not None else "not measured"
        best_sentence = (f"“{best.label}” is the most useful candidate that meets the policy: "
                         f"{best.cost.label.lower()} {best.cost.value:.3g}, risk {risk}"
                         f"{_ci_text(best.risk.ci)}, verdict {best.verdict_level}.")
    elif finished:
        best_sentence = (f"None of the candidates meets the policy (a verdict of at most "
                         f"{level}); choose more protection, or a policy that accepts more.")
    else:
        best_sentence = "No candidate has finished, so none can be recommended yet."
    n_ok = sum(1 for r in rows if r.meets_policy)
    done = sum(1 for r in rows if r.status == "finished")
    meet = "meets" if n_ok == 1 else "meet"
    sentence = (f"{n} candidate releases compared ({done} finished); {n_ok} {meet} the policy "
                f"(a verdict of at most {level}). {best_sentence}")
    return Comparison(audit_type=str(audit_type or ""), name=name,
                      seed=int(seed if seed is not None else (finished[0].seed if finished
                                                               else 0) or 0),
                      rows=tuple(rows), pairs=pair_tests(rows),
                      best=best.index if best is not None else None,
                      best_sentence=best_sentence, sentence=sentence,
                      policy={"verdict_policy": policy.to_dict(), "highest_level": level,
                              "risk_metric": metric})


def _model_losses(rows: list[CandidateRow]) -> list[CandidateRow]:
    """The model audit's accuracy loss against the most accurate candidate (utility's
    docstring), added to each model row's cost details."""
    accs = [r.cost.details.get("test_accuracy") for r in rows
            if r.cost is not None and r.cost.metric == "test_error"]
    accs = [a for a in accs if _finite(a)]
    if not accs:
        return rows
    top = max(accs)
    out = []
    for r in rows:
        if r.cost is not None and r.cost.metric == "test_error" \
                and _finite(r.cost.details.get("test_accuracy")):
            loss = top - r.cost.details["test_accuracy"]
            r = replace(r, cost=replace(r.cost, details={**r.cost.details,
                                                         "accuracy_loss": loss}))
        out.append(r)
    return out
