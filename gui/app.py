"""Start the desktop app: ``main(argv)`` is what ``python main.py`` calls (no sub-command).

Only Qt and the light engine modules are imported here; torch and reportlab are imported by the
jobs that need them, so the window opens in about a second.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None, open_sample: str | None = None) -> int:
    """Create the application and the main window; with ``open_sample="mechanism"`` open the
    mechanism page prefilled with resources/configs/mechanism_demo.toml. Returns the exit code.

    Before Qt is imported, :func:`gui.platform_check.display_problem` makes sure a window can
    open; if not, one sentence on stderr and exit code 2 (never Qt's abort)."""
    from gui.platform_check import display_problem

    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2

    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow
    from gui.recent_projects import APPLICATION, ORGANISATION

    argv = list(sys.argv if argv is None else argv)
    app = QApplication.instance() or QApplication(argv or ["privacy-risk-auditor"])
    app.setOrganizationName(ORGANISATION)
    app.setApplicationName(APPLICATION)
    configure_plots(pg)
    window = MainWindow()
    if open_sample:
        window.open_sample(open_sample)
    window.show()
    return app.exec()


def configure_plots(pg) -> None:
    """White plots with black text: they read like the printed report and print well."""
    pg.setConfigOptions(antialias=True, background="w", foreground="k")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv))
