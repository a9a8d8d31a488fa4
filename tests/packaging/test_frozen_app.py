"""The frozen app (`make app` → dist/privacy-risk-auditor/): starts with no Python installed,
`--version` works, and its headless demos write the same result.json numbers as the source
install.

Marked `packaging` (`make package-test` builds the app first, then runs these). "No Python
installed" is made real on Linux with a private mount namespace: the Python installations,
this checkout and its .venv are covered by empty folders, so the app can use only what is in
its own folder. The mechanism and location demos run by default (seconds); the aggregates and
model demos take minutes each: PRA_PACKAGE_TEST_ALL_DEMOS=1 adds them.
"""

from __future__ import annotations

import glob
import json
import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))

import build_app  # noqa: E402

pytestmark = pytest.mark.packaging

APP_DIR = Path(os.environ.get("PRA_APP_DIR", build_app.APP_DIR))
EXE_NAME = build_app.EXE.name
VOLATILE = {"created"}                      # when it ran; and every "…_s": how long it took
SLOW_DEMOS = {"aggregates", "model"}


def _hidden_pythons() -> list[str]:
    """Folders that hold a Python installation or this project, to cover in the namespace."""
    found = {sys.base_prefix, sys.prefix, str(ROOT), sysconfig.get_paths()["stdlib"]}
    for pattern in ("/usr/lib/python3*", "/usr/local/lib/python3*", "/root/.pyenv",
                    os.path.expanduser("~/.pyenv"), os.path.expanduser("~/.local/lib")):
        found.update(glob.glob(pattern))
    # cover the outermost folders only (a mount over a covered folder would fail)
    paths = sorted(p for p in found if os.path.isdir(p))
    return [p for p in paths if not any(p != q and p.startswith(q + os.sep) for q in paths)]


def _namespace_works() -> bool:
    return sys.platform.startswith("linux") and subprocess.run(
        ["unshare", "-rm", "true"], capture_output=True).returncode == 0


def run_frozen(args: list[str], tmp_path: Path, timeout: float = 900
               ) -> subprocess.CompletedProcess:
    """Run the frozen program with no Python and no checkout in sight (Linux: a mount
    namespace; elsewhere: a bare environment and another working folder)."""
    exe_args = " ".join(shlex.quote(a) for a in args)
    if _namespace_works():
        mnt = tmp_path / "app"
        mnt.mkdir(exist_ok=True)
        hide = " ".join(f"mount -t tmpfs none {shlex.quote(d)};" for d in _hidden_pythons())
        script = (f"set -e; mount --bind {shlex.quote(str(APP_DIR))} {shlex.quote(str(mnt))}; "
                  f"{hide} cd /; "
                  # proof that no Python is usable in here
                  "for py in python3 python; do if command -v $py >/dev/null && "
                  "$py -c 'import encodings' 2>/dev/null; then echo \"$py works\" >&2; "
                  "exit 99; fi; done; "
                  f"exec env -i PATH=/usr/bin:/bin HOME={shlex.quote(str(tmp_path))} "
                  "QT_QPA_PLATFORM=offscreen PRA_DEVICE=cpu "
                  f"{shlex.quote(str(mnt / EXE_NAME))} {exe_args}")
        cmd = ["unshare", "-rm", "sh", "-c", script]
    else:
        cmd = [str(APP_DIR / EXE_NAME), *args]
    env = {"PATH": os.defpath, "HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen",
           "PRA_DEVICE": "cpu", "SYSTEMROOT": os.environ.get("SYSTEMROOT", "")}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=timeout)


def numbers(path: Path) -> dict:
    """result.json without when it ran and how long it took (keys ending in _s: seconds), and
    a bundled sample's path (…/resources/x.csv: in the checkout for one, in the app's folder
    for the other) from resources/ on."""
    def strip(o):
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items()
                    if k not in VOLATILE and not k.endswith("_s")}
        if isinstance(o, list):
            return [strip(v) for v in o]
        if isinstance(o, str) and "resources/" in o.replace("\\", "/"):
            return o.replace("\\", "/")[o.replace("\\", "/").index("resources/"):]
        return o
    return strip(json.loads(path.read_text(encoding="utf-8")))


def differences(a, b, where="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{where}/{k}: only in one" for k in sorted(set(a) ^ set(b))]
        for k in sorted(set(a) & set(b)):
            out += differences(a[k], b[k], f"{where}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"[:200]]


@pytest.fixture(scope="module", autouse=True)
def app_is_built():
    if not (APP_DIR / EXE_NAME).is_file():
        pytest.fail(f"{APP_DIR / EXE_NAME} is missing: run `make app` (make package-test does)")


def test_version_with_no_python_installed(tmp_path):
    proc = run_frozen(["--version"], tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    from engine import __version__
    assert proc.stdout.strip() == f"Privacy Risk Auditor {__version__}"


def test_help_names_the_program(tmp_path):
    proc = run_frozen(["--help"], tmp_path, timeout=120)
    assert proc.returncode == 0 and f"usage: {EXE_NAME}" in proc.stdout


@pytest.mark.parametrize("demo", ["mechanism", "location", "aggregates", "model"])
def test_frozen_demo_writes_the_same_numbers_as_the_source_install(demo, tmp_path):
    if demo in SLOW_DEMOS and os.environ.get("PRA_PACKAGE_TEST_ALL_DEMOS") != "1":
        pytest.skip(f"demo {demo} takes minutes: PRA_PACKAGE_TEST_ALL_DEMOS=1 runs it")
    frozen_out, source_out = tmp_path / "frozen", tmp_path / "source"
    proc = run_frozen(["demo", demo, "--out", str(frozen_out), "--quiet"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (frozen_out / "report.pdf").stat().st_size > 10_000
    subprocess.run([sys.executable, str(ROOT / "main.py"), "demo", demo, "--out",
                    str(source_out), "--quiet"], check=True, cwd=ROOT,
                   env=dict(os.environ, QT_QPA_PLATFORM="offscreen", PRA_DEVICE="cpu"))
    frozen, source = numbers(frozen_out / "result.json"), numbers(source_out / "result.json")
    diff = differences(frozen, source)
    assert not diff, f"{len(diff)} differences, first: {diff[:10]}"


def test_frozen_gui_opens_its_window(tmp_path):
    seconds = build_app.gui_startup_seconds([str(APP_DIR / EXE_NAME)], build_app.clean_env())
    if seconds is None and not build_app.shutil.which("xdotool"):
        pytest.skip("needs Xvfb and xdotool (apt-get install xvfb xdotool)")
    assert seconds is not None, "no window titled 'Privacy Risk Auditor' within 90 s"
