"""Section 9 of the count-tables report (paper 003 Alg. 1): how many records the tables
provably expose, which tables count them (what to coarsen or suppress first), and — only when
the report includes records — the list. Split out of engine/report/aggregates.py (issue 33
item 2); reads the typed result (engine.results.aggregates)."""

from __future__ import annotations

from collections import Counter

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, Spacer

from engine.numbers import is_finite
from engine.report import styles as st
from engine.report.aggregates_words import (
    MAX_LISTED_CELLS,
    MAX_LISTED_RECORDS,
    loaded,
    sensitive,
    theory_of,
)
from engine.report.sections import TEXT_WIDTH, keep, markup, para, sub, table
from engine.report.styles import fmt_count, fmt_pct


def exposed_records(result, include_records: bool = False) -> list[Flowable]:
    """Section 9: how many records the tables provably expose, which tables count them (what
    to coarsen or suppress first), and — only when the report includes records — the list."""
    r = loaded(result)
    th = theory_of(r)
    records = th.exposed
    det, pub = th.deterministic, th.published
    det_targets = det.targets if det else None
    sens = markup(sensitive(r))
    if not records:
        return [para(
            "No record is provably determined by the tables"
            + (f": for none of the {fmt_count(det_targets)} targets did the released counts "
               f"leave only one possible value of {sens}." if is_finite(det_targets) else ".")
            + " The attacks in section 5 may still guess values better than chance.")]
    right = sum(1 for e in records if e.value_correct is True)
    known = sum(1 for e in records if isinstance(e.value_correct, bool))
    if pub:   # combinations of quasi-identifiers checked against a published table
        of = (f" ({fmt_count(len(records))} of the {fmt_count(pub.candidates)} "
              "combinations of quasi-identifiers checked)" if is_finite(pub.candidates)
              else "")
        what = ("combination of quasi-identifiers" if len(records) == 1
                else "combinations of quasi-identifiers")
        head = (f"<b>{fmt_count(len(records))} {what} "
                f"{'are' if len(records) != 1 else 'is'} pinned down by the published "
                f"table</b>{of}: a person with one of them who is counted in the table, and "
                f"the only one with it, has only one possible value of {sens}. ")
    else:
        of = (f" ({fmt_count(len(records))} of the {fmt_count(det_targets)} targets "
              "attacked)" if is_finite(det_targets) else "")
        head = (f"<b>{fmt_count(len(records))} record{'s are' if len(records) != 1 else ' is'}"
                f" provably determined by the tables</b>{of}: for each, only one value of "
                f"{sens} is consistent with the released counts and the person's "
                "quasi-identifiers. ")
    if known:
        head += f"{fmt_count(right)} of these values are right" + (
            "." if right == known else
            " (the others were “proved” on noisy counts, which are not the true ones).")
    elif pub:
        head += ("Whether the values are right cannot be checked: the audit does not hold the "
                 "data behind a published table.")
    out: list[Flowable] = [para(head)]
    per_table: Counter = Counter()
    for e in records:
        for t in set(e.tables):
            per_table[str(t)] += 1
    released = {str(t.table): t.cells for t in th.release.tables}
    if per_table:
        rows = [("Table", "Exposed records it counts", "Share of the exposed records",
                 "Cells released from it")]
        for name, n in sorted(per_table.items(), key=lambda x: (-x[1], x[0])):
            rows.append((markup(name), fmt_count(n), fmt_pct(n / len(records)),
                         fmt_count(released[name]) if name in released else st.DASH))
        out.append(keep([
            sub("Which tables to coarsen or suppress first"),
            para("Each exposed record is pinned down by the released cells that can count it. "
                 "The tables those cells come from, most exposed records first: coarsening "
                 "them (wider age groups, merged categories), releasing fewer of their cells, "
                 "or adding noise to them breaks the proofs.", "small"),
            table(rows, [5.4 * cm, 3.6 * cm, 3.6 * cm, TEXT_WIDTH - 12.6 * cm]),
            Spacer(1, 3)]))
    listed = [e for e in records if isinstance(e.record, dict)]
    if not include_records:
        out.append(para(
            "The records themselves are not listed: their quasi-identifiers, values and the "
            "cells that pin them down are withheld, as this report may travel further than the "
            "data. Generate the report with records included (from an audit run with "
            "list_exposed_records = true) to list them.", "small"))
        return out
    if not listed:
        out.append(para(
            "The result holds no quasi-identifiers or values (the audit ran with "
            "list_exposed_records = false), so even a report with records included lists "
            "only the cells that pin each record down.", "small"))
    else:
        out.append(para(
            f"The audit ran with list_exposed_records = true and this report includes records: "
            f"the {fmt_count(len(records))} records are listed below with their "
            f"value of {sens} and the released cells that pin them down. Treat this page as "
            "personal data.", "small"))
    rows = [("#", "Quasi-identifiers", f"{sens} (inferred)", "Released cells that pin it down")]
    for i, e in enumerate(records[:MAX_LISTED_RECORDS], 1):
        rec = e.record
        qi = (", ".join(f"{markup(k)} = {markup(v)}" for k, v in rec.items())
              if isinstance(rec, dict) else "(redacted)")
        value = markup(e.value if e.value is not None else "(redacted)")
        value += " — right" if e.value_correct is True else (
            " — wrong" if e.value_correct is False else "")
        cells = [str(c) for c in e.pinning_cells]
        cell_text = "; ".join(markup(c) for c in cells[:MAX_LISTED_CELLS])
        if len(cells) > MAX_LISTED_CELLS:
            cell_text += f"; … and {fmt_count(len(cells) - MAX_LISTED_CELLS)} more"
        rows.append((str(i), qi, value, cell_text or st.DASH))
    out.append(table(rows, [0.8 * cm, 5.0 * cm, 3.0 * cm, TEXT_WIDTH - 8.8 * cm]))
    if len(records) > MAX_LISTED_RECORDS:
        out.append(para(f"… and {fmt_count(len(records) - MAX_LISTED_RECORDS)} more (see "
                        "result.json).", "small"))
    return out
