"""Home page: four audit cards, all available, sample and project buttons, recents."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gui.recent_projects import add_recent_project, recent_projects
from tests.gui.conftest import distinct_colours


def test_home_shows_four_available_cards(main_window, qtbot, tmp_path):
    home = main_window.home_page
    assert main_window.stack.currentWidget() is home
    cards = home.cards
    assert len(cards) == 4
    assert [c.audit_type for c in cards] == ["mechanism", "location", "aggregates", "model"]
    assert all(c.isEnabled() for c in cards)
    assert "What does this ε really allow an attacker to do?" in cards[0].question_label.text()
    assert "Does this model reveal who it was trained on?" in cards[3].question_label.text()
    assert all(c.badge is None for c in cards)           # no "coming soon" card remains
    assert home.open_project_button.isVisible()
    assert home.open_sample_button.isVisible()

    image = main_window.grab().toImage()
    image.save(str(tmp_path / "home.png"))
    assert distinct_colours(image) > 20


def test_mechanism_card_opens_the_page(main_window, qtbot):
    qtbot.mouseClick(main_window.home_page.cards[0], Qt.MouseButton.LeftButton)
    assert main_window.stack.currentWidget() is main_window.mechanism_page


def test_open_sample_prefills_the_form(main_window):
    main_window.home_page.open_sample_button.click()
    page = main_window.mechanism_page
    assert main_window.stack.currentWidget() is page
    assert page.name_edit.text().startswith("Sample")
    assert page.fields["epsilon"].text() == "1"
    assert page.fields["observations"].text() == "10"


def test_recent_projects_use_the_private_settings(main_window, tmp_path, private_settings):
    project = tmp_path / "a.praudit.json"
    project.write_text("{}")
    add_recent_project(str(project))
    assert recent_projects() == [str(project)]
    assert any(private_settings.rglob("*.ini"))
    main_window.show_home()
    assert main_window.home_page.recent_list.count() == 1


def test_app_main_opens_the_sample_and_returns(qtbot, monkeypatch):
    """main() builds the window, opens the sample and returns exec()'s code.

    exec() is replaced: a nested real event loop plus quit() inside the test session leaves
    Qt's main loop in a state where later queued signals are not delivered.
    """
    from PySide6.QtWidgets import QApplication

    from gui import app as gui_app
    from gui.main_window import MainWindow

    shown = []

    def fake_exec(*args):
        shown.extend(w for w in QApplication.topLevelWidgets()
                     if isinstance(w, MainWindow) and w.isVisible())
        return 0

    monkeypatch.setattr(QApplication, "exec", fake_exec)
    assert gui_app.main(["prog"], open_sample="mechanism") == 0
    assert shown, "main() showed no window"
    window = shown[-1]
    qtbot.addWidget(window)
    assert window.stack.currentWidget() is window.mechanism_page
    assert window.mechanism_page.name_edit.text().startswith("Sample")


def test_the_window_fits_a_small_screen():
    """Walk-through 2026-11-26: on a 1280 × 720 screen the 860-pixel window put Run audit below
    the screen's edge. The first size is shrunk to the screen's free area."""
    from PySide6.QtCore import QRect

    from gui.main_window import FRAME_ALLOWANCE, PREFERRED_SIZE, initial_size

    class Screen:
        def __init__(self, width, height):
            self.free = QRect(0, 0, width, height)

        def availableGeometry(self):
            return self.free

    assert initial_size(Screen(1280, 720)) == (1280, 720 - FRAME_ALLOWANCE)
    assert initial_size(Screen(1024, 600)) == (1024, 600 - FRAME_ALLOWANCE)
    assert initial_size(Screen(2560, 1440)) == PREFERRED_SIZE
    assert initial_size(None) == PREFERRED_SIZE
