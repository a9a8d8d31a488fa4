"""The toy audit's GUI page: one form step (name, coins), the generic results view."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QVBoxLayout

from gui.pages.audit_page import AuditPage, FormStep
from gui.widgets.form import FieldSpec
from tests.toy_audit import audit


class ToyPage(AuditPage):
    AUDIT_TYPE = "toy"
    AUDIT_LABEL = "Toy audit"
    CONFIG_CLASS = audit.ToyConfig
    FORM_STEPS = (FormStep("Coins", "The coins", "How many times to toss the coin."),)
    FIELDS = {"coins": FieldSpec("Tosses", 0, "How many tosses.", integer=True)}

    def build_step(self, index: int, layout: QVBoxLayout) -> None:
        form = QFormLayout()
        self.add_name_row(form)
        self.add_field_row(form, "coins")
        layout.addLayout(form)

    def form_dict(self) -> dict:
        d = dict(self.loaded_config)
        d["name"] = self.name_edit.text()
        return self.apply_fields(d)

    def fill_form(self, config: dict) -> None:
        self.name_edit.setText(str(config.get("name", "")))
        self.fill_fields(config)

    @staticmethod
    def run_audit(config, progress, cancel) -> dict:
        return audit.run(config, progress=progress, cancel=cancel).to_dict()
