"""`make wheelhouse`: every wheel of the lock, for carrying to a machine with no network.

    python packaging/wheelhouse.py [--out dist/wheelhouse] [--platforms linux,windows]
    python packaging/wheelhouse.py --cuda [--out dist/wheelhouse-cuda]

Writes OUT/ with
  * the wheels of requirements/lock-linux.txt (CPython 3.11, Linux x86-64, glibc >= 2.34) and
    of requirements/lock-windows.txt (CPython 3.11, Windows x86-64), downloaded by pip with
    `--require-hashes --only-binary :all: --no-deps`, so every file is one the lock pins;
  * copies of those locks;
  * SHA256SUMS: the SHA-256 of every file, in `sha256sum` format (`sha256sum -c SHA256SUMS`);
and prints its size and the SHA-256 of SHA256SUMS itself (write it down: it proves the copy).
With --cuda, OUT holds instead the wheels of requirements/lock-linux-cuda.txt (PyPI's CUDA
build of torch and the NVIDIA packages it loads), for GPU workstations.

The folder is built as OUT.partial and renamed at the end, so an interrupted run never leaves
a folder that `make run`/`make test` would take for a wheelhouse. Needs the network (PyPI; the
CPU build of torch from pip's find-links, /opt/wheels on the project's machines, or the index
given in PIP_EXTRA_INDEX_URL).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from install import MANIFEST, ROOT, read_lock  # noqa: E402

REQ = ROOT / "requirements"
# pip does not widen --platform to older manylinux tags itself: the glibc 2.34 machine's list,
# best first (PySide6 6.11 needs glibc >= 2.34, so nothing older is worth supporting).
MANYLINUX = ([f"manylinux_2_{minor}_x86_64" for minor in range(34, 16, -1)]
             + ["manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64"])
# name → (lock, pip --platform tags, what it is)
PLATFORMS = {
    "linux": (REQ / "lock-linux.txt", MANYLINUX, "Linux x86-64"),
    "windows": (REQ / "lock-windows.txt", ["win_amd64"], "Windows x86-64"),
}
CUDA = ("cuda", (REQ / "lock-linux-cuda.txt", MANYLINUX, "Linux x86-64, CUDA build of torch"))
README = """\
Privacy Risk Auditor: offline wheelhouse, written by `make wheelhouse`.

Every file here is listed in SHA256SUMS. Check the copy with
    sha256sum -c SHA256SUMS                      (Linux)
and compare `sha256sum SHA256SUMS` with the value `make wheelhouse` printed.
Install (no network needed; from the project folder):
    make test WHEELHOUSE=path/to/this/folder     (or keep it as dist/wheelhouse: found by itself)
    make run  WHEELHOUSE=path/to/this/folder
A wheel that was changed is refused, with its name. See README.md, "Installing on an offline
workstation".
"""


def human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit in ("B", "KB") else f"{n:.2f} {unit}"
        n /= 1000
    raise AssertionError


def download(lock: Path, tags: list[str], dest: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes",
           "--only-binary", ":all:", "--python-version", "3.11", "--implementation", "cp",
           "--disable-pip-version-check", "--no-input", "--dest", str(dest), "-r", str(lock)]
    for tag in tags:
        cmd += ["--platform", tag]
    print(f"+ pip download --require-hashes --only-binary :all: --no-deps -r "
          f"{lock.relative_to(ROOT)} --platform {tags[0]}" + (" …" if len(tags) > 1 else ""),
          flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode:
        out = "\n".join(line for line in (proc.stdout + proc.stderr).splitlines()
                        if not line.startswith("WARNING: Location"))
        print(out[-4000:], file=sys.stderr)
        raise SystemExit(f"error: pip could not download every wheel of "
                         f"{lock.relative_to(ROOT)} (above: which one and why).")


def platform_of(wheel: str) -> str:
    tag = wheel[:-4].rsplit("-", 1)[-1]
    return "windows" if tag.startswith("win") else "any" if tag == "any" else "linux"


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, help="default: dist/wheelhouse (dist/wheelhouse-cuda)")
    p.add_argument("--platforms", default="linux,windows",
                   help="comma-separated, of: linux, windows (default: both)")
    p.add_argument("--cuda", action="store_true",
                   help="the GPU wheelhouse instead (lock-linux-cuda.txt; several GB)")
    args = p.parse_args(argv)
    if args.cuda:
        chosen = [CUDA]
    else:
        names = [n.strip() for n in args.platforms.split(",") if n.strip()]
        unknown = [n for n in names if n not in PLATFORMS]
        if unknown or not names:
            p.error(f"--platforms: choose from {', '.join(PLATFORMS)}")
        chosen = [(n, PLATFORMS[n]) for n in names]
    out = (args.out or ROOT / "dist" / ("wheelhouse-cuda" if args.cuda else "wheelhouse"))
    out = out.resolve()
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    start = time.monotonic()
    for _, (lock, tags, _what) in chosen:
        download(lock, tags, partial)
        shutil.copy2(lock, partial / lock.name)
    (partial / "README.txt").write_text(README, encoding="utf-8")

    files = sorted(f.name for f in partial.iterdir() if f.is_file())
    digests = {name: sha256(partial / name) for name in files}
    # Each wheel must be one the lock pins (pip checked it; this catches a stray file).
    allowed = set()
    for _, (lock, _, _) in chosen:
        for pin in read_lock(lock).values():
            allowed |= pin.hashes
    stray = [n for n in files if n.endswith(".whl") and digests[n] not in allowed]
    if stray:
        raise SystemExit(f"error: {', '.join(stray)} is not pinned by the lock")
    (partial / MANIFEST).write_text(
        "".join(f"{digests[n]}  {n}\n" for n in files), encoding="utf-8")

    if out.exists():
        shutil.rmtree(out)
    partial.rename(out)
    wheels = [n for n in files if n.endswith(".whl")]
    size = {n: (out / n).stat().st_size for n in files}
    total = sum(size.values())
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    print(f"{shown}: {human(total)} in {len(files)} files ({len(wheels)} wheels), "
          f"written in {time.monotonic() - start:.0f} s.")
    for name, (lock, _, what) in chosen:
        hashes = set().union(*(pin.hashes for pin in read_lock(lock).values()))
        mine = [n for n in wheels if digests[n] in hashes
                and platform_of(n) in ("windows" if name == "windows" else "linux", "any")]
        print(f"  {what}: {len(mine)} wheels, {human(sum(size[n] for n in mine))} "
              f"({lock.name})")
    print(f"  SHA-256 of {shown / MANIFEST}: {sha256(out / MANIFEST)}")
    print("  Write that value down: on the offline machine `sha256sum SHA256SUMS` must print "
          "it, and `sha256sum -c SHA256SUMS` checks every file.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
