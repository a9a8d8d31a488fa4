"""errors.log and the error box keep a record's values out, quoted or not, and the log is the
user's alone (issue 31 item 11).

A hostile pass planted 8 record values in exceptions; the 3 an exception carried unquoted
reached errors.log and the box, and the log was 0644. Here numbers, names (capitalised and
not), e-mail addresses, dates, ids and a phone number are raised quoted and unquoted — in a
message, across its lines, in a note, a chained cause and an exception group — through the
reporter (the box and the log) and through a job's error box; none may be found in what is
shown or written. The log must be 0600 in a 0700 folder, also when it was 0644 before.
"""

from __future__ import annotations

import os
import stat
import sys
import threading

import pytest

from engine.data.errors import internal_error_text, internal_traceback, without_record_values
from gui.error_dialog import InternalErrorReporter, show_job_error
from gui.job_runner import describe_exception

HANG_GUARD_MS = 60_000

# Each planted value, and the pieces of it that must not be found anywhere shown.
PLANTED = {
    "Zebulon Quarrington": ("Zebulon", "Quarrington"),
    "okonkwo": ("okonkwo",),                      # a name written in small letters
    "zq.quarry@example.org": ("zq.quarry", "example.org"),
    "1987-03-14": ("1987",),
    "14/03/1988": ("1988",),
    "48213907": ("48213907",),
    "7301.55": ("7301",),
    "ZQ-2231-K": ("ZQ-2231", "2231"),
    "+44 20 7946 0958": ("7946", "0958"),
    "12 Quimby Lane": ("Quimby",),
}
PIECES = [piece for pieces in PLANTED.values() for piece in pieces]


def _found(text: str) -> list[str]:
    return [piece for piece in PIECES if piece in text]


def _messages(values=tuple(PLANTED)) -> list[str]:
    """The planted ``values`` in the shapes library and app messages carry them."""
    out = []
    for value in values:
        out += [f"could not convert string to float: {value}",          # unquoted
                f"could not convert string to float: '{value}'",        # quoted
                f'Unable to parse string "{value}" at position 3',
                f"bad value {value} in row 12",
                f"{value} is not a valid category",
                f"invalid literal for int() with base 10: {value}."]
    return out


def _raised(message: str) -> BaseException:
    try:
        raise ValueError(message)
    except ValueError as exc:
        return exc


def _complicated() -> BaseException:
    """A multi-line message, a note, a chained cause and an exception group, all carrying
    planted values (Python prints a message's later lines indented, like code)."""
    values = list(PLANTED)
    try:
        try:
            raise KeyError(values[0])
        except KeyError as first:
            inner = ValueError(f"rows differ:\n   {values[1]} {values[2]}\n  {values[3]}")
            inner.add_note(f"while reading {values[4]} and {values[5]}")
            raise ExceptionGroup(f"{values[6]} failed", [inner, TypeError(values[7])]) from first
    except ExceptionGroup as group:
        group.add_note(f"{values[8]}, {values[9]}")
        return group


def test_the_masking_rule_keeps_the_message_shape():
    assert without_record_values("could not convert string to float: Zebulon Quarrington") \
        == "could not convert string to float: …"
    assert without_record_values("index 48213907 is out of bounds for axis 0 with size 3") \
        == "index … is out of bounds for axis … with size …"
    assert without_record_values("Unable to parse string 'x' at position 3") \
        == "Unable to parse string '…' at position …"
    assert without_record_values("solver exploded") == "solver exploded"
    assert without_record_values("CUDA out of memory; float64 and NaN values") \
        == "CUDA out of memory; float64 and NaN values"


@pytest.mark.parametrize("value", list(PLANTED))
def test_no_planted_value_reaches_the_text_quoted_or_not(value):
    for message in _messages([value]):
        exc = _raised(message)
        shown = internal_error_text(exc) + internal_traceback(exc)
        assert not _found(shown), (message, shown)
        assert "ValueError" in shown and "in _raised" in internal_traceback(exc)


def test_nothing_of_a_chained_group_reaches_the_traceback():
    details = internal_traceback(_complicated())
    assert not _found(details), details
    assert "ExceptionGroup" in details and "KeyError" in details and "TypeError" in details
    assert "The above exception was the direct cause" in details and "in _complicated" in details


@pytest.fixture
def reporter(qtbot, tmp_path):
    made = InternalErrorReporter(tmp_path / "app-data" / "logs" / "errors.log")
    yield made
    if made.box is not None:
        made.box.close()
    made.uninstall()


def _report_and_read(qtbot, reporter, exc: BaseException) -> str:
    """What the user sees (box and Details) of one reported error."""
    reporter.report(exc)
    qtbot.waitUntil(lambda: reporter.box is not None, timeout=HANG_GUARD_MS)
    box = reporter.box
    shown = box.text() + "\n" + box.detailedText()
    box.close()
    qtbot.waitUntil(lambda: reporter.box is None, timeout=HANG_GUARD_MS)
    return shown


def test_no_planted_value_reaches_the_error_box_or_the_log(qtbot, reporter):
    exceptions = [_raised(m) for m in _messages()] + [_complicated()]
    for exc in exceptions:
        shown = _report_and_read(qtbot, reporter, exc)
        assert not _found(shown), shown
        assert str(reporter.log_path) in shown
    logged = reporter.log_path.read_text(encoding="utf-8")
    assert logged.count("Traceback (most recent call last)") >= len(exceptions)
    assert not _found(logged), _found(logged)

    def fail_in_a_thread():
        raise ValueError(f"bad value {next(iter(PLANTED))} in row 12")

    reporter.install()                       # an uncaught error in a background thread
    worker = threading.Thread(target=fail_in_a_thread)
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: reporter.box is not None, timeout=HANG_GUARD_MS)
    shown = reporter.box.text() + reporter.box.detailedText()
    assert not _found(shown + reporter.log_path.read_text(encoding="utf-8")), shown


def test_a_job_s_error_box_shows_no_planted_value(qtbot):
    for exc in [_raised(m) for m in _messages()[:12]] + [_complicated()]:
        box = show_job_error(None, "The audit stopped", describe_exception(exc))
        shown = box.text() + box.detailedText()
        box.close()
        assert not _found(shown), shown


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_the_log_is_the_user_s_alone_even_when_it_was_readable_before(qtbot, reporter):
    folder, log = reporter.log_path.parent, reporter.log_path
    old_umask = os.umask(0)                  # a permissive umask must not widen the modes
    try:
        reporter.log(_raised("first"))
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700

        os.chmod(folder, 0o755)              # as an earlier version left them
        os.chmod(log, 0o644)
        assert reporter.log(_raised("second")) == log
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert log.read_text(encoding="utf-8").count("Traceback") == 2   # appended, not lost

        os.chmod(log, 0o666)                 # a log past its limit starts again, still private
        with open(log, "a", encoding="utf-8") as fh:
            fh.write("x" * 1_000_001)
        reporter.log(_raised("third"))
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        assert log.read_text(encoding="utf-8").count("Traceback") == 1
    finally:
        os.umask(old_umask)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and FIFOs")
def test_a_log_that_is_a_link_or_a_fifo_is_not_written_through(qtbot, reporter, tmp_path):
    folder, log = reporter.log_path.parent, reporter.log_path
    folder.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("kept\n")
    log.symlink_to(elsewhere)
    assert reporter.log(_raised("x")) is None
    assert elsewhere.read_text() == "kept\n"
    log.unlink()
    os.mkfifo(log)                          # would block a plain open() for writing
    assert reporter.log(_raised("x")) is None
