"""GUI test fixtures: headless Qt, a private settings file, and no thread left behind.

``QT_QPA_PLATFORM=offscreen`` must be set before Qt is imported, so it is set at the top of
this module. QSettings are redirected to a temporary folder so tests never read or write the
user's recent-projects list.
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ.setdefault("PRA_DEVICE", "cpu")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, QThreadPool  # noqa: E402

import gui  # noqa: E402,F401  (applies the PySide6 reference-count guard before any widget)

# A job whose outcome signal has been delivered still needs a moment to return from run().
THREAD_GRACE_MS = 500


@pytest.fixture(autouse=True)
def private_settings(tmp_path_factory):
    """Point the user-scope INI settings at a fresh folder for each test."""
    folder = tmp_path_factory.mktemp("qsettings")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    yield folder


@pytest.fixture(autouse=True)
def questions_answered(monkeypatch):
    """The main window's own questions about unsaved work (issue 31) are real modal boxes,
    which would wait for ever offscreen: answered Discard ("save changes?") and New ("start
    a new project with this data?") unless a test answers them itself."""
    from gui.main_window import DISCARD, NEW, MainWindow

    monkeypatch.setattr(MainWindow, "ask_save_changes", lambda self, text: DISCARD)
    monkeypatch.setattr(MainWindow, "ask_new_project", lambda self, text, unsaved: NEW)


@pytest.fixture(autouse=True)
def no_thread_left_running(request):
    """Fail any test that leaves a job running on the thread pool after it ends."""
    yield
    pool = QThreadPool.globalInstance()
    if pool.activeThreadCount() == 0:
        return
    active = pool.activeThreadCount()
    finished = pool.waitForDone(THREAD_GRACE_MS)
    if not finished:
        # Clean up so later tests are not affected, then fail this one.
        pool.waitForDone(60_000)
    assert finished, (f"{request.node.name} left {active} job(s) running on "
                      "the thread pool")


@pytest.fixture
def plots_configured():
    import pyqtgraph as pg

    from gui.app import configure_plots

    configure_plots(pg)


@pytest.fixture
def main_window(qtbot, plots_configured):
    """The real main window, shown, closed (and its jobs cancelled) after the test."""
    from gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    if window.runner.is_busy():
        # Clean up (a running job would make closing the window ask), then report the leak.
        window.runner.cancel()
        window.runner.wait(30_000)
        pytest.fail("the test left an audit or report job running")


def distinct_colours(image, step: int = 4) -> int:
    """Number of distinct colours in a QImage, sampling every ``step``-th pixel."""
    colours = set()
    for y in range(0, image.height(), step):
        for x in range(0, image.width(), step):
            colours.add(image.pixel(x, y))
    return len(colours)


@pytest.fixture
def run_main(qtbot, monkeypatch, plots_configured):
    """``main.main(argv)`` up to the event loop: the window it opened (closed after)."""
    from PySide6.QtWidgets import QApplication

    import gui.app
    import main as entry

    windows = []
    start = gui.app.start_window

    def recording_start(app, **kwargs):
        window = start(app, **kwargs)
        qtbot.addWidget(window)
        windows.append(window)
        return window

    monkeypatch.setattr(gui.app, "start_window", recording_start)
    monkeypatch.setattr(gui.app, "preload_torch", lambda: None)
    monkeypatch.setattr(QApplication, "exec", lambda self=None: 0)
    monkeypatch.setattr("engine.private_tmp.use_private_tmp", lambda: None)

    def run(argv):
        assert entry.main(argv) == 0
        return windows[-1]
    return run
