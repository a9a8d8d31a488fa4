"""Plain words first (issue 20, "What must hold").

* A jargon scan: the summary, the verdict's reasons and the report's first page of every audit
  type carry no paper citation, section sign, algorithm/table/figure number, code identifier,
  attack acronym or Greek letter other than ε and δ; the methods section keeps them.
* A cross-read per audit type: the strongest attack of result.json's ``verdict.headline`` and
  the figures quoted for it are the same in the summary and in the report's text.

Each audit runs its bundled example (engine.audits.registry.demo_config: the same attacks)
at small sizes, once per module; the model's defences step is left out (its sentences belong
to the defences work).
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from engine.audits import registry
from engine.defences.config import DefenceConfig
from engine.numbers import whole_percent
from engine.wording import ATTACKS, GLOSSARY, attack_words, first_time_notes, plain_name

pypdf = pytest.importorskip("pypdf")

TYPES = ("mechanism", "location", "aggregates", "model")


def small_demo(kind: str):
    config = registry.demo_config(kind)
    if kind == "mechanism":
        return replace(config, trials=2000)
    if kind == "location":
        return replace(config, city_users=600, city_epochs=96, aggregate_size=99,
                       test_aggregates=1000, shadow_aggregates=400, sweep_targets=2,
                       sweep_test_aggregates=400)
    if kind == "aggregates":
        return replace(config, max_targets=6, n_shadow=400, reconstructions=2)
    return replace(config, synthetic_records=1200, epochs=8, shadow_models=2,
                   reference_models=4, defences=DefenceConfig(enabled=False))


@pytest.fixture(scope="module", params=TYPES)
def audit(request, tmp_path_factory):
    """(result dict, text of the report's first page, text of the whole report)."""
    from engine.report.pdf import write_report

    result = registry.run_audit(small_demo(request.param)).to_dict()
    path = tmp_path_factory.mktemp(request.param) / "report.pdf"
    write_report(result, path)
    pages = [p.extract_text() or "" for p in pypdf.PdfReader(str(path)).pages]
    return result, pages[0], "\n".join(pages)


# --------------------------------------------------------------------------- the jargon scan

#: Attack acronyms and the names of the papers' authors (a citation without its year).
ACRONYMS = ("LiRA", "RMIA", "BTTA", "CBTTA", "DeSIA", "CIP", "RAP", "MLP", "AIA", "MIA", "LR",
            "SMA", "KCD", "DMP", "DP-SGD", "ML-Leaks", "Shokri", "Carlini", "Zarifzadeh",
            "Yeom", "Salem", "Mittal", "Dwork", "Neyman", "Pearson", "Annamalai", "Pyrgelis")

JARGON = [
    ("a paper citation", re.compile(r"et al\.|\bpapers? \d|\(\s*[A-Z][a-z]+[^()]*\b(?:19|20)\d\d"
                                    r"\s*\)")),
    ("a section sign", re.compile("§")),
    ("an algorithm, table, figure or theorem number",
     re.compile(r"\b(?:Alg(?:orithm)?|Table|Tab|Fig(?:ure)?|Thm|Theorem|Eq|Cor|App)\.? ?\d")),
    ("a snake_case identifier", re.compile(r"\b[A-Za-z]+_[A-Za-z0-9_]+\b")),
    ("a CamelCase identifier", re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b|\b[A-Z][a-z]+[A-Z][A-Za-z]*\b")),
    ("an attack acronym or author", re.compile(
        r"(?<![A-Za-z])(?:" + "|".join(re.escape(a) for a in ACRONYMS) + r")(?![A-Za-z])")),
    ("a Greek letter other than ε and δ", re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]")),
]


def jargon(text: str) -> list[str]:
    """Each piece of jargon in ``text``, with what kind it is."""
    found = []
    for kind, pattern in JARGON:
        for m in pattern.finditer(text):
            if kind.startswith("a Greek") and m.group(0) in "εδ":
                continue
            found.append(f"{kind}: {m.group(0)!r}")
    return found


def test_the_scan_finds_what_the_papers_write():
    # The scan itself must catch the jargon the pages carried before issue 20.
    for text in ("with DeSIA (blind guessing: 50%)", "RMIA offline (Zarifzadeh et al. 2024)",
                 "(paper 003 §3)", "MLP meta-classifier, k → k sigmoid → 1",
                 "Alg. 2 + 3", "L2 λ = 0.01", "noise σ", "guesses their 'hispanic_origin'",
                 "the ModelConfig", "Neyman–Pearson optimal attacker"):
        assert jargon(text), text
    assert not jargon("with ε = 1 per observation and δ = 1e-5, right 92% of the time")


def test_summary_reasons_and_first_page_speak_plainly(audit):
    result, first_page, _ = audit
    texts = {"summary": result["summary"],
             "reasons": " ".join(result["verdict"]["reasons"]),
             "first page": first_page}
    problems = {where: jargon(text) for where, text in texts.items()}
    assert not any(problems.values()), problems


def test_the_methods_section_keeps_the_science(audit):
    result, _, whole = audit
    squashed = squash(whole)
    technical = [attack_words(a["name"], a.get("label")).technical for a in result["attacks"]]
    assert any(squash(t.split(" (")[0]) in squashed for t in technical), technical
    assert "glossary" in squashed and squash("Members spotted while wrongly accusing") in squashed


def settings_labels(result: dict) -> list[tuple[str, str]]:
    """(setting, meaning) of each row of section 2's settings tables (first row "Parameter")."""
    from reportlab.platypus import Table

    hooks = registry.AUDIT_TYPES[result["audit_type"]].sections()()
    rows = []
    for flowable in hooks.audited(result):
        if not isinstance(flowable, Table):
            continue
        cells = [[getattr(c, "text", str(c)) for c in row] for row in flowable._cellvalues]
        if cells and cells[0][0] == "Parameter":
            rows += [(row[0], row[-1]) for row in cells[1:]]
    return rows


#: A symbol standing in a setting's name outside brackets ("Sensitivity Δ", "Trials N per
#: hypothesis", "Train accuracy p0"): a lone letter other than the word "a" (nor the "s" of
#: "attacker's"), a letter and a digit, Δ or |D|.
BARE_SYMBOL = re.compile(r"(?<![\w|'’])(?:[B-Zb-z]\d?|[Aa]\d|[Δ∆]|\|D\|)(?![\w|])")


def bare_symbols(label: str) -> list[str]:
    """The symbols of ``label`` outside brackets, markup removed."""
    plain = re.sub(r"\([^()]*\)", "", re.sub(r"<[^>]+>", "", label))
    return BARE_SYMBOL.findall(plain)


def test_settings_table_uses_the_forms_plain_words(audit):
    """Section 2 names each setting as the page's form does: the plain name first, a symbol
    only in brackets after it, and no configuration key in its meaning."""
    result, _, _ = audit
    rows = settings_labels(result)
    assert len(rows) >= 5
    bare = [label for label, _ in rows if bare_symbols(label)]
    keys = [meaning for _, meaning in rows
            if re.search(r"\b[a-z]+_[a-z_]+\b", re.sub(r"<[^>]+>", "", meaning))]
    assert not bare and not keys, (bare, keys)


# --------------------------------------------------------------------------- the cross-read

def squash(text: str) -> str:
    """Text without white space and in lower case: the PDF wraps lines anywhere."""
    return re.sub(r"\s+", "", str(text)).lower()


def cross_read(result: dict, report_text: str) -> list[str]:
    """Where the summary or the report disagree with result.json's headline: the strongest
    attack's name, or a figure quoted for it. Empty when every place tells one story."""
    problems = []
    head = result["verdict"]["headline"]
    name = head.get("plain_name") or plain_name(head["name"])
    summary, report = squash(result["summary"]), squash(report_text)
    if squash(name) not in summary:
        problems.append(f"the summary does not name {name!r}")
    if squash(name) not in report:
        problems.append(f"the report does not name {name!r}")
    # No other attack is called the strongest in the report's sentences or the summary (the
    # charts' legends name curves by their technical label, engine.report.charts).
    for where, text in (("report", report_text), ("summary", result["summary"])):
        for m in re.finditer(r"(?<!band of the )strongest attack(?: run)?(?: is the|,|\s*\()"
                             r"\s*([^,.;()]+)", re.sub(r"\s+", " ", text)):
            # The capture stops at "(": compare the name without its bracketed part
            # ("Best possible attacker (simulated)").
            bare = re.sub(r"\s*\([^)]*\)", "", name)
            if not squash(m.group(1)).startswith(squash(bare)):
                problems.append(f"the {where} calls {m.group(1).strip()!r} the strongest")
    if head.get("tpr_from") is not None:
        # The verdict's rate: quoted in the summary and in the report's reasons.
        tpr = f"{head['verdict_tpr']:.1%}"
        if tpr not in summary or tpr not in report:
            problems.append(f"the verdict's rate {tpr} is not quoted in both")
    accuracy = whole_percent(head["accuracy"])
    for quoted in re.findall(r"strongestattackrunisthe[^,]*,right([\d.]+%)", summary):
        if quoted != accuracy:
            problems.append(f"the summary quotes {quoted} right for the strongest, not {accuracy}")
    for auc in re.findall(r"auc(\d\.\d\d)", summary.split("whetherapersonis")[0]):
        if auc != f"{head['auc']:.2f}":
            problems.append(f"the summary quotes AUC {auc}, the headline {head['auc']:.2f}")
    if head.get("auc") is not None and f"{head['auc']:.3f}" not in report:
        problems.append(f"the report does not quote the AUC {head['auc']:.3f}")
    if head.get("tpr") is not None and f"{100 * head['tpr']:.1f}%" not in report:
        problems.append(f"the report does not quote the rate {100 * head['tpr']:.1f}%")
    return problems


def test_result_report_and_summary_tell_one_story(audit):
    result, _, whole = audit
    assert cross_read(result, whole) == []
    # result.json carries the plain words beside the technical name.
    head = result["verdict"]["headline"]
    entry = next(a for a in result["attacks"] if a["name"] == head["name"])
    assert entry["plain_name"] == head["plain_name"] and entry["description"]


def test_the_cross_read_fails_when_a_place_differs(audit):
    result, _, whole = audit
    head = result["verdict"]["headline"]
    other = next((a for a in result["attacks"]
                  if not squash(plain_name(a)).startswith(squash(head["plain_name"]))), None)
    # Another attack named in the report's sentence about the strongest.
    if other is not None:
        renamed = whole + f" The strongest attack, {plain_name(other)}, did it."
        assert any("calls" in p for p in cross_read(result, renamed))
    # The summary quoting another figure for the strongest attack.
    if head.get("tpr_from"):
        quoted = f"{head['verdict_tpr']:.1%}"
        figure = f"{head['verdict_tpr'] + 0.011:.1%}"
    else:
        quoted, figure = f"AUC {head['auc']:.2f}", f"AUC {head['auc'] - 0.01:.2f}"
    assert quoted in result["summary"]
    changed = dict(result, summary=result["summary"].replace(quoted, figure, 1))
    assert cross_read(changed, whole)
    # The summary not naming the strongest attack.
    unnamed = dict(result, summary=re.sub(re.escape(head["plain_name"]), "an attack",
                                          result["summary"], flags=re.I))
    assert cross_read(unnamed, whole)


# --------------------------------------------------------------------------- the catalogue

@pytest.mark.parametrize("module, names", [
    ("engine.audits.mechanism", ("np_optimal", "naive_sum")),
    ("engine.audits.location", None), ("engine.audits.aggregates", None),
    ("engine.audits.model", None)])
def test_every_attack_has_plain_words(module, names):
    import importlib

    mod = importlib.import_module(module)
    if names is None:
        names = tuple(mod.ATTACKS) + tuple(getattr(mod, "MIA_ATTACKS", ()))
    renamed = {"correctness": "metric_correctness", "confidence": "metric_confidence",
               "entropy": "metric_entropy", "modified_entropy": "metric_modified_entropy",
               "top1": "metric_top1", "label_only": "label_only_gap", "cbtta": "cbtta_ptl"}
    for name in names:
        words = attack_words(renamed.get(name, name))
        assert words.description and words.reference, name
        assert not jargon(words.plain_name) and not jargon(words.description), name


def test_plain_words_of_variants_and_unknown_names():
    assert attack_words("lira_online_global_var").plain_name.startswith(
        ATTACKS["lira_online"].plain_name)
    assert attack_words("meta_classifier_large").plain_name.startswith("Trained detector")
    assert attack_words("cbtta_ptl_ptc").plain_name == ATTACKS["cbtta"].plain_name
    assert attack_words("something_new", "Something new").plain_name == "Something new"


def test_glossary_covers_the_terms_of_the_issue():
    terms = " ".join(GLOSSARY).lower()
    for term in ("membership", "attribute inference", "false-positive rate", "auc",
                 "ε and δ", "confidence interval", "not measurable", "advantage",
                 "members spotted while wrongly accusing 1 %"):
        assert term in terms, term


def test_first_time_notes_once_each_in_order():
    rows = [{"advantage": -0.00004, "advantage_ci": [-0.02, 0.02]},
            {"advantage": -0.05, "tpr_at_fpr": [{"measurable": False}]},
            {"advantage": -0.07, "advantage_ci": [-0.1, 0.01]}]
    notes = first_time_notes(rows)
    assert len(notes) == 4 and len(set(notes)) == 4
    assert "-0.0" in notes[0] and "zero" in notes[1] and "blind guess" in notes[2]
    assert "not measurable" in notes[3]
    assert first_time_notes([{"advantage": 0.2, "advantage_ci": [0.1, 0.3]}]) == []


def test_a_sentences_percentage_never_rounds_to_a_certainty():
    """Walk-through 2026-11-26: the model summary said "right 100% of the time" and the verdict
    beside it "right 99.5%"; 0.995 is not a certainty."""
    assert whole_percent(0.995) == "99.5%" and whole_percent(0.9953) == "99.5%"
    assert whole_percent(0.92) == "92%" and whole_percent(1.0) == "100%"
    assert whole_percent(0.004) == "0.4%" and whole_percent(0.0) == "0%"
    assert whole_percent(0.999999) == "over 99.99%"


def test_no_attack_name_sends_the_reader_to_the_projects_issues():
    """An attack's technical name and source are printed in the report's glossary and the
    tooltips: "(issue 22)" there meant nothing to a privacy officer (seen in the count-table
    report's glossary)."""
    from engine.attacks.aggregates import LABELS as COUNT_TABLE_LABELS

    texts = [w.technical for w in ATTACKS.values()] + [w.reference for w in ATTACKS.values()]
    texts += list(COUNT_TABLE_LABELS.values())
    assert not [t for t in texts if t and re.search(r"\bissue \d+", t, re.I)]
