"""The offline path, end to end: build the wheelhouse (network), then create a fresh venv and
install it from the wheelhouse inside a process with no network, run the suite's smoke subset
there, and see a wheel with one byte changed refused by name.

Marked `packaging`: minutes and the network, so `make package-test` runs it, not `make test`.
PRA_WHEELHOUSE=DIR reuses a wheelhouse instead of building one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))

import install  # noqa: E402

pytestmark = pytest.mark.packaging

LOCK = install.default_lock()
# The smoke subset: the CLI's contract, the engine without Qt, a GUI page, the PDF report.
SMOKE = [
    "tests/engine/test_no_network.py",
    "tests/engine/test_engine_without_qt.py",
    "tests/cli/test_cli.py::test_help_documents_commands_and_exit_codes",
    "tests/gui/test_home_page.py",
    "tests/gui/test_platform_check.py",
    "tests/report/test_pdf.py",
    "tests/packaging/test_wheelhouse_check.py",
]


def no_network() -> tuple[list[str], dict[str, str]]:
    """A command prefix (and environment) under which nothing can reach the network: a new,
    empty network namespace with `unshare -rn` where the kernel allows it; else every proxy
    and pip's index pointed at a closed port on this machine."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-rn", "true"]).returncode == 0:
        return ["unshare", "-rn"], dict(os.environ)
    closed = "http://127.0.0.1:9"
    return [], dict(os.environ, http_proxy=closed, https_proxy=closed, HTTP_PROXY=closed,
                    HTTPS_PROXY=closed, PIP_INDEX_URL=closed + "/simple", no_proxy="")


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    given = os.environ.get("PRA_WHEELHOUSE")
    if given:
        return Path(given).resolve()
    out = tmp_path_factory.mktemp("kit") / "wheelhouse"
    subprocess.run([sys.executable, str(ROOT / "packaging" / "wheelhouse.py"), "--out", str(out),
                    "--platforms", "linux" if sys.platform.startswith("linux") else "windows"],
                   check=True, cwd=ROOT)
    return out


def _fresh_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    return install.venv_python(path)


def test_the_network_is_really_cut():
    prefix, env = no_network()
    probe = ("import socket, urllib.request\n"
             "try:\n    urllib.request.urlopen('https://pypi.org/simple/pip/', timeout=5)\n"
             "except Exception as e:\n    print('offline', type(e).__name__)\n"
             "else:\n    print('ONLINE')\n")
    out = subprocess.run([*prefix, sys.executable, "-c", probe], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.startswith("offline")


def test_install_from_the_wheelhouse_without_network_then_the_smoke_tests(wheelhouse,
                                                                           tmp_path):
    python = _fresh_venv(tmp_path / "venv")
    prefix, env = no_network()
    proc = subprocess.run([*prefix, str(python), str(ROOT / "packaging" / "install.py"),
                           "--venv", str(tmp_path / "venv"), "--lock", str(LOCK),
                           "--wheelhouse", str(wheelhouse)],
                          env=env, capture_output=True, text=True, cwd=ROOT)
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0, proc.stderr
    assert "offline (--no-index" in proc.stdout

    freeze = subprocess.run([str(python), "-m", "pip", "freeze", "--exclude-editable"],
                            capture_output=True, text=True, check=True).stdout
    installed = {install.normalise(line.split("==")[0]): line.split("==")[1]
                 for line in freeze.splitlines() if "==" in line}
    locked = {name: pin.version for name, pin in install.read_lock(LOCK).items()}
    assert {n: v for n, v in installed.items() if n in locked} == {
        n: v for n, v in locked.items() if n in installed}
    assert set(locked) - {"pip", "setuptools"} <= set(installed)

    smoke = subprocess.run([*prefix, str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            *SMOKE], env=dict(env, QT_QPA_PLATFORM="offscreen", PRA_DEVICE="cpu",
                                              PRA_PACKAGE_TEST="0"),
                           capture_output=True, text=True, cwd=ROOT)
    print(smoke.stdout[-3000:], smoke.stderr[-3000:])
    assert smoke.returncode == 0
    assert " passed" in smoke.stdout.splitlines()[-1]


def test_a_wheel_with_one_byte_changed_is_refused_by_name(wheelhouse, tmp_path):
    """A copy of the wheelhouse (links, but one real file) whose numpy wheel has one byte
    changed: nothing is installed and the sentence names that wheel."""
    bad = tmp_path / "wheelhouse"
    bad.mkdir()
    victim = next(p.name for p in wheelhouse.glob("numpy-*.whl"))
    for path in wheelhouse.iterdir():
        if path.name == victim:
            data = bytearray(path.read_bytes())
            data[len(data) // 2] ^= 0x01
            (bad / path.name).write_bytes(bytes(data))
        else:
            (bad / path.name).symlink_to(path)
    python = _fresh_venv(tmp_path / "venv")
    before = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True,
                            text=True).stdout
    prefix, env = no_network()
    proc = subprocess.run([*prefix, str(python), str(ROOT / "packaging" / "install.py"),
                           "--venv", str(tmp_path / "venv"), "--lock", str(LOCK),
                           "--wheelhouse", str(bad)],
                          env=env, capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.startswith("refused: ") and victim in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    after = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True,
                           text=True).stdout
    assert after == before
