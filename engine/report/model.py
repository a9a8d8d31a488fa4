"""Report sections specific to the machine-learning model audit (papers 001 and 004 §4;
engine/audits/model.py; method in docs/methods/model_audit.md).

A data-protection officer asked to approve a model trained on personal records must learn how
well an outsider can tell who was in the training data, which records are most exposed, and
how that compares with what any attack knowing only the model's accuracy could do. The game is
a membership game over the audited records (members: trained on; non-members: held out), so
the measurement is the shared one; but the records are real records, not simulated trials, and
the reference to compare with is not a DP guarantee (the model has none) but paper 001 Thm 2:
no attack that knows only the train and test accuracies beats BTTA. This module therefore
writes its own sections 4 (attacks, BTTA's closed forms, how they are measured) and 5 (one
table of every attack, the ROC with the Thm 2 line, the generalization gap, the strongest
attack against the bound). Section 6 sets each attack against the bound and gives the
empirical ε lower bounds; section 9 lists the most exposed members by row number (labels only
in a report written with records included). Section 5 ends with the defences' trade-off when
the audit ran them (engine/report/defences.py). Everything else is the shared report. Section 5 is engine/report/model_results.py, the
words, the Thm 2 curve and section 9 engine/report/model_parts.py (issue 33 item 2); every
section reads the result typed (issue 33 item 1).
"""

from __future__ import annotations

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, Spacer

from engine.data.tabular import model_features_text
from engine.numbers import is_finite
from engine.report import styles as st
from engine.report.defences import defences_limitation
from engine.report.model_parts import (
    BOUND_LABEL,
    FAMILY_WORDS,
    THREAT_WORDS,
    as_dict,
    bound_auc,
    bound_tpr,
    data_words,
    describe,
    exposed_members,
    label,
    model_words,
    points,
    strongest_attack,
    typed,
)
from engine.report.model_results import results_section
from engine.report.sections import (
    TEXT_WIDTH,
    AuditSections,
    attack_entry,
    bullets,
    inputs_table,
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
from engine.results.blocks import AttackEntry, BttaBound, GeneralizationGap

_ok = is_finite


def _either(value, default):
    """``value``, or ``default`` when the result has none."""
    return default if value is None else value


# --------------------------------------------------------------------------- the hooks

class ModelSections(AuditSections):
    """Sections 2, 3, 4, 5, 6, 8 and 9 for ``audit_type == "model"``."""

    # ----------------------------------------------------------------- 2. what was audited
    def audited(self, result) -> list[Flowable]:
        r, theory = typed(result)
        cfg, model = theory.settings, theory.model
        gap = theory.generalization_gap or GeneralizationGap()
        empty = ("No input file: the records are generated from the seed."
                 if cfg.synthetic_records
                 else "No input files were recorded.")
        out: list[Flowable] = [para(model_words(r))]
        out += inputs_table(as_dict(result), empty)
        out.append(Spacer(1, 4))
        out.append(key_value_table([
            ("Configuration SHA-256", f'<font face="{st.FONT_MONO}" size="7.5">'
             f'{markup(r.config_sha256 or st.DASH)}</font>')]))
        out.append(Spacer(1, 8))
        external = model.family == "external"
        rows = [("Parameter", "Value", "Meaning"),
                ("Model", markup(FAMILY_WORDS.get(str(model.family), model.family or st.DASH)),
                 markup(model.description or st.DASH)),
                ("Data", data_words(r), "where the records come from")]
        if _ok(model.classes) or _ok(model.features):
            rows.append(("Classes, features",
                         f"{fmt_count(model.classes)}, "
                         f"{markup(model_features_text(model.features_counts()) or st.DASH)}",
                         "labels the model predicts; the table's feature columns (the model's "
                         "inputs: one per category, plus a flag for each filled gap)"))
        if not external:
            rows.append(("Attacker's population", fmt_count(model.population_records),
                         "records from the same source that the audited model never saw "
                         f"(the attacker's share, {fmt_num(cfg.attacker_fraction)} of "
                         "the data); the shadow models train on halves of them"))
        rows += [
            ("Members", fmt_count(model.train_records),
             "audited records the model was trained on"
             + ("" if external else (f" (the training share, "
                                     f"{fmt_num(cfg.train_fraction)} of the rest, or "
                                     "the members column)"))),
            ("Non-members", fmt_count(model.test_records),
             "audited records it was not trained on; members and non-members together are "
             "the audit universe"),
        ]
        if _ok(model.train_accuracy):
            rows += [
                ("Training accuracy (p0)", two_lines(fmt_pct(model.train_accuracy),
                                                fmt_ci(gap.train_accuracy_ci, fmt_pct)),
                 "share of members the model labels correctly (95% interval below)"),
                ("Test accuracy (p1)", two_lines(fmt_pct(model.test_accuracy),
                                               fmt_ci(gap.test_accuracy_ci, fmt_pct)),
                 "share of non-members it labels correctly")]
        else:
            rows.append(("Mean loss", f"{fmt3(model.mean_loss_members)} / "
                         f"{fmt3(model.mean_loss_non_members)}",
                         "members / non-members: the file holds one loss per record, so the "
                         "predicted class and the accuracies are unknown"))
        if not external:
            rows += [
                ("Shadow models", fmt_count(_either(model.shadow_models, cfg.shadow_models)),
                 "trained like the audited model on halves of the attacker's population "
                 "(BTTA, CBTTA, metric attacks, ML-Leaks, Shokri)"),
                ("Reference models",
                 fmt_count(_either(model.reference_models, cfg.reference_models)),
                 "trained like it on random halves of the audit universe (LiRA, RMIA)"),
                ("Training", f"{markup(model.training_device or model.device or '—')}"
                 + (f", {fmt_num(model.training_runtime_s)} s"
                    if _ok(model.training_runtime_s) else ""),
                 "device and time of the audited model's training"),
            ]
        rows.append(("Seed", markup(_either(r.seed, _either(cfg.seed, st.DASH))),
                     "drives every random number of the audit (split, training, attacks)"))
        out.append(table(rows, [3.6 * cm, 4.6 * cm, TEXT_WIDTH - 8.2 * cm]))
        return out

    # ----------------------------------------------------------------- 3. threat model
    def threat_model(self, result) -> list[Flowable]:
        theory = typed(result)[1]
        threat = theory.threat
        refs = theory.model.reference_models
        sees = ("its loss on the record (the file holds nothing else)"
                if theory.settings.loss_only
                else "its probability for every class")
        out: list[Flowable] = [para(
            "The attacker plays the membership game: for each audited record it must say "
            f"whether the model was trained on it. It can query the model and sees {sees} "
            "(a black box: no weights, no gradients).")]
        if threat == "supervised":
            knows = [
                "which half of the audited records were members and which were not (the "
                "supervised-inference threat model of paper 004 §4.3: an insider, or someone "
                "who knows part of the training data); it learns from them and is measured "
                "on the other half;",
                "the model's outputs on every audited record.",
            ]
        else:
            knows = [
                "records from the same population as the training data, which the model never "
                "saw (the attacker's population), and how the model was trained, so it can "
                "train <b>shadow models</b> that imitate it and learn from them what members "
                "look like (Shokri et al. 2017; paper 001);",
                "the model's outputs on every audited record.",
            ]
            if _ok(refs) and refs:
                knows.append(
                    f"for LiRA and RMIA also the candidate records themselves (the audit "
                    f"universe): it trains {fmt_count(refs)} <b>reference models</b> on random "
                    "halves of them, so for each record it sees models trained with and "
                    "without it (Carlini et al. 2022) — a stronger attacker, the usual "
                    "standard for auditing.")
        out += [sub(f"What the attacker knows ({markup(THREAT_WORDS.get(threat, threat))} "
                    "threat model)")] + bullets(knows)
        bound = theory.btta_bound
        if bound is None or not bound.params:
            return out
        out += [sub("The weakest informed attacker"), para(
            "Paper 001 asks what an attacker can do that knows only the model's train accuracy "
            f"p0 (here {fmt_pct(bound.p0)}), its test accuracy p1 "
            f"({fmt_pct(bound.p1)}) and the share of members q "
            f"({fmt_pct(bound.q)}), and sees for each record only whether the model "
            "gets it right. Its answer (Thm 2) is a ceiling that the report draws on the ROC: "
            "an attack above it learns more from the model than the published accuracies "
            "reveal.")]
        out.append(para("A real attacker may know less (no data like the training data) or "
                        "more (some of the training records). The game fixes what it knows so "
                        "the risk can be measured and compared.", "small"))
        return out

    # ----------------------------------------------------------------- 4. method
    def describe_attack(self, attack: AttackEntry | dict) -> str:
        return describe(attack if isinstance(attack, AttackEntry) else attack_entry(attack))

    def method_theory(self, result) -> list[Flowable]:
        theory = typed(result)[1]
        bb = theory.btta_bound
        if theory.settings.loss_only:
            return [sub("No generalization-gap bound"), para(
                "The predictions hold one loss per record, not the predicted class, so the "
                "model's accuracies are unknown and paper 001's bound (the most an attack "
                "knowing only the train and test accuracy can do) cannot be computed. The "
                "loss gives the true class's probability, exp(−loss): the confidence attack "
                "reads exactly that.")]
        out = [
            sub("BTTA and the generalization-gap bound (paper 001)"),
            para("<b>BTTA</b> (Alg. 1) reports a record as a member when Bayes' rule says "
                 "that is more probable: if the model labels it correctly, “member” iff "
                 "q·p0 ≥ (1 − q)·p1; if it gets it wrong, “member” iff "
                 "q·(1 − p0) ≥ (1 − q)·(1 − p1). When p0 > p1 and q = ½ this is <i>member iff "
                 "labelled correctly</i> (Case 3), with accuracy q·p0 + (1 − q)·(1 − p1), "
                 "precision q·p0 / (q·p0 + (1 − q)·p1), recall (TPR) p0 and FPR p1. Its "
                 "balanced accuracy is ½ + ½·(p0 − p1): half the generalization gap above "
                 "guessing."),
            para("<b>Thm 2.</b> No attack that knows only p0, p1, q and whether each record is "
                 "labelled correctly beats BTTA's accuracy max{q, 1 − q, q·p0 + (1 − q)(1 − p1)}. "
                 "On the ROC, BTTA is the point (FPR, TPR) = (p1, p0); mixing it with the two "
                 "trivial rules gives the polyline (0, 0) – (p1, p0) – (1, 1), the best curve "
                 "available from correctness alone. It is drawn as a solid black line in "
                 "section 5; an attack above it uses more than the gap."),
        ]
        if bb is not None:
            out.append(para(
                f"With this model's p0 = {fmt3(bb.p0)}, "
                f"p1 = {fmt3(bb.p1)} and q = {fmt3(bb.q)}: "
                f"{markup(bb.statement)} "
                f"Balanced accuracy at most {fmt_pct(bb.balanced_accuracy_bound)}; "
                f"BTTA's precision {fmt_pct(bb.precision)}, recall "
                f"{fmt_pct(bb.recall)}.", "small"))
        out.append(para(
            "<b>CBTTA</b> (§ “Categorical Bayesian”) applies the same rule inside parts of the "
            "records — by true label (PTL), predicted label (PPL), true-class confidence (PTC) "
            "or predicted-class confidence (PPC), or two combined — each with its own p0, p1 "
            "and q from the shadow models. It is at least as accurate as BTTA when the gap "
            "differs between parts.", "small"))
        return out

    def method_common(self, result) -> list[Flowable]:
        """Section 4's attack list and how the attacks are measured, on real records."""
        r, theory = typed(result)
        attacks = r.attacks
        out: list[Flowable] = [sub("Attacks")]
        if not attacks:
            out.append(para("No attack was run."))
        for a in attacks:
            details = theory.details_of(a)
            line = f"<b>{markup(a.label or a.name)}</b>."
            words = self.describe_attack(a)
            if words:
                line += f" {words}"
            if details.paper:
                line += f" <i>Source: {markup(details.paper)}.</i>"
            out += bullets([line])
        out.append(sub("How the attacks are measured"))
        conf = st.fmt_conf(theory.settings.confidence)
        out.append(para(
            "Each attack gives every audited record a score (higher = “member”). Members are "
            "the positives, non-members the negatives. From the scores we draw the ROC curve "
            "(all thresholds), its area (AUC, 0.5 = guessing, with a DeLong interval) and the "
            "true-positive rate (TPR: members found) at fixed low false-positive rates (FPR: "
            "non-members wrongly accused). TPR at 0.1 % FPR is the headline for the strongest "
            "attacks (Carlini et al. 2022): it shows whether an attacker can be confident, "
            "and right, about a few people. Its interval allows for the uncertain FPR of a "
            "threshold read off the data (docs/methods/intervals.md); a rate below about "
            "3/(number of non-members) cannot be certified and is marked “not measurable”."))
        out.append(para(
            "<b>Balanced accuracy</b> is measured at the threshold each attack's own rule "
            "fixed from the shadow or reference models, before seeing the audited records "
            "(where an attack has no such rule, on a separate half of the records), with "
            f"exact {conf} Clopper–Pearson intervals. The <b>empirical ε lower bound</b> "
            "(section 6) is the smallest ε a differential-privacy guarantee of the training "
            "could claim given what the attack achieved (paper 002 Thm 1: TPR ≤ "
            "e<super>ε</super>·FPR + δ)."))
        return out

    # ----------------------------------------------------------------- 5. results
    def results(self, result) -> list[Flowable]:
        return results_section(result)

    # ----------------------------------------------------------------- 6. comparison
    def theory(self, result) -> list[Flowable]:
        r, theory = typed(result)
        attacks = r.attacks
        bb = theory.btta_bound or BttaBound()
        out: list[Flowable] = [para(
            "The model was trained without differential privacy, so there is no guarantee that "
            "bounds every attacker. Two references stand in for one: paper 001's Thm 2, the "
            "most an attacker knowing only the train and test accuracy can reach, and each "
            "attack's empirical ε lower bound, the smallest ε a DP guarantee of this training "
            "could have claimed.")]
        if not attacks:
            return out
        lim = bb.balanced_accuracy_bound
        rows = [("Attack", "Balanced accuracy", "Against the Thm 2 bound",
                 "Empirical ε lower bound")]
        for a in attacks:
            acc, ci = a.accuracy, a.accuracy_ci
            lo = ci[0] if ci is not None and _ok(ci[0]) else acc
            hi = ci[1] if ci is not None and _ok(ci[1]) else acc
            if not (_ok(acc) and _ok(lim)):
                reading = st.DASH
            elif lo > lim + 1e-12:
                reading = f"<b>above</b> ({points(acc - lim)})"
            elif hi < lim - 1e-12:
                reading = f"below ({points(acc - lim)})"
            else:
                reading = f"consistent ({points(acc - lim)})"
            eb = a.epsilon_lower_bound or {}
            rows.append((label(a), two_lines(fmt_pct(acc), fmt_ci(ci, fmt_pct)), reading,
                         fmt_eps(eb.get("value"))))
        caveat = ("" if theory.settings.split_by_audit
                  else " Here membership was not decided by the audit's random split (a "
                  "members column or predictions from elsewhere), so read the ε bounds as "
                  "indicative only.")
        out.append(keep([
            sub("Each attack against the Thm 2 bound"),
            table(rows, [5.6 * cm, 3.0 * cm, 4.4 * cm, TEXT_WIDTH - 13.0 * cm]),
            Spacer(1, 3),
            para(f"Thm 2 bound on balanced accuracy: {fmt_pct(lim)}. “Above” means even the "
                 "interval's lower end exceeds it: the attack uses more than the gap. An "
                 "empirical ε is a lower bound with 95% confidence (paper 002 Cor. 1): had the "
                 "model been trained with DP, its ε would have had to be at least that large "
                 "for this attack to be possible. It assumes each record's membership was "
                 "decided at random, as the audit's split does." + caveat, "small")]))
        return out

    # ----------------------------------------------------------------- 8. limitations
    def limitations(self, result) -> list[str]:
        r, theory = typed(result)
        attacks = r.attacks
        out = []
        rates: set[float] = set()
        counts: set[int] = set()
        for a in attacks:
            for row in a.tpr_at_fpr:
                if not row.measurable and row.key == "fpr_target" and _ok(row.fpr):
                    rates.add(float(row.fpr))
                    if _ok(a.n_negative):
                        counts.add(int(a.n_negative))
        if rates:
            ordered = sorted(rates, reverse=True)
            need = min_negatives(min(ordered))
            names = " and ".join(", ".join(fmt_pct(t) for t in ordered).rsplit(", ", 1))
            have = " to ".join(fmt_count(n) for n in sorted({min(counts), max(counts)})) \
                if counts else st.DASH
            out.append(f"TPR at {names} FPR {'is' if len(ordered) == 1 else 'are'} not "
                       f"measurable with {have} non-members (the smallest rate needs at least "
                       f"{fmt_count(need)}): audit more records to measure "
                       f"{'it' if len(ordered) == 1 else 'them'}.")
        out += [
            "The results hold for this model and this training run; retraining (other data, "
            "epochs, regularisation or seed) needs a new audit.",
            "Only membership is tested: whether the model reveals a record's attributes or "
            "can be made to reproduce training data is not covered.",
        ]
        if theory.threat_model == "supervised":
            out.append("Without shadow predictions the attacker learns from half of the "
                       "audited records (knowing their membership) and is measured on the "
                       "other half: a strong, insider-like attacker, and half as many records "
                       "to measure on.")
        else:
            out.append("The shadow-model attacks assume the attacker has data from the same "
                       "population and knows how the model was trained; with less it is "
                       "weaker, with some training records it is stronger.")
        refs = theory.model.reference_models
        if _ok(refs) and refs:
            out.append(f"LiRA and RMIA used {fmt_count(refs)} reference models (their papers "
                       "use 64 or more): with fewer, their per-record statistics are noisier "
                       "and the attacks are, if anything, weaker than they could be.")
        out += [
            "The Thm 2 bound uses the model's accuracies on the audited records; it bounds "
            "only attackers that know nothing but those accuracies.",
            "Measured values come from a finite set of records: they carry 95% confidence "
            "intervals (pointwise for the ROC bands); per-class gaps in small classes are "
            "rough.",
        ]
        if theory.settings.synthetic_records:
            out.append("The records are synthetic: the numbers say what this recipe does on "
                       "such data, not on a particular real population.")
        block = theory.defences
        if block is not None:
            out.append(defences_limitation(block))
        return out

    # ----------------------------------------------------------------- 9. exposed records
    def exposed(self, result, include_records: bool) -> list[Flowable]:
        return exposed_members(result, include_records)


__all__ = ["BOUND_LABEL", "ModelSections", "bound_auc", "bound_tpr", "exposed_members",
           "model_words", "strongest_attack"]
