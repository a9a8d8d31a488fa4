"""Config files (TOML, or JSON): reading one into a dict and writing a config dict as TOML.

Below the audits and the project files: an audit reads its bundled example through
:func:`read_config_file`, the report prints the config with :func:`config_to_toml`, and
:mod:`engine.project` builds the audit's Config from what :func:`read_config_file` returns.
"""

from __future__ import annotations

import json
import math
import tomllib

from engine.data.errors import InputError
from engine.data.paths import resolve_path
from engine.data.text_input import read_text


def read_config_file(path) -> dict:
    """Read a TOML (or JSON) config file into a dict; InputError names the file and line."""
    p = resolve_path(path)
    text = read_text(p, kind="config file", save_as="UTF-8 TOML",
                     missing="file not found. Check the path, or create a config from "
                             "resources/configs/mechanism_demo.toml.").text
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{p}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                             f"{exc.msg}.", source=str(p)) from None
        except RecursionError:
            raise InputError(f"{p}: its lists or tables are nested too deeply to be a config; "
                             f"write the config as flat keys and values.", source=str(p)
                             ) from None
    else:
        try:
            data = tomllib.loads(text)
        except RecursionError:
            raise InputError(f"{p}: its lists or tables are nested too deeply to be a config; "
                             f"write the config as flat keys and values.", source=str(p)
                             ) from None
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{p}: invalid TOML: {exc}. Fix that line (strings need quotes, "
                             "e.g. mechanism = \"laplace\").", source=str(p)) from None
    if not isinstance(data, dict):
        raise InputError(f"{p}: the config must be a table of keys and values.", source=str(p))
    return data



def config_to_toml(config: dict) -> str:
    """A config dict as TOML, so it can be saved as CONFIG.toml and run again.

    A small writer is enough for audit configs: flat keys and lists, one level of ``[tables]``,
    and deeper tables (a microdata schema, release options) as inline tables, a list of them
    one per line. ``None`` has no TOML form: a comment ("not set") at the top level, left out
    inside inline tables.
    """
    lines: list[str] = []
    tables = []
    for k, v in config.items():
        if isinstance(v, dict):
            tables.append((k, v))
        else:
            lines.append(_toml_line(k, v))
    for name, table in tables:
        lines += ["", f"[{_toml_key(name)}]"]
        lines += [_toml_line(k, v) for k, v in table.items()]
    return "\n".join(lines) + "\n"


def _toml_key(k: str) -> str:
    ok = k and all(c.isalnum() or c in "_-" for c in k) and k.isascii()
    return k if ok else json.dumps(k, ensure_ascii=False)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, dict):
        inner = ", ".join(f"{_toml_key(str(k))} = {_toml_value(x)}" for k, x in v.items()
                          if x is not None)
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(v, (list, tuple)):
        if any(isinstance(x, dict) for x in v):      # one inline table per line
            return "[\n" + "".join(f"  {_toml_value(x)},\n" for x in v) + "]"
        return "[" + ", ".join(_toml_value(x) for x in v if x is not None) + "]"
    return json.dumps(str(v), ensure_ascii=False)  # JSON string escaping is valid TOML


def _toml_line(k: str, v) -> str:
    if v is None:
        return f"# {k} not set"
    return f"{_toml_key(k)} = {_toml_value(v)}"
