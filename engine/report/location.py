"""Report sections specific to the location audit (paper 000; engine/audits/location.py).

The release is a table of how many people were at each site in each epoch (hour), with DP noise
in every cell; the question is whether one person's trace is in it. The sections say what was
released, who the attacker is, how the attacks decide (each learns its threshold from the
attacker's own shadow aggregates, never from the evaluation), how they compare with the exact
optimal attacker and with what ε-DP per epoch allows over the target's epochs, what the MLP
meta-classifier learnt (paper 000 §4.2, Fig. 12/15), and which people are as exposed as the
audited target. Everything else is the shared report (engine/report/sections.py); the parts
that read one kind of data each are in engine/report/location_parts.py.

Each hook takes the result as a dict or a LoadedResult and reads it typed (engine.results
.location, issue 33 item 1).
"""

from __future__ import annotations

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, Spacer

from engine.numbers import is_finite
from engine.plots import observations
from engine.plots.observations import load_location
from engine.report import styles as st
from engine.report.charts import observations_chart
from engine.report.location_parts import (
    base_name,
    exposed_people,
    mlp_words,
    release_words,
    score_distribution_charts,
    short_label_text,
    short_name,
    split_spread,
)
from engine.report.sections import (
    TEXT_WIDTH,
    AuditSections,
    accounting_table,
    attack_entry,
    bullets,
    comparison_by_attack,
    epsilon_bounds_table,
    inputs_table,
    keep,
    key_value_table,
    markup,
    para,
    standard_limitations,
    sub,
    table,
)
from engine.report.sections import results as shared_results
from engine.report.styles import fmt_count, fmt_eps, fmt_num, fmt_pct
from engine.results.blocks import AttackEntry
from engine.results.loaded import LoadedResult
from engine.results.location import LocationDetails, LocationSettings, LocationTheory

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


def _read(result) -> tuple[LoadedResult, LocationTheory, LocationSettings]:
    """The result read once (engine.plots.observations.load_location), its theory and its
    settings."""
    r = load_location(result)
    return r, r.theory, LocationSettings.from_config(r.config)


def _or(value, fallback):
    """The theory's value, or the setting's where the result has none."""
    return fallback if value is None else value


class LocationSections(AuditSections):
    """Sections 2, 3, 4 (theory part), 6, 8 and 9 for ``audit_type == "location"``."""

    # ----------------------------------------------------------------- 2. what was audited
    def audited(self, result) -> list[Flowable]:
        r, th, cfg = _read(result)
        sites, epochs = th.sites, th.epochs_total
        if cfg.synthetic:
            empty = (f"No input file: the traces are a synthetic city generated from the seed "
                     f"({fmt_count(cfg.city_users)} people, "
                     f"{fmt_count(cfg.city_epochs)} hours).")
        else:
            empty = "No input files were recorded."
        out: list[Flowable] = [para(release_words(r))]
        out += inputs_table(result, empty)
        out.append(Spacer(1, 4))
        out.append(key_value_table([
            ("Configuration SHA-256", f'<font face="{st.FONT_MONO}" size="7.5">'
             f'{markup(r.config_sha256 or st.DASH)}</font>')]))
        out.append(Spacer(1, 8))
        mech = th.mechanism_label or cfg.mechanism or st.DASH
        clip = _or(th.clip_per_epoch, cfg.clip_per_epoch)
        cells = (fmt_count(sites * epochs) if isinstance(sites, int) and isinstance(epochs, int)
                 else st.DASH)
        rows = [
            ("Parameter", "Value", "Meaning"),
            ("Population", f"{fmt_count(th.population)} people" if th.population is not None
             else st.DASH, "everyone in the traces; releases are drawn from them"),
            ("Places × hours", f"{fmt_num(sites)} × {fmt_num(epochs)} = {cells} cells",
             "the released table: one count per place and hour"),
            ("People in a release (n)", fmt_num(cfg.aggregate_size),
             "people counted in one release besides the target (the target is added to half "
             "of the releases)"),
            ("Places kept per person and hour (C)", f"{fmt_num(clip)}",
             "each person counts in at most C cells per hour, so one person changes one "
             "hour's row by at most C"),
            ("Mechanism", markup(mech),
             "noise added to every cell" if cfg.mechanism != "none"
             else "no noise: the counts are released exactly"),
        ]
        if th.noise_scale is not None:
            symbol = str(th.noise_scale_name or "").removeprefix("scale ")
            rows.append((f"Noise scale ({markup(symbol)})" if symbol else "Noise scale",
                         fmt_num(th.noise_scale), "size of the noise, calibrated from ε per "
                         "hour and C"))
        large = cfg.large_shadow_aggregates
        rows += [
            ("ε per hour", fmt_eps(_or(th.epsilon_per_epoch, cfg.epsilon)),
             "privacy loss of one hour's counts for one person (smaller = more private)"),
            ("δ (failure probability)", st.fmt_sci(_or(th.delta, cfg.delta)),
             "probability the ε guarantee may fail"),
            ("People the releases draw from / in the attacker's own data",
             f"{fmt_count(th.release_pool)} / {fmt_count(th.auxiliary_pool)}",
             "releases draw their people from the first; the attacker's own data is the "
             "second (disjoint)"),
            ("Releases to test the attacks on", fmt_num(cfg.test_aggregates),
             "simulated releases the attacks are scored on, half with the target"),
            ("Simulated releases for training", fmt_num(cfg.shadow_aggregates)
             + (f" (+ {fmt_num(large)} for a second, better-trained network)" if large else ""),
             "simulated releases the attacker builds from its own data to learn thresholds"),
            ("Repetitions", fmt_num(cfg.repetitions),
             "independent replays of the game, each with a fresh split of the people into "
             "the attacker's data and the people released, and fresh releases"),
            ("Targets for accuracy vs observations",
             f"{fmt_num(cfg.sweep_targets)} targets × "
             f"{fmt_num(cfg.sweep_test_aggregates)} releases each",
             "for the chart of accuracy against the number of observations"),
            ("Seed", markup(_or(r.seed, _or(cfg.seed, st.DASH))),
             "drives every random number of the audit"),
        ]
        out.append(table(rows, [4.4 * cm, 4.0 * cm, TEXT_WIDTH - 8.4 * cm]))
        return out

    # ----------------------------------------------------------------- 3. threat model
    def threat_model(self, result) -> list[Flowable]:
        r, th, cfg = _read(result)
        kind = str(th.attacker or cfg.attacker or "informed")
        n = cfg.aggregate_size
        unknown = th.unknown_people
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
                         f"(θ = {fmt_pct(cfg.known_fraction)}); the other "
                         f"{fmt_num(unknown)} are unknown to it and add to the noise.")
        else:
            knows.append(f"nobody in the release; instead it has the traces of "
                         f"{fmt_count(th.auxiliary_pool)} similar people (its auxiliary "
                         "pool, disjoint from the people released), from which it simulates "
                         "releases.")
        out += [sub("What the attacker knows")] + bullets(knows)
        out.append(sub("How the game is played"))
        out += bullets([
            f"<b>Shadow aggregates</b> ({fmt_num(cfg.shadow_aggregates)}): releases the "
            "attacker simulates from its auxiliary pool, half with the target added, with the "
            "same clipping and noise (paper 000 Alg. 1). Every attack learns its threshold "
            "(or network) from them.",
            f"<b>Test aggregates</b> ({fmt_num(cfg.test_aggregates)}): releases drawn "
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
        out += self._target(th)
        return out

    def _target(self, th: LocationTheory) -> list[Flowable]:
        tg = th.target
        rule = str(tg.rule or "")
        who = {"most_exposed": "the most exposed person: the one with the most positive "
                               "observations after clipping",
               "random": "a person chosen at random among those with at least one "
                         "observation",
               "observations": "the person whose number of observations is closest to the "
                               "configured target_observations",
               "id": "the person named in the configuration"}.get(rule, markup(rule or "—"))
        shown = tg.id not in (None, "", "(redacted)")
        rows = [("Chosen as", who),
                ("Identifier", markup(tg.id) if shown else
                 "redacted (printed only when the audit ran with “List the exposed people "
                 "by id” ticked, or with the target chosen by id, and the report is written "
                 "with records included)"),
                ("Positive observations k", fmt_num(tg.observations)
                 + " cells (site, hour) after clipping"),
                ("Hours E", fmt_num(tg.epochs)
                 + " distinct hours among them (what the privacy guarantee composes over)")]
        return [keep([sub("The target"), key_value_table(rows)])]

    # ----------------------------------------------------------------- 4. method
    def describe_attack(self, attack) -> str:
        """``attack``: an AttackEntry, or its dict (the shared method section passes either)."""
        entry = attack if isinstance(attack, AttackEntry) else attack_entry(attack)
        name = base_name(entry.name)
        words = ATTACK_WORDS.get(name, "")
        rule = LocationDetails.from_dict(entry.details).per_cell_rule
        if name == "two_threshold" and rule:
            # Which per-cell rule ran (issue 22): paper 000's Alg. 5 takes the midpoint of the
            # per-cell means; the default picks each cell's most accurate shadow threshold.
            words += f" Per-cell rule used here: {markup(rule)}."
        return words

    # ----------------------------------------------------------------- 5. results
    def results(self, result) -> list[Flowable]:
        return shared_results(result) + split_spread(result)

    def method_theory(self, result) -> list[Flowable]:
        th = _read(result)[1]
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
        opt = th.optimal_attacker
        if opt:
            err = opt.numerical_error
            err_text = ("exact" if not err else
                        f"numerical error at most {fmt_num(err)} on AUC and TPR")
            out.append(sub("Exact theory"))
            out.append(para(
                "<b>The best possible attacker</b> (Neyman–Pearson lemma): knowing everyone "
                "else, the attacker sees noise plus 1 in each of the target's k cells if the "
                "target is present, noise alone if not. The likelihood-ratio test of these "
                f"k values, statistic {markup(opt.statistic or st.DASH)}, is the most "
                "powerful test at every false-positive rate; its ROC is computed by "
                f"{markup(opt.method or st.DASH)} ({err_text}) and no attack can beat "
                "it (paper 000 §3 for the clipped sum under Laplace noise)."))
            out.append(para(
                "<b>What the claimed guarantee allows</b>: each hour's counts are ε-DP for one "
                "person (sensitivity C per hour), so over the E hours of the target the "
                "guarantee composes. The worst case of E-fold ε-DP (randomised response, "
                "Kairouz–Oh–Viswanath; paper 000 Thm 1) bounds every attacker's accuracy; the "
                "privacy-loss-distribution accountant gives the composed ε of the actual noise."))
        elif th.note:
            out.append(sub("Exact theory"))
            out.append(para(markup(th.note)))
        return out

    # ----------------------------------------------------------------- 6. comparison
    def theory(self, result) -> list[Flowable]:
        r, th, cfg = _read(result)
        out: list[Flowable] = []
        if not th.guaranteed:
            out.append(para("No differential-privacy noise was added, so there is no "
                            "guarantee to compare with"
                            + (f": {markup(th.note)}" if th.note else ".")
                            + " The measured attacks in section 5 are the evidence."))
        else:
            e = th.epochs
            out += accounting_table(th, k_sym="E", over="the target's hours",
                                    count_note=f"E = {fmt_num(e)} hours, "
                                    f"ε0 = {fmt_eps(th.epsilon_per_epoch)} per hour",
                                    title=f"The privacy guarantee over the target's "
                                          f"{fmt_num(e)} hours")
            out.append(keep([
                sub("The optimum and the DP bound beside the measured attacks"),
                comparison_by_attack(r, th,
                                     optimal_label="Best possible attacker (exact theory)",
                                     worst_label="Most ε per hour allows (exact worst case)"),
                para(self._bound_words(r), "small")]))
        out += self._published(th)
        out += self._sweep(r, cfg)
        out += score_distribution_charts(r)
        if th.guaranteed:
            out += epsilon_bounds_table(r, th)
        out += self._mlp(r)
        return out

    def _bound_words(self, r: LoadedResult) -> str:
        th = r.theory
        opt = th.optimal_attacker
        attacks = [a for a in r.attacks if is_finite(a.accuracy)]
        text = (f"With ε = {fmt_eps(th.epsilon_per_epoch)} per hour over the target's "
                f"{fmt_num(th.epochs)} hours, no attacker can be right more than "
                f"<b>{fmt_pct(th.dp_bound_accuracy)}</b> of the time (balanced accuracy, the "
                "DP bound). ")
        if opt:
            text += (f"Against this noise the best possible attacker (exact theory) is right "
                     f"{fmt_pct(opt.accuracy)} of the time. ")
        if attacks:
            best = max(attacks, key=lambda a: a.accuracy)
            text += (f"The best measured attack, {markup(short_name(best))}, reaches "
                     f"{fmt_pct(best.accuracy)}. ")
        text += ("Measured attacks should lie at or below the optimum (within their "
                 "intervals); one above the DP bound would show the noise does not give the "
                 "claimed guarantee.")
        if th.attacker not in (None, "informed"):
            text += (" The attacker measured here knows less than the informed one, so its "
                     "attacks are expected to stay well below the optimum.")
        return text

    def _published(self, th: LocationTheory) -> list[Flowable]:
        """The attacker's conclusions on a published release (config ``release``), if any."""
        pub = th.published_release
        if pub is None:
            return []
        rows = [("Attack", "Score", "Threshold", "Says", "Simulated releases without the "
                 "target scoring at least this")]
        for v in pub.attacks:
            rows.append((markup(short_label_text(v.label or v.name)),
                         fmt_num(v.score), fmt_num(v.threshold),
                         "<b>present</b>" if v.says_present else "absent",
                         fmt_pct(v.share_absent_at_least)))
        return [keep([
            sub("The published release"),
            para(f"File: {markup(pub.path or st.DASH)}. " + markup(pub.note or ""), "small"),
            table(rows, [5.6 * cm, 2.2 * cm, 2.2 * cm, 1.8 * cm, TEXT_WIDTH - 11.8 * cm])])]

    def _sweep(self, r: LoadedResult, cfg: LocationSettings) -> list[Flowable]:
        ks = r.theory.sweep.observations
        if not ks:
            return []
        return [keep([
            sub("Accuracy against the number of observations"),
            para("People who appear in more cells are easier to spot (paper 000 Fig. 13/14). "
                 f"The audit repeated the game for {fmt_num(len(ks))} other targets with "
                 f"k = {', '.join(fmt_num(k) for k in ks)} observations, "
                 f"{fmt_num(cfg.sweep_test_aggregates)} test "
                 "aggregates each, and measured the cheaper attacks on them.", "small"),
            observations_chart(r),
            para("Markers: measured balanced accuracy with its 95% interval (whiskers; series "
                 "are shifted sideways slightly so they do not hide each other). Solid line: "
                 "best possible attacker (exact theory). Long dashes: the most the claimed ε "
                 "per "
                 "hour allows. The bound steps at even k: with an even number of hours a "
                 "worst-case tie gives no extra information. "
                 + observations.observations_note(r), "caption")])]

    def _mlp(self, r: LoadedResult) -> list[Flowable]:
        out: list[Flowable] = []
        for a in r.attacks:
            det = r.theory.details_of(a)
            if det.first_layer is None:
                continue
            out += [sub(f"What the {markup(short_name(a).lower())} learnt"),
                    para(mlp_words(det))]
        return out

    # ----------------------------------------------------------------- 8. limitations
    def limitations(self, result) -> list[str]:
        cfg = _read(result)[2]
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
        if cfg.synthetic:
            out.append("The traces are a synthetic city: the numbers say what the release "
                       "settings allow for such traces, not for a particular real population.")
        return out

    # ----------------------------------------------------------------- 9. exposed people
    def exposed(self, result, include_records: bool) -> list[Flowable]:
        return exposed_people(result, include_records)


__all__ = ["LocationSections", "exposed_people", "mlp_words"]
