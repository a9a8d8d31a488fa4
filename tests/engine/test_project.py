import json
from pathlib import Path

import pytest

from engine.audits.mechanism import MechanismConfig
from engine.data.errors import InputError
from engine.project import (
    Project,
    config_to_toml,
    load_config,
    load_project,
    read_config_file,
    save_project,
)

BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs"


def test_config_round_trip_through_toml(tmp_path):
    cfg = MechanismConfig(mechanism="gaussian", epsilon=0.3, observations=7, name='quote " and ü')
    p = tmp_path / "c.toml"
    p.write_text(config_to_toml(cfg.to_dict()), encoding="utf-8")
    assert load_config(p) == cfg


def test_project_round_trip(tmp_path):
    proj = Project(audit_type="mechanism", config=MechanismConfig().to_dict(),
                   result={"verdict": {"level": "high"}}, name="P")
    proj.log_decision("Release postponed: ε too large.")
    path = save_project(tmp_path / "p.praudit.json", proj)
    back = load_project(path)
    assert back.config == proj.config and back.result == proj.result
    assert back.decision_log[0]["text"] == "Release postponed: ε too large."


def test_bad_project_file_is_a_sentence(tmp_path):
    with pytest.raises(InputError, match="not a Privacy Risk Auditor project file"):
        load_project(BAD / "not_a_project.praudit.json")
    (tmp_path / "x.praudit.json").write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_project(tmp_path / "x.praudit.json")


def test_every_bad_input_file_gives_input_error():
    for path in sorted(BAD.glob("*.toml")):
        with pytest.raises(InputError) as info:
            load_config(path)
        assert path.name in str(info.value)


def test_json_config_line_number(tmp_path):
    p = tmp_path / "c.json"
    p.write_text('{\n "audit_type": "mechanism",\n "epsilon": }\n')
    with pytest.raises(InputError, match="line 3"):
        read_config_file(p)


# --------------------------------------------------------------------------- crash-safe saves

def _project(note: str, size: int = 0) -> Project:
    proj = Project(audit_type="mechanism", config=MechanismConfig().to_dict(),
                   result={"padding": "x" * size}, name=note)
    proj.log_decision(note)
    return proj


def test_saving_over_a_project_keeps_the_last_good_version(tmp_path):
    from engine.project import backup_path, last_good_project

    path = tmp_path / "p.praudit.json"
    save_project(path, _project("first"))
    assert not backup_path(path).exists()
    save_project(path, _project("second"))
    assert load_project(path).name == "second"
    assert load_project(backup_path(path)).name == "first"
    path.write_text('{"audit_type": "mechanism", "conf')          # damaged later
    with pytest.raises(InputError):
        load_project(path)
    project, where = last_good_project(path)
    assert project.name == "first" and where == backup_path(path)
    save_project(path, _project("third"))         # a damaged file never becomes the backup
    assert load_project(backup_path(path)).name == "first"
    assert not list(tmp_path.glob("*.tmp"))


def test_a_newer_project_version_is_a_sentence_and_the_backup_is_offered(tmp_path):
    from engine.project import last_good_project

    path = tmp_path / "p.praudit.json"
    save_project(path, _project("good"))
    save_project(path, _project("good again"))
    data = json.loads(path.read_text())
    data["schema_version"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="newer version"):
        load_project(path)
    assert last_good_project(path)[0].name == "good"


KILLER = r"""
import sys
from engine.project import Project, save_project
path, size = sys.argv[1], int(sys.argv[2])
i = 0
while True:
    i += 1
    save_project(path, Project(audit_type="mechanism", config={"epsilon": 1.0},
                               result={"padding": "y" * size}, name=f"save {i}"))
    print(i, flush=True)
"""


def test_a_save_killed_at_random_points_never_loses_the_project(tmp_path):
    """SIGKILL a process that saves a 2 MB project in a loop, at 25 random moments: the
    project always opens afterwards (the old version or a newer one)."""
    import random
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[2]
    path = tmp_path / "k.praudit.json"
    save_project(path, _project("before any kill", 2_000_000))
    script = tmp_path / "saver.py"
    script.write_text(KILLER)
    chooser = random.Random(11)
    for _ in range(25):
        proc = subprocess.Popen([sys.executable, str(script), str(path), "2000000"], cwd=root,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        proc.stdout.readline()                      # at least one save finished
        time.sleep(chooser.uniform(0.0, 0.05))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        project = load_project(path)
        assert project.audit_type == "mechanism" and len(project.result["padding"]) > 0
