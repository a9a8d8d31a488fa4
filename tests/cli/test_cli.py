"""The command line: help, demo, run, and one clear line with exit 2 for every bad config."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "data" / "bad_inputs"


def cli(*args, timeout=300):
    return subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_help_documents_commands_and_exit_codes():
    out = cli("--help")
    assert out.returncode == 0
    for word in ("run", "demo", "--out", "exit codes", "audit_type", "PRA_DEVICE"):
        assert word in out.stdout


@pytest.mark.parametrize("filename, key_words", [
    ("negative_epsilon.toml", ["'epsilon'", "greater than 0", "(got -1)"]),
    ("unknown_mechanism.toml", ["'mechanism'", "laplace, gaussian, discrete_laplace, discrete_gaussian", "exponential"]),
    ("unknown_key.toml", ["unknown key 'mechansim'", "Allowed keys"]),
    ("broken_syntax.toml", ["invalid TOML", "line 2"]),
    ("wrong_type.toml", ["'observations'", "whole number", "ten"]),
    ("fractional_observations.toml", ["'observations'", "whole number"]),
    ("missing_audit_type.toml", ["does not say which audit to run", "mechanism"]),
    ("scale_without_value.toml", ["the noise scale is required"]),
    ("discrete_fractional_sensitivity.toml", ["'sensitivity'", "whole number"]),
    ("bad_policy.toml", ["'policy.high_tpr'", "between 0 and 1"]),
    ("limit_below_fpr.toml", ["highest acceptable share of people spotted", "must exceed"]),
    ("unknown_audit_type.toml", ["audit to run must be one of", "quantum"]),
    ("not_utf8.toml", ["UTF-8"]),
    ("does_not_exist.toml", ["file not found"]),
])
def test_bad_config_gives_one_line_and_exit_2(tmp_path, filename, key_words):
    out = cli("run", str(BAD / filename), "--out", str(tmp_path / "o"))
    assert out.returncode == 2, out.stderr
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    # One sentence; a setting it names by its label may add the config file's key on a
    # line of its own (test_the_config_line_names_the_key).
    assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith(
        "  In the config file: the line `")), out.stderr
    assert "Traceback" not in out.stderr
    assert filename in lines[0]
    for w in key_words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("filename, key", [
    ("limit_below_fpr.toml", "limit_tpr"),
    ("scale_without_value.toml", "noise_scale"),
    ("missing_audit_type.toml", "audit_type"),
])
def test_the_config_line_names_the_key(tmp_path, filename, key):
    """The sentence names the setting by its label, never its key (issue 32 item 7); a user of
    a config file finds the line by the key on the line after it."""
    out = cli("run", str(BAD / filename), "--out", str(tmp_path / "o"))
    assert out.returncode == 2, out.stderr
    sentence, where = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert sentence.startswith("error: ") and key not in sentence.replace(filename, ""), sentence
    assert where == f"  In the config file: the line `{key} =`.", where


def test_demo_mechanism_writes_result_and_report(tmp_path):
    out = cli("demo", "mechanism", "--out", str(tmp_path), "--quiet")
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    for key in ("schema_version", "audit_type", "name", "seed", "config", "config_sha256",
                "inputs", "software", "runtime_s", "attacks", "baselines", "theory",
                "exposed_records", "verdict", "warnings"):
        assert key in result, key
    assert result["audit_type"] == "mechanism"
    assert result["verdict"]["level"] in ("low", "medium", "high")
    attack = result["attacks"][0]
    for key in ("name", "label", "n_positive", "n_negative", "auc", "auc_ci", "accuracy",
                "accuracy_ci", "advantage", "tpr_at_fpr", "epsilon_lower_bound", "roc", "details"):
        assert key in attack, key
    assert (tmp_path / "report.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "config.toml").exists()


def test_run_reproduces_from_written_config(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('audit_type = "mechanism"\nmechanism = "gaussian"\nepsilon = 0.5\n'
                   'observations = 4\ntrials = 2000\nseed = 11\n')
    a = cli("run", str(cfg), "--out", str(tmp_path / "a"), "--no-report", "--quiet")
    assert a.returncode == 0, a.stderr
    b = cli("run", str(tmp_path / "a" / "config.toml"), "--out", str(tmp_path / "b"),
            "--no-report", "--quiet")
    assert b.returncode == 0, b.stderr
    ra = json.loads((tmp_path / "a" / "result.json").read_text())
    rb = json.loads((tmp_path / "b" / "result.json").read_text())
    assert ra["config_sha256"] == rb["config_sha256"]
    assert ra["attacks"] == rb["attacks"]
    assert ra["theory"] == rb["theory"]


def test_demo_location_writes_result_and_report(tmp_path):
    out = cli("demo", "location", "--out", str(tmp_path), "--quiet")
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["audit_type"] == "location"
    assert {a["name"] for a in result["attacks"]} >= {"one_threshold", "two_threshold",
                                                      "likelihood_ratio"}
    assert result["inputs"][0]["sha256"] and result["exposed_records"][0]["count"] > 0
    assert (tmp_path / "report.pdf").read_bytes().startswith(b"%PDF")


def test_bad_traces_file_gives_an_error_line_of_its_own_and_exit_2(tmp_path):
    config = tmp_path / "bad.toml"
    bad_csv = (BAD / "traces" / "negative_epoch.csv").as_posix()
    config.write_text(f'audit_type = "location"\ntraces = "{bad_csv}"\n', encoding="utf-8")
    out = cli("run", str(config), "--out", str(tmp_path / "o"))   # with progress on stderr
    assert out.returncode == 2, out.stderr
    errors = [ln for ln in out.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in out.stderr
    assert "negative_epoch.csv" in errors[0] and "row 4" in errors[0] and "'epoch'" in errors[0]


@pytest.mark.parametrize("options", ['buckets = {age = 5}', 'columns = ["sex", "age", "race"]'])
def test_a_number_that_is_not_finite_in_microdata_is_one_sentence_and_exit_2(tmp_path, options):
    """Issue 18: one 1e309 among the ages silently dropped the column (then "Unknown column
    'age'", or an internal error with marginals over it)."""
    data = (BAD / "microdata" / "infinite_age.csv").as_posix()
    config = tmp_path / "marginals.toml"
    config.write_text(f'audit_type = "aggregates"\ndata = "{data}"\nsensitive = "race"\n'
                      f'release = "marginals"\n[release_options]\n{options}\n', encoding="utf-8")
    out = cli("run", str(config), "--out", str(tmp_path / "o"), "--yes")
    assert out.returncode == 2, out.stderr
    errors = [ln for ln in out.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in out.stderr and "internal" not in out.stderr
    assert ("infinite_age.csv: row 11, column 'age' holds '1e309', which is not a finite number"
            in errors[0]), errors[0]


# ----------------------------------------------------------- paths that are not a file (issue 18)
# A subprocess timeout of 60 s is the hang guard (a FIFO made the run wait forever): a
# regression fails instead of hanging CI. It is not a speed claim.
HANG_GUARD_S = 60


def _capped():
    """A child capped at 4 GiB of address space: a run that reads an endless device fails
    there instead of growing on the shared machine."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def _one_error(out) -> str:
    assert out.returncode == 2, out.stderr
    errors = [ln for ln in out.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in out.stderr, out.stderr
    return errors[0]


def test_a_named_pipe_or_a_device_as_the_config_is_one_line(tmp_path):
    import os
    fifo = tmp_path / "x.toml"
    os.mkfifo(fifo)
    line = _one_error(cli("run", str(fifo), "--out", str(tmp_path / "o"), timeout=HANG_GUARD_S))
    assert "x.toml: is a named pipe" in line and "choose the config file itself" in line
    out = subprocess.run([sys.executable, "main.py", "run", "/dev/zero", "--out",
                          str(tmp_path / "o")], cwd=ROOT, capture_output=True, text=True,
                         timeout=HANG_GUARD_S, preexec_fn=_capped)
    line = _one_error(out)
    assert "/dev/zero: is a device, not a file" in line and "header row" not in line


@pytest.mark.parametrize("kind", ["fifo", "urandom", "loop"])
def test_traces_that_are_not_a_file_are_one_line(tmp_path, kind):
    """The run's estimate looked at the traces before the loader (a FIFO hung it there), and
    the loader read /dev/urandom without end while the bar said 'Loading 0.0 %'."""
    import os
    traces = tmp_path / "traces.csv"
    if kind == "fifo":
        os.mkfifo(traces)
    elif kind == "urandom":
        traces.symlink_to("/dev/urandom")
    else:
        traces.symlink_to(traces.name)
    config = tmp_path / "c.toml"
    config.write_text(f'audit_type = "location"\ntraces = "{traces.as_posix()}"\n',
                      encoding="utf-8")
    out = subprocess.run([sys.executable, "main.py", "run", str(config), "--out",
                          str(tmp_path / "o")], cwd=ROOT, capture_output=True, text=True,
                         timeout=HANG_GUARD_S, preexec_fn=_capped)
    line = _one_error(out)
    assert "traces.csv: is " in line, line
    assert {"fifo": "a named pipe", "urandom": "a device",
            "loop": "a link that points back to itself"}[kind] in line, line


def test_tilde_is_the_home_folder_for_the_config_and_the_files_it_names(tmp_path):
    """``~/…`` in the command and in the config: the file is read (its row 4 is what is
    wrong), not "file not found" (only the GUI expanded ``~`` before)."""
    import os
    import shutil
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(BAD / "traces" / "negative_epoch.csv", home / "records.csv")
    (home / "c.toml").write_text('audit_type = "location"\ntraces = "~/records.csv"\n',
                                 encoding="utf-8")
    out = subprocess.run([sys.executable, "main.py", "run", "~/c.toml", "--out",
                          str(tmp_path / "o")], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, env={**os.environ, "HOME": str(home)})
    line = _one_error(out)
    assert "records.csv" in line and "row 4" in line and "'epoch'" in line, line


def test_calibrate_stores_this_machine_s_constants_in_the_app_data_folder(tmp_path):
    """`python main.py calibrate` (issue 21): one small audit of each type (here at a tiny
    test-only scale), a factor per type in the app-data folder, and a sentence saying the
    estimates now use times measured on this machine."""
    import os
    env = {**os.environ, "PRA_APP_DATA": str(tmp_path), "PRA_DEVICE": "cpu"}
    out = subprocess.run([sys.executable, "main.py", "calibrate", "--quiet", "--scale", "0.01"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    stored = json.loads((tmp_path / "machine_constants.json").read_text(encoding="utf-8"))
    assert set(stored["factors"]) == {"mechanism", "location", "aggregates", "model"}
    assert "use times measured on this machine on" in out.stdout
    assert "calibrate" in cli("--help").stdout
