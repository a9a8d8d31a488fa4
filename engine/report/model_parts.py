"""What the model audit's report sections share (engine/report/model.py,
engine/report/model_results.py): the plain words for models, data and attacks, the strongest
attack, paper 001's Thm 2 curve, and section 9's exposed members.

Every function takes a model result (its dict, or a LoadedResult) and reads it typed: the
theory block through engine.results.model (issue 33 item 1), the attacks as
engine.results.blocks.AttackEntry.
"""

from __future__ import annotations

import numpy as np
from reportlab.lib.units import cm
from reportlab.platypus import Flowable

from engine.headline import headline_of_result, same_rate
from engine.numbers import is_finite
from engine.report import styles as st
from engine.report.sections import markup, para, short_attack_label, table
from engine.report.styles import fmt_count, fmt_pct
from engine.results.blocks import AttackEntry
from engine.results.loaded import LoadedResult, load_result
from engine.results.model import ModelTheory, attack_details, load_theory

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

_ok = is_finite


# --------------------------------------------------------------------------- reading

def typed(result) -> tuple[LoadedResult, ModelTheory]:
    """``result`` loaded once (engine.results.loaded) and its model theory block (typed even
    for a result that does not say it is a model audit, as some tests' results do not)."""
    r = load_result(result)
    theory = r.theory
    if not isinstance(theory, ModelTheory):
        raw_theory = r.raw["theory"] if "theory" in r.raw else {}
        theory = load_theory(raw_theory, r.raw)
    return r, theory


def as_dict(result) -> dict:
    """The result as a plain dict, for the shared helpers that still read one
    (engine.headline.headline_of_result, the charts, the inputs table)."""
    return result if isinstance(result, dict) else dict(load_result(result).raw)


def label(a: AttackEntry) -> str:
    """An attack's plain name for the report's body (engine.report.sections)."""
    return markup(short_attack_label({"name": a.name, "label": a.label}))


def fpr_targets(attacks) -> list[float]:
    """The FPR targets the attacks report, largest first (the columns of an attack table;
    engine.report.sections.fpr_targets read from the typed rows)."""
    vals: list[float] = []
    for a in attacks:
        for row in a.tpr_at_fpr:
            t = row.fpr
            if row.key == "fpr_target" and _ok(t) and not any(same_rate(t, v) for v in vals):
                vals.append(float(t))
    return sorted(vals, reverse=True)


def points(x) -> str:
    """A difference of two rates in percentage points, signed."""
    return f"{100 * x:+.1f} points" if _ok(x) else st.DASH


def int_text(x) -> str:
    """A row number or rank as plain digits (an identifier: no thousands separator)."""
    return str(int(x)) if _ok(x) else st.DASH


def pp(x) -> str:
    """A (non-negative) difference of two rates in percentage points."""
    return f"{100 * x:.1f} percentage points" if _ok(x) else st.DASH


# --------------------------------------------------------------------------- the strongest

def strongest_attack(result) -> AttackEntry | None:
    """The attack the result's one headline names (``verdict.headline``, engine.headline:
    the verdict, the summary and the cover quote it), rebuilt from the attacks and the policy
    for a result saved without one (or naming an attack it does not hold); None when no
    attack was run."""
    r = load_result(result)
    for stored in (True, False):
        head = headline_of_result(as_dict(result), stored=stored)
        found = next((a for a in r.attacks if head is not None and a.name == head.name), None)
        if found is not None:
            return found
    return None


def bound_curve(result) -> tuple[list, list]:
    """The Thm 2 ROC polyline (0, 0) – (p1, p0) – (1, 1) of ``theory.btta_bound.roc.curve``
    as (FPRs, TPRs); two empty lists when the result has none."""
    bound = typed(result)[1].btta_bound
    return bound.curve if bound is not None else ([], [])


def bound_tpr(result, fpr: float) -> float | None:
    """TPR of the Thm 2 ROC at ``fpr``: the most members any attack that knows only the two
    accuracies (and randomises between its rules) can find at that false-positive rate."""
    xs, ys = bound_curve(result)
    if len(xs) < 2 or not all(_ok(v) for v in [*xs, *ys]):
        return None
    return float(np.interp(fpr, xs, ys))


def bound_auc(result) -> float | None:
    """Area under the Thm 2 ROC polyline: ½(1 + |p0 − p1|) for the three-point curve."""
    xs, ys = bound_curve(result)
    if len(xs) < 2 or not all(_ok(v) for v in [*xs, *ys]):
        return None
    return float(np.trapezoid(ys, xs)) if hasattr(np, "trapezoid") else float(np.trapz(ys, xs))


def describe(a: AttackEntry) -> str:
    """How attack ``a`` decides, in plain words (section 4)."""
    name = a.name
    if name in ATTACK_WORDS:
        return ATTACK_WORDS[name]
    if name.startswith("metric_"):
        metric = attack_details(a).metric or name[len("metric_"):]
        return ATTACK_WORDS["metric"].format(
            metric=markup(METRIC_WORDS.get(str(metric), str(metric).replace("_", " "))))
    for prefix in ("cbtta", "lira_online", "lira_offline", "rmia"):
        if name.startswith(prefix):
            return ATTACK_WORDS[prefix]
    return ""


def chart_attacks(result) -> tuple[list[AttackEntry], list[AttackEntry]]:
    """At most five attacks for one chart: the strongest, then in CHART_ORDER."""
    attacks = list(load_result(result).attacks)
    best = strongest_attack(result)

    def rank(i: int) -> tuple:
        a = attacks[i]
        if a is best:
            return (-1, i)
        for j, n in enumerate(CHART_ORDER):
            if a.name == n or a.name.startswith(n + "_"):
                return (j, i)
        return (len(CHART_ORDER), i)

    order = sorted(range(len(attacks)), key=rank)
    kept = sorted(order[:MAX_CHART_ATTACKS])
    return ([attacks[i] for i in kept],
            [attacks[i] for i in range(len(attacks)) if i not in kept])


# --------------------------------------------------------------------------- words

def data_words(result) -> str:
    """Where the records come from, in words (markup)."""
    theory = typed(result)[1]
    cfg, model = theory.settings, theory.model
    if cfg.source == "predictions":
        return f"the predictions file {markup(cfg.predictions or st.DASH)}"
    if cfg.data:
        return f"the records of {markup(cfg.data)}"
    synth = cfg.synthetic
    n = (model.population_records or 0) + (model.train_records or 0) \
        + (model.test_records or 0)
    return (markup(SYNTHETIC_WORDS.get(synth, synth or "a synthetic dataset"))
            + (f", {fmt_count(n)} records generated from the seed" if n else ""))


def model_words(result) -> str:
    """One plain sentence (markup): which model, trained on what, how accurate."""
    theory = typed(result)[1]
    model = theory.model
    family = str(model.family or theory.settings.family or "")
    fam = markup(FAMILY_WORDS.get(family, family or "model"))
    p0, p1 = model.train_accuracy, model.test_accuracy
    if family == "external":
        what = (f"<b>What was audited:</b> a {fam}: {data_words(result)}, with "
                f"{fmt_count(model.train_records)} training members and "
                f"{fmt_count(model.test_records)} non-members")
    else:
        what = (f"<b>What was audited:</b> a {fam} trained on "
                f"{fmt_count(model.train_records)} records of {data_words(result)}, "
                f"measured against {fmt_count(model.test_records)} records it never saw")
    text = what + "."
    if _ok(p0) and _ok(p1):
        text += (f" It labels <b>{fmt_pct(p0)}</b> of its training records correctly and "
                 f"<b>{fmt_pct(p1)}</b> of the others: a generalization gap of "
                 f"{100 * (p0 - p1):.1f} percentage points.")
    return text


# --------------------------------------------------------------------------- 9. exposed

def exposed_members(result, include_records: bool = False) -> list[Flowable]:
    """Section 9: the members the strongest attack is surest about, by row number; their
    labels only when the report includes records (and the audit kept them)."""
    r, theory = typed(result)
    records = theory.exposed
    if not records:
        return [para("No members are listed: the audit ran no attack, or exposed_count = 0.")]
    attacks = {a.name: a for a in r.attacks}
    names = sorted({str(m.attack) for m in records if m.attack})
    by = ", ".join(label(attacks[n]) if n in attacks else markup(n) for n in names) \
        or "the strongest attack"
    labelled = any(m.has_label for m in records)
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
    for i, m in enumerate(records[:MAX_LISTED_RECORDS], 1):
        row = [int_text(m.rank if m.rank is not None else i), int_text(m.row),
               st.fmt_num(m.score) if _ok(m.score) else st.DASH]
        if show_labels:
            row.append(markup(m.label if m.label is not None else st.DASH))
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


__all__ = ["ATTACK_WORDS", "BOUND_LABEL", "FAMILY_WORDS", "METRIC_WORDS", "SYNTHETIC_WORDS",
           "THREAT_WORDS", "as_dict", "bound_auc", "bound_curve", "bound_tpr", "chart_attacks",
           "data_words", "describe", "exposed_members", "fpr_targets", "label", "model_words",
           "strongest_attack", "typed"]
