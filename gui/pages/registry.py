"""The audit pages the app offers, by project ``audit_type``.

The main window builds one page per entry and dispatches projects, samples and home cards by
this key, so adding an audit type is one :class:`~gui.pages.audit_page.AuditPage` subclass
and one line here.
"""

from __future__ import annotations

from gui.pages.aggregates_page import AggregatesPage
from gui.pages.audit_page import AuditPage
from gui.pages.location_page import LocationPage
from gui.pages.mechanism_page import MechanismPage
from gui.pages.model_page import ModelPage

AUDIT_PAGES: dict[str, type[AuditPage]] = {
    MechanismPage.AUDIT_TYPE: MechanismPage,
    LocationPage.AUDIT_TYPE: LocationPage,
    AggregatesPage.AUDIT_TYPE: AggregatesPage,
    ModelPage.AUDIT_TYPE: ModelPage,
}
