"""The defences step of a model audit (issue 9): the ``[defences]`` table of a
:class:`~engine.audits.model.ModelConfig` turned into a trade-off sweep, a recommendation and
the plain sentences the page and the report show.

``theory["defences"]`` of the model audit's result.json is :func:`run_defences`'s dict: the
trade-off's rows and facts (engine.defences.tradeoff), the user's limit, the recommendation,
the models the sweep trains (``cost_in_models``), and ``sentences`` — the recommendation and, for
DP-SGD, what the attacks say about its accountant's ε.
"""

from __future__ import annotations

from engine.data.errors import InputError
from engine.data.paths import resolve_path
from engine.defences.config import cost_in_models, reference_models_run
from engine.defences.tradeoff import (
    NEEDS_REFERENCE,
    TradeoffSettings,
    defence_decision,
    recommend,
    short_attack_name,
    tradeoff,
)
from engine.headline import tpr_at
from engine.metrics import min_negatives_for
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress

# The trade-off's error keys (its knobs) → the [defences] key that sets each.
CONFIG_KEYS = {"alpha": "defences.kcd_alphas", "n_teachers": "defences.kcd_teachers",
               "temperature": "defences.dmp_temperatures", "reference": "defences.dmp_reference",
               "reference_size": "defences.dmp_reference_size",
               "drop_high_entropy": "defences.dmp_drop_high_entropy",
               "noise_multiplier": "defences.dpsgd_noise_multipliers",
               "target_epsilon": "defences.dpsgd_target_epsilons",
               "limit": "defences.limit_value"}

# The audit's attacks that need reference models, in plain words for the sentences (issue 20:
# plain names first).
REFERENCE_ATTACK_WORDS = "the attacks that train copies of the model (LiRA and RMIA)"


def run_defences(config: TradeoffSettings, *, undefended: list[dict] | None = None,
                 progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER):
    """Train, attack and compare every setting of ``config.defences``; returns the
    JSON-ready dict and the :class:`~engine.defences.tradeoff.TradeOff` (its models, to export
    the recommended one). ``undefended``: the main audit's attack entries; whether a defence
    is needed at all is decided from them (``decision``, issue 32 item 4), else from the
    sweep's undefended row."""
    d = config.defences
    limit = d.risk_limit()
    try:
        trade = tradeoff(config, d.settings(), reference_csv=d.dmp_reference,
                         extra_fpr_targets=d.fpr_targets(),
                         reference_models=reference_models_run(d, config.attacks),
                         reference_attacks=[a for a in config.attacks if a in NEEDS_REFERENCE],
                         progress=progress, cancel=cancel)
    except InputError as exc:
        # The engine names its knob ("n_teachers"); the user set it as a [defences] key. A
        # problem inside the reference file (a missing column) is the reference's to fix.
        key = CONFIG_KEYS.get(exc.key or "", exc.key)
        if d.dmp_reference and exc.source and _same_file(exc.source, d.dmp_reference):
            key = "defences.dmp_reference"
        raise InputError(str(exc), source=exc.source, key=key) from None
    base = next((r for r in trade.rows if r["defence"] == "none"), None)
    decision = defence_decision(limit, attacks=undefended, base_row=base)
    rec = recommend(trade.rows, limit, decision=decision)
    out = trade.to_dict()
    for row in out["rows"]:
        _keep_one_roc(row)
    out["limit"] = {"metric": limit.metric, "value": limit.value, "fpr": limit.fpr,
                    "use_upper": limit.use_upper, "text": limit.describe(),
                    "plain": limit.plain()}
    out["decision"] = decision
    out["recommendation"] = rec
    out["cost_in_models"] = cost_in_models(d, config.attacks)
    out["sentences"] = [rec["statement"], attacks_sentence(out)] \
        + [dp_sentence(r) for r in out["rows"] if "dp" in r]
    out["most_vulnerable"] = most_vulnerable(out["rows"])
    out["more_exposed"] = more_exposed(out["rows"], limit.fpr)
    if out["more_exposed"]:
        out["sentences"].append(more_exposed_sentence(out["more_exposed"]))
    out["summary"] = summary_sentence(out)
    return out, trade


# Below this, a defended setting "above" the undefended model is rounding (KCD at α = 0 is the
# undefended model up to ~1e-5 in its outputs).
EXPOSURE_MARGIN = 0.005


def more_exposed(rows: list[dict], fpr: float) -> list[dict]:
    """Defended settings the strongest attack does *better* against than the undefended model,
    per measure (TPR at ``fpr``, AUC, balanced accuracy): a defence may lower the average
    exposure and still raise it for the records an attack is surest about (measured: KCD at
    α = 1 finds more members at 1 % FPR than no defence on every seed tried; docs/methods/
    defences.md). ``beyond_interval``: the setting's interval lies wholly above the
    undefended estimate."""
    base = next((r for r in rows if r["defence"] == "none"), None)
    if base is None:
        return []

    def entry(row, metric):
        risk = row["risk"]
        if metric == "tpr":
            e = tpr_at(risk, fpr)
            return None if e is None or not e.get("measurable", True) else e
        return risk[metric]

    out = []
    for metric in ("tpr", "auc", "accuracy"):
        b = entry(base, metric)
        if b is None:
            continue
        for row in rows:
            e = entry(row, metric)
            if row is base or e is None or e["value"] <= b["value"] + EXPOSURE_MARGIN:
                continue
            ci = e.get("ci") or [None, None]
            out.append({"metric": metric, "index": row["index"], "label": row["label"],
                        "value": float(e["value"]), "undefended": float(b["value"]),
                        "beyond_interval": ci[0] is not None and ci[0] > b["value"],
                        "fpr": fpr if metric == "tpr" else None})
    return out


def more_exposed_sentence(items: list[dict]) -> str:
    """The settings that make some attack more successful than no defence, in one sentence."""
    words = {"tpr": "members spotted at {fpr:.0%} false positives", "auc": "AUC",
             "accuracy": "balanced accuracy"}
    parts = []
    for it in items:
        what = words[it["metric"]].format(fpr=it["fpr"] or 0)
        fmt = (lambda v: f"{v:.1%}") if it["metric"] == "tpr" else (lambda v: f"{v:.3f}")
        parts.append(f"{it['label']} on {what} ({fmt(it['value'])} against "
                     f"{fmt(it['undefended'])}"
                     + (", beyond its interval)" if it["beyond_interval"] else
                        ", within its interval)"))
    return ("Watch out: some settings make the strongest attack more successful than with no "
            "defence — " + "; ".join(parts) + ". A defence can lower the average exposure "
            "and still expose the records an attack is surest about.")


def attacks_run(block: dict) -> list[str]:
    """The plain names of the attacks the sweep ran, in the order they ran, as every sentence
    names them (:func:`~engine.defences.tradeoff.short_attack_name`), one each; the rows all
    ran the same list, the undefended model's included."""
    names: list[str] = []
    for row in block.get("rows") or []:
        for a in row.get("attacks") or []:
            name = short_attack_name(a)
            if name not in names:
                names.append(name)
    return names


def reference_attacks_missing(block: dict) -> list[dict]:
    """Rows on which the audit's strongest attacks (LiRA, RMIA) were asked for but not re-run
    (switched off, too few records for reference models): the sentences must say so."""
    if not block.get("reference_attacks_asked"):
        return []
    return [r for r in block.get("rows") or [] if not r.get("reference_models")]


def attacks_sentence(block: dict) -> str:
    """Which attacks judged every setting, the undefended one included, and — when the audit
    ran LiRA or RMIA — whether they were re-run on the defended models, with how many
    reference models trained under each defence, or plainly that they were not (issue 20
    item 1: a sentence claims only what was measured)."""
    names = attacks_run(block)
    text = (f"Every setting, the model with no defence included, was attacked by the same "
            f"{len(names)} attack{'s' if len(names) != 1 else ''}: {_join(names)}.")
    n_ref = int(block.get("reference_models") or 0)
    missing = reference_attacks_missing(block)
    if n_ref and not missing:
        text += (f" For {REFERENCE_ATTACK_WORDS}, the attacker knows the defence: each setting "
                 f"was trained again as {n_ref} reference models with the same defence.")
    elif block.get("reference_attacks_asked"):
        why = {"switched off": "they were switched off for the defences",
               "too few reference models": "fewer than two reference models were asked for",
               "too few records": "there are too few records to train reference models under "
                                  "every defence"}.get(block.get("reference_attacks_skipped"),
                                                       "they were not run")
        which = ("any setting" if len(missing) == len(block.get("rows") or [])
                 else _join([str(r.get("label")) for r in missing]))
        text += (f" The audit's strongest attacks, {REFERENCE_ATTACK_WORDS}, were not re-run on "
                 f"{which} ({why}), so the defences are judged on weaker attacks than the "
                 "audit's verdict.")
    return text


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def summary_sentence(block: dict) -> str:
    """The defences in one sentence for the verdict banner (the details are in their own
    section). With a decision (issue 32 item 4) it leads, and unless a defence is needed it is
    the whole of it; settings not measurable at this size are never counted as failing."""
    rec = block["recommendation"]
    n = sum(1 for r in block["rows"] if r["defence"] != "none")
    # Plain words: this sentence ends the model audit's summary (the report's first page).
    limit = block["limit"].get("plain") or block["limit"]["text"]
    n_attacks = len(attacks_run(block))
    # Which attacks "the strongest" is the strongest of: the audit's LiRA/RMIA or not.
    of = f"the strongest of {n_attacks} attacks"
    if block.get("reference_models") and not reference_attacks_missing(block):
        of += " (those that train copies of the model included)"
    elif block.get("reference_attacks_asked"):
        of += " (not those that train copies of the model: not re-run on the defences)"
    decision = rec.get("decision") or block.get("decision")
    if rec.get("needed") is False and isinstance(decision, dict):
        # Within the limit, undecided or not measurable: the one decision's sentence, the
        # same words as the next steps and the report's Defences section (issue 32 item 4).
        return decision["sentence"]
    lead = (decision["sentence"] + " ") if isinstance(decision, dict) else ""
    if rec["met"]:
        cost = rec.get("accuracy_cost") or 0.0
        chosen = next((r for r in block["rows"] if r.get("index") == rec.get("index")), {})
        name = (chosen.get("setting") or {}).get("plain_label") or chosen.get("plain_label") \
            or rec["label"]
        return lead + (f"Of {n} defence settings tried, {name} limits {of} to {limit}"
                + (f" at a cost of {cost:.1%} test accuracy." if cost > 0
                   else " without losing test accuracy."))
    # Only settings that could be measured count as failing (issue 32 item 4).
    unmeasured = {i for i in rec.get("not_measurable") or []}
    judged = sum(1 for r in block["rows"] if r["defence"] != "none"
                 and r.get("index") not in unmeasured)
    left = n - judged
    if left == 0:
        return lead + f"None of the {n} defence settings tried limits {of} to {limit}."
    fpr = block["limit"].get("fpr") or 0.01
    more = (f" {left} more could not be measured at this size (each needs at least "
            f"{min_negatives_for(fpr):,} non-members) and {'is' if left == 1 else 'are'} not "
            "counted as failing.")
    if judged == 0:
        return lead + (f"None of the {n} defence settings tried could be judged on {of} "
                       f"against your limit at this size (each needs at least "
                       f"{min_negatives_for(fpr):,} non-members); none is counted as failing.")
    return lead + (f"None of the {judged} defence settings that could be measured limits "
                   f"{of} to {limit}." + more)



def _same_file(a: str, b: str) -> bool:
    try:
        return resolve_path(str(a)).resolve() == resolve_path(str(b)).resolve()
    except OSError:
        return False


def dp_sentence(row: dict) -> str:
    """DP-SGD's claim against what the attacks certify, in words (paper 002 Thm 1)."""
    dp = row["dp"]
    text = (f"{row['label']}: the accountant promises ε = {dp['accountant_epsilon']:.2f} at "
            f"δ = {dp['delta']:.0e}; the attacks certify at least ε = "
            f"{dp['empirical_epsilon_lower_bound']:.2f} ({dp['confidence']:.0%} confidence"
            + (f" for all {dp['attacks_together']} attacks together"
               if dp.get("attacks_together", 1) > 1 else "") + ")")
    if not dp["testable"]:
        return text + (f" — not a test of the promise: on this many records even a perfect "
                       f"attack could certify at most ε = {dp['max_certifiable']:.2f}.")
    if dp["within_claim"]:
        return text + " — consistent with the promise."
    return text + " — the attacks contradict the promise: check how the model was trained."


def most_vulnerable(rows: list[dict]) -> dict:
    """The setting whose strongest attack has the largest AUC, and whether it is the
    undefended model (the issue's sanity check on every chart)."""
    top = max(rows, key=lambda r: r["risk"]["auc"]["value"])
    base = next((r for r in rows if r["defence"] == "none"), None)
    base_auc = None if base is None else base["risk"]["auc"]["value"]
    return {"index": top["index"], "label": top["label"], "auc": top["risk"]["auc"]["value"],
            "is_undefended": base is not None and top["index"] == base["index"],
            # a defended setting above the undefended model only by sampling noise
            "undefended_within_interval": base_auc is not None
            and base_auc >= top["risk"]["auc"]["ci"][0]}


def _keep_one_roc(row: dict) -> None:
    """Keep the ROC of the row's strongest attack (by AUC) only — the chart's hover and the
    report draw that one; every attack's ROC of a 15-setting sweep would be most of
    result.json. DP-SGD rows keep all of them: their ROCs are drawn against the DP region."""
    if "dp" in row or not row.get("attacks"):
        return
    best = row["risk"]["auc"]["attack"]
    for a in row["attacks"]:
        if a["name"] != best:
            a.pop("roc", None)


def export_recommended(result, directory) -> dict | None:
    """Write the recommended setting's weights (safetensors), model card (JSON) and
    predictions (CSV) into ``directory``; None when the audit ran no defences, no defence was
    needed (issue 32 item 4) or no setting met the limit. ``result``: the model audit's AuditResult of this session (the fitted
    models are not in result.json)."""
    trade = result.attachments.get("tradeoff")
    defences = result.theory.get("defences")
    if trade is None or not defences or not defences["recommendation"]["met"] \
            or defences["recommendation"].get("index") is None:
        return None
    index = defences["recommendation"]["index"]
    return trade.export(index, directory, name="recommended_model")
