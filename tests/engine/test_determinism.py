"""Same config and seed ⇒ the same result.json, byte for byte, for every audit type on the CPU
(issue 11 "Determinism"; ARCHITECTURE §3). Only what measures the clock may differ: the
creation time and runtimes. Each audit runs twice at a tiny size in this process; the JSON
text is compared after those fields are blanked, so a difference anywhere — a number, an
order, a warning — fails with its path."""

from __future__ import annotations

import json

import pytest

from engine.audits import aggregates as A
from engine.audits import location as L
from engine.audits import mechanism as M
from engine.audits import model as ML

TINY = {
    "mechanism": lambda: M.MechanismConfig(trials=2000, observations=3),
    "location": lambda: L.LocationConfig(
        city_users=400, city_epochs=48, aggregate_size=49, test_aggregates=400,
        shadow_aggregates=200, sweep_targets=1, sweep_test_aggregates=200,
        attacks=("one_threshold", "two_threshold"), target="observations",
        target_observations=10, seed=3),
    "aggregates": lambda: A.AggregatesConfig(
        census_records=60, census_auxiliary=400, max_targets=8, n_shadow=300,
        reconstructions=2, attacks=("desia", "cip_rand", "data_only"),
        mia_attacks=("desia_mia",)),
    "model": lambda: ML.ModelConfig(synthetic="mixed", synthetic_records=600, epochs=5,
                                    shadow_models=2, reference_models=2,
                                    attacks=("btta", "confidence", "ml_leaks", "lira_online",
                                             "rmia"), sensitive_feature="health"),
}
RUNNERS = {"mechanism": M.run, "location": L.run, "aggregates": A.run, "model": ML.run}
# Wall-clock measurements: the creation time, and every key ending in "_s" (the result's
# convention for seconds measured: runtime_s, training_runtime_s, median_s, p95_s).
def _is_clock(key: str) -> bool:
    return key == "created" or key.endswith("_s")


def _without_clock(value):
    if isinstance(value, dict):
        return {k: "<clock>" if _is_clock(k) else _without_clock(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


def _first_difference(a, b, path="result"):
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}"
            found = _first_difference(a[k], b[k], f"{path}.{k}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path} (length)"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


@pytest.mark.parametrize("audit", list(TINY))
def test_same_config_and_seed_give_the_same_result_json(audit):
    texts = []
    for _ in range(2):
        result = RUNNERS[audit](TINY[audit]()).to_dict()
        texts.append(json.dumps(_without_clock(result), sort_keys=True, ensure_ascii=False))
    if texts[0] != texts[1]:
        a, b = (json.loads(t) for t in texts)
        pytest.fail(f"{audit}: two runs differ at {_first_difference(a, b)}")
