"""Parts of the location audit's report that read one kind of result data each (paper 000;
split out of engine/report/location.py, issue 33 item 2): the spread over repetitions, the
score distributions (Fig. 8/10), what the MLP meta-classifier learnt (§4.2, Fig. 12/15), the
exposed people (section 9) and the one-sentence description of the release. Each reads the
typed result (engine.results.location) by attribute, never a key of result.json.
"""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.units import cm
from reportlab.platypus import Flowable, Spacer

from engine.plots.observations import load_location
from engine.report import styles as st
from engine.report.charts import HistogramSeries, histogram_chart, short_label
from engine.report.sections import (
    TEXT_WIDTH,
    bullets,
    exposed_records_generic,
    keep,
    para,
    short_attack_label,
    sub,
    table,
)
from engine.report.styles import fmt3, fmt_count, fmt_eps, fmt_num, fmt_pct, fmt_points, markup
from engine.results.blocks import AttackEntry
from engine.results.location import LocationDetails, LocationSettings, Person


def base_name(name: str) -> str:
    """An attack's name without the ``_large`` of its better-trained twin."""
    return name[:-len("_large")] if name.endswith("_large") else name


def short_name(a: AttackEntry) -> str:
    """The attack's plain name (engine.report.sections.short_attack_label)."""
    return short_attack_label({"name": a.name, "label": a.label})


def short_label_text(label) -> str:
    return short_label(str(label or "attack"))


def split_spread(result) -> list[Flowable]:
    """Per attack, the first run's accuracy and interval beside the spread over the
    repetitions, each with a fresh split of the people into the attacker's pool and the release
    pool (issue 22): mean, standard deviation, lowest and highest accuracy and AUC, and the
    sentence the audit writes when that spread is wider than the interval."""
    r = load_location(result)
    rows = [("Attack", "First run (95% interval)", "Mean ± sd over repetitions",
             "Lowest – highest", "AUC lowest – highest")]
    sentences = []
    count = 0
    for a in r.attacks:
        reps = r.theory.details_of(a).repetitions
        if reps is None:
            continue
        count = max(count, len(reps.accuracy))
        lo, hi = a.accuracy_ci or (None, None)
        rows.append((markup(short_label_text(a.label or a.name)),
                     f"{fmt_pct(a.accuracy)} ({fmt_pct(lo)}–{fmt_pct(hi)})",
                     f"{fmt_pct(reps.accuracy_mean)} ± {fmt_points(reps.accuracy_sd)}",
                     f"{fmt_pct(reps.accuracy_min)} – {fmt_pct(reps.accuracy_max)}",
                     f"{fmt3(reps.auc_min)} – {fmt3(reps.auc_max)}"))
        if reps.sentence:
            sentences.append(markup(reps.sentence))
    if len(rows) < 2:
        return []
    how = ("each with a fresh split of the people into the attacker's own data and the people "
           "released, and fresh simulated releases" if r.theory.repetitions.split_redrawn else
           "each with fresh simulated releases (the same split of the people)")
    body: list[Flowable] = [
        sub("How much the result depends on chance"),
        para(f"The game was played {fmt_num(count)} times, {how}. The first run's interval "
             "covers only the chance of its test releases; the spread across the repetitions "
             "also covers which people the attacker happens to know. Where the two disagree, "
             "trust the spread.", "small"),
        table(rows, [4.4 * cm, 3.4 * cm, 3.2 * cm, 2.8 * cm, TEXT_WIDTH - 13.8 * cm])]
    if sentences:
        body += bullets(sentences)
    return [keep(body), Spacer(1, 6)]


#: Which theorem of paper 000 describes each attack's score, and the score in words.
SCORE_WORDS = {
    "one_threshold": ("Thm 2", "Fig. 8", "Sum of the released counts in the target's cells"),
    "two_threshold": ("Thm 3", "Fig. 10", "Number of the target's cells above their threshold"),
}


def score_distribution_charts(result) -> list[Flowable]:
    """Paper 000 Fig. 8/10: per attack that recorded ``details.score_distribution`` (one- and
    two-threshold), the histograms of its test scores with and without the target beside the
    laws of Thm 2 (Normal, by the CLT) and Thm 3 (Binomial), with a caption."""
    r = load_location(result)
    absent_style = (colors.Color(0.05, 0.25, 0.60), None, None)
    present_style = (colors.Color(0.70, 0.30, 0.00), (4, 2), None)
    absent_model = (colors.Color(0.0, 0.12, 0.35), (1, 1.6), "circle")
    present_model = (colors.Color(0.40, 0.15, 0.0), (6, 2, 1, 2), "square")
    out: list[Flowable] = []
    for a in r.attacks:
        dist = r.theory.details_of(a).score_distribution
        if dist is None:
            continue
        thm, fig, x_title = SCORE_WORDS.get(base_name(a.name), ("Thm 2 and 3", "Fig. 8 and 10",
                                                               "Attack score"))
        label = short_name(a)
        bars = [HistogramSeries("Without the target (measured)", list(dist.absent),
                                absent_style, colors.Color(0.35, 0.55, 0.85, alpha=0.35)),
                HistogramSeries("With the target (measured)", list(dist.present),
                                present_style, colors.Color(0.95, 0.60, 0.25, alpha=0.35))]
        curves = [HistogramSeries(words, list(law), style)
                  for law, words, style in (
                      (dist.model_absent, "Without the target (theory)", absent_model),
                      (dist.model_present, "With the target (theory)", present_model))
                  if law is not None]
        n_abs = sum(v for v in dist.absent if v is not None)
        n_pre = sum(v for v in dist.present if v is not None)
        model = markup(dist.model or "the law of paper 000")
        caption = (f"{markup(label)}: its scores on the {fmt_count(n_abs)} test releases "
                   f"without the target (solid outline) and the {fmt_count(n_pre)} with it "
                   "(dashed outline). The more the two humps overlap, the less the attacker "
                   "can tell whether the target is in a release. ")
        if curves:
            caption += (f"Lines with markers: what the theory ({thm}) predicts, {model} "
                        "(dotted with circles: without the target; dash-dot with squares: "
                        "with it); where they follow the bars, the theory fits the measured "
                        "scores.")
        else:
            caption += ("No theory line is drawn: without noise the scores have no spread "
                        "for the law to describe.")
        out.append(keep([
            sub(f"How the scores of members and non-members differ: {markup(label)}"),
            histogram_chart(list(dist.score), bars, curves,
                            f"{label}: scores with and without the target "
                            f"(paper 000 {fig})", x_title, "Number of test releases"),
            para(caption, "caption")]))
    return out


def release_words(result) -> str:
    """One sentence: what was released (sites × hours, n people, clipping, noise)."""
    r = load_location(result)
    th, cfg = r.theory, LocationSettings.from_config(r.config)
    mech = th.mechanism_label or cfg.mechanism or "no"
    eps = th.epsilon_per_epoch if th.epsilon_per_epoch is not None else cfg.epsilon
    clip = th.clip_per_epoch if th.clip_per_epoch is not None else cfg.clip_per_epoch
    noise = ("with no noise" if cfg.mechanism == "none" else
             f"with {markup(mech)} noise added to every count (ε = {fmt_eps(eps)} per hour)")
    return (f"<b>What was released:</b> a table of how many people were at each of "
            f"{fmt_num(th.sites)} sites in each of {fmt_num(th.epochs_total)} "
            f"hours, computed from n = {fmt_num(cfg.aggregate_size)} people drawn from a "
            f"population of {fmt_count(th.population)}, each person clipped to at most "
            f"{fmt_num(clip)} site(s) per hour, {noise}.")


def mlp_words(det: LocationDetails) -> str:
    """One paragraph: which rule the MLP's first layer learnt (paper 000 §4.2, Fig. 12/15),
    from the attack's typed details."""
    fl = det.first_layer
    dd = fl.diagonal_dominance if fl else None
    osb = fl.opposite_sign_bias if fl else None
    shape = fl.shape if fl else ()
    text = ""
    if det.shadow_aggregates is not None:
        text += f"Trained on {fmt_count(det.shadow_aggregates)} shadow aggregates"
        if det.held_out_loss is not None:
            text += f" (held-out loss {fmt_num(det.held_out_loss)})"
        text += ". "
    if dd is not None:
        text += (f"Its first layer{' (' + ' × '.join(str(s) for s in shape) + ')' if shape else ''}"
                 f" has a diagonal dominance of <b>{fmt_num(dd)}</b>, the mean weight of a "
                 "hidden unit on “its own” cell divided by its mean weight on the others. ")
        if dd < 1.5:
            text += ("That is close to 1: every hidden unit adds up all of the target's cells "
                     "alike, so the network has learnt the <b>one-threshold rule</b> (a sum "
                     "compared with a threshold; paper 000 §4.2, Fig. 12), which heavy-tailed "
                     "noise can fool. ")
        elif dd >= 3:
            text += ("That is far above 1: each hidden unit watches one cell, so the network "
                     "has learnt the <b>two-threshold rule</b> (one threshold per cell, then a "
                     "count; paper 000 Thm 5, Fig. 15). ")
        else:
            text += ("That lies between the one-threshold rule (≈ 1, paper 000 Fig. 12) and "
                     "the two-threshold rule (≫ 1, Fig. 15): the network has partly "
                     "specialised its units to single cells. ")
    if osb is not None:
        text += (f"{fmt_pct(osb)} of the units have a bias of the opposite sign to their own "
                 "cell's weight, i.e. a per-cell threshold (the two-threshold rule needs this "
                 "in nearly all units). ")
    text += ("Paper 000 finds that with about 2,000 shadow aggregates the network learns the "
             "one-threshold rule and needs about 200,000 to find the two-threshold one; the "
             "likelihood-ratio attack needs no training.")
    return text


def exposed_people(result, include_records: bool = False) -> list[Flowable]:
    """Section 9: how many people are as exposed as the policy's high-risk line, and (only
    when the audit was asked to list them and the report includes records) who they are."""
    r = load_location(result)
    if r.theory.exposed_other:
        # Not the location audit's summary rows (e.g. an older result listing records one by
        # one): the shared section prints them, redacted unless the report includes records.
        return exposed_records_generic(result, include_records)
    cfg = LocationSettings.from_config(r.config)
    if not r.theory.exposed:
        return [para("No exposure count was recorded in this result.")]
    out: list[Flowable] = []
    for rec in r.theory.exposed:
        count, kmin = rec.count, rec.min_observations
        line = (f"<b>{fmt_count(count)} of {fmt_count(rec.population)} people "
                f"({fmt_pct(rec.share)})</b> are exposed: {markup(rec.rule or st.DASH)}.")
        out.append(para(line))
        out.append(para(
            "A person is exposed when the best possible attacker, facing their number of "
            "observations k, reaches the policy's high-risk line: it finds at least "
            f"{fmt_pct(cfg.policy_high_tpr)} of the releases containing them while wrongly "
            f"accusing {fmt_pct(cfg.policy_fpr)} of the others, or is right at least "
            f"{fmt_pct(cfg.policy_high_accuracy)} of the time. That attacker's success grows "
            "with k alone, so one threshold on k"
            + (f" (k ≥ {fmt_num(kmin)})" if kmin is not None else "")
            + " separates everyone."))
        people = rec.people
        # The GUI's tick box first: the officer never sees the config key.
        tick = "“List the exposed people by id” (list_exposed_ids in a config file)"
        if rec.ids_listed and not include_records:
            out.append(para(f"Identifiers are withheld: the result holds them (the audit ran "
                            f"with {tick} ticked), but this report was written without "
                            "records, as it may travel further than the data. Write it with "
                            "records included to name them.", "small"))
        elif rec.ids_listed and people:
            out.append(para(f"The audit was run with {tick} ticked and this report "
                            f"includes records, so the {fmt_count(len(people))} listed people "
                            "are named below, most observations first. Treat this page as "
                            "personal data.", "small"))
            out.append(_people_table(people))
            if isinstance(count, int) and count > len(people):
                out.append(para(f"… and {fmt_count(count - len(people))} more with fewer "
                                "observations (not listed).", "small"))
        else:
            out.append(para(f"Identifiers are not listed: the audit was run without {tick}, "
                            "so neither the result nor this report holds them. Tick it on the "
                            "Attacks & run step and run again to name them.", "small"))
    return out


def _people_table(people: tuple[Person, ...], columns: int = 5):
    cells = [f"{markup(p.id)} ({fmt_num(p.observations)})" for p in people]
    rows = [["Person (k)"] * columns]
    for i in range(0, len(cells), columns):
        chunk = cells[i:i + columns]
        rows.append(chunk + [""] * (columns - len(chunk)))
    return table(rows, [TEXT_WIDTH / columns] * columns)


__all__ = ["exposed_people", "mlp_words", "release_words",
           "score_distribution_charts", "split_spread"]
