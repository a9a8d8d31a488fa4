"""Qt side of Privacy Risk Auditor: windows, pages, widgets and the one job runner."""
