"""The model audit's theory and headline words: paper 001 Thm 2's bound from the model's own
accuracies and the generalization gap, the summary's sentences and the warnings. Moved out of
the audit's run (issue 33 item 2).
"""

from __future__ import annotations

from engine.attacks.model import btta
from engine.attacks.model.label_only import generalization_gap
from engine.attacks.real_people import beats_obvious
from engine.games.model import LOSS_ONLY_ATTACKS, NEEDS_REFERENCE, ModelGameSettings, Outputs
from engine.headline import Headline, not_measurable_sentence
from engine.numbers import whole_percent
from engine.wording import plain_name

ATTRIBUTE_MARGIN = 0.02    # accuracy points below which "the model adds" is not worded as such


def model_theory(config: ModelGameSettings, out: Outputs) -> dict:
    """The result's theory block before the defences: the model, the threat model, the bound
    of paper 001 Thm 2 and the generalization gap, and the attribute game."""
    theory = {"model": out.model, "threat_model": out.threat}
    if not out.loss_only:
        # Thm 2 from the model's own train/test accuracy: what knowing only those allows.
        own = btta.params_from_outputs(out.target)
        gap = generalization_gap(out.target, config.confidence)
        for row in gap["per_class"]:
            row["class"] = str(out.class_labels[row["class"]])
        theory["btta_bound"] = {
            "params": own.to_dict(), "expected": btta.expected_metrics(own),
            "accuracy_bound": btta.accuracy_bound(own),
            "balanced_accuracy_bound": btta.balanced_accuracy_bound(own),
            "roc": btta.roc_bound(own),
            "source": "the model's train/test accuracy (paper 001 Thm 2)"}
        theory["generalization_gap"] = gap
    if out.attribute is not None:
        theory["attribute_inference"] = out.attribute
    return theory


def model_summary(config: ModelGameSettings, out: Outputs, attacks: list[dict],
                  head: Headline, strongest: dict | None, theory: dict) -> str:
    """The summary's sentences (before the defences' own)."""
    policy = config.policy
    m = out.model
    if out.loss_only:
        summary = (f"The model's mean loss is {m['mean_loss_members']:.3g} on its training "
                   f"records and {m['mean_loss_non_members']:.3g} on others. ")
    else:
        summary = (f"The model is right on {whole_percent(m['train_accuracy'])} of its "
                   f"training records and {whole_percent(m['test_accuracy'])} of others. ")
    if strongest is not None:
        finds = (f"finds {head.tpr:.1%} of the members while wrongly accusing "
                 f"{policy.fpr:.0%} of the others" if head.tpr is not None else
                 "; " + not_measurable_sentence(head.n_negative, policy.fpr,
                                                "records that were not in the training data"))
        summary += (f"The strongest attack ({head.short_label()}) tells members from "
                    f"non-members with AUC {strongest['auc']:.2f}"
                    + (" and " if head.tpr is not None else "") + finds
                    + ("; after correcting for the number of attacks run, it cannot be told "
                       "from guessing" if not head.distinguishable else ""))
        # "Strongest" is the policy's ranking (its rate at the policy's false-positive rate,
        # then accuracy), not the AUC: when another attack has the higher AUC, say so, or the
        # table beside the summary seems to contradict it (issue 32 item 6).
        top_auc = max((a for a in attacks if isinstance(a.get("auc"), float)),
                      key=lambda a: a["auc"], default=None)
        if top_auc is not None and top_auc is not strongest \
                and round(top_auc["auc"], 2) > round(strongest["auc"], 2):
            summary += (f" (the strongest by your policy's measures; the "
                        f"{plain_name(top_auc).lower()} has the highest AUC, "
                        f"{top_auc['auc']:.2f})")
        if "btta_bound" in theory:
            # Paper 001 Thm 2 bounds an attacker who knows only the two accuracies; read as
            # "no attack exceeds it", it contradicted a stronger measured attack beside it.
            bound = theory["btta_bound"]["balanced_accuracy_bound"]
            summary += (f". An attacker who knew only these two accuracies could be right at "
                        f"most {whole_percent(bound)} of the time")
            if strongest["accuracy"] > bound:
                summary += (f"; this attack, which reads the model's answer for each record, "
                            f"is right {whole_percent(strongest['accuracy'])} of the time")
        summary += "."
    summary += "".join(" " + i["missing_values"]["sentence"] for i in out.inputs
                       if i.get("missing_values"))
    if out.attribute is not None:
        summary += " " + attribute_sentence(out.attribute)
    return summary


def model_warnings(config: ModelGameSettings, out: Outputs, ranked: dict) -> list[str]:
    """The warnings of the run (the inputs' own come after them)."""
    warnings = list(out.warnings)
    if out.references is None and set(config.attacks) & set(NEEDS_REFERENCE) \
            and not out.loss_only:
        warnings.append("LiRA and RMIA need reference models trained like the audited one; "
                        "with predictions from elsewhere they were not run.")
    if out.loss_only:
        skipped = [a for a in config.attacks if a not in LOSS_ONLY_ATTACKS]
        warnings.append("The predictions hold one loss per record: only the confidence attack "
                        "(the true class's probability, exp(−loss)) could run"
                        + (f"; skipped: {', '.join(skipped)}" if skipped else "")
                        + ". Without the predicted class the accuracies, the generalization "
                        "gap and paper 001's bound are unknown.")
    if config.sensitive_feature and out.attribute is None:
        warnings.append("Attribute inference needs the records' features; a predictions file "
                        "holds only the model's outputs, so it was not run.")
    if out.threat == "supervised":
        warnings.append("No shadow predictions were given: the attacker is assumed to know "
                        "half of the members and non-members (paper 004 §4.3) and is measured "
                        "on the other half."
                        + (" The attacks marked 'every record, no threshold' rank all records "
                           "by the model's outputs alone, so their curves and rates use every "
                           "record; their accuracies choose a threshold on half of the records "
                           "and count on the other half." if ranked else ""))
    return warnings


def attribute_sentence(a: dict) -> str:
    """The attribute game in plain words, with its reading (shared by the summary, the page
    and the report): what the model adds for members beyond what it adds for people it never
    saw is what it memorised about them; what it adds for both is population statistics."""
    mem, non = a["members"], a["non_members"]
    gain_mem = mem["model"]["accuracy"] - mem["baseline"]["accuracy"]
    gain_non = non["model"]["accuracy"] - non["baseline"]["accuracy"]
    text = (f"Predicting '{a['feature']}' from the model's outputs is right for "
            f"{mem['model']['accuracy']:.0%} of the training members and "
            f"{non['model']['accuracy']:.0%} of the non-members; from the other features "
            f"alone, {mem['baseline']['accuracy']:.0%} and {non['baseline']['accuracy']:.0%}")
    rp = mem.get("real_people")
    if not rp:      # a result from before issue 32
        text += (f" (always guessing '{a['majority_value']}': {a['majority_share']:.0%}).")
    else:           # issue 32 item 1: judged against the obvious guess, not against 50 %
        og = rp["obvious_guess"]
        text += (f". Answering '{og['value']}' for everyone, the obvious guess, is right for "
                 f"{og['accuracy']:.0%} of the members; scaled between that (0) and a sure "
                 f"answer (1), the members' score is {rp['scaled_score']:.2f} (95% interval "
                 f"{rp['scaled_score_ci'][0]:.2f} to {rp['scaled_score_ci'][1]:.2f})"
                 + (", measurably better than the obvious guess." if beats_obvious(rp)
                    else ", which cannot be told apart from the obvious guess."))
    if gain_mem - gain_non > ATTRIBUTE_MARGIN:
        text += (" The model helps more for its members: it leaks their value beyond what it "
                 "learnt about the population.")
    elif max(gain_mem, gain_non) > ATTRIBUTE_MARGIN:
        text += (" The model helps about as much for people it never saw: it learnt how the "
                 "feature relates to the others in the population — a statistical inference, "
                 "not a leak of its training records.")
    else:
        text += " The model adds little to what the other features already tell."
    return text

