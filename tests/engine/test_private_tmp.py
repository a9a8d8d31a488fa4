"""Temporary files live in a private folder (0700) removed at exit, and after a crash on the
next start (issue 11)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHILD = """
import os, sys, tempfile
sys.path.insert(0, {repo!r})
from engine.private_tmp import use_private_tmp
session = use_private_tmp({base!r})
fd, name = tempfile.mkstemp()
os.write(fd, b"personal record"); os.close(fd)
print(session, name, flush=True)
if sys.argv[1] == "crash":
    os._exit(9)          # no atexit: the folder stays behind
"""


def _child(base: Path, how: str) -> tuple[Path, Path, int]:
    code = CHILD.format(repo=str(REPO), base=str(base))
    proc = subprocess.run([sys.executable, "-c", code, how], capture_output=True, text=True,
                          timeout=60)
    session, name = proc.stdout.split()
    return Path(session), Path(name), proc.returncode


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_private_folder_removed_at_exit_and_after_a_crash(tmp_path):
    session, name, rc = _child(tmp_path, "exit")
    assert rc == 0 and name.parent == session
    assert not session.exists()                       # removed at a normal exit
    root = session.parent
    assert stat.S_IMODE(root.stat().st_mode) == 0o700

    crashed, name, rc = _child(tmp_path, "crash")
    assert rc == 9 and crashed.exists() and name.exists()
    assert stat.S_IMODE(crashed.stat().st_mode) == 0o700
    _child(tmp_path, "exit")                         # the next start cleans up
    assert not crashed.exists()


@pytest.mark.skipif(os.name == "nt", reason="POSIX ownership")
def test_a_folder_that_is_a_link_is_refused(tmp_path):
    from engine.private_tmp import _private_dir

    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(PermissionError, match="not a folder owned by this user"):
        _private_dir(link)
