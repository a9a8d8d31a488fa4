"""Section 5 of the model audit's report (engine/report/model.py): one table of every attack,
the ROC with paper 001's Thm 2 line, the strongest attack against the bound, the
generalization gap, the strongest attack class by class, attribute inference, and the
defences' trade-off when the audit ran them (engine/report/defences.py).

Read typed (issue 33 item 1): the attacks as AttackEntry, the theory block through
engine.results.model.
"""

from __future__ import annotations

import numpy as np
from reportlab.lib.units import cm
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Spacer

from engine.games.model_summary import attribute_sentence
from engine.numbers import is_finite
from engine.report import styles as st
from engine.report.charts import roc_chart
from engine.report.defences import defences_section
from engine.report.model_parts import (
    MAX_GAP_CLASSES,
    MIN_CLASS_RECORDS,
    as_dict,
    bound_auc,
    bound_curve,
    bound_tpr,
    chart_attacks,
    fpr_targets,
    label,
    points,
    pp,
    strongest_attack,
    typed,
)
from engine.report.sections import (
    SECTION_TITLES,
    TEXT_WIDTH,
    Heading,
    first_time_paragraphs,
    keep,
    markup,
    min_negatives,
    para,
    policy_fpr,
    sub,
    table,
    tpr_cell,
    two_lines,
)
from engine.report.styles import fmt3, fmt_ci, fmt_count, fmt_pct
from engine.results.blocks import AttackEntry, BttaBound
from engine.results.loaded import load_result
from engine.wording import OBVIOUS_GUESS, SCALED_SCORE


def _short_tpr_cell(a: AttackEntry, t: float) -> str:
    """TPR at ``t`` with its interval below; a bare "not measurable" (the table's note says
    how many non-members it needs)."""
    row = a.tpr_at(t)
    if row is not None and not row.measurable:
        return "not measurable"
    return tpr_cell(a, t, "non-members")


def results_section(result) -> list[Flowable]:
    """Section 5 (module docstring)."""
    result = load_result(result)        # read once; every part below reads it typed
    r, _ = typed(result)
    attacks = list(r.attacks)
    # The heading's own parts, not sections.heading() (a KeepTogether): nested
    # KeepTogethers force page breaks (sections.keep).
    first: list[Flowable] = [CondPageBreak(6 * cm), Heading(5, SECTION_TITLES[4])]
    if not attacks:
        return [KeepTogether(first + [para("No attack results are recorded in this "
                                           "result file.")]),
                *_gap(result)]
    first.append(para(_results_words(result)))
    table_part = _attack_table(result, attacks)
    out: list[Flowable] = [keep(first + table_part[:1]), *table_part[1:]]
    out += first_time_paragraphs([a.to_dict() for a in attacks])   # issue 20
    out += _roc(result)
    out += _strongest(result)
    out += _gap(result)
    out += _per_class(result)
    out += _attribute(result)
    out += defences_section(result)
    return out


def _results_words(result) -> str:
    best = strongest_attack(result)
    bb = typed(result)[1].btta_bound or BttaBound()
    fpr = policy_fpr(as_dict(result))
    text = ""
    if best is not None:
        row = best.tpr_at(fpr)
        text += (f"The strongest attack, <b>{label(best)}</b>, tells members from "
                 f"non-members with AUC <b>{fmt3(best.auc)}</b> and balanced "
                 f"accuracy {fmt_pct(best.accuracy)}")
        if row is not None and row.measurable:
            text += (f"; it finds <b>{fmt_pct(row.tpr)}</b> of the members while "
                     f"wrongly accusing {fmt_pct(fpr)} of the non-members")
        text += ". "
    if is_finite(bb.balanced_accuracy_bound):
        text += ("Knowing only the train and test accuracy, no attack's balanced accuracy "
                 f"exceeds {fmt_pct(bb.balanced_accuracy_bound)} (paper 001 Thm 2)"
                 + (f", and at {fmt_pct(fpr)} FPR none finds more than "
                    f"{fmt_pct(bound_tpr(result, fpr))} of the members."
                    if bound_tpr(result, fpr) is not None else "."))
    return text or "The attacks' numbers follow."


def _attack_table(result, attacks: list[AttackEntry]) -> list[Flowable]:
    targets = fpr_targets(attacks)
    rows = [["Attack", "AUC (0.5 = guessing)", "Balanced accuracy"]
            + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
    for a in attacks:
        rows.append([label(a), two_lines(fmt3(a.auc), fmt_ci(a.auc_ci)),
                     two_lines(fmt_pct(a.accuracy), fmt_ci(a.accuracy_ci, fmt_pct))]
                    + [_short_tpr_cell(a, t) for t in targets])
    bb = typed(result)[1].btta_bound
    if bb is not None:
        rows.append(["<i>Thm 2 bound: knowing only the accuracies</i>",
                     fmt3(bound_auc(result)), fmt_pct(bb.balanced_accuracy_bound)]
                    + [fmt_pct(bound_tpr(result, t)) for t in targets])
    first = 4.4 * cm
    rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
    n_pos, n_neg = attacks[0].n_positive, attacks[0].n_negative
    counts = (f" Measured on {fmt_count(n_pos)} members and {fmt_count(n_neg)} "
              "non-members." if is_finite(n_pos) and is_finite(n_neg) else "")
    unmeasurable = [t for t in targets
                    if any(a.tpr_at(t) is not None and not a.tpr_at(t).measurable
                           for a in attacks)]
    if unmeasurable:
        t = min(unmeasurable)
        counts += (f" “Not measurable”: certifying an FPR of {fmt_pct(t)} needs at least "
                   f"{fmt_count(min_negatives(t))} non-members.")
    return [keep([
        sub("How well each attack tells members from non-members"),
        para("AUC, balanced accuracy and TPR at low FPR, with 95% intervals below each "
             "value." + counts + (" The last row is the most any attack knowing only "
                                  "the train and test accuracy can reach (no interval: it "
                                  "is computed, not measured)." if bb is not None
                                  else ""), "small"),
        table(rows, [first] + [rest] * (len(rows[0]) - 1))]), Spacer(1, 6)]


def _roc(result) -> list[Flowable]:
    shown, left = chart_attacks(result)
    if not shown:
        return []
    names = [a.name for a in shown]     # the bound and band: from the result
    curve = bound_curve(result)[0]
    caption = (("Red dashed line: the best ROC of an attack that knows only the train "
                "and test accuracy, (0, 0) – (p1, p0) – (1, 1) (paper 001 Thm 2); a curve "
                "above it uses more than the generalization gap. " if curve else "")
               + "Shaded band: pointwise 95% "
               "intervals of the strongest attack's true ROC. Values of 0 cannot be drawn on log "
               "axes: curves enter from the chart's edge.")
    if left:
        caption += (" Not drawn (five line styles only; their numbers are in the table "
                    "above): " + ", ".join(label(a) for a in left) + ".")
    titles = dict(x_title="False-positive rate (non-members wrongly accused)",
                  y_title="True-positive rate (members found)")
    plain = as_dict(result)
    return [keep([
        sub("ROC curves"),
        para("Each curve shows, for every threshold on the scores, the share of members "
             "found (TPR) against the share of non-members wrongly accused (FPR). The "
             "log-log view magnifies the low-FPR corner, where an attacker is confident "
             "about a few people — the case that harms them.", "small"),
        roc_chart(plain, log_scale=False, title="ROC, linear axes", only=names, **titles),
        Spacer(1, 4),
        roc_chart(plain, log_scale=True,
                  title="ROC, log-log axes (low false-alarm region)", only=names, **titles),
        para(caption, "caption")])]


def _strongest(result) -> list[Flowable]:
    best = strongest_attack(result)
    bb = typed(result)[1].btta_bound
    if best is None or bb is None:
        return []
    rows = [("Measure", f"{label(best)} (measured)", "Thm 2 bound", "Difference")]
    acc, lim = best.accuracy, bb.balanced_accuracy_bound
    rows.append(("Balanced accuracy",
                 two_lines(fmt_pct(acc), fmt_ci(best.accuracy_ci, fmt_pct)),
                 fmt_pct(lim),
                 points(acc - lim) if is_finite(acc) and is_finite(lim) else st.DASH))
    auc, lim_auc = best.auc, bound_auc(result)
    rows.append(("AUC", two_lines(fmt3(auc), fmt_ci(best.auc_ci)), fmt3(lim_auc),
                 f"{auc - lim_auc:+.3f}" if is_finite(auc) and is_finite(lim_auc) else st.DASH))
    for t in fpr_targets([best]):
        row = best.tpr_at(t)
        tpr = row.tpr if row is not None else None
        b = bound_tpr(result, t)
        if row is not None and not row.measurable:
            diff = "not measurable"
        elif is_finite(tpr) and is_finite(b) and b > 0:
            diff = f"{points(tpr - b)} ({tpr / b:.3g}× the bound)"
        else:
            diff = points(tpr - b) if is_finite(tpr) and is_finite(b) else st.DASH
        rows.append((f"TPR at {fmt_pct(t)} FPR", tpr_cell(best, t, "non-members"),
                     fmt_pct(b), diff))
    ci = best.accuracy_ci
    lo = ci[0] if ci is not None and is_finite(ci[0]) else acc
    if is_finite(lo) and is_finite(lim) and lo > lim + 1e-12:
        words = (f"<b>{label(best)} beats the bound by {pp(acc - lim)}</b> of "
                 "balanced accuracy, even at the lower end of its interval: the model "
                 "reveals membership through its confidence, not only through its "
                 "mistakes. Lowering the gap (regularisation, more data, early stopping) "
                 "would not be enough on its own.")
    elif is_finite(acc) and is_finite(lim):
        words = ("The strongest attack's balanced accuracy does not clearly exceed the "
                 "bound: the attacks learn little beyond the generalization gap (paper "
                 "001's observation), so closing the gap is the first remedy.")
    else:
        words = "The comparison needs both the attack's and the bound's accuracy."
    return [keep([sub("The strongest attack against the Thm 2 bound"), para(words),
                  table(rows, [3.6 * cm, 4.2 * cm, 2.6 * cm, TEXT_WIDTH - 10.4 * cm]),
                  Spacer(1, 3),
                  para("At a low FPR the bound is a straight line through the origin, "
                       "TPR = FPR·p0/p1: an attack knowing only the accuracies cannot be "
                       "confident about anyone.", "small")]),
            Spacer(1, 6)]


def _gap(result) -> list[Flowable]:
    theory = typed(result)[1]
    gap = theory.generalization_gap
    if gap is None:
        return []
    words = (f"The model labels {fmt_pct(gap.train_accuracy)} "
             f"{fmt_ci(gap.train_accuracy_ci, fmt_pct)} of its "
             f"{fmt_count(gap.n_members)} members correctly and "
             f"{fmt_pct(gap.test_accuracy)} "
             f"{fmt_ci(gap.test_accuracy_ci, fmt_pct)} of its "
             f"{fmt_count(gap.n_non_members)} non-members: a gap of "
             f"<b>{pp(gap.gap)}</b>"
             + (f" {fmt_ci([100 * v for v in gap.gap_ci], lambda v: f'{v:.1f}')}"
                if gap.gap_ci is not None and all(is_finite(v) for v in gap.gap_ci) else "")
             + ". Membership attacks feed on this gap; a class with a larger gap exposes its "
               "members more.")
    per = [c for c in theory.gap_classes if is_finite(c.gap)]
    out: list[Flowable] = [sub("Generalization gap"), para(words)]
    if per:
        def big_enough(c) -> bool:
            return c.n_members >= MIN_CLASS_RECORDS and c.n_non_members >= MIN_CLASS_RECORDS

        big = [c for c in per if big_enough(c)] or per
        big = sorted(big, key=lambda c: -c.gap)[:MAX_GAP_CLASSES]
        rows = [("Class", "Members", "Non-members", "Train accuracy", "Test accuracy",
                 "Gap")]
        for c in big:
            rows.append((markup(c.name), fmt_count(c.n_members), fmt_count(c.n_non_members),
                         two_lines(fmt_pct(c.train_accuracy),
                                   fmt_ci(c.train_accuracy_ci, fmt_pct)),
                         two_lines(fmt_pct(c.test_accuracy),
                                   fmt_ci(c.test_accuracy_ci, fmt_pct)),
                         two_lines(points(c.gap),
                                   fmt_ci([100 * v for v in c.gap_ci], lambda v: f"{v:.1f}")
                                   if c.gap_ci is not None else "")))
        skipped = len(per) - len([c for c in per if big_enough(c)])
        note = (f"The {len(big)} classes with the largest gaps, of {fmt_count(len(per))}"
                + (f" (classes with fewer than {MIN_CLASS_RECORDS} members or non-members "
                   f"are left out: {fmt_count(skipped)})" if 0 < skipped < len(per) else "")
                + ". With few records per class the intervals are wide: a large gap in a "
                "small class is a reason to look, not a measurement.")
        out += [para(note, "small"),
                table(rows, [1.4 * cm, 1.9 * cm, 2.9 * cm, 3.2 * cm, 3.2 * cm,
                             TEXT_WIDTH - 12.6 * cm])]
    return [keep(out), Spacer(1, 6)]


def _per_class(result) -> list[Flowable]:
    """The strongest attack class by class (issue 8: per-class breakdown)."""
    best = strongest_attack(result)
    rows_in = [c for c in typed(result)[1].classes_of(best) if is_finite(c.auc)]
    if not rows_in:
        return []
    aucs = np.array([c.auc for c in rows_in])
    above = sum(1 for c in rows_in if c.auc_ci is not None and c.auc_ci[0] > 0.5)
    big = [c for c in rows_in if c.n_members >= MIN_CLASS_RECORDS
           and c.n_non_members >= MIN_CLASS_RECORDS] or rows_in
    top = sorted(big, key=lambda c: -c.auc)[:MAX_GAP_CLASSES]
    rows = [("Class", "Members", "Non-members", "AUC", "Members spotted", "Others accused")]
    for c in top:
        rows.append((markup(c.name), fmt_count(c.n_members), fmt_count(c.n_non_members),
                     two_lines(fmt3(c.auc), fmt_ci(c.auc_ci)), fmt_pct(c.tpr), fmt_pct(c.fpr)))
    words = (f"{label(best)} within each class (members against non-members of the same "
             f"class): across {fmt_count(len(rows_in))} classes its AUC ranges from "
             f"{fmt3(float(aucs.min()))} to {fmt3(float(aucs.max()))} (median "
             f"{fmt3(float(np.median(aucs)))}); in {fmt_count(above)} the interval lies "
             "above 0.5. The classes where it does best"
             + (f" (classes with at least {MIN_CLASS_RECORDS} members and non-members)"
                if len(big) < len(rows_in) else "")
             + "; “members spotted” and “others accused” use the attack's own rule:")
    return [keep([sub("The strongest attack class by class"), para(words),
                  table(rows, [2.6 * cm, 2.0 * cm, 2.7 * cm, 3.2 * cm, 2.8 * cm,
                               TEXT_WIDTH - 13.3 * cm])]), Spacer(1, 6)]


def _attribute(result) -> list[Flowable]:
    """Attribute inference beside its data-only baseline (issue 8)."""
    a = typed(result)[1].attribute_inference
    if a is None:
        return []

    rows = [("Records", "Predictor", "Right (top-1)", "AUC (one value vs rest)",
             f"{SCALED_SCORE} (0 = obvious guess, 1 = sure)")]
    for (_, group), words in zip(a.groups(), ("Training members", "Non-members"),
                                 strict=True):
        rp = group.real_people
        for m, who in ((group.model, "model's outputs + other features"),
                       (group.baseline, "other features only (no model)")):
            scaled = st.DASH
            if m is group.model and rp is not None and is_finite(rp.scaled_score):
                scaled = two_lines(f"{rp.scaled_score:.2f}",
                                   fmt_ci(rp.scaled_score_ci, lambda v: f"{v:.2f}"))
            rows.append((words, who, two_lines(fmt_pct(m.accuracy),
                                               fmt_ci(m.accuracy_ci, fmt_pct)),
                         two_lines(fmt3(m.auc), fmt_ci(m.auc_ci)), scaled))
        og = rp.obvious_guess if rp is not None else None
        if og is not None:    # where the scaled score starts (issue 32 item 1)
            rows.append((words, f"{OBVIOUS_GUESS.lower()}: "
                         f"'{markup(str(og.value))}' for everyone",
                         fmt_pct(og.accuracy), st.DASH, "0"))
    try:
        words = markup(attribute_sentence(dict(a.table)))
    except (KeyError, TypeError):
        words = "The attribute game's numbers are incomplete in this result file."
    return [keep([
        sub(f"Attribute inference: {markup(a.feature)}"),
        para(words),
        table(rows, [3.0 * cm, 4.6 * cm, 2.8 * cm, 2.8 * cm, TEXT_WIDTH - 13.2 * cm]),
        Spacer(1, 3),
        para(f"The attacker trains a {markup(a.classifier)} predictor on its own "
             f"{fmt_count(a.attacker_records)} records, whose value it knows, and "
             "applies it to the audited records; the baseline is the same predictor "
             "without the model's outputs (the data-only guess). Intervals: "
             "Clopper–Pearson for the share right, clustered by record for the AUC. The "
             f"{OBVIOUS_GUESS.lower()} answers the most common value among the records "
             f"for everyone; the {SCALED_SCORE.lower()} (right − obvious guess) / "
             "(1 − obvious guess) puts the predictor between it (0) and a sure answer "
             "(1), with an exact interval and a one-sided exact sign test against the "
             "obvious guess on the same records (docs/methods/model_audit.md).",
             "small")]), Spacer(1, 6)]


__all__ = ["results_section"]
