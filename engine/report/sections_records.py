"""The report's parts about the run rather than the attacks (issue 33 item 2: split from
engine/report/sections.py): the input files and their gaps (section 2), the limitations every
audit shares (section 8), the exposed records (section 9), what a report without records may
show, and the reproducibility appendix (section 10). Results are read once by
engine.results.loaded.load_result and by attribute here (issue 33 item 1)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, PageBreak, Spacer, XPreformatted

from engine import error_rates
from engine.config_file import config_to_toml
from engine.report import styles as st
from engine.report.sections_base import (
    TEXT_WIDTH,
    S,
    fmt_date,
    heading,
    key_value_table,
    not_measurable_note,
    para,
    sub,
    table,
    value_text,
)
from engine.report.styles import fmt_count, fmt_pct, markup
from engine.results.loaded import InputFile, LoadedResult, load_result
from engine.results.result import PERSONAL_CONFIG_KEYS, REDACTED


def inputs_table(result, empty: str = "No input files were read.") -> list[Flowable]:
    """The input files with fingerprints; ``empty`` (markup) says why there are none."""
    inputs = load_result(result).inputs
    if not inputs:
        return [para(empty)]
    rows = [("File", "SHA-256", "Rows")]
    for i in inputs:
        rows.append((markup(i.path or st.DASH),
                     f'<font face="{st.FONT_MONO}" size="7">{markup(i.sha256 or st.DASH)}'
                     "</font>",
                     fmt_count(i.rows) if i.rows is not None else st.DASH))
    out: list[Flowable] = [table(rows, [6.0 * cm, 9.0 * cm, 2.0 * cm])]
    for i in inputs:
        # What was assumed to read it (engine.data.text_input), less the rows left out for
        # gaps, which the file's gaps table below says per column (location traces, issue 21).
        said = (i.missing_values.sentence if i.missing_values else "").rstrip(".")
        notes = [n for n in i.read_as if str(n).rstrip(".") != said]
        if notes:
            out.append(para(f"<b>{markup(Path(i.path).name)}</b> was read "
                            f"with an assumption: {markup('; '.join(notes))}."))
    out += gaps_tables(inputs)
    return out


# What was done with a column's empty cells (result.json inputs[].missing_values.per_column
# "action", written by engine.data.tabular, .microdata and .predictions), in the report's words.
# The value a gap was filled with is not printed: a most frequent category is a record's value.
_GAP_ACTIONS = {
    "median": "filled with the column's median",
    "most_frequent": "filled with the column's most frequent value",
    "own_category": "counted as a category of its own ('missing')",
    "drop_rows": "records left out",
    "error": "file refused",
}


def gaps_tables(inputs: Sequence[InputFile | Mapping]) -> list[Flowable]:
    """Per input file with empty cells (issue 21), its one sentence and a small table: each
    column with empty cells, how many, and what was done with them — so a reader sees which
    columns were filled or cost records without opening result.json."""
    out: list[Flowable] = []
    for i in inputs:
        if not isinstance(i, InputFile):
            i = InputFile.from_dict(i)
        gaps = i.missing_values
        if gaps is None or not gaps.per_column:
            continue
        name = markup(Path(i.path).name)
        rows = [("Column", "Empty cells", "What was done")]
        for e in gaps.per_column:
            action = _GAP_ACTIONS.get(e.action, markup(e.action or st.DASH))
            if e.indicator:
                action += ", plus a feature saying the value was missing"
            rows.append((markup(e.column or st.DASH),
                         fmt_count(e.empty_cells) if e.empty_cells is not None else st.DASH,
                         action))
        out.append(para(f"Empty cells in <b>{name}</b>: " + markup(gaps.sentence)))
        out.append(table(rows, [6.0 * cm, 2.6 * cm, 8.4 * cm]))
    return out


def standard_limitations(result) -> list[str]:
    """Limitations true of every audit (the audit-specific ones are added by its hooks)."""
    out = []
    seen = set()
    for a in load_result(result).attacks:
        for row in a.tpr_at_fpr:
            key = (row.fpr, a.n_negative)
            if not row.measurable and key not in seen:
                seen.add(key)
                out.append(f"TPR at {fmt_pct(row.fpr)} FPR is "
                           f"{not_measurable_note(row, a.n_negative)}: so few "
                           "non-members cannot show that so few of them are wrongly flagged. "
                           "Run more trials to measure it.")
    out.append("The results hold for this configuration only; a change of data, parameters or "
               "release needs a new audit.")
    out.append("Measured values come from a finite number of simulated games: they carry 95% "
               "confidence intervals (pointwise for the ROC bands), and an empirical ε is a "
               "lower bound on the true ε, not an estimate of it.")
    out.append("A low risk verdict covers the attacks listed in section 4; attacks outside the "
               "membership game (for example combining this release with other releases) are "
               "not covered.")
    return out


def verdict_error_rate_limitations(result) -> list[str]:
    """The verdict's own measured error rates for this audit type (issue 32 item 3): how often
    it said more than low risk on releases that carry nothing about the people, and how often
    it reached the policy's level on releases with a known leak
    (``engine.error_rates``, measured by scripts/verdict_error_rates.py). Section 8 of every
    audit type prints it, after the audit's own limitations."""
    text = error_rates.sentence(load_result(result).audit_type)
    return [text] if text else []


def exposed_records_generic(result, include_records: bool) -> list[Flowable]:
    """Counts and (redacted unless asked) identifiers of the records an attack exposed."""
    records = load_result(result).exposed_records
    if not records:
        return [para("No records were flagged as exposed by the attacks in this audit.")]
    out: list[Flowable] = [para(
        f"{fmt_count(len(records))} records were flagged as exposed. "
        + ("Identifiers are shown in full because the report was generated with records "
           "included." if include_records else
           "Identifiers are redacted; generate the report with records included to see them."))]
    rows = [("Record", "Details")]
    for r in records[:200]:
        # An exposed record is free-form (each audit writes its own fields): printed as read.
        if isinstance(r, Mapping):
            rid = str(r["id"] if "id" in r else r["record"] if "record" in r else st.DASH)
            rest = ", ".join(f"{k}: {value_text(v)}" for k, v in r.items()
                             if k not in ("id", "record"))
        else:
            rid, rest = str(r), ""
        rows.append((markup(rid if include_records else redact(rid)), markup(rest)))
    out.append(table(rows, [4.5 * cm, TEXT_WIDTH - 4.5 * cm]))
    if len(records) > 200:
        out.append(para(f"… and {fmt_count(len(records) - 200)} more (see result.json).",
                        "small"))
    return out


def without_personal_fields(result):
    """``result`` as a report written without records sees it. Besides its exposed records
    (withheld by each audit's section 9, which says how many there are), a result may name a
    person in a configuration key the user typed an id into (PERSONAL_CONFIG_KEYS: the location
    audit's target_id) and in the audited target's id: both read "(redacted)". A loaded result
    gives a loaded result (read again from its redacted dict), a dict a dict."""
    if isinstance(result, LoadedResult):
        return load_result(without_personal_fields(dict(result.raw)))
    out = dict(result)
    cfg = out.get("config")
    if isinstance(cfg, dict):
        out["config"] = {k: REDACTED if k in PERSONAL_CONFIG_KEYS and v else v
                         for k, v in cfg.items()}
    th = out.get("theory")
    target = th.get("target") if isinstance(th, dict) else None
    if isinstance(target, dict) and target.get("id") not in (None, ""):
        out["theory"] = {**th, "target": {**target, "id": REDACTED}}
    return out


def redact(identifier: str) -> str:
    """Keep the first two characters, mask the rest: enough to tell rows apart in a review."""
    s = str(identifier)
    return s[:2] + "•" * max(3, min(8, len(s) - 2)) if len(s) > 2 else "•••"


# --------------------------------------------------------------------------- 10. reproducibility

def _wrapped_mono(text: str, width_chars: int = 104) -> XPreformatted:
    lines = []
    for line in text.splitlines() or [""]:
        lines += textwrap.wrap(line, width_chars, subsequent_indent="    ",
                               break_long_words=True, drop_whitespace=False) or [""]
    return XPreformatted(st.fonted(markup("\n".join(lines))), S("mono"))


# The parts of an audit that can run on a cluster (engine.compute), by their theory key.
COMPUTED_PARTS = {"repetitions": "the repetitions", "sweep": "the hours sweep",
                  "model": "the shadow and reference models",
                  "defences": "the defended models and their reference models",
                  # The count tables' attribute game: every target's units (issue 22 item 6).
                  "deterministic": "the attribute game's targets (proofs, learned guesses "
                                   "and reconstructions)",
                  "membership": "the membership game's targets",
                  "published": "the published table's checks",
                  "sweeps": "the count-table sweeps"}


def computed_on(result) -> list[tuple[str, str]]:
    """(part, where it ran in words) for each part of the run that says where it ran. Each
    audit's typed theory names where its parts ran (``computed_on``: a mapping of theory key
    to words); a theory not typed yet is read as its dict."""
    r = load_result(result)
    where = getattr(r.theory, "computed_on", None)
    if not isinstance(where, Mapping):
        theory = r.raw.get("theory") if isinstance(r.raw.get("theory"), Mapping) else {}
        where = {key: theory[key]["computed_on"] for key in COMPUTED_PARTS
                 if isinstance(theory.get(key), Mapping) and theory[key].get("computed_on")}
    return [(words, str(where[key])) for key, words in COMPUTED_PARTS.items()
            if where.get(key)]


def reproducibility(result) -> list[Flowable]:
    r = load_result(result)
    sw = r.software
    out: list[Flowable] = [PageBreak(), heading(10)]
    rows = [("Seed", markup(r.seed if r.seed is not None else st.DASH)),
            ("Configuration SHA-256", f'<font face="{st.FONT_MONO}" size="7.5">'
             f'{markup(r.config_sha256 or st.DASH)}</font>'),
            ("Result schema version",
             markup(r.schema_version if r.schema_version is not None else st.DASH)),
            ("Created", markup(fmt_date(r.created))),
            ("Runtime", f"{r.runtime_s:.1f} s" if isinstance(r.runtime_s, (int, float))
             else st.DASH),
            ("Device", markup(sw.get("device", st.DASH)))]
    rows += [(f"Where {markup(what)} ran", markup(where)) for what, where in computed_on(r)]
    rows += [(f"Software: {markup(k)}", markup(v)) for k, v in sw.items() if k != "device"]
    out.append(key_value_table(rows))
    out.append(sub("Reproduce these numbers"))
    out.append(para("Save the configuration below as CONFIG.toml and run (same software "
                    "versions and device give the same numbers; the seed drives every random "
                    "stream):"))
    if "cuda" in str(sw.get("device", "")).lower():
        out.append(para("This audit ran on a GPU. GPU arithmetic sums in an order that can "
                        "change from run to run, so a repeat on a GPU — or on the CPU — may "
                        "differ in the last digits of the numbers; on the CPU the same "
                        "configuration gives byte-identical results.", "small"))
    out.append(_wrapped_mono("python main.py run CONFIG.toml --out DIR"))
    out.append(Spacer(1, 6))
    out.append(sub("Configuration"))
    cfg = dict(r.config)
    out.append(_wrapped_mono(config_to_toml(cfg)))
    withheld = [k for k in PERSONAL_CONFIG_KEYS if cfg.get(k) == REDACTED]
    if withheld:
        out.append(para(f"{markup(', '.join(withheld))} names a person and is withheld, as this "
                        "report was written without records; copy it from result.json (or the "
                        "configuration file) to reproduce the run.", "small"))
    return out
