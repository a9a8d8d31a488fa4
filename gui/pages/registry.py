"""The app's page for each audit type, keyed on the audit type's engine registry entry
(:data:`engine.audits.registry.AUDIT_TYPES`).

The main window builds one page per entry and dispatches projects, samples and home cards by
the entry's name, so adding an audit type's screen is one
:class:`~gui.pages.audit_page.AuditPage` subclass and one line here
(docs/dev/adding_an_audit_type.md).
"""

from __future__ import annotations

from engine.audits.registry import AUDIT_TYPES, AuditType
from gui.pages.aggregates_page import AggregatesPage
from gui.pages.audit_page import AuditPage
from gui.pages.location_page import LocationPage
from gui.pages.mechanism_page import MechanismPage
from gui.pages.model_page import ModelPage

AUDIT_PAGES: dict[AuditType, type[AuditPage]] = {
    AUDIT_TYPES["mechanism"]: MechanismPage,
    AUDIT_TYPES["location"]: LocationPage,
    AUDIT_TYPES["aggregates"]: AggregatesPage,
    AUDIT_TYPES["model"]: ModelPage,
}


def page_class(audit_type: str) -> type[AuditPage] | None:
    """The page class of the audit type named ``audit_type`` (None: the app has no page)."""
    return next((page for entry, page in AUDIT_PAGES.items() if entry.name == audit_type),
                None)
