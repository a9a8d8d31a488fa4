"""Install the locked dependencies into a venv, from the package index or from a wheelhouse.

    python packaging/install.py --venv .venv                     online (the Makefile's default)
    python packaging/install.py --venv .venv --wheelhouse DIR    offline: never touches the network
    python packaging/install.py --verify-only --wheelhouse DIR   check DIR, install nothing

Both ways install exactly the lock (requirements/lock-linux.txt on Linux, lock-windows.txt on
Windows, lock-macos.txt on macOS) with pip's hash checking, then the project itself with
`--no-deps --no-build-isolation -e .` (its build backend, setuptools, is in the lock), so
connected and offline machines get the same versions.

Offline, pip gets `--no-index --find-links DIR` and none of the machine's pip configuration
(no PIP_* variables, no pip.conf), and before pip runs every file of DIR is checked against
DIR/SHA256SUMS and every wheel the lock needs against the lock's own hashes (the lock comes
from this checkout, not from DIR). A wheel that fails either check is refused with a sentence
naming it, and nothing is installed.

Standard library only: it runs before anything is installed. Exit codes: 0 installed (or
verified); 2 refused, or the lock is out of date with pyproject.toml; 1 pip failed otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = "SHA256SUMS"
# Where the CPU build of torch (torch==X+cpu, pinned by the Linux lock) lives when pip's own
# configuration has no copy of it: PyPI has only the CUDA build for Linux.
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
EXTRAS = ("dev", "app", "cluster")          # the extras the locks are made with (packaging/lock.py)


def default_lock(platform: str = sys.platform) -> Path:
    name = ("lock-windows.txt" if platform == "win32" else
            "lock-macos.txt" if platform == "darwin" else "lock-linux.txt")
    return ROOT / "requirements" / name


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# --------------------------------------------------------------------------- the lock

@dataclass
class Pin:
    name: str                    # normalised
    version: str
    hashes: set[str] = field(default_factory=set)

    def __str__(self) -> str:
        return f"{self.name}=={self.version}"


def read_lock(path: Path) -> dict[str, Pin]:
    """The pins of a `--generate-hashes` requirements file: {normalised name: Pin}."""
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    pins: dict[str, Pin] = {}
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;]+)", line)
        if not m:
            raise ValueError(f"{path}: not a pinned requirement: {line[:80]}")
        pin = Pin(normalise(m.group(1)), m.group(2),
                  set(re.findall(r"--hash=sha256:([0-9a-f]{64})", line)))
        pins[pin.name] = pin
    return pins


def _packaging():
    """The `packaging` library: installed, or the copy vendored in every pip."""
    try:
        from packaging.requirements import Requirement
        from packaging.version import Version
    except ImportError:
        from pip._vendor.packaging.requirements import Requirement
        from pip._vendor.packaging.version import Version
    return Requirement, Version


def stale_requirements(lock: Path, pyproject: Path = ROOT / "pyproject.toml",
                       environment: dict[str, str] | None = None) -> list[str]:
    """What pyproject.toml asks for (dependencies and the locked extras) that the lock does not
    pin, or pins at a version the specifier excludes: one phrase each; empty when in step."""
    Requirement, Version = _packaging()
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    asked = [(r, "") for r in project.get("dependencies", [])]
    for extra in EXTRAS:
        asked += [(r, extra) for r in project.get("optional-dependencies", {}).get(extra, [])]
    pins = read_lock(lock)
    problems = []
    for text, extra in asked:
        req = Requirement(text)
        env = dict(environment or {}, extra=extra)
        if req.marker is not None and not req.marker.evaluate(env):
            continue
        pin = pins.get(normalise(req.name))
        if pin is None:
            problems.append(f"{req.name} (pyproject.toml asks for {text!r}) is not in it")
        elif not req.specifier.contains(Version(pin.version), prereleases=True):
            problems.append(f"it pins {pin} but pyproject.toml asks for {text!r}")
    return problems


# --------------------------------------------------------------------------- the wheelhouse

def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(path: Path) -> dict[str, str]:
    """`sha256sum` format: '<hex>  <name>' per line → {name: hex}."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            out[name.lstrip("*")] = digest.lower()
    return out


def wheel_pin(filename: str) -> tuple[str, str] | None:
    """(normalised name, version) of a wheel's file name, None for other files."""
    if not filename.endswith(".whl"):
        return None
    parts = filename[:-4].split("-")
    return (normalise(parts[0]), parts[1]) if len(parts) >= 5 else None


def verify_wheelhouse(wheelhouse: Path, lock: Path, shown: Path | None = None) -> list[str]:
    """Every reason not to install from ``wheelhouse``, one sentence each; empty when it is
    complete and untouched. ``shown``: the folder as the user named it, for the sentences.
    Nothing here needs the network or pip."""
    rel = shown or wheelhouse
    manifest_path = wheelhouse / MANIFEST
    if not manifest_path.is_file():
        return [f"refused: {rel} has no {MANIFEST}, so it is not a folder that `make wheelhouse` "
                "wrote (or it was not copied whole); copy the whole folder again."]
    problems = []
    manifest = read_manifest(manifest_path)
    digests: dict[str, str] = {}
    for name, expected in sorted(manifest.items()):
        path = wheelhouse / name
        if not path.is_file():
            problems.append(f"refused: {rel / name} is listed in {MANIFEST} but missing; copy "
                            "the wheelhouse again.")
            continue
        digests[name] = got = sha256(path)
        if got != expected:
            problems.append(f"refused: {rel / name} does not match the SHA-256 that {MANIFEST} "
                            f"records for it (expected {expected[:16]}…, got {got[:16]}…): it "
                            "was changed or damaged after `make wheelhouse`. Nothing was "
                            "installed; copy that file again from the connected machine.")
    for path in sorted(wheelhouse.iterdir()):
        if path.is_file() and path.name not in manifest and path.name != MANIFEST:
            problems.append(f"refused: {rel / path.name} is not listed in {MANIFEST}: the "
                            "wheelhouse holds a file that `make wheelhouse` did not put there. "
                            "Remove it, or copy the wheelhouse again.")
    copy = wheelhouse / lock.name
    if not copy.is_file():
        problems.append(f"refused: {rel} has no {lock.name}: it was made for another platform "
                        f"or from another lock; run `make wheelhouse` again on a connected "
                        "machine with this checkout.")
    elif copy.read_bytes() != lock.read_bytes():
        problems.append(f"refused: {rel / lock.name} differs from this checkout's "
                        f"{lock.relative_to(ROOT) if lock.is_relative_to(ROOT) else lock}: the "
                        "wheelhouse was made from another version of the lock; run `make "
                        "wheelhouse` again with this checkout.")
    files_of: dict[tuple[str, str], list[str]] = {}
    for name in digests:
        key = wheel_pin(name)
        if key:
            files_of.setdefault(key, []).append(name)
    for pin in read_lock(lock).values():
        files = [n for n in files_of.get((pin.name, pin.version), [])
                 if digests[n] == manifest.get(n)]        # changed files are reported above
        if not files and not any(wheel_pin(n) == (pin.name, pin.version) for n in manifest):
            problems.append(f"refused: {rel} has no wheel of {pin} (which {lock.name} pins); "
                            "run `make wheelhouse` again on a connected machine.")
        for n in files:
            if digests[n] not in pin.hashes:
                problems.append(f"refused: {rel / n} is not a file that {lock.name} pins for "
                                f"{pin} (its SHA-256 {digests[n][:16]}… is not among the lock's "
                                "hashes), although SHA256SUMS lists it: the wheelhouse was "
                                "altered. Nothing was installed.")
    return problems


# --------------------------------------------------------------------------- pip

# pip's report: "    numpy==2.4.6 from file:///…whl (from -r lock (line 9)):" then one
# "Expected sha256 …" line, one "Expected     or …" per other hash, and "Got …".
_MISMATCH = re.compile(r"^\s*(\S+?)==(\S+) from (\S+?):?(?: \(from [^\n]*)?\n"
                       r"\s*Expected sha256 (\w+)(?:\n\s*Expected\s+or \w+)*\n\s*Got\s+(\w+)",
                       re.M)


def pip_failure_sentence(output: str, lock: Path) -> str | None:
    """One sentence for pip's known failures (hash mismatch, missing wheel), else None."""
    m = _MISMATCH.search(output)
    if m:
        name, version, where, _, got = m.groups()
        wheel = where.removeprefix("file://").split("#")[0]
        return (f"refused: {wheel} ({name}=={version}) does not match the SHA-256 that "
                f"{lock.name} pins for it (got {got[:16]}…): the file was changed or damaged. "
                "pip installed nothing; replace that wheel with the one from the connected "
                "machine.")
    m = re.search(r"No matching distribution found for (\S+)", output)
    if m and "+cpu" in m.group(1) and "--no-index" not in output:
        return (f"error: pip found no {m.group(1)} (the CPU build of torch, which PyPI does not "
                f"have) in its indexes nor in {TORCH_CPU_INDEX}; give pip a mirror of that index "
                "(PIP_EXTRA_INDEX_URL=URL make test) or install from a wheelhouse "
                "(WHEELHOUSE=DIR).")
    if m:
        return (f"error: no wheel of {m.group(1)} for this platform (CPython "
                f"{sys.version_info[0]}.{sys.version_info[1]}, {sys.platform}) where pip looked; "
                "a wheelhouse must be made by `make wheelhouse` for this platform.")
    if "Hashes are required in --require-hashes mode" in output:
        return (f"error: {lock.name} does not pin everything the packages need (pip names the "
                "missing ones above); run `make lock` on a connected machine.")
    return None


def venv_python(venv: Path) -> Path:
    win = venv / "Scripts" / "python.exe"
    return win if win.exists() else venv / "bin" / "python"


def run_pip(python: Path, args: list[str], env: dict[str, str], lock: Path,
            retry_with_torch_index: bool = False) -> None:
    proc = subprocess.run([str(python), "-m", "pip", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True)
    if (proc.returncode and retry_with_torch_index
            and re.search(r"No matching distribution found for torch==\S+\+cpu", proc.stdout
                          + proc.stderr)):
        print(f"torch's CPU build is not where pip looks; trying PyTorch's CPU index "
              f"({TORCH_CPU_INDEX}) as well …", flush=True)
        proc = subprocess.run([str(python), "-m", "pip", *args, "--extra-index-url",
                               TORCH_CPU_INDEX], env=env, cwd=ROOT, capture_output=True,
                              text=True)
    if proc.returncode:
        output = proc.stdout + proc.stderr
        sentence = pip_failure_sentence(output, lock)
        if sentence is None or os.environ.get("VERBOSE"):
            print("\n".join(output.splitlines()[-40:]), file=sys.stderr)
        print(sentence or f"error: pip failed (exit {proc.returncode}); its output is above.",
              file=sys.stderr)
        sys.exit(2 if sentence and sentence.startswith("refused") else 1)


def local_version_mismatches(python: Path, lock: Path) -> list[str]:
    """Installed distributions that differ from their pin only in the local version (torch
    2.13.0+cpu installed, 2.13.0 pinned, or back): pip would keep them, as `==2.13.0` accepts
    2.13.0+cpu, so they must be removed first."""
    code = ("import importlib.metadata as m\n"
            "for d in m.distributions(): print(d.metadata['Name'], d.version)")
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    pins = read_lock(lock)
    out = []
    for line in proc.stdout.splitlines():
        name, _, version = line.partition(" ")
        pin = pins.get(normalise(name))
        if pin and version != pin.version and version.split("+")[0] == pin.version.split("+")[0]:
            out.append(name)
    return out


def pip_first(python: Path, lock: Path, wheelhouse: Path | None) -> None:
    """Install the lock's pip before the rest (hashes checked), so that the same pip installs
    the packages online and offline whatever pip the venv was created with."""
    pin = read_lock(lock).get("pip")
    proc = subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True,
                          text=True)
    if pin is None or proc.stdout.startswith(f"pip {pin.version} "):
        return
    req = Path(tempfile.mkdtemp()) / "pip.txt"
    req.write_text(f"{pin} " + " ".join(f"--hash=sha256:{h}" for h in sorted(pin.hashes))
                   + "\n", encoding="utf-8")
    args = ["install", "--require-hashes", "--only-binary", ":all:", "--no-input",
            "--disable-pip-version-check", "--quiet", "-r", str(req)]
    if wheelhouse is None:
        run_pip(python, args, dict(os.environ), lock)
    else:
        run_pip(python, [*args, "--no-index", "--find-links", str(wheelhouse)], offline_env(),
                lock)
    req.unlink()
    req.parent.rmdir()


def offline_env() -> dict[str, str]:
    """This process's environment without any pip configuration (index, find-links …)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_INPUT="1")
    return env


def install(venv: Path, lock: Path, wheelhouse: Path | None, shown: Path | None = None) -> None:
    python = venv_python(venv)
    stale = stale_requirements(lock)
    if stale:
        sys.exit(f"error: {lock.name} is out of date with pyproject.toml: "
                 f"{'; '.join(stale)}. Run `make lock` on a connected machine and commit the "
                 "lock.")
    n = len(read_lock(lock))
    common = ["install", "--require-hashes", "--only-binary", ":all:", "--no-input",
              "--disable-pip-version-check", "-r", str(lock)]
    start = time.monotonic()
    if wheelhouse is not None:
        problems = verify_wheelhouse(wheelhouse, lock, shown)
        if problems:
            print("\n".join(problems), file=sys.stderr)
            sys.exit(2)
    pip_first(python, lock, wheelhouse)
    switched = local_version_mismatches(python, lock)
    if switched:        # e.g. torch's CPU build installed, the CUDA lock asked for (or back)
        run_pip(python, ["uninstall", "--yes", "--quiet", *switched], dict(os.environ), lock)
    if wheelhouse is None:
        print(f"Installing the {n} packages of {lock.name} into {venv} (hashes checked) …",
              flush=True)
        env = dict(os.environ)
        run_pip(python, common, env, lock, retry_with_torch_index=True)
    else:
        print(f"Installing the {n} packages of {lock.name} into {venv} from "
              f"{shown or wheelhouse}, offline (--no-index; hashes checked) …", flush=True)
        env = offline_env()
        run_pip(python, [*common, "--no-index", "--find-links", str(wheelhouse)], env, lock)
    run_pip(python, ["install", "--no-deps", "--no-build-isolation", "--no-index", "--no-input",
                     "--disable-pip-version-check", "--quiet", "-e", str(ROOT)], env, lock)
    print(f"Installed in {time.monotonic() - start:.0f} s.", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--venv", type=Path, help="the virtual environment to install into")
    p.add_argument("--lock", type=Path, default=default_lock(),
                   help="the hashed lock (default: this platform's requirements/lock-*.txt)")
    p.add_argument("--wheelhouse", type=Path,
                   help="install offline from this folder (written by `make wheelhouse`)")
    p.add_argument("--verify-only", action="store_true",
                   help="check the wheelhouse against SHA256SUMS and the lock; install nothing")
    args = p.parse_args(argv)
    lock = args.lock.resolve()
    wheelhouse = args.wheelhouse.resolve() if args.wheelhouse else None
    if args.verify_only:
        if wheelhouse is None:
            p.error("--verify-only needs --wheelhouse DIR")
        problems = verify_wheelhouse(wheelhouse, lock, args.wheelhouse)
        if problems:
            print("\n".join(problems), file=sys.stderr)
            return 2
        files = read_manifest(wheelhouse / MANIFEST)
        print(f"{args.wheelhouse}: all {len(files)} files match {MANIFEST}, and every wheel of "
              f"{lock.name} is there with one of the lock's hashes.")
        return 0
    if args.venv is None:
        p.error("--venv is required (or --verify-only)")
    install(args.venv, lock, wheelhouse, args.wheelhouse)
    return 0


if __name__ == "__main__":
    sys.exit(main())
