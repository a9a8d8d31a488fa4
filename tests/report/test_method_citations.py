"""The methods appendix cites each attack's paper once (issue 20 walk-through: the catalogue's
reference and the result's own ``details.paper`` were both printed): the result's own, which
names the sections the run used, else the catalogue's."""

from __future__ import annotations

from engine.report.sections import method_common


def _text(flowables) -> str:
    parts = []
    for f in flowables:
        for attr in ("text", "_cellvalues"):
            value = getattr(f, attr, None)
            if value:
                parts.append(str(value))
        for inner in getattr(f, "_flowables", None) or getattr(f, "_content", None) or []:
            parts.append(_text([inner]))
    return " ".join(parts)


def test_each_attack_cites_one_paper_the_results_own_first():
    result = {"attacks": [
        {"name": "btta", "label": "BTTA", "details": {"paper": "001, Alg. 1, Thm 2"}},
        {"name": "homemade", "label": "A homemade attack", "details": {"paper": "042"}}]}
    text = _text(method_common(result))
    assert text.count("001") == 1, text                     # not the catalogue's as well
    assert text.count("Paper 042") == 1, text
