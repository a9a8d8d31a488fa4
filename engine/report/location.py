"""Report sections specific to the location audit (paper 000; engine/audits/location.py).

The release is a table of how many people were at each site in each epoch (hour), with DP noise
in every cell; the question is whether one person's trace is in it. The sections say what was
released, who the attacker is, how the attacks decide (each learns its threshold from the
attacker's own shadow aggregates, never from the evaluation), how they compare with the exact
optimal attacker and with what ε-DP per epoch allows over the target's epochs, what the MLP
meta-classifier learnt (paper 000 §4.2, Fig. 12/15), and which people are as exposed as the
audited target. Everything else is the shared report (engine/report/sections.py).
"""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.units import cm
from reportlab.platypus import Flowable, Spacer

from engine.plots import series
from engine.report import styles as st
from engine.report.charts import HistogramSeries, histogram_chart, observations_chart, short_label
from engine.report.sections import (
    TEXT_WIDTH,
    AuditSections,
    accounting_table,
    bullets,
    comparison_by_attack,
    epsilon_bounds_table,
    exposed_records_generic,
    inputs_table,
    keep,
    key_value_table,
    markup,
    para,
    short_attack_label,
    standard_limitations,
    sub,
    table,
)
from engine.report.sections import results as shared_results
from engine.report.styles import fmt3, fmt_count, fmt_eps, fmt_num, fmt_pct, fmt_points

ATTACKER_WORDS = {
    "informed": "informed attacker (θ = 1, the threat model of differential privacy)",
    "partial": "partially informed attacker",
    "auxiliary": "auxiliary-data attacker (θ = 0)",
}

#: How each attack decides, in plain words (the score itself comes from details.statistic).
ATTACK_WORDS = {
    "one_threshold": "It says “present” when that sum exceeds the midpoint of its means on the "
                     "attacker's shadow aggregates with and without the target (Alg. 3).",
    "two_threshold": "Each of the target's cells is first compared with its own threshold, "
                     "learnt on the shadow aggregates; the attack counts the cells above and "
                     "compares the count with an overall threshold, so one large noise draw "
                     "moves the score by at most one.",
    "meta_classifier": "A small neural network trained on the shadow aggregates (labelled "
                       "with / without the target) scores each release; section 6 says which "
                       "rule it learnt.",
    "meta_classifier_100": "A neural network with 100 hidden units (earlier work's MLP) "
                           "trained on the shadow aggregates scores each release.",
    "reference": "The release is compared with the target's trace and with the mean trace of "
                 "a few people known to be absent; cells they share cancel out.",
    "likelihood_ratio": "It weighs every cell by how much likelier its value is with the target "
                        "than without, using the known noise law (and the law of the unknown "
                        "people's counts). For the informed attacker this is the "
                        "Neyman–Pearson test: no attack can do better.",
}


def _theory(result: dict) -> dict:
    return result.get("theory") or {}


def _base_name(name: str) -> str:
    return name[:-len("_large")] if name.endswith("_large") else name


class LocationSections(AuditSections):
    """Sections 2, 3, 4 (theory part), 6, 8 and 9 for ``audit_type == "location"``."""

    # ----------------------------------------------------------------- 2. what was audited
    def audited(self, result: dict) -> list[Flowable]:
        th, cfg = _theory(result), result.get("config") or {}
        pop = th.get("population")
        sites, epochs = th.get("sites"), th.get("epochs_total")
        synthetic = not cfg.get("traces")
        if synthetic:
            empty = (f"No input file: the traces are a synthetic city generated from the seed "
                     f"({fmt_count(cfg.get('city_users'))} people, "
                     f"{fmt_count(cfg.get('city_epochs'))} hours).")
        else:
            empty = "No input files were recorded."
        out: list[Flowable] = [para(_release_words(result))]
        out += inputs_table(result, empty)
        out.append(Spacer(1, 4))
        out.append(key_value_table([
            ("Configuration SHA-256", f'<font face="{st.FONT_MONO}" size="7.5">'
             f'{markup(result.get("config_sha256") or st.DASH)}</font>')]))
        out.append(Spacer(1, 8))
        mech = th.get("mechanism_label") or cfg.get("mechanism") or st.DASH
        scale = th.get("noise_scale")
        clip = th.get("clip_per_epoch", cfg.get("clip_per_epoch"))
        cells = (fmt_count(sites * epochs) if isinstance(sites, int) and isinstance(epochs, int)
                 else st.DASH)
        n = cfg.get("aggregate_size")
        rows = [
            ("Parameter", "Value", "Meaning"),
            ("Population", f"{fmt_count(pop)} people" if pop is not None else st.DASH,
             "everyone in the traces; releases are drawn from them"),
            ("Places × hours", f"{fmt_num(sites)} × {fmt_num(epochs)} = {cells} cells",
             "the released table: one count per place and hour"),
            ("People in a release (n)", fmt_num(n),
             "people counted in one release besides the target (the target is added to half "
             "of the releases)"),
            ("Places kept per person and hour (C)", f"{fmt_num(clip)}",
             "each person counts in at most C cells per hour, so one person changes one "
             "hour's row by at most C"),
            ("Mechanism", markup(mech),
             "noise added to every cell" if cfg.get("mechanism") != "none"
             else "no noise: the counts are released exactly"),
        ]
        if scale is not None:
            symbol = str(th.get("noise_scale_name") or "").removeprefix("scale ")
            rows.append((f"Noise scale ({markup(symbol)})" if symbol else "Noise scale",
                         fmt_num(scale), "size of the noise, calibrated from ε per hour "
                         "and C"))
        rows += [
            ("ε per hour", fmt_eps(th.get("epsilon_per_epoch", cfg.get("epsilon"))),
             "privacy loss of one hour's counts for one person (smaller = more private)"),
            ("δ (failure probability)", st.fmt_sci(th.get("delta", cfg.get("delta"))),
             "probability the ε guarantee may fail"),
            ("People the releases draw from / in the attacker's own data",
             f"{fmt_count(th.get('release_pool'))} / {fmt_count(th.get('auxiliary_pool'))}",
             "releases draw their people from the first; the attacker's own data is the "
             "second (disjoint)"),
            ("Releases to test the attacks on", fmt_num(cfg.get("test_aggregates")),
             "simulated releases the attacks are scored on, half with the target"),
            ("Simulated releases for training", fmt_num(cfg.get("shadow_aggregates"))
             + (f" (+ {fmt_num(cfg.get('large_shadow_aggregates'))} for a second, "
                "better-trained network)"
                if cfg.get("large_shadow_aggregates") else ""),
             "simulated releases the attacker builds from its own data to learn thresholds"),
            ("Repetitions", fmt_num(cfg.get("repetitions", 1)),
             "independent replays of the game, each with a fresh split of the people into "
             "the attacker's data and the people released, and fresh releases"),
            ("Targets for accuracy vs observations",
             f"{fmt_num(cfg.get('sweep_targets'))} targets × "
             f"{fmt_num(cfg.get('sweep_test_aggregates'))} releases each",
             "for the chart of accuracy against the number of observations"),
            ("Seed", markup(result.get("seed", cfg.get("seed", st.DASH))),
             "drives every random number of the audit"),
        ]
        out.append(table(rows, [4.4 * cm, 4.0 * cm, TEXT_WIDTH - 8.4 * cm]))
        return out

    # ----------------------------------------------------------------- 3. threat model
    def threat_model(self, result: dict) -> list[Flowable]:
        th, cfg = _theory(result), result.get("config") or {}
        kind = str(th.get("attacker") or cfg.get("attacker") or "informed")
        n = cfg.get("aggregate_size")
        unknown = th.get("unknown_people")
        out: list[Flowable] = [para(
            f"The attacker is an <b>{ATTACKER_WORDS.get(kind, markup(kind))}</b>. It plays the "
            "membership game of paper 000 (Def. 3): it is given one release and must decide "
            "whether the target person's trace was used to compute it.")]
        knows = [
            "the target's trace (after clipping): the sites and hours where the target was "
            "seen, i.e. the target's positive observations;",
            "how the release is made: the clipping C, the noise mechanism and its scale, and "
            f"the number n = {fmt_num(n)} of other people in a release;",
        ]
        if kind == "informed":
            knows.append(f"every one of the {fmt_num(n)} other people in the release and their "
                         "traces, so it can subtract their counts: only the noise stands "
                         "between it and the target. This is the worst case differential "
                         "privacy protects against.")
        elif kind == "partial":
            known = (n - unknown) if isinstance(n, int) and isinstance(unknown, int) else None
            knows.append(f"{fmt_num(known)} of the {fmt_num(n)} other people in the release "
                         f"(θ = {fmt_pct(cfg.get('known_fraction'))}); the other "
                         f"{fmt_num(unknown)} are unknown to it and add to the noise.")
        else:
            knows.append(f"nobody in the release; instead it has the traces of "
                         f"{fmt_count(th.get('auxiliary_pool'))} similar people (its auxiliary "
                         "pool, disjoint from the people released), from which it simulates "
                         "releases.")
        out += [sub("What the attacker knows")] + bullets(knows)
        out.append(sub("How the game is played"))
        out += bullets([
            f"<b>Shadow aggregates</b> ({fmt_num(cfg.get('shadow_aggregates'))}): releases the "
            "attacker simulates from its auxiliary pool, half with the target added, with the "
            "same clipping and noise (paper 000 Alg. 1). Every attack learns its threshold "
            "(or network) from them.",
            f"<b>Test aggregates</b> ({fmt_num(cfg.get('test_aggregates'))}): releases drawn "
            "from the release pool, half with the target and half without; the attacks are "
            "scored on them only. They are never used to set a threshold.",
            "Only the cells the attacks read are simulated (the target's cells, and for the "
            "reference attack its reference people's cells); the other cells cannot change any "
            "score, so the game is exact (see docs/methods/location_audit.md).",
        ])
        if kind != "informed":
            out.append(para("A real attacker may know more than modelled here. The exact "
                            "optimum in section 6 is the informed attacker's, an upper bound "
                            "for this one.", "small"))
        out += self._target(result)
        return out

    def _target(self, result: dict) -> list[Flowable]:
        th = _theory(result)
        tg = th.get("target") or {}
        rule = str(tg.get("rule") or "")
        who = {"most_exposed": "the most exposed person: the one with the most positive "
                               "observations after clipping",
               "random": "a person chosen at random among those with at least one "
                         "observation",
               "observations": "the person whose number of observations is closest to the "
                               "configured target_observations",
               "id": "the person named in the configuration"}.get(rule, markup(rule or "—"))
        tid = tg.get("id")
        shown = tid not in (None, "", "(redacted)")
        rows = [("Chosen as", who),
                ("Identifier", markup(tid) if shown else
                 "redacted (printed only when the audit ran with “List the exposed people "
                 "by id” ticked, or with the target chosen by id, and the report is written "
                 "with records included)"),
                ("Positive observations k", fmt_num(tg.get("observations"))
                 + " cells (site, hour) after clipping"),
                ("Hours E", fmt_num(tg.get("epochs"))
                 + " distinct hours among them (what the privacy guarantee composes over)")]
        return [keep([sub("The target"), key_value_table(rows)])]

    # ----------------------------------------------------------------- 4. method
    def describe_attack(self, attack: dict) -> str:
        name = _base_name(str(attack.get("name") or ""))
        words = ATTACK_WORDS.get(name, "")
        rule = (attack.get("details") or {}).get("per_cell_rule")
        if name == "two_threshold" and isinstance(rule, str) and rule:
            # Which per-cell rule ran (issue 22): paper 000's Alg. 5 takes the midpoint of the
            # per-cell means; the default picks each cell's most accurate shadow threshold.
            words += f" Per-cell rule used here: {markup(rule)}."
        return words

    # ----------------------------------------------------------------- 5. results
    def results(self, result: dict) -> list[Flowable]:
        return shared_results(result) + split_spread(result)

    def method_theory(self, result: dict) -> list[Flowable]:
        th = _theory(result)
        out: list[Flowable] = [sub("Thresholds come from the attacker's own data")]
        out.append(para(
            "Each attack turns a release into one score (higher = “the target is in it”) from "
            "the values in the target's cells, minus the counts of the people the attacker "
            "knows. The decision threshold of every attack is set by its own rule on the "
            "attacker's <b>shadow aggregates</b> (midpoint of the shadow means, per-cell "
            "thresholds, or the trained network's 50% point; the likelihood-ratio attack "
            "needs none: it says “present” when the likelihood ratio exceeds 1). The test "
            "aggregates are used only to measure, so balanced accuracy is not flattered by "
            "choosing the threshold after seeing the answers."))
        opt = th.get("optimal_attacker") or {}
        if opt:
            err = opt.get("numerical_error")
            err_text = ("exact" if not err else
                        f"numerical error at most {fmt_num(err)} on AUC and TPR")
            out.append(sub("Exact theory"))
            out.append(para(
                "<b>The best possible attacker</b> (Neyman–Pearson lemma): knowing everyone "
                "else, the attacker sees noise plus 1 in each of the target's k cells if the "
                "target is present, noise alone if not. The likelihood-ratio test of these "
                f"k values, statistic {markup(opt.get('statistic') or st.DASH)}, is the most "
                "powerful test at every false-positive rate; its ROC is computed by "
                f"{markup(opt.get('method') or st.DASH)} ({err_text}) and no attack can beat "
                "it (paper 000 §3 for the clipped sum under Laplace noise)."))
            out.append(para(
                "<b>What the claimed guarantee allows</b>: each hour's counts are ε-DP for one "
                "person (sensitivity C per hour), so over the E hours of the target the "
                "guarantee composes. The worst case of E-fold ε-DP (randomised response, "
                "Kairouz–Oh–Viswanath; paper 000 Thm 1) bounds every attacker's accuracy; the "
                "privacy-loss-distribution accountant gives the composed ε of the actual noise."))
        elif th.get("note"):
            out.append(sub("Exact theory"))
            out.append(para(markup(th["note"])))
        return out

    # ----------------------------------------------------------------- 6. comparison
    def theory(self, result: dict) -> list[Flowable]:
        th = _theory(result)
        out: list[Flowable] = []
        if not th.get("composed"):
            out.append(para("No differential-privacy noise was added, so there is no "
                            "guarantee to compare with"
                            + (f": {markup(th['note'])}" if th.get("note") else ".")
                            + " The measured attacks in section 5 are the evidence."))
        else:
            e = th.get("epochs")
            out += accounting_table(th, k_sym="E", over="the target's hours",
                                    count_note=f"E = {fmt_num(e)} hours, "
                                    f"ε0 = {fmt_eps(th.get('epsilon_per_epoch'))} per hour",
                                    title=f"The privacy guarantee over the target's "
                                          f"{fmt_num(e)} hours")
            out.append(keep([
                sub("The optimum and the DP bound beside the measured attacks"),
                comparison_by_attack(result, th,
                                     optimal_label="Best possible attacker (exact theory)",
                                     worst_label="Most ε per hour allows (exact worst case)"),
                para(self._bound_words(result, th), "small")]))
        out += self._published(th)
        out += self._sweep(result, th)
        out += score_distribution_charts(result)
        if th.get("composed"):
            out += epsilon_bounds_table(result, th)
        out += self._mlp(result)
        return out

    def _bound_words(self, result: dict, th: dict) -> str:
        opt = th.get("optimal_attacker") or {}
        bound = th.get("dp_bound_accuracy")
        attacks = [a for a in result.get("attacks") or [] if isinstance(a, dict)
                   and isinstance(a.get("accuracy"), (int, float))]
        text = (f"With ε = {fmt_eps(th.get('epsilon_per_epoch'))} per hour over the target's "
                f"{fmt_num(th.get('epochs'))} hours, no attacker can be right more than "
                f"<b>{fmt_pct(bound)}</b> of the time (balanced accuracy, the DP bound). ")
        if opt:
            text += (f"Against this noise the best possible attacker (exact theory) is right "
                     f"{fmt_pct(opt.get('accuracy'))} of the time. ")
        if attacks:
            best = max(attacks, key=lambda a: a["accuracy"])
            text += (f"The best measured attack, {markup(short_attack_label(best))}, reaches "
                     f"{fmt_pct(best['accuracy'])}. ")
        text += ("Measured attacks should lie at or below the optimum (within their "
                 "intervals); one above the DP bound would show the noise does not give the "
                 "claimed guarantee.")
        if th.get("attacker") not in (None, "informed"):
            text += (" The attacker measured here knows less than the informed one, so its "
                     "attacks are expected to stay well below the optimum.")
        return text

    def _published(self, th: dict) -> list[Flowable]:
        """The attacker's conclusions on a published release (config ``release``), if any."""
        pub = th.get("published_release")
        if not isinstance(pub, dict):
            return []
        rows = [("Attack", "Score", "Threshold", "Says", "Simulated releases without the "
                 "target scoring at least this")]
        for v in pub.get("attacks") or []:
            if not isinstance(v, dict):
                continue
            rows.append((markup(short_label_text(v.get("label") or v.get("name"))),
                         fmt_num(v.get("score")), fmt_num(v.get("threshold")),
                         "<b>present</b>" if v.get("says_present") else "absent",
                         fmt_pct(v.get("share_absent_at_least"))))
        return [keep([
            sub("The published release"),
            para(f"File: {markup(pub.get('path') or st.DASH)}. "
                 + markup(pub.get("note") or ""), "small"),
            table(rows, [5.6 * cm, 2.2 * cm, 2.2 * cm, 1.8 * cm, TEXT_WIDTH - 11.8 * cm])])]

    def _sweep(self, result: dict, th: dict) -> list[Flowable]:
        sweep = th.get("sweep") or {}
        if not sweep.get("observations"):
            return []
        ks = sweep.get("observations") or []
        return [keep([
            sub("Accuracy against the number of observations"),
            para("People who appear in more cells are easier to spot (paper 000 Fig. 13/14). "
                 f"The audit repeated the game for {fmt_num(len(ks))} other targets with "
                 f"k = {', '.join(fmt_num(k) for k in ks)} observations, "
                 f"{fmt_num((result.get('config') or {}).get('sweep_test_aggregates'))} test "
                 "aggregates each, and measured the cheaper attacks on them.", "small"),
            observations_chart(result),
            para("Markers: measured balanced accuracy with its 95% interval (whiskers; series "
                 "are shifted sideways slightly so they do not hide each other). Solid line: "
                 "best possible attacker (exact theory). Long dashes: the most the claimed ε "
                 "per "
                 "hour allows. The bound steps at even k: with an even number of hours a "
                 "worst-case tie gives no extra information. "
                 + series.observations_note(result), "caption")])]

    def _mlp(self, result: dict) -> list[Flowable]:
        out: list[Flowable] = []
        for a in result.get("attacks") or []:
            if not isinstance(a, dict):
                continue
            det = a.get("details") or {}
            fl = det.get("first_layer")
            if not isinstance(fl, dict):
                continue
            out += [sub(f"What the {markup(short_attack_label(a).lower())} learnt"),
                    para(mlp_words(a))]
        return out

    # ----------------------------------------------------------------- 8. limitations
    def limitations(self, result: dict) -> list[str]:
        cfg = result.get("config") or {}
        out = standard_limitations(result)
        out.insert(1, "The exact theory assumes the informed attacker, who knows everyone else "
                      "in the release (section 3). That is the worst case: a real attacker "
                      "who knows less does no better.")
        out.append("The attacker's shadow aggregates come from people of the same population "
                   "(its auxiliary pool). An attacker with better data, or many releases of "
                   "the same people, may do better than the attacks measured here; the exact "
                   "optimum still bounds the informed attacker.")
        out.append("The audit clips each person to C sites per hour and adds the noise itself. "
                   "The guarantee holds for the real release only if it clips and adds noise "
                   "the same way (for example, floating-point noise generation is not "
                   "checked).")
        out.append("Exposed people are judged by their number of observations alone, with the "
                   "informed attacker's exact theory; which sites and hours they visited "
                   "does not change that attacker's success.")
        if not cfg.get("traces"):
            out.append("The traces are a synthetic city: the numbers say what the release "
                       "settings allow for such traces, not for a particular real population.")
        return out

    # ----------------------------------------------------------------- 9. exposed people
    def exposed(self, result: dict, include_records: bool) -> list[Flowable]:
        return exposed_people(result, include_records)


def split_spread(result: dict) -> list[Flowable]:
    """Per attack, the first run's accuracy and interval beside the spread over the
    repetitions, each with a fresh split of the people into the attacker's pool and the release
    pool (issue 22): mean, standard deviation, lowest and highest accuracy and AUC, and the
    sentence the audit writes when that spread is wider than the interval."""
    rows = [("Attack", "First run (95% interval)", "Mean ± sd over repetitions",
             "Lowest – highest", "AUC lowest – highest")]
    sentences = []
    count = 0
    for a in result.get("attacks") or []:
        reps = (a.get("details") or {}).get("repetitions") if isinstance(a, dict) else None
        if not isinstance(reps, dict) or len(reps.get("accuracy") or []) < 2:
            continue
        count = max(count, len(reps["accuracy"]))
        ci = a.get("accuracy_ci") or [None, None]
        rows.append((markup(short_label_text(a.get("label") or a.get("name"))),
                     f"{fmt_pct(a.get('accuracy'))} ({fmt_pct(ci[0])}–{fmt_pct(ci[1])})",
                     f"{fmt_pct(reps.get('accuracy_mean'))} ± "
                     f"{fmt_points(reps.get('accuracy_sd'))}",
                     f"{fmt_pct(reps.get('accuracy_min'))} – "
                     f"{fmt_pct(reps.get('accuracy_max'))}",
                     f"{fmt3(reps.get('auc_min'))} – {fmt3(reps.get('auc_max'))}"))
        if reps.get("sentence"):
            sentences.append(markup(reps["sentence"]))
    if len(rows) < 2:
        return []
    redrawn = ((_theory(result).get("repetitions") or {}).get("split_redrawn") is True)
    how = ("each with a fresh split of the people into the attacker's own data and the people "
           "released, and fresh simulated releases" if redrawn else
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


def short_label_text(label) -> str:
    return short_label(str(label or "attack"))


#: Which theorem of paper 000 describes each attack's score, and the score in words.
SCORE_WORDS = {
    "one_threshold": ("Thm 2", "Fig. 8", "Sum of the released counts in the target's cells"),
    "two_threshold": ("Thm 3", "Fig. 10", "Number of the target's cells above their threshold"),
}


def score_distribution_charts(result: dict) -> list[Flowable]:
    """Paper 000 Fig. 8/10: per attack that recorded ``details.score_distribution`` (one- and
    two-threshold), the histograms of its test scores with and without the target beside the
    laws of Thm 2 (Normal, by the CLT) and Thm 3 (Binomial), with a caption."""
    absent_style = (colors.Color(0.05, 0.25, 0.60), None, None)
    present_style = (colors.Color(0.70, 0.30, 0.00), (4, 2), None)
    absent_model = (colors.Color(0.0, 0.12, 0.35), (1, 1.6), "circle")
    present_model = (colors.Color(0.40, 0.15, 0.0), (6, 2, 1, 2), "square")
    out: list[Flowable] = []
    for a in result.get("attacks") or []:
        if not isinstance(a, dict):
            continue
        dist = (a.get("details") or {}).get("score_distribution")
        if not isinstance(dist, dict) or not dist.get("score"):
            continue
        name = _base_name(str(a.get("name") or ""))
        thm, fig, x_title = SCORE_WORDS.get(name, ("Thm 2 and 3", "Fig. 8 and 10",
                                                   "Attack score"))
        label = short_attack_label(a)
        bars = [HistogramSeries("Without the target (measured)", dist.get("absent") or [],
                                absent_style, colors.Color(0.35, 0.55, 0.85, alpha=0.35)),
                HistogramSeries("With the target (measured)", dist.get("present") or [],
                                present_style, colors.Color(0.95, 0.60, 0.25, alpha=0.35))]
        curves = [HistogramSeries(words, dist.get(key), style)
                  for key, words, style in (
                      ("model_absent", "Without the target (theory)", absent_model),
                      ("model_present", "With the target (theory)", present_model))
                  if dist.get(key) is not None]
        n_abs = sum(v for v in dist.get("absent") or [] if isinstance(v, (int, float)))
        n_pre = sum(v for v in dist.get("present") or [] if isinstance(v, (int, float)))
        model = markup(dist.get("model") or "the law of paper 000")
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
            histogram_chart(dist["score"], bars, curves,
                            f"{label}: scores with and without the target "
                            f"(paper 000 {fig})", x_title, "Number of test releases"),
            para(caption, "caption")]))
    return out


def _release_words(result: dict) -> str:
    th, cfg = _theory(result), result.get("config") or {}
    n = cfg.get("aggregate_size")
    mech = th.get("mechanism_label") or cfg.get("mechanism") or "no"
    noise = ("with no noise" if cfg.get("mechanism") == "none" else
             f"with {markup(mech)} noise added to every count (ε = "
             f"{fmt_eps(th.get('epsilon_per_epoch', cfg.get('epsilon')))} per hour)")
    return (f"<b>What was released:</b> a table of how many people were at each of "
            f"{fmt_num(th.get('sites'))} sites in each of {fmt_num(th.get('epochs_total'))} "
            f"hours, computed from n = {fmt_num(n)} people drawn from a population "
            f"of {fmt_count(th.get('population'))}, each person clipped to at most "
            f"{fmt_num(th.get('clip_per_epoch', cfg.get('clip_per_epoch')))} site(s) per "
            f"hour, {noise}.")


def mlp_words(a: dict) -> str:
    """One paragraph: which rule the MLP's first layer learnt (paper 000 §4.2, Fig. 12/15)."""
    det = a.get("details") or {}
    fl = det.get("first_layer") or {}
    dd = fl.get("diagonal_dominance")
    osb = fl.get("opposite_sign_bias")
    shape = fl.get("shape") or []
    n_sh = det.get("shadow_aggregates")
    text = ""
    if n_sh is not None:
        text += f"Trained on {fmt_count(n_sh)} shadow aggregates"
        if det.get("held_out_loss") is not None:
            text += f" (held-out loss {fmt_num(det.get('held_out_loss'))})"
        text += ". "
    if isinstance(dd, (int, float)):
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
    if isinstance(osb, (int, float)):
        text += (f"{fmt_pct(osb)} of the units have a bias of the opposite sign to their own "
                 "cell's weight, i.e. a per-cell threshold (the two-threshold rule needs this "
                 "in nearly all units). ")
    text += ("Paper 000 finds that with about 2,000 shadow aggregates the network learns the "
             "one-threshold rule and needs about 200,000 to find the two-threshold one; the "
             "likelihood-ratio attack needs no training.")
    return text


def exposed_people(result: dict, include_records: bool = False) -> list[Flowable]:
    """Section 9: how many people are as exposed as the policy's high-risk line, and (only
    when the audit was asked to list them and the report includes records) who they are."""
    records = [r for r in result.get("exposed_records") or [] if isinstance(r, dict)]
    if records and not all("count" in r for r in records):
        # Not the location audit's summary rows (e.g. an older result listing records one by
        # one): the shared section prints them, redacted unless the report includes records.
        return exposed_records_generic(result, include_records)
    cfg = result.get("config") or {}
    pol = cfg.get("policy") or {}
    if not records:
        return [para("No exposure count was recorded in this result.")]
    out: list[Flowable] = []
    for rec in records:
        count, popn = rec.get("count"), rec.get("population")
        kmin = rec.get("min_observations")
        line = (f"<b>{fmt_count(count)} of {fmt_count(popn)} people "
                f"({fmt_pct(rec.get('share'))})</b> are exposed: "
                f"{markup(rec.get('rule') or st.DASH)}.")
        out.append(para(line))
        out.append(para(
            "A person is exposed when the best possible attacker, facing their number of "
            "observations k, reaches the policy's high-risk line: it finds at least "
            f"{fmt_pct(pol.get('high_tpr'))} of the releases containing them while wrongly "
            f"accusing {fmt_pct(pol.get('fpr'))} of the others, or is right at least "
            f"{fmt_pct(pol.get('high_accuracy'))} of the time. That attacker's success grows "
            "with k alone, so one threshold on k"
            + (f" (k ≥ {fmt_num(kmin)})" if kmin is not None else "")
            + " separates everyone."))
        people = rec.get("people")
        # The GUI's tick box first: the officer never sees the config key.
        tick = "“List the exposed people by id” (list_exposed_ids in a config file)"
        if rec.get("ids_listed") and not include_records:
            out.append(para(f"Identifiers are withheld: the result holds them (the audit ran "
                            f"with {tick} ticked), but this report was written without "
                            "records, as it may travel further than the data. Write it with "
                            "records included to name them.", "small"))
        elif rec.get("ids_listed") and isinstance(people, list) and people:
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


def _people_table(people: list[dict], columns: int = 5):
    cells = [f"{markup(p.get('id'))} ({fmt_num(p.get('observations'))})" for p in people
             if isinstance(p, dict)]
    rows = [["Person (k)"] * columns]
    for i in range(0, len(cells), columns):
        chunk = cells[i:i + columns]
        rows.append(chunk + [""] * (columns - len(chunk)))
    return table(rows, [TEXT_WIDTH / columns] * columns)


__all__ = ["LocationSections", "exposed_people", "mlp_words"]
