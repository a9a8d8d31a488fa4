"""The defences part of the model audit's report (issue 9; paper 004 §4.3, §5).

``theory["defences"]`` of a model audit run with ``[defences] enabled = true``
(engine/defences/audit.py run_defences): every defence setting retrained on the audited
model's training records and attacked under the supervised threat model, the user's risk
limit and the recommended setting. :func:`defences_section` closes section 5 of the model
report (engine/report/model.py), :func:`defences_limitation` adds a bullet to section 8.
Absent from older results: then nothing is printed. Method: docs/methods/defences.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from reportlab.lib import colors
from reportlab.lib.units import cm
from reportlab.platypus import CondPageBreak, Flowable, Spacer

from engine.defences.audit import attacks_sentence, reference_attacks_missing
from engine.numbers import is_finite
from engine.plots import series as plot_series
from engine.plots import tradeoff as tradeoff_plot
from engine.report import styles as st
from engine.report.charts import (
    TradeoffCurve,
    TradeoffPoint,
    tradeoff_chart,
    tradeoff_crowd,
)
from engine.report.sections import (
    TEXT_WIDTH,
    brief_name,
    keep,
    markup,
    min_negatives,
    para,
    policy_fpr,
    sub,
    table,
    two_lines,
)
from engine.report.styles import fmt3, fmt_ci, fmt_count, fmt_eps, fmt_num, fmt_pct
from engine.results.loaded import load_result
from engine.results.model_defences import DefenceRow, DefencesBlock, defences_of

_ok = is_finite

DEFENCE_ORDER = ("none", "kcd", "dmp", "l2", "early_stopping", "dp_sgd")
DEFENCE_WORDS = {
    "none": "no defence",
    "kcd": "KCD (knowledge cross-distillation)",
    "dmp": "DMP (distillation on public data)",
    "l2": "L2 weight decay",
    "early_stopping": "early stopping",
    "dp_sgd": "DP-SGD (differentially private training)",
}
MAIN_KNOB = {"kcd": "alpha", "dmp": "temperature", "l2": "weight_decay",
             "early_stopping": "epochs", "dp_sgd": "noise_multiplier"}
RISK_AXIS = {
    "auc": "Strongest attack's AUC (0.5 = guessing; left = safer)",
    "accuracy": "Strongest attack's balanced accuracy (0.5 = guessing; left = safer)",
    "advantage": "Strongest attack's advantage, TPR − FPR (left = safer)",
    "epsilon": "Empirical ε lower bound, largest over the attacks (left = safer)",
}
RISK_NAMES = {"auc": "AUC", "accuracy": "balanced accuracy", "advantage": "advantage",
              "epsilon": "empirical ε lower bound"}


def defences_block(result) -> DefencesBlock | None:
    """``theory.defences`` typed (engine.results.model_defences) when the audit ran defences
    and the block has rows, else None. ``result``: a result dict or a LoadedResult."""
    theory = load_result(result).theory
    if isinstance(theory, Mapping):      # a result that does not say it is a model audit
        return defences_of(theory.get("defences"))
    return getattr(theory, "defences", None)


def _knob_value(row: DefenceRow) -> float | None:
    v = row.knobs.get(MAIN_KNOB.get(str(row.defence), ""))
    if not _ok(v) and row.defence == "dp_sgd" and _ok(row.knobs.get("target_epsilon")):
        return -float(row.knobs["target_epsilon"])          # a larger ε is less noise
    return float(v) if _ok(v) else None


def _defence_rows(block: DefencesBlock) -> list[DefenceRow]:
    """The rows, the undefended model first, then each defence in the usual order, each by its
    knob (KCD by α, DMP by T, L2 by λ, early stopping by epochs, DP-SGD by σ)."""
    def key(ir):
        i, r = ir
        d = str(r.defence)
        rank = DEFENCE_ORDER.index(d) if d in DEFENCE_ORDER else len(DEFENCE_ORDER)
        v = _knob_value(r)
        return (rank, d, v is None, v if v is not None else 0.0, i)

    return [r for _, r in sorted(enumerate(block.rows), key=key)]


def _risk(row: DefenceRow, metric: str, fpr) -> tuple[float | None, list | None, bool]:
    """The strongest attack's ``metric`` for a row: (value, interval, measurable). For
    ``tpr`` the entry at ``fpr`` (TPR at that FPR); a TPR that is not measurable gives
    (None, None, False)."""
    if metric == "tpr":
        entry = row.risk.tpr_at_limit(fpr)
        if entry is None:
            return None, None, True
        if not entry.measurable:
            return None, None, False
    else:
        entry = row.risk.measure(metric)
    if entry is None or entry.value is None:
        return None, None, True
    return entry.value, (list(entry.ci) if entry.ci is not None else None), True


def _limit_words(block: DefencesBlock) -> str:
    """The limit in plain words (markup)."""
    lim = block.limit
    metric, value, fpr = lim.metric, lim.value, lim.fpr
    if metric == "tpr" and _ok(value) and _ok(fpr):
        words = (f"the strongest attack may find at most <b>{fmt_pct(value)}</b> of the "
                 f"members while wrongly accusing {fmt_pct(fpr)} of the non-members")
    elif metric in RISK_NAMES and _ok(value):
        words = (f"the strongest attack's {RISK_NAMES[metric]} may be at most "
                 f"<b>{fmt_num(value) if metric == 'epsilon' else fmt3(value)}</b>")
    else:
        words = "no limit was recorded"
    if lim.text:
        words += f" ({markup(lim.text)})"
    if lim.use_upper:
        words += (", judged on the upper end of its 95% interval, so a setting passes only "
                  "when the limit holds with 95% confidence")
    return words


def defences_chart(block: DefencesBlock | dict):
    """The privacy–utility chart of the defences (:func:`engine.report.charts.tradeoff_chart`)
    and what its caption must add: (drawing, close-up or None, axis metric, labels of rows not
    drawn). The curves, points, point labels, legend words and colours are
    :func:`engine.plots.series.tradeoff_series` on the axis the screen opens on
    (:func:`engine.plots.series.default_metric`), so the report and the screen agree."""
    block = defences_of(block) or DefencesBlock()
    metric = tradeoff_plot.default_metric(block)
    tradeoff = tradeoff_plot.tradeoff_series(block, metric)
    fpr = block.limit_fpr if block.limit_fpr is not None else 0.01

    def points(curve: plot_series.Curve) -> list:
        out = []
        for i, (x, y) in enumerate(zip(curve.x, curve.y, strict=True)):
            x_ci = (curve.x_lower[i], curve.x_upper[i]) if curve.x_lower else (None, None)
            y_ci = (curve.lower[i], curve.upper[i]) if curve.lower else (None, None)
            out.append(TradeoffPoint(
                x, y, x_ci if None not in x_ci else None, y_ci if None not in y_ci else None,
                curve.point_labels[i] if curve.point_labels else "",
                tradeoff.recommended_id is not None and curve.point_ids is not None
                and curve.point_ids[i] == tradeoff.recommended_id))
        return out

    curves = [TradeoffCurve(c.label, points(c), c.style) for c in tradeoff.curves]
    baseline = points(tradeoff.baseline)[0] if tradeoff.baseline is not None else None
    if metric == "tpr":
        x_title = (f"Members spotted at {fmt_pct(fpr)} false alarms (TPR), strongest attack "
                   "(left = safer)")
    else:
        x_title = RISK_AXIS[metric]
    floor = 0.0 if metric in ("tpr", "advantage", "epsilon") else None
    cap = None if metric == "epsilon" else 1.0
    args = dict(x_floor=floor, x_cap=cap, limit=tradeoff.limit)
    crowd = tradeoff_crowd(curves, baseline, **args)
    common = dict(x_title=x_title, x_percent=tradeoff.x_percent,
                  limit_label=str(block.limit.text or ""),
                  baseline_label=tradeoff.baseline.label if tradeoff.baseline else "", **args)
    drawing = tradeoff_chart(
        curves, baseline, title="Privacy against utility of each defence setting",
        zoom=(*crowd[0], *crowd[1]) if crowd else None, **common)
    drawing.plot_series = tradeoff       # what was drawn (tests compare it with the screen's)
    close_up = None
    if crowd:
        close_up = tradeoff_chart(
            curves, baseline, title="Close-up of the crowded region (dotted box above)",
            x_range=crowd[0], y_range=crowd[1], height=250.0, **common)
    return drawing, close_up, metric, list(tradeoff.missing)


def _rec_sentence(block: DefencesBlock) -> str:
    rec = block.recommendation
    sentences = block.sentences
    statement = rec.statement or (sentences[0] if sentences else "")
    if not statement:
        return "No recommendation was recorded."
    text = markup(statement)
    if rec.needed is False:
        # No defence needed, or not decidable at this size (issue 32 item 4): the decision's
        # sentence, its verdict in bold — never "No setting meets".
        head, *rest = re.split(r"(?<=\.)\s+", text, maxsplit=1)
        return f"<b>{head}</b> {rest[0] if rest else ''}".strip()
    if rec.met:
        return f"<b>Recommendation:</b> {text}"
    # No setting meets the limit: its first sentence in bold, the ways forward after it.
    head, *rest = re.split(r"(?<=\.)\s+", text, maxsplit=1)
    return f"<b>{head}</b> {rest[0] if rest else ''}".strip()


def _attack_name(row: DefenceRow, name) -> str:
    """An attack's short name from the row's compact attack list ("btta" → "Bayesian
    Take-the-Typical attack"), or the name itself."""
    a = row.attack_named(name)
    return brief_name(a.label or name) if a else str(name)


def _dp_rows(rows: list[DefenceRow]) -> list[DefenceRow]:
    return [r for r in rows if r.dp is not None]


def defences_section(result) -> list[Flowable]:
    """The "Defences" part of section 5 (issue 9; paper 004): recommendation, limit, how to
    read it, the privacy–utility chart, every setting's numbers, who the attacker is, DP-SGD's
    promise against the attacks, where DMP's reference data came from. [] without defences."""
    from reportlab.platypus import TableStyle

    block = defences_block(result)
    if block is None:
        return []
    rows = _defence_rows(block)
    lim = block.limit
    plain = result if isinstance(result, dict) else dict(load_result(result).raw)
    fpr = block.limit_fpr if block.limit_fpr is not None else policy_fpr(plain)
    rec = block.recommendation
    data = block.data
    members = data.members if data is not None else None
    defended = [r for r in rows if r.defence != "none"]
    kinds = [d for d in DEFENCE_ORDER[1:] if any(r.defence == d for r in defended)]
    kinds += sorted({str(r.defence) for r in defended} - set(DEFENCE_ORDER))
    names = ", ".join(markup(DEFENCE_WORDS.get(d, d.replace("_", " "))) for d in kinds) \
        or "none"
    n_settings = len(defended)
    intro = (f"To see what a defence would buy, the model was trained again with "
             f"{fmt_count(n_settings)} defence setting{'s' if n_settings != 1 else ''} — "
             f"{names} — each on the same "
             + (f"{fmt_count(members)} " if _ok(members) else "")
             + "training records, and every retrained model was attacked in the same way "
             f"(paper 004). <b>Your limit:</b> {_limit_words(block)}.")
    first: list[Flowable] = [CondPageBreak(9 * cm),
                             sub("Defences: retraining the model to leak less"),
                             para(intro + " " + markup(defences_attacks_text(block))),
                             para(_rec_sentence(block))]
    mv = block.most_vulnerable
    if mv is not None and mv.is_undefended is False and mv.undefended_within_interval \
            is False:
        first.append(para(
            f"Check: the strongest attack does best against {markup(mv.label)} (AUC "
            f"{fmt3(mv.auc)}), a defended setting, beyond the undefended model's "
            "interval. A defence should not make the model easier to attack; look at how "
            "this setting was trained before relying on the sweep.", "small"))
    exposed = [t for t in block.sentences[1:] if t.startswith("Watch out:")]
    for text in exposed:
        first.append(para(markup(text), "small"))
    how = para(
        "<b>How to read this.</b> Each point is the model retrained with one defence at one "
        "setting. <i>Up</i> means more accurate on people the model never saw (what the model "
        "is for); <i>left</i> means the strongest attack does worse (what privacy needs). The "
        "star is the model with no defence. A useful defence moves the point left without "
        "pulling it far down. The shaded side of the green dashed line is what your limit "
        "allows, and the ringed point is the recommended setting: the most accurate one inside "
        "the limit. Whiskers, and the brackets in the table, are 95% intervals: two settings "
        "whose intervals overlap are not clearly different.", "small")

    drawing, close_up, metric, missing = defences_chart(block)
    caption = []
    if metric != lim.metric:
        caption.append(f"{markup(lim.text or 'The limit')} could not be measured for "
                       "any setting (too few non-members for that false-positive rate), so the "
                       "chart shows the strongest attack's AUC and cannot draw the limit.")
    if lim.use_upper and metric == lim.metric:
        caption.append("The limit is judged on the upper end of each interval: a setting is "
                       "within it only when its whisker's right end is left of the line.")
    if missing:
        caption.append("Not drawn (its risk could not be measured): "
                       + ", ".join(markup(m) for m in missing) + ".")
    caption.append("Each curve joins one defence's settings in the order of its knob; small "
                   "labels name the setting (a label is left out where points crowd — the "
                   "table below lists every setting). The risk is the strongest of the attacks "
                   "against each retrained model.")
    if close_up is not None:
        caption.append("Where many settings land close together, they are labelled in the "
                       "close-up instead; its axes cover only the dotted box.")
    chart_part = [how, Spacer(1, 4), drawing, Spacer(1, 2)] + ([close_up] if close_up is not None else []) \
        + [para(" ".join(caption), "caption")]

    tpr_head = f"TPR at {fmt_pct(fpr)} FPR"
    head = ["Setting", "Test accuracy", "Gap", "Strongest AUC", "Balanced accuracy",
            tpr_head, "Empirical ε bound"]
    table_rows: list[list[str]] = [head]
    candidates = set(rec.candidates)
    not_judged = set(rec.not_measurable)
    rec_row = None
    for i, r in enumerate(rows, 1):
        label = markup(r.label or r.defence or st.DASH)
        notes = []
        is_rec = bool(rec.met) and r.index == rec.index and r.index is not None
        if is_rec:
            label = f"<b>{label}</b>"
            notes.append("<b>recommended</b>")
            rec_row = i
        elif r.index in candidates:
            notes.append("within the limit")
        if r.defence == "none":
            notes.append("undefended")
        if r.index in not_judged:
            notes.append("not judged")
        cell = label + (f'<br/><font size="7">{", ".join(notes)}</font>' if notes else "")
        auc, auc_ci, _ = _risk(r, "auc", None)
        acc, acc_ci, _ = _risk(r, "accuracy", None)
        tpr, tpr_ci, measurable = _risk(r, "tpr", fpr)
        if not measurable:
            need = min_negatives(fpr)
            tpr_text = ("not measurable" + (f'<br/><font size="7">needs ≥ {fmt_count(need)} '
                                            "non-members</font>" if need else ""))
        else:
            tpr_text = two_lines(fmt_pct(tpr), fmt_ci(tpr_ci, fmt_pct))
        eps, _, _ = _risk(r, "epsilon", None)
        eps_text = fmt_eps(eps)
        dp = r.dp
        if dp is not None and _ok(dp.accountant_epsilon):
            eps_text += f'<br/><font size="7">promised {fmt_eps(dp.accountant_epsilon)}</font>'
        gap = r.generalization_gap
        table_rows.append([
            cell,
            two_lines(fmt_pct(r.test_accuracy), fmt_ci(r.test_accuracy_ci, fmt_pct)),
            f"{100 * gap:.1f}" if _ok(gap) else st.DASH,
            two_lines(fmt3(auc), fmt_ci(auc_ci)),
            two_lines(fmt_pct(acc), fmt_ci(acc_ci, fmt_pct)),
            tpr_text, eps_text])
    t = table(table_rows, [3.4 * cm, 2.5 * cm, 1.5 * cm, 2.4 * cm, 2.4 * cm, 2.6 * cm,
                           TEXT_WIDTH - 14.8 * cm])
    if rec_row is not None:
        t.setStyle(TableStyle([("BACKGROUND", (0, rec_row), (-1, rec_row), st.GREY_FILL),
                               ("BOX", (0, rec_row), (-1, rec_row), 1.0, colors.black)]))
    n_eval = data.non_members if data is not None else None
    table_note = (
        "Every retrained model, the undefended one first. Test accuracy: share of the "
        "non-members it labels correctly; gap: train minus test accuracy, in percentage "
        "points. Each risk column is the strongest attack for that measure, which may be a "
        "different attack per column. TPR: share of the members an attack finds while wrongly "
        f"accusing {fmt_pct(fpr)} of the non-members; “not measurable” when too few non-members "
        "are evaluated to certify that rate. Empirical ε bound: the smallest ε a "
        "differential-privacy guarantee could have claimed given what the attacks achieved "
        "(95% confidence); for DP-SGD the accountant's promise is printed below it.")
    table_part = [sub("Every setting measured"), para(table_note, "small"), t]

    who: list[Flowable] = [para("<b>Who the attacker is, and what was measured.</b>")]
    tm = block.threat_model_text
    who.append(para(
        (markup(tm) + " " if tm else "")
        + "In plain words: an insider who already knows, for half of the people, whether they "
          "were in the training data, and uses that to learn how each retrained model treats "
          "its members; the percentages are measured on the other half. It is a strong "
          "attacker, so a defence that holds here is likely to hold against weaker ones."
        + defences_reference_attacker_text(block)))
    facts = []
    if data is not None:
        src = markup(data.source or "the audited data")
        facts.append(f"Records: {src}"
                     + (f", {fmt_count(members)} members and "
                        f"{fmt_count(n_eval)} non-members" if _ok(members)
                        and _ok(n_eval) else "") + ".")
    if any(r.defence == "dmp" for r in rows):
        ref = block.reference
        facts.append("DMP's reference data (unlabelled records the protected model learns "
                     "from, labelled by the undefended model): "
                     + (markup(ref) if ref else "not recorded") + ".")
    cost = block.cost_in_models
    total = sum(v for v in cost.values() if _ok(v)) if cost is not None else None
    if _ok(block.runtime_s):
        facts.append(f"The sweep took {fmt_num(round(float(block.runtime_s), 1))} s"
                     + (f" to train {fmt_num(round(total))} models and attack each"
                        if _ok(total) and total else "") + ".")
    if facts:
        who.append(para(" ".join(facts), "small"))

    out: list[Flowable] = [keep(first + who), keep(chart_part), Spacer(1, 4),
                           CondPageBreak(6 * cm), *table_part]
    dp_rows = _dp_rows(rows)
    if dp_rows:
        dp_table = [["DP-SGD setting", "Promised ε (accountant)", "Attacks prove at least ε",
                     "Most this data can prove", "Reading"]]
        untestable = False
        for r in dp_rows:
            dp = r.dp
            if dp.testable is False:
                untestable = True
                reading = "not testable at this size"
            elif dp.within_claim is False:
                reading = "<b>contradicts the promise</b>"
            elif dp.within_claim:
                reading = "consistent with the promise"
            else:
                reading = markup(dp.verdict or st.DASH)
            delta = dp.delta
            dp_table.append([
                markup(r.label or "DP-SGD"),
                fmt_eps(dp.accountant_epsilon)
                + (f'<br/><font size="7">at δ = {st.fmt_sci(delta)}'
                   + (f", {markup(dp.accountant)}" if dp.accountant else "")
                   + "</font>" if _ok(delta) else ""),
                fmt_eps(dp.empirical_epsilon_lower_bound)
                + (f'<br/><font size="7">by {markup(_attack_name(r, dp.attack))}'
                   "</font>" if dp.attack else ""),
                fmt_eps(dp.max_certifiable), reading])
        first_dp = dp_rows[0].dp
        together = int(first_dp.attacks_together or 1)
        level = first_dp.confidence
        level_words = f"{float(level):.0%}" if _ok(level) else "95%"
        words = ("DP-SGD comes with a promise: its accountant computes an ε, and no attack "
                 "should do better than that ε allows. The attacks give the opposite kind of "
                 f"number, a lower bound: with {level_words} confidence the training leaks at "
                 "least that much"
                 + (f" (each of the {together} attacks' bounds is taken at "
                    f"{1 - (1 - float(level)) / together:.1%}, so that all hold together with "
                    f"{level_words} and the largest of them may be quoted)"
                    if together > 1 and _ok(level) else "")
                 + ". A lower bound above the promise would show the promise is wrong.")
        if untestable:
            words += (" <b>“Not testable at this size”</b> means the promise is larger than "
                      "anything this many records could ever prove: even an attack that "
                      "recognised every member perfectly could show no more than the “most "
                      "this data can prove” column. Such a promise can be neither confirmed "
                      "nor refuted here — it says nothing against DP-SGD, and nothing for it; "
                      "a smaller ε, or more records, makes the check meaningful.")
        out += [Spacer(1, 6), keep([
            sub("DP-SGD: the promise against the evidence"), para(words),
            table(dp_table, [3.4 * cm, 3.2 * cm, 3.2 * cm, 3.0 * cm,
                             TEXT_WIDTH - 12.8 * cm])])]
    return out + [Spacer(1, 6)]


def defences_limitation(block: DefencesBlock | dict) -> str:
    """The limitations bullet about the defences (section 8)."""
    block = defences_of(block) or DefencesBlock()
    data = block.data
    rows = _defence_rows(block)
    ceilings = [r.risk.epsilon.max_certifiable for r in rows
                if r.has_risk and r.risk.epsilon is not None]
    ceilings = [c for c in ceilings if _ok(c)]
    size = ""
    if data is not None and _ok(data.members) and _ok(data.non_members):
        size = (f" They were measured on {fmt_count(data.members)} members and "
                f"{fmt_count(data.non_members)} non-members, half of each used by the "
                "attacker to learn: differences between settings smaller than the intervals "
                "are noise")
        if ceilings:
            size += (f", and no ε lower bound above {fmt_eps(max(ceilings))} can be shown on "
                     "so few records")
        size += "."
    return (defences_threat_limitation(block) + size
            + " A recommended setting describes this recipe and these records; retraining on "
            "other data needs a new audit.")


def defences_attacks_text(block: DefencesBlock | dict) -> str:
    """Which attacks judged every defence setting, and whether the audit's strongest (LiRA,
    RMIA) were re-run on them — the engine's sentence (engine.defences.audit.attacks_sentence,
    issue 20 item 1), rebuilt for a result saved before it was stored."""
    block = defences_of(block) or DefencesBlock()
    stored = [t for t in block.sentences
              if t.startswith("Every setting, the model with no defence included")]
    return stored[0] if stored else attacks_sentence(dict(block.table))


def defences_reference_attacker_text(block: DefencesBlock | dict) -> str:
    """" …" on the attacker who trains copies of the model under each defence, or ""."""
    n_ref = (defences_of(block) or DefencesBlock()).reference_models
    if not _ok(n_ref) or not n_ref:
        return ""
    return (f" For the attacks that train copies of the model, the attacker also knows the "
            f"defence: each setting was trained again as {fmt_count(n_ref)} copies with the "
            "same defence and recipe, each on a random half of the audited records, and these "
            "attacks are measured on the same half of the records as the others.")


def defences_threat_limitation(block: DefencesBlock | dict) -> str:
    """The first sentence of the limitations bullet: which attackers judged the defences."""
    block = defences_of(block) or DefencesBlock()
    rows = block.rows
    if block.reference_models and not reference_attacks_missing(dict(block.table)):
        return (f"Defences: the retrained models were attacked by an insider who knows half "
                f"of the members and half of the non-members, and by the attacks that train "
                f"copies of the model (LiRA, RMIA) with {fmt_count(block.reference_models)} "
                "copies per setting trained under the same defence.")
    if block.reference_attacks_asked or block.reference_attacks_asked is None or not rows:
        return ("Defences: the retrained models were attacked only under the supervised threat "
                "model (the attacker knows half of the members and half of the non-members); "
                "the attacks that train copies of the model (LiRA and RMIA), the strongest of "
                "section 5, were not re-run on them, so a defence that passes here has not "
                "been tested against the audit's strongest attacks.")
    return ("Defences: the retrained models were attacked only under the supervised threat "
            "model (the attacker knows half of the members and half of the non-members); the "
            "audit ran no attack that trains copies of the model.")


__all__ = ["DEFENCE_WORDS", "defences_block", "defences_chart", "defences_limitation",
           "defences_section"]
