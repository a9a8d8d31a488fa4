"""The model audit's config for the estimate benches: the engine's defaults with some keys
changed (the defences' keys merged into the defaults' rather than replacing them).

Apart so that bench/bench_estimates.py and bench/estimates_model_parts.py both read it without
importing each other (issue 33 item 2: the two were an import circle)."""

from __future__ import annotations


def model_config(**kw) -> dict:
    """A model audit's config as a dict: ``ModelConfig()``'s with ``kw`` set."""
    from engine.audits.model import ModelConfig
    d = {**ModelConfig().to_dict(), **kw}
    d["defences"] = {**ModelConfig().defences.to_dict(), **kw.get("defences", {})}
    return d
