"""What to do next: the release-side changes that lower the risk an audit found (issue 20).

Each results page and the report's first page open with this list. A step names a change the
data owner can make to the *release* (add noise, publish fewer counts, train differently) and
says what the audit measured of its effect — or plainly that the audit did not measure it and
how to measure it. Nothing here is new science: every figure is read from the saved result
(the exact trade-off curves of DP theory, the sweeps, the defences table), so a project reopened
later gives the same advice, and a step never claims an effect that was not computed.

Qt-free; reads a result.json dict (ARCHITECTURE §4) and never raises on a missing or damaged
field — a step whose figures are missing is left out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.numbers import is_finite

NOT_MEASURED = "Not measured by this audit"


@dataclass(frozen=True)
class NextStep:
    """One change to the release and what is known of its effect."""

    action: str          # "Add more noise: at most ε = 0.23 per hour"
    effect: str          # what it does to the risk, measured or "Not measured …"
    measured: bool       # True when ``effect`` quotes a figure this audit computed

    def sentence(self) -> str:
        return f"{self.action}. {self.effect}"

    def to_dict(self) -> dict:
        return {"action": self.action, "effect": self.effect, "measured": self.measured}


def next_steps(result: dict | None) -> list[NextStep]:
    """The steps for a saved result, most effective first; [] for no result."""
    if not isinstance(result, dict):
        return []
    build = _BY_TYPE.get(str(result.get("audit_type")))
    if build is None:
        return []
    try:
        steps = build(result)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        steps = []          # a damaged field: say nothing rather than something wrong
    level = (result.get("verdict") or {}).get("level") if isinstance(
        result.get("verdict"), dict) else None
    if level == "low":
        steps.append(NextStep(
            "Keep these settings and this report with the release",
            "The attacks tried here found a low risk; a change to the data or the settings "
            "needs a new audit.", measured=True))
    return steps


# ----------------------------------------------------------------------------- per audit type

def _mechanism(result: dict) -> list[NextStep]:
    theory = result.get("theory") or {}
    steps: list[NextStep] = []
    inverse = theory.get("inverse") or {}
    per = theory.get("epsilon_per_observation")
    if inverse.get("feasible") and is_finite(inverse.get("max_epsilon_per_observation")):
        target = float(inverse["max_epsilon_per_observation"])
        if not is_finite(per) or target < float(per):
            steps.append(NextStep(
                f"Add more noise: use at most ε = {target:.3g} per observation"
                + (f" (today {float(per):.3g})" if is_finite(per) else ""),
                f"Computed exactly: then even the best possible attacker spots at most "
                f"{_pct(inverse.get('max_tpr'))} of the people present while wrongly accusing "
                f"{_pct(inverse.get('fpr'))} of the people absent, over "
                f"{_count(inverse.get('observations'))} observations per person.",
                measured=True))
    elif inverse and inverse.get("feasible") is False:
        steps.append(NextStep(
            "No amount of noise per observation meets the limit you set",
            (inverse.get("note") or "Lower the number of observations per person, or accept "
             "a higher limit.").rstrip(".") + ".", measured=True))
    observations = theory.get("observations")
    if is_finite(observations) and float(observations) > 1:
        swept = (theory.get("sweep") or {}).get("parameter") == "observations"
        steps.append(NextStep(
            f"Count each person in fewer observations (today {_count(observations)})",
            "Computed exactly: the what-if chart below shows how the risk falls with fewer "
            "observations." if swept else
            f"{NOT_MEASURED}: each observation adds to what an attacker learns; choose "
            "\"observations per person\" under \"What-if: vary\" on the Attacks & run step "
            "to see the effect, computed exactly.", measured=swept))
    return steps


#: A DP bound on the attacker's accuracy at or above this (99.5 %, printed "99.5 %" to
#: "100.0 %") limits nothing an officer would call a limit.
NO_LIMIT_ACCURACY = 0.995


def _location(result: dict) -> list[NextStep]:
    theory = result.get("theory") or {}
    config = result.get("config") or {}
    steps: list[NextStep] = []
    mechanism = str(config.get("mechanism") or theory.get("mechanism") or "")
    if mechanism in ("", "none"):
        steps.append(NextStep(
            "Add noise to the counts (differential privacy)",
            f"{NOT_MEASURED}: these counts were audited without noise. Set the release's "
            "noise and ε on the Release step and run the audit again to measure it.",
            measured=False))
    elif is_finite(theory.get("dp_bound_accuracy")):
        bound = float(theory["dp_bound_accuracy"])
        if bound >= NO_LIMIT_ACCURACY:
            # "no attacker can be right more than 100.0 %" read as a guarantee: say it is none.
            effect = (f"Computed from DP theory: over all the hours this person is seen, "
                      f"today's ε per hour sets no real limit (it allows an attacker to be "
                      f"right {_pct(bound)} of the time about them); only a much smaller ε "
                      "per hour, or fewer hours per person, brings that limit down.")
        else:
            effect = (f"Computed from DP theory: with today's ε no attacker can be right more "
                      f"than {_pct(bound)} of the time about this person; a smaller ε lowers "
                      "this limit.")
        steps.append(NextStep("Add more noise: a smaller ε per hour", effect, measured=True))
    sweep = theory.get("sweep") or {}
    observations = sweep.get("observations") or []
    best = _best_sweep_accuracy(sweep)
    if len(observations) >= 2 and best is not None and len(best) == len(observations):
        steps.append(NextStep(
            "Release fewer hours per person, or coarser places and hours",
            f"Measured: people seen in {_hours(observations[0])} were recognised "
            f"{_pct(best[0])} of the time, people seen in {_hours(observations[-1])} "
            f"{_pct(best[-1])} (50 % is guessing).", measured=True))
    size = config.get("aggregate_size")
    if is_finite(size):
        steps.append(NextStep(
            f"Count more people in each release (today {_count(size)})",
            f"{NOT_MEASURED}: one person's trace weighs less in a larger crowd; set a larger "
            "number of people on the Release step and run again to measure it.",
            measured=False))
    return steps


def _aggregates(result: dict) -> list[NextStep]:
    theory = result.get("theory") or {}
    config = result.get("config") or {}
    steps: list[NextStep] = []
    deterministic = theory.get("deterministic") or {}
    determined = deterministic.get("determined")
    if is_finite(determined) and int(determined) > 0:
        tables = Counter(t for record in result.get("exposed_records") or []
                         if isinstance(record, dict) and record.get("determined")
                         for t in record.get("tables") or [])
        named = ", ".join(name for name, _ in tables.most_common(3))
        steps.append(NextStep(
            "Suppress or coarsen the counts that pin people down"
            + (f" (most often in tables {named})" if named else ""),
            f"Measured: the tables prove the value of {_count(determined)} of "
            f"{_count(deterministic.get('targets'))} people attacked; the list of exposed "
            "records says which cells do it.", measured=True))
    sweeps = theory.get("sweeps") or {}
    for parameter, words in (("fraction", "Publish fewer counts"),
                             ("epsilon", "Add noise to each count")):
        sweep = sweeps.get(parameter) or {}
        values, shares = sweep.get("values") or [], sweep.get("determined_share") or []
        if len(values) >= 2 and len(shares) == len(values):
            steps.append(NextStep(
                words,
                "Measured: the share of people whose value the tables prove goes from "
                + ", ".join(f"{_pct(s)} at {_value(parameter, v)}"
                            for v, s in zip(values, shares, strict=True)) + ".",
                measured=True))
    mechanism = str(config.get("mechanism") or "none")
    if mechanism == "none" and "epsilon" not in sweeps:
        steps.append(NextStep(
            "Add noise to each count (differential privacy)",
            f"{NOT_MEASURED}: enter a few ε values under \"Sweeps\" on the Attacks & run "
            "step and run again to see how much noise it takes.", measured=False))
    return steps


def _model(result: dict) -> list[NextStep]:
    theory = result.get("theory") or {}
    steps: list[NextStep] = []
    defences = theory.get("defences")
    recommendation = (defences or {}).get("recommendation") if isinstance(defences, dict) else None
    if isinstance(recommendation, dict) and "met" in recommendation:
        # The defences section names the setting and its figures in full; the first page says
        # what was found in words (the setting's own name is technical).
        # Defence settings only, as the summary counts them (engine.defences.audit): counting
        # the undefended row too made "none of the 5" beside the summary's "none of the 4".
        tried = sum(1 for r in defences.get("rows") or []
                    if isinstance(r, dict) and r.get("defence") != "none")
        settings = f"{tried} defence settings tried" if tried else "defence settings tried"
        decision = recommendation.get("decision") or defences.get("decision")
        if recommendation.get("needed") is False and isinstance(decision, dict):
            # Issue 32 item 4: no defence unless the model as trained fails the limit
            # measurably; the same sentence as the summary and the Defences section.
            state = decision.get("state")
            need = decision.get("records_needed")
            action = {"within": "Keep the model as trained: no defence is needed for your "
                                "limit",
                      "not_measurable": (f"Audit with at least {need:,} records the model was "
                                         "not trained on, to tell whether a defence is needed"
                                         if is_finite(need) else
                                         "Measure the risk on more records before choosing a "
                                         "defence")}.get(
                state, "Audit with more records before choosing a defence")
            measured = state != "not_measurable"
            steps.append(NextStep(action, ("Measured: " if measured else f"{NOT_MEASURED}: ")
                                  + str(decision.get("sentence") or ""), measured=measured))
        elif recommendation.get("met"):
            cost = recommendation.get("accuracy_cost")
            steps.append(NextStep(
                "Train the model with the defence the Defences section recommends",
                f"Measured: of the {settings}, it keeps the attacks within your limit"
                + (f" and costs {_pct(cost)} of the model's accuracy on new records"
                   if is_finite(cost) and float(cost) > 0 else " without lowering the model's "
                   "accuracy on new records") + ".", measured=True))
        else:
            steps.append(NextStep(
                "Train the model with a stronger defence, or on more records",
                f"Measured: none of the {settings} keeps the attacks within your limit; the "
                "Defences section shows the closest and what to try next.", measured=True))
    else:
        steps.append(NextStep(
            "Train the model with a defence (weight decay, distillation, private training)",
            f"{NOT_MEASURED}: turn on the Defences step and run again to measure which "
            "setting lowers the risk and what it costs in accuracy.", measured=False))
    gap = theory.get("generalization_gap")
    if isinstance(gap, dict) and is_finite(gap.get("gap")) and float(gap["gap"]) > 0.02 \
            and is_finite(gap.get("train_accuracy")) and is_finite(gap.get("test_accuracy")):
        steps.append(NextStep(
            "Stop training earlier, or train on more records",
            f"Measured: the model is right on {_pct(gap['train_accuracy'])} of its training "
            f"records and on {_pct(gap['test_accuracy'])} of new ones — the difference these "
            "attacks exploit.", measured=True))
    return steps


_BY_TYPE = {"mechanism": _mechanism, "location": _location, "aggregates": _aggregates,
            "model": _model}


# ----------------------------------------------------------------------------- helpers

def _best_sweep_accuracy(sweep: dict) -> list[float] | None:
    """Per sweep point, the highest accuracy any attack measured (None if missing)."""
    columns = [[row.get("accuracy") for row in rows] for rows in
               (sweep.get("attacks") or {}).values() if isinstance(rows, list)]
    if not columns:
        return None
    best = []
    for values in zip(*columns, strict=False):
        numbers = [float(v) for v in values if is_finite(v)]
        if not numbers:
            return None
        best.append(max(numbers))
    return best


def _pct(value) -> str:
    return f"{float(value):.1%}" if is_finite(value) else "an unknown share"


def _count(value) -> str:
    return f"{int(value):,}" if is_finite(value) else "?"


def _hours(value) -> str:
    return "1 hour" if is_finite(value) and int(value) == 1 else f"{_count(value)} hours"


def _value(parameter: str, value) -> str:
    if parameter == "fraction":
        return f"{_pct(value)} of the counts"
    return f"ε = {float(value):.3g}" if is_finite(value) else str(value)
