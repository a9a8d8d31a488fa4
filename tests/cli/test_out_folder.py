"""The output folder against a second run, the user's own files, signals and faults (issue 31
items 7, 8, 9; item 12's unknown command): one run at a time, nothing of the user's replaced,
SIGTERM and Ctrl+C give one line and put the earlier run back, a full or read-only disk and an
--out that is a file each get a sentence (engine.run_folder, main.py)."""

import errno
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

import main
from engine.atomic_write import write_bytes
from engine.data.errors import InputError
from engine.results.result import AuditResult
from engine.run_folder import (
    JOURNAL,
    LOCK,
    OUTPUT_NAMES,
    PREVIOUS,
    check_writable,
    locked,
    prepare_folder,
    read_finished_run,
    where_the_last_run_is,
    write_run,
)

ROOT = Path(__file__).resolve().parents[2]
SMALL = ('audit_type = "mechanism"\nmechanism = "gaussian"\nepsilon = 0.5\nobservations = 4\n'
         'trials = 2000\nseed = 11\n')
needs_signals = pytest.mark.skipif(os.name != "posix", reason="needs POSIX signals")


def _files(folder: Path) -> dict[str, str]:
    """SHA-256 of every file under ``folder`` (hidden ones too), by relative path."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _result(seed: int) -> AuditResult:
    return AuditResult(audit_type="mechanism", name=f"run with seed {seed}", seed=seed,
                       config={"seed": seed}, software={}, runtime_s=0.0, attacks=[],
                       theory={}, verdict={"level": "low"}, summary="")


def _quick_report(result: dict, path, *, include_records=False):
    write_bytes(path, f"%PDF-1.4 {result['name']}\n%%EOF\n".encode())
    return path


@pytest.fixture
def quick_report(monkeypatch):
    import engine.report

    monkeypatch.setattr(engine.report, "write_report", _quick_report)


def _earlier(folder: Path) -> dict[str, str]:
    """A finished run (seed 5, with a report) in ``folder``; returns its files."""
    write_run(folder, _result(5), config_toml="seed = 5\n", report=True)
    return _files(folder)


def cli(*args, cwd=ROOT, env=None, timeout=300):
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=env)


# --------------------------------------------------------------------- item 7: one run at a time

def test_a_folder_is_locked_for_one_run_at_a_time(tmp_path):
    out = tmp_path / "out"
    with locked(out):
        assert (out / LOCK).is_file()
        with pytest.raises(InputError) as caught, locked(out):
            pass
        message = caught.value.one_line()
        assert message.startswith(f"Another run is writing into {out} (started ")
        assert "wait for it or choose another --out folder." in message
    assert not (out / LOCK).exists()
    with locked(out):                    # released: the next run takes it
        pass


@needs_signals
def test_the_lock_dies_with_a_killed_run(tmp_path):
    """kill -9 of the run holding the lock never leaves a stale lock."""
    out = tmp_path / "out"
    script = ("import os, sys\nfrom engine.run_folder import locked\n"
              "held = locked(sys.argv[1])\nheld.__enter__()\nos.kill(os.getpid(), 9)\n")
    done = subprocess.run([sys.executable, "-c", script, str(out)], cwd=ROOT, timeout=120)
    assert done.returncode == -signal.SIGKILL
    assert (out / LOCK).exists()             # the file stays; its lock went with the process
    with locked(out):
        pass


def test_a_second_run_into_a_busy_folder_is_one_sentence_and_exit_2(tmp_path):
    out = tmp_path / "out"
    config = tmp_path / "c.toml"
    config.write_text(SMALL)
    with locked(out):
        done = cli("run", str(config), "--out", str(out))
        assert not [p for p in out.iterdir() if p.name != LOCK]
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: Another run is writing into {out}")
    assert done.stdout == ""                 # nothing ran: no estimate, no verdict


def test_result_json_lists_the_bytes_this_run_wrote(tmp_path, monkeypatch):
    """Another writer replacing config.toml while the report is written (the issue's two runs
    0–2 s apart) must not make the folder pass as this run's: result.json lists the hash of
    the config this run wrote, so the mixed folder is not a finished run."""
    import engine.report

    out = tmp_path / "out"

    def report_while_another_writes(result, path, *, include_records=False):
        (out / "config.toml").write_text("seed = 2\n")          # the other run's config
        return _quick_report(result, path)
    monkeypatch.setattr(engine.report, "write_report", report_while_another_writes)
    outputs = write_run(out, _result(1), config_toml="seed = 1\n", report=True)
    config = next(e for e in outputs if e["path"] == "config.toml")
    assert config["sha256"] == hashlib.sha256(b"seed = 1\n").hexdigest()
    with pytest.raises(InputError, match="config.toml: is missing or is not the file"):
        read_finished_run(out)


# --------------------------------------------------------------------- item 8: the user's files

def test_the_user_s_config_in_the_output_folder_is_never_replaced(tmp_path):
    """`main.py run config.toml --out .` with the user's own config.toml (comments and all):
    refused before the audit, naming the file; the config byte-identical."""
    mine = "# my notes on this release\n" + SMALL
    (tmp_path / "config.toml").write_text(mine)
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4 made by hand\n%%EOF\n")
    done = cli("run", "config.toml", "--out", ".", "--quiet", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert "config.toml" in lines[0] and "move or rename it" in lines[0]
    assert (tmp_path / "config.toml").read_text() == mine
    assert (tmp_path / "report.pdf").read_bytes() == b"%PDF-1.4 made by hand\n%%EOF\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml", "report.pdf"]


@pytest.mark.parametrize("planted", ["report.pdf", "config.toml", "recommended_model/m.json",
                                     "result.json"])
def test_a_file_the_app_did_not_write_stops_the_run(tmp_path, quick_report, planted):
    """Beside a finished earlier run: a hand-made report, an edited config, a file put in the
    model folder, a result.json of another program — each refused by name before the audit
    (check_writable) and before the first write (write_run), nothing changed."""
    earlier = _earlier(tmp_path)
    path = tmp_path / planted
    path.parent.mkdir(exist_ok=True)
    path.write_text("the user's own\n")
    before = _files(tmp_path)
    _refused_before_the_audit_and_the_write(tmp_path, path, "move or rename")
    assert set(earlier) <= set(before)


def _refused_before_the_audit_and_the_write(folder: Path, path: Path, fix: str) -> None:
    """check_writable (before the audit) and write_run (before its first write) each refuse,
    naming ``path`` and saying ``fix``, and leave every file under ``folder`` as it was."""
    before = _files(folder)
    for attempt in (lambda: check_writable(folder),
                    lambda: write_run(folder, _result(11), config_toml="seed = 11\n")):
        with pytest.raises(InputError) as caught:
            attempt()
        assert str(path) in caught.value.one_line() and fix in str(caught.value)
        assert _files(folder) == before


def test_the_app_s_own_earlier_run_is_still_replaced(tmp_path, quick_report):
    _earlier(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    write_run(tmp_path, _result(11), config_toml="seed = 11\n", report=False)
    assert read_finished_run(tmp_path)["seed"] == 11
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml", "notes.txt",
                                                          "result.json"]


# --------------------------------------------------------------------- item 9: faults

def test_a_full_disk_while_writing_is_a_sentence_and_the_earlier_run_comes_back(
        tmp_path, monkeypatch):
    """The report's write fails with ENOSPC (no file name, as the issue's "error: : No space
    left on device"): one sentence naming the folder and what to do; the new config.toml is
    gone and the earlier run is back in view."""
    import engine.report

    earlier = _earlier(tmp_path)

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(engine.report, "write_report", disk_full)
    with pytest.raises(InputError) as caught:
        write_run(tmp_path, _result(11), config_toml="seed = 11\n", report=True)
    message = caught.value.one_line()
    assert message.startswith(f"{tmp_path}: the disk filled up") and "free some space" in message
    assert f"{tmp_path} holds the last finished run" in message
    assert _files(tmp_path) == earlier and read_finished_run(tmp_path)["seed"] == 5


def test_a_full_disk_at_the_first_write_is_a_sentence(tmp_path, monkeypatch):
    """ENOSPC from the system call itself (os.fsync of the first file written)."""
    earlier = _earlier(tmp_path)

    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(InputError, match="the disk filled up"):
        write_run(tmp_path, _result(11), config_toml="seed = 11\n", report=False)
    monkeypatch.undo()
    assert _files(tmp_path) == earlier


def test_an_interrupted_write_puts_the_earlier_run_back(tmp_path, monkeypatch):
    import engine.report

    earlier = _earlier(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(engine.report, "write_report", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_run(tmp_path, _result(11), config_toml="seed = 11\n", report=True)
    assert _files(tmp_path) == earlier
    assert not (tmp_path / PREVIOUS).exists() and not (tmp_path / JOURNAL).exists()
    assert where_the_last_run_is(tmp_path) == f"{tmp_path} holds the last finished run"


def test_an_earlier_run_that_cannot_be_put_back_is_named(tmp_path, monkeypatch):
    """When the earlier run cannot be moved back (the renames fail), the sentence says it is
    in .previous-run/, and it is there, whole."""
    import engine.report

    earlier = _earlier(tmp_path)
    real_replace = os.replace

    def interrupted(*args, **kwargs):
        # From here on every rename fails: the write and the restore alike.
        def refuse(src, dst):
            if Path(src).parent.name == PREVIOUS:
                raise PermissionError(errno.EACCES, "Permission denied")
            return real_replace(src, dst)
        monkeypatch.setattr(os, "replace", refuse)
        raise KeyboardInterrupt
    monkeypatch.setattr(engine.report, "write_report", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_run(tmp_path, _result(11), config_toml="seed = 11\n", report=True)
    monkeypatch.undo()
    where = where_the_last_run_is(tmp_path)
    assert where.startswith(f"the earlier run is in {tmp_path / PREVIOUS}")
    assert read_finished_run(tmp_path / PREVIOUS)["seed"] == 5
    assert {f"{PREVIOUS}/{rel}": sha for rel, sha in earlier.items()} == {
        rel: sha for rel, sha in _files(tmp_path).items() if rel.startswith(PREVIOUS)}
    assert not [p for p in OUTPUT_NAMES if (tmp_path / p).exists()]


def test_an_out_that_is_a_file_or_under_one_is_a_sentence(tmp_path):
    afile = tmp_path / "notes.txt"
    afile.write_text("mine")
    config = tmp_path / "c.toml"
    config.write_text(SMALL)
    for out, words in ((afile, f"{afile}: is a file, not a folder"),
                       (afile / "out", f"{afile / 'out'}: cannot be made, since {afile} is a "
                                       "file, not a folder")):
        done = cli("run", str(config), "--out", str(out), "--quiet")
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {words}"), lines
        assert "--out" in lines[0]
    assert afile.read_text() == "mine"


def test_a_read_only_disk_is_a_sentence(tmp_path, monkeypatch):
    """Monkeypatched (EROFS from mkdir and from the write check): the suite may run as root,
    for whom a folder's permissions stop nothing, and a read-only mount needs root."""
    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(args[0] if args else ""))
    monkeypatch.setattr(os, "mkdir", read_only)
    with pytest.raises(InputError, match="is on a read-only disk; choose a folder on a disk"):
        prepare_folder(tmp_path / "new")
    monkeypatch.undo()
    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    with pytest.raises(InputError) as caught:
        check_writable(tmp_path)
    assert caught.value.one_line().startswith(f"{tmp_path}: is on a read-only disk")


def test_a_folder_without_permission_is_a_sentence(tmp_path):
    if os.name != "posix" or os.geteuid() == 0:
        pytest.skip("needs POSIX permissions that apply (not root)")
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(InputError, match="no permission to write there"):
            check_writable(tmp_path)
    finally:
        tmp_path.chmod(0o700)


def test_an_os_error_outside_the_folder_names_the_fault_and_the_fix():
    line = main._os_error_line(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    assert not line.startswith(":") and "disk is full" in line and "free some space" in line


# --------------------------------------------------------------------- item 9: signals

# The headless run of main.py, with the audit (or the report's write) pausing at its start and
# saying so on stderr, so that a signal lands at a known moment of a real run.
PAUSING = textwrap.dedent("""\
    import sys, time
    import engine.audits.registry as registry
    import engine.report as report
    import main

    moment = sys.argv[1]
    def pausing(real):
        def pause(*args, **kwargs):
            print("paused at", moment, file=sys.stderr, flush=True)
            time.sleep(120)
            return real(*args, **kwargs)
        return pause
    if moment == "audit":
        registry.run_audit = pausing(registry.run_audit)
    else:
        report.write_report = pausing(report.write_report)
    sys.exit(main.main(sys.argv[2:]))
    """)


def _stopped_at(tmp_path, moment: str, signum: int):
    """Run `demo mechanism --out OUT` into a folder holding a finished run, send ``signum``
    when it pauses at ``moment``; returns (the process's code, its stderr lines, OUT, the
    earlier run's files, the folder its private temp folder was in)."""
    out = tmp_path / "out"
    earlier = _earlier(out)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp), PRA_DEVICE="cpu", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", PAUSING, moment, "demo", "mechanism",
                             "--out", str(out), "--quiet"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        while not seen or not seen[-1].startswith("paused at"):
            line = proc.stderr.readline()
            assert line, "".join(seen)           # it ended before pausing
            seen.append(line)
        session = [p for p in tmp.rglob("session-*")]
        assert session and session[0].name == f"session-{proc.pid}"
        proc.send_signal(signum)
        _, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    lines = [ln for ln in (seen[:-1] + (rest or "").splitlines()) if ln.strip()]
    return proc.returncode, [ln.strip() for ln in lines], out, earlier, tmp


@needs_signals
def test_sigterm_during_the_audit_is_one_line_and_exit_143(tmp_path):
    code, lines, out, earlier, tmp = _stopped_at(tmp_path, "audit", signal.SIGTERM)
    assert code == 143, lines
    assert lines == [f"stopped by a termination signal; nothing was written into {out}."]
    assert _files(out) == earlier
    assert not list(tmp.rglob("session-*"))          # the private temp folder is gone


@needs_signals
@pytest.mark.parametrize("signum, code, words", [
    (signal.SIGTERM, 143, "stopped by a termination signal"),
    (signal.SIGINT, 3, "cancelled")], ids=["sigterm", "ctrl-c"])
def test_a_signal_during_the_write_puts_the_earlier_run_back(tmp_path, signum, code, words):
    """Stopped while the report is written (config.toml of the new run already in place, the
    earlier run in .previous-run/): the new files go, the earlier run is back in view, and the
    line says so."""
    got, lines, out, earlier, tmp = _stopped_at(tmp_path, "write", signum)
    assert got == code, lines
    assert lines == [f"{words} while the run's files were written; {out} holds the last "
                     "finished run."]
    assert _files(out) == earlier and read_finished_run(out)["seed"] == 5
    assert not list(tmp.rglob("session-*"))


# --------------------------------------------------------------------- item 12: unknown command

def test_an_unknown_command_names_the_commands_and_exits_2():
    done = cli("frobnicate")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "usage" not in done.stderr and done.stdout == ""
    assert lines[0].startswith("error: 'frobnicate' is not a command; the commands are ")
    for command in main.COMMANDS:
        assert command in lines[0]


def test_a_project_path_is_not_taken_for_a_command(tmp_path):
    project = tmp_path / "audit"
    project.write_text("{}")
    for path in (str(project), "titanic.praudit.json", "projects/titanic"):
        assert main.unknown_command(path) is None
    assert main.unknown_command("frobnicate") is not None


# A signal in the last moments of a finished run (after "Wrote …", while the process shuts
# down) ended it with 143 or 130 and no line, the folder holding the new run (hostile pass).
FINISHING = textwrap.dedent("""\
    import os, signal, sys
    import main

    code = main.exit_code_kept(main.main(sys.argv[1:]))
    os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGINT)
    sys.exit(code)
    """)


@needs_signals
def test_a_signal_after_the_run_has_finished_keeps_its_exit_code(tmp_path):
    out = tmp_path / "out"
    env = dict(os.environ, PRA_DEVICE="cpu", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", FINISHING, "demo", "mechanism", "--out",
                           str(out), "--quiet"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == ""
    assert read_finished_run(out)["audit_type"] == "mechanism"


def test_a_signal_once_the_files_are_written_changes_nothing(monkeypatch):
    monkeypatch.setattr(main._Stop, "phase", "done")
    monkeypatch.setattr(main._Stop, "terminated", False)
    main._Stop.handler(signal.SIGTERM, None)           # no KeyboardInterrupt
    main._Stop.handler(signal.SIGINT, None)
    assert not main._Stop.terminated


def test_a_user_s_file_in_the_previous_run_folder_stops_the_run(tmp_path, quick_report):
    """Hostile pass: a notes.txt the user put in .previous-run/ went without a word when the
    next run ended (the app deletes that folder). Refused by name, nothing changed."""
    _earlier(tmp_path)
    notes = tmp_path / PREVIOUS / "notes.txt"
    notes.parent.mkdir()
    notes.write_text("my notes\n")
    _refused_before_the_audit_and_the_write(tmp_path, notes, "move it out")
    assert notes.read_text() == "my notes\n"
