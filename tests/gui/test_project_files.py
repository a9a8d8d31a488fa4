"""Issue 18: opening malformed projects, the app's error reporter, and ``main.py FILE``.

A damaged project never crashes the window: a damaged result is left out and the project opens
with its settings, saying so; settings the form cannot show refuse the project with a sentence
and leave the page as it was; a half-typed setting opens with its sentence at the field. An
exception nobody caught reaches a box and the error log, and what the user typed stays.
"""

from __future__ import annotations

import math
import threading

import pytest
from PySide6.QtWidgets import QMessageBox, QPushButton

from gui.error_dialog import InternalErrorReporter
from tests.engine.test_project_blocks import DELETE, PROJECTS, mutated, saved, write

AUDIT_TYPES = ("mechanism", "location", "aggregates", "model")


@pytest.fixture
def shown(monkeypatch):
    """The sentences the main window shows in its error box (and No to "open the last good
    version?", which these projects do not have anyway)."""
    messages = []
    monkeypatch.setattr("gui.main_window.show_message_error",
                        lambda parent, title, message: messages.append(message))
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda *a, **k: QMessageBox.StandardButton.No))
    return messages


@pytest.mark.parametrize("audit_type", AUDIT_TYPES)
def test_a_saved_project_of_each_type_opens_with_its_result(main_window, shown, audit_type):
    assert main_window.open_project(str(PROJECTS / f"{audit_type}.praudit.json"))
    page = main_window.audit_pages[audit_type]
    assert shown == []
    assert page.result() == saved(audit_type)["result"]
    assert page.steps.currentIndex() == page.results_step


# (audit type, field, value, what happens)
MALFORMED = [
    ("mechanism", ("result", "verdict", "level"), 5, "without result"),
    ("mechanism", ("config", "policy"), 7, "refused"),
    ("mechanism", ("audit_type",), "quantum", "refused"),
    ("location", ("result", "attacks"), "x", "without result"),
    ("location", ("result", "attacks", 0, "roc", "tpr"), ["a", "b"], "without result"),
    ("location", ("config", "epsilon"), 1e308, "setting to fix"),
    ("aggregates", ("result", "verdict"), DELETE, "without result"),
    ("aggregates", ("config", "schema"), 5, "refused"),
    ("aggregates", ("config", "max_targets"), "lots", "setting to fix"),
    ("model", ("result", "attacks", 0, "auc"), math.nan, "without result"),
    ("model", ("result", "exposed_records"), {"j": [1, {"k": "x"}]}, "without result"),
    ("model", ("config", "defences"), [1, 2], "refused"),
    ("model", ("config", "epochs"), "ten", "setting to fix"),
    ("model", ("decision_log",), "junk", "refused"),
]


@pytest.mark.parametrize(("audit_type", "field", "value", "outcome"), MALFORMED,
                         ids=[f"{c[0]}-{'.'.join(map(str, c[1]))}={str(c[2])[:10]}"
                              for c in MALFORMED])
def test_a_malformed_project_opens_with_a_sentence_or_is_refused(main_window, shown, tmp_path,
                                                                 audit_type, field, value,
                                                                 outcome):
    page = main_window.audit_pages[audit_type]
    typed_in = next(iter(page.fields))             # something typed before opening
    page.fields[typed_in].setText("typed 7")
    path = write(tmp_path, mutated(audit_type, field, value))
    opened = main_window.open_project(str(path))
    assert len(shown) == 1 and str(path) in shown[0]
    if outcome == "refused":
        assert not opened
        assert page.result() is None and main_window.project_path_of(page) is None
        assert page.fields[typed_in].text() == "typed 7"
        return
    assert opened and main_window.stack.currentWidget() is page
    if outcome == "without result":
        assert "saved results are damaged" in shown[0] and "run the audit again" in shown[0]
        assert page.result() is None and not page.export_button.isEnabled()
        assert page.loaded_config["seed"] == saved(audit_type)["config"]["seed"]
    else:
        assert f"'{field[-1]}'" in shown[0] and "correct it before running" in shown[0]
        assert page.result() is not None
        assert page.run_bar.error_label.isVisible()


def test_a_result_the_view_cannot_draw_is_left_out(main_window, shown, monkeypatch):
    """Defence in depth: a result the engine's check passes but a results view fails on —
    raising, or raising inside a slot it triggers (which Qt hands to sys.excepthook) —
    opens the project without it, with the sentence."""
    page = main_window.audit_pages["mechanism"]
    trigger = QPushButton()
    trigger.clicked.connect(lambda: 1 / 0)
    draw = page.results_view.set_result

    def set_result(result):
        draw(result)
        if result is not None:
            trigger.click()

    monkeypatch.setattr(page.results_view, "set_result", set_result)
    assert main_window.open_project(str(PROJECTS / "mechanism.praudit.json"))
    assert page.result() is None
    assert "part of them could not be drawn" in shown[0] and "Error" not in shown[0]


# ----------------------------------------------------------------------- the error reporter

PERSON = "Jane Doe"         # a record's value, as a library quotes it in its message


def _fail_with_a_name() -> None:
    # The traceback's code lines are the app's source and are kept; the message's quoted
    # value is data and is not.
    raise ValueError(f"could not convert string to float: {PERSON!r}")


def test_an_error_in_a_slot_reaches_a_box_and_the_log_and_the_typing_stays(main_window,
                                                                           qtbot, tmp_path):
    log = tmp_path / "logs" / "errors.log"
    reporter = InternalErrorReporter(log)
    page = main_window.audit_pages["mechanism"]
    main_window.show_audit("mechanism")
    page.fields["epsilon"].setText("0.42")
    button = QPushButton()
    button.clicked.connect(_fail_with_a_name)
    reporter.install()
    try:
        button.click()
        qtbot.waitUntil(lambda: reporter.box is not None)
        text = reporter.box.text()
        assert "ValueError" in text and str(log) in text and PERSON not in text
        assert "Traceback" in reporter.box.detailedText()
        logged = log.read_text(encoding="utf-8")
        assert "_fail_with_a_name" in logged and PERSON not in logged
        button.click()                      # a second error while the box is open: logged
        qtbot.waitUntil(lambda: reporter.logged_only == 1)
        assert reporter.shown == 1 and log.read_text().count("Traceback") == 2
        reporter.box.close()
        qtbot.waitUntil(lambda: reporter.box is None)

        worker = threading.Thread(target=_fail_with_a_name)   # from a background thread
        worker.start()
        worker.join()
        qtbot.waitUntil(lambda: reporter.box is not None)
        assert reporter.shown == 2 and log.read_text().count("Traceback") == 3
        reporter.box.close()
    finally:
        reporter.uninstall()
    assert main_window.isVisible() and page.fields["epsilon"].text() == "0.42"


# ----------------------------------------------------------------------- main.py FILE

def test_main_py_with_a_project_path_opens_it(run_main, shown):
    window = run_main([str(PROJECTS / "location.praudit.json")])
    assert window.stack.currentWidget() is window.location_page
    assert window.location_page.result() == saved("location")["result"]
    assert shown == []


def test_main_py_with_a_bad_file_gives_the_file_open_sentence(run_main, shown, tmp_path):
    bad = tmp_path / "broken.praudit.json"
    bad.write_text("not json")
    window = run_main([str(bad)])
    assert len(shown) == 1 and "not a Privacy Risk Auditor project file" in shown[0]
    assert window.isVisible() and window.stack.currentWidget() is window.home_page
    damaged = write(tmp_path, mutated("mechanism", ("result", "verdict", "level"), 5))
    window = run_main(["--sample", "location", str(damaged)])
    assert "saved results are damaged" in shown[1]
    assert window.stack.currentWidget() is window.mechanism_page


def test_the_project_path_leaves_the_commands_alone():
    from main import split_project_path

    assert split_project_path(["run", "c.toml", "--out", "d"]) == (
        ["run", "c.toml", "--out", "d"], None)
    assert split_project_path(["demo", "model", "--out", "d"])[1] is None
    assert split_project_path(["a.praudit.json"]) == ([], "a.praudit.json")
    assert split_project_path(["--sample", "model", "a.json"]) == (["--sample", "model"],
                                                                    "a.json")
    assert split_project_path(["--", "-odd.praudit.json"]) == ([], "-odd.praudit.json")
