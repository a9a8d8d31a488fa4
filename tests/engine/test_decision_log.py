"""A folder of projects as one decision log (issue 34 item 3): signed, unsigned, changed after
signing and unreadable projects each a row, never a crash; CSV and JSON; the command line."""

from __future__ import annotations

import csv
import datetime as _dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.data.errors import InputError
from engine.decision_log import COLUMNS, NOT_SIGNED, collect, write_csv, write_json, write_log
from engine.runtime import CancelToken, JobCancelled
from engine.signoff import result_sha256, sign

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = ROOT / "tests" / "data" / "projects"
TODAY = _dt.date.today().isoformat()


def saved(audit_type: str) -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """signed (mechanism), unsigned (aggregates), tampered (location, in a sub-folder), broken
    (not JSON), and a file that is no project (left alone)."""
    root = tmp_path_factory.mktemp("projects")
    signed = saved("mechanism")
    signed["signoff"] = sign(signed["result"], decision="approve_with_conditions",
                             conditions="=HYPERLINK(\"x\")", reviewer="Jane Roe", role="DPO",
                             date=TODAY, rationale="ok").to_dict()
    (root / "signed.praudit.json").write_text(json.dumps(signed), encoding="utf-8")
    (root / "unsigned.praudit.json").write_text(json.dumps(saved("aggregates")),
                                                encoding="utf-8")
    tampered = saved("location")
    tampered["signoff"] = sign(tampered["result"], decision="reject", reviewer="Sam Poe",
                               date=TODAY).to_dict()
    tampered["result"]["summary"] = "Changed after signing."
    (root / "older").mkdir()
    (root / "older" / "tampered.praudit.json").write_text(json.dumps(tampered),
                                                          encoding="utf-8")
    (root / "broken.praudit.json").write_text("{not json", encoding="utf-8")
    (root / "notes.txt").write_text("not a project", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def rows(folder) -> dict[str, dict]:
    return {r["project"]: r for r in collect(folder)}


def test_every_project_is_a_row(rows):
    assert sorted(rows) == ["broken.praudit.json", "older/tampered.praudit.json",
                            "signed.praudit.json", "unsigned.praudit.json"]
    assert all(list(r) == list(COLUMNS) for r in rows.values())


def test_a_signed_project_row(rows):
    r = rows["signed.praudit.json"]
    result = saved("mechanism")["result"]
    assert (r["audit"], r["release"], r["verdict"]) == ("mechanism", result["name"],
                                                        result["verdict"]["level"])
    assert (r["decision"], r["reviewer"], r["role"], r["date"]) == (
        "Approve with conditions", "Jane Roe", "DPO", TODAY)
    assert r["result_sha256"] == result_sha256(result) and r["hash_matches"] == "yes"
    assert r["signed_at"] and r["problem"] == ""


def test_unsigned_tampered_and_broken_rows(rows):
    unsigned = rows["unsigned.praudit.json"]
    assert unsigned["decision"] == NOT_SIGNED and unsigned["reviewer"] == ""
    assert unsigned["result_sha256"] == result_sha256(saved("aggregates")["result"])
    tampered = rows["older/tampered.praudit.json"]
    assert tampered["decision"] == "Reject" and tampered["hash_matches"] == "no"
    assert "no longer matches the one Sam Poe signed" in tampered["problem"]
    broken = rows["broken.praudit.json"]
    assert broken["decision"] == "unreadable"
    assert "not valid JSON" in broken["problem"] and "\n" not in broken["problem"]


def test_csv_and_json_are_written_and_read_back(folder, rows, tmp_path):
    listed = collect(folder)
    write_csv(listed, tmp_path / "log.csv")
    with open(tmp_path / "log.csv", newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    assert [r["project"] for r in table] == [r["project"] for r in listed]
    signed = next(r for r in table if r["project"] == "signed.praudit.json")
    # A typed text never becomes a live spreadsheet formula (engine.data.csv_safety).
    assert signed["conditions"].startswith("'=HYPERLINK")
    write_json(listed, tmp_path / "log.json")
    assert json.loads((tmp_path / "log.json").read_text(encoding="utf-8")) == listed
    with pytest.raises(InputError, match=r"\.csv or \.json"):
        write_log(listed, tmp_path / "log.xlsx")


def test_a_missing_folder_is_a_sentence_and_cancel_stops(folder, tmp_path):
    with pytest.raises(InputError, match="folder not found"):
        collect(tmp_path / "nowhere")
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        collect(folder, cancel=token)


def cli(*args):
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_the_command_line_writes_the_log_and_exits_2_on_a_missing_folder(folder, tmp_path):
    out = tmp_path / "decisions.json"
    done = cli("decisions", str(folder), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "4 projects (2 signed)" in done.stdout
    assert len(json.loads(out.read_text(encoding="utf-8"))) == 4
    missing = cli("decisions", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x.csv"))
    assert missing.returncode == 2
    lines = missing.stderr.strip().splitlines()
    assert len(lines) == 1 and "folder not found" in lines[0] and lines[0].startswith("error:")
    assert not (tmp_path / "x.csv").exists()
