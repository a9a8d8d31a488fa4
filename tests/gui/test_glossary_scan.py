"""Every term on the results page and on the report's pages 1–3 is in the glossary (issue 32,
item 7).

For each audit type, one small run of its bundled example (the same attacks as the sample; the
model's with one setting of each defence, so the defences' names are on the page), then:

* the results page's visible text — every label, button, box title, table header and cell,
  and the charts' axis titles and legends (tooltips left out: they are the science one point
  away) — and the text of the PDF's pages 1–3 (pypdf);
* the technical terms in them: abbreviations (a word of two or more capitals or digits, "TPR",
  "SHA-256", "LiRA", "ML-Leaks"), a Greek symbol other than ε and δ ("σ", "θ", "∆"), and a
  curated list of jargon the papers use ("accountant", "shadow", "Neyman–Pearson", …);
* each found term must be named by a term of that audit's glossary
  (:func:`engine.wording.glossary_for`: the "?" strip on the page and the report's glossary
  page), by its name or by the abbreviation the name carries ("False-positive rate (FPR)").

Not terms: the risk levels written in capitals (HIGH, MEDIUM, LOW, RISK), the time zone (UTC),
the design document in a citation ("ARCHITECTURE §5", a reference like "paper 002 §3") and the
names the user's own data gives (the release's table names such as "P12A", read from
result.json's inputs, config and release description).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import replace

import pytest

from engine.audits import registry
from engine.defences.config import DefenceConfig
from engine.report.pdf import write_report
from engine.runtime import Progress
from engine.wording import glossary_for
from tests.engine.test_wording import small_demo

pypdf = pytest.importorskip("pypdf")

TYPES = ("mechanism", "location", "aggregates", "model")

#: An abbreviation: a word with a capital and at least one more capital or digit after its
#: first letter ("AUC", "LiRA", "DeLong", "SHA-256", "ML-Leaks", "DP-SGD"), not inside a word.
ABBREVIATION = re.compile(r"(?<![\w\-])[A-Z][A-Za-z]*[A-Z0-9][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*"
                          r"(?![\w])")
#: A Greek letter (or the increment sign the report writes for Δ) used as a symbol.
GREEK = re.compile(r"[\u0370-\u03ff\u1f00-\u1fff\u2206]")
#: The jargon of the papers that no capital letter gives away (matched at a word's start, any
#: case; "-" and "–" alike).
JARGON = ("accountant", "shadow", "meta-classifier", "Neyman–Pearson", "Clopper–Pearson",
          "DeLong", "Kairouz", "Laplace", "Gaussian", "empirical ε", "likelihood-ratio",
          "likelihood ratio", "quasi-identifier", "auxiliary", "stochastic module",
          "deterministic module", "reconstruction", "solver", "sensitivity", "clipping",
          "posterior", "entropy", "distillation", "balanced accuracy", "advantage",
          "randomised response", "generalization gap", "precision", "recall", "relu", "adam",
          "privacy-loss", "convolution", "contingency", "differential privacy", "membership",
          "|D|")
#: Words that are not terms (module doc).
NOT_TERMS = {"HIGH", "MEDIUM", "LOW", "RISK", "UTC"}
#: The design document named in a citation ("ARCHITECTURE §5"), a reference like "paper 002 §3".
CITATION = re.compile(r"\bARCHITECTURE(?= ?§)")
#: A report page's footer (the app, the audit's name, "Page 3 of 12"): it may fall inside a
#: glossary entry that runs onto the next page.
FOOTER = re.compile(r"Privacy Risk Auditor \d[^\n]*(?:\n[^\n]*)*?\nPage \d+ of \d+")


def normal(text: str) -> str:
    """Lower case, every dash a space, runs of space one space: "Neyman–Pearson",
    "likelihood ratio" and "likelihood-ratio" read alike, and so do the PDF's wrapped lines."""
    return re.sub(r"\s+", " ", re.sub("[–—‐-]", " ", str(text))).lower()


def terms_in(text: str, data_names: set[str]) -> set[str]:
    """The technical terms of ``text`` (module doc)."""
    text = CITATION.sub("", text)
    found = {m.group(0) for m in ABBREVIATION.finditer(text)} - NOT_TERMS - data_names
    found |= {m.group(0) for m in GREEK.finditer(text) if m.group(0) not in "εδ"}
    flat = normal(text)
    found |= {term for term in JARGON
              if re.search(r"(?<!\w)" + re.escape(normal(term)), flat)}
    return found


def covered(term: str, glossary: dict[str, str]) -> bool:
    """Whether a glossary term's name names ``term`` (at a word's start)."""
    pattern = re.compile(r"(?<!\w)" + re.escape(normal(term)))
    return any(pattern.search(normal(name)) for name in glossary)


def data_names(result: dict) -> set[str]:
    """The names the user's data and settings give (file names, the release's tables): in the
    result's inputs, config and release description."""
    text = json.dumps([result.get("inputs"), result.get("config"),
                       (result.get("theory") or {}).get("release")], default=str)
    return {m.group(0) for m in ABBREVIATION.finditer(text)}


def small_run(kind: str):
    """The bundled example at a small size (tests.engine.test_wording.small_demo, the count
    tables' smaller still); the model's with one setting of each defence and no re-run with
    reference models."""
    config = small_demo(kind)
    if kind == "aggregates":
        config = replace(config, n_shadow=100)
    if kind == "model":
        config = replace(config, defences=DefenceConfig(
            enabled=True, kcd_alphas=(1.0,), kcd_teachers=2, dmp_temperatures=(2.0,),
            l2_weight_decays=(), early_stopping_epochs=(), dpsgd_noise_multipliers=(1.0,),
            reference_models=0))
    return config


@functools.cache
def small_audit(kind: str) -> tuple[dict, tuple[str, ...]]:
    """The small run's result.json dict and every progress line it said, once per test
    process: this scan and tests/engine/test_message_scan.py read the same runs."""
    lines: list[str] = []
    result = registry.run_audit(small_run(kind),
                                progress=Progress(lambda _f, m: lines.append(m))).to_dict()
    return result, tuple(lines)


def visible_text(root) -> str:
    """Every text of ``root`` a reader sees without pointing at anything (module doc)."""
    import pyqtgraph as pg
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import (
        QAbstractButton,
        QGroupBox,
        QLabel,
        QTableWidget,
        QTextEdit,
        QWidget,
    )

    def plain(text: str) -> str:
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()

    out: list[str] = []
    for w in root.findChildren(QWidget):
        if not w.isVisibleTo(root):
            continue
        if isinstance(w, QLabel):
            out.append(plain(w.text()))
        elif isinstance(w, QAbstractButton):
            out.append(w.text())
        elif isinstance(w, QGroupBox):
            out.append(w.title())
        elif isinstance(w, QTextEdit):
            out.append(w.toPlainText())
        elif isinstance(w, QTableWidget):
            for c in range(w.columnCount()):
                if w.isColumnHidden(c):
                    continue
                head = w.horizontalHeaderItem(c)
                out.append(head.text() if head else "")
                for r in range(w.rowCount()):
                    item = w.item(r, c)
                    out.append(item.text() if item else "")
        elif isinstance(w, pg.PlotWidget):
            item = w.getPlotItem()
            out += [item.getAxis(side).labelText or "" for side in ("bottom", "left")]
            out.append(item.titleLabel.text or "")
            if item.legend is not None:
                out += [label.text for _, label in item.legend.items]
    return "\n".join(t for t in out if t)


@pytest.fixture(scope="module", params=TYPES)
def pages(request, qapp, tmp_path_factory):
    """(audit type, result, {"results page": text, "report pages 1–3": text, "whole report":
    text without the page footers})."""
    import pyqtgraph as pg

    from gui.app import configure_plots
    from gui.job_runner import JobRunner
    from gui.pages.registry import page_class

    configure_plots(pg)
    kind = request.param
    result, _ = small_audit(kind)
    path = tmp_path_factory.mktemp(kind) / "report.pdf"
    write_report(result, path)
    report = [p.extract_text() or "" for p in pypdf.PdfReader(str(path)).pages]
    page = page_class(kind)(JobRunner())
    page.show_result(result)
    screen = visible_text(page.results_view)
    page.deleteLater()
    return kind, result, {"results page": screen, "report pages 1–3": "\n".join(report[:3]),
                          "whole report": FOOTER.sub("", "\n".join(report))}


def test_the_scan_finds_the_terms_of_the_issue():
    """The scan itself catches the terms issue 32 names, and no ordinary word."""
    text = ("TPR at 1% FPR, empirical ε 3.1 from the accountant; LiRA, RMIA, BTTA, KCD, DMP, "
            "DP-SGD, MLP, the shadow models, DeLong and Clopper–Pearson intervals, σ = 1. "
            "HIGH RISK, run at 10:00 UTC on the people of block 7.")
    found = terms_in(text, set())
    for term in ("TPR", "FPR", "empirical ε", "accountant", "LiRA", "RMIA", "BTTA", "KCD", "DMP",
                 "DP-SGD", "MLP", "shadow", "DeLong", "Clopper–Pearson", "σ"):
        assert term in found, term
    assert not found & {"HIGH", "RISK", "UTC", "block", "people"}
    assert terms_in("the P12A table", {"P12A"}) == set()
    assert covered("FPR", {"False-positive rate (FPR)": ""})
    assert covered("Neyman-Pearson", {"Neyman–Pearson likelihood-ratio test": ""})
    assert not covered("RMIA", {"False-positive rate (FPR)": ""})


def test_every_term_on_the_page_and_the_first_report_pages_is_in_the_glossary(pages):
    kind, result, texts = pages
    glossary = glossary_for(kind)
    names = data_names(result)
    scanned = {where: texts[where] for where in ("results page", "report pages 1–3")}
    missing = {where: sorted(t for t in terms_in(text, names) if not covered(t, glossary))
               for where, text in scanned.items()}
    assert not any(missing.values()), (kind, missing)
    # The scan read real pages: each carries terms, and the glossary names them.
    assert all(terms_in(text, names) for text in scanned.values()), kind


def test_the_new_terms_reach_the_strip_and_the_report_glossary(pages, qtbot):
    """The "?" strip on the page and the report's glossary page list the same terms."""
    from gui.widgets.verdict_banner import VerdictBanner

    kind, result, texts = pages
    banner = VerdictBanner()
    qtbot.addWidget(banner)
    banner.set_verdict(result["verdict"], result.get("summary", ""), kind)
    for term, words in glossary_for(kind).items():
        assert f"{term} <b>?</b>" in banner.glossary.text(), term
        assert words in banner.glossary.tip(term), term
    # The report's glossary page prints each term with its explanation (only there is a term
    # followed by a dash and its words).
    report = squash(texts["whole report"])
    for term, words in glossary_for(kind).items():
        assert squash(f"{term} — {words}") in report, term


def squash(text: str) -> str:
    """Lower case without white space: the PDF wraps lines anywhere."""
    return re.sub(r"\s+", "", str(text)).lower()
