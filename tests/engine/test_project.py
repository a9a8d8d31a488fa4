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
