"""The private Ray instance's watchdog (Linux; moved out of engine/compute.py, issue 33 item
2; issue 31 item 9): a small process that ends whatever the instance left running, and removes
its folder, when the app closes the instance or dies.
"""

from __future__ import annotations

import os
import subprocess
import sys

# The watchdog (Linux): ends the private instance's processes when the app ends, however it
# ends (issue 31 item 9). Ray's own processes die with the app (Ray asks Linux to kill them
# when their parent dies), but the two agents the raylet starts (ray::DashboardAgent,
# ray::RuntimeEnvAgent) only notice the raylet has gone, then wait 60 s on the dead cluster to
# report it (ray._private.utils.publish_error_to_driver) before they exit. The watchdog reads
# its stdin, a pipe from the app: end of file means the app closed the instance or died. It
# notes, every 0.5 s, the app's processes whose command line names the private folder
# (gcs_server, raylet, …) and all they started; at the end it kills those still alive (the
# same process: same start time) and removes the folder, where Ray may have spilled the
# audit's records. It runs in
# its own session, so the Ctrl-C meant for the app does not end it first.
WATCHDOG = r"""
import os, shutil, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
folder, me, app = sys.argv[1].encode(), os.getpid(), os.getppid()
seen = {}
def look():
    parents, starts, named = {}, {}, set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            with open("/proc/%s/cmdline" % name, "rb") as f:
                command = f.read()
        except (OSError, IndexError):
            continue
        pid = int(name)
        parents[pid], starts[pid] = int(fields[1]), int(fields[19])
        if pid != me and folder in command:
            named.add(pid)
    children = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    # Walk down from the app: a process that names the folder is Ray's, and so is all below.
    todo = [(pid, False) for pid in children.get(app, [])]
    while todo:
        pid, ray = todo.pop()
        ray = ray or pid in named
        if ray:
            seen.setdefault(pid, starts[pid])
        todo.extend((child, ray) for child in children.get(pid, []))
def start_time(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return None if fields[0] == b"Z" else int(fields[19])
    except (OSError, IndexError):
        return None
def watch():
    while True:
        look()
        time.sleep(0.5)
threading.Thread(target=watch, daemon=True).start()
while sys.stdin.buffer.read(4096):
    pass
look()
for attempt in range(100):
    alive = [pid for pid, start in list(seen.items()) if start_time(pid) == start]
    if not alive:
        break
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.1)
shutil.rmtree(folder, ignore_errors=True)
"""
STOP_SECONDS = 30.0      # hang guard: it needs well under a second


def start_watchdog(folder: str) -> subprocess.Popen | None:
    """The private instance's watchdog (see WATCHDOG), or None where there is no /proc."""
    if not sys.platform.startswith("linux") or not os.path.isdir("/proc/self"):
        return None
    return subprocess.Popen([sys.executable, "-I", "-c", WATCHDOG, folder],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def stop_watchdog(watchdog: subprocess.Popen) -> None:
    """Close the watchdog's pipe (the instance has been shut down) and wait for it to end
    whatever Ray left and remove the folder."""
    try:
        watchdog.stdin.close()
        watchdog.wait(STOP_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        watchdog.kill()
        watchdog.wait()
