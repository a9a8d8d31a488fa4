"""PDF report of an audit (reportlab only, Qt-free): ``write_report(result, path)``.

Imported only when a report is written, so reportlab stays out of the GUI's start-up path.
"""

from engine.report.pdf import write_report

__all__ = ["write_report"]
