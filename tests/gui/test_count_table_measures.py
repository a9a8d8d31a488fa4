"""The count-table audit's three measures of an attribute attack say what each is, in the
same words on screen, in the summary, the verdict's reasons and the report (issue 20's open
note; walk-through 2026-11-26: the results table's "Balanced accuracy 56.1 %" beside the
verdict's "51.4 %" read as one measure with two values).

* "Best guess right": how often the value named first is true (top-1 accuracy);
* "Best-guess score": that on the scale where a blind guess scores 50 % — the verdict's
  figure (chance-corrected top-1 accuracy), now a column of the table too;
* "Yes or no for each value": the balanced accuracy of the one-vs-rest decisions.

Each technical name is one point away: the column's tooltip and the glossary ("?" strip on
screen, the report's last page), which lists these terms for the count tables only."""

from __future__ import annotations

import re

import pypdf
import pytest

from engine.audits.aggregates import AggregatesConfig, run
from engine.games.aggregates_summary import chance_corrected_accuracy
from engine.report.pdf import write_report
from engine.wording import (
    BEST_GUESS_RIGHT,
    BEST_GUESS_SCALE,
    BEST_GUESS_SCORE,
    COUNT_TABLE_TERMS,
    VALUE_CHECKS_RIGHT,
)
from gui.job_runner import JobRunner
from gui.pages.aggregates_page import AggregatesPage
from tests.gui.test_aggregates_page import TINY_RUN

TECHNICAL = {BEST_GUESS_RIGHT: "top-1 accuracy", BEST_GUESS_SCORE: "chance-corrected top-1",
             VALUE_CHECKS_RIGHT: "balanced accuracy of the one-vs-rest"}


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    result = run(AggregatesConfig.from_dict({"audit_type": "aggregates", **TINY_RUN})).to_dict()
    path = tmp_path_factory.mktemp("report") / "report.pdf"
    write_report(result, path)
    text = "\n".join(p.extract_text() or "" for p in pypdf.PdfReader(str(path)).pages)
    return result, text


def headline_score(result: dict) -> tuple[dict, float]:
    name = result["verdict"]["headline"]["name"]
    attack = next(a for a in result["attacks"] if a["name"] == name)
    d = attack["details"]
    return attack, chance_corrected_accuracy(d["top1_accuracy"], d["chance"])


def test_summary_verdict_and_report_name_the_verdicts_score_alike(tiny):
    result, pdf = tiny
    attack, score = headline_score(result)
    figure = f"{score:.1%}"
    summary = result["summary"]
    reasons = " ".join(result["verdict"]["reasons"])
    said = f"{BEST_GUESS_SCORE.lower()} is {figure}"
    assert said in reasons, reasons
    assert f"{BEST_GUESS_SCORE.lower()} {figure}" in summary, summary
    # Which game the figure is about (issue 32 item 1), and the real people beside it.
    assert "When a person's 'race' is replaced by a value drawn at random" in summary
    assert "On the real 'race' of the" in summary and "the obvious guess" in summary
    assert BEST_GUESS_SCALE in summary and BEST_GUESS_SCALE in reasons
    # The report quotes the same figure under the same name, and names all three measures.
    flat = squash(pdf)
    assert squash(said) in flat                      # the verdict's reasons, section 7
    for term in (BEST_GUESS_RIGHT, BEST_GUESS_SCORE, VALUE_CHECKS_RIGHT):
        assert squash(term) in flat, term
    assert squash(f"{BEST_GUESS_SCORE.lower()} of {figure}") in flat   # section 5's words
    assert "Correctedforchance" not in flat
    # The glossary page explains each with its technical name.
    glossary = flat[flat.rindex("Glossary"):]
    # An entry may run over a page break: the page's footer then sits inside it.
    glossary = re.sub(r"PrivacyRiskAuditor[\d.]+—.*?Page\d+of\d+", "", glossary)
    for term, technical in TECHNICAL.items():
        assert squash(f"{term} — {COUNT_TABLE_TERMS[term]}") in glossary, term
        assert squash(technical) in squash(COUNT_TABLE_TERMS[term]), term


def test_the_screen_uses_the_same_words_with_the_technical_name_on_hover(qtbot, tiny):
    result, _ = tiny
    page = AggregatesPage(JobRunner())
    qtbot.addWidget(page)
    page.show_result(result)
    view = page.results_view
    table = view.metrics_table
    headers = {table.horizontalHeaderItem(c).text().split("\n")[0]: c
               for c in range(table.columnCount()) if not table.isColumnHidden(c)}
    assert "Balanced" not in headers           # the name that read as the verdict's figure
    for term, technical in TECHNICAL.items():
        assert term in headers, (term, list(headers))
        assert technical in table.horizontalHeaderItem(headers[term]).toolTip(), term
    # The score column holds the verdict's figure for the attack the verdict reads.
    attack, score = headline_score(result)
    first = 1 if (result.get("theory") or {}).get("optimal_attacker") else 0
    row = first + [a["name"] for a in result["attacks"]].index(attack["name"])
    assert table.cell_text(row, headers[BEST_GUESS_SCORE]).startswith(f"{100 * score:.1f} %")
    # The banner's summary and reasons, and its glossary strip with the three terms.
    banner = view.verdict_banner
    assert f"{BEST_GUESS_SCORE.lower()} {score:.1%}" in banner.summary_label.text()
    assert f"{BEST_GUESS_SCORE.lower()} is {score:.1%}" in banner.reasons_label.text()
    for term in TECHNICAL:
        assert term in banner.glossary.text()
        assert COUNT_TABLE_TERMS[term] in banner.glossary.tip(term)


def test_other_audits_glossaries_keep_their_terms(qtbot):
    """The three measures are the count tables' own: another audit's strip does not list
    them (a saved mechanism result after a count-table one)."""
    from gui.widgets.verdict_banner import VerdictBanner

    banner = VerdictBanner()
    qtbot.addWidget(banner)
    banner.set_verdict({"level": "low", "policy": "default", "reasons": []}, "s", "aggregates")
    assert BEST_GUESS_SCORE in banner.glossary.text()
    banner.set_verdict({"level": "low", "policy": "default", "reasons": []}, "s", "mechanism")
    assert BEST_GUESS_SCORE not in banner.glossary.text()
    assert "AUC" in banner.glossary.text()
