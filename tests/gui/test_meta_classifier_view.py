""""What the trained detector learned" never says none ran while one did (issue 20 item 2)."""

from __future__ import annotations

from gui.widgets.location_results import MetaClassifierView

SUMMARY = {"diagonal_dominance": 4.2, "opposite_sign_bias": 0.1, "shape": [200, 200]}


def mlp(name, weights=None):
    details = {"first_layer": SUMMARY, "architecture": "wide"}
    if weights is not None:
        details["first_layer_weights"] = weights
    return {"name": name, "label": f"MLP meta-classifier, {name}", "details": details}


def test_an_mlp_without_a_weight_picture_is_still_described(qtbot):
    view = MetaClassifierView()
    qtbot.addWidget(view)
    view.set_result({"attacks": [{"name": "one_threshold", "details": {}}, mlp("wide")]})
    text = view.summary_label.text()
    assert "was not part of this run" not in text
    assert "diagonal dominance" in text and "drawn only" in text
    assert not view.view.isVisibleTo(view)


def test_no_mlp_says_so_and_a_small_one_is_drawn(qtbot):
    view = MetaClassifierView()
    qtbot.addWidget(view)
    view.set_result({"attacks": [{"name": "one_threshold", "details": {}}]})
    assert "was not part of this run" in view.summary_label.text()
    view.set_result({"attacks": [mlp("fig11b", [[0.5, -0.1], [0.2, 0.7]])]})
    assert view.image.image.shape == (2, 2)
    assert "diagonal dominance" in view.summary_label.text()
