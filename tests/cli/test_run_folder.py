"""A run's output folder after a crash at any moment (issue 18): no torn file, never the files of
two runs side by side, and the last finished run never lost (engine.run_folder)."""

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from engine.atomic_write import write_bytes, write_text
from engine.data.errors import InputError
from engine.results.result import AuditResult
from engine.run_folder import (
    JOURNAL,
    LOCK,
    OUTPUT_NAMES,
    PREVIOUS,
    _is_leftover,
    clear_earlier_run,
    read_finished_run,
    write_run,
)

ROOT = Path(__file__).resolve().parents[2]
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(folder: Path) -> dict[str, str]:
    """SHA-256 of every output file in ``folder``, by path relative to it."""
    out = {}
    if not folder.is_dir():
        return out
    for name in OUTPUT_NAMES:
        p = folder / name
        for f in [p] if p.is_file() else sorted(p.rglob("*")) if p.is_dir() else []:
            if f.is_file():
                out[f.relative_to(folder).as_posix()] = _sha(f)
    return out


def check_folder(folder: Path, earlier: dict[str, str]) -> str:
    """Assert what the protocol guarantees after a crash at any moment; return 'finished'
    (result.json and exactly the files it lists, hashes matching) or 'unfinished'.

    * hidden entries are only the earlier run kept aside, the lock and the journal of the run
      being written, or documented temporary names;
    * no visible file is empty or torn (a PDF ends with %%EOF, config.toml parses);
    * without result.json, the visible files are all of one run, and the earlier run — aside,
      plus any of its pieces still in view — is whole, so nothing of it is lost.
    """
    for entry in folder.iterdir():
        if entry.name.startswith("."):
            assert entry.name in (PREVIOUS, LOCK, JOURNAL) or _is_leftover(entry.name), \
                entry.name
        else:
            assert entry.name in OUTPUT_NAMES, entry.name
    visible = _files(folder)
    for rel in visible:
        data = (folder / rel).read_bytes()
        assert data, f"{rel} is empty"
        if rel.endswith(".pdf"):
            assert data.startswith(b"%PDF") and data.rstrip().endswith(b"%%EOF"), rel
        if rel.endswith(".toml"):
            tomllib.loads(data.decode())
    if (folder / "result.json").exists():
        read_finished_run(folder)        # complete JSON, listed files == files, hashes match
        return "finished"
    from_earlier = {rel for rel, sha in visible.items() if earlier.get(rel) == sha}
    assert from_earlier in (set(), set(visible)), f"two runs side by side: {sorted(visible)}"
    whole = {**_files(folder / PREVIOUS), **{rel: visible[rel] for rel in from_earlier}}
    assert whole == earlier, "the earlier finished run was lost"
    return "unfinished"


# --------------------------------------------------------------------------- every kill point

class _Tradeoff:
    """Stands in for the defences' fitted models: export() writes two files, as the real one."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def export(self, index, directory, *, name):
        write_bytes(Path(directory) / f"{name}.safetensors", self.tag.encode() * 1000)
        write_text(Path(directory) / f"{name}.json", json.dumps({"model": self.tag}))
        return {}


def _result(seed: int, *, model: bool) -> AuditResult:
    theory = {"defences": {"recommendation": {"met": True, "index": 0}}} if model else {}
    return AuditResult(audit_type="mechanism", name=f"run with seed {seed}", seed=seed,
                       config={"seed": seed}, software={}, runtime_s=0.0, attacks=[],
                       theory=theory, verdict={"level": "low"}, summary="",
                       attachments={"tradeoff": _Tradeoff(f"seed {seed}")})


def _quick_report(result: dict, path, *, include_records=False):
    """The real report's way of writing (a temporary name, then a rename) without reportlab's
    second per page: this test is about the folder, test_report_is_replaced_whole about the
    PDF."""
    write_bytes(path, f"%PDF-1.4 {result['name']}\n%%EOF\n".encode())
    return path


# The os functions through which the protocol changes the file system (pathlib, tempfile and
# shutil call them too); os.open counts only when it may create or write.
MUTATIONS = ("replace", "rename", "unlink", "rmdir", "mkdir", "open")
WRITING = os.O_CREAT | os.O_WRONLY | os.O_RDWR


def _write_dying_at(folder: Path, result, k: int, **kw) -> int:
    """Write ``result`` into ``folder`` in a forked child that dies (os._exit, no clean-up,
    as under kill -9) just before its k-th change to the file system; returns the child's exit
    code: 9 when it died, 0 when the run finished first, 1 when the run failed."""
    pid = os.fork()
    if pid == 0:                                         # pragma: no cover - the child
        code, changes = 1, [0]
        try:
            for name in MUTATIONS:
                real = getattr(os, name)

                def dying(*args, _real=real, _name=name, **kwargs):
                    flags = args[1] if len(args) > 1 else kwargs.get("flags", 0)
                    if _name != "open" or flags & WRITING:
                        changes[0] += 1
                        if changes[0] == k:
                            os._exit(9)
                    return _real(*args, **kwargs)
                setattr(os, name, dying)
            write_run(folder, result, config_toml=f"seed = {result.seed}\n", **kw)
            code = 0
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@needs_fork
@pytest.mark.parametrize("new_run", [dict(report=True, export_model=True),
                                     dict(report=False, export_model=False)],
                         ids=["report-and-model", "result-only"])
def test_a_crash_at_every_step_of_writing_a_run(tmp_path, monkeypatch, new_run):
    """Into a folder holding a finished run (report and model), write a run with another seed
    and kill it just before each of its changes to the file system in turn — every step the
    protocol has. After each kill: check_folder's guarantees hold; the next run's clearing puts
    the last finished run aside whole; and a run written then finishes cleanly."""
    import engine.report

    monkeypatch.setattr(engine.report, "write_report", _quick_report)
    template = tmp_path / "earlier"
    write_run(template, _result(5, model=True), config_toml="seed = 5\n", report=True,
              export_model=True)
    earlier = _files(template)
    assert set(earlier) >= {"result.json", "report.pdf", "config.toml",
                            "recommended_model/recommended_model.safetensors"}
    states, k = [], 0
    while True:
        k += 1
        folder = tmp_path / f"kill-{k}"
        shutil.copytree(template, folder)
        code = _write_dying_at(folder, _result(11, model=True), k, **new_run)
        assert code in (0, 9)
        state = check_folder(folder, earlier)
        seed = read_finished_run(folder)["seed"] if state == "finished" else None
        states.append((state, seed))
        # The next run into the folder first clears it: the last finished run goes aside,
        # whole — the new one if it got as far as its result.json, else the earlier one.
        clear_earlier_run(folder)
        assert not [p for p in folder.iterdir() if p.name != PREVIOUS]
        assert read_finished_run(folder / PREVIOUS)["seed"] == (seed or 5)
        write_run(folder, _result(23, model=False), config_toml="seed = 23\n", report=False)
        assert read_finished_run(folder)["seed"] == 23
        assert sorted(p.name for p in folder.iterdir()) == ["config.toml", "result.json"]
        if code == 0:
            break
        assert k < 200
    # Every stage was reached: the earlier run in view, the new run part-written, finished.
    assert states[0] == ("finished", 5) and states[-1] == ("finished", 11)
    assert ("unfinished", None) in states and k > 10


# --------------------------------------------------------------------------- the command line

def cli(*args, timeout=300):
    return subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


SMALL = ('audit_type = "mechanism"\nmechanism = "gaussian"\nepsilon = 0.5\nobservations = 4\n'
         'trials = 2000\nseed = 11\n')


def test_an_earlier_report_never_stays_beside_a_new_result(tmp_path):
    """The issue's case: a run without a report into a folder holding an earlier run must not
    leave the earlier report.pdf beside it."""
    out = tmp_path / "out"
    write_run(out, _result(3, model=False), config_toml="seed = 3\n", report=False)
    (out / "report.pdf").write_bytes(b"%PDF-1.4 seed 3\n%%EOF\n")     # listed by result.json
    listing = json.loads((out / "result.json").read_text())
    listing["outputs"].append({"path": "report.pdf", "sha256": _sha(out / "report.pdf"),
                               "bytes": (out / "report.pdf").stat().st_size})
    (out / "result.json").write_text(json.dumps(listing))
    (out / "notes.txt").write_text("mine")
    config = tmp_path / "c.toml"
    config.write_text(SMALL)
    done = cli("run", str(config), "--out", str(out), "--no-report", "--quiet")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["config.toml", "notes.txt", "result.json"]
    result = read_finished_run(out)
    assert result["seed"] == 11 and [e["path"] for e in result["outputs"]] == ["config.toml"]


def test_a_result_of_an_older_version_is_not_replaced_unasked(tmp_path):
    """A result.json that lists no files (an older version of the app, or another program)
    cannot show which files beside it are the app's: the run refuses, naming the file, and
    changes nothing (issue 31 item 8)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "result.json").write_text(json.dumps({"schema_version": 1, "seed": 3}))
    (out / "report.pdf").write_bytes(b"%PDF-1.4 seed 3\n%%EOF\n")
    before = _files(out)
    config = tmp_path / "c.toml"
    config.write_text(SMALL)
    done = cli("run", str(config), "--out", str(out), "--no-report", "--quiet")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "result.json" in lines[0] and "move or rename" in lines[0]
    assert _files(out) == before and sorted(p.name for p in out.iterdir()) == [
        "report.pdf", "result.json"]


def test_a_folder_whose_earlier_run_cannot_be_moved_is_one_sentence_and_exit_2(tmp_path):
    if os.name != "posix" or os.geteuid() == 0:
        pytest.skip("needs POSIX permissions that apply (not root)")
    out = tmp_path / "out"
    (out / "recommended_model").mkdir(parents=True)
    (out / "recommended_model" / "m.json").write_text("{}")
    (out / "recommended_model").chmod(0o500)
    config = tmp_path / "c.toml"
    config.write_text(SMALL)
    try:
        done = cli("run", str(config), "--out", str(out), "--quiet")
    finally:
        (out / "recommended_model").chmod(0o700)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "recommended_model" in lines[0] and "moved aside" in lines[0]


def test_an_earlier_run_that_cannot_be_moved_aside_is_one_sentence(tmp_path, monkeypatch):
    """The same refusal where permissions do not apply (root, or a folder on a share that
    refuses renames): nothing is written, and the earlier run stays in view."""
    write_run(tmp_path, _result(5, model=False), config_toml="seed = 5\n", report=False)
    before = _files(tmp_path)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(InputError) as caught:
        write_run(tmp_path, _result(11, model=False), config_toml="seed = 11\n", report=False)
    message = caught.value.one_line()
    assert "moved aside" in message and "Permission denied" in message and "\n" not in message
    monkeypatch.undo()
    assert _files(tmp_path) == before and read_finished_run(tmp_path)["seed"] == 5


def test_a_torn_or_mixed_folder_is_not_a_finished_run(tmp_path):
    write_run(tmp_path, _result(5, model=False), config_toml="seed = 5\n", report=False)
    assert read_finished_run(tmp_path)["seed"] == 5
    (tmp_path / "report.pdf").write_bytes(b"%PDF another run")
    with pytest.raises(InputError, match="report.pdf: is not from the run"):
        read_finished_run(tmp_path)
    (tmp_path / "report.pdf").unlink()
    (tmp_path / "config.toml").write_text("seed = 6\n")
    with pytest.raises(InputError, match="config.toml: is missing or is not the file"):
        read_finished_run(tmp_path)
    (tmp_path / "result.json").write_text("")
    with pytest.raises(InputError, match="not complete JSON"):
        read_finished_run(tmp_path)


@needs_fork
def test_report_is_replaced_whole(tmp_path):
    """write_report (also the app's Export PDF) killed before its rename leaves the old PDF."""
    from engine.report import write_report

    path = tmp_path / "report.pdf"
    path.write_bytes(b"%PDF-1.4 the earlier report\n%%EOF\n")
    result = _result(5, model=False).to_dict()
    pid = os.fork()
    if pid == 0:                                         # pragma: no cover - the child
        try:
            os.replace = lambda *a, **k: os._exit(9)
            write_report(result, path)
        finally:
            os._exit(0)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 9
    assert path.read_bytes() == b"%PDF-1.4 the earlier report\n%%EOF\n"


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_kill_9_at_many_moments_of_the_demo(tmp_path):
    """`main.py demo mechanism --out D` into a D holding a finished run of another config,
    SIGKILLed as each stage of writing appears (found by watching the folder), and at seeded
    moments of the audit: check_folder's guarantees hold after every kill."""
    template = tmp_path / "earlier"
    config = tmp_path / "c.toml"
    config.write_text(SMALL)
    done = cli("run", str(config), "--out", str(template), "--quiet")
    assert done.returncode == 0, done.stderr
    earlier = _files(template)

    def appears(prefix, new=False):
        """A check that fires when a file of the new run whose name starts so appears."""
        def seen(folder):
            for p in folder.iterdir():
                try:
                    if p.name.startswith(prefix) and p.is_dir():     # the report's staging
                        if any(f.is_file() and f.stat().st_size > 0 for f in p.iterdir()):
                            return True
                    elif p.name.startswith(prefix) and p.is_file() and p.stat().st_size > 0:
                        if not new or earlier.get(p.name) != _sha(p):
                            return True
                except FileNotFoundError:
                    continue    # moved aside between the listing and the read: not yet
            return False
        return seen

    chooser = random.Random(18)
    moments = [("audit", chooser.uniform(0.0, 0.5)), ("audit", chooser.uniform(0.5, 1.0)),
               ("done", 0.0),
               ("aside", lambda f: (f / PREVIOUS).is_dir()),
               ("config", appears("config.toml", new=True)),
               ("report temp", appears(".report.pdf.")),
               ("report", appears("report.pdf", new=True)),
               ("result temp", appears(".result.json.")),
               ("result", appears("result.json", new=True))]
    env = dict(os.environ, PRA_DEVICE="cpu")
    states = []
    for number, (stage, when) in enumerate(moments):
        folder = tmp_path / f"{number}-{stage.replace(' ', '-')}"
        shutil.copytree(template, folder)
        proc = subprocess.Popen([sys.executable, "main.py", "demo", "mechanism", "--out",
                                 str(folder)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        seen = b""
        while not seen.endswith(b"Done" if stage != "audit" else b"memory.") and \
                proc.poll() is None:
            seen += proc.stderr.read(1)
        if stage == "audit":
            time.sleep(when)
        elif callable(when):
            while proc.poll() is None and not when(folder):
                time.sleep(0.001)
        proc.kill()
        proc.wait()
        seen += proc.stderr.read()          # what it printed up to the kill
        proc.stderr.close()
        states.append(check_folder(folder, earlier))
        # Nothing is touched while the audit runs. A moment meant to fall inside the audit can
        # come after its end on a quiet machine (the demo's audit takes about a second): then
        # the progress line says "Done", and only check_folder's guarantees apply.
        if stage == "audit" and b"Done" not in seen:
            assert _files(folder) == earlier and not (folder / PREVIOUS).exists()
        if (folder / "result.json").exists():
            assert read_finished_run(folder)["seed"] in (11, 7)
    assert states[0] == "finished" and "unfinished" in states
