"""How long an audit will take and how much memory it will need, before it runs (issue 11,
"Long jobs").

Every audit type has a cost model in ``engine/estimates/<audit type>.py``: a function
``parts(config) -> (resident, [CostPart, ...])`` that turns the config's sizes (trials and
observations, people and aggregates, targets and shadow datasets, records × epochs × models)
into seconds and bytes with constants measured by ``bench/bench_estimates.py`` on the reference
machine (``engine/estimates/calibration.py`` says which one and when). Nothing is run and no
data file is read beyond its first megabyte (:mod:`engine.estimates.probe`), so the estimate is
instant and can follow the form as the user types.

What the estimate is for:

* the GUI shows it beside the Run button and asks before a run estimated above
  :data:`CONFIRM_SECONDS` (or above half the free memory);
* the command line prints it and needs ``--yes`` above the same line;
* a run whose estimated peak memory does not fit in the memory the computer has free is
  refused before it starts, with the setting that drives the memory named (its key), so the
  user lowers that instead of finding out an hour later.

Peak memory is what the run adds to the app (the app itself with its libraries takes about
:data:`APP_BASELINE_BYTES` before any run): the data the run holds throughout (``resident``)
plus the largest part's working memory (parts run one after another).
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field, replace

from engine.audits.registry import AUDIT_TYPES
from engine.data.errors import InputError
from engine.estimates import calibration
from engine.estimates.machine import apply_speed
from engine.estimates.slowdown import METER as SLOWDOWN_METER

CONFIRM_SECONDS = 600.0          # ask before runs estimated above 10 minutes
# The range an estimate is shown as, around the quiet-machine figure: held-out runs measured
# 0.3-1.5 times their estimate on a quiet machine (docs/dev/hardening_status.md, estimates).
RANGE = (0.6, 1.6)
# The threads each audit's heavy steps run on, for the slowdown other programs cause them
# (engine.estimates.slowdown.slowdown_for): the model audit trains with torch on every
# processor; the others' heavy steps (numpy's draws, scikit-learn's fits, one CP-SAT worker,
# the location meta-classifiers' small networks) on one. None: one per processor.
RUN_THREADS: dict[str, int | None] = {"model": None}
BUSY_FACTOR = 1.3                # from this slowdown on, the sentence says the machine is busy
CONFIRM_MEMORY_SHARE = 0.5       # ... or above half the free memory
APP_BASELINE_BYTES = 350e6       # the app with numpy, torch and its libraries loaded (measured)


@dataclass(frozen=True)
class CostPart:
    """One step of a run: what it is in words, its time and its working memory."""

    what: str                   # "Training 25 models: 1.2 million records × epochs"
    seconds: float
    bytes: float                # working memory of this step (freed when it ends)
    setting: str = ""           # the config key that scales it most ("shadow_models")
    name: str = ""              # a short id of the step ("training", "attacks"), for benches


@dataclass(frozen=True)
class CostEstimate:
    """A run's estimated time and peak memory, with the steps they come from."""

    audit_type: str
    seconds: float
    peak_bytes: float
    resident_bytes: float       # data held for the whole run
    resident_setting: str       # the key that sizes the resident data
    parts: tuple[CostPart, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)
    # How much slower than on a quiet machine the run is expected to go, from the share of the
    # processors other programs leave it, measured when it is estimated (machine_slowdown); 1
    # on a quiet machine.
    # ``seconds`` stays the quiet-machine figure; what the user is told is ``expected_seconds``.
    slowdown: float = 1.0

    @property
    def expected_seconds(self) -> float:
        return self.seconds * self.slowdown

    @classmethod
    def from_parts(cls, audit_type: str, resident: float, resident_setting: str,
                   parts: list[CostPart], notes: list[str] | tuple[str, ...] = ()
                   ) -> CostEstimate:
        parts = tuple(p for p in parts if p.seconds > 0 or p.bytes > 0)
        seconds = sum(p.seconds for p in parts)
        working = max((p.bytes for p in parts), default=0.0)
        return cls(audit_type, float(seconds), float(resident + working), float(resident),
                   resident_setting, parts, tuple(notes))

    def memory_setting(self) -> str:
        """The key to lower when memory is short: the biggest consumer's setting."""
        biggest = max(self.parts, key=lambda p: p.bytes, default=None)
        if biggest is not None and biggest.bytes >= self.resident_bytes and biggest.setting:
            return biggest.setting
        return self.resident_setting or (biggest.setting if biggest else "")

    def seconds_of(self, *names: str) -> float:
        return sum(p.seconds for p in self.parts if p.name in names)

    def slowest_part(self) -> CostPart | None:
        return max(self.parts, key=lambda p: p.seconds, default=None)

    def sentence(self) -> str:
        """"About 3 to 6 minutes and 1.2 GB of memory (most of the time: training 25 models)."
        — a range, since a cost model is rough (:data:`RANGE`), scaled by how busy the
        machine is, which the sentence then says."""
        duration = duration_range(self.expected_seconds)
        text = duration[0].upper() + duration[1:] + f" and {format_bytes(self.peak_bytes)} of memory"
        slowest = self.slowest_part()
        if slowest is not None and self.seconds >= 30 and slowest.seconds > 0.5 * self.seconds:
            text += f" (most of the time: {slowest.what[0].lower() + slowest.what[1:]})"
        text += "."
        if self.slowdown >= BUSY_FACTOR:
            text += (f" The computer is busy with other work, so this counts about "
                     f"{self.slowdown:.1f} times the time on a quiet machine.")
        return text

    def to_dict(self) -> dict:
        return {"seconds": round(self.seconds, 1), "peak_bytes": int(self.peak_bytes),
                "resident_bytes": int(self.resident_bytes),
                "parts": [{"name": p.name, "what": p.what, "seconds": round(p.seconds, 2),
                           "bytes": int(p.bytes), "setting": p.setting} for p in self.parts],
                "notes": list(self.notes), "reference_machine": reference_machine()}


def reference_machine() -> str:
    return calibration.REFERENCE_MACHINE


def constants(audit_type: str) -> dict:
    """The measured constants of one cost model, read at each call (so that a calibration
    run sees the constants it has just measured); which table is the audit type's registry
    entry's ``calibration``."""
    try:
        table = AUDIT_TYPES[audit_type].constants()
    except AttributeError:           # a calibration file written before this audit type
        table = None
    if not table:
        raise RuntimeError(f"the {audit_type} cost model is not calibrated; run "
                           f"`python -m bench.bench_estimates --calibrate {audit_type}`")
    return table


def estimate(config, *, slowdown: float | None = None, machine: bool = True) -> CostEstimate:
    """The cost of running ``config`` (any audit type's config), from its sizes alone, with the
    slowdown other programs cause now (:func:`machine_slowdown`; pass 1.0 for the quiet
    figure), and this computer's measured speed where it was measured
    (engine.estimates.machine; ``machine=False``: the built-in constants alone). The cost
    model is the audit type's registry entry's ``estimate``."""
    cost = AUDIT_TYPES[config.audit_type].cost_model()(config)
    if machine:
        cost = apply_speed(cost, config.audit_type)
    if slowdown is None:
        slowdown = machine_slowdown(threads=RUN_THREADS.get(config.audit_type, 1))
    return replace(cost, slowdown=float(slowdown))


def machine_slowdown(*, fresh: bool = False, threads: int | None = None) -> float:
    """How much slower than on a quiet machine a run started now is expected to go: the share
    of the processors other programs leave to this one, measured by a short probe
    (engine.estimates.slowdown; one reading serves a few seconds, ``fresh`` measures anew) —
    1 on a quiet machine.

    Not the load average nor the count of programs running (issue 33 item 5): on a machine at
    load 7–18 the factor (load + cores) / cores made estimates 3–30 times too long, since the
    load counts threads this process does not compete with. ``threads``: the run's threads
    (engine.estimates.slowdown.slowdown_for; None: one per processor)."""
    return SLOWDOWN_METER(fresh=fresh, threads=threads)


# --------------------------------------------------------------------------- the checks

def available_memory_bytes() -> float | None:
    """Memory the operating system can give a new allocation now (free + reclaimable cache),
    or None where it cannot be read."""
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/meminfo", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("MemAvailable:"):
                        return float(line.split()[1]) * 1024
        if sys.platform == "win32":
            import ctypes

            class _Status(ctypes.Structure):
                _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong),
                            ("total_phys", ctypes.c_ulonglong),
                            ("avail_phys", ctypes.c_ulonglong),
                            ("total_page", ctypes.c_ulonglong),
                            ("avail_page", ctypes.c_ulonglong),
                            ("total_virtual", ctypes.c_ulonglong),
                            ("avail_virtual", ctypes.c_ulonglong),
                            ("avail_extended", ctypes.c_ulonglong)]

            status = _Status()
            status.length = ctypes.sizeof(_Status)
            if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
                return float(status.avail_phys)
            return None
        # macOS and other Unixes: total physical memory; free pages undercount the cache a
        # new allocation can reclaim, so the total is the honest ceiling there.
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (OSError, ValueError, AttributeError):
        return None


@dataclass(frozen=True)
class Preflight:
    """What to do before starting a run: refuse it, ask first, or just go."""

    estimate: CostEstimate
    refusal: InputError | None      # the run cannot fit: do not start it
    concern: str | None             # long or memory-hungry: ask (GUI) / need --yes (CLI)

    @property
    def notes(self) -> tuple[str, ...]:
        """Warnings to show before the run whether or not it asks (e.g. a quasi-identifier
        with too many values to audit as it is): the GUI's run bar and the CLI print them."""
        return self.estimate.notes

    @property
    def question(self) -> str | None:
        if self.concern is None:
            return None
        return " ".join((self.concern, *self.notes, "Start it anyway?"))


def preflight(cost: CostEstimate, available: float | None = None, *,
              confirm_seconds: float | None = None) -> Preflight:
    """Refuse a run that would not fit in memory; ask before a long or memory-hungry one.

    ``available``: free memory in bytes (default: :func:`available_memory_bytes`);
    ``confirm_seconds``: the line above which to ask (default :data:`CONFIRM_SECONDS`)."""
    if available is None:
        available = available_memory_bytes()
    if confirm_seconds is None:
        confirm_seconds = CONFIRM_SECONDS
    key = cost.memory_setting()
    if available is not None and cost.peak_bytes > available:
        lower = f"lower '{key}'" if key else "lower the sizes of the run"
        return Preflight(cost, InputError(
            f"This run would need about {format_bytes(cost.peak_bytes)} of memory but the "
            f"computer has {format_bytes(available)} free: {lower} (the biggest user of memory: "
            f"{_biggest_memory_words(cost)}), or close other programs.", key=key or None), None)
    reasons = []
    if cost.expected_seconds > confirm_seconds:
        reasons.append(f"take {duration_range(cost.expected_seconds)}")
    if available is not None and cost.peak_bytes > CONFIRM_MEMORY_SHARE * available:
        reasons.append(f"use {format_bytes(cost.peak_bytes)} of the "
                       f"{format_bytes(available)} of memory free")
    concern = None
    if reasons:
        slowest = cost.slowest_part()
        concern = (f"This run is estimated to {' and '.join(reasons)}"
                   + (f"; most of the time goes to {slowest.what[0].lower()}"
                      f"{slowest.what[1:]} ('{slowest.setting}')" if slowest and slowest.setting
                      and cost.expected_seconds > confirm_seconds else "") + ".")
    return Preflight(cost, None, concern)


def _biggest_memory_words(cost: CostEstimate) -> str:
    biggest = max(cost.parts, key=lambda p: p.bytes, default=None)
    if biggest is None or biggest.bytes < cost.resident_bytes:
        return f"the data, {format_bytes(cost.resident_bytes)}"
    return f"{biggest.what[0].lower()}{biggest.what[1:]}, {format_bytes(biggest.bytes)}"


# --------------------------------------------------------------------------- words

def format_duration(seconds: float) -> str:
    """"under 10 seconds", "40 seconds", "3 minutes", "1.5 hours" — estimates are rough, so
    the words are too."""
    if not math.isfinite(seconds):
        return "an unknown time"
    if seconds < 10:
        return "under 10 seconds"
    if seconds < 90:
        return f"{10 * round(seconds / 10):.0f} seconds"
    if seconds < 5400:
        return f"{round(seconds / 60):.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


def duration_range(seconds: float) -> str:
    """"about 2 to 5 minutes", "under 10 seconds", "about 40 seconds to 2 minutes": the
    estimate's :data:`RANGE` around ``seconds``, in words."""
    lo, hi = RANGE[0] * seconds, RANGE[1] * seconds
    if hi < 10:
        return "under 10 seconds"
    low, high = format_duration(max(lo, 10.0)), format_duration(hi)
    if low == high:
        return "about " + high
    low_number, _, low_unit = low.partition(" ")
    high_number, _, high_unit = high.partition(" ")
    if low_unit == high_unit:
        return f"about {low_number} to {high}"
    return f"about {low} to {high}"


def about_duration(seconds: float) -> str:
    """"about 3 minutes", "under 10 seconds" (never "about under 10 seconds")."""
    words = format_duration(seconds)
    return words if words.startswith("under") else "about " + words


def format_bytes(n: float) -> str:
    if n < 1e9:
        return f"{max(n, 1e6) / 1e6:,.0f} MB"
    return f"{n / 1e9:,.1f} GB"
