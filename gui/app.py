"""Start the desktop app: ``main(argv)`` is what ``python main.py`` calls (no sub-command).

Only Qt and the light engine modules are imported before the window opens, so it opens in about
a second; torch is then imported on a background thread (:func:`preload_torch`), reportlab by
the jobs that need it.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None, open_sample: str | None = None,
         open_path: str | None = None) -> int:
    """Create the application and the main window; with ``open_sample="mechanism"`` open the
    mechanism page prefilled with resources/configs/mechanism_demo.toml, with ``open_path`` the
    project file a user double-clicked or named (``python main.py FILE.praudit.json``, issue
    18) — a file that does not open gets the same sentence as File ▸ Open, over a window that
    stays usable. Returns the exit code.

    Before Qt is imported, :func:`gui.platform_check.display_problem` makes sure a window can
    open; if not, one sentence on stderr and exit code 2 (never Qt's abort). From then on an
    uncaught exception goes to :class:`gui.error_dialog.InternalErrorReporter`: a box and the
    error log, never the console alone."""
    from gui.platform_check import display_problem

    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2

    from PySide6.QtWidgets import QApplication

    argv = list(sys.argv if argv is None else argv)
    app = QApplication.instance() or QApplication(argv or ["privacy-risk-auditor"])
    window = start_window(app, open_sample=open_sample, open_path=open_path)
    preload_torch()
    try:
        return app.exec()
    finally:
        window.error_reporter.uninstall()
        app.error_reporter = None


def start_window(app, open_sample: str | None = None, open_path: str | None = None):
    """Name the application, install the error reporter, show the main window and open the
    sample or the project asked for; returns the window (its ``error_reporter`` attached)."""
    import pyqtgraph as pg

    from gui.error_dialog import InternalErrorReporter
    from gui.main_window import MainWindow
    from gui.recent_projects import APPLICATION, ORGANISATION

    app.setOrganizationName(ORGANISATION)
    app.setApplicationName(APPLICATION)
    reporter = InternalErrorReporter(parent=app)    # after the names: they make its folder
    reporter.install()
    app.error_reporter = reporter
    configure_plots(pg)
    window = MainWindow()
    window.error_reporter = reporter
    if open_sample:
        window.open_sample(open_sample)
    window.show()
    window.offer_recovery()       # unsaved work of a session that closed unexpectedly
    if open_path:
        window.open_project(open_path)
    return window


def preload_torch() -> None:
    """Import torch on a background thread once the window is up (issue 11, cancel within
    2 s): its first import takes 2 s on an idle 2-core machine and 8 s under load, and no
    Cancel can interrupt an import — a job started later finds it loaded. A job started while
    the import runs waits for it (Python's import lock), as it would have imported it itself.

    torch's compiler package is loaded too: torch's optimisers load it the first time one is
    made (every model, location meta-classifier and RAP run makes one), which is 2 s on an idle
    2-core machine and 5–16 s under load, once per session — the model estimate's "Loading the
    training library" part, paid here while the officer fills in the form (71 MiB, which the
    first training would take anyway)."""
    import threading

    from engine.runtime import load_torch

    threading.Thread(target=load_torch, name="preload-torch", daemon=True).start()


def configure_plots(pg) -> None:
    """White plots with black text: they read like the printed report and print well."""
    pg.setConfigOptions(antialias=True, background="w", foreground="k")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv))
