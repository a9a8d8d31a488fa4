"""Privacy Risk Auditor engine: everything that computes. Never imports Qt.

Heavy dependencies (torch, ortools, reportlab, dp_accounting) are imported inside the
functions that need them so that importing ``engine`` stays cheap.
"""

__version__ = "0.1.0"
