"""Section 6 of the count-tables report (paper 003): the release's DP guarantee and its top-1
and membership bounds set against the measured attacks, the sweeps of Fig. 6 and 8, and a
published table's findings; and section 8's limitations. Split out of
engine/report/aggregates.py (issue 33 item 2); reads the typed result
(engine.results.aggregates)."""

from __future__ import annotations

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, KeepTogether, Spacer

from engine.numbers import is_finite
from engine.plots import count_sweeps
from engine.report import styles as st
from engine.report.aggregates_words import (
    aia_attacks,
    details,
    label,
    loaded,
    mia_attacks,
    n_values,
    pct_ci,
    theory_of,
    top1,
)
from engine.report.charts import attack_sweep_chart
from engine.report.sections import (
    TEXT_WIDTH,
    brief_name,
    keep,
    key_value_table,
    markup,
    min_negatives,
    para,
    sub,
    table,
    two_lines,
)
from engine.report.styles import fmt3, fmt_ci, fmt_count, fmt_eps, fmt_num, fmt_pct
from engine.results.aggregates import DpBounds, Sweep
from engine.results.loaded import LoadedResult

# ----------------------------------------------------------------- 6. comparison


def theory(result) -> list[Flowable]:
    """Section 6: the DP guarantee against the attacks, the sweeps, the published table."""
    r = loaded(result)
    th = theory_of(r)
    out: list[Flowable] = []
    dp = th.dp
    if not dp:
        out.append(para(
            "No noise was added: the counts are exact, and exact counts have no "
            "differential-privacy guarantee to compare with. The attacks in section 5 and "
            "the proofs of the deterministic module are the evidence. Adding noise "
            "(mechanism in the configuration) gives a guarantee that bounds every "
            "attacker"
            + ("; the noise sweep below shows what it costs the attacks."
               if "noise" in th.sweeps else ".")))
    else:
        out.append(para(
            "The noise gives the release a differential-privacy guarantee: a ceiling on "
            "what any attacker can achieve, whatever it knows and however clever it is. "
            "Below, the ceiling is set against what the attacks measured."))
        out += _guarantee(r, dp)
        out += _bound_table(r, dp)
    out += sweeps(r)
    out += _published(r)
    return out


def _guarantee(r: LoadedResult, dp: DpBounds) -> list[Flowable]:
    rel = theory_of(r).release
    k = n_values(r)
    rows = [("Guarantee", "Value", "What it means"),
            ("ε of the release", f"<b>{fmt_eps(dp.epsilon_release)}</b>",
             "for adding or removing one person: one person changes at most Δ = "
             f"{fmt_num(rel.sensitivity)} counts by one each, and the noise is "
             "calibrated to that"),
            ("ε' for changing one person's value", fmt_eps(dp.epsilon_change),
             "= 2ε: changing a value is removing the person and adding them back with the "
             "other value, two steps of ε each. This is what the attribute game tests"),
            ("δ'", st.fmt_sci(dp.delta) if is_finite(dp.delta) and dp.delta
             else "0", "probability the ε' guarantee may fail (0 for Laplace noise)"),
            ("Best possible top-1 accuracy", f"<b>{fmt_pct(dp.aia_top1_bound)}</b>",
             "e<super>ε'</super>/(e<super>ε'</super> + |V| − 1)"
             + (f" with |V| = {k}" if k else "")
             + ": no attacker names the right value more often when the value is drawn "
             "uniformly at random")]
    if is_finite(dp.mia_accuracy_bound):
        rows.append(("Best possible membership accuracy",
                     fmt_pct(dp.mia_accuracy_bound),
                     "e<super>ε'</super>/(1 + e<super>ε'</super>) (plus δ'/2): the most "
                     "any attacker can be right in the membership game, whose two "
                     "datasets differ by one person swapped for another (ε')"))
    note = dp.note
    return [keep([sub("The privacy guarantee of the release"),
                  table(rows, [4.6 * cm, 2.4 * cm, TEXT_WIDTH - 7.0 * cm])]
                 + ([para(markup(note), "small")] if note else []))]


def _reading(value, ci, limit) -> str:
    """A measured accuracy (and its interval) read against a DP bound."""
    if not is_finite(limit) or not is_finite(value):
        return st.DASH
    lo = ci[0] if ci is not None and is_finite(ci[0]) else value
    hi = ci[1] if ci is not None and is_finite(ci[1]) else value
    if lo > limit + 1e-12:
        return ("<b>above the bound</b>: even the interval's lower end exceeds it, so "
                "the noise does not give the stated guarantee")
    if hi <= limit:
        return "below the bound"
    return "consistent with the bound (its interval contains it)"


def _bound_table(r: LoadedResult, dp: DpBounds) -> list[Flowable]:
    bound = dp.aia_top1_bound
    rows = [("Attack", "Measured", "DP bound", "Reading")]
    for a in aia_attacks(r):
        rate, ci, _ = top1(details(r, a))
        rows.append((label(a) + " (top-1)", two_lines(fmt_pct(rate), pct_ci(ci)),
                     fmt_pct(bound), _reading(rate, ci, bound)))
    mb = dp.mia_accuracy_bound
    for a in mia_attacks(r):
        rows.append((label(a) + " (membership, balanced accuracy)",
                     two_lines(fmt_pct(a.accuracy), pct_ci(a.accuracy_ci)),
                     fmt_pct(mb), _reading(a.accuracy, a.accuracy_ci, mb)))
    if len(rows) == 1:
        return []
    words = ("The bound holds for every attacker, however clever, so a measured accuracy "
             "should lie below it. The attacks usually stay far below: the bound is the "
             "worst case, and a real attacker does not know everyone else's values.")
    if is_finite(bound) and bound >= 0.95:
        words += (f" With ε' = {fmt_eps(dp.epsilon_change)} the bound is "
                  f"{fmt_pct(bound)}: the guarantee does not rule out an attacker who is "
                  "nearly always right, so the measured attacks are the only evidence. "
                  "More noise (a smaller ε) lowers the ceiling.")
    return [keep([
        sub("Measured attacks against the DP bound"),
        table(rows, [5.6 * cm, 2.8 * cm, 2.0 * cm, TEXT_WIDTH - 10.4 * cm]),
        Spacer(1, 3),
        para(words, "small")])]


SWEEP_WORDS = {
    "fraction": ("AUC against the share of counts released (paper 003 Fig. 6)",
                 "What if more or fewer counts were released?",
                 "Counts released per person, m/|D|",
                 "The game replayed with a different number of released counts, all "
                 "else equal. More counts give the attacker more constraints; the "
                 "paper finds every attack gains."),
    "noise": ("AUC against the noise, ε per count (paper 003 Fig. 8)",
              "What if more noise were added?",
              "ε per released count (smaller = more noise)",
              "The game replayed with Laplace noise of each ε on every count (rounded, "
              "never below zero), all else equal. Reconstruction attacks that need "
              "exact counts fall to guessing first (paper 003 §5.6)."),
}


def sweeps(result) -> list[Flowable]:
    """The sweeps of paper 003 Fig. 6 and 8: each a chart (the series the screen draws) and
    its table."""
    r = loaded(result)
    out: list[Flowable] = []
    for key in ("fraction", "noise"):
        sw = theory_of(r).sweep(key)
        if sw is None or not sw.values:
            continue
        labels = {str(n): brief_name(lab) for n, lab in sw.labels.items()}
        title, heading_text, x_title, words = SWEEP_WORDS[key]
        # The curves, their words and colours, the random-guess and audited-setting lines
        # and the axis scale: engine.plots.count_sweeps, as on screen.
        chart = attack_sweep_chart(list(sw.values), {}, labels, title=title, x_title=x_title,
                                   curves=count_sweeps.count_sweep_series(r, key),
                                   guides=count_sweeps.count_sweep_guides(r, key),
                                   log_x=count_sweeps.count_sweep_log_x(r, key))
        out.append(keep([sub(heading_text), para(words, "small"), chart,
                         para("Markers: measured AUC with its 95% interval "
                              "(whiskers; series are shifted sideways slightly so "
                              "they do not hide each other). Dotted line: random "
                              "guessing.", "caption")]))
        out.append(_sweep_table(sw, labels, key))
        out.append(Spacer(1, 6))
    return out


def _sweep_table(sw: Sweep, labels: dict, key: str) -> Flowable:
    names = list(sw.attacks)
    head = ["m/|D|" if key == "fraction" else "ε per count", "Counts m",
            "Proved targets"]
    if key == "noise":
        head.append("Noise scale")
    head += [markup(labels.get(n, n)) + " AUC" for n in names]
    rows = [head]

    def at(seq, i):
        return seq[i] if i < len(seq) else None

    for i, v in enumerate(sw.values):
        row = [fmt_num(v), fmt_num(at(sw.queries, i)),
               fmt_pct(at(sw.determined_share, i))]
        if key == "noise":
            row.append(fmt_num(at(sw.noise_scale, i)))
        for n in names:
            point = at(sw.attacks[n], i)
            row.append(two_lines(fmt3(point.auc), fmt_ci(point.auc_ci)) if point is not None
                       else two_lines(fmt3(None), fmt_ci(None)))
        rows.append(row)
    fixed = [1.6 * cm, 1.5 * cm, 1.7 * cm] + ([1.6 * cm] if key == "noise" else [])
    rest = (TEXT_WIDTH - sum(fixed)) / max(1, len(names))
    return table(rows, fixed + [rest] * len(names))


def _published(r: LoadedResult) -> list[Flowable]:
    pub = theory_of(r).published
    if not pub:
        return []
    consistent = pub.consistent
    cand, det = pub.candidates, pub.determined
    words = (f"The published table ({markup(pub.path or st.DASH)}, "
             f"{fmt_count(pub.rows)} counts about |D| = "
             f"{fmt_count(pub.records)} people) ")
    if consistent is False:
        words += ("is <b>not consistent</b>: no dataset of that size gives these counts, so "
                  "they were perturbed or contain an error (see the warnings). ")
    else:
        words += "is consistent: at least one dataset of that size gives these counts. "
    if is_finite(cand):
        words += (f"Of the {fmt_count(cand)} combinations of quasi-identifiers found in "
                  f"the auxiliary sample, the table alone pins down the sensitive value "
                  f"of <b>{fmt_count(det)}</b>: a person with such a combination who is "
                  "counted in the table has their value revealed.")
    rows = [("Published table", markup(pub.path or st.DASH)),
            ("Counts", fmt_count(pub.rows)),
            ("People behind it |D|", fmt_count(pub.records)),
            ("Consistent", "yes" if consistent else ("no" if consistent is False
                                                     else st.DASH)),
            ("Combinations checked", fmt_count(cand)),
            ("Of which pinned down", fmt_count(det))]
    out = [sub("The published table"), para(words), key_value_table(rows, 5.2 * cm)]
    if pub.note:
        out.append(para(markup(pub.note), "small"))
    return [KeepTogether(out)]


# ----------------------------------------------------------------- 8. limitations

def limitations(result) -> list[str]:
    """Section 8: the rates too few negatives left unmeasurable, what the game does not
    cover, the solver's time limit, synthetic data and the DP assumptions."""
    r = loaded(result)
    th = theory_of(r)
    cfg, det = th.settings, th.deterministic
    out = []
    for mia, attacks, what in ((False, aia_attacks(r), "wrong-value pairs"),
                               (True, mia_attacks(r), "non-members")):
        rates: set[float] = set()
        counts: set[int] = set()
        for a in attacks:
            for row in a.tpr_at_fpr:
                if not row.measurable and row.key == "fpr_target" and is_finite(row.fpr):
                    rates.add(float(row.fpr))
                    if is_finite(a.n_negative):
                        counts.add(int(a.n_negative))
        if not rates:
            continue
        ordered = sorted(rates, reverse=True)
        need = min_negatives(min(ordered))
        names = " and ".join(", ".join(fmt_pct(t) for t in ordered).rsplit(", ", 1))
        have = " to ".join(fmt_count(n) for n in sorted({min(counts), max(counts)})) \
            if counts else st.DASH
        out.append(f"{'In the membership game, TPR' if mia else 'TPR'} at {names} FPR "
                   f"{'is' if len(ordered) == 1 else 'are'} not measurable with {have} "
                   f"{what} (the smallest rate needs at least {fmt_count(need)}): attack "
                   "more targets (max_targets) to measure "
                   f"{'it' if len(ordered) == 1 else 'them'}.")
    out += [
        "The results hold for this configuration only; other tables, another fraction of "
        "released counts, other noise or other data need a new audit.",
        "The sensitive value is drawn at random in the game, so the audit measures what the "
        "tables reveal, not what can be guessed from how attributes go together in the "
        "population (the data-only attack shows how much that is).",
        "Only people unique on their quasi-identifiers are attacked (the paper's targets); "
        f"a sample of at most {fmt_num(cfg.max_targets)} of them, so the numbers "
        "carry the intervals shown.",
        "The attacker is assumed to know the target's quasi-identifiers, |D| and an "
        "auxiliary sample of similar people. One with other releases about the same people "
        "may learn more; such combinations are not covered.",
        "Measured values come from a finite number of games: they carry 95% confidence "
        "intervals (pointwise for the ROC bands).",
    ]
    if det and is_finite(det.time_limited) and det.time_limited:
        out.append(f"{fmt_count(det.time_limited)} solver runs hit the time limit; "
                   "the number of proved (exposed) records is a lower bound.")
    if not cfg.data:
        out.append("The records are a synthetic census block: the numbers say what these "
                   "tables allow for such data, not for a particular real population.")
    if th.dp:
        out.append("The DP bounds assume the noise is added exactly as audited (calibrated "
                   "to the stated sensitivity, fresh for every count); the audit does not "
                   "check a production system's implementation.")
    return out
