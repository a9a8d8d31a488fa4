"""No configuration key, code name, Python repr or attack acronym in a message the app shows
(issue 32, item 7).

The messages, collected four ways:

* progress lines: each audit's bundled example at a small size, run with a progress callback
  that keeps every line (the model's with one setting of each defence);
* the form's errors as each page shows them: every field of every audit page given a value it
  refuses (text, a negative number, zero, a huge number), and the sentence the page puts under
  the form (``AuditPage.labelled_sentence``, the field's label in place of its key);
* every literal text passed to a message box in ``gui/`` and to ``progress(…)`` in
  ``engine/`` (a static scan, for the lines no small run reaches);
* every error sentence the engine can raise (the literal text of each ``InputError(…)`` and
  ``BlockError(…)``, a static scan: the parts that come from a value are left out, a value
  formatted with ``!r`` counts as a repr).

Each must carry none of: a configuration key (a field of the audit config dataclasses) in
quotes, a snake_case identifier, a Python repr ("None", a quoted list, braces), or an attack's
acronym or internal name ("cIP", "CIP-rand", "cip_rand", "Stochastic module", "desia",
"np_optimal", "LiRA", …). The engine's error sentences written before this rule and not yet
reworded are listed in :data:`ENGINE_BACKLOG` (the list may only shrink: an entry that no longer
breaks the rule, or no longer exists, fails the test too).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from engine.audits import registry

REPO = Path(__file__).resolve().parents[2]

#: Attack acronyms and the papers' internal names of attack parts (the issue's examples first).
CODE_NAMES = ("cIP", "CIP-rand", "cip_rand", "Stochastic module", "stochastic module",
              "Deterministic module", "deterministic module", "desia", "DeSIA", "np_optimal",
              "LiRA", "RMIA", "BTTA", "CBTTA", "CIP", "RAP", "MIA", "AIA", "SMA", "ML-Leaks",
              "meta-classifier", "shadow game")
CODE_NAME = re.compile(r"(?<![A-Za-z])(?:" + "|".join(re.escape(n) for n in CODE_NAMES)
                       + r")(?![A-Za-z])")
#: A snake_case identifier (not the tail of a path: "resources/location/sample_city.csv").
SNAKE = re.compile(r"(?<![\w./\\-])[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")
#: A Python repr: None, a quoted list ("['a', 'b']"), braces.
REPR = re.compile(r"\bNone\b|\[\s*['\"]|[{}]")


def config_keys() -> set[str]:
    """Every field name of the audit config dataclasses (and the dataclasses they nest)."""
    keys: set[str] = set()
    seen: set[type] = set()

    def walk(cls) -> None:
        if cls in seen or not dataclasses.is_dataclass(cls):
            return
        seen.add(cls)
        for f in dataclasses.fields(cls):
            keys.add(f.name)
            default = f.default if f.default is not dataclasses.MISSING else None
            if f.default_factory is not dataclasses.MISSING:
                default = f.default_factory()
            walk(type(default))

    for entry in registry.AUDIT_TYPES.values():
        walk(type(entry.demo()))
    from engine.policy import VerdictPolicy
    walk(VerdictPolicy)
    return keys


CONFIG_KEYS = config_keys()
QUOTED_KEY = re.compile(r"['\"`‘“](" + "|".join(re.escape(k) for k in sorted(CONFIG_KEYS))
                        + r")['\"`’”]")


def problems(message: str) -> list[str]:
    """What ``message`` carries that a privacy officer should not have to read."""
    found = [f"the setting name {m.group(0)}" for m in QUOTED_KEY.finditer(message)]
    found += [f"the identifier {m.group(0)}" for m in SNAKE.finditer(message)]
    found += [f"a Python repr {m.group(0)!r}" for m in REPR.finditer(message)]
    found += [f"the code name {m.group(0)}" for m in CODE_NAME.finditer(message)]
    return found


def test_the_scan_finds_what_the_issue_names():
    for message in ("CIP-rand: target 3 of 20", "Stochastic module: targets (1 of 4)",
                    "set user_col to one of these", "'aggregate_size' must be at least 1",
                    "choose 'epsilon' above 0", "got None", "must be one of ['a', 'b']",
                    "the cIP solve", "desia failed", "the np_optimal curve",
                    "Training the meta-classifier: epoch 1 of 8"):
        assert problems(message), message
    for message in ("Training the model: epoch 3 of 8", "What-if sweep: 1 of 25 settings",
                    "resources/location/sample_city.csv: row 3 is empty",
                    "ε must lie in [0, 1]; got 'abc'.", "“Person column” is missing"):
        assert not problems(message), message


# --------------------------------------------------------------------------- progress lines

@pytest.fixture(scope="module")
def progress_lines() -> dict[str, list[str]]:
    """Every progress line of each audit's small run (tests.gui.test_glossary_scan.small_audit:
    the same runs as the glossary scan, the model's with one setting of each defence)."""
    from tests.gui.test_glossary_scan import small_audit

    return {kind: sorted(set(small_audit(kind)[1]))
            for kind in ("mechanism", "location", "aggregates", "model")}


def test_progress_lines_speak_plainly(progress_lines):
    assert all(len(lines) >= 3 for lines in progress_lines.values()), progress_lines
    bad = {kind: {line: problems(line) for line in lines if problems(line)}
           for kind, lines in progress_lines.items()}
    assert not any(bad.values()), bad


# --------------------------------------------------------------------------- static scans

def literal_text(node: ast.AST) -> tuple[str, list[str]]:
    """The literal text of a message expression, each value it formats as "{}", and the
    values it formats with ``!r``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, []
    if isinstance(node, ast.JoinedStr):
        parts, reprs = [], []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                parts.append("{}")
                if v.conversion == ord("r"):
                    reprs.append(ast.unparse(v.value))
        return "".join(parts), reprs
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        (left, lr), (right, rr) = literal_text(node.left), literal_text(node.right)
        return left + right, lr + rr
    if isinstance(node, ast.IfExp):
        (a, ar), (b, br) = literal_text(node.body), literal_text(node.orelse)
        return f"{a} / {b}", ar + br
    return "{}", []


#: The calls that say a progress line (``progress(fraction, message)``, and any call given
#: ``message=`` or ``step=``).
PROGRESS_CALLS = {"progress"}


def calls(folder: str, names: set[str]) -> list[tuple[str, int, str, list[str]]]:
    """(file, line, literal text, repr'd values) of every call of a function or method named in
    ``names`` under ``folder`` whose message argument holds some literal text."""
    found = []
    for path in sorted((REPO / folder).rglob("*.py")):
        for node in parsed(path):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name not in names and not (names == PROGRESS_CALLS and any(
                    k.arg in ("message", "step") for k in node.keywords)):
                continue
            args = list(node.args)
            if name in ("warning", "critical", "information", "question"):
                args = args[1:3]          # QMessageBox.warning(parent, title, text, …)
            elif name == "QMessageBox":
                args = args[1:3]          # QMessageBox(icon, title, text, …)
            elif name in ("setText", "setInformativeText", "setWindowTitle"):
                args = args[:1]
            elif name in ("progress", "report"):
                args = [a for a in args[1:2]]   # progress(fraction, message)
            else:
                args = args[:1]
            if names == PROGRESS_CALLS:
                # A sub-step's words handed to a helper: message="…", step="…".
                args += [k.value for k in node.keywords if k.arg in ("message", "step")]
            for arg in args:
                text, reprs = literal_text(arg)
                if text.replace("{}", "").strip() or reprs:
                    found.append((str(path.relative_to(REPO)), node.lineno, text, reprs))
    return found


def parsed(path: Path) -> list[ast.AST]:
    """Every node of a source file (read once per test process)."""
    key = str(path)
    if key not in _PARSED:
        _PARSED[key] = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
    return _PARSED[key]


_PARSED: dict[str, list[ast.AST]] = {}


def message_box_texts() -> list[tuple[str, int, str, list[str]]]:
    """Every message box text in gui/: the static calls, and the texts set on a widget in a
    file that builds message boxes."""
    boxes = calls("gui", {"warning", "critical", "information", "question", "QMessageBox"})
    with_boxes = {str(path.relative_to(REPO)) for path in (REPO / "gui").rglob("*.py")
                  if "QMessageBox" in path.read_text(encoding="utf-8")}
    return boxes + [item for item in calls("gui", {"setText", "setInformativeText"})
                    if item[0] in with_boxes]


def test_dialogs_and_progress_calls_in_the_source_speak_plainly():
    texts = message_box_texts() + calls("engine", PROGRESS_CALLS)
    assert len(texts) >= 20
    bad = [(f"{f}:{line}", text, problems(text.replace("{}", "…")) + [f"repr of {r}"
                                                                      for r in reprs])
           for f, line, text, reprs in texts
           if problems(text.replace("{}", "…")) or reprs]
    assert not bad, bad


def engine_errors() -> list[tuple[str, int, str, list[str]]]:
    return calls("engine", {"InputError", "BlockError"}) + calls("gui", {"InputError"})


def error_problems(text: str, reprs: list[str]) -> list[str]:
    return problems(text.replace("{}", "…")) + [f"repr of {r}" for r in reprs]


#: The engine's error sentences (file and the sentence's first 60 characters) that break the
#: rule and are not yet reworded. Empty since issue 32 item 7 was finished: every sentence names
#: a setting by its label, and an error that needs the config file's key carries it as
#: ``InputError.setting`` (the command line prints it on a line of its own). Must stay empty
#: (module doc: the list may only shrink).
ENGINE_BACKLOG: frozenset[tuple[str, str]] = frozenset()


def test_engine_error_sentences_speak_plainly():
    errors = engine_errors()
    assert len(errors) >= 300
    bad = {(f, text[:60]): (line, error_problems(text, reprs))
           for f, line, text, reprs in errors if error_problems(text, reprs)}
    new = {k: v for k, v in bad.items() if k not in ENGINE_BACKLOG}
    assert not new, (len(new), sorted(new.items())[:40])
    stale = ENGINE_BACKLOG - set(bad)
    assert not stale, ("reworded: remove from ENGINE_BACKLOG", sorted(stale))


# --------------------------------------------------------------------------- the form's errors

#: Values a field refuses: text in a number field, a negative number, zero, a huge number.
REFUSED = ("abc", "-5", "0", "1e12")


@pytest.fixture(scope="module")
def form_sentences(request) -> dict[str, set[str]]:
    """Per audit page, every sentence it shows for a refused value in any of its fields (the
    field's label in place of its key, as under the form and in the run bar)."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    request.getfixturevalue("qapp")
    from gui.job_runner import JobRunner
    from gui.pages.audit_page import plain_sentence
    from gui.pages.registry import AUDIT_PAGES

    shown: dict[str, set[str]] = {}
    for entry, page_class in AUDIT_PAGES.items():
        page = page_class(JobRunner())
        sentences: set[str] = set()
        for edit in page.fields.values():
            before = edit.text()
            for value in REFUSED:
                edit.setText(value)
                for error in page.form_errors(page.form_dict()):
                    sentences.add(page.labelled_sentence(error) if error.key
                                  else plain_sentence(error.one_line()))
            edit.setText(before)
        shown[entry.name] = sentences
        page.deleteLater()
    return shown


def test_form_errors_speak_plainly(form_sentences):
    assert all(len(s) >= 10 for s in form_sentences.values()), form_sentences
    bad = {kind: {s: problems(s) for s in sentences if problems(s)}
           for kind, sentences in form_sentences.items()}
    assert not any(bad.values()), (sum(map(len, bad.values())), bad)


def test_an_error_carries_its_config_key_beside_the_sentence():
    """The sentence names a setting by its label; the key a config-file user needs travels as
    ``InputError.setting`` and becomes the command line's own line (issue 32 item 7)."""
    from engine.data.errors import InputError

    top = InputError("ε per hour must be greater than 0.", key="epsilon", setting="epsilon")
    assert top.config_line() == "In the config file: the line `epsilon =`."
    nested = InputError("One reference model cannot tell …", setting="defences.reference_models")
    assert nested.config_line() == ("In the config file: the line `reference_models =` under "
                                    "[defences].")
    assert InputError("A data file's row 3 is empty.", key="age").config_line() == ""
    assert not problems(str(top)) and not problems(str(nested))
