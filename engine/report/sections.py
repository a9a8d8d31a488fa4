"""The report's ten sections, and the per-audit-type hooks that fill in the audit-specific ones.

The order is fixed by the product (and a privacy officer's DPIA template): cover and summary,
what was audited, threat model, method, results, comparison with DP theory, verdict,
limitations, exposed records, reproducibility. Sections 1, 5, 7 and 10 read the same fields of
result.json for every audit type (ARCHITECTURE §4, metric definitions §5); sections 2, 3, 4, 6,
8 and 9 depend on the audit, so they are methods of :class:`AuditSections`, which a new audit
type subclasses (see ``engine/report/mechanism.py``) and registers in ``engine/report/pdf.py``.

Everything taken from the result (names, labels, paths, warnings, config values) goes through
:func:`engine.report.styles.markup` before it reaches a Paragraph.

The shared parts live in the ``sections_*`` modules of this package (issue 33 item 2: one file
of 1,100 lines became five): :mod:`~engine.report.sections_base` (builders and table cells),
:mod:`~engine.report.sections_records` (inputs, limitations, exposed records, reproducibility),
:mod:`~engine.report.sections_verdict` (cover and section 7),
:mod:`~engine.report.sections_results` (sections 4 and 5) and
:mod:`~engine.report.sections_theory` (section 6's shared tables). This module keeps the hooks
and names them all, so ``from engine.report.sections import …`` keeps working.
"""

from __future__ import annotations

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, Spacer

from engine.report import styles as st
from engine.report.sections_base import (
    LEVEL_SHADES,
    SECTION_TITLES,
    TEXT_WIDTH,
    Heading,
    S,
    attack_entry,
    brief_name,
    bullets,
    close,
    finite,
    finite_pair,
    fmt_date,
    fpr_targets,
    heading,
    keep,
    key_value_table,
    min_negatives,
    not_measurable_note,
    para,
    policy_fpr,
    short_attack_label,
    sub,
    table,
    tpr_cell,
    tpr_cells,
    two_lines,
    value_text,
)
from engine.report.sections_records import (
    COMPUTED_PARTS,
    computed_on,
    exposed_records_generic,
    gaps_tables,
    inputs_table,
    redact,
    reproducibility,
    standard_limitations,
    verdict_error_rate_limitations,
    without_personal_fields,
)
from engine.report.sections_results import (
    OWN_RULE,
    accuracy_note,
    attack_table,
    baselines_table,
    bound_interval_label,
    first_time_paragraphs,
    glossary,
    method_common,
    results,
)
from engine.report.sections_theory import (
    accounting_table,
    comparison_by_attack,
    epsilon_bounds_table,
    theory_tpr,
)
from engine.report.sections_verdict import (
    cover,
    evidence_section,
    verdict,
    verdict_badge,
    verdict_of,
    what_to_do_next,
)
from engine.report.styles import markup
from engine.results.loaded import load_result

__all__ = [
    "COMPUTED_PARTS", "LEVEL_SHADES", "OWN_RULE", "SECTION_TITLES", "TEXT_WIDTH",
    "AuditSections", "Heading", "S", "accounting_table", "accuracy_note", "attack_entry",
    "attack_table", "baselines_table", "bound_interval_label", "brief_name", "bullets", "close",
    "comparison_by_attack", "computed_on", "cover", "epsilon_bounds_table", "evidence_section",
    "exposed_records_generic", "finite", "finite_pair", "first_time_paragraphs", "fmt_date",
    "fpr_targets", "gaps_tables", "glossary", "heading", "inputs_table", "keep",
    "key_value_table", "markup", "method_common", "min_negatives", "not_measurable_note",
    "para", "policy_fpr", "redact", "reproducibility", "results", "short_attack_label",
    "standard_limitations", "sub", "table", "theory_tpr", "tpr_cell", "tpr_cells",
    "two_lines", "value_text", "verdict", "verdict_badge", "verdict_error_rate_limitations",
    "verdict_of", "what_to_do_next", "without_personal_fields",
]


# --------------------------------------------------------------------------- audit hooks

class AuditSections:
    """Audit-specific content. The defaults print what any result.json holds; an audit type
    overrides them with its own words (threat model, method, theory, exposed records). Each
    hook is given the loaded result (engine.results.loaded.LoadedResult; a dict still works:
    read it with ``load_result``, which returns a loaded result unchanged)."""

    def audited(self, result) -> list[Flowable]:
        r = load_result(result)
        out: list[Flowable] = [para("<b>Inputs</b>", "body")]
        out += inputs_table(r)
        out.append(Spacer(1, 4))
        out.append(key_value_table([("Configuration SHA-256",
                                     markup(r.config_sha256 or st.DASH))]))
        rows = [("Setting", "Value")] + [
            (markup(k), markup(value_text(v))) for k, v in r.config.items()
            if not isinstance(v, dict)]
        if len(rows) > 1:
            out += [Spacer(1, 6), para("<b>Settings</b>"),
                    table(rows, [5.2 * cm, TEXT_WIDTH - 5.2 * cm])]
        return out

    def threat_model(self, result) -> list[Flowable]:
        return [para("The attacker plays the membership game of paper 002 §3: they see the "
                     "release and must decide whether one chosen person's data was used.")]

    def method_theory(self, result) -> list[Flowable]:
        return []

    def describe_attack(self, attack) -> str:
        """One plain sentence (markup) on how ``attack`` (an AttackEntry) decides, for
        section 4; "" for none."""
        return ""

    def method_common(self, result) -> list[Flowable]:
        """Section 4's measurement, shared by the membership games; an audit whose game is
        another (aggregates: attribute inference) brings its own."""
        return method_common(result, self.describe_attack)

    def results(self, result) -> list[Flowable]:
        """Section 5, the measured attacks."""
        return results(result)

    def theory(self, result) -> list[Flowable]:
        return [para("This audit type has no exact differential-privacy theory to compare with; "
                     "the measured attacks in section 5 are the evidence.")]

    def limitations(self, result) -> list[str]:
        return standard_limitations(result)

    def exposed(self, result, include_records: bool) -> list[Flowable]:
        return exposed_records_generic(result, include_records)
