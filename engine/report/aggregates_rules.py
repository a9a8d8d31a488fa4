"""The count-tables report's "The rules officers apply, beside the attacks" (issue 34 item 2):
the rules' parameters (ACRO / SACRO defaults unless changed), the summary sentence, a table per
published table, the two kinds of disagreement with the cells concerned, and which verdict the
policy follows. Reads the typed block (engine.results.aggregates_rules.RulesBlock, reached as
``AggregatesTheory.rules``). The rules' findings about published cells (public: each cell is in
the release) are part of the results (section 5, ``rules_results``); what they say person by
person follows the exposed records (section 9, ``rules_by_person``). Targets are named
by their identifier only; the cells that hold a person are named only when the report includes
records (a cell's label spells out the person's quasi-identifiers).
"""

from __future__ import annotations

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, Spacer

from engine.report import styles as st
from engine.report.aggregates_words import loaded, theory_of
from engine.report.sections import TEXT_WIDTH, keep, markup, para, sub, table
from engine.report.styles import fmt_count
from engine.results.aggregates_rules import RulesBlock, RuleTarget
from engine.rules import RULES

TITLE = "The rules officers apply, beside the attacks"
MAX_CELLS_SHOWN = 25        # failing cells printed (result.json holds up to 500)
MAX_TARGETS_SHOWN = 30      # targets printed per kind of disagreement
LABEL = dict(RULES)


def _short(rule: str) -> str:
    return LABEL.get(rule, rule).split(" (")[0].split(":")[0]


def parameters_text(b: RulesBlock) -> str:
    p = b.parameters
    parts = [f"threshold {p.threshold} people",
             "zeros disclosive" if p.zeros_disclosive else "zeros allowed",
             "group disclosure " + ("checked" if p.group_disclosure else "not checked"),
             "differencing " + ("checked" if p.differencing else "not checked")]
    if p.value_column:
        parts.append(f"cells as sums of {markup(p.value_column)}: dominance n = "
                     f"{p.dominance_n}, k = {p.dominance_k:g} %, p % rule p = {p.p_ratio:g} %")
    else:
        parts.append("no value column (dominance and p % not applied)")
    return "; ".join(parts)


def _per_table(b: RulesBlock) -> list[Flowable]:
    ran = [r for r, _ in RULES if b.summary.ran(r)]
    rows = [("Table", "Cells", "Failing", *(_short(r) for r in ran), "Passes")]
    for t in b.tables:
        rows.append((markup(t.table), fmt_count(t.cells), fmt_count(t.failed),
                     *(fmt_count(t.count(r)) for r in ran),
                     "yes" if t.passes else "<b>no</b>"))
    first = 3.6 * cm
    rest = (TEXT_WIDTH - first) / (len(ran) + 3)
    return [table(rows, [first] + [rest] * (len(ran) + 3))]


def _cells(b: RulesBlock) -> list[Flowable]:
    if not b.cells:
        return []
    rows = [("Table", "Cell", "People", "Why it fails")]
    for c in b.cells[:MAX_CELLS_SHOWN]:
        count = st.DASH if c.count is None else fmt_count(c.count)
        rows.append((markup(c.table), markup(c.label), count, markup(c.reason)))
    more = len(b.cells) - MAX_CELLS_SHOWN + b.cells_truncated
    out: list[Flowable] = [sub("The failing cells"),
                           table(rows, [2.2 * cm, 4.6 * cm, 1.5 * cm,
                                        TEXT_WIDTH - 8.3 * cm])]
    if more > 0:
        out.append(para(f"… and {fmt_count(more)} more failing cells (result.json lists up to "
                        "500).", "small"))
    return out


def _targets(title: str, explain: str, targets: tuple[RuleTarget, ...],
             name_cells: bool) -> list[Flowable]:
    if not targets:
        return [para(f"<b>{title}</b>: none.", "small")]
    rows = [("Target", "Rules failed", "Cells concerned", "What the attacks did")]
    for t in targets[:MAX_TARGETS_SHOWN]:
        did = ("the tables prove the value" if t.attack_proves else
               f"found by {markup(t.attack or 'an attack')}" if t.attack_found else
               "no attack proved or confidently found the value")
        cells = "; ".join(markup(c) for c in t.cells) or st.DASH
        if not name_cells:
            cells = f"{len(t.cells)} named in result.json" if t.cells else st.DASH
        rows.append((markup(t.target), ", ".join(_short(r) for r in t.failed) or "none",
                     cells, did))
    out = [sub(f"{title} ({fmt_count(len(targets))})"), para(explain, "small"),
           table(rows, [2.4 * cm, 3.0 * cm, TEXT_WIDTH - 9.6 * cm, 4.2 * cm])]
    if len(targets) > MAX_TARGETS_SHOWN:
        out.append(para(f"… and {fmt_count(len(targets) - MAX_TARGETS_SHOWN)} more (see "
                        "result.json).", "small"))
    return out


def rules_results(result) -> list[Flowable]:
    """Section 5's part: the rules' parameters, summary, per-table results and the failing
    published cells; nothing for a result without the rules block."""
    b = theory_of(loaded(result)).rules
    if b is None:
        return []
    out: list[Flowable] = [keep([
        sub(TITLE),
        para("Statistical offices and trusted research environments check every output "
             "against fixed rules before it leaves (ACRO / SACRO; the Eurostat and ONS "
             "disclosure-control handbooks). The same rules were applied to every published "
             "cell here, and their verdict set beside what the attacks did, person by person. "
             f"Rules applied: {parameters_text(b)}."),
        para(f"<b>{markup(b.summary.sentence)}</b>"),
        Spacer(1, 3)])]
    if b.tables:
        out += _per_table(b)
    out += _cells(b)
    out.append(para("Where the rules and the attacks disagree person by person is in section 9 "
                    "(Exposed records).", "small"))
    return out


def rules_by_person(result, include_records: bool = False) -> list[Flowable]:
    """Section 9's part: the two kinds of disagreement, target by target, and which verdict
    the policy follows; nothing for a result without the rules block."""
    b = theory_of(loaded(result)).rules
    if b is None:
        return []
    out: list[Flowable] = [sub("Where the rules and the attacks disagree")]
    out.append(para(markup(b.disagreement.sentence)))
    out.append(para(markup(b.disagreement.sentence)))
    # A cell's label spells out the person's quasi-identifiers: printed only in a report
    # with records (the result holds tables and counts unless the audit listed records).
    name_cells = include_records or not b.cells_listed
    out += _targets("The rules pass, yet the attack proves the "
                    "value", "Every cell that holds these people passes the rules, yet the "
                    "released counts together leave only one possible value: a rule that "
                    "looks at one cell at a time does not see what the cells prove together.",
                    b.disagreeing("rules_pass_attack_proves"), name_cells)
    out += _targets("The rules fail, yet no attack could use it",
                    "A cell holding these people fails a rule, yet no attack proved the value "
                    "or named it with confidence (noise, or a small cell that does not pin the "
                    "person down): the rules are stricter here than the attacks show is "
                    "needed.", b.disagreeing("rules_fail_no_attack"), name_cells)
    if not include_records:
        out.append(para("Targets are named by their row among the protected records; the "
                        "cells that hold a person are given as tables and counts, as a cell's "
                        "label spells out the person's quasi-identifiers. Generate the report "
                        "with records included (from an audit run with list_exposed_records "
                        "= true) to name the cells.", "small"))
    out.append(sub("Which verdict the policy follows"))
    out.append(para(markup(b.followed_sentence or "The policy follows the attacks.")))
    return out
