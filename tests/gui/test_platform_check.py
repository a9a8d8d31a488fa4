"""`make run` on a desktop without Qt's X11 libraries (or without any display) prints one
sentence naming the fix and exits with code 2 — never Qt's "could not load the Qt platform
plugin xcb … Aborted"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gui import platform_check as pc

ROOT = Path(__file__).resolve().parents[2]
X11_ENV = {"DISPLAY": ":0"}


def loader_missing(*names):
    """A stand-in for dlopen that fails for ``names`` the way glibc words it."""
    def load(name):
        base = Path(name).name
        if base in names:
            return f"{base}: cannot open shared object file: No such file or directory"
        return None
    return load


def test_missing_icccm_and_keysyms_named_with_apt_and_dnf_commands():
    msg = pc.display_problem(X11_ENV, "linux",
                             loader_missing("libxcb-icccm.so.4", "libxcb-keysyms.so.1"))
    assert msg.startswith("error: cannot open the window")
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in msg
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in msg
    assert "sudo dnf install xcb-util-keysyms xcb-util-wm" in msg
    assert "\n" not in msg


def test_library_outside_the_table_is_found_through_the_plugin_itself(tmp_path):
    plugin = tmp_path / "libqxcb.so"

    def load(name):
        if name == str(plugin):
            return f"libxcb-foo.so.9: cannot open shared object file: No such file ({plugin})"
        return None

    msg = pc.display_problem(X11_ENV, "linux", load, plugin)
    assert "libxcb-foo.so.9" in msg and "Install the package that provides" in msg


def test_nothing_missing_means_no_message(tmp_path):
    assert pc.display_problem(X11_ENV, "linux", loader_missing(), tmp_path / "p.so") is None


def test_no_display_names_the_headless_alternative():
    msg = pc.display_problem({}, "linux", loader_missing())
    assert "no display" in msg and "make demo" in msg


@pytest.mark.parametrize("env, platform", [
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux"),
    ({"QT_QPA_PLATFORM": "wayland", "WAYLAND_DISPLAY": "wayland-0"}, "linux"),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux"),
    ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "w", "XDG_SESSION_TYPE": "wayland"}, "linux"),
    ({"DISPLAY": ":0", "PRA_SKIP_DISPLAY_CHECK": "1"}, "linux"),
    ({}, "win32"),
    ({}, "darwin"),
])
def test_left_to_qt_where_it_will_not_abort(env, platform):
    everything_missing = loader_missing(*pc.XCB_PLUGIN_LIBRARIES)
    assert pc.display_problem(env, platform, everything_missing) is None


def test_explicit_xcb_is_checked_too():
    msg = pc.display_problem({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}, "linux",
                             loader_missing("libxcb-cursor.so.0"))
    assert "libxcb-cursor0" in msg and "xcb-util-cursor" in msg


def test_real_loader_on_this_machine():
    # Present on any Linux with glibc; a name that cannot exist is reported with glibc's words.
    assert pc.load_library("libc.so.6") is None
    assert "cannot open shared object" in pc.load_library("libpra-does-not-exist.so.1")


def test_gui_main_returns_2_before_creating_any_window(monkeypatch, capsys):
    from gui import app

    monkeypatch.setattr(pc, "display_problem", lambda: "error: cannot open the window: test")
    assert app.main([]) == 2
    assert "cannot open the window: test" in capsys.readouterr().err


def test_main_py_without_display_exits_2_with_one_line_and_no_core_dump():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run([sys.executable, str(ROOT / "main.py")], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    if not sys.platform.startswith("linux"):
        pytest.skip("the display check only applies on Linux")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().count("\n") == 0
    assert "no display" in proc.stderr and "Aborted" not in proc.stderr
