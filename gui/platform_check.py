"""Can Qt open a window here? Checked before Qt is imported, so a missing system library gives
one sentence and exit code 2 instead of Qt's "could not load the Qt platform plugin xcb …
Aborted" (a core dump that names the wrong package).

On Linux, PySide6's wheels bring Qt but not the X11 helper libraries its ``xcb`` platform
plugin links against; a fresh Debian/Ubuntu desktop often lacks ``libxcb-icccm4``,
``libxcb-keysyms1`` or ``libxcb-cursor0``. We try to load each library the plugin needs (and
then the plugin itself, to catch any we did not list) and name the packages that provide the
missing ones, for apt and dnf. Windows and macOS need nothing: Qt's wheels are self-contained
there. Nothing here imports Qt.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

# soname → (Debian/Ubuntu package, Fedora/RHEL package): what Qt 6's xcb plugin links against.
XCB_PLUGIN_LIBRARIES: dict[str, tuple[str, str]] = {
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
}

NO_DISPLAY = ("error: cannot open the window: no display was found (neither DISPLAY nor "
              "WAYLAND_DISPLAY is set). Start the app from a desktop session, or run the audit "
              "without a window: `make demo` (or `python main.py demo mechanism --out DIR`) "
              "writes result.json and the PDF report.")

Loader = Callable[[str], str | None]   # library name or path → None if it loads, else the error


def load_library(name: str) -> str | None:
    """dlopen ``name`` the way Qt will; None on success, else the loader's message."""
    try:
        ctypes.CDLL(name)
    except OSError as exc:
        return str(exc)
    return None


def xcb_plugin_path() -> Path | None:
    """PySide6's ``libqxcb.so``, found without importing PySide6 (which would load Qt)."""
    spec = importlib.util.find_spec("PySide6")
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if path.is_file():
            return path
    return None


def missing_xcb_libraries(load: Loader = load_library,
                          plugin: Path | None = None) -> list[str]:
    """Sonames the xcb plugin needs that cannot be loaded, in the order of the table."""
    missing = [name for name in XCB_PLUGIN_LIBRARIES if load(name) is not None]
    if not missing and plugin is not None:
        # Anything the table does not list shows up when loading the plugin itself.
        error = load(str(plugin))
        if error:
            found = re.search(r"(lib[\w.+-]+\.so[\w.]*): cannot open shared object", error)
            missing.append(found.group(1) if found else error)
    return missing


def install_sentence(missing: list[str]) -> str:
    """One sentence naming the missing libraries and the commands that install them."""
    deb = sorted({XCB_PLUGIN_LIBRARIES[m][0] for m in missing if m in XCB_PLUGIN_LIBRARIES})
    rpm = sorted({XCB_PLUGIN_LIBRARIES[m][1] for m in missing if m in XCB_PLUGIN_LIBRARIES})
    unknown = [m for m in missing if m not in XCB_PLUGIN_LIBRARIES]
    text = ("error: cannot open the window: Qt's X11 platform plugin needs system libraries "
            f"that are not installed ({', '.join(missing)}). ")
    if deb:
        text += (f"Install them with `sudo apt-get install {' '.join(deb)}` (Debian/Ubuntu) or "
                 f"`sudo dnf install {' '.join(rpm)}` (Fedora/RHEL)")
        text += (f", and install the package that provides {', '.join(unknown)}"
                 if unknown else "")
    else:
        text += f"Install the package that provides {', '.join(unknown)}"
    return (text + ", then start the app again; `make demo` runs the audit without a window.")


def display_problem(env: Mapping[str, str] | None = None, platform: str | None = None,
                    load: Loader = load_library, plugin: Path | None = None) -> str | None:
    """A sentence saying why no window can open here, or None when Qt should manage.

    Only the cases that would end in Qt's abort are reported: Linux, a platform of xcb (the
    default) and either no display at all or an xcb plugin that cannot load. An explicit
    ``QT_QPA_PLATFORM`` without xcb (offscreen, wayland, vnc …) and Wayland sessions are left
    to Qt, and ``PRA_SKIP_DISPLAY_CHECK=1`` turns the check off.
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux") or env.get("PRA_SKIP_DISPLAY_CHECK") == "1":
        return None
    requested = [p.strip().split(":")[0] for p in env.get("QT_QPA_PLATFORM", "").split(";")
                 if p.strip()]
    if requested and "xcb" not in requested:
        return None
    if not env.get("DISPLAY"):
        if env.get("WAYLAND_DISPLAY") and not requested:
            return None                      # Qt picks its Wayland plugin
        return NO_DISPLAY
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland" \
            and not requested:
        return None                          # Qt tries Wayland first there
    missing = missing_xcb_libraries(load, plugin if plugin is not None else xcb_plugin_path())
    return install_sentence(missing) if missing else None
