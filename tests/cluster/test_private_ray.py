""""local" Ray is private and local, and ends with the app; a cluster named by address is
reached with its token, and without it gets a sentence (issue 31 items 2, 3 and the Ray part
of 9). Every run here is a real Ray instance started in a child process — the app as the
user runs it — watched from this one through Linux's /proc (tests/cluster/procs.py)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from engine.compute import RAY_SUBFOLDER, TOKEN_NAME, RayExecutor
from engine.data.errors import InputError
from tests.cluster import procs

ROOT = Path(__file__).resolve().parents[2]
# Not speed limits: only stop a broken run from hanging the suite.
HANG_GUARD_S = 240
# After kill -9 of the app the watchdog ends Ray's processes in about a second; without it two
# of them (the raylet's agents) lived on for more than 60 s (they wait on the dead cluster).
AFTER_KILL_GUARD_S = 40

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads processes and sockets from Linux's /proc")

# The app's local run, as a child process: starts the private instance, says where its folder
# is, runs one unit that waits until the file named on the command line appears (so a worker
# is busy while the test looks), then closes the instance.
LOCAL_RUN = r"""
import json, os, sys
from engine.compute import LOCAL, RayExecutor

def unit(index, shared, progress, cancel):
    import os, time
    while not os.path.exists(shared):
        time.sleep(0.05)
    return index

executor = RayExecutor(LOCAL, cpus=1)
print(json.dumps({"folder": executor.folder,
                  "token_path": os.environ.get("RAY_AUTH_TOKEN_PATH")}), flush=True)
result = executor.map(unit, 1, sys.argv[1])
executor.close()
print(json.dumps({"result": result}), flush=True)
"""

UNIT_TITLE = "ray::_run_unit"        # the worker's process title while it runs a unit


def app_environment(home: Path, **more: str) -> dict:
    """The child's environment: this checkout importable, a home folder of its own (to see
    whether Ray writes ~/.ray/auth_token) and none of this computer's Ray token settings."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE", "RAY_ADDRESS")}
    home.mkdir(parents=True, exist_ok=True)
    env.update(PYTHONPATH=str(ROOT), HOME=str(home), **more)
    return env


def start_local_run(tmp_path: Path):
    flag = tmp_path / "go"
    child = subprocess.Popen([sys.executable, "-c", LOCAL_RUN, str(flag)], cwd=ROOT,
                             env=app_environment(tmp_path / "home"), stdout=subprocess.PIPE,
                             text=True)
    started = json.loads(child.stdout.readline() or "{}")
    assert started.get("folder"), "the local run did not start"
    deadline = time.monotonic() + HANG_GUARD_S
    while not any(UNIT_TITLE in row[2] for row in procs.descendants(child.pid).values()):
        assert child.poll() is None, "the local run ended early"
        assert time.monotonic() < deadline, "no worker ran the unit"
        time.sleep(0.2)
    return child, started, flag


def wait_until_gone(snapshot: dict, folder: str, guard: float) -> dict:
    deadline = time.monotonic() + guard
    while (procs.alive(snapshot) or os.path.exists(folder)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return procs.alive(snapshot)


def test_a_local_run_is_private_and_listens_on_loopback_only(tmp_path):
    child, started, flag = start_local_run(tmp_path)
    try:
        folder = started["folder"]
        running = procs.descendants(child.pid)
        # The private folder: this user's, 0700, and Ray's own folders (which Ray makes 0777)
        # all below it, so no other user reaches them.
        info = os.lstat(folder)
        assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
        assert stat.S_IMODE(info.st_mode) == 0o700, oct(info.st_mode)
        ray_folder = os.path.join(folder, RAY_SUBFOLDER)
        sessions = [p for p in Path(ray_folder).iterdir() if p.name.startswith("session_2")]
        assert sessions, os.listdir(ray_folder)
        for _, _, command in running.values():
            for word in command.split():
                path = word.split("=", 1)[-1]
                if "session_2" in path and path.startswith("/"):
                    assert path.startswith(folder + os.sep), (path, folder)
        # Its token: in the private folder, readable by the user alone; none in ~/.ray.
        token = Path(started["token_path"])
        assert token == Path(folder) / TOKEN_NAME
        assert stat.S_IMODE(token.stat().st_mode) == 0o600
        assert not (tmp_path / "home" / ".ray" / "auth_token").exists()
        # Every process of the run listens on the loopback address only (gcs_server and the
        # raylet listened on every interface).
        sockets = procs.listening([child.pid, *running])
        names = {pid: running.get(pid, (0, 0, "the app"))[2].split()[0] for pid, _, _ in sockets}
        assert len(sockets) >= 3, sockets            # the GCS, the raylet, the app's worker
        outside = [(names[pid], address, port) for pid, address, port in sockets
                   if not procs.is_loopback(address)]
        assert not outside, outside
        flag.touch()
        out, _ = child.communicate(timeout=HANG_GUARD_S)
        assert child.returncode == 0 and json.loads(out.splitlines()[-1]) == {"result": [0]}
        # Closed: its processes end and its folder (token, spilled data) is removed.
        assert not wait_until_gone(running, folder, HANG_GUARD_S)
        assert not os.path.exists(folder)
    finally:
        child.kill()
        child.wait()


def test_kill_9_of_a_local_run_ends_its_ray_processes_and_removes_its_folder(tmp_path):
    child, started, _ = start_local_run(tmp_path)
    try:
        running = procs.descendants(child.pid)
        assert any("raylet" in row[2] for row in running.values())
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    left = wait_until_gone(running, started["folder"], AFTER_KILL_GUARD_S)
    try:
        assert not left, left
        assert not os.path.exists(started["folder"])
    finally:
        for pid in left:                     # a failed run leaves nothing behind
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


# --------------------------------------------------------------------------- a cluster by address

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def address_cluster(tmp_path_factory):
    """A real `ray start --head` cluster, token authentication on, on the loopback address
    only (its node on 127.0.0.1: see engine.compute.LOOPBACK_VARIABLE), its temp folder and
    token in a test folder. Stopped by ending the `ray start --block` process and then any
    process of it still alive — never `ray stop`, which stops every Ray on the computer."""
    folder = tmp_path_factory.mktemp("cluster")
    short = Path(tempfile.mkdtemp(prefix="pra-t-", dir="/tmp"))     # Ray's sockets: 107 bytes
    token = folder / "token"
    token.write_text(secrets.token_hex(32))
    token.chmod(0o600)
    gcs, client = free_port(), free_port()
    env = app_environment(folder / "home", RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token),
                          RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    head = subprocess.Popen(
        [str(Path(sys.executable).parent / "ray"), "start", "--head", "--block",
         "--node-ip-address", "127.0.0.1", "--port", str(gcs),
         "--ray-client-server-port", str(client), "--temp-dir", str(short / "r"),
         "--num-cpus", "1", "--include-dashboard", "false", "--disable-usage-stats"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while True:
            assert head.poll() is None, "ray start --head failed"
            assert time.monotonic() < deadline, "the cluster did not start"
            try:
                with socket.create_connection(("127.0.0.1", client), timeout=1):
                    break
            except OSError:
                time.sleep(0.5)
        yield {"gcs": gcs, "client": client, "token": token, "home": folder / "home"}
    finally:
        started = procs.descendants(head.pid)
        started.update({pid: row for pid, row in procs.table().items()
                        if str(short) in row[2] or f"127.0.0.1:{gcs}" in row[2]})
        head.terminate()
        try:
            head.wait(60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        for pid in procs.alive(started):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(short, ignore_errors=True)


# The app connecting to a cluster by address, in a child process (this one may hold the other
# tests' Ray instance): prints where the units ran and their results, or the sentence.
ADDRESS_RUN = r"""
import json, sys
from engine.compute import RayExecutor
from engine.data.errors import InputError
try:
    executor = RayExecutor(sys.argv[1])
except InputError as exc:
    print(json.dumps({"sentence": str(exc)}), flush=True)
    raise SystemExit(0)
try:
    print(json.dumps({"where": executor.where,
                      "results": executor.map(lambda i, s, p, c: i * s, 3, 7)}), flush=True)
finally:
    executor.close()
"""


def run_against(address: str, home: Path, **env: str) -> dict:
    out = subprocess.run([sys.executable, "-c", ADDRESS_RUN, address], cwd=ROOT,
                         env=app_environment(home, **env), capture_output=True, text=True,
                         timeout=HANG_GUARD_S)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    assert lines, out.stderr[-3000:]
    return json.loads(lines[-1])


@pytest.mark.parametrize("form", ["gcs", "client"])
def test_a_cluster_by_address_runs_the_units_with_its_token(address_cluster, form, tmp_path):
    address = (f"127.0.0.1:{address_cluster['gcs']}" if form == "gcs"
               else f"ray://127.0.0.1:{address_cluster['client']}")
    ran = run_against(address, tmp_path / "home",
                      RAY_AUTH_TOKEN_PATH=str(address_cluster["token"]))
    assert ran.get("results") == [0, 7, 14], ran
    assert ran["where"].startswith(f"the Ray cluster at {address}")
    ran = run_against(address, tmp_path / "home",
                      RAY_AUTH_TOKEN=address_cluster["token"].read_text())
    assert ran.get("results") == [0, 7, 14], ran


def test_a_cluster_by_address_without_its_token_says_where_it_goes(address_cluster, tmp_path,
                                                                    monkeypatch):
    """Ray 2.60 failed with InvalidAuthToken in its log and a sentence that said only "check
    the address"."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(name, raising=False)
    for address in (f"127.0.0.1:{address_cluster['gcs']}",
                    f"ray://127.0.0.1:{address_cluster['client']}"):
        with pytest.raises(InputError) as missing:
            RayExecutor(address)
        assert "asks for its authentication token" in str(missing.value)
        assert "RAY_AUTH_TOKEN environment variable" in str(missing.value)
        monkeypatch.setenv("RAY_AUTH_TOKEN", secrets.token_hex(32))
        with pytest.raises(InputError) as wrong:
            RayExecutor(address)
        assert "rejected the authentication token in the RAY_AUTH_TOKEN" in str(wrong.value)
        assert wrong.value.key == missing.value.key == "compute.cluster"
        monkeypatch.delenv("RAY_AUTH_TOKEN")
