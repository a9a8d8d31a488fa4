"""Each audit type's findings mapped to the three risks of WP216 §3 (engine.findings.article29's
module docstring; the table per audit type is docs/methods/article29.md).

* count tables (paper 003): singling out = the targets unique on their quasi-identifiers whose
  record the tables prove (Alg. 1); inference = the attribute attacks' best guess against
  chance, and on the real people against the obvious guess (issue 32 item 1), plus the values
  proved; linkability = the membership game (§6), and the presences the tables prove;
* location aggregates (paper 000): linkability = the membership game on the aggregates, with
  the informed attacker's exact optimum (Thm 1, Def. 3); singling out = the people whose trace
  stands out at the high-risk line (exact theory, target "most exposed"); inference: not asked;
* DP mechanism (paper 002): linkability = the membership game, the exact optimum and what ε
  permits (Thm 1); singling out and inference: not asked;
* model: linkability = membership inference; singling out = members picked out at the policy's
  low false-alarm rate (the exposed records); inference = attribute inference from the
  model's outputs against the obvious guess.
"""

from __future__ import annotations

from engine.findings.base import (
    FOUND,
    INFERENCE,
    LINKABILITY,
    NOT_FOUND,
    RISKS,
    SINGLING_OUT,
    Context,
    RiskFinding,
    beats,
    finding,
    interval_above,
    live,
    membership_game,
    not_tested,
    pct,
    plain,
    size_words,
    tested_words,
    with_ci,
)
from engine.headline import headline_of_result
from engine.numbers import is_finite
from engine.results.loaded import load_result

# --------------------------------------------------------------------------- count tables


def _aggregates(ctx: Context) -> tuple[RiskFinding, ...]:
    th = ctx.result.theory
    det = th.deterministic
    proved = None
    if det is not None:
        proved = det.correct if is_finite(det.correct) else det.determined
    return (_tables_singling_out(ctx, proved), _tables_linkability(ctx),
            _tables_inference(ctx, proved))


def _tables_singling_out(ctx: Context, proved) -> RiskFinding:
    th = ctx.result.theory
    game, det = th.game, th.deterministic
    figures: list[tuple[str, str]] = []
    if is_finite(game.unique_records) and is_finite(game.records) and game.records:
        figures.append(("People unique on the details the attacker knows",
                        f"{game.unique_records:,} of {game.records:,} "
                        f"({game.unique_records / game.records:.1%})"))
    if det is not None and is_finite(det.targets):
        figures.append(("Targets whose record the tables prove",
                        f"{det.determined or 0:,} of {det.targets:,}"
                        + (f" ({det.correct:,} checked right)" if is_finite(det.correct)
                           else "")))
    if det is None:
        return not_tested(SINGLING_OUT, "The tables were not searched for proofs (no attack "
                          "with the deterministic module was run), so the audit cannot say "
                          "whether they isolate a person's record.", figures)
    if proved:
        return finding(SINGLING_OUT, FOUND,
                       f"For {proved:,} of the {det.targets or 0:,} targets — people unique on the "
                       "details the attacker knows — the tables leave only one possible "
                       "record: the person's whole record, hidden value included, is isolated "
                       "with certainty (a proof, not an estimate).", figures)
    return finding(SINGLING_OUT, NOT_FOUND,
                   f"None of the {det.targets or 0:,} targets unique on the details the "
                   "attacker knows is pinned down by the tables. Only these targets were "
                   "checked, so this is not evidence that no record can be isolated.", figures)


def _tables_inference(ctx: Context, proved) -> RiskFinding:
    r, th = ctx.result, ctx.result.theory
    chance = th.game.chance if is_finite(th.game.chance) else None
    aia = [a for a in live(r.attacks) if th.details_of(a).game == "aia"]

    def judged(a):
        return beats(ctx, a, chance, th.details_of(a).top1_accuracy_ci)

    def key(a):
        top1 = th.details_of(a).top1_accuracy
        return judged(a)[0], top1 if is_finite(top1) else -1.0

    best = max(aia, key=key) if aia else None
    figures: list[tuple[str, str]] = []
    if best is not None:
        d = th.details_of(best)
        figures.append((f"{plain(best)}: best guess right (a blind guess: {pct(chance)})",
                        with_ci(d.top1_accuracy, d.top1_accuracy_ci, ctx)))
        rp = d.real_people
        if rp is not None:
            figures.append((f"{plain(best)}: right on the real people (the obvious guess: "
                            f"{pct(rp.obvious_guess.accuracy)})",
                            with_ci(rp.accuracy, rp.accuracy_ci, ctx)))
    data_only = r.attack("data_only")
    if data_only is not None and data_only.problem is None:
        figures.append(("Guess from similar people's records alone (no tables)",
                        pct(th.details_of(data_only).top1_accuracy)))
    if proved:
        figures.append(("Values that follow from the tables with certainty", f"{proved:,}"))
    if best is None and not proved:
        return not_tested(INFERENCE, "No attribute attack on the tables was run.", figures)
    won, corrected = judged(best) if best is not None else (False, False)
    sources = (best.name,) if best is not None else ()
    if won or proved:
        parts = []
        if won:
            value = f"value of “{th.sensitive}”" if th.sensitive else "hidden value"
            parts.append(f"the {plain(best).lower()} guesses a person's {value} better than "
                         f"chance — {tested_words(corrected, ctx)}")
        if proved:
            parts.append(f"{proved:,} values follow from the tables with certainty")
        return finding(INFERENCE, FOUND, "From the released counts, " + "; ".join(parts) + ".",
                       figures, sources)
    return finding(INFERENCE, NOT_FOUND,
                   "No attack on the tables guessed the hidden value measurably better than "
                   "chance. " + size_words(ctx, th.game.targets, chance or 0.5, "targets",
                                           "a blind guess"), figures, sources)


def _tables_linkability(ctx: Context) -> RiskFinding:
    mem = ctx.result.theory.membership
    if mem is None:
        return not_tested(LINKABILITY, "The membership game (is this person in the tables?) "
                          "was not played; turn on the membership game in the settings to "
                          "test it.")
    extra = []
    if is_finite(mem.targets):
        extra.append(("Presence proved by the tables", f"{mem.proved or 0:,} of "
                      f"{mem.targets:,} targets" + (f" ({mem.proved_correct:,} checked right)"
                                                    if is_finite(mem.proved_correct) else "")))
    link = membership_game(ctx, live(mem.attacks), game="In the membership game",
                           units="targets", extra=extra)
    if link.level != FOUND and mem.proved_correct:
        return finding(LINKABILITY, FOUND,
                       f"The tables prove whether the person is in the data for "
                       f"{mem.proved_correct:,} of {mem.targets or 0:,} targets of the membership "
                       "game (a proof, not an estimate).", link.figures, link.source_attacks)
    return link


# --------------------------------------------------------------------------- location

def _location(ctx: Context) -> tuple[RiskFinding, ...]:
    th = ctx.result.theory
    exact = th.optimal_attacker if th.attacker in (None, "informed") else None
    extra = []
    if is_finite(th.dp_bound_accuracy):
        extra.append(("The most the claimed ε allows any attacker: right",
                      pct(th.dp_bound_accuracy)))
    if is_finite(th.composed.epsilon):
        extra.append(("ε of the whole release", f"{th.composed.epsilon:.3g}"))
    if is_finite(th.target.observations):
        extra.append(("The target appears in", f"{th.target.observations:,} released counts"))
    link = membership_game(ctx, live(ctx.result.attacks), exact=exact,
                           exact_who="The informed attacker (exact theory)",
                           units="test releases",
                           game="Linking a person's trace to the aggregates", extra=extra)
    rows = [e for e in th.exposed if is_finite(e.count) and is_finite(e.population)]
    if not rows:
        single = not_tested(SINGLING_OUT, "The audit followed one person; it did not count "
                            "the people whose trace stands out in the counts (choose the most "
                            "exposed person as the target to count them).")
    else:
        e = rows[0]
        figures = [("People the best possible attacker picks out at the high-risk line",
                    f"{e.count:,} of {e.population:,}"
                    + (f" ({e.share:.1%})" if is_finite(e.share) else ""))]
        if e.count:
            single = finding(SINGLING_OUT, FOUND,
                             f"{e.count:,} of {e.population:,} people leave a trace that "
                             "stands out in the counts: the best possible attacker spots them "
                             "at the policy's high-risk line (exact theory"
                             + (f"; {e.rule}" if e.rule else "") + ").", figures)
        else:
            single = finding(SINGLING_OUT, NOT_FOUND,
                             "No person's trace reaches the high-risk line for the best "
                             "possible attacker (exact theory); below that line, or for an "
                             "attacker who knows more, a trace may still stand out.", figures)
    infer = not_tested(INFERENCE, "The audit asks whether a person is in the aggregates, not "
                       "where they went: no attack tried to deduce a person's places or "
                       "hours. A person linked to the release is, however, known to have been "
                       "at the places it counts.")
    return (single, link, infer)


# --------------------------------------------------------------------------- DP mechanism

def _mechanism(ctx: Context) -> tuple[RiskFinding, ...]:
    th = ctx.result.theory
    entries = live(ctx.result.attacks)
    extra = []
    ex = th.worst_case_dp
    if ex is not None:
        extra.append(("The most the ε allows any attacker: right", pct(ex.accuracy)))
    if is_finite(th.composed.epsilon):
        extra.append(("ε over all the person's observations", f"{th.composed.epsilon:.3g}"))
    bound = max((a.epsilon_bound.value for a in entries if a.epsilon_bound is not None
                 and is_finite(a.epsilon_bound.value)), default=None)
    if bound is not None:
        extra.append(("ε the attacks prove at least (empirical lower bound)", f"{bound:.3g}"))
    link = membership_game(ctx, entries, exact=th.optimal_attacker,
                           exact_who="The best possible attacker (exact theory)",
                           units="trials", game="Linking a person to the noisy release",
                           extra=extra)
    single = not_tested(SINGLING_OUT, "The mechanism audit releases one person's noisy values "
                        "and asks whether they are in; it has no records to isolate. Audit the "
                        "release itself (count tables, location aggregates) for that.")
    infer = not_tested(INFERENCE, "No attack tried to deduce a person's value from the noisy "
                       "release. The ε that bounds the membership game also bounds what the "
                       "release can reveal about one person, but no attribute attack was "
                       "measured.")
    return (single, link, infer)


# --------------------------------------------------------------------------- model

def _model(ctx: Context) -> tuple[RiskFinding, ...]:
    th = ctx.result.theory
    extra = []
    gap = th.generalization_gap
    if gap is not None and is_finite(gap.gap):
        extra.append(("Generalization gap (training minus test accuracy)",
                      with_ci(gap.gap, gap.gap_ci, ctx)))
    link = membership_game(ctx, live(ctx.result.attacks), units="records",
                           game="Membership inference", extra=extra)
    return (_model_singling_out(ctx), link, _model_inference(ctx))


def _tpr_counted(ctx: Context, a, row) -> tuple[bool, bool]:
    """Whether ``a``'s TPR at the policy's rate beat that rate (the verdict's test where it
    ran one, else the interval)."""
    tests = [t for t in (ctx.evidence.tests if ctx.evidence else ())
             if t.attack == a.name and t.figure == "tpr"]
    if tests:
        return any(t.counted for t in tests), True
    return interval_above(row.tpr_ci, ctx.policy.fpr), False


def _model_singling_out(ctx: Context) -> RiskFinding:
    th = ctx.result.theory
    fpr = ctx.policy.fpr
    rows = [(a, a.tpr_at(fpr)) for a in live(ctx.result.attacks)]
    rows = [(a, row) for a, row in rows if row is not None and row.measured_tpr is not None]
    figures: list[tuple[str, str]] = []
    if th.exposed:
        figures.append(("Members listed as most exposed", f"{len(th.exposed):,}"))
    if not rows:
        head = headline_of_result(ctx.result)
        have = (f" (the audit had {head.n_negative:,})"
                if head is not None and is_finite(head.n_negative) else "")
        return finding(SINGLING_OUT, NOT_FOUND,
                       f"No attack's rate at {fpr:.0%} false alarms can be measured: too few "
                       f"records outside the training set to certify so low a rate{have}. "
                       "This is not evidence that no member can be picked out.", figures)
    a, row = max(rows, key=lambda ar: (_tpr_counted(ctx, *ar)[0], ar[1].measured_tpr))
    won, corrected = _tpr_counted(ctx, a, row)
    figures.insert(0, (f"{plain(a)}: members picked out while wrongly accusing {fpr:.0%} of "
                       "the others", with_ci(row.measured_tpr, row.tpr_ci, ctx)))
    if won:
        return finding(SINGLING_OUT, FOUND,
                       f"The {plain(a).lower()} picks out {pct(row.measured_tpr)} of the "
                       f"training members while wrongly accusing only {fpr:.0%} of other "
                       "people: those members' records stand out in the model's answers; "
                       f"{tested_words(corrected, ctx)}.", figures, (a.name,))
    # Not the binomial detectable gain: at a low false-alarm rate the threshold itself is
    # uncertain with few people outside the training set (the TPR's interval is the threshold
    # order statistic's, ARCHITECTURE §5), so the interval's low end says what was missing.
    low = row.tpr_ci[0] if row.tpr_ci and is_finite(row.tpr_ci[0]) else None
    outside = (f" with {int(a.n_negative):,} people outside the training set"
               if is_finite(a.n_negative) else "")
    return finding(SINGLING_OUT, NOT_FOUND,
                   f"At {fpr:.0%} false alarms no attack picks out members measurably more "
                   f"often than guessing would: the {plain(a).lower()} picks out "
                   f"{pct(row.measured_tpr)}, but its interval reaches down to {pct(low)}"
                   f"{outside}, the threshold for {fpr:.0%} false alarms is itself uncertain. "
                   "This is not evidence that no member can be picked out.",
                   figures, (a.name,))


def _model_inference(ctx: Context) -> RiskFinding:
    ai = ctx.result.theory.attribute_inference
    if ai is None:
        return not_tested(INFERENCE, "No sensitive feature was named, so attribute inference "
                          "from the model's outputs was not run.")
    mem, non = ai.members, ai.non_members
    figures = [(f"Predicting '{ai.feature}' for training members, with the model",
                with_ci(mem.model.accuracy, mem.model.accuracy_ci, ctx)),
               ("The same without the model (other features only)",
                with_ci(mem.baseline.accuracy, mem.baseline.accuracy_ci, ctx)),
               ("For people the model never saw, with the model", pct(non.model.accuracy))]
    rp = mem.real_people
    if rp is not None:
        og = rp.obvious_guess
        figures.append(("Members' score from the obvious guess (0) to a sure answer (1)",
                        with_ci(rp.scaled_score, rp.scaled_score_ci, ctx, digits="2")
                        + (f"; the obvious guess is right {pct(og.accuracy)}"
                           if og is not None else "")))
        won, words = interval_above(rp.scaled_score_ci, 0.0), "the obvious guess"
    else:           # a result from before issue 32: the interval against the baseline
        won = interval_above(mem.model.accuracy_ci, mem.baseline.accuracy)
        words = "the other features alone"
    sources = ("attribute_inference",)
    if not won:
        return finding(INFERENCE, NOT_FOUND,
                       f"Predicting '{ai.feature}' with the model's answers cannot be told "
                       f"from {words} at this size; this is not evidence that the risk is "
                       "absent.", figures, sources)
    gains = (mem.model.accuracy, mem.baseline.accuracy, non.model.accuracy,
             non.baseline.accuracy)
    leak = all(is_finite(g) for g in gains) and gains[0] - gains[1] > gains[2] - gains[3]
    return finding(INFERENCE, FOUND,
                   f"The model's answers let an attacker deduce a member's '{ai.feature}' "
                   f"measurably better than {words} (its interval lies above it)"
                   + (", and better for members than for people it never saw: it gives away "
                      "what it memorised." if leak else "; it helps about as much for people "
                      "it never saw, so much of it is what the model learnt about the "
                      "population."), figures, sources)


MAPPINGS = {"aggregates": _aggregates, "location": _location, "mechanism": _mechanism,
            "model": _model}


def article29_risks(result) -> tuple[RiskFinding, ...]:
    """The three WP216 risks of ``result`` (a result dict or a loaded result, read once by
    engine.results.loaded.load_result), in the order singling out, linkability, inference."""
    r = load_result(result)
    mapping = MAPPINGS.get(r.audit_type)
    if mapping is None:
        why = (f"This audit type (“{r.audit_type or 'unknown'}”) has no mapping to the "
               "Article 29 risks yet.")
        return tuple(not_tested(k, why) for k in RISKS)
    found = {f.risk: f for f in mapping(Context.of(r))}
    return tuple(found[k] for k in RISKS)
