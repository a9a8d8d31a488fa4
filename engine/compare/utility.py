"""What a candidate release costs the data's users, measured from its result (issue 34 item 1:
"measured, not guessed"). Lower is better for every figure, so the most useful candidate is
the one with the lowest cost.

* **DP mechanism** — the mean absolute error of a released value: the noise at the result's
  noise scale (``theory.noise_scale``), measured on :data:`DRAWS` draws of that mechanism
  (engine.mechanisms.sampling.sample_noise, the audit's own sampler) from the stream
  ``rng(seed, "compare-cost")`` — a stream of its own, so the audit's numbers are untouched.
  Its standard deviation is in the details. Exact theory for the check: Laplace E|X| = b,
  Gaussian E|X| = σ·√(2/π) (tests/engine/test_compare_theory.py).
* **Location counts** — the mean absolute error per released count and the share of counts
  changed (the released count, rounded to a whole number, differs from the true one), from the
  same draws of the game's cell noise (every released count carries noise of one scale,
  engine.games.location_setup.cell_noise_scale).
* **Count tables** — the share of the table's cells not published exactly: cells withheld
  (1 − released/possible queries, paper 003's fraction m/|D|) plus the released cells the noise
  changes after rounding; the mean absolute error per released cell and the share withheld are
  in the details. (The release clamps counts at zero, which can only lower the error; the
  figure leaves that out, so it never flatters a candidate.)
* **Model** — the test error (1 − test accuracy on records the model never saw,
  ``theory.model.test_accuracy``); the loss against the most accurate candidate is added by
  engine.compare.summary, which sees them all.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from engine.compare.types import CostFigure
from engine.mechanisms.sampling import sample_noise
from engine.results.loaded import load_result
from engine.runtime import rng

DRAWS = 200_000


@lru_cache(maxsize=64)     # a comparison is re-summarised after every candidate
def noise_error(mechanism: str | None, scale: float | None, seed: int) -> dict:
    """Mean absolute error, standard deviation and share of whole-number counts changed by the
    noise ``mechanism`` at ``scale``, measured on :data:`DRAWS` draws (module docstring). No
    noise (``mechanism`` "none" or no scale): all zero."""
    if not mechanism or mechanism == "none" or scale is None or not scale > 0:
        return {"mean_abs_error": 0.0, "std": 0.0, "share_changed": 0.0, "draws": 0}
    noise = sample_noise(mechanism, float(scale), DRAWS, rng(seed, "compare-cost"))
    noise = np.asarray(noise, dtype=np.float64)
    return {"mean_abs_error": float(np.mean(np.abs(noise))), "std": float(np.std(noise)),
            "share_changed": float(np.mean(np.rint(noise) != 0)), "draws": DRAWS}


def _fmt(x: float) -> str:
    return f"{x:.3g}" if x < 100 else f"{x:,.0f}"


def cost_of(result) -> CostFigure:
    """The :class:`CostFigure` of one result (a result dict or a loaded result)."""
    loaded = load_result(result)
    seed = int(loaded.seed or 0)
    kind = loaded.audit_type
    th = loaded.theory
    if kind in ("mechanism", "location"):
        m = noise_error(getattr(th, "mechanism", None), getattr(th, "noise_scale", None), seed)
        what = "released value" if kind == "mechanism" else "released count"
        sentence = (f"Each {what} is off by {_fmt(m['mean_abs_error'])} on average "
                    f"(standard deviation {_fmt(m['std'])}); {m['share_changed']:.0%} of "
                    "whole-number counts are changed by the noise."
                    if m["draws"] else f"No noise: every {what} is exact.")
        return CostFigure(metric="mean_abs_error", label=f"Mean error per {what}",
                          value=m["mean_abs_error"], unit="count", sentence=sentence,
                          details={**m, "mechanism": getattr(th, "mechanism", None),
                                   "noise_scale": getattr(th, "noise_scale", None)})
    if kind == "aggregates":
        rel = th.release
        m = noise_error(rel.mechanism, rel.noise_scale, seed)
        if rel.queries and rel.candidates:
            withheld = max(0.0, 1.0 - rel.queries / rel.candidates)
        elif rel.fraction:
            withheld = max(0.0, 1.0 - float(rel.fraction))
        else:
            withheld = 0.0
        value = withheld + (1.0 - withheld) * m["share_changed"]
        sentence = (f"{value:.0%} of the table's cells are not published exactly: "
                    f"{withheld:.0%} withheld, and the noise changes {m['share_changed']:.0%} "
                    f"of those released (off by {_fmt(m['mean_abs_error'])} on average).")
        return CostFigure(metric="cells_not_exact", label="Cells not published exactly",
                          value=value, unit="share", sentence=sentence,
                          details={**m, "withheld": withheld, "released_cells": rel.queries,
                                   "possible_cells": rel.candidates})
    if kind == "model":
        acc = th.model.test_accuracy
        if acc is None or not math.isfinite(acc):
            return CostFigure("test_error", "Test error", None, "share",
                              "The result holds no test accuracy.", {})
        return CostFigure(metric="test_error", label="Test error (1 − test accuracy)",
                          value=1.0 - float(acc), unit="share",
                          sentence=f"The model is right on {acc:.1%} of records it never saw.",
                          details={"test_accuracy": float(acc),
                                   "train_accuracy": th.model.train_accuracy})
    return CostFigure("unknown", "Cost", None, "", "This audit type has no cost measure.", {})
