"""A package the audit needs that is not installed is named, with what to do — in the command
line's one line, the app's job error and the estimate's sentence — never "No module named '…'"
(seen on a machine whose Python lacked opacus: the quoted-value filter hid the name)."""

from __future__ import annotations

import pytest

import main
from engine.data.errors import internal_error_text, missing_package_text


def _missing(name: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(f"No module named '{name}'", name=name)


def test_the_sentence_names_the_package_and_the_fix():
    text = missing_package_text(_missing("opacus.accountants"))
    assert "'opacus'" in text and "not installed" in text and "make install" in text
    # Any other error keeps the quoted-value filter.
    assert missing_package_text(ValueError("could not convert 'Jane Doe'")) is None
    assert "Jane" not in internal_error_text(ValueError("could not convert 'Jane Doe'"))


def test_a_name_that_is_not_a_module_name_stays_hidden():
    """A ModuleNotFoundError a library raised with something else as its name (a path, a
    value) is treated as any other error: nothing quoted is shown."""
    exc = ModuleNotFoundError("No module named 'Jane Doe'", name="Jane Doe")
    assert missing_package_text(exc) is None
    assert "Jane" not in internal_error_text(exc)


def test_the_command_line_names_the_missing_package(tmp_path, capsys, monkeypatch):
    def fails(*args, **kwargs):
        raise _missing("opacus")

    monkeypatch.setattr(main, "_run_config", fails)
    code = main.main(["demo", "mechanism", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("error: The Python package 'opacus'")
    assert "internal error" not in err


def test_the_app_names_the_missing_package():
    pytest.importorskip("PySide6")
    from gui.job_runner import describe_exception

    error = describe_exception(_missing("ortools"))
    assert "'ortools'" in error.message and "internal error" not in error.message
    assert not error.is_input_error


@pytest.mark.parametrize("message, shown", [
    ("Training the model: epoch 3 of 30", "Training the model: epoch 3 of 30"),
    ("Reference model 3 of 4 under each defence: Training 5 reference models until converged: "
     "epoch 1164 (at most 2000)",
     "Reference model 3 of 4 under each …onverged: epoch 1164 (at most 2000)"),
])
def test_a_long_progress_line_keeps_the_count_that_moves(message, shown):
    assert main._fit(message, 70) == shown
    assert len(main._fit(message, 70)) <= 70
