"""The officer's frame (issue 34 item 4): an audit's findings read as the three risks of the EU
Article 29 Working Party's Opinion 05/2014 on anonymisation techniques (WP216), and what a
data-protection impact assessment (DPIA) needs from the audit.

WP216 §3 judges an anonymised release by three criteria (defined again in its Annex A):

* **singling out** — isolating some or all records of one individual in the data;
* **linkability** — linking at least two records concerning the same person or group, within
  one data set or across two (here: linking a known person to the release — "is this person
  in it?", the membership game);
* **inference** — deducing, with significant probability, the value of an attribute from the
  values of others.

Each risk gets one of three levels, never "no risk" (engine.findings.base):

* ``found`` — an attack beat its baseline after Holm's correction (engine.evidence, the
  verdict's own test), or the tables prove it (paper 003 Alg. 1), or exact theory puts the
  best possible attacker at or above the policy's medium line (paper 002 Thm 1);
* ``not_found`` — the audit asked and no attack could be told from guessing (or from the
  obvious guess) *at this size*: the sentence says the smallest attack this many trials would
  have seen, because "cannot be told from guessing" is not "no risk";
* ``not_tested`` — this audit's game does not ask (the sentence says which audit or setting
  would).

Which figure speaks to which risk, per audit type: engine.findings.risks and
docs/methods/article29.md. A result saved before the evidence test (issue 32) counts an attack
whose interval lies above its baseline, and says the test was not corrected.

:func:`dpia_items` lists what a DPIA (GDPR Art. 35(7)(c)–(d)) takes from the audit: how the
risk was assessed, the risks found, the measures compared (the result's own what-if sweeps and
defences, or a comparison of candidate releases: engine.compare's ``Comparison``), the residual
risk (the verdict with its interval) and the decision (the sign-off, engine.signoff, or "no
decision recorded yet"). Qt-free: the report (engine.report.sections_article29) and the
results page (gui.widgets.article29_panel) both read it.
"""

from __future__ import annotations

from engine.findings.base import (
    FOUND,
    LEVEL_LABELS,
    NOT_FOUND,
    NOT_TESTED,
    RISK_LABELS,
    RISK_MEANINGS,
    RISKS,
    Context,
    DpiaItem,
    RiskFinding,
    pct,
    plain,
    with_ci,
)
from engine.findings.risks import article29_risks
from engine.headline import headline_of_result
from engine.numbers import is_finite
from engine.results.loaded import LoadedResult, load_result
from engine.signoff import check

__all__ = ["DPIA_TITLE", "FOUND", "LEVEL_LABELS", "NOT_FOUND", "NOT_TESTED", "NO_DECISION",
           "RISKS", "RISK_LABELS", "RISK_MEANINGS", "TITLE", "DpiaItem", "RiskFinding",
           "article29_risks", "article29_text", "dpia_items"]

TITLE = "The three risks of the Article 29 opinion"
DPIA_TITLE = "For your data-protection impact assessment"
NO_DECISION = "No decision recorded yet"
_AUDIT_WORDS = {"mechanism": "DP mechanism", "location": "location aggregates",
                "aggregates": "count tables", "model": "trained model"}
#: How many points of a sweep the "measures compared" line names (the report's own section
#: and the page's chart show them all).
_POINTS = 6


def dpia_items(result, comparison=None) -> tuple[DpiaItem, ...]:
    """What a DPIA needs from this audit (module docstring), in order: how the risk was
    assessed, the risks found, the measures compared, the residual risk, the decision.
    ``result``: a result dict or a loaded result (its ``signoff`` is the decision);
    ``comparison``: an engine.compare ``Comparison`` of candidate releases, or None."""
    r = load_result(result)
    ctx = Context.of(r)
    risks = article29_risks(r)
    found = "; ".join(f"{f.label}: {f.level_label.lower()}" for f in risks)
    return (DpiaItem("How the risk was assessed", _method(r)),
            DpiaItem("Risks found (Article 29 opinion, WP216 §3)",
                     found + ". The figures behind each are listed with the three risks."),
            DpiaItem("Measures compared", _measures(r, comparison)),
            DpiaItem("Residual risk", _residual(ctx)),
            DpiaItem("Decision", _decision(r)))


def article29_text(result, comparison=None) -> str:
    """The three risks and the DPIA list as plain text (the results page's "Copy as text")."""
    r = load_result(result)
    lines = [f"{TITLE} — {r.name or 'Unnamed audit'}", ""]
    lines += [f.as_text() for f in article29_risks(r)]
    lines += ["", DPIA_TITLE]
    lines += [f"- {i.label}: {i.text}" for i in dpia_items(r, comparison)]
    return "\n".join(lines)


# --------------------------------------------------------------------------- the items

def _method(r: LoadedResult) -> str:
    attacks = [a for a in r.attacks if a.problem is None]
    names = ", ".join(plain(a).lower() for a in attacks[:6]) + ("…" if len(attacks) > 6 else "")
    v = r.verdict
    text = (f"A {_AUDIT_WORDS.get(r.audit_type, r.audit_type or 'privacy')} audit of "
            f"“{r.name or 'Unnamed audit'}”: {len(attacks)} attack"
            f"{'s' if len(attacks) != 1 else ''} run ({names or 'none'})")
    if r.seed is not None:
        text += f", seed {r.seed}"
    text += "."
    if v is not None:
        rule = v.policy_rules[0] if v.policy_rules else ""
        text += f" Judged by the policy “{v.policy_name}”" + (f": {rule}" if rule else "")
        text += "" if text.endswith(".") else "."
    return text


def _measures(r: LoadedResult, comparison) -> str:
    if comparison is not None:
        return _compared(comparison)
    th = r.theory
    parts: list[str] = []
    if r.audit_type == "mechanism":
        sw, inv = th.sweep, th.inverse
        if sw is not None and sw.values:
            words = "ε per observation" if sw.parameter == "epsilon" else "observations"
            pts = [f"{words} {_num(v)}: right {pct(acc)}"
                   for v, acc in list(zip(sw.values, sw.accuracy, strict=False))[:_POINTS]
                   if is_finite(v)]
            parts.append("What-if (the best possible attacker, computed exactly): "
                         + "; ".join(pts) + ".")
        if inv is not None and inv.feasible and is_finite(inv.max_epsilon_per_observation):
            parts.append(f"The largest ε per observation that keeps the best possible attacker "
                         f"under {pct(inv.max_tpr)} of people spotted at {pct(inv.fpr)} false "
                         f"alarms is {inv.max_epsilon_per_observation:.3g}.")
        elif inv is not None and inv.note:
            parts.append(inv.note)
    elif r.audit_type == "location":
        sw = th.sweep
        if sw.observations:
            pts = [f"{int(k)} observation{'s' if k != 1 else ''}: right {pct(o)} (ε allows {pct(b)})"
                   for k, o, b in list(zip(sw.observations, sw.optimal_accuracy,
                                           sw.dp_bound_accuracy, strict=False))[:_POINTS]
                   if is_finite(k)]
            parts.append("People with more observations (the best possible attacker, "
                         "computed exactly): " + "; ".join(pts) + ".")
    elif r.audit_type == "aggregates":
        for key, words in (("fraction", "share of cells released"), ("noise", "noise")):
            sw = th.sweep(key)
            if sw is None or not sw.values:
                continue
            pts = []
            for i, v in enumerate(sw.values[:_POINTS]):
                aucs = [pts_[i].auc for pts_ in sw.attacks.values()
                        if i < len(pts_) and pts_[i] is not None and is_finite(pts_[i].auc)]
                share = sw.determined_share[i] if i < len(sw.determined_share) else None
                pts.append(f"{words} {_num(v)}: " + ", ".join(
                    p for p in ((f"{pct(share)} of targets proved" if is_finite(share) else ""),
                                (f"best AUC {max(aucs):.2f}" if aucs else "")) if p))
            parts.append(f"Swept {words}: " + "; ".join(pts) + ".")
    elif r.audit_type == "model" and th.defences is not None:
        d = th.defences
        pts = []
        for row in d.rows[:_POINTS + 2]:
            acc = row.risk.accuracy
            pts.append(f"{row.plain_label or row.label or row.defence}: strongest attack right "
                       f"{pct(acc.value if acc is not None else None)}, test accuracy "
                       f"{pct(row.test_accuracy)}")
        parts.append("Defences retrained and attacked: " + "; ".join(pts) + ".")
        if d.recommendation.statement:
            parts.append(d.recommendation.statement)
    if not parts:
        return ("No alternative release was compared in this audit. The Compare step runs the "
                "same audit over 2–8 candidate releases (other ε, tables, observations, "
                "defences) and weighs their risk against their cost to the data's users.")
    return " ".join(parts)


def _num(v) -> str:
    """A swept value as written: a number compactly, anything else as text."""
    return f"{v:g}" if is_finite(v) else str(v)


def _compared(comparison) -> str:
    """A comparison of candidate releases (engine.compare.Comparison): each candidate's risk
    with its interval, its cost, whether it meets the policy; the most useful one that does."""
    rows = []
    for row in comparison.rows:
        if row.status != "finished":
            rows.append(f"{row.label}: {row.status}")
            continue
        risk, cost = row.risk, row.cost
        ci = risk.ci if risk is not None else None
        risk_text = (f"{risk.label} {pct(risk.value)}"
                     + (f" ({ci[0]:.1%} to {ci[1]:.1%})" if ci else "")) if risk else "—"
        cost_text = (f"{cost.label} {cost.value:.3g}{(' ' + cost.unit) if cost.unit else ''}"
                     if cost is not None and is_finite(cost.value) else "")
        meets = {True: "meets the policy", False: "does not meet the policy"}.get(
            row.meets_policy, "")
        rows.append(f"{row.label}: " + ", ".join(p for p in (risk_text, cost_text, meets) if p))
    text = f"{comparison.name}: " + "; ".join(rows) + "."
    if comparison.best_sentence:
        text += f" {comparison.best_sentence}"
    return text


def _residual(ctx: Context) -> str:
    r = ctx.result
    v = r.verdict
    if v is None:
        return ("No verdict could be read" + (f": {r.verdict_problem}" if r.verdict_problem
                                              else "") + ".")
    text = f"{v.level.upper()} risk under the policy “{v.policy_name}”."
    head = headline_of_result(r)
    a = r.attack(head.name) if head is not None and head.found else None
    if a is not None and a.problem is None:
        if r.audit_type == "aggregates":
            d = r.theory.details_of(a)
            text += (f" The strongest attack is the {plain(a).lower()}: it guesses the hidden "
                     f"value right {with_ci(d.top1_accuracy, d.top1_accuracy_ci, ctx)}; a blind "
                     f"guess is right {pct(r.theory.game.chance)}.")
        else:
            text += (f" The strongest attack is the {plain(a).lower()}: right "
                     f"{with_ci(a.accuracy, a.accuracy_ci, ctx)}")
            row = a.tpr_at(ctx.policy.fpr)
            if row is not None and row.measured_tpr is not None:
                text += (f" and spots {with_ci(row.measured_tpr, row.tpr_ci, ctx)} of the "
                         f"people present while wrongly accusing {ctx.policy.fpr:.0%}")
            text += "."
        if not head.distinguishable:
            text += " It cannot be told from guessing after correcting for the attacks run."
    labels = {x.label for x in r.attacks}
    if head is not None and head.accuracy_from and head.accuracy_from not in labels \
            and r.audit_type in ("mechanism", "location"):
        text += (f" The level reads {head.accuracy_from}: right "
                 f"{pct(head.verdict_accuracy)} of the time.")
    ev = v.evidence_block
    if ev is not None and ev.sentence:
        text += f" {ev.sentence}"
    return text


def _decision(r: LoadedResult) -> str:
    s = r.signoff
    if s is None:
        return (f"{NO_DECISION}: approve, approve with conditions or reject is recorded in the "
                "app's “Decision and sign-off” box, with the reviewer's name, role and date.")
    text = (f"{s.past_label} by {s.who} on {s.date} (result SHA-256 "
            f"{s.result_sha256[:12]}…).")
    if s.conditions:
        text += f" Conditions: {s.conditions}"
        text += "" if text.endswith(".") else "."
    if s.rationale:
        text += f" Rationale: {s.rationale}"
        text += "" if text.endswith(".") else "."
    problem = check(s, r)
    if problem:
        text += f" But: {problem}"
    return text
