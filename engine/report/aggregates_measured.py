"""Section 5 of the count-tables report (paper 003): the attribute game's results — how well
each attack ranks the true value, how often its best guess is right against chance (and on the
targets the tables do not prove, Fig. 5), how it does on the real people (issue 32 item 1), what
the tables prove alone (Alg. 1), the ROC curves — and the membership game of §6. Split out of
engine/report/aggregates.py (issue 33 item 2); reads the typed result
(engine.results.aggregates)."""

from __future__ import annotations

from dataclasses import replace

from reportlab.lib.units import cm
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Spacer

from engine.attacks.real_people import beats_obvious, real_people_sentence
from engine.headline import headline_of_result
from engine.numbers import is_finite
from engine.report import styles as st
from engine.report.aggregates_words import (
    aia_attacks,
    as_dicts,
    chance_corrected,
    chart_attacks,
    details,
    label,
    loaded,
    mia_attacks,
    pct_ci,
    sensitive,
    settled_words,
    theory_of,
    top1,
)
from engine.report.charts import roc_chart
from engine.report.sections import (
    SECTION_TITLES,
    TEXT_WIDTH,
    Heading,
    baselines_table,
    first_time_paragraphs,
    fpr_targets,
    keep,
    key_value_table,
    markup,
    para,
    sub,
    table,
    tpr_cell,
    two_lines,
)
from engine.report.styles import fmt3, fmt_ci, fmt_count, fmt_eps, fmt_num, fmt_pct
from engine.results.blocks import AttackEntry
from engine.results.loaded import LoadedResult
from engine.wording import (
    BEST_GUESS_RIGHT,
    BEST_GUESS_SCALE,
    BEST_GUESS_SCORE,
    DATA_ONLY_GUESS,
    OBVIOUS_GUESS,
    RIGHT_ON_REAL_PEOPLE,
    SCALED_SCORE,
    VALUE_CHECKS_RIGHT,
    shadow_choice_sentence,
)


def results(result) -> list[Flowable]:
    """Section 5 (its heading included)."""
    r = loaded(result)
    attacks = aia_attacks(r)
    # The heading's own parts, not sections.heading() (a KeepTogether): a KeepTogether
    # nested in another always reports an oversized height and forces a page break.
    first: list[Flowable] = [CondPageBreak(6 * cm), Heading(5, SECTION_TITLES[4])]
    if not attacks:
        return first + [para("No attack results are recorded in this result file.")]
    out: list[Flowable] = []
    first.append(para(_results_words(r, attacks)))
    out += _ranking_table(attacks)
    out += _top1_table(r, attacks)
    out += _real_people_table(r, attacks)
    out += first_time_paragraphs(as_dicts(attacks))   # issue 20: a plain sentence per oddity
    out += _deterministic(r)
    out += baselines_table(result)
    out += _roc(attacks)
    out += _membership(r)
    return [KeepTogether(first), *out]


def _results_words(r: LoadedResult, attacks: list[AttackEntry]) -> str:
    sens = markup(sensitive(r))
    det = theory_of(r).deterministic
    text = ""
    # The attack the summary and the cover quote (engine.headline), so the report's body
    # never names another one; a result saved without a headline is ranked the same way.
    head = headline_of_result(replace(r, attacks=tuple(attacks)))
    best = next((a for a in attacks if head is not None and a.name == head.name), None)
    cc = chance_corrected(*top1(details(r, best))[::2]) if best is not None else None
    if cc is not None:
        rate, _, chance = top1(details(r, best))
        n = best.n_positive
        right = (f"for {fmt_count(round(rate * n))} of the {fmt_count(n)} targets "
                 if is_finite(n) and n > 0 else "")
        text += (f"In the paper's game, where each target's value of {sens} is replaced by "
                 f"a random draw, the strongest attack, <b>{label(best)}</b>, recovered "
                 f"the drawn value {right}(<b>{fmt_pct(rate)}</b>, its "
                 f"{BEST_GUESS_RIGHT.lower()}), against {fmt_pct(chance)} by blind "
                 f"guessing: a {BEST_GUESS_SCORE.lower()} of <b>{fmt_pct(cc)}</b>, where "
                 f"{BEST_GUESS_SCALE} (the verdict's figure). ")
        rp = details(r, best).real_people
        if rp:
            try:
                text += markup(real_people_sentence(rp.source, feature=sensitive(r))) + " "
            except (KeyError, TypeError, ValueError, IndexError):
                pass        # a damaged block: its table below shows what it holds
    best_auc = max((a for a in attacks if is_finite(a.auc)), key=lambda a: a.auc,
                   default=None)
    if best_auc is not None:
        text += f"The highest AUC is {fmt3(best_auc.auc)} ({label(best_auc)}). "
    if det and is_finite(det.targets) and det.targets:
        if is_finite(det.determined) and det.determined:
            text += (f"The tables alone <b>prove</b> the value of "
                     f"{fmt_count(det.determined)} of the "
                     f"{fmt_count(det.targets)} targets (section 9 says which "
                     "tables pin them down).")
        else:
            text += (f"The tables alone prove none of the {fmt_count(det.targets)} "
                     "targets' values: every guess above rests on likelihood, not proof.")
    return text or "The attacks' numbers follow."


def _ranking_table(attacks: list[AttackEntry]) -> list[Flowable]:
    targets = fpr_targets(as_dicts(attacks))
    rows = [["Attack", "AUC (0.5 = guessing)",
             f"{VALUE_CHECKS_RIGHT} (50% = blind guess)"]
            + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
    for a in attacks:
        rows.append([label(a), two_lines(fmt3(a.auc), fmt_ci(a.auc_ci)),
                     two_lines(fmt_pct(a.accuracy), pct_ci(a.accuracy_ci))]
                    + [tpr_cell(a, t, "wrong-value pairs") for t in targets])
    first = 5.2 * cm
    rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
    a0 = attacks[0]
    n_pos, n_neg = a0.n_positive, a0.n_negative
    pairs = (f" {fmt_count(n_pos)} true-value pairs and {fmt_count(n_neg)} wrong-value "
             "pairs." if is_finite(n_pos) and is_finite(n_neg) else "")
    return [keep([
        sub("How well each attack ranks the true value"),
        para("AUC, the yes/no decisions' balanced accuracy and TPR at low FPR over the "
             "pooled (target, value) pairs, with 95% intervals below each value." + pairs,
             "small"),
        table(rows, [first] + [rest] * (len(rows[0]) - 1))]
        + [para(markup(w), "small") for w in map(shadow_choice_sentence, as_dicts(attacks))
           if w]),
        Spacer(1, 6)]


def _top1_table(r: LoadedResult, attacks: list[AttackEntry]) -> list[Flowable]:
    rows = [["Attack", f"{BEST_GUESS_RIGHT} (top-1 accuracy)", "Chance 1/|V|",
             f"{BEST_GUESS_SCORE} (the verdict's; 50% = blind guess)",
             "AUC without the proved targets"]]
    for a in attacks:
        d = details(r, a)
        rate, ci, chance = top1(d)
        cc = chance_corrected(rate, chance)
        cc_ci = None
        if ci is not None:
            cc_ci = [chance_corrected(ci[0], chance), chance_corrected(ci[1], chance)]
        ex = d.excluding_determined
        if ex is not None:
            ex_cell = two_lines(fmt3(ex.auc), fmt_ci(ex.auc_ci))
            if is_finite(ex.targets):
                ex_cell += f'<br/><font size="7">{fmt_count(ex.targets)} targets</font>'
        else:
            ex_cell = excluded_none(r)
        rows.append([label(a), two_lines(fmt_pct(rate), pct_ci(ci)), fmt_pct(chance),
                     two_lines(fmt_pct(cc), pct_ci(cc_ci)), ex_cell])
    first = 5.2 * cm
    rest = (TEXT_WIDTH - first) / 4
    return [keep([
        sub("How often each attack names the right value"),
        table(rows, [first] + [rest] * 4), Spacer(1, 3),
        para(f"{BEST_GUESS_SCORE}: 0.5 + (top-1 − chance)/(2·(1 − chance)), 50% at "
             "chance (or below it) and 100% when always right (section 4). The last "
             "column repeats "
             "the AUC on the targets the deterministic module could not prove (paper 003 "
             "Fig. 5): how the attack fares where the tables "
             "leave room for doubt.", "small")]), Spacer(1, 6)]


def _real_people_table(r: LoadedResult, attacks: list[AttackEntry]) -> list[Flowable]:
    """Each attack on the real people (issue 32 item 1): its hit rate against the obvious
    and the data-only guesses on the same targets, and the scaled score. Nothing for a
    result without them (a published table; results from before issue 32)."""
    rows = [["Attack", f"{RIGHT_ON_REAL_PEOPLE}", OBVIOUS_GUESS, DATA_ONLY_GUESS,
             f"{SCALED_SCORE} (0 = obvious guess, 1 = sure)",
             "Measurably better than the obvious guess?"]]
    value = None
    for a in attacks:
        rp = details(r, a).real_people
        if rp is None:
            continue
        og = rp.obvious_guess
        value = og.value if og.has_value else value
        rows.append([label(a),
                     two_lines(fmt_pct(rp.accuracy), pct_ci(rp.accuracy_ci)),
                     fmt_pct(og.accuracy),
                     fmt_pct(rp.data_only_accuracy) if rp.has_data_only else "—",
                     two_lines(f"{rp.scaled_score:.2f}" if is_finite(rp.scaled_score)
                               else "—",
                               fmt_ci(rp.scaled_score_ci, lambda v: f"{v:.2f}")),
                     "yes" if beats_obvious(rp.source) else "no"])
    if len(rows) == 1:
        return []
    first = 4.6 * cm
    rest = (TEXT_WIDTH - first) / 5
    return [keep([
        sub("How often each attack is right about the real people"),
        para(f"The tables as published, the targets' real values of "
             f"{markup(sensitive(r))}; the obvious guess answers "
             f"'{markup(str(value))}' for everyone (section 4).", "small"),
        table(rows, [first] + [rest] * 5)]), Spacer(1, 6)]


def excluded_none(r: LoadedResult) -> str:
    """Why an attack has no AUC without the proved targets (contract: null)."""
    det = theory_of(r).deterministic
    t, d = (det.targets, det.determined) if det else (None, None)
    if is_finite(d) and d == 0:
        return "as in the first table (no target proved)"
    if is_finite(t) and is_finite(d) and t - d < 2:
        return f"{fmt_count(t - d)} target(s) left: too few"
    return st.DASH


def _deterministic(r: LoadedResult) -> list[Flowable]:
    det = theory_of(r).deterministic
    if not det:
        return []
    t, d, c = det.targets, det.determined, det.correct
    share = d / t if is_finite(t) and t and is_finite(d) else None
    rows = [("Targets checked", fmt_count(t)),
            ("Proved by the tables", f"{fmt_count(d)} ({fmt_pct(share)})"),
            ("Of which right", fmt_count(c)),
            ("Solves cut by the time limit", fmt_count(det.time_limited)),
            ("How each target was settled", settled_words(det.settled_by)),
            ("Time per target", f"median {fmt_num(det.median_s)} s, 95th "
             f"percentile {fmt_num(det.p95_s)} s")]
    words = ("A proved value is the only one consistent with the released counts and the "
             "target's quasi-identifiers, so it cannot be wrong when the counts are "
             "exact. ")
    if is_finite(d) and is_finite(c) and c < d:
        words += (f"Here {fmt_count(d - c)} proved value(s) were wrong: with noise the "
                  "released counts are not the true ones, and a “proof” on them can "
                  "mislead. ")
    if is_finite(det.time_limited) and det.time_limited:
        words += ("Solves cut by the time limit prove nothing, so the number proved is a "
                  "lower bound; a longer solver_time_limit may prove more.")
    return [keep([sub("What the tables prove on their own"),
                  key_value_table(rows, 6.0 * cm), Spacer(1, 3),
                  para(words, "small")]),
            Spacer(1, 6)]


def _roc(attacks: list[AttackEntry]) -> list[Flowable]:
    shown, left = chart_attacks(attacks)
    if not shown:
        return []
    names = [a.name for a in shown]       # colours as on screen, where all are
    titles = dict(x_title="False-positive rate (wrong values flagged)",
                  y_title="True-positive rate (true values found)")
    caption = ("Shaded band: pointwise 95% intervals of the strongest attack's true ROC. "
               "Values of 0 "
               "cannot be drawn on log axes: curves enter from the chart's edge.")
    if left:
        caption += (" Not drawn (five line styles only; their numbers are in the tables "
                    "above): " + ", ".join(label(a) for a in left) + ".")
    chart = {"attacks": as_dicts(attacks), "theory": {}}
    return [keep([
        sub("ROC curves of the attribute game"),
        para("Each curve shows, for every threshold on the scores, the share of true values "
             "found (TPR) against the share of wrong values flagged (FPR), over the pooled "
             "(target, value) pairs. The log-log view magnifies the low-FPR corner, where "
             "an attacker is confident about a few people — the case that harms them.",
             "small"),
        roc_chart(chart, log_scale=False, only=names,
                  title="ROC of the attribute game, linear axes", **titles),
        Spacer(1, 4),
        roc_chart(chart, log_scale=True, only=names,
                  title="ROC of the attribute game, log-log axes", **titles),
        para(caption, "caption")])]


def _membership(r: LoadedResult) -> list[Flowable]:
    th = theory_of(r)
    mem = th.membership
    if not mem:
        return []
    attacks = mia_attacks(r)
    out: list[Flowable] = []
    proved, right = mem.proved, mem.proved_correct
    words = (f"{fmt_count(mem.targets)} targets, each with its own secret coin "
             "(counted or left out). ")
    if is_finite(proved) and proved == 0:
        words += "The tables alone proved none of the memberships."
    else:
        words += (f"The tables alone proved {fmt_count(proved)} of the memberships"
                  + (" (all of them right)." if is_finite(proved) and proved == right
                     else f" ({fmt_count(right)} of them right)."))
    head = [sub("The membership game (paper 003 §6)"), para(words)]
    if not attacks:
        return [KeepTogether(head + [para("No membership attack results are recorded.")])]
    targets = fpr_targets(as_dicts(attacks))
    rows = [["Attack", "AUC", "Balanced accuracy"]
            + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
    for a in attacks:
        rows.append([label(a), two_lines(fmt3(a.auc), fmt_ci(a.auc_ci)),
                     two_lines(fmt_pct(a.accuracy), fmt_ci(a.accuracy_ci, fmt_pct))]
                    + [tpr_cell(a, t, "non-members") for t in targets])
    first = 5.0 * cm
    rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
    # What each best-of attack chose on its rehearsal, so the reader sees which score
    # stands behind its row (engine.wording.shadow_choice_sentence).
    chose = [para(markup(w), "small") for w in map(shadow_choice_sentence, as_dicts(attacks))
             if w]
    out.append(KeepTogether(head + [table(rows, [first] + [rest] * (len(rows[0]) - 1))]
                            + chose))
    dp = th.dp
    shown, _ = chart_attacks(attacks)
    region = dp.dp_region if dp else None
    theory = {"dp_region": dict(region)} if region is not None else {}
    caption = "Shaded band: pointwise 95% intervals of the strongest attack. "
    if theory:
        caption += (f"Shaded: what ε' = {fmt_eps(dp.region_epsilon)} permits (paper 002 "
                    "Thm 1). The two datasets of the membership game differ by one person "
                    "swapped for another (both have |D| − 1 people), a change of one record, "
                    "so ε' = 2ε applies. A curve above the shaded area would show that the "
                    "noise does not give the guarantee.")
    else:
        caption += "No noise was added, so there is no DP region to draw."
    out.append(keep([
        Spacer(1, 4),
        roc_chart({"attacks": as_dicts(attacks), "theory": theory}, log_scale=True,
                  only=[a.name for a in shown],
                  title="ROC of the membership game, log-log axes"),
        para(caption, "caption")]))
    return out
