"""The engine's layers (issue 19 item 7; docs/dev/layers.md).

* no module of engine/ is in an import circle, counting imports inside functions too (a circle
  hidden in a function is still a circle: the modules cannot be understood or moved apart);
* the import-linter contracts of pyproject.toml hold (`make lint` runs them too);
* the modules the layering work moved import engine modules at module level only, import
  torch and the other heavy libraries inside functions only, and take no private name from
  another module;
* across the whole engine, the imports of our own modules inside functions and the private
  names taken from another module are counted, and the counts may only fall (the files that
  still have them are being restructured by other work; docs/dev/layers.md lists them).
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Libraries loaded only when a model trains or is exported: imported inside the functions that
# use them so that opening the app or reading a result does not pay for them.
HEAVY = ("torch", "opacus", "sklearn", "safetensors", "threadpoolctl")
# The modules the layering work moved or rewired (issue 19 items 1 and 7); the rest of the
# engine's function-level imports are listed in docs/dev/layers.md.
CLEAN = ("engine/games/model.py", "engine/audits/model.py", "engine/metrics.py",
         "engine/auditing.py", "engine/models", "engine/defences",
         # issue 19 items 2 and 7: the audit registry, project and config files, the swept
         # audits and report sections
         "engine/audits/registry.py", "engine/project.py", "engine/config_file.py",
         "engine/audits/location.py", "engine/audits/mechanism.py",
         "engine/results/config_fields.py", "engine/audits/predictions_intake.py",
         "engine/report/sections.py", "engine/report/pdf.py", "engine/report/location.py",
         "engine/report/aggregates.py", "engine/report/mechanism.py",
         "engine/data/sample_predictions.py", "engine/aggregates/queries.py",
         # issue 19 item 1: the count-table game and the attack tables
         "engine/games/aggregates.py", "engine/audits/aggregates.py",
         "engine/attacks/aggregates/__init__.py", "engine/attacks/aggregates/data_only.py",
         # issue 33 item 2: every game in engine/games and the one attack outcome (the
         # solver's package and the location attacks load ortools and scipy.stats inside
         # functions, which this rule does not allow)
         "engine/games", "engine/attacks/outcome.py", "engine/attacks/location/base.py")
# Today's counts over all of engine/ (docs/dev/layers.md says where they are). They may fall;
# lower them here when they do, so that they cannot creep back.
MAX_FUNCTION_LEVEL_OWN_IMPORTS = 1
MAX_PRIVATE_NAMES_ACROSS_MODULES = 0


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path, package: str = "engine") -> dict[str, set[str]]:
    """{module: modules of ``package`` it imports}, from every import statement in the file —
    at module level, inside functions and under ``if TYPE_CHECKING``. ``from a import b`` is
    an import of module ``a.b`` when that module exists, else of ``a``."""
    files = {module_name(p, root): p for p in (root / package).rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for name, path in files.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[:len(here.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base
                           for a in node.names]
            for target in targets:
                while target and target not in files:     # a.b.c → a.b when c is a name
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def function_level_imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported module) of every import statement inside a function."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import):
                    out += [(sub.lineno, a.name) for a in sub.names]
                elif isinstance(sub, ast.ImportFrom):
                    out.append((sub.lineno, "." * sub.level + (sub.module or "")))
    return out


def own_function_level_imports(root: Path, package: str = "engine") -> list[str]:
    """"path:line module" of every import of a module of ``package`` (or a relative import)
    inside a function, in every file of ``package``."""
    return [f"{p.relative_to(root)}:{line} {mod}"
            for p in sorted((root / package).rglob("*.py"))
            for line, mod in function_level_imports(p)
            if mod.startswith(".") or mod.split(".")[0] == package]


def private_names_across_modules(root: Path, package: str = "engine") -> list[str]:
    """"path:line name from module" of every private name (``_x``, not ``__x__``) a module of
    ``package`` imports from another module of ``package`` (a relative import is always
    another module's)."""
    out = []
    for path in sorted((root / package).rglob("*.py")):
        name = module_name(path, root)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (
                    node.level or ((node.module or "").split(".")[0] == package
                                   and node.module != name)):
                out += [f"{path.relative_to(root)}:{node.lineno} {a.name} from {node.module}"
                        for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    return out


def clean_files() -> list[Path]:
    out = []
    for item in CLEAN:
        p = ROOT / item
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return out


# --------------------------------------------------------------------------- the finder itself

def test_circle_finder_sees_a_circle_hidden_in_a_function(tmp_path):
    pkg = tmp_path / "engine"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from engine.sub.b import f\n")
    (pkg / "sub" / "b.py").write_text(textwrap.dedent("""\
        def f():
            from ..c import g
            return g
        """))
    (pkg / "c.py").write_text("from engine import a\n")
    (pkg / "d.py").write_text("import engine.a\n")
    assert circles(import_graph(tmp_path)) == [["engine.a", "engine.c", "engine.sub.b"]]


def test_circle_finder_reads_from_package_import_name_as_the_package():
    graph = {"p": {"p.x"}, "p.x": set(), "p.y": {"p"}}
    assert circles(graph) == []
    graph["p.x"] = {"p.y"}
    assert circles(graph) == [["p", "p.x", "p.y"]]


def test_counters_see_an_import_in_a_function_and_a_private_name(tmp_path):
    pkg = tmp_path / "engine"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import os\nfrom engine.b import _hidden, shown\n")
    (pkg / "b.py").write_text(textwrap.dedent("""\
        _hidden = shown = 1

        def f():
            import json
            from engine import a
            from . import a as again
            from engine.b import _hidden
            return a, again, json, _hidden
        """))
    assert own_function_level_imports(tmp_path) == [
        f"{Path('engine/b.py')}:5 engine", f"{Path('engine/b.py')}:6 .",
        f"{Path('engine/b.py')}:7 engine.b"]
    (pkg / "c.py").write_text("from .b import _hidden\n")
    assert private_names_across_modules(tmp_path) == [
        f"{Path('engine/a.py')}:2 _hidden from engine.b", f"{Path('engine/c.py')}:1 _hidden from b"]


# --------------------------------------------------------------------------- the engine

def test_no_import_circle_in_the_engine():
    found = circles(import_graph(ROOT))
    assert not found, "import circles in engine/: " + "; ".join(" ↔ ".join(c) for c in found)


def test_import_linter_contracts_hold():
    try:
        import importlinter  # noqa: F401
    except ImportError:
        pytest.fail("import-linter is missing: it is in the dev extras and the locks; run "
                    "make install (or pip install -r the lock) to check the layers.")
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                               "sys.argv = ['lint-imports', '--no-cache']; lint_imports_command()"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


def contract_layers() -> list[str]:
    """The module names the engine's layers contract lists (pyproject.toml)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"]
                    if c["name"] == "Engine layers")
    return [part.strip() for layer in contract["layers"]
            for part in layer.replace(":", "|").split("|")]


def test_every_engine_module_is_in_the_layers_contract():
    """Issue 33 item 2: a module the contract does not list is not checked at all. Only the
    packages whose __init__ imports nothing of ours (engine, engine.games, …) stand outside."""
    listed = contract_layers()
    missing = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        name = module_name(path, ROOT)
        if path.name == "__init__.py" and not own_imports(path):
            continue
        if not any(name == layer or name.startswith(layer + ".") for layer in listed):
            missing.append(name)
    assert not missing, "not in [tool.importlinter]'s engine layers: " + ", ".join(missing)


def own_imports(path: Path) -> list[str]:
    """The engine modules a file imports (any level)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engine"):
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("engine")]
    return found


def test_moved_modules_import_engine_modules_at_module_level_only():
    bad = [f"{p.relative_to(ROOT)}:{line} imports {mod} inside a function"
           for p in clean_files() for line, mod in function_level_imports(p)
           if mod.split(".")[0] not in HEAVY]
    assert not bad, "\n".join(bad)


def test_no_private_names_from_or_into_the_moved_modules():
    moved = {module_name(p, ROOT) for p in clean_files()}
    bad = []
    for path in (ROOT / "engine").rglob("*.py"):
        name = module_name(path, ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith(
                    "engine"):
                continue
            if name not in moved and node.module not in moved:
                continue
            bad += [f"{path.relative_to(ROOT)}:{node.lineno} takes {a.name} from {node.module}"
                    for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    assert not bad, "\n".join(bad)


def test_imports_in_functions_of_our_own_modules_do_not_grow():
    """ARCHITECTURE allows imports inside functions for heavy libraries only; ours belong at
    the top, where the layers contract and a reader see them."""
    found = own_function_level_imports(ROOT)
    assert len(found) <= MAX_FUNCTION_LEVEL_OWN_IMPORTS, (
        f"{len(found)} imports of engine modules inside functions, more than the "
        f"{MAX_FUNCTION_LEVEL_OWN_IMPORTS} left today; import at module level:\n"
        + "\n".join(found))


def test_private_names_taken_across_modules_do_not_grow():
    found = private_names_across_modules(ROOT)
    assert len(found) <= MAX_PRIVATE_NAMES_ACROSS_MODULES, (
        f"{len(found)} private names imported from another engine module, more than the "
        f"{MAX_PRIVATE_NAMES_ACROSS_MODULES} left today; make the name public:\n"
        + "\n".join(found))
