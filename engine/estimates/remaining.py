"""The time left of a running job, re-estimated from its measured progress (issue 21,
"Estimates that hold, progress that tells").

The job reports ``(fraction of the whole job, message)``; the message names the step ("Sampling
aggregates: 3,000 of 20,000"). A step is a stretch of reports whose message is the same once
its numbers are set aside. Before the run the cost model gave an estimate of the whole job
(engine.estimates.estimate, already scaled by how busy the machine is).

How the time left is worked out at each report (:meth:`TimeLeft.update`):

* ``ratio`` — how the run compares with its estimate so far: measured seconds over the
  estimated seconds of the work done (the fraction done × the estimate), pulled towards 1
  early on by :data:`PRIOR_SECONDS` worth of "as estimated" (a ratio from the first 2 % of a
  job is noise).
* Once the current step has run long enough to measure its rate (:data:`MIN_STEP_SECONDS`
  and :data:`MIN_STEP_SHARE` of the step done, which needs a step that counts "N of M"), the
  time left is the step's measured rate × the rest of this step, plus the estimate of what
  comes after it (the job's fraction beyond where this step will end × the estimate) × ratio.
* Otherwise it is the rest of the job × the estimate × ratio; without an estimate, the
  job's own average rate (elapsed × left / done), and nothing before that can be measured.

What the user reads is smoothed (:data:`SMOOTHING_SECONDS`): the figure counts down with the
clock and moves towards each new re-estimate gradually. When it has to go *up* by more than
:data:`RISE_TOLERANCE`, ``re_estimating`` is set for :data:`RE_ESTIMATING_HOLD_SECONDS`, so
the label says so instead of jumping from "about 4 s" to "about 11 s" unexplained.

Pure and Qt-free: the caller passes the times in (seconds since the job started).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MIN_STEP_SECONDS = 2.0          # a step's rate is measured after this long in it …
MIN_STEP_SHARE = 0.05           # … and this share of the step done
PRIOR_SECONDS_SHARE = 0.1       # the estimate's weight in the ratio: 10 % of it "as estimated"
SMOOTHING_SECONDS = 3.0         # time constant of the displayed figure
RISE_TOLERANCE = 0.15           # a rise above 15 % (and 2 s) is announced as re-estimating
RISE_MIN_SECONDS = 2.0
RE_ESTIMATING_HOLD_SECONDS = 4.0

_COUNT = re.compile(r"([\d][\d,]*)\s+of\s+([\d][\d,]*)")
_NUMBER = re.compile(r"\d[\d,.]*")


@dataclass(frozen=True)
class Remaining:
    """What to show: seconds left (None: too early to say), the step's words, and whether the
    figure has just been raised (the label then says it is re-estimating)."""

    seconds: float | None
    step: str
    re_estimating: bool = False


def step_key(message: str) -> str:
    """The step a message belongs to: the message with its numbers set aside."""
    return _NUMBER.sub("#", " ".join(message.split())).strip().lower()


def step_share(message: str) -> float | None:
    """How much of its step a message says is done ("target 3 of 20" → 0.15), or None."""
    found = _COUNT.findall(message)
    if not found:
        return None
    done, total = (float(x.replace(",", "")) for x in found[-1])
    return min(max(done / total, 0.0), 1.0) if total > 0 else None


class TimeLeft:
    """Follows one run's progress reports and says how long is left (module docstring)."""

    def __init__(self, estimated_seconds: float | None = None) -> None:
        valid = estimated_seconds is not None and math.isfinite(estimated_seconds) \
            and estimated_seconds > 0
        self.estimate = float(estimated_seconds) if valid else None
        self._step = ""
        self._key: str | None = None
        self._step_start = (0.0, 0.0)           # (time, job fraction) when this step began
        self._shown: float | None = None
        self._shown_at = 0.0
        self._re_estimating_until = -math.inf

    # ------------------------------------------------------------ the raw re-estimate

    def ratio(self, now: float, fraction: float) -> float:
        """Measured over estimated seconds for the work done so far, pulled towards 1 early."""
        if self.estimate is None:
            return 1.0
        prior = PRIOR_SECONDS_SHARE * self.estimate
        return (now + prior) / (fraction * self.estimate + prior)

    def raw(self, now: float, fraction: float, message: str) -> float | None:
        """The time left from the reports so far, before smoothing (None: too early)."""
        fraction = min(max(fraction, 0.0), 1.0)
        if fraction >= 1.0:
            return 0.0
        step_time, step_fraction = now - self._step_start[0], fraction - self._step_start[1]
        share = step_share(message)
        if (share is not None and share >= MIN_STEP_SHARE and step_time >= MIN_STEP_SECONDS
                and share < 1.0 and step_fraction > 0):
            # This step's own rate for the rest of it; where it will end on the job's axis
            # from how far through it the job has moved; the rest as estimated × ratio.
            this_step = step_time * (1.0 - share) / share
            ends_at = min(1.0, self._step_start[1] + step_fraction / share)
            after = (1.0 - ends_at) * self._after_rate(now, fraction)
            return this_step + after
        if self.estimate is not None:
            return (1.0 - fraction) * self.estimate * self.ratio(now, fraction)
        if fraction >= 0.02 and now >= 0.5:
            return now * (1.0 - fraction) / fraction
        return None

    def _after_rate(self, now: float, fraction: float) -> float:
        """Seconds per unit of job fraction for the steps still to come."""
        if self.estimate is not None:
            return self.estimate * self.ratio(now, fraction)
        return now / fraction if fraction > 0 else 0.0

    # ------------------------------------------------------------ what the user reads

    def update(self, now: float, fraction: float, message: str = "") -> Remaining:
        """Take one progress report (``now``: seconds since the job started) and say what to
        show. A report without a message stays in the step before."""
        words = " ".join((message or "").split())
        if words:
            key = step_key(words)
            if key != self._key:
                self._key = key
                self._step_start = (now, min(max(fraction, 0.0), 1.0))
            self._step = words
        else:
            words = self._step
        raw = self.raw(now, fraction, words)
        if raw is None:
            return Remaining(None, self._step)
        raw = max(raw, 0.0)
        if self._shown is None:
            shown = raw
        else:
            counted_down = max(self._shown - (now - self._shown_at), 0.0)
            weight = 1.0 - math.exp(-max(now - self._shown_at, 0.0) / SMOOTHING_SECONDS)
            shown = counted_down + weight * (raw - counted_down)
            if shown > self._shown * (1.0 + RISE_TOLERANCE) and \
                    shown - self._shown > RISE_MIN_SECONDS:
                self._re_estimating_until = now + RE_ESTIMATING_HOLD_SECONDS
        self._shown, self._shown_at = shown, now
        return Remaining(shown, self._step, now < self._re_estimating_until)
