"""Where the Compare window keeps comparisons and how it reads one candidate back (issue 34
item 1; gui/pages/compare_page.py). Qt-free helpers.

Each comparison is a folder of its own, ``comparisons/<audit>-<date>-<time>/`` in the app's
per-user data folder (engine.estimates.machine.app_data_folder; ``PRA_APP_DATA`` when set):
the engine streams ``comparison.json`` and ``candidate-<i>/`` into it as each candidate
finishes (engine.compare.run), so a comparison outlives the window and the session.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from engine.compare import COMPARISON_FILE, Comparison, read_comparison
from engine.data.errors import InputError
from engine.estimates.machine import app_data_folder

RESULT_FILE = "result.json"


def comparisons_folder() -> Path:
    """Where comparisons are kept (module docstring)."""
    return app_data_folder() / "comparisons"


def new_comparison_folder(audit_type: str) -> Path:
    """A fresh folder ``<audit>-<date-time>`` for one comparison (never one in use)."""
    root = comparisons_folder()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder, n = root / f"{audit_type}-{stamp}", 1
    while folder.exists():
        n += 1
        folder = root / f"{audit_type}-{stamp}-{n}"
    return folder


def latest_comparison(audit_type: str) -> tuple[Path, Comparison] | None:
    """The newest readable comparison of ``audit_type`` in :func:`comparisons_folder`."""
    root = comparisons_folder()
    if not root.is_dir():
        return None
    folders = sorted((p for p in root.glob(f"{audit_type}-*") if (p / COMPARISON_FILE).is_file()),
                     key=lambda p: (p / COMPARISON_FILE).stat().st_mtime, reverse=True)
    for folder in folders:
        try:
            return folder, read_comparison(folder)
        except InputError:
            continue
    return None


def read_candidate(folder: Path, row) -> tuple[dict, dict]:
    """A run candidate's (config, result.json dict) from the comparison's ``folder``: the
    result checked against the SHA-256 the comparison recorded (engine.signoff.result_sha256,
    the hash a sign-off records: a result changed since the run no longer is that candidate's),
    the config the result lists. InputError sentences."""
    from engine.results.loaded import load_result
    from engine.signoff import result_sha256

    where = Path(row.folder)
    result_file = (where if where.is_absolute() else folder / where) / RESULT_FILE
    try:
        result = json.loads(result_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{result_file}: cannot be read ({exc.__class__.__name__}); run the "
                         "comparison again.", source=str(result_file)) from None
    if row.result_sha256 and result_sha256(result) != row.result_sha256:
        raise InputError(f"{result_file}: has changed since the comparison was run (its "
                         "SHA-256 differs from the one the comparison recorded); run the "
                         "comparison again.", source=str(result_file))
    return dict(load_result(result).config), result
