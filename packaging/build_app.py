"""`make app`: freeze the GUI and CLI into one folder with PyInstaller, then measure it.

    python packaging/build_app.py [--no-measure]

Builds dist/privacy-risk-auditor/ from packaging/pra.spec (work files in build/pyinstaller),
with the Python of the venv that runs this script — `make app` uses .venv, installed from the
lock. Then reports the folder's size, the program's start-up time (`--version`, and the time
until the main window is shown when Xvfb and xdotool are installed) and the time of
`demo mechanism`. The folder runs on Linux x86-64 with glibc >= 2.34 and no Python installed;
copy it whole (the program needs its `_internal/` beside it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "privacy-risk-auditor"
APP_DIR = ROOT / "dist" / NAME
EXE = APP_DIR / (NAME + (".exe" if sys.platform == "win32" else ""))
WINDOW_TITLE = "Privacy Risk Auditor"


def folder_size(path: Path) -> tuple[int, int]:
    total = count = 0
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            total += p.stat().st_size
            count += 1
    return total, count


def clean_env() -> dict[str, str]:
    """The environment a user's shell would give: no venv, no PYTHON* variables."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTHON") and k not in ("VIRTUAL_ENV",)}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if ".venv" not in p and "pyenv" not in p)
    return env


def timed(cmd: list[str], **kw) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return time.perf_counter() - start, proc


def gui_startup_seconds(cmd: list[str], env: dict[str, str], timeout: float = 90.0
                        ) -> float | None:
    """Seconds from starting ``cmd`` until a window titled like the app is mapped on a fresh
    Xvfb screen; None when Xvfb or xdotool is not installed."""
    if not (shutil.which("Xvfb") and shutil.which("xdotool")):
        return None
    display = f":{90 + os.getpid() % 50}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = dict(env, DISPLAY=display, QT_QPA_PLATFORM="xcb")
    env.pop("WAYLAND_DISPLAY", None)
    app = None
    try:
        time.sleep(1.0)
        start = time.perf_counter()
        app = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, cwd=tempfile.gettempdir())
        while time.perf_counter() - start < timeout:
            found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", WINDOW_TITLE],
                                   env=env, capture_output=True, text=True)
            if found.stdout.strip():
                return time.perf_counter() - start
            if app.poll() is not None:
                return None
            time.sleep(0.1)
        return None
    finally:
        if app is not None and app.poll() is None:
            app.terminate()
            app.wait(10)
        xvfb.terminate()
        xvfb.wait(10)


def build() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean",
                    "--log-level", "WARN", "--distpath", str(ROOT / "dist"),
                    "--workpath", str(ROOT / "build" / "pyinstaller"),
                    str(ROOT / "packaging" / "pra.spec")], check=True, cwd=ROOT)
    return time.perf_counter() - start


def measure() -> None:
    size, count = folder_size(APP_DIR)
    print(f"{APP_DIR.relative_to(ROOT)}: {size / 1e6:.0f} MB in {count} files")
    env = clean_env()
    times = []
    for _ in range(3):
        t, proc = timed([str(EXE), "--version"], env=env, cwd=tempfile.gettempdir())
        if proc.returncode:
            sys.exit(f"error: `{EXE.name} --version` failed:\n{proc.stderr}")
        times.append(t)
    print(f"  `{EXE.name} --version`: {proc.stdout.strip()!r}; {times[0]:.2f} s the first time, "
          f"{min(times):.2f} s after")
    window = gui_startup_seconds([str(EXE)], env)
    print("  main window shown after " + (f"{window:.1f} s (Xvfb)" if window is not None else
                                          "? s (needs Xvfb and xdotool to measure)"))
    with tempfile.TemporaryDirectory() as out:
        t, proc = timed([str(EXE), "demo", "mechanism", "--out", out, "--quiet"], env=env,
                        cwd=tempfile.gettempdir())
        if proc.returncode:
            sys.exit(f"error: `{EXE.name} demo mechanism` failed:\n{proc.stderr}")
        print(f"  `{EXE.name} demo mechanism`: {t:.1f} s (result.json and report.pdf written)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--no-measure", action="store_true", help="build only")
    args = p.parse_args(argv)
    seconds = build()
    print(f"Built {APP_DIR.relative_to(ROOT)} in {seconds / 60:.1f} min.")
    if not args.no_measure:
        measure()
    return 0


if __name__ == "__main__":
    sys.exit(main())
