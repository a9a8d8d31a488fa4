"""The verdict's own error rates, as measured (issue 32 item 3).

``scripts/verdict_error_rates.py`` plays many seeded games of each audit type end to end, on
releases whose truth is known, and writes ``resources/verdict_error_rates.json``:

* **null** releases carry nothing about the people; any level above low is a false alarm;
* **leak** releases carry a known leak the policy puts at a stated level; a verdict below it
  is a miss.

Each case holds its games, the count (false alarms, or games that reached the level), the rate
and its 95 % Clopper–Pearson interval. ``tests/claims/test_verdict_error_rates.py`` re-plays the
same seeds and asserts this file equals what it measures, so the figures quoted here, in the
report's "what this audit cannot tell" section and in docs/methods/intervals.md cannot drift
from the code. This module only reads the bundled file (Qt-free, no measurement).
"""

from __future__ import annotations

import json
from functools import lru_cache

from engine.data.paths import APP_FOLDER
from engine.metrics import clopper_pearson

ERROR_RATES_FILE = APP_FOLDER / "resources" / "verdict_error_rates.json"

AUDIT_TYPES = ("mechanism", "location", "aggregates", "model")


@lru_cache(maxsize=1)
def _document() -> dict | None:
    try:
        return json.loads(ERROR_RATES_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _pooled(cases: list[dict]) -> dict | None:
    """Games and counts of ``cases`` added up, with the interval of the pooled share (the
    games are independent, so the pooled count is a sum of Bernoulli draws; its interval is
    for the average rate over the cases)."""
    if not cases:
        return None
    games = sum(int(c["games"]) for c in cases)
    count = sum(int(c["count"]) for c in cases)
    lo, hi = clopper_pearson(count, games)
    return {"games": games, "count": count, "rate": count / games, "ci95": [lo, hi],
            "cases": cases}


def error_rates(audit_type: str) -> dict | None:
    """The measured error rates of ``audit_type``'s verdict: ``{"null": pooled, "leak":
    pooled, "cases": [...]}`` where each pooled entry has games, count, rate, ci95 and its
    cases (each with its release and size in words, the expected level and the levels seen).
    None when the bundled file is missing or has no entry for this audit type."""
    doc = _document()
    cases = ((doc or {}).get("audits") or {}).get(audit_type)
    if not cases:
        return None
    return {"null": _pooled([c for c in cases if c.get("kind") == "null"]),
            "leak": _pooled([c for c in cases if c.get("kind") == "leak"]),
            "cases": cases}


def _pct(x: float) -> str:
    """A share as the docs and the report print it: one decimal, "%" after a space."""
    return f"{100 * x:.1f} %"


def _ci(ci) -> str:
    return f"95 % interval {_pct(ci[0])} to {_pct(ci[1])}"


def sentence(audit_type: str) -> str | None:
    """One plain sentence with the measured rates of ``audit_type`` (the report's "what this
    audit cannot tell" bullet and the docs quote it), or None without measurements."""
    rates = error_rates(audit_type)
    if rates is None:
        return None
    parts = []
    null, leak = rates["null"], rates["leak"]
    if null:
        parts.append(f"On {null['games']} releases that carry nothing about the people, the "
                     f"verdict said more than low risk in {null['count']} "
                     f"({_pct(null['rate'])}, {_ci(null['ci95'])})")
    if leak:
        levels = sorted({c["expected_level"] for c in leak["cases"]})
        releases = "; ".join(f"{c['release']}, at {c['size']}" for c in leak["cases"])
        parts.append(f"on {leak['games']} releases with a known leak — {releases} — it "
                     f"reached {' or '.join(levels)} risk in {leak['count']} "
                     f"({_pct(leak['rate'])}, {_ci(leak['ci95'])})")
    if not parts:
        return None
    return ("How often this verdict is wrong, measured on simulated releases. "
            + "; ".join(parts) + ". These are "
            "small simulated cases (the methods documentation lists them, section \"How "
            "often the verdict is wrong\"); a release of another size or kind may differ.")


AUDIT_NAMES = {"mechanism": "DP mechanism", "location": "Location data",
               "aggregates": "Count tables", "model": "Model"}


def markdown_table() -> str:
    """Every measured case as one Markdown table (docs/methods/intervals.md and
    docs/user_guide.md carry it verbatim; tests/engine/test_error_rates.py checks they do)."""
    doc = _document() or {}
    rows = ["| Audit | Release | Size | Games | Verdict | Count | Rate (95 % interval) |",
            "|---|---|---|---|---|---|---|"]
    for audit_type in AUDIT_TYPES:
        for c in (doc.get("audits") or {}).get(audit_type) or []:
            what = ("more than low (false alarm)" if c["kind"] == "null"
                    else f"reached {c['expected_level']}")
            rows.append(f"| {AUDIT_NAMES[audit_type]} | {c['release']} | {c['size']} | "
                        f"{c['games']} | {what} | {c['count']} | {_pct(c['rate'])} "
                        f"({_pct(c['ci95'][0])} to {_pct(c['ci95'][1])}) |")
    return "\n".join(rows)
