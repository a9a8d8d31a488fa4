"""The count-tables page's disclosure rules (issue 34 item 2): the group "Disclosure rules (what
officers already check)" on the Release step, with ACRO's defaults, and its part of the config
dict (``rules``, validated by the engine's ``engine.rules.RuleSettings.from_dict``).

The rules are the checks statistical offices and trusted research environments already apply to
a table before it leaves (ACRO, the SACRO project's automatic output checker: a threshold of 10
people per cell, zeros disclosive, the n,k = 2, 90 % dominance rule and the 10 % p-ratio rule for
tables of sums). The audit runs them beside the attacks; the results say where the two disagree.

Why the numbers are text fields and not spin boxes: a spin box clamps what is typed (0 becomes 1)
and the officer never learns the rule they meant is not allowed; a text field keeps the typed
text beside the engine's sentence (gui/widgets/form.py), and the engine's ranges — the same for
the GUI, the CLI and config files — decide (threshold 1–1000, n 1–10, k in (0, 100], p in
[0, 100]).

:class:`RulesFields` is a mixin of :class:`gui.pages.aggregates_page.AggregatesPage`: it reads the
page's ``fields``, ``FIELDS`` (which hold :func:`rule_fields`) and schema editor.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QVBoxLayout

from gui.widgets.form import FieldSpec, choice_combo, select_data
from gui.widgets.steps import note

RULES_TITLE = "Disclosure rules (what officers already check)"
ACRO = "ACRO's default, the output checker of the SACRO project"
COMBO_WIDTH = 620                 # as the page's other drop-downs
NO_SUMS = ""                       # value_column "": a table of counts, not of sums
POLICY_FOLLOWS_CHOICES = (
    ("attacks", "the attacks (what an attacker can really learn)"),
    ("rules", "the rules (the checks above)"),
    ("both", "both: the stricter of the two"),
)
NUMBER_KEYS = ("rules.threshold", "rules.dominance_n", "rules.dominance_k", "rules.p_ratio")
SUM_KEYS = ("rules.dominance_n", "rules.dominance_k", "rules.p_ratio")
CHECKS = (
    ("zeros_disclosive", "Zeros are disclosive",
     "A cell counting nobody is flagged: it tells everyone that no person with these "
     f"details has that value ({ACRO}: on)."),
    ("group_disclosure", "Group disclosure",
     "A group of people with the same known details (quasi-identifiers) who all share one "
     "sensitive value is flagged: knowing someone is in the group tells their value "
     f"({ACRO}: on)."),
    ("differencing", "Differencing",
     "A small group that can be worked out as the difference of two published cells (a "
     "total minus its other parts) is flagged, even when no published cell is small "
     f"({ACRO}: on)."),
)


def rule_fields(step: int) -> dict[str, FieldSpec]:
    """The rules' number fields (config keys "rules.x"), shown on ``step``."""
    return {
        "rules.threshold": FieldSpec(
            "Threshold (people per cell)", step,
            "A published cell counting fewer people than this is unsafe: too few people to "
            f"hide among. A whole number from 1 to 1000 ({ACRO}: 10).", integer=True),
        "rules.dominance_n": FieldSpec(
            "Dominance: largest contributors n", step,
            "For tables of sums: how many of the largest contributors the dominance rule "
            "adds up. A whole number from 1 to 10 "
            f"({ACRO}: 2).", integer=True),
        "rules.dominance_k": FieldSpec(
            "Dominance: at most k % of the sum", step,
            "For tables of sums: the n largest contributors may not make more than this "
            "share of a cell's sum, or one of them could work out the others' values. "
            f"Greater than 0 and at most 100 ({ACRO}: 90)."),
        "rules.p_ratio": FieldSpec(
            "p-ratio: p %", step,
            "For tables of sums: a cell fails when its sum, without its two largest "
            "contributors, is less than this share of the largest one — the second largest "
            "could then estimate the largest too closely. From 0 to 100 "
            f"({ACRO}: 10)."),
    }


def complete_rules(config: dict, defaults: Mapping | None) -> dict:
    """``config`` with every rule setting it lacks taken from ``defaults`` (a saved project
    that names only the threshold keeps the other defaults, as the engine would)."""
    if not isinstance(defaults, Mapping):
        return config
    given = config.get("rules")
    config["rules"] = {**defaults, **(given if isinstance(given, Mapping) else {})}
    return config


def numeric_columns(schema: Mapping) -> list[str]:
    """The columns a table of sums can add up, as the engine reads them
    (engine.games.aggregates_rules.value_numbers): whole numbers not cut into bins, and
    categories that are all numbers ("0|500|1000"). A binned column holds no exact values."""
    names = []
    for column in schema.get("columns") or []:
        if not isinstance(column, Mapping):
            continue
        kind, categories = column.get("kind"), column.get("categories")
        if kind == "integer" and not column.get("bins"):
            names.append(str(column.get("name")))
        elif kind == "categorical" and categories and all(_is_number(c) for c in categories):
            names.append(str(column.get("name")))
    return names


def _is_number(value) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


class RulesFields:
    """The disclosure-rules group of the count-tables page (a mixin; module docstring)."""

    def build_rules_box(self, layout: QVBoxLayout) -> QGroupBox:
        """The checkable group (unticked: the audit applies no rules) with its fields."""
        box = QGroupBox(RULES_TITLE)
        box.setCheckable(True)
        box.setToolTip("The checks officers already apply to a table before it is published "
                       f"(defaults: {ACRO}). The audit applies them to every published table "
                       "and says where they and the attacks disagree. Untick to leave them "
                       "out.")
        self.rules_box = box
        column = QVBoxLayout(box)
        column.addWidget(note(
            "The audit also applies these rules to every table above and, in the results, "
            "says where the rules and the attacks disagree. The rules never replace the "
            "attacks' verdict; choose below which one your policy follows."))
        form = QFormLayout()
        self.add_field_row(form, "rules.threshold")
        self.rule_checks: dict[str, QCheckBox] = {}
        for key, text, tip in CHECKS:
            check = QCheckBox(text)
            check.setToolTip(tip)
            self.rule_checks[key] = check
            form.addRow(check)
        self.rules_sum_combo = QComboBox()
        self.rules_sum_combo.setToolTip(
            "For a table that publishes sums (an income total per cell) rather than counts "
            "of people: the number column summed. The dominance and p-ratio rules then check "
            "whether a few large contributors could be recovered. “None”: the tables are "
            f"counts, and these two rules do not apply ({ACRO}).")
        self.rules_sum_combo.addItem("none: the tables are counts", NO_SUMS)
        self.rules_sum_combo.currentIndexChanged.connect(self._update_rule_sums)
        form.addRow("Tables of sums of:", self.rules_sum_combo)
        for key in SUM_KEYS:
            self.add_field_row(form, key)
        self.rules_follows_combo = choice_combo(
            POLICY_FOLLOWS_CHOICES,
            "Which verdict your office's policy follows. The report says which one it is; "
            "the attacks' verdict is always shown. “Both” takes the stricter: a release "
            "passes only when the rules pass and the attacks find no risk.")
        form.addRow("My policy follows:", self.rules_follows_combo)
        for combo in (self.rules_sum_combo, self.rules_follows_combo):
            combo.setMaximumWidth(COMBO_WIDTH)
        column.addLayout(form)
        layout.addWidget(box)
        self._update_rule_sums()
        return box

    # ------------------------------------------------------------ form <-> dict

    def rules_form(self, d: dict) -> dict:
        """Put the group's checkboxes and choices into ``d["rules"]`` (the number fields are
        already there: "rules.x" keys of ``FIELDS``); keys the form does not show are kept."""
        rules = d.get("rules")
        rules = dict(rules) if isinstance(rules, Mapping) else {}
        rules["enabled"] = self.rules_box.isChecked()
        for key, check in self.rule_checks.items():
            rules[key] = check.isChecked()
        rules["value_column"] = self.rules_sum_combo.currentData() or NO_SUMS
        rules["policy_follows"] = self.rules_follows_combo.currentData()
        d["rules"] = rules
        return d

    def fill_rules(self, config: Mapping) -> None:
        """Show ``config["rules"]`` in the group (the number fields are filled with the
        others, :meth:`FormRows.fill_fields`)."""
        rules = config.get("rules")
        rules = rules if isinstance(rules, Mapping) else {}
        self.rules_box.setChecked(rules.get("enabled") is not False)
        for key, check in self.rule_checks.items():
            check.setChecked(rules.get(key) is not False)
        self.refresh_rule_columns(str(rules.get("value_column") or NO_SUMS))
        select_data(self.rules_follows_combo, rules.get("policy_follows") or "attacks")
        self._update_rule_sums()

    def refresh_rule_columns(self, chosen: str | None = None) -> None:
        """The "Tables of sums of" choices: none and the schema's number columns; the chosen
        column stays (marked) when the data no longer has it, so nothing typed is lost — the
        engine's sentence then names it at the run."""
        combo = self.rules_sum_combo
        if chosen is None:
            chosen = combo.currentData() or NO_SUMS
        columns = numeric_columns(self.schema_editor.schema_dict())
        items = [(NO_SUMS, "none: the tables are counts")] + [(c, c) for c in columns]
        if chosen and chosen not in columns:
            items.append((chosen, f"{chosen} (not a number column of this data)"))
        if [(combo.itemData(i), combo.itemText(i)) for i in range(combo.count())] != items:
            combo.blockSignals(True)
            combo.clear()
            for value, text in items:
                combo.addItem(text, value)
            combo.blockSignals(False)
        select_data(combo, chosen)
        self._update_rule_sums()

    def _update_rule_sums(self, *_args) -> None:
        """The dominance and p-ratio fields apply to tables of sums only."""
        sums = bool(self.rules_sum_combo.currentData())
        for key in SUM_KEYS:
            self.fields[key].setEnabled(sums)
