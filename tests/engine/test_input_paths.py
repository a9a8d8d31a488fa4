"""Paths that are not a readable file (issue 18, defects 1, 2 and 5) and the one rule for where
a typed path points (issue 19, item 6) — over every loader.

A named pipe (FIFO) as any input made the loader wait forever in ``open()``; ``/dev/urandom``
as traces grew memory without bound; a link loop and a broken link were "file not found";
``/dev/zero`` as a config was "not the header row of a table". Each is now refused before
anything is read, with its own sentence naming the path. These files cannot live in the
bad-input corpus (git keeps no FIFOs or devices), so they are made here at run time.

Hang guards: a FIFO test arms :func:`fifo_watchdog`, which after :data:`HANG_GUARD_S` opens the
pipe for writing (that ends a reader stuck in ``open()``) and makes the test fail — so a
regression fails instead of hanging CI. That is a guard, not a speed claim. ``/dev/urandom``
is read in a child process whose address space is capped (:data:`MEMORY_CAP`): a loader that
reads it without end fails with a MemoryError there, not on the shared machine.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.data import paths
from engine.data.errors import InputError
from engine.data.paths import (
    read_bytes,
    require_folder,
    require_regular_file,
    resolve_path,
)
from engine.data.text_input import read_text
from engine.project import read_config_file
from tests.engine.test_input_corpus import LOADERS

ROOT = Path(__file__).resolve().parents[2]
HANG_GUARD_S = 60.0
MEMORY_CAP = 1 << 30                   # 1 GiB of address space for the /dev/urandom child
SUFFIX = {"config": ".toml", "project": ".praudit.json"}


def _reference(path):
    """DMP's reference CSV (engine.defences.dmp.load_reference_csv), with a fitted schema."""
    from engine.data.tabular import tabular_from_frame
    from engine.defences.dmp import load_reference_csv

    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "label": ["x", "y", "x", "y"]})
    return load_reference_csv(path, tabular_from_frame(frame, label="label").schema)


def _model_card(path):
    from engine.defences.export import load_model

    return load_model(path)


# Every loader of the corpus (training table, predictions, microdata, traces and releases,
# query files and published tables, config, project), DMP's reference file and a model card.
ALL = {**{k: v for k, v in LOADERS.items() if k != "traces_count"},
       "reference": _reference, "model_card": _model_card}


@contextlib.contextmanager
def fifo_watchdog(fifo: Path):
    """Fail (instead of hanging) when the code under test is still blocked on ``fifo`` after
    :data:`HANG_GUARD_S`: the watchdog then opens the pipe for writing, which releases a
    reader stuck in ``open()``, and closes it (the reader sees the end of the file)."""
    fired = threading.Event()
    done = threading.Event()

    def release():
        if done.wait(HANG_GUARD_S):
            return
        fired.set()
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    watcher = threading.Thread(target=release, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
    assert not fired.is_set(), f"{fifo.name}: the loader waited on the named pipe (a hang)"


def _refused(loader: str, path: Path) -> str:
    with pytest.raises(InputError) as info:            # any other exception fails the test
        ALL[loader](path)
    line = info.value.one_line()
    assert path.name in line and "\n" not in line and "Traceback" not in line, line
    return line


@pytest.mark.parametrize("loader", sorted(ALL))
def test_a_named_pipe_is_refused_without_waiting(tmp_path, loader):
    fifo = tmp_path / f"pipe{SUFFIX.get(loader, '.csv')}"
    os.mkfifo(fifo)
    with fifo_watchdog(fifo):
        line = _refused(loader, fifo)
    assert "is a named pipe" in line and "not a file saved on disk" in line, line


@pytest.mark.parametrize("loader", sorted(ALL))
def test_link_loop_and_broken_link_have_their_own_sentences(tmp_path, loader):
    suffix = SUFFIX.get(loader, ".csv")
    loop = tmp_path / f"loop{suffix}"
    loop.symlink_to(loop.name)
    line = _refused(loader, loop)
    assert "is a link that points back to itself (a loop)" in line, line
    assert "not found" not in line, line
    broken = tmp_path / f"broken{suffix}"
    broken.symlink_to(tmp_path / "gone.csv")
    line = _refused(loader, broken)
    assert "is a link to" in line and "gone.csv" in line and "does not exist" in line, line
    assert "not found" not in line, line


@pytest.mark.parametrize("loader", ["traces", "config", "project", "predictions"])
def test_a_socket_and_a_folder_are_refused(tmp_path, loader):
    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        assert "is a socket" in _refused(loader, sock_path)
    folder = tmp_path / f"folder{SUFFIX.get(loader, '.csv')}"
    folder.mkdir()
    assert "is a folder" in _refused(loader, folder)


def test_devices_are_refused_without_reading_them():
    """Every loader on /dev/zero and /dev/urandom, directly and through a link named like the
    file it expects, in a child process capped at 1 GiB of memory: each refuses the device
    with its own sentence (not "not the header row of a table", not binary data) and reads
    none of it — a loader that read on would run out of the cap (a MemoryError) instead of
    growing without bound on the shared machine."""
    script = r"""
import json, resource, tempfile
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))
from engine.data.errors import InputError
from tests.engine.test_input_paths import ALL, SUFFIX
out = {}
folder = Path(tempfile.mkdtemp())
for name, loader in sorted(ALL.items()):
    for device in ("/dev/zero", "/dev/urandom"):
        link = folder / f"{name}-{Path(device).name}{SUFFIX.get(name, '.csv')}"
        link.symlink_to(device)
        for path in (Path(device), link):
            try:
                loader(path)
                out[f"{name} {path}"] = "loaded"
            except InputError as exc:
                out[f"{name} {path}"] = exc.one_line()
            except BaseException as exc:
                out[f"{name} {path}"] = type(exc).__name__
print(json.dumps(out))
""".replace("CAP", str(MEMORY_CAP))
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=HANG_GUARD_S)
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads(run.stdout.splitlines()[-1])
    assert len(results) == 4 * len(ALL)
    for case, line in results.items():
        path = case.split(" ", 1)[1]
        assert f"{path}: is a device, not a file saved on disk" in line, (case, line)
        assert "header row" not in line and "binary data" not in line, (case, line)


def test_an_unreadable_file_says_so(tmp_path, monkeypatch):
    """Permission refused when opening: its own sentence (made by refusing the open, as the
    tests may run as root, who reads every file)."""
    path = tmp_path / "secret.csv"
    path.write_text("user_id,site,epoch\nu1,s1,0\n")
    real_open = os.open

    def refuse(name, *args, **kwargs):
        if str(name) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(name))
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    line = _refused("traces", path)
    assert "do not have permission" in line and "copy it to a folder of yours" in line, line


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads every file")
def test_a_file_without_read_permission_says_so(tmp_path):
    path = tmp_path / "secret.toml"
    path.write_text('audit_type = "mechanism"\n')
    path.chmod(0)
    line = _refused("config", path)
    assert "do not have permission" in line, line


def test_read_text_never_reads_past_the_size_it_opened(tmp_path, monkeypatch):
    """A file that grows while it is read (the size the open file had is the bound): at most
    size + 1 bytes are read, and the growth is a sentence rather than an endless read."""
    path = tmp_path / "growing.csv"
    path.write_bytes(b"user_id,site,epoch\n" + b"u1,s1,0\n" * 5000)
    real = paths.open_regular_file

    class Counting:
        """The opened file, counting what is read from it."""

        def __init__(self, fh):
            self.fh, self.read_bytes = fh, 0

        def read(self, n=-1):
            data = self.fh.read(n)
            self.read_bytes += len(data)
            return data

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    opened = []

    def smaller(p, kind="file", *, missing=None):
        fh, _size = real(p, kind, missing=missing)
        opened.append(Counting(fh))
        return opened[-1], 100                 # as if the file had 100 bytes when opened

    monkeypatch.setattr("engine.data.text_input.open_regular_file", smaller)
    with pytest.raises(InputError, match="grew while it was being read") as info:
        read_text(path)
    assert "growing.csv" in info.value.one_line()
    assert opened[0].read_bytes == 101 and opened[0].fh.closed


def test_read_bytes_reads_a_regular_file_and_refuses_a_pipe(tmp_path):
    path = tmp_path / "card.json"
    path.write_bytes(b'{"a": 1}')
    assert read_bytes(path) == b'{"a": 1}'
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    with fifo_watchdog(fifo), pytest.raises(InputError, match="named pipe"):
        read_bytes(fifo)


def test_require_folder(tmp_path):
    assert require_folder(tmp_path)
    (tmp_path / "f.csv").write_text("x\n")
    with pytest.raises(InputError, match="is a file, not a folder; choose the folder"):
        require_folder(tmp_path / "f.csv")
    with pytest.raises(InputError, match="folder not found"):
        require_folder(tmp_path / "nowhere")
    with pytest.raises(InputError, match="is a device"):
        require_folder("/dev/zero")
    with pytest.raises(InputError, match="part of the path is a file, not a folder"):
        require_regular_file(tmp_path / "f.csv" / "x.csv")


def test_the_csv_probe_before_a_run_does_not_open_a_pipe(tmp_path):
    """The estimate's look at a CSV (engine.estimates.probe) ran before the loader and opened
    a FIFO (a hang before any sentence); now it gives up on anything but a regular file."""
    from engine.estimates.probe import csv_shape

    fifo = tmp_path / "traces.csv"
    os.mkfifo(fifo)
    with fifo_watchdog(fifo):
        assert csv_shape(fifo) is None
    assert csv_shape("/dev/urandom") is None
    regular = tmp_path / "t.csv"
    regular.write_text("a,b\n1,2\n3,4\n")
    shape = csv_shape(regular)
    assert shape.rows == 2 and shape.columns == ("a", "b") and shape.exact


def test_a_result_hash_reads_only_a_regular_file(tmp_path):
    from engine.results.result import file_sha256

    path = tmp_path / "x.csv"
    path.write_bytes(b"abc")
    assert file_sha256(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    fifo = tmp_path / "p.csv"
    os.mkfifo(fifo)
    with fifo_watchdog(fifo), pytest.raises(InputError, match="is a named pipe"):
        file_sha256(fifo)


# --------------------------------------------------------------------------- one path rule

TRACES = "user_id,site,epoch\nu1,s1,0\nu2,s2,1\nu1,s2,1\n"


@pytest.fixture
def home(tmp_path, monkeypatch):
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.chdir(tmp_path)
    return folder


def test_tilde_is_the_home_folder_in_every_loader(home):
    from engine.data.traces import load_traces_csv
    from engine.project import load_config, load_project, save_project

    (home / "records.csv").write_text(TRACES)
    assert resolve_path("~/records.csv") == home / "records.csv"
    assert load_traces_csv("~/records.csv").user_ids == ("u1", "u2")
    (home / "c.toml").write_text('audit_type = "mechanism"\nepsilon = 2.0\n')
    assert read_config_file("~/c.toml")["epsilon"] == 2.0
    assert load_config("~/c.toml").epsilon == 2.0
    from engine.project import Project
    save_project(home / "p.praudit.json", Project("mechanism", {"audit_type": "mechanism"}))
    assert load_project("~/p.praudit.json").audit_type == "mechanism"


def test_tilde_in_a_config_reaches_the_audit_and_its_estimate(home):
    """The location audit's traces and its estimate read ``~/records.csv`` (only the GUI
    expanded ``~`` before: the run said "file not found")."""
    from engine.audits.location import LocationConfig
    from engine.estimates.location import _file_size
    from engine.games.location_setup import load_population

    (home / "records.csv").write_text(TRACES)
    config = LocationConfig.from_dict({"audit_type": "location", "traces": "~/records.csv"})
    traces, inputs = load_population(config)
    assert traces.user_ids == ("u1", "u2")
    assert inputs[0]["path"] == str(home / "records.csv")
    assert _file_size("~/records.csv") == len(TRACES)


def test_relative_paths_keep_todays_rule(home, tmp_path):
    """As written from the working directory when something is there (even a broken link,
    which then says what is wrong with it), else the app folder's (the bundled samples)."""
    sample = "resources/configs/mechanism_demo.toml"
    assert resolve_path(sample) == ROOT / sample          # the working directory is tmp_path
    (tmp_path / "resources" / "configs").mkdir(parents=True)
    (tmp_path / sample).write_text('audit_type = "mechanism"\n')
    assert resolve_path(sample) == Path(sample)
    assert resolve_path("nowhere.csv") == Path("nowhere.csv")
    assert resolve_path(tmp_path / "x.csv") == tmp_path / "x.csv"
    (tmp_path / "resources" / "configs" / "mechanism_demo.toml").unlink()
    (tmp_path / sample).symlink_to("gone.toml")
    with pytest.raises(InputError, match="a broken link"):
        read_config_file(sample)


def test_model_reference_is_read_through_the_shared_reader(tmp_path):
    """DMP's reference file is read like the training table: a ';' separated file loads."""
    path = tmp_path / "ref.csv"
    path.write_text("a;label\n5.0;x\n6.0;y\n5.5;x\n6.5;y\n")
    encoded = _reference(path)
    assert encoded.shape == (4, 1) and np.isfinite(encoded).all()
