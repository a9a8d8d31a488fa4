"""The report's method and results sections shared by the membership games (issue 33 item 2:
split from engine/report/sections.py): section 4's attacks and how they are measured, section
5's table per attack, the baselines, the ROC charts and the glossary. Results are read once by
engine.results.loaded.load_result and attacks as typed entries here (issue 33 item 1)."""

from __future__ import annotations

from collections.abc import Iterable

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, PageBreak, Spacer

from engine.report import styles as st
from engine.report.charts import roc_chart
from engine.report.sections_base import (
    TEXT_WIDTH,
    attack_entry,
    bullets,
    heading,
    keep,
    min_negatives,
    para,
    sub,
    table,
    tpr_cells,
)
from engine.report.styles import fmt3, fmt_ci, fmt_count, fmt_eps, fmt_pct, fmt_points, markup
from engine.results.blocks import AttackEntry
from engine.results.loaded import load_result
from engine.wording import attack_words, first_time_notes, glossary_for


def method_common(result, describe=None) -> list[Flowable]:
    """The attacks and the empirical-ε method, the same for every audit type.

    ``describe(attack) -> str`` (markup) adds the audit's plain words on how an attack decides;
    ``details.paper`` of an attack, when present, is cited after its score.
    """
    attacks = load_result(result).attacks
    out: list[Flowable] = [sub("Attacks")]
    if not attacks:
        out.append(para("No attack was run."))
    for a in attacks:
        method = a.method
        # The methods appendix keeps the science: plain name first, then the technical name
        # and the paper (engine.wording's catalogue; issue 20).
        words = attack_words(a.name, a.label)
        # One citation: the result's own (it names the sections the run used) where it has
        # one, else the catalogue's (the walk-through read both, one after the other).
        reference = f"Paper {method.paper}" if method.paper else words.reference
        line = (f"<b>{markup(words.plain_name)}</b> "
                f"({markup(a.label or words.technical)}"
                + (f"; {markup(reference)}" if reference else "") + ")")
        if method.statistic:
            line += f" — score: {markup(method.statistic)}."
        said = describe(a) if describe else ""
        if said:
            line += f" {said}"
        if method.note:
            line += f" {markup(method.note)}"
        out += bullets([line])
    out.append(sub("How the attacks are measured"))
    bounded = next((a for a in attacks if a.epsilon_lower_bound), None)
    eps = bounded.epsilon_bound if bounded is not None else None
    delta = eps.delta if eps is not None else None
    conf = eps.confidence if eps is not None and "confidence" in bounded.epsilon_lower_bound \
        else 0.95
    method_name = eps.method if eps is not None else None
    sources = {a.method.accuracy_threshold_source for a in attacks}
    if sources == {OWN_RULE}:
        where = ("at the threshold each attack's own rule fixed before seeing the evaluation "
                 "trials (from the attacker's own data, see above), and evaluated on all "
                 "trials")
    elif OWN_RULE in sources:
        where = ("at the threshold the attack's own rule fixed before seeing the evaluation "
                 "trials where it has one, otherwise at a threshold chosen on one half of the "
                 "trials and evaluated on the other half")
    else:
        where = ("at a threshold chosen on one half of the trials and evaluated on the other "
                 "half")
    out.append(para(
        "Each attack gives every trial a score (higher = “present”). From the scores we draw "
        "the ROC curve (all thresholds), its area (AUC, with a DeLong interval), and the "
        "true-positive rate (TPR) at fixed low false-positive rates (FPR). Balanced accuracy "
        f"and advantage (TPR − FPR) are measured {where}, so they are not flattered by "
        "choosing the threshold after seeing the answers (ARCHITECTURE §5; paper 002 §3, "
        "“success metrics”); their intervals are exact Clopper–Pearson intervals (combined by "
        "MOVER when the two groups differ in size)."))
    out.append(para(
        "<b>Intervals of TPR at a fixed FPR.</b> The threshold for “FPR = 0.1 %” is read off "
        "the simulated non-members, so its own true FPR is uncertain (about ±40 % at 0.1 % "
        "with 20,000 non-members); an interval on the true positives alone would miss the "
        "truth far more often than it claims. Each interval therefore spans two thresholds: "
        "one whose true FPR is at most the target and one whose true FPR is at least the "
        "target (placed by the binomial law of the false-positive count), each bounded by an "
        "exact Clopper–Pearson bound on its true positives. With a quarter of the error level "
        "for each of the four statements, it covers the attack's true TPR at the target FPR "
        f"with at least {st.fmt_conf(conf)} confidence, for any score distribution. The ROC "
        "bands are built the same way at every FPR (pointwise). Coverage is checked by "
        "simulation over hundreds of seeds against exact theory."))
    out.append(para(
        "<b>Empirical ε lower bound</b> (paper 002 Thm 1 and Cor. 1): any (ε, δ)-DP "
        "mechanism forces every attacker to satisfy TPR ≤ e<super>ε</super>·FPR + δ and "
        "TNR ≤ e<super>ε</super>·FNR + δ. Turning this around, an attack that reaches a "
        "given TPR and FPR proves ε ≥ ln((TPR − δ)/FPR). We use the lower one-sided "
        f"{bound_interval_label(method_name)} bound of TPR and the upper bound of FPR "
        "(each at half the error level), so the stated ε holds with "
        f"{st.fmt_conf(conf)} confidence"
        + (" (approximately: Jeffreys intervals do not guarantee coverage)"
           if method_name == "jeffreys" else "") + "; "
        "the threshold is chosen on a separate split of the trials, "
        + (f"and δ = {st.fmt_sci(delta)}." if delta is not None else "with δ as stated.")))
    out.append(para(
        "<b>Which attacks count: Holm's correction.</b> With many attacks run, the largest of "
        "their figures lies above chance by luck alone far more often than 1 time in 20. So "
        "each figure that could raise the verdict — an attack's balanced accuracy against "
        "½, its true-positive rate at the verdict's false-positive rate against that rate "
        "(where measurable), a count-table attack's best guess against chance, and its hit "
        "rate on the people's real values against the obvious guess — gets a one-sided test "
        "that inverts the interval shown (exact binomial or Clopper–Pearson; MOVER for "
        "unequal groups), and Holm's step-down procedure (Holm 1979) over all m of them keeps "
        f"the family-wise error at {st.fmt_conf(1 - (1 - conf) / 2)} confidence (2.5 % for "
        "95 % intervals) whatever the correlation between the attacks. Only figures that "
        "survive raise the level; the rest are listed as “cannot be told from guessing”. "
        "Guesses that ignore the release (the data-only guess, a random guess) are the "
        "baselines, not members of the family. A max-statistic bootstrap would have more power "
        "when the attacks are strongly correlated; it needs every attack's raw scores and is "
        "not used yet."))
    return out


# --------------------------------------------------------------------------- 5. results

#: ``details.accuracy_threshold_source`` of an attack whose rule set its own threshold
#: (engine.auditing.evaluate_attack), e.g. from shadow data (paper 000 Alg. 3).
OWN_RULE = "the attack's own rule"


def accuracy_note(a: AttackEntry) -> str:
    """Where the threshold of an attack's balanced accuracy came from, in a few words."""
    if a.method.accuracy_threshold_source == OWN_RULE:
        return "threshold set by the attack's own rule before these trials; all trials"
    return "threshold chosen on a separate split"


def bound_interval_label(method: str | None) -> str:
    """How the ε lower bound's rates were bounded, in words (engine.auditing's ``method``)."""
    return "Jeffreys (approximate)" if method == "jeffreys" else "Clopper–Pearson"


def attack_table(attack: AttackEntry | dict) -> list[Flowable]:
    """All §5 metrics of one attack, with intervals, in one table (read through its typed
    entry, :func:`attack_entry`)."""
    a = attack_entry(attack)
    out: list[Flowable] = []
    # Plain name first, with what the attacker does; the technical name is in section 4.
    words = attack_words(a.name, a.label)
    n_pos, n_neg = a.n_positive, a.n_negative
    head = [sub(markup(words.plain_name))]
    bits = [markup(words.description) + "."] if words.description else []
    if n_pos is not None and n_neg is not None:
        bits.append(f"{fmt_count(n_pos)} trials with the person present (members), "
                    f"{fmt_count(n_neg)} without (non-members).")
    stat = a.method.statistic
    if stat:
        bits.append(f"Score: {markup(stat)}.")
    if bits:
        head.append(para(" ".join(bits), "small"))
    rows = [("Measure", "Value", "95% interval", "Note")]
    rows.append(("AUC (0.5 = guessing, 1 = perfect)", fmt3(a.auc), fmt_ci(a.auc_ci), ""))
    # Rates in %, as the results page writes them (issue 32 item 6: "91.6 %" on screen was
    # "0.916" here); AUC is not a rate and keeps its decimals.
    rows.append(("Balanced accuracy", fmt_pct(a.accuracy), fmt_ci(a.accuracy_ci, fmt_pct),
                 accuracy_note(a)))
    rows.append(("Advantage (TPR − FPR)", fmt_pct(a.advantage),
                 fmt_ci(a.advantage_ci, fmt_pct),
                 "at the same threshold"))
    reps = a.method.repetitions
    if isinstance(reps, dict) and len(reps.get("accuracy") or []) > 1:
        rows.append((f"Accuracy over {len(reps['accuracy'])} replays",
                     f"{fmt_pct(reps.get('accuracy_mean'))} ± "
                     f"{fmt_points(reps.get('accuracy_sd'))}",
                     st.DASH, "mean ± standard deviation, fresh releases each time"))
    for row in a.tpr_at_fpr:
        value, ci, note = tpr_cells(row)
        if not row.measurable:
            need = min_negatives(row.fpr)
            note = (f"with {fmt_count(n_neg)} non-members" +
                    (f"; at least {fmt_count(need)} are needed to certify FPR ≤ "
                     f"{fmt_pct(row.fpr)}" if need else ""))
        rows.append((f"TPR at {fmt_pct(row.fpr)} FPR", value, ci, note))
    eb = a.epsilon_bound
    if eb is not None:
        note = f"{bound_interval_label(eb.method)}, threshold from a separate split"
        if eb.delta is not None:
            note += f", δ = {st.fmt_sci(eb.delta)}"
        if eb.max_certifiable is not None:
            note += f"; at most {fmt_eps(eb.max_certifiable)} certifiable with these trials"
        rows.append((f"Empirical ε lower bound ({st.fmt_conf(eb.confidence)} "
                     "confidence)", fmt_eps(eb.value), st.DASH, note))
    widths = [4.6 * cm, 2.4 * cm, 3.6 * cm, TEXT_WIDTH - 10.6 * cm]
    out.append(keep(head + [table(rows, widths)]))
    out.append(Spacer(1, 6))
    return out


def baselines_table(result) -> list[Flowable]:
    bl = load_result(result).baselines
    if not bl:
        return []
    targets = sorted({r.fpr for b in bl for r in b.tpr_at_fpr if r.key == "fpr_target"
                      and isinstance(r.fpr, (int, float))})
    rows = [["Baseline", "AUC", "Balanced accuracy"]
            + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
    for b in bl:
        rows.append([markup(b.display_label), fmt3(b.auc), fmt_pct(b.accuracy)]
                    + [tpr_cells(b.tpr_at(t))[0] if b.tpr_at(t) is not None else st.DASH
                       for t in targets])
    first = 6.0 * cm
    rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
    return [keep([sub("Baselines"),
                          para("What an attacker achieves without using the release: a measured "
                               "attack is only informative where it beats these.", "small"),
                          table(rows, [first] + [rest] * (len(rows[0]) - 1))]),
            Spacer(1, 6)]


def results(result) -> list[Flowable]:
    r = load_result(result)
    attacks = r.attacks
    if not attacks:
        out: list[Flowable] = [heading(5),
                               para("No attack results are recorded in this result file.")]
    else:   # the heading travels with the first table, never alone at a page's foot
        first = attack_table(attacks[0])
        out = [keep([heading(5), first[0]]), *first[1:]]
    for a in attacks[1:]:
        out += attack_table(a)
    optimal = getattr(r.theory, "optimal_attacker", None)
    if attacks or (optimal is not None and optimal.roc):
        out.append(keep([
            sub("ROC curves"),
            para("Each curve shows, for every possible decision threshold, the share of people "
                 "present that the attacker finds (TPR) against the share of people absent that "
                 "it wrongly flags (FPR). Higher and further left is a stronger attack. The "
                 "log-log view magnifies the low-FPR corner, where an attacker is confident "
                 "about a few people — the case that harms them.", "small"),
            roc_chart(r, log_scale=False),
            Spacer(1, 4),
            roc_chart(r, log_scale=True),
            para("Shaded band: pointwise 95% intervals of the strongest attack's true ROC (they "
                 "allow for the uncertain FPR of each threshold, see “How the attacks are "
                 "measured”). "
                 "Values of 0 cannot be drawn on log axes: curves enter from the chart's edge.",
                 "caption")]))
    out += baselines_table(r)
    out += first_time_paragraphs(attacks)
    return out


def first_time_paragraphs(attacks: Iterable) -> list[Flowable]:
    """The plain sentence under a results table for each surprising reading (a negative
    advantage, an interval across zero, "-0.0", "not measurable"), once each
    (engine.wording.first_time_notes; issue 20). engine.wording sits below the typed blocks
    and reads the entries as written (their dicts)."""
    notes = first_time_notes([a.to_dict() if isinstance(a, AttackEntry) else a
                              for a in attacks])
    if not notes:
        return []
    return [sub("Reading these tables")] + bullets(markup(n) for n in notes)


def glossary(audit_type: str | None = None) -> list[Flowable]:
    """The glossary page (engine.wording.glossary_for): every term of the results of that
    audit type in plain words, the same terms as the results page's "?" strip."""
    out: list[Flowable] = [PageBreak(), para("Glossary", "h1")]
    for term, words in glossary_for(audit_type).items():
        out.append(para(f"<b>{markup(term)}</b> — {markup(words)}"))
    return out


