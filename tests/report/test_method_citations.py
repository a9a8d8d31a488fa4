"""The methods appendix cites each attack's paper once (issue 20 walk-through: the catalogue's
reference and the result's own ``details.paper`` were both printed)."""

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


def test_a_catalogued_attack_cites_its_paper_once_and_an_unknown_one_keeps_its_source():
    result = {"attacks": [
        {"name": "btta", "label": "BTTA", "details": {"paper": "001, Alg. 1"}},
        {"name": "homemade", "label": "A homemade attack", "details": {"paper": "042"}}]}
    text = _text(method_common(result))
    assert text.count("001") == 1, text
    assert "Source: paper 042" in text
