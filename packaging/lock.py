"""`make lock`: regenerate the hashed locks in requirements/ from pyproject.toml.

    requirements/lock-linux.txt        CPython 3.11, Linux x86-64 (glibc >= 2.34), CPU build of
                                       torch. `make run`, `make test`, `make app` and
                                       `make wheelhouse` install exactly this.
    requirements/lock-windows.txt      CPython 3.11, Windows x86-64: the same versions, plus
                                       what only Windows needs (PyPI's torch is a CPU build there)
    requirements/lock-macos.txt        CPython 3.11, macOS arm64: the same versions
    requirements/lock-linux-cuda.txt   CPython 3.11, Linux x86-64 with PyPI's CUDA build of
                                       torch and the NVIDIA packages it needs (GPU workstations)

Inputs: pyproject.toml ([project] dependencies and the `dev` and `app` extras) and
requirements/installers.in (pip and the build backend, so a venv made from the lock needs
nothing unlocked). The Linux lock is made by pip-compile (pip-tools), i.e. by pip's own
resolver, the one that installed the project before there was a lock; the other three by
`uv pip compile --python-platform ...` constrained to the Linux lock's versions, because pip
can only resolve for the machine it runs on.

The CPU build of torch (version 2.13.0+cpu) is not on PyPI: pip finds it in the folders and
indexes of its configuration (`pip config list`: find-links /opt/wheels on the project's
machines). Elsewhere, give PyTorch's CPU index: `make lock TORCH_CPU_INDEX=URL`. If pip-compile
would pin PyPI's CUDA build instead, this script stops and says so.

Existing pins that still satisfy pyproject.toml are kept (pip-compile's default); `make lock
UPGRADE=1` moves every pin to the newest version allowed. Needs the network (PyPI).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQ = ROOT / "requirements"
LINUX = REQ / "lock-linux.txt"
WINDOWS = REQ / "lock-windows.txt"
MACOS = REQ / "lock-macos.txt"
CUDA = REQ / "lock-linux-cuda.txt"
INPUTS = ["pyproject.toml", "requirements/installers.in"]
EXTRAS = ["dev", "app", "cluster"]
PYTHON_VERSION = "3.11"
LINUX_PLATFORM = "x86_64-manylinux_2_34"     # PySide6 6.11's Linux wheels need glibc >= 2.34

# (lock, uv's --python-platform, keep torch's version from the Linux lock?, what it is, env)
DERIVED = [
    (WINDOWS, "x86_64-pc-windows-msvc", True, "Windows x86-64", {}),
    # torch 2.13's macOS wheels are for macOS >= 14 (uv assumes 12 unless told)
    (MACOS, "aarch64-apple-darwin", True, "macOS arm64", {"MACOSX_DEPLOYMENT_TARGET": "14.0"}),
    (CUDA, LINUX_PLATFORM, False, "Linux x86-64 with CUDA torch", {}),
]

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)


def pins(lock: Path) -> dict[str, str]:
    """{normalised name: version} of a lock file."""
    return {re.sub(r"[-_.]+", "-", m.group(1)).lower(): m.group(2)
            for m in PIN.finditer(lock.read_text(encoding="utf-8"))}


def run(cmd: list[str], **kw) -> None:
    print("+ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT, **kw)


def compile_linux(upgrade: bool) -> None:
    cmd = [sys.executable, "-m", "piptools", "compile", "--quiet", "--generate-hashes",
           "--allow-unsafe", "--strip-extras", "--no-emit-index-url", "--no-emit-find-links",
           "--no-emit-trusted-host", "--newline", "LF",
           "--output-file", str(LINUX.relative_to(ROOT)), *INPUTS]
    for extra in EXTRAS:
        cmd += ["--extra", extra]
    if upgrade:
        cmd.append("--upgrade")
    if os.environ.get("TORCH_CPU_INDEX"):
        cmd += ["--extra-index-url", os.environ["TORCH_CPU_INDEX"]]
    env = dict(os.environ, CUSTOM_COMPILE_COMMAND="make lock")
    run(cmd, env=env)
    torch = pins(LINUX).get("torch", "")
    if "+cpu" not in torch:
        sys.exit(f"error: {LINUX.relative_to(ROOT)} pins torch=={torch}, which is PyPI's CUDA "
                 "build (gigabytes of NVIDIA packages), not the CPU build. Give pip the CPU "
                 "build: `make lock TORCH_CPU_INDEX=https://download.pytorch.org/whl/cpu` (or a "
                 "mirror of it), or a folder holding torch-*+cpu-cp311-*.whl in pip's find-links.")


def compile_derived(lock: Path, platform: str, keep_torch: bool, what: str,
                    env: dict[str, str]) -> bool:
    """uv pip compile for another platform, every version taken from the Linux lock."""
    linux = pins(LINUX)
    lines = []
    for name, version in sorted(linux.items()):
        if name == "torch":
            if not keep_torch:
                continue
            version = version.split("+")[0]       # PyPI's build of the same release
        lines.append(f"{name}=={version}")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        constraints = f.name
    cmd = [sys.executable, "-m", "uv", "pip", "compile", "--quiet", "--generate-hashes",
           "--no-annotate", "--python-version", PYTHON_VERSION, "--python-platform", platform,
           "--custom-compile-command", "make lock", "--constraint", constraints,
           "--output-file", str(lock.relative_to(ROOT)), *INPUTS]
    for extra in EXTRAS:
        cmd += ["--extra", extra]
    try:
        run(cmd, env=dict(os.environ, **env))
    except subprocess.CalledProcessError:
        print(f"warning: no lock for {what}: uv found no solution with the Linux lock's "
              f"versions (see above); {lock.relative_to(ROOT)} is left as it was.",
              file=sys.stderr)
        return False
    finally:
        os.unlink(constraints)
    return True


def main() -> int:
    upgrade = os.environ.get("UPGRADE", "") not in ("", "0")
    compile_linux(upgrade)
    linux = pins(LINUX)
    print(f"{LINUX.relative_to(ROOT)}: {len(linux)} packages, torch {linux['torch']}")
    for lock, platform, keep_torch, what, env in DERIVED:
        if compile_derived(lock, platform, keep_torch, what, env):
            other = pins(lock)
            extra = sorted(set(other) - set(linux))
            print(f"{lock.relative_to(ROOT)} ({what}): {len(other)} packages, torch "
                  f"{other.get('torch', '-')}" + (f"; also {', '.join(extra)}" if extra else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
