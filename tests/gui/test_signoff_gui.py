"""The sign-off in the app (issue 34 item 3): signed on the results page, carried through save,
reopen, a changed setting (unsigned, the signed version in the history), a result changed
behind the app's back (a sentence on opening), autosave, the PDF and the decision log export."""

from __future__ import annotations

import datetime as _dt
import json
import re
import shutil

import pytest

from engine.project import load_project
from engine.signoff import result_sha256, sign
from tests.engine.test_project_blocks import PROJECTS, saved

TODAY = _dt.date.today().isoformat()
SIGNED_LINE = f"Signed: Approved with conditions by Jane Roe (DPO) on {TODAY}."


@pytest.fixture
def shown(monkeypatch):
    """The sentences the main window shows in its error box."""
    messages = []
    monkeypatch.setattr("gui.main_window.show_message_error",
                        lambda parent, title, message: messages.append(message))
    return messages


@pytest.fixture
def opened(main_window, shown, tmp_path):
    """The saved mechanism project, copied and opened: (window, page, its path)."""
    path = tmp_path / "hourly.praudit.json"
    shutil.copy(PROJECTS / "mechanism.praudit.json", path)
    assert main_window.open_project(str(path))
    return main_window, main_window.mechanism_page, path


def plain(label) -> str:
    return re.sub(r"<[^>]+>", "", label.text()).replace("&amp;", "&")


def fill_and_sign(page, name: str = "Jane Roe") -> None:
    panel = page.signoff_panel
    panel.decision_buttons["approve_with_conditions"].setChecked(True)
    panel.conditions_edit.setPlainText("Yearly tables only.")
    panel.reviewer_edit.setText(name)
    panel.role_edit.setText("DPO")
    panel.rationale_edit.setPlainText("Low risk at ε = 1 after review.")
    panel.sign_button.click()


def test_a_missing_name_is_a_sentence_at_the_field_and_nothing_is_lost(opened):
    _window, page, _path = opened
    panel = page.signoff_panel
    assert panel.form.isVisibleTo(panel)
    assert plain(page.results_view.signoff_line) == ("Not signed: no decision has been "
                                                    "recorded on this result.")
    fill_and_sign(page, name="  ")
    error = panel.errors["reviewer"]
    assert error.isVisibleTo(panel) and error.text() == "Type the reviewer's name before signing."
    assert page.signoff() is None
    assert panel.conditions_edit.toPlainText() == "Yearly tables only."
    assert panel.rationale_edit.toPlainText() == "Low risk at ε = 1 after review."
    assert panel.decision() == "approve_with_conditions"
    panel.decision_buttons["approve"].setChecked(True)
    assert not panel.conditions_edit.isEnabled()             # conditions: conditional only


def test_sign_save_reopen_still_signed(opened, shown):
    window, page, path = opened
    fill_and_sign(page)
    s = page.signoff()
    assert s is not None and s["result_sha256"] == result_sha256(page.result())
    assert plain(page.results_view.signoff_line) == SIGNED_LINE
    assert page.status_label.text() == SIGNED_LINE
    panel = page.signoff_panel
    assert not panel.form.isVisibleTo(panel)
    assert s["result_sha256"][:12] in plain(panel.state_label)
    assert "Low risk at ε = 1 after review." in page.decision_log()[-1]["text"]
    assert window.has_unsaved_changes(page)
    assert window._write_project(str(path), page=page)
    assert load_project(path).signoff == s
    # Reopened from the file: still signed, and the page is clean.
    window.new_project()
    assert page.signoff() is None
    assert window.open_project(str(path))
    assert page.signoff() == s and shown == []
    assert plain(page.results_view.signoff_line) == SIGNED_LINE
    assert not window.has_unsaved_changes(page)


def test_a_setting_changed_after_signing_unsigns_and_keeps_the_signed_version(opened):
    window, page, path = opened
    fill_and_sign(page)
    signed = page.signoff()
    config = json.loads(json.dumps(page.config_for_saving()))     # as a project file holds it
    page.fields["epsilon"].setText("0.5")
    page.update_estimate(force=True)                 # what the page's timer does
    assert page.signoff() is None
    unsigned = (f"Unsigned: the settings changed after Jane Roe signed on {TODAY}; the signed "
                "version is kept in the project's history.")
    assert plain(page.results_view.signoff_line) == unsigned
    panel = page.signoff_panel
    assert panel.form.isVisibleTo(panel) and unsigned in plain(panel.state_label)
    [entry] = page.signoff_history()
    assert entry["signoff"] == signed and entry["config"] == config
    assert entry["result_sha256"] == signed["result_sha256"]
    assert window._write_project(str(path), page=page)
    back = load_project(path)
    assert back.signoff is None and back.history == [entry]
    # The exported result carries the history into the report.
    exported = page.result_for_report()
    assert exported["signoff"] is None and exported["signoff_history"] == [signed]
    # Reopened: still unsigned, the reason said again.
    assert window.open_project(str(path))
    assert plain(page.results_view.signoff_line) == unsigned


def test_a_result_changed_after_signing_opens_with_a_banner(main_window, shown, tmp_path):
    data = saved("mechanism")
    data["signoff"] = sign(data["result"], decision="approve", reviewer="Jane Roe",
                           date=TODAY).to_dict()
    data["result"]["summary"] = "Edited after it was signed."
    path = tmp_path / "edited.praudit.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main_window.open_project(str(path))
    page = main_window.mechanism_page
    [message] = shown
    assert "The result no longer matches the one Jane Roe signed" in message
    line = page.results_view.signoff_line
    assert line.isVisibleTo(page.results_view) and "no longer matches" in plain(line)
    assert page.signoff_panel.form.isVisibleTo(page.signoff_panel)   # open to sign again


def test_the_autosave_copy_and_the_pdf_carry_the_signoff(opened, tmp_path):
    pypdf = pytest.importorskip("pypdf")
    from engine.report.pdf import write_report

    window, page, _path = opened
    fill_and_sign(page)                # its decision-log entry autosaves the page
    [copy] = list(window.recovery_folder.glob("*-mechanism.recovery.json"))
    kept = json.loads(copy.read_text(encoding="utf-8"))
    assert kept["signoff"] == page.signoff()
    exported = page.result_for_report()
    assert exported["signoff"] == page.signoff()
    write_report(exported, tmp_path / "signed.pdf")
    text = " ".join(" ".join(p.extract_text() or "" for p in
                             pypdf.PdfReader(str(tmp_path / "signed.pdf")).pages).split())
    digest = page.signoff()["result_sha256"]
    assert (f"Decision: Approved with conditions — by Jane Roe (DPO), {TODAY}; result SHA-256 "
            f"{digest[:12]}…") in text
    assert "The fingerprints match" in text and digest in text


def test_the_file_menu_exports_a_decision_log(opened, qtbot, tmp_path):
    from gui.decision_log_export import export_decision_log

    window, page, path = opened
    fill_and_sign(page)
    assert window._write_project(str(path), page=page)
    out = tmp_path / "log.json"
    assert window.decision_log_action.text() == "Export decision &log…"
    export_decision_log(window, (str(tmp_path), str(out)))
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=30_000)
    [row] = json.loads(out.read_text(encoding="utf-8"))
    assert (row["project"], row["decision"], row["reviewer"], row["hash_matches"]) == (
        "hourly.praudit.json", "Approve with conditions", "Jane Roe", "yes")


@pytest.mark.parametrize("audit_type", ["mechanism", "location", "aggregates", "model"])
def test_opening_a_signed_project_leaves_it_signed(main_window, shown, qtbot, tmp_path,
                                                   audit_type):
    """What a page does after opening (reading its data file, estimating the run) changes no
    setting, so a signed project stays signed until the officer changes one."""
    data = saved(audit_type)
    data["signoff"] = sign(data["result"], decision="reject", reviewer="Sam Poe",
                           date=TODAY).to_dict()
    path = tmp_path / f"{audit_type}.praudit.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main_window.open_project(str(path)) and shown == []
    page = main_window.audit_pages[audit_type]
    qtbot.wait(300)
    qtbot.waitUntil(lambda: not main_window.runner.is_busy(), timeout=30_000)
    page.update_estimate(force=True)
    assert page.signoff() == data["signoff"]
    assert plain(page.results_view.signoff_line) == f"Signed: Rejected by Sam Poe on {TODAY}."
    assert not main_window.has_unsaved_changes(page)
