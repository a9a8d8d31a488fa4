"""engine.atomic_write: a file is replaced whole or not at all (issue 18)."""

import os

import pytest

from engine.atomic_write import atomic_path, copy_file, is_temp_name, write_bytes, write_text

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")


def _killed_in_child(action) -> int:
    """Run ``action`` in a forked child and return its exit status; the child dies with
    os._exit (no clean-up runs, as under kill -9) wherever ``action`` says so."""
    pid = os.fork()
    if pid == 0:                                         # pragma: no cover - the child
        try:
            action()
        finally:
            os._exit(0)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@needs_fork
def test_a_crash_between_write_and_rename_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "result.json"
    path.write_text("old, complete\n")

    def write_then_die():
        monkeypatch.setattr(os, "replace", lambda *a, **k: os._exit(9))   # dies at the rename
        write_text(path, "new " * 100_000)

    assert _killed_in_child(write_then_die) == 9
    assert path.read_text() == "old, complete\n"
    left = [p.name for p in tmp_path.iterdir() if p != path]
    # What the crash left is a hidden temporary name, which no reader takes for an output.
    assert len(left) == 1 and is_temp_name(left[0], "result.json"), left


@needs_fork
def test_a_crash_while_writing_leaves_the_old_file(tmp_path):
    path = tmp_path / "report.pdf"
    path.write_bytes(b"%PDF old")

    def die_half_way():
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            fh.write(b"%PDF new, first half")
            fh.flush()
            os._exit(9)

    assert _killed_in_child(die_half_way) == 9
    assert path.read_bytes() == b"%PDF old"


def test_an_error_while_writing_leaves_the_old_file_and_no_temporary_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("seed = 1\n")
    with pytest.raises(RuntimeError), atomic_path(path) as tmp:
        tmp.write_text("seed = 2\n")
        raise RuntimeError("disk full")
    assert path.read_text() == "seed = 1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_writes_replace_the_file_whole_and_leave_nothing_else(tmp_path):
    write_text(tmp_path / "a.txt", "line\n")
    write_text(tmp_path / "a.txt", "é\n")
    write_bytes(tmp_path / "b.bin", b"\x00\x01")
    copy_file(tmp_path / "b.bin", tmp_path / "c.bin")
    assert (tmp_path / "a.txt").read_bytes() == "é\n".encode()   # "\n" kept on every system
    assert (tmp_path / "c.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.bin", "c.bin"]


def test_temporary_names_are_recognised():
    assert is_temp_name(".report.pdf.k2j3h4.tmp", "report.pdf")
    assert not is_temp_name(".report.pdf.k2j3h4.tmp", "result.json")
    assert not is_temp_name("report.pdf")
    assert not is_temp_name("notes.tmp")          # a user's file, not hidden: never ours
