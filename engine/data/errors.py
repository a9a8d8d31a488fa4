"""The one exception type for bad user input, and what an unexpected error may say.

An :class:`InputError` message is a sentence a privacy officer can act on: it names the file,
the key, row or column, what is wrong, and what to do. The CLI prints it as one line and exits
with code 2; the GUI shows it in a dialog, never a traceback.

Error messages travel further than the data (logs, screenshots, support e-mails), so a record's
content stays out of them (issue 11, "Personal data stays where it belongs"): a loader shows a
cell of the user's file only through :func:`engine.data.text_input.cell_text` (quoted when its
characters are the fix — '1,5', 'n/a', a value of three characters — otherwise described, "a
17-character text of letters"), and names a duplicated id by its rows alone. An unexpected
error (a bug) carries whatever a library put in its message, often the offending value quoted
(``could not convert string to float: 'Jane Doe'``), or unquoted (``bad value Jane Doe in row
12``, ``1990-05-17``, ``jane@example.org``); :func:`internal_error_text` and
:func:`internal_traceback` are what the CLI, the GUI's error box and its errors.log show of it,
masked by :func:`without_record_values` (issue 31 item 11: 3 of 8 planted values an exception
carried unquoted reached the log and the box). The rule is data-free, so it holds for any file,
config or page: a quoted value, a number, anything with a digit or an '@', and every word that
is not in :data:`ERROR_WORDS` (the words library and app error messages are made of) becomes
'…'. Each message keeps its shape ("could not convert string to float: …") and the traceback
keeps where it happened (files, lines, code), which is what a bug report needs.
"""

from __future__ import annotations

import re
import traceback

# A quoted value in an exception message: '…' or "…" (as repr() and most libraries write it).
_QUOTED = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*\"""")


# A module's dotted name, as Python spells it (nothing else is shown unquoted).
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class InputError(ValueError):
    """Bad input (config file, data file, parameter) described in plain language."""

    def __init__(self, message: str, *, source: str | None = None, key: str | None = None,
                 setting: str | None = None):
        super().__init__(message)
        self.source = source
        self.key = key
        # The config file's key of the setting the sentence names by its plain label (issue 32
        # item 7: no key in the sentence). The command line adds it on a line of its own
        # (config_line) so that a user of a config file finds the line; the pages show the
        # sentence under the field of ``key``.
        self.setting = setting

    def config_line(self) -> str:
        """"In the config file: the line `epsilon =` under [defences]." for an error that
        carries its setting's key, else "" (the command line prints it after the sentence)."""
        if not self.setting:
            return ""
        *section, name = self.setting.split(".")
        where = f" under [{'.'.join(section)}]" if section else ""
        return f"In the config file: the line `{name} =`{where}."

    def one_line(self) -> str:
        text = " ".join(str(self).split())
        return f"{self.source}: {text}" if self.source and not text.startswith(self.source) else text


def given_value(value) -> str:
    """A setting's value as an error sentence quotes it back (issue 32 item 7: no Python repr
    in a message): text in quotes, “abc”; a number as written; nothing as "nothing"; true or
    false; a list by its items, "the list 1, 2"; a table as "a table of settings"."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return f"“{value[:80]}”" + ("…" if len(value) > 80 else "")
    if isinstance(value, (list, tuple)):
        if not value:
            return "an empty list"
        items = ", ".join(given_value(v) for v in value[:10])
        return f"the list {items}" + (", …" if len(value) > 10 else "")
    if isinstance(value, dict):
        return "a table of settings"
    return "a value of another kind"


def without_quoted_values(text: str) -> str:
    """``text`` with every quoted value replaced by '…' (a cell, an id, a key of a record)."""
    return _QUOTED.sub("'…'", text)


#: The words an exception's message may show (lower case only; a capitalised word is shown only
#: where it starts a sentence and is one of :data:`_KEPT_TOKENS`): the vocabulary of Python's, numpy's, pandas', torch's, scikit-learn's, Ray's and
#: the app's own error messages. Anything else in a message of an unexpected error — a name, a
#: category, a town — is masked by :func:`without_record_values`. Words that are as likely to be
#: a record's value as part of a message (a sex, a test result such as 'positive', a marital
#: status such as 'single', a level such as 'high', a colour) are left out.
ERROR_WORDS = frozenset("""
a about above absolute accept accepted accepts access accessed accessing according across
actual add added adding address after again against alias align aligned all allocate allocated
allocation allow allowed already also although always ambiguous amount an and another any
append appending applied apply are area arg args argument arguments arithmetic array arrays as
assign assigned assignment at attempt attempted attempting attribute attributes available axes
axis back bad base based batch be because been before being below between beyond big bigger
binary bit bits block body bool boolean both bound bounded bounds broadcast broadcasting broken
buffer but by byte bytes cache call callable called calling can cannot cast casting categorical
categories category cause caused cell cells change changed char character characters check
checked child chunk class classes clause close closed code codec coerce collection column
columns combine common compare comparison compatible complete complex compute computed
computing concatenate condition config configuration conflict conflicting connection
consistent constant constraint contain contained containing contains content context
contiguous continue conversion convert converted converting copy correct correspond could
count counts create created creating cuda current data dataframe dataset datatype dead decode
decoding default defined definition delete denominator dense depth deserialize device dict
dictionary did differ different dim dimension dimensions dims directory disk divide division
divisor do does domain double dtype dtypes due duplicate duplicated duplicates during each
element elements else empty encode encoding end ended entries entry equal error errors
estimate evaluate evaluated even event exactly exceed exceeded exceeds except exception
exist existing exists expect expected expecting explicit explicitly exploded expression
extra factor failed fails failure false fatal feature features field fields file filename
files find finite first fit fitted fitting float floating follow following for format
formatted found frame free from full function functions gave get given go got gpu gradient
greater group groups had handle handled has hash hashable have having header height help
hidden  how identical identifier if ignored illegal immutable implemented implicit
import in inconsistent incorrect index indexer indexes indexing indices infeasible infinite
infinity information initialise initialised initialize initialized inner input inputs insert
instance instead insufficient int integer integers interface internal interrupted interval
into invalid is isinstance it item items iterable iteration iterator its itself job join
just keep key keys keyword kind known label labels large larger last later least left len
length less level like limit line lines list literal load loaded loading local location lock
long lookup loop loss  lower made many map mapping mask match matched matches matching
matrix max maximum may mean memory merge message method might min minimum mismatch missing
mode model module more most multiple must name named names nan native need needed needs
 nested network new next no node non none nor not nothing null number numbers numeric
numerical object objects obtained occurred of off offset on once one only open opened
operand operands operation operator option optional options or order ordinal other out
outer output outside over overflow own parameter parameters parse parsed parser parsing part
pass passed path pattern per permission permitted place please point pointer position
positional  possible precision present previous probabilities probability problem
process processed property provide provided range rank rate raw reach reached read reading
real reason received record records recursion reduce reduction reference referenced
register remaining remove removed repeated replace replaced representation request
required requires reshape resize resolve resource result results retry return returned
returns right row rows run running runtime same sample samples scalar scale schema score
second see select selected self sequence series set setting shape shapes should side
signed  size sized sizes slice so solver some sort sorted source space sparse specified
specify stack start state step stop stopped storage string strings structure subscript
subscriptable such sum supplied support supported sure system table take taken target task
tensor tensors than that the their them then there these they this those thread through time
timed timeout to too total trailing training true truncated truth try trying tuple tuples
type types unable unbound undefined under unexpected unhashable unique unit unknown
unordered unpack unrecognized unsigned unsupported until up upper usage use used user using
valid validation value values variable vector version view was weight weights were when
where whether which while width with within without word words would write writing wrong
yet zero tried
""".split())

#: Technical tokens a message may show as they are, capitals and digits included.
_KEPT_TOKENS = frozenset("""
NaN NA N/A None True False inf -inf CSV JSON TOML PDF CPU GPU CUDA OOM UTF-8 ASCII Errno
int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 bfloat16 complex64
complex128 1D 2D 3D 1-D 2-D 3-D ndarray DataFrame Series Index Tensor NoneType str int float
bool dict list tuple object bytes numpy pandas torch sklearn scipy ray ortools
No Not The This That There These It An A In On If Can Cannot Could Unable Invalid Expected
Only Must Input Found Unknown Unsupported Error Internal Missing Failed Length Shape Value
Key Column Row File Object Argument Too Index
""".split())

_TOKEN = re.compile(r"""[^\s,;:()\[\]{}<>="'`|]+""")
_MASKED_RUN = re.compile(r"…(?:[\s\-/.,:@+]*…)+")
_SENTENCE_END = (".", "!", "?")


def _shown(token: str, sentence_start: bool) -> bool:
    """Whether one token of a message may be shown (module docstring: the rule)."""
    core = token.rstrip(".!?")
    if not any(c.isalnum() for c in core) or core in _KEPT_TOKENS:
        return True
    if any(c.isdigit() or c == "@" for c in core):
        return False
    parts = [w for w in re.split(r"[-_.]", core) if w]
    for k, w in enumerate(parts):
        # A capitalised word is shown only where it starts a sentence *and* is one of the
        # few that are never a name ('Long', 'May', 'Young' are surnames): hostile pass.
        if k == 0 and sentence_start and w in _KEPT_TOKENS:
            continue
        if not (w.islower() and w in ERROR_WORDS):
            return False
    return bool(parts)


def without_record_values(text: str) -> str:
    """``text`` of an unexpected error's message with every value a record could have given it
    replaced by '…', quoted or not (issue 31 item 11): quoted values first
    (:func:`without_quoted_values`), then every token that has a digit or an '@' (a number, a
    date, an id, an e-mail address) or is not a word of :data:`ERROR_WORDS` (a name, a
    category), except a few technical tokens ('NaN', 'float64', 'CUDA'). A run of masked tokens
    becomes one '…', so not even the number of words is told. A capitalised word is shown
    only where it starts a sentence and is one of the few that are never a name ('No', 'The',
    'Cannot', 'Unable'): 'Long' or 'May' at a sentence's start may be a surname."""
    text = without_quoted_values(text)
    out, last, start = [], 0, True
    for m in _TOKEN.finditer(text):
        token = m.group()
        out.append(text[last:m.start()])
        out.append(token if _shown(token, start) else "…")
        last, start = m.end(), token.endswith(_SENTENCE_END)
    out.append(text[last:])
    return _MASKED_RUN.sub("…", "".join(out))


def missing_package_text(exc: BaseException) -> str | None:
    """The sentence for a package the audit needs that is not installed, else None.

    A missing package is an installation fault, not a bug, and its name is no one's data: the
    sentence names it and says how to put it back (seen on a machine whose Python lacked
    opacus: "internal error: No module named '…'" told nobody what to install)."""
    if not (isinstance(exc, ModuleNotFoundError) and exc.name
            and _MODULE_NAME.fullmatch(exc.name)):
        return None
    package = exc.name.split(".")[0]
    return (f"The Python package '{package}' that this audit needs is not installed. Install "
            "the app's requirements again (make install, or the installer you used), then run "
            "the audit again; your settings are unchanged.")


def _message(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not break the error report
        text = ""
    return without_record_values(" ".join(text.split()))


def internal_error_text(exc: BaseException) -> str:
    """One line for an unexpected error: its type and its message without record values
    (:func:`without_record_values`)."""
    message = _message(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def internal_traceback(exc: BaseException) -> str:
    """The traceback of an unexpected error for a "Details" box or a bug report: where it
    happened (files, lines, code, as Python prints them), and each exception's type, message
    and notes without record values (:func:`without_record_values`) — also the lines of a
    message that spans several (Python indents them like code), the causes and contexts it
    chained and the members of an exception group."""
    out: list[str] = []
    _traceback_lines(exc, out, set())
    return "".join(out)


def _traceback_lines(exc: BaseException, out: list[str], seen: set[int]) -> None:
    """``traceback.format_exception``'s layout, written from the exception objects so that no
    text of a message is printed unmasked."""
    seen.add(id(exc))
    cause, context = exc.__cause__, exc.__context__
    if cause is not None and id(cause) not in seen:
        _traceback_lines(cause, out, seen)
        out.append("\nThe above exception was the direct cause of the following exception:\n\n")
    elif context is not None and not exc.__suppress_context__ and id(context) not in seen:
        _traceback_lines(context, out, seen)
        out.append("\nDuring handling of the above exception, another exception occurred:\n\n")
    if exc.__traceback__ is not None:
        out.append("Traceback (most recent call last):\n")
        out.extend(traceback.format_list(traceback.extract_tb(exc.__traceback__)))
    kind = type(exc)
    name = kind.__qualname__ if kind.__module__ in ("builtins", "__main__") \
        else f"{kind.__module__}.{kind.__qualname__}"
    message = _message(exc)
    out.append(f"{name}: {message}\n" if message else f"{name}\n")
    for note in getattr(exc, "__notes__", None) or ():
        out.append(without_record_values(" ".join(str(note).split())) + "\n")
    if isinstance(exc, BaseExceptionGroup):
        for k, member in enumerate(exc.exceptions, start=1):
            out.append(f"\n--- exception {k} of {len(exc.exceptions)} in the group:\n")
            if id(member) in seen:
                out.append("(the exception shown above)\n")
            else:
                _traceback_lines(member, out, seen)
