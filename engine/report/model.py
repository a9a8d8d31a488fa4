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
the audit ran them (engine/report/defences.py). Everything else is the shared report.
"""

from __future__ import annotations

import numpy as np
from reportlab.lib.units import cm
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Spacer

from engine.audits.blocks import BttaBound, GeneralizationGap, theory_block
from engine.audits.model import attribute_sentence
from engine.data.tabular import model_features_text
from engine.headline import headline_of_result, tpr_at
from engine.report import styles as st
from engine.report.charts import roc_chart
from engine.report.defences import defences_block, defences_limitation, defences_section
from engine.report.sections import (
    SECTION_TITLES,
    TEXT_WIDTH,
    AuditSections,
    Heading,
    bullets,
    finite,
    finite_pair,
    first_time_paragraphs,
    fpr_targets,
    inputs_table,
    keep,
    key_value_table,
    markup,
    min_negatives,
    para,
    policy_fpr,
    short_attack_label,
    sub,
    table,
    tpr_cell,
    two_lines,
)
from engine.report.styles import fmt3, fmt_ci, fmt_count, fmt_eps, fmt_num, fmt_pct
from engine.wording import OBVIOUS_GUESS, SCALED_SCORE

FAMILY_WORDS = {
    "mlp": "neural network (MLP)",
    "logistic": "logistic regression",
    "random_forest": "random forest",
    "gradient_boosting": "gradient-boosted trees",
    "external": "model built elsewhere (its predictions were read from a file)",
}

SYNTHETIC_WORDS = {
    "purchase": "the bundled purchase-style sample (600 yes/no features, 100 classes, like "
                "Purchase100; paper 004 §5)",
    "mixed": "the bundled small mixed-type sample table",
}

METRIC_WORDS = {
    "correctness": "whether the model labels the record correctly",
    "confidence": "the model's probability for the record's true class",
    "entropy": "how spread out the model's probabilities are (low entropy = member)",
    "modified_entropy": "the modified entropy of Song & Mittal, which also uses the true class",
    "top1": "the model's highest probability, whatever the class",
}

#: How each attack decides, in plain words (section 4), by name or name prefix.
ATTACK_WORDS = {
    "btta": "It sees only whether the model labels a record correctly, and says “member” when "
            "that is the more probable explanation by Bayes' rule, with the train accuracy p0, "
            "the test accuracy p1 and the share of members q estimated on the attacker's "
            "shadow models. It uses nothing but the generalization gap.",
    "cbtta": "BTTA inside parts of the records (by label or by the model's confidence), each "
             "part with its own p0, p1 and q from the shadow models, so a gap that differs "
             "between classes is used.",
    "metric": "A threshold on {metric}, one per class, chosen on the shadow models' outputs "
              "where membership is known; never on the audited records.",
    "ml_leaks": "One attack model (a small classifier) learns, from the shadow models' top "
                "three probabilities in decreasing order, to tell their members from their "
                "non-members; it is then applied to the audited model's outputs.",
    "shokri": "Shadow models trained like the audited one; for each class an attack model "
              "learns from their whole probability vectors who was in their training data.",
    "lira_online": "For each record, the reference models trained with it and without it give "
                   "two Gaussian distributions of the (logit-scaled) confidence in the true "
                   "class; the score is the likelihood ratio of the audited model's value.",
    "lira_offline": "Only the reference models trained without the record: how far above "
                    "their usual (logit-scaled) confidence the audited model is, in standard "
                    "deviations.",
    "rmia": "The record's probability under the audited model divided by its average under "
            "the reference models, compared with the same ratio for population records z: the "
            "score is the share of z the record beats.",
    "label_only": "Says “member” when the model labels the record correctly (the gap attack); "
                  "it needs the predicted label only.",
}

THREAT_WORDS = {
    "shadow": "shadow",
    "supervised": "supervised inference (paper 004 §4.3)",
}

#: Which attacks the ROC chart prefers after the strongest (five line styles).
CHART_ORDER = ("btta", "rmia_offline", "lira_online", "shokri", "metric_confidence",
               "ml_leaks", "lira_offline", "metric_modified_entropy", "cbtta", "label_only")
MAX_CHART_ATTACKS = 5
MAX_GAP_CLASSES = 8
MIN_CLASS_RECORDS = 5
MAX_LISTED_RECORDS = 200
BOUND_LABEL = "Best attack knowing only the train/test accuracy (paper 001 Thm 2)"


# --------------------------------------------------------------------------- small helpers

def _loss_only(result: dict) -> bool:
    """The predictions file held one loss per record (no accuracies, no Thm 2 bound)."""
    cfg = result.get("config") or {}
    return cfg.get("source") == "predictions" and cfg.get("prediction_kind") == "loss"


_ok, _ok_pair = finite, finite_pair


def _theory(result: dict) -> dict:
    th = result.get("theory")
    return th if isinstance(th, dict) else {}


def _block(result: dict, key: str) -> dict:
    v = _theory(result).get(key)
    return v if isinstance(v, dict) else {}


def _bound(result: dict) -> BttaBound | None:
    """``theory.btta_bound`` as its typed block (paper 001 Thm 2), or None when the result
    has none or it is damaged (its parts are then left out)."""
    return theory_block(_theory(result), "btta_bound", BttaBound)


def _gap_block(result: dict) -> GeneralizationGap | None:
    """``theory.generalization_gap`` as its typed block, or None (as :func:`_bound`)."""
    return theory_block(_theory(result), "generalization_gap", GeneralizationGap)


def _attacks(result: dict) -> list[dict]:
    return [a for a in result.get("attacks") or [] if isinstance(a, dict)]


def _label(a: dict) -> str:
    return markup(short_attack_label(a))


_policy_fpr = policy_fpr


def _tpr_row(a: dict, t: float) -> dict | None:
    return tpr_at(a, t)


def strongest_attack(result: dict) -> dict | None:
    """The attack the result's one headline names (``verdict.headline``, engine.headline:
    the verdict, the summary and the cover quote it), rebuilt from the attacks and the policy
    for a result saved without one (or naming an attack it does not hold); None when no
    attack was run."""
    attacks = _attacks(result)
    for stored in (True, False):
        head = headline_of_result(result, stored=stored)
        found = next((a for a in attacks if head is not None and a.get("name") == head.name),
                     None)
        if found is not None:
            return found
    return None


def bound_curve(result: dict) -> tuple[list, list]:
    """The Thm 2 ROC polyline (0, 0) – (p1, p0) – (1, 1) of ``theory.btta_bound.roc.curve``
    as (FPRs, TPRs); two empty lists when the result has none."""
    bound = _bound(result)
    return bound.curve if bound is not None else ([], [])


def bound_tpr(result: dict, fpr: float) -> float | None:
    """TPR of the Thm 2 ROC at ``fpr``: the most members any attack that knows only the two
    accuracies (and randomises between its rules) can find at that false-positive rate."""
    xs, ys = bound_curve(result)
    if len(xs) < 2 or not all(_ok(v) for v in [*xs, *ys]):
        return None
    return float(np.interp(fpr, xs, ys))


def bound_auc(result: dict) -> float | None:
    """Area under the Thm 2 ROC polyline: ½(1 + |p0 − p1|) for the three-point curve."""
    xs, ys = bound_curve(result)
    if len(xs) < 2 or not all(_ok(v) for v in [*xs, *ys]):
        return None
    return float(np.trapezoid(ys, xs)) if hasattr(np, "trapezoid") else float(np.trapz(ys, xs))


def _points(x) -> str:
    """A difference of two rates in percentage points, signed."""
    return f"{100 * x:+.1f} points" if _ok(x) else st.DASH


def _int_text(x) -> str:
    """A row number or rank as plain digits (an identifier: no thousands separator)."""
    return str(int(x)) if _ok(x) else st.DASH


def _pp(x) -> str:
    """A (non-negative) difference of two rates in percentage points."""
    return f"{100 * x:.1f} percentage points" if _ok(x) else st.DASH


def _short_tpr_cell(a: dict, t: float) -> str:
    """TPR at ``t`` with its interval below; a bare "not measurable" (the table's note says
    how many non-members it needs)."""
    row = _tpr_row(a, t)
    if row is not None and row.get("measurable") is False:
        return "not measurable"
    return tpr_cell(a, t, "non-members")


def _describe(name: str, a: dict) -> str:
    if name in ATTACK_WORDS:
        return ATTACK_WORDS[name]
    if name.startswith("metric_"):
        metric = (a.get("details") or {}).get("metric") or name[len("metric_"):]
        return ATTACK_WORDS["metric"].format(
            metric=markup(METRIC_WORDS.get(str(metric), str(metric).replace("_", " "))))
    for prefix in ("cbtta", "lira_online", "lira_offline", "rmia"):
        if name.startswith(prefix):
            return ATTACK_WORDS[prefix]
    return ""


def _chart_attacks(result: dict) -> tuple[list[dict], list[dict]]:
    """At most five attacks for one chart: the strongest, then in CHART_ORDER."""
    attacks = _attacks(result)
    best = strongest_attack(result)

    def rank(i: int) -> tuple:
        a = attacks[i]
        if a is best:
            return (-1, i)
        name = str(a.get("name") or "")
        for j, n in enumerate(CHART_ORDER):
            if name == n or name.startswith(n + "_"):
                return (j, i)
        return (len(CHART_ORDER), i)

    order = sorted(range(len(attacks)), key=rank)
    kept = sorted(order[:MAX_CHART_ATTACKS])
    return ([attacks[i] for i in kept],
            [attacks[i] for i in range(len(attacks)) if i not in kept])


def _data_words(result: dict) -> str:
    cfg = result.get("config") or {}
    model = _block(result, "model")
    if cfg.get("source") == "predictions":
        return f"the predictions file {markup(cfg.get('predictions') or st.DASH)}"
    if cfg.get("data"):
        return f"the records of {markup(cfg.get('data'))}"
    synth = str(cfg.get("synthetic") or "")
    n = (model.get("population_records") or 0) + (model.get("train_records") or 0) \
        + (model.get("test_records") or 0)
    return (markup(SYNTHETIC_WORDS.get(synth, synth or "a synthetic dataset"))
            + (f", {fmt_count(n)} records generated from the seed" if n else ""))


def model_words(result: dict) -> str:
    """One plain sentence (markup): which model, trained on what, how accurate."""
    model = _block(result, "model")
    family = str(model.get("family") or (result.get("config") or {}).get("family") or "")
    fam = markup(FAMILY_WORDS.get(family, family or "model"))
    p0, p1 = model.get("train_accuracy"), model.get("test_accuracy")
    if family == "external":
        what = (f"<b>What was audited:</b> a {fam}: {_data_words(result)}, with "
                f"{fmt_count(model.get('train_records'))} training members and "
                f"{fmt_count(model.get('test_records'))} non-members")
    else:
        what = (f"<b>What was audited:</b> a {fam} trained on "
                f"{fmt_count(model.get('train_records'))} records of {_data_words(result)}, "
                f"measured against {fmt_count(model.get('test_records'))} records it never saw")
    text = what + "."
    if _ok(p0) and _ok(p1):
        text += (f" It labels <b>{fmt_pct(p0)}</b> of its training records correctly and "
                 f"<b>{fmt_pct(p1)}</b> of the others: a generalization gap of "
                 f"{100 * (p0 - p1):.1f} percentage points.")
    return text


# --------------------------------------------------------------------------- the hooks

class ModelSections(AuditSections):
    """Sections 2, 3, 4, 5, 6, 8 and 9 for ``audit_type == "model"``."""

    # ----------------------------------------------------------------- 2. what was audited
    def audited(self, result: dict) -> list[Flowable]:
        cfg = result.get("config") or {}
        model = _block(result, "model")
        gap = _gap_block(result) or GeneralizationGap()
        empty = ("No input file: the records are generated from the seed."
                 if cfg.get("source", "train") == "train" and not cfg.get("data")
                 else "No input files were recorded.")
        out: list[Flowable] = [para(model_words(result))]
        out += inputs_table(result, empty)
        out.append(Spacer(1, 4))
        out.append(key_value_table([
            ("Configuration SHA-256", f'<font face="{st.FONT_MONO}" size="7.5">'
             f'{markup(result.get("config_sha256") or st.DASH)}</font>')]))
        out.append(Spacer(1, 8))
        external = model.get("family") == "external"
        rows = [("Parameter", "Value", "Meaning"),
                ("Model", markup(FAMILY_WORDS.get(str(model.get("family")),
                                                  model.get("family") or st.DASH)),
                 markup(model.get("description") or st.DASH)),
                ("Data", _data_words(result), "where the records come from")]
        if _ok(model.get("classes")) or _ok(model.get("features")):
            rows.append(("Classes, features",
                         f"{fmt_count(model.get('classes'))}, "
                         f"{markup(model_features_text(model) or st.DASH)}",
                         "labels the model predicts; the table's feature columns (the model's "
                         "inputs: one per category, plus a flag for each filled gap)"))
        if not external:
            rows.append(("Attacker's population", fmt_count(model.get("population_records")),
                         "records from the same source that the audited model never saw "
                         f"(the attacker's share, {fmt_num(cfg.get('attacker_fraction'))} of "
                         "the data); the shadow models train on halves of them"))
        rows += [
            ("Members", fmt_count(model.get("train_records")),
             "audited records the model was trained on"
             + ("" if external else (f" (the training share, "
                                     f"{fmt_num(cfg.get('train_fraction'))} of the rest, or "
                                     "the members column)"))),
            ("Non-members", fmt_count(model.get("test_records")),
             "audited records it was not trained on; members and non-members together are "
             "the audit universe"),
        ]
        if _ok(model.get("train_accuracy")):
            rows += [
                ("Training accuracy (p0)", two_lines(fmt_pct(model.get("train_accuracy")),
                                                fmt_ci(gap.train_accuracy_ci, fmt_pct)),
                 "share of members the model labels correctly (95% interval below)"),
                ("Test accuracy (p1)", two_lines(fmt_pct(model.get("test_accuracy")),
                                               fmt_ci(gap.test_accuracy_ci, fmt_pct)),
                 "share of non-members it labels correctly")]
        else:
            rows.append(("Mean loss", f"{fmt3(model.get('mean_loss_members'))} / "
                         f"{fmt3(model.get('mean_loss_non_members'))}",
                         "members / non-members: the file holds one loss per record, so the "
                         "predicted class and the accuracies are unknown"))
        if not external:
            rows += [
                ("Shadow models", fmt_count(model.get("shadow_models", cfg.get("shadow_models"))),
                 "trained like the audited model on halves of the attacker's population "
                 "(BTTA, CBTTA, metric attacks, ML-Leaks, Shokri)"),
                ("Reference models",
                 fmt_count(model.get("reference_models", cfg.get("reference_models"))),
                 "trained like it on random halves of the audit universe (LiRA, RMIA)"),
                ("Training", f"{markup(model.get('training_device') or model.get('device') or '—')}"
                 + (f", {fmt_num(model.get('training_runtime_s'))} s"
                    if _ok(model.get("training_runtime_s")) else ""),
                 "device and time of the audited model's training"),
            ]
        rows.append(("Seed", markup(result.get("seed", cfg.get("seed", st.DASH))),
                     "drives every random number of the audit (split, training, attacks)"))
        out.append(table(rows, [3.6 * cm, 4.6 * cm, TEXT_WIDTH - 8.2 * cm]))
        return out

    # ----------------------------------------------------------------- 3. threat model
    def threat_model(self, result: dict) -> list[Flowable]:
        threat = str(_theory(result).get("threat_model") or "shadow")
        model = _block(result, "model")
        refs = model.get("reference_models")
        sees = ("its loss on the record (the file holds nothing else)" if _loss_only(result)
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
        bound = _bound(result)
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
    def describe_attack(self, attack: dict) -> str:
        return _describe(str(attack.get("name") or ""), attack)

    def method_theory(self, result: dict) -> list[Flowable]:
        bb = _bound(result)
        if _loss_only(result):
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

    def method_common(self, result: dict) -> list[Flowable]:
        """Section 4's attack list and how the attacks are measured, on real records."""
        attacks = _attacks(result)
        out: list[Flowable] = [sub("Attacks")]
        if not attacks:
            out.append(para("No attack was run."))
        for a in attacks:
            details = a.get("details") or {}
            line = f"<b>{markup(a.get('label') or a.get('name'))}</b>."
            words = self.describe_attack(a)
            if words:
                line += f" {words}"
            if details.get("paper"):
                line += f" <i>Source: {markup(details['paper'])}.</i>"
            out += bullets([line])
        out.append(sub("How the attacks are measured"))
        conf = st.fmt_conf((result.get("config") or {}).get("confidence"))
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
    def results(self, result: dict) -> list[Flowable]:
        attacks = _attacks(result)
        # The heading's own parts, not sections.heading() (a KeepTogether): nested
        # KeepTogethers force page breaks (sections.keep).
        first: list[Flowable] = [CondPageBreak(6 * cm), Heading(5, SECTION_TITLES[4])]
        if not attacks:
            return [KeepTogether(first + [para("No attack results are recorded in this "
                                               "result file.")]),
                    *self._gap(result)]
        first.append(para(self._results_words(result)))
        table_part = self._attack_table(result, attacks)
        out: list[Flowable] = [keep(first + table_part[:1]), *table_part[1:]]
        out += first_time_paragraphs(attacks)      # issue 20: a plain sentence per oddity
        out += self._roc(result)
        out += self._strongest(result)
        out += self._gap(result)
        out += self._per_class(result)
        out += self._attribute(result)
        out += defences_section(result)
        return out

    def _results_words(self, result: dict) -> str:
        best = strongest_attack(result)
        bb = _bound(result) or BttaBound()
        fpr = _policy_fpr(result)
        text = ""
        if best is not None:
            row = _tpr_row(best, fpr)
            text += (f"The strongest attack, <b>{_label(best)}</b>, tells members from "
                     f"non-members with AUC <b>{fmt3(best.get('auc'))}</b> and balanced "
                     f"accuracy {fmt_pct(best.get('accuracy'))}")
            if row is not None and row.get("measurable") is not False:
                text += (f"; it finds <b>{fmt_pct(row.get('tpr'))}</b> of the members while "
                         f"wrongly accusing {fmt_pct(fpr)} of the non-members")
            text += ". "
        if _ok(bb.balanced_accuracy_bound):
            text += ("Knowing only the train and test accuracy, no attack's balanced accuracy "
                     f"exceeds {fmt_pct(bb.balanced_accuracy_bound)} (paper 001 Thm 2)"
                     + (f", and at {fmt_pct(fpr)} FPR none finds more than "
                        f"{fmt_pct(bound_tpr(result, fpr))} of the members."
                        if bound_tpr(result, fpr) is not None else "."))
        return text or "The attacks' numbers follow."

    def _attack_table(self, result: dict, attacks: list[dict]) -> list[Flowable]:
        targets = fpr_targets(attacks)
        rows = [["Attack", "AUC (0.5 = guessing)", "Balanced accuracy"]
                + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
        for a in attacks:
            rows.append([_label(a), two_lines(fmt3(a.get("auc")), fmt_ci(a.get("auc_ci"))),
                         two_lines(fmt_pct(a.get("accuracy")),
                                   fmt_ci(a.get("accuracy_ci"), fmt_pct))]
                        + [_short_tpr_cell(a, t) for t in targets])
        bb = _bound(result)
        if bb is not None:
            rows.append(["<i>Thm 2 bound: knowing only the accuracies</i>",
                         fmt3(bound_auc(result)), fmt_pct(bb.balanced_accuracy_bound)]
                        + [fmt_pct(bound_tpr(result, t)) for t in targets])
        first = 4.4 * cm
        rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
        a0 = attacks[0]
        n_pos, n_neg = a0.get("n_positive"), a0.get("n_negative")
        counts = (f" Measured on {fmt_count(n_pos)} members and {fmt_count(n_neg)} "
                  "non-members." if _ok(n_pos) and _ok(n_neg) else "")
        unmeasurable = [t for t in targets if any((_tpr_row(a, t) or {}).get("measurable")
                                                  is False for a in attacks)]
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

    def _roc(self, result: dict) -> list[Flowable]:
        shown, left = _chart_attacks(result)
        if not shown:
            return []
        names = [a.get("name") for a in shown]     # the bound and band: from the result
        curve = bound_curve(result)[0]
        caption = (("Red dashed line: the best ROC of an attack that knows only the train "
                    "and test accuracy, (0, 0) – (p1, p0) – (1, 1) (paper 001 Thm 2); a curve "
                    "above it uses more than the generalization gap. " if curve else "")
                   + "Shaded band: pointwise 95% "
                   "intervals of the strongest attack's true ROC. Values of 0 cannot be drawn on log "
                   "axes: curves enter from the chart's edge.")
        if left:
            caption += (" Not drawn (five line styles only; their numbers are in the table "
                        "above): " + ", ".join(_label(a) for a in left) + ".")
        titles = dict(x_title="False-positive rate (non-members wrongly accused)",
                      y_title="True-positive rate (members found)")
        return [keep([
            sub("ROC curves"),
            para("Each curve shows, for every threshold on the scores, the share of members "
                 "found (TPR) against the share of non-members wrongly accused (FPR). The "
                 "log-log view magnifies the low-FPR corner, where an attacker is confident "
                 "about a few people — the case that harms them.", "small"),
            roc_chart(result, log_scale=False, title="ROC, linear axes", only=names,
                      **titles),
            Spacer(1, 4),
            roc_chart(result, log_scale=True,
                      title="ROC, log-log axes (low false-alarm region)", only=names,
                      **titles),
            para(caption, "caption")])]

    def _strongest(self, result: dict) -> list[Flowable]:
        best = strongest_attack(result)
        bb = _bound(result)
        if best is None or bb is None:
            return []
        rows = [("Measure", f"{_label(best)} (measured)", "Thm 2 bound", "Difference")]
        acc, lim = best.get("accuracy"), bb.balanced_accuracy_bound
        rows.append(("Balanced accuracy",
                     two_lines(fmt_pct(acc), fmt_ci(best.get("accuracy_ci"), fmt_pct)),
                     fmt_pct(lim),
                     _points(acc - lim) if _ok(acc) and _ok(lim) else st.DASH))
        auc, lim_auc = best.get("auc"), bound_auc(result)
        rows.append(("AUC", two_lines(fmt3(auc), fmt_ci(best.get("auc_ci"))), fmt3(lim_auc),
                     f"{auc - lim_auc:+.3f}" if _ok(auc) and _ok(lim_auc) else st.DASH))
        for t in fpr_targets([best]):
            row = _tpr_row(best, t) or {}
            b = bound_tpr(result, t)
            if row.get("measurable") is False:
                diff = "not measurable"
            elif _ok(row.get("tpr")) and _ok(b) and b > 0:
                diff = f"{_points(row['tpr'] - b)} ({row['tpr'] / b:.3g}× the bound)"
            else:
                diff = _points(row.get("tpr") - b) if _ok(row.get("tpr")) and _ok(b) \
                    else st.DASH
            rows.append((f"TPR at {fmt_pct(t)} FPR", tpr_cell(best, t, "non-members"),
                         fmt_pct(b), diff))
        ci = best.get("accuracy_ci")
        lo = ci[0] if isinstance(ci, (list, tuple)) and len(ci) == 2 and _ok(ci[0]) else acc
        if _ok(lo) and _ok(lim) and lo > lim + 1e-12:
            words = (f"<b>{_label(best)} beats the bound by {_pp(acc - lim)}</b> of "
                     "balanced accuracy, even at the lower end of its interval: the model "
                     "reveals membership through its confidence, not only through its "
                     "mistakes. Lowering the gap (regularisation, more data, early stopping) "
                     "would not be enough on its own.")
        elif _ok(acc) and _ok(lim):
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

    def _gap(self, result: dict) -> list[Flowable]:
        gap = _gap_block(result)
        if gap is None:
            return []
        words = (f"The model labels {fmt_pct(gap.train_accuracy)} "
                 f"{fmt_ci(gap.train_accuracy_ci, fmt_pct)} of its "
                 f"{fmt_count(gap.n_members)} members correctly and "
                 f"{fmt_pct(gap.test_accuracy)} "
                 f"{fmt_ci(gap.test_accuracy_ci, fmt_pct)} of its "
                 f"{fmt_count(gap.n_non_members)} non-members: a gap of "
                 f"<b>{_pp(gap.gap)}</b>"
                 + (f" {fmt_ci([100 * v for v in gap.gap_ci], lambda v: f'{v:.1f}')}"
                    if _ok_pair(gap.gap_ci) else "") + ". "
                 "Membership attacks feed on this gap; a class with a larger gap exposes its "
                 "members more.")
        per = [c for c in gap.per_class if _ok(c.get("gap"))]
        out: list[Flowable] = [sub("Generalization gap"), para(words)]
        if per:
            big = [c for c in per if (c.get("n_members") or 0) >= MIN_CLASS_RECORDS
                   and (c.get("n_non_members") or 0) >= MIN_CLASS_RECORDS] or per
            big = sorted(big, key=lambda c: -c["gap"])[:MAX_GAP_CLASSES]
            rows = [("Class", "Members", "Non-members", "Train accuracy", "Test accuracy",
                     "Gap")]
            for c in big:
                rows.append((markup(c.get("class")), fmt_count(c.get("n_members")),
                             fmt_count(c.get("n_non_members")),
                             two_lines(fmt_pct(c.get("train_accuracy")),
                                        fmt_ci(c.get("train_accuracy_ci"), fmt_pct)),
                             two_lines(fmt_pct(c.get("test_accuracy")),
                                        fmt_ci(c.get("test_accuracy_ci"), fmt_pct)),
                             two_lines(_points(c.get("gap")),
                                       fmt_ci([100 * v for v in c["gap_ci"]],
                                              lambda v: f"{v:.1f}")
                                       if _ok_pair(c.get("gap_ci")) else "")))
            skipped = len(per) - len([c for c in per if (c.get("n_members") or 0)
                                      >= MIN_CLASS_RECORDS and (c.get("n_non_members") or 0)
                                      >= MIN_CLASS_RECORDS])
            note = (f"The {len(big)} classes with the largest gaps, of {fmt_count(len(per))}"
                    + (f" (classes with fewer than {MIN_CLASS_RECORDS} members or non-members "
                       f"are left out: {fmt_count(skipped)})" if 0 < skipped < len(per) else "")
                    + ". With few records per class the intervals are wide: a large gap in a "
                    "small class is a reason to look, not a measurement.")
            out += [para(note, "small"),
                    table(rows, [1.4 * cm, 1.9 * cm, 2.9 * cm, 3.2 * cm, 3.2 * cm,
                                 TEXT_WIDTH - 12.6 * cm])]
        return [keep(out), Spacer(1, 6)]

    def _per_class(self, result: dict) -> list[Flowable]:
        """The strongest attack class by class (issue 8: per-class breakdown)."""
        best = strongest_attack(result)
        rows_in = [c for c in (best or {}).get("per_class") or []
                   if isinstance(c, dict) and _ok(c.get("auc"))]
        if not rows_in:
            return []
        aucs = np.array([c["auc"] for c in rows_in])
        above = sum(1 for c in rows_in if _ok_pair(c.get("auc_ci")) and c["auc_ci"][0] > 0.5)
        big = [c for c in rows_in if c.get("n_members", 0) >= MIN_CLASS_RECORDS
               and c.get("n_non_members", 0) >= MIN_CLASS_RECORDS] or rows_in
        top = sorted(big, key=lambda c: -c["auc"])[:MAX_GAP_CLASSES]
        rows = [("Class", "Members", "Non-members", "AUC", "Members spotted",
                 "Others accused")]
        for c in top:
            rows.append((markup(c.get("class")), fmt_count(c.get("n_members")),
                         fmt_count(c.get("n_non_members")),
                         two_lines(fmt3(c.get("auc")), fmt_ci(c.get("auc_ci"))),
                         fmt_pct(c.get("tpr")), fmt_pct(c.get("fpr"))))
        words = (f"{_label(best)} within each class (members against non-members of the same "
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

    def _attribute(self, result: dict) -> list[Flowable]:
        """Attribute inference beside its data-only baseline (issue 8)."""
        a = _block(result, "attribute_inference")
        if not a:
            return []

        rows = [("Records", "Predictor", "Right (top-1)", "AUC (one value vs rest)",
                 f"{SCALED_SCORE} (0 = obvious guess, 1 = sure)")]
        for group, words in (("members", "Training members"), ("non_members", "Non-members")):
            block = a.get(group) if isinstance(a.get(group), dict) else {}
            rp = block.get("real_people") if isinstance(block.get("real_people"), dict) else {}
            for which, who in (("model", "model's outputs + other features"),
                               ("baseline", "other features only (no model)")):
                m = block.get(which) or {}
                scaled = st.DASH
                if which == "model" and _ok(rp.get("scaled_score")):
                    scaled = two_lines(f"{rp['scaled_score']:.2f}",
                                       fmt_ci(rp.get("scaled_score_ci"), lambda v: f"{v:.2f}"))
                rows.append((words, who, two_lines(fmt_pct(m.get("accuracy")),
                                                   fmt_ci(m.get("accuracy_ci"), fmt_pct)),
                             two_lines(fmt3(m.get("auc")), fmt_ci(m.get("auc_ci"))), scaled))
            og = rp.get("obvious_guess")
            if isinstance(og, dict):    # where the scaled score starts (issue 32 item 1)
                rows.append((words, f"{OBVIOUS_GUESS.lower()}: "
                             f"'{markup(str(og.get('value')))}' for everyone",
                             fmt_pct(og.get("accuracy")), st.DASH, "0"))
        try:
            words = markup(attribute_sentence(a))
        except (KeyError, TypeError):
            words = "The attribute game's numbers are incomplete in this result file."
        return [keep([
            sub(f"Attribute inference: {markup(a.get('feature'))}"),
            para(words),
            table(rows, [3.0 * cm, 4.6 * cm, 2.8 * cm, 2.8 * cm, TEXT_WIDTH - 13.2 * cm]),
            Spacer(1, 3),
            para(f"The attacker trains a {markup(a.get('classifier'))} predictor on its own "
                 f"{fmt_count(a.get('attacker_records'))} records, whose value it knows, and "
                 "applies it to the audited records; the baseline is the same predictor "
                 "without the model's outputs (the data-only guess). Intervals: "
                 "Clopper–Pearson for the share right, clustered by record for the AUC. The "
                 f"{OBVIOUS_GUESS.lower()} answers the most common value among the records "
                 f"for everyone; the {SCALED_SCORE.lower()} (right − obvious guess) / "
                 "(1 − obvious guess) puts the predictor between it (0) and a sure answer "
                 "(1), with an exact interval and a one-sided exact sign test against the "
                 "obvious guess on the same records (docs/methods/model_audit.md).",
                 "small")]), Spacer(1, 6)]

    # ----------------------------------------------------------------- 6. comparison
    def theory(self, result: dict) -> list[Flowable]:
        attacks = _attacks(result)
        bb = _bound(result) or BttaBound()
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
            acc, ci = a.get("accuracy"), a.get("accuracy_ci")
            lo = ci[0] if isinstance(ci, (list, tuple)) and len(ci) == 2 and _ok(ci[0]) else acc
            hi = ci[1] if isinstance(ci, (list, tuple)) and len(ci) == 2 and _ok(ci[1]) else acc
            if not (_ok(acc) and _ok(lim)):
                reading = st.DASH
            elif lo > lim + 1e-12:
                reading = f"<b>above</b> ({_points(acc - lim)})"
            elif hi < lim - 1e-12:
                reading = f"below ({_points(acc - lim)})"
            else:
                reading = f"consistent ({_points(acc - lim)})"
            eb = a.get("epsilon_lower_bound") or {}
            rows.append((_label(a), two_lines(fmt_pct(acc), fmt_ci(ci, fmt_pct)), reading,
                         fmt_eps(eb.get("value"))))
        cfg = result.get("config") or {}
        caveat = ("" if cfg.get("source", "train") == "train" and not cfg.get("member_column")
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
    def limitations(self, result: dict) -> list[str]:
        cfg = result.get("config") or {}
        model = _block(result, "model")
        attacks = _attacks(result)
        out = []
        rates: set[float] = set()
        counts: set[int] = set()
        for a in attacks:
            for row in a.get("tpr_at_fpr") or []:
                if row.get("measurable") is False and _ok(row.get("fpr_target")):
                    rates.add(float(row["fpr_target"]))
                    if _ok(a.get("n_negative")):
                        counts.add(int(a["n_negative"]))
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
        if str(_theory(result).get("threat_model")) == "supervised":
            out.append("Without shadow predictions the attacker learns from half of the "
                       "audited records (knowing their membership) and is measured on the "
                       "other half: a strong, insider-like attacker, and half as many records "
                       "to measure on.")
        else:
            out.append("The shadow-model attacks assume the attacker has data from the same "
                       "population and knows how the model was trained; with less it is "
                       "weaker, with some training records it is stronger.")
        refs = model.get("reference_models")
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
        if cfg.get("source", "train") == "train" and not cfg.get("data"):
            out.append("The records are synthetic: the numbers say what this recipe does on "
                       "such data, not on a particular real population.")
        block = defences_block(result)
        if block:
            out.append(defences_limitation(block))
        return out

    # ----------------------------------------------------------------- 9. exposed records
    def exposed(self, result: dict, include_records: bool) -> list[Flowable]:
        return exposed_members(result, include_records)


def exposed_members(result: dict, include_records: bool = False) -> list[Flowable]:
    """Section 9: the members the strongest attack is surest about, by row number; their
    labels only when the report includes records (and the audit kept them)."""
    records = [r for r in result.get("exposed_records") or [] if isinstance(r, dict)]
    if not records:
        return [para("No members are listed: the audit ran no attack, or exposed_count = 0.")]
    attacks = {a.get("name"): a for a in _attacks(result)}
    names = sorted({str(r.get("attack")) for r in records if r.get("attack")})
    by = ", ".join(_label(attacks[n]) if n in attacks else markup(n) for n in names) \
        or "the strongest attack"
    labelled = any("label" in r for r in records)
    show_labels = include_records and labelled
    out: list[Flowable] = [para(
        f"<b>The {fmt_count(len(records))} members the strongest attack ({by}) is surest "
        "about</b>, most exposed first. Each is a person whose presence in the training data "
        "the attack singles out with its highest scores, ahead of every other member: the "
        "first to be harmed if the model is published. Row numbers are those of the audited "
        "data (the input CSV's rows, header = row 1; for a synthetic sample, the record's "
        "number in the generated data). Only audited members are ranked; the score's scale "
        "is the attack's own, and members with equal scores are listed in row order.")]
    if not include_records:
        out.append(para(
            "Only row numbers are printed. " + (
                "The records' labels are withheld, as this report may travel further than the "
                "data; generate the report with records included to print them."
                if labelled else
                "The audit kept no labels (list_exposed_records = false)."), "small"))
    elif not labelled:
        out.append(para("The result holds no labels (the audit ran with list_exposed_records "
                        "= false), so even a report with records included lists row numbers "
                        "only.", "small"))
    else:
        out.append(para("This report includes records: each member's label (class) is "
                        "printed. Treat this page as personal data.", "small"))
    head = ["Rank", "Row", "Attack score"] + (["Label (class)"] if show_labels else [])
    rows = [head]
    for i, r in enumerate(records[:MAX_LISTED_RECORDS], 1):
        row = [_int_text(r.get("rank", i)), _int_text(r.get("row")),
               st.fmt_num(r.get("score")) if _ok(r.get("score")) else st.DASH]
        if show_labels:
            row.append(markup(r.get("label") if r.get("label") is not None else st.DASH))
        rows.append(row)
    widths = [1.2 * cm, 1.8 * cm, 2.2 * cm] + ([3.0 * cm] if show_labels else [])
    if len(rows) > 11:     # two blocks side by side halve the length
        half = len(rows) // 2
        left, right = rows[1:1 + half], rows[1 + half:]
        right += [[""] * len(head)] * (len(left) - len(right))
        rows = [head + head] + [a + b for a, b in zip(left, right, strict=True)]
        widths = widths + widths
    out.append(table(rows, widths))
    if len(records) > MAX_LISTED_RECORDS:
        out.append(para(f"… and {fmt_count(len(records) - MAX_LISTED_RECORDS)} more (see "
                        "result.json).", "small"))
    return out


__all__ = ["ModelSections", "bound_auc", "bound_tpr", "exposed_members", "model_words",
           "strongest_attack"]
