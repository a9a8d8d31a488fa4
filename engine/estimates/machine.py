"""The cost constants measured on the user's own computer ("Measure this machine", ``python
main.py calibrate``; issue 21, "Estimates that hold").

The built-in constants (engine/estimates/calibration.py) were measured on the reference
machine by ``python -m bench.bench_estimates --calibrate``, which runs dozens of whole audits
in fresh processes and takes far longer than a user will wait. Measuring this machine instead
runs one small audit of each type in this process (about 40 seconds in all on
a 2-core computer) and re-fits one constant per audit type: how many times the
reference machine's time this computer takes for that type's work (measured ÷ estimated with
the built-in constants, the slowdown other programs caused — measured by the probe of
engine.estimates.slowdown just before and after each audit — divided out, as
:func:`engine.estimates.machine_slowdown` multiplies it back in at estimate time). The estimates multiply every step's seconds by it
(:func:`apply_speed`); memory is not re-fitted (it does not depend on the processor).

The measuring itself is engine.estimates.measuring (it runs audits and reads the estimates,
which read this module). The factors are kept in ``machine_constants.json`` in the app's per-user data folder
(:func:`constants_path`), written atomically (engine.atomic_write). A damaged or unreadable
file is ignored with one sentence (:func:`load`): the built-in constants are used then.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import engine.estimates.calibration as calibration

FILE_NAME = "machine_constants.json"
FORMAT = 1
ORGANISATION, APPLICATION = "PrivacyRiskAuditor", "Privacy Risk Auditor"
FACTOR_RANGE = (0.02, 50.0)      # outside it a measurement went wrong: it is not kept
# The kinds of audit in the words the pages use (their run labels), for the sentences.
KIND_WORDS = {"mechanism": "mechanism audits", "location": "location audits",
              "aggregates": "count-tables audits", "model": "model audits"}


@dataclass(frozen=True)
class MachineConstants:
    """Speed factors measured on this computer, per audit type, and when."""

    factors: dict[str, float]
    measured_on: str             # ISO date
    machine: str = ""

    def to_dict(self) -> dict:
        return {"format": FORMAT, "measured_on": self.measured_on, "machine": self.machine,
                "factors": dict(sorted(self.factors.items()))}


def app_data_folder() -> Path:
    """The app's per-user data folder, where Qt's AppDataLocation puts it (the GUI's logs sit
    there too), without Qt: ``PRA_APP_DATA`` when set (tests, a portable install)."""
    override = os.environ.get("PRA_APP_DATA", "").strip()
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / ORGANISATION / APPLICATION


def constants_path() -> Path:
    return app_data_folder() / FILE_NAME


# --------------------------------------------------------------------------- reading

_cache: dict[str, tuple[tuple, MachineConstants | None, str | None]] = {}


def load(path: Path | None = None) -> tuple[MachineConstants | None, str | None]:
    """The measured constants and, when a file is there but cannot be used, one sentence
    saying so (the built-in constants are used then). Re-read only when the file changes."""
    path = Path(path) if path is not None else constants_path()
    try:
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    except OSError:
        return None, None                       # never measured: the built-in constants
    cached = _cache.get(str(path))
    if cached is not None and cached[0] == stamp:
        return cached[1], cached[2]
    try:
        constants, problem = _parse(json.loads(path.read_text(encoding="utf-8"))), None
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError) as exc:
        constants = None
        problem = (f"The speed measured on this computer ({path}) could not be read "
                   f"({_why(exc)}), so the estimates use the built-in times; measure this "
                   f"machine again to replace the file.")
    _cache[str(path)] = (stamp, constants, problem)
    return constants, problem


def _why(exc: Exception) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or "it cannot be opened"
    if isinstance(exc, (UnicodeDecodeError, json.JSONDecodeError)):
        return "it is damaged"
    return str(exc) or "it is damaged"


def _parse(data) -> MachineConstants:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("it was written by another version of the app or is damaged")
    factors = data["factors"]
    if not isinstance(factors, dict):
        raise ValueError("it is damaged")
    kept = {}
    for name, value in factors.items():
        if not isinstance(value, (int, float)) or isinstance(value, bool) \
                or not math.isfinite(value) \
                or not FACTOR_RANGE[0] <= value <= FACTOR_RANGE[1]:
            raise ValueError("it holds a speed that cannot be right")
        kept[str(name)] = float(value)
    measured_on = str(data["measured_on"])
    datetime.date.fromisoformat(measured_on)
    return MachineConstants(kept, measured_on, str(data.get("machine", "")))


def speed_factor(audit_type: str, path: Path | None = None) -> float:
    """How many times the reference machine's time this computer takes for ``audit_type``
    (1 when it was not measured)."""
    constants, _ = load(path)
    return constants.factors.get(audit_type, 1.0) if constants is not None else 1.0


def apply_speed(cost, audit_type: str, path: Path | None = None):
    """``cost`` (a CostEstimate) with every step's seconds × this machine's factor."""
    from dataclasses import replace

    factor = speed_factor(audit_type, path)
    if factor == 1.0:
        return cost
    parts = tuple(replace(p, seconds=p.seconds * factor) for p in cost.parts)
    return replace(cost, parts=parts, seconds=cost.seconds * factor)


def in_use(path: Path | None = None) -> str:
    """Which constants the estimates use, in a sentence for the user."""
    constants, problem = load(path)
    if constants is not None:
        day = datetime.date.fromisoformat(constants.measured_on)
        return f"The time estimates use times measured on this machine on {day.day} {day:%B %Y}."
    built_in = ("The time estimates use built-in times, measured on a reference computer "
                f"({calibration.REFERENCE_MACHINE.split(', measured')[0]}); measuring this "
                "machine fits them to this one.")
    return f"{problem} {built_in}" if problem else built_in
