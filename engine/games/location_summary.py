"""The location audit's headline: the verdict from the strongest attacker (the exact optimum
for the informed attacker, or any measured attack that beats guessing after correction), the
summary's sentences and the warnings. Moved out of the audit's run (issue 33 item 2: a run
reads config → game → attacks → headline → result).
"""

from __future__ import annotations

import numpy as np

from engine.evidence import verdict_block
from engine.games.location_setup import LocationGameSettings
from engine.games.location_theory import exposed_sentence
from engine.headline import not_measurable_sentence, tpr_at
from engine.numbers import whole_percent
from engine.plots.observations import dp_bound_warning
from engine.wording import plain_name

#: The location game's "present" and "absent" cases, in the words of the summary and of the
#: verdict's reasons alike (issue 32 item 6: "spots 100 % of releases containing them" beside
#: "spots 100 % of the people present" told two stories about one figure).
RELEASE_MEMBERS = ("the releases containing the target", "the releases without the target")


def _repetitions_words(attacks: list[dict], label: str | None) -> str:
    """" Over the 10 repetitions … right 96.6 % of the time on average …": the mean over the
    re-split repetitions with its spread, for the attack (by label) whose first-repetition
    accuracy the sentence before quotes; "" when that attack was played once. The first
    repetition alone can sit far from the rest (issue 22: 0.69 against 0.97), so the summary
    never leaves it as the only figure (issue 32 item 6)."""
    attack = next((a for a in attacks if label and (a.get("label") or a.get("name")) == label),
                  None)
    reps = ((attack or {}).get("details") or {}).get("repetitions") or {}
    values = reps.get("accuracy") or []
    if len(values) < 2 or not isinstance(reps.get("accuracy_mean"), float):
        return ""
    return (f" Over the {len(values)} repetitions of the game with the people split afresh, "
            f"that attack was right {reps['accuracy_mean']:.1%} of the time on average "
            f"(standard deviation {100 * reps['accuracy_sd']:.1f} points, from "
            f"{reps['accuracy_min']:.1%} to {reps['accuracy_max']:.1%}); the "
            f"{reps['accuracy'][0]:.1%} above is the first repetition's, the one the tables "
            "show.")


def _attacker_words(config: LocationGameSettings) -> str:
    if config.attacker == "informed":
        return ("knows everyone else in the release (the worst case differential privacy "
                "protects against)")
    if config.attacker == "partial":
        return f"knows {config.known_fraction:.0%} of the other people in the release"
    return "knows nobody in the release but has similar people's traces"


def theory_warnings(config: LocationGameSettings, attacks: list[dict], theory: dict) -> list[str]:
    out = []
    bound = theory.get("dp_bound_accuracy")
    if bound is not None:
        for a in attacks:
            if a["accuracy_ci"][0] > bound + 1e-9:
                out.append(f"{a['label']}: accuracy {a['accuracy']:.3f} exceeds what "
                           f"ε = {config.epsilon:g} per hour allows ({bound:.3f}). The noise "
                           "does not give the claimed guarantee, or the clipping is off.")
    if config.mechanism == "none":
        out.append("No DP noise: the release has no formal protection; the verdict rests on "
                   "the attacks alone.")
    if config.attacker != "informed":
        out.append("The attacker modelled here knows less than DP assumes; the exact optimum "
                   "shown is the informed attacker's, an upper bound for this one.")
    return out


def random_guess(config: LocationGameSettings, labels: np.ndarray) -> dict:
    return {"name": "random_guess", "label": "Random guess (no information)",
            "n_positive": int(labels.sum()), "n_negative": int((~labels).sum()),
            "auc": 0.5, "accuracy": 0.5, "advantage": 0.0,
            "tpr_at_fpr": [{"fpr_target": t, "tpr": t} for t in config.measured_fpr_targets()]}


def verdict_and_summary(config: LocationGameSettings, k: int, attacks: list[dict], theory: dict,
                        exposed: dict, release_verdicts: dict | None
                        ) -> tuple[dict, str, list[str]]:
    """(verdict, summary, warnings) of a played game whose target appears in ``k`` released
    counts."""
    warnings: list[str] = []
    # Verdict from the strongest attacker: the exact optimum (informed) or any measured attack.
    policy = config.policy
    opt_tpr = opt_acc = None
    opt = theory.get("optimal_attacker")
    if opt and config.attacker == "informed":
        row = tpr_at(opt, policy.fpr)
        opt_tpr, opt_acc = (row or {}).get("tpr", 0.0), opt["accuracy"]
    # Only attacks that beat guessing after Holm's correction over all of them raise the
    # level; the exact optimum is a proof (engine.evidence, issue 32 item 2).
    verdict, head, _evidence = verdict_block(
        attacks, policy, confidence=config.confidence, optimum_tpr=opt_tpr,
        optimum_accuracy=opt_acc, units="test releases", members=RELEASE_MEMBERS)
    warnings += theory_warnings(config, attacks, theory)
    # A measured point of the sweep above the ε-DP bound by more than chance explains over all
    # the points plotted (issue 32 item 5): a warning, and a word in the banner's summary.
    bound_warning = dp_bound_warning({"attacks": attacks, "theory": theory,
                                      "config": config.to_dict()})
    if bound_warning:
        warnings.append(bound_warning)
    warnings += [a["details"]["repetitions"]["sentence"] for a in attacks
                 if (a["details"].get("repetitions") or {}).get("sentence")]
    who = ("the most exposed person" if config.target == "most_exposed" else "the target")
    # The summary quotes counted figures only (engine.evidence): a rate that did not beat
    # guessing after correction is not said as the attacker's.
    if head.verdict_tpr_measured is not None:
        spots = (f", and spots {head.verdict_tpr:.1%} of {RELEASE_MEMBERS[0]} while "
                 f"wrongly accusing {policy.fpr:.1%} of {RELEASE_MEMBERS[1]}")
    elif not head.tpr_measurable:
        spots = ("; " + not_measurable_sentence(head.n_negative, policy.fpr,
                                                "test releases without the person"))
    else:
        spots = ""
    if head.accuracy_from is None and head.tpr_from is None:
        summary = (f"No attack run could tell whether {who} (who appears in {k} of "
                   f"the released counts) is in this release better than guessing: "
                   f"{_evidence.sentence[0].lower()}{_evidence.sentence[1:]}")
    else:
        summary = (f"An attacker who {_attacker_words(config)} can tell whether {who} "
                   f"(who appears in {k} of the released counts) is in this release "
                   f"correctly {whole_percent(head.verdict_accuracy)} of the time{spots}."
                   + _repetitions_words(attacks, head.accuracy_from))
    if config.target == "most_exposed":
        # Not "as much or more": the count is everyone the best possible attacker puts at
        # high risk (exposed_people), a line the most exposed person need not be near.
        summary += f" {exposed_sentence(exposed)}"
    if head.found and head.accuracy is not None:
        # Name the strongest attack run (the one the results tables and the report quote),
        # by its plain name; the figures above may be the exact optimum's (engine.headline).
        summary += (f" The strongest attack run is the {head.short_label().lower()}, right "
                    f"{whole_percent(head.accuracy)} of the time"
                    + (", which cannot be told from guessing." if not head.distinguishable
                       else ".")
                    + ("" if head.accuracy_from == head.label
                       else _repetitions_words(attacks, head.label)))
    if bound_warning:
        summary += (" Warning: a measured accuracy is above the most the claimed ε allows, by "
                    "more than chance explains (see the warnings).")
    if release_verdicts is not None:
        says = [v for v in release_verdicts.values() if v["says_present"]]
        best_name, best = min(release_verdicts.items(),
                              key=lambda kv: kv[1]["share_absent_at_least"])
        summary = (f"On the published release, {len(says)} of {len(release_verdicts)} attacks "
                   f"conclude that the target (who appears in {k} of the counts) is in it. A "
                   f"release without the target scores as high as this one in "
                   f"{best['share_absent_at_least']:.1%} of the attacker's simulations "
                   f"({plain_name(best_name).lower()}). {summary}")
    return verdict, summary, warnings
