"""The recent-projects list, kept in QSettings (organisation "PrivacyRiskAuditor").

Always an INI file in the user scope, so that tests can redirect it with
``QSettings.setPath(IniFormat, UserScope, tmp_dir)`` and never touch the user's real list.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings

ORGANISATION = "PrivacyRiskAuditor"
APPLICATION = "Privacy Risk Auditor"
RECENT_KEY = "recent_projects"
MAX_RECENT = 8


def settings() -> QSettings:
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANISATION,
                     APPLICATION)


def recent_projects() -> list[str]:
    """Most recent first; files that no longer exist are left out."""
    value = settings().value(RECENT_KEY, [])
    if isinstance(value, str):  # QSettings returns a lone string for a one-element list
        value = [value]
    return [p for p in (value or []) if isinstance(p, str) and os.path.exists(p)]


def add_recent_project(path: str) -> list[str]:
    path = os.path.abspath(path)
    items = [path] + [p for p in recent_projects() if os.path.abspath(p) != path]
    items = items[:MAX_RECENT]
    store = settings()
    store.setValue(RECENT_KEY, items)
    store.sync()
    return items


def clear_recent_projects() -> None:
    store = settings()
    store.remove(RECENT_KEY)
    store.sync()
