"""Issue 31, item 1: recovery copies of unsaved work (engine.project), never a project file."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from engine.project import (
    Project,
    orphaned_recoveries,
    recovery_path,
    remove_recovery,
    save_recovery,
)


def dead_pid() -> int:
    """The process id of a process that has ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def project(epsilon: float) -> Project:
    return Project(audit_type="mechanism", config={"audit_type": "mechanism",
                                                   "epsilon": epsilon})


def test_a_copy_is_private_and_names_the_project_it_belongs_to(tmp_path):
    folder = tmp_path / "recovery"
    copy = save_recovery(folder, project(0.5), str(tmp_path / "a.praudit.json"))
    assert copy == recovery_path(folder, "mechanism")
    assert copy.name == f"{os.getpid()}-mechanism.recovery.json"
    data = json.loads(copy.read_text(encoding="utf-8"))
    assert data["config"]["epsilon"] == 0.5 and data["recovers"] == str(tmp_path / "a.praudit.json")
    assert data["saved"]
    if os.name == "posix":
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert not (tmp_path / "a.praudit.json").exists()          # never the project file


@pytest.mark.skipif(os.name != "posix", reason="process ids of ended processes")
def test_only_the_copies_of_ended_sessions_are_offered(tmp_path):
    folder = tmp_path / "recovery"
    mine = save_recovery(folder, project(0.5))                 # this session: still running
    assert orphaned_recoveries(folder) == []
    gone = recovery_path(folder, "mechanism", dead_pid())
    os.replace(save_recovery(folder, project(0.7), "/x/a.praudit.json"), gone)
    damaged = recovery_path(folder, "location", dead_pid())
    damaged.write_text('{"audit_type": "loc')
    found = orphaned_recoveries(folder)
    assert [(r.file, r.project.config["epsilon"], r.project_path) for r in found] == [
        (gone, 0.7, "/x/a.praudit.json")]
    assert damaged.exists()                                    # left as it is

    save_recovery(folder, project(0.5))
    remove_recovery(folder)                                    # a clean quit: this session's
    assert not mine.exists() and gone.exists()
