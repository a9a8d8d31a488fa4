"""What a Ray run left on this computer, read from Linux's /proc (no psutil in the lock):
processes, their command lines, their listening TCP sockets."""

from __future__ import annotations

import ipaddress
import os
import socket


def table() -> dict[int, tuple[int, int, str]]:
    """{pid: (parent pid, start time, command line)} of every live (not zombie) process."""
    rows = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if fields[0] != b"Z":
            rows[int(name)] = (int(fields[1]), int(fields[19]), command)
    return rows


def descendants(pid: int, rows: dict | None = None) -> dict[int, tuple[int, int, str]]:
    """The processes ``pid`` started, and theirs, with their rows of :func:`table`."""
    rows = table() if rows is None else rows
    children: dict[int, list[int]] = {}
    for child, (parent, _, _) in rows.items():
        children.setdefault(parent, []).append(child)
    found, todo = {}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found[child] = rows[child]
            todo.append(child)
    return found


def alive(snapshot: dict[int, tuple[int, int, str]]) -> dict[int, str]:
    """Those of ``snapshot`` still running (the same process: the same start time)."""
    now = table()
    return {pid: row[2] for pid, row in snapshot.items()
            if pid in now and now[pid][1] == row[1]}


def listening(pids) -> list[tuple[int, str, int]]:
    """(pid, address, port) of every listening TCP socket (IPv4 and IPv6) of ``pids``."""
    sockets = {}
    for table_name, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        try:
            with open(f"/proc/net/{table_name}") as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] != "0A":            # TCP_LISTEN
                continue
            address, port = fields[1].split(":")
            raw = bytes.fromhex(address)
            # /proc writes each 32-bit word in the host's (little-endian) order.
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            sockets[int(fields[9])] = (socket.inet_ntop(family, raw), int(port, 16))
    found = []
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:[") and int(target[8:-1]) in sockets:
                found.append((pid, *sockets[int(target[8:-1])]))
    return found


def is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback
