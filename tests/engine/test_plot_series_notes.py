"""Accuracy against k: a measured point drawn above "most that ε-DP allows" gets a sentence
(issue 21). In the location demo (ε = 0.5 per epoch, 2,000 test releases per target) the
one-threshold and likelihood-ratio attacks measured 0.635 at k = 2, above the bound 0.622,
with 95 % intervals reaching down to 0.613: sampling error, not a broken guarantee. The bound
is right: two epochs of ε-DP allow no more than one does (k = 1 and 2 give the same
balanced accuracy, e^ε / (1 + e^ε) = 0.622). Issue 32 item 5: the points are judged together
(tests/engine/test_dp_bound_points.py); these results, saved without the counts, are judged
from their intervals."""

from __future__ import annotations

import math

from engine.plots import observations

BOUND = math.exp(0.5) / (1 + math.exp(0.5))


def location_result(lower_at_2: float) -> dict:
    return {"attacks": [{"name": "one_threshold", "label": "One-threshold attack (paper 000)"}],
            "theory": {"sweep": {
                "observations": [1, 2, 5],
                "dp_bound_accuracy": [BOUND, BOUND, 0.7206],
                "optimal_accuracy": [0.6106, 0.6209, 0.7028],
                "attacks": {"one_threshold": [
                    {"accuracy": 0.609, "accuracy_ci": [0.588, 0.631]},
                    {"accuracy": 0.635, "accuracy_ci": [lower_at_2, 0.656]},
                    {"accuracy": 0.652, "accuracy_ci": [0.631, 0.673]}]}}}}


def test_a_point_above_the_bound_within_its_interval_is_called_sampling_error():
    curves = observations.observations_series(location_result(0.613))
    attack = next(c for c in curves if c.key == "attack:one_threshold")
    assert attack.label == "Simple count check" and attack.lower == (0.588, 0.613, 0.631)
    note = observations.observations_note(location_result(0.613))
    assert note.startswith("1 of 3 measured points lies above the line of the most that ε-DP "
                           "allows (at k = 2), as chance alone gives")
    assert "none is a breach" in note and "See the warnings" not in note
    assert observations.dp_bound_warning(location_result(0.613)) == ""


def test_a_point_wholly_above_the_bound_is_said_to_contradict_the_claim():
    note = observations.observations_note(location_result(0.630))
    assert "Simple count check at k = 2 measured 63.5%" in note and "See the warnings" in note
    assert "k = 2 measured 63.5% where" in observations.dp_bound_warning(location_result(0.630))


def test_no_point_above_the_bound_needs_no_sentence():
    result = location_result(0.613)
    result["theory"]["sweep"]["attacks"]["one_threshold"][1] = {"accuracy": 0.60,
                                                                "accuracy_ci": [0.58, 0.62]}
    assert observations.observations_note(result) == ""

