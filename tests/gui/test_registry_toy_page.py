"""The GUI half of the toy audit type (tests/toy_audit; docs/dev/adding_an_audit_type.md):
its page is one line of the page table (``gui.pages.registry.AUDIT_PAGES``, keyed on the
registry entry), and the main window then offers it on the home page, opens its sample, runs
it and shows its result — with no line of the main window or the home page touched."""

from __future__ import annotations

import pytest

from engine.audits.registry import AUDIT_TYPES
from gui.pages.registry import AUDIT_PAGES, page_class
from tests.toy_audit.entry import TOY
from tests.toy_audit.page import ToyPage


def test_every_registry_entry_has_its_page():
    assert [entry.name for entry in AUDIT_PAGES] == list(AUDIT_TYPES)
    assert all(entry is AUDIT_TYPES[entry.name] and page.AUDIT_TYPE == entry.name
               for entry, page in AUDIT_PAGES.items())


@pytest.fixture
def toy_window(monkeypatch, qtbot, plots_configured):
    monkeypatch.setitem(AUDIT_TYPES, "toy", TOY)       # the registry entry
    monkeypatch.setitem(AUDIT_PAGES, TOY, ToyPage)     # the page table's line
    from gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    if window.runner.is_busy():
        window.runner.cancel()
        window.runner.wait(30_000)
        pytest.fail("the test left an audit or report job running")


def test_toy_page_is_built_offered_and_runs(toy_window, qtbot):
    assert page_class("toy") is ToyPage
    card = next(c for c in toy_window.home_page.cards if c.audit_type == "toy")
    assert card.isEnabled()
    page = toy_window.audit_pages["toy"]
    assert isinstance(page, ToyPage)
    toy_window.open_sample("toy")
    assert toy_window.stack.currentWidget() is page
    page.fields["coins"].setText("12")
    page.start_run()
    qtbot.waitUntil(lambda: page.result() is not None, timeout=30_000)
    assert page.result()["audit_type"] == "toy" and page.result()["theory"]["coins"] == 12
