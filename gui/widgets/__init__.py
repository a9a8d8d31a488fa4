"""Reusable result widgets: ROC plot, metrics table, what-if sweep plot, verdict banner."""
