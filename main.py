"""Privacy Risk Auditor — entry point.

    python main.py                          open the desktop app
    python main.py FILE.praudit.json        open the app on a saved project
    python main.py --sample mechanism       open the app on the bundled sample audit
    python main.py run CONFIG.toml --out D  run an audit headless: D/result.json, D/report.pdf
    python main.py demo mechanism --out D   the same for a bundled example (model-thorough: the
                                            model's whole defence sweep, minutes)
    python main.py calibrate                measure this computer's speed for the estimates
    python main.py decisions FOLDER --out LOG.csv   one decision log of a folder of projects
    python main.py compare SPEC.toml --out D  run 2–8 candidate releases of one audit side by side
    python main.py compare A.praudit.json B.praudit.json --out D   saved projects side by side

Exit codes: 0 success, 2 bad input (one line on stderr naming the file, setting or column and
what to do; a setting's config-file key on a line after it), 1 internal error, 3 cancelled (Ctrl+C), 143 stopped by a termination signal (SIGTERM).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import signal
import sys
import threading
import time
from pathlib import Path

COMMANDS = ("run", "demo", "calibrate", "decisions", "compare")

EPILOG = """\
commands:
  (none)                 open the desktop app (home page)
  FILE.praudit.json      open the desktop app on that saved project (as double-clicking
                         the file does)
  run CONFIG --out DIR   run the audit described by a TOML config file and write
                         DIR/config.toml, DIR/report.pdf and DIR/result.json
  demo NAME --out DIR    run a bundled example (NAME: mechanism, location, aggregates
                         or model, each under 2 minutes on 2 cores; or model-thorough,
                         the model example with every defence setting: about 13 minutes
                         on 2 cores, so it asks for --yes there)
  calibrate              measure how fast this computer runs each kind of audit (one
                         small audit each, about 40 seconds; a quiet computer measures best):
                         the time estimates use it from then on
  decisions FOLDER --out LOG.csv
                         one decision log of every project under FOLDER (CSV, or JSON
                         for LOG.json): project, audit, release, verdict, decision,
                         reviewer, role, date, result SHA-256 and whether it still matches;
                         unsigned projects are listed as "not signed"
  compare SPEC.toml --out DIR [--yes]
                         run 2-8 candidate releases of one audit (a spec: a base config
                         and [[candidate]] tables of the settings each changes; example:
                         resources/configs/compare_location_epsilon.toml), all with one
                         seed: DIR/comparison.json, DIR/comparison.pdf and each
                         candidate's DIR/candidate-<i>/result.json, written as it finishes
  compare A.praudit.json B.praudit.json ... --out DIR
                         saved projects of one audit type side by side, without running
                         (refused when a project's data file changed since its result)

config files (TOML): every key is documented in docs/config_reference.md; complete examples
are resources/configs/mechanism_demo.toml, location_demo.toml, aggregates_demo.toml,
model_demo.toml and model_thorough.toml. Minimal example:

  audit_type = "mechanism"
  mechanism = "laplace"      # laplace | gaussian | discrete_laplace | discrete_gaussian
  epsilon = 1.0              # ε per observation
  observations = 10          # k observations per person
  seed = 7

before a run: its estimated time and peak memory are printed; a run that would not fit
in the free memory is refused (exit 2, naming the setting to lower), and one estimated
above 10 minutes or half the free memory needs --yes.

output folder: nothing is written while the audit runs. Then an earlier run in DIR is moved
into the hidden folder DIR/.previous-run (so DIR never mixes two runs), and config.toml,
report.pdf (and recommended_model/ when a model audit exports one) are written, each under a
hidden temporary name and renamed when complete. result.json comes last and lists every other
file with its SHA-256: no result.json means the run did not finish (the earlier run is then
still in DIR/.previous-run until the next run into DIR finishes). A write stopped by Ctrl+C,
SIGTERM or a full disk puts the earlier run back. Other files are not touched, and a file
named like an output that this app did not write (your own config.toml, say) stops the run
before it starts: move it, or choose another DIR. One run at a time writes into a folder: a
second one exits 2 with a sentence.

exit codes: 0 success; 2 bad input (one line on stderr says what to fix); 1 internal error;
3 cancelled (Ctrl+C); 143 stopped by a termination signal (SIGTERM). Set PRA_DEVICE=cpu to keep
torch off the GPU.
"""


def build_parser() -> argparse.ArgumentParser:
    prog = Path(sys.executable).name if getattr(sys, "frozen", False) else "python main.py"
    parser = argparse.ArgumentParser(
        prog=prog,
        usage=f"{prog} [-h] [--version] [--sample NAME] [FILE.praudit.json]\n"
              f"       {prog} {{run,demo,calibrate,decisions,compare}} ...",
        description="Privacy Risk Auditor: find out before a release whether it exposes "
                    "people, and prove it in a PDF report. Works offline.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    # The name is checked against the audit registry in main() (no list here to keep in step).
    parser.add_argument("--sample", metavar="NAME",
                        help="open the app with the bundled sample audit of that audit type "
                             "loaded, e.g. mechanism")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="{run,demo,calibrate,decisions,compare}",
                                prog=prog)
    run_p = sub.add_parser("run", help="run an audit from a TOML config, headless")
    run_p.add_argument("config", help="path to the audit's TOML config file")
    run_p.add_argument("--out", required=True, help="output folder (created if missing)")
    run_p.add_argument("--no-report", action="store_true", help="write result.json only")
    run_p.add_argument("--include-records", action="store_true",
                       help="print exposed records in the report (redacted by default)")
    run_p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    run_p.add_argument("--yes", action="store_true",
                       help="start a run estimated above 10 minutes (or above half the free "
                            "memory) without asking")
    demo_p = sub.add_parser("demo", help="run a bundled example audit, headless")
    # The name is checked against the audit registry when the demo starts (an unknown one
    # exits 2 with the names to choose from), so a new audit type needs no line here and
    # --help does not load the audits.
    demo_p.add_argument("name", metavar="NAME", help="which example: an audit type, e.g. "
                                                     "mechanism, or model-thorough")
    demo_p.add_argument("--out", required=True, help="output folder (created if missing)")
    demo_p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    demo_p.add_argument("--yes", action="store_true", help="as for run")
    cal_p = sub.add_parser("calibrate", help="measure this computer's speed for the time "
                                             "estimates (about 40 seconds)")
    cal_p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    # Tests only: a fraction of the probe audits' sizes, so that a test measures in seconds.
    cal_p.add_argument("--scale", type=float, default=1.0, help=argparse.SUPPRESS)
    dec_p = sub.add_parser("decisions", help="write one decision log (CSV or JSON) of a folder "
                                             "of projects")
    dec_p.add_argument("folder", help="the folder that holds the project files")
    dec_p.add_argument("--out", required=True, help="the log to write: LOG.csv or LOG.json")
    cmp_p = sub.add_parser("compare", help="compare 2-8 candidate releases (a spec file) or "
                                           "saved projects side by side")
    cmp_p.add_argument("files", nargs="+", metavar="FILE",
                       help="a comparison spec (TOML), or two or more .praudit.json projects")
    cmp_p.add_argument("--out", required=True, help="output folder (created if missing)")
    cmp_p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    cmp_p.add_argument("--yes", action="store_true", help="as for run")
    return parser


def _compare(files: list[str], out: Path, *, quiet: bool, yes: bool) -> int:
    """``compare``: a spec's candidates run one after another, or saved projects side by side
    (engine.compare, issue 34 item 1); comparison.json, comparison.pdf and each candidate's
    folder in ``out``."""
    from engine.compare import compare_projects, estimate_comparison, load_candidates
    from engine.compare import run as compare_run
    from engine.data.errors import InputError
    from engine.report.comparison import write_comparison_report
    from engine.run_folder import locked
    from engine.runtime import JobCancelled, Progress

    projects = [f for f in files if f.endswith(".praudit.json")]
    if projects and len(projects) != len(files):
        raise InputError("compare takes one spec file (TOML) or two or more saved projects "
                         "(.praudit.json), not both.")
    if not projects and len(files) != 1:
        raise InputError("compare takes one spec file (TOML); give saved projects as "
                         "FILE.praudit.json to compare them side by side.")
    with locked(out):
        if projects:
            comparison = compare_projects(projects)
            compare_run.check_out_folder(out)
            compare_run.write_comparison(out, comparison)
        else:
            cset = load_candidates(files[0])
            refused = _check_cost(None, quiet=quiet, yes=yes,
                                  cost=lambda: estimate_comparison(cset))
            if refused is not None:
                return refused
            try:
                comparison = compare_run.run_comparison(
                    cset, out, progress=Progress(_StderrProgress(quiet)))
            except (JobCancelled, KeyboardInterrupt):
                # Unlike a run, a comparison has written its finished candidates: say so.
                _StderrProgress.end_line()
                stopped = "stopped by a termination signal" if _Stop.terminated else "cancelled"
                print(f"{stopped}; the finished candidates are kept in {out} (their status: "
                      f"{out / compare_run.COMPARISON_FILE}).", file=sys.stderr)
                return 128 + signal.SIGTERM if _Stop.terminated else 3
        write_comparison_report(comparison, out / compare_run.COMPARISON_REPORT)
    if not quiet:
        for row in comparison.rows:
            risk = row.risk.value if row.risk is not None else None
            print(f"{row.index}. {row.label}: {row.status}"
                  + (f", verdict {row.verdict_level}, risk {risk:.1%}" if risk is not None
                     else "") + (f" ({row.error})" if row.error else ""))
        print(comparison.sentence)
        print(f"Wrote {out / compare_run.COMPARISON_FILE} and "
              f"{out / compare_run.COMPARISON_REPORT}")
    return 0


def _decisions(folder: str, out: str) -> int:
    """A folder of projects into one decision log (engine.decision_log, issue 34 item 3)."""
    from engine.decision_log import check_log_path, collect, write_log

    check_log_path(out)                  # the ending first: no folder read for nothing
    rows = collect(folder)
    write_log(rows, out)
    signed = sum(1 for r in rows if r["signed_at"])
    print(f"{len(rows)} projects ({signed} signed) listed in {out}.")
    return 0


def _calibrate(*, quiet: bool, scale: float) -> int:
    """Measure this machine (engine.estimates.machine) and say what the estimates use now."""
    from engine.estimates.machine import KIND_WORDS, constants_path, in_use
    from engine.estimates.measuring import measure_machine
    from engine.runtime import Progress

    measured = measure_machine(Progress(_StderrProgress(quiet)), scale=scale)
    _StderrProgress.end_line()
    for audit_type, factor in sorted(measured.factors.items()):
        print(f"{KIND_WORDS.get(audit_type, audit_type)}: {factor:.2f} times the reference "
              f"computer's time")
    print(f"Wrote {constants_path()}. {in_use()}")
    return 0


class _StderrProgress:
    """Progress on stderr, at most twice a second: a terminal is not a log file."""

    open_line = False         # a progress line is on screen without its newline

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.last = 0.0

    @classmethod
    def end_line(cls) -> None:
        """Finish a progress line so an error message starts on a line of its own."""
        if cls.open_line:
            print(file=sys.stderr)
            cls.open_line = False

    def __call__(self, fraction: float, message: str) -> None:
        now = time.monotonic()
        if self.quiet or (now - self.last < 0.5 and fraction < 1.0):
            return
        self.last = now
        print(f"\r[{fraction:6.1%}] {_fit(message, 70):<70}", end="", file=sys.stderr, flush=True)
        _StderrProgress.open_line = True
        if fraction >= 1.0:
            _StderrProgress.end_line()


def _fit(message: str, width: int) -> str:
    """``message`` in at most ``width`` characters. A long step line keeps its start (which
    step) and its end (the count that moves: "…: epoch 1164 (at most 2000)"); cutting the end
    off left a bar that looked stuck."""
    if len(message) <= width:
        return message
    head = width // 2 - 1
    return message[:head] + "…" + message[len(message) - (width - head - 1):]


def _estimate_failure(exc: Exception) -> str:
    """Why the estimate failed, as a sentence: a bad input's own sentence (the run will
    meet it too), else the unexpected error without the values its message quotes."""
    from engine.data.errors import InputError, internal_error_text, missing_package_text

    if isinstance(exc, InputError):
        text = exc.one_line()
        return text if text.endswith(".") else text + "."
    missing = missing_package_text(exc)
    if missing:
        return missing
    return f"the estimate itself failed ({internal_error_text(exc)}), which is a bug to report."


def _check_cost(config, *, quiet: bool, yes: bool, cost=None) -> int | None:
    """Print the run's estimated time and memory; refuse one that cannot fit in memory (exit
    2, naming the setting to lower) and one above the confirmation line without ``--yes``.
    ``cost``: a function giving the estimate instead of ``config``'s (a comparison's)."""
    from engine.estimates import estimate, preflight

    try:
        check = preflight(cost() if cost is not None else estimate(config))
    except Exception as exc:  # noqa: BLE001 - an estimate is advice: its failure stops nothing
        if not quiet:
            print(f"No estimate of the run's time and memory: {_estimate_failure(exc)} The run "
                  f"goes on.", file=sys.stderr)
        return None
    if not quiet:
        print(f"Estimated: {check.estimate.sentence()}", file=sys.stderr)
    for note in check.notes:     # warnings about the settings: printed even when quiet
        print(f"warning: {note}", file=sys.stderr)
    if check.refusal is not None:
        raise check.refusal
    if check.question is not None and not yes:
        print(f"error: {check.concern} Run the same command with --yes to start it, or "
              "lower the setting named.", file=sys.stderr)
        return 2
    return None


class _Stop:
    """Ctrl+C and SIGTERM in a headless command (issue 31 item 9). Both raise
    KeyboardInterrupt, the path Ctrl+C has always taken (the audit is cancelled, the folder's
    write undone, one line on stderr); SIGTERM is remembered for its line and exit code 143.
    While held (the earlier run being moved aside or back: renames that must not stop half-way,
    engine.run_folder.write_run's ``hold``) a signal waits, and is raised when the hold
    ends. ``phase``: what an interruption stops — the audit ("audit": nothing written yet) or
    the write ("write"); "done" once the files are written (a signal then changes nothing)."""

    terminated = False
    held = 0
    pending = False
    phase = "audit"

    @classmethod
    def install(cls) -> None:
        # Only the main thread may set handlers (main() called from a test's thread: leave them).
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, cls.handler)
            signal.signal(signal.SIGTERM, cls.handler)

    @classmethod
    def handler(cls, signum, frame) -> None:
        if cls.phase == "done":
            # The run's files are written and it is finishing: a signal now must not turn
            # a finished run into a failure (hostile pass: exit 143 or 130 with no line,
            # the folder holding the new run).
            return
        if signum == signal.SIGTERM:
            cls.terminated = True
        if cls.held:
            cls.pending = True
            return
        raise KeyboardInterrupt

    @classmethod
    @contextlib.contextmanager
    def hold(cls):
        cls.held += 1
        try:
            yield
        finally:
            cls.held -= 1
        if not cls.held and cls.pending:
            cls.pending = False
            raise KeyboardInterrupt

    @classmethod
    def message(cls, out: Path | None) -> str:
        """The one line an interruption prints: what stopped the run, and where the last
        finished run is."""
        from engine.run_folder import where_the_last_run_is

        stopped = "stopped by a termination signal" if cls.terminated else "cancelled"
        if out is None:
            return stopped
        if cls.phase == "audit":
            return f"{stopped}; nothing was written into {out}."
        return f"{stopped} while the run's files were written; {where_the_last_run_is(out)}."


def _run_config(config, out: Path, *, quiet: bool, report: bool = True,
                include_records: bool = False, yes: bool = False) -> int:
    from engine.audits.registry import run_audit
    from engine.project import config_to_toml
    from engine.run_folder import MODEL, check_writable, locked, write_run
    from engine.runtime import Progress

    # One run at a time writes into OUT: the folder is locked from before the estimate until
    # the write ends, and a second run gets a sentence before anything else (issue 31 item 7).
    with locked(out):
        refused = _check_cost(config, quiet=quiet, yes=yes)
        if refused is not None:
            return refused
        check_writable(out)                 # before the audit: a long run is not wasted
        result = run_audit(config, progress=Progress(_StderrProgress(quiet)))
        _Stop.install()     # again: ray.init (a local Ray run) puts its own SIGTERM handler in
        defences = getattr(config, "defences", None)
        export = bool(defences is not None and defences.enabled and defences.export_recommended)
        # The earlier run in OUT is moved aside, every file is written under a temporary name
        # and renamed, result.json last (engine.run_folder: the folder's protocol); a
        # write stopped by Ctrl+C, SIGTERM or an error puts the earlier run back.
        _Stop.phase = "write"
        outputs = write_run(out, result, config_toml=config_to_toml(config.to_dict()),
                            report=report, include_records=include_records,
                            export_model=export, hold=_Stop.hold)
        _Stop.phase = "done"
    exported = any(e["path"].startswith(MODEL + "/") for e in outputs)
    if export and not exported and not quiet:
        print("No setting met the defences' limit: no model exported.")
    if not quiet:
        print(f"Verdict: {result.verdict['level'].upper()} risk. {result.summary}")
        print(f"Wrote {out / 'result.json'}" + (f" and {out / 'report.pdf'}" if report else ""))
        if exported:
            print(f"Wrote the recommended model to {out / MODEL}")
    return 0


def _os_error_line(exc: OSError) -> str:
    """An OS error outside the output folder's own sentences, as one line with what to do
    (issue 31 item 9: "error: : No space left on device" named no file and said nothing)."""
    where = f"{exc.filename}: " if exc.filename else ""
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return (f"{where}the disk is full ({exc.strerror}); free some space on it (the app's "
                "temporary files go to the system's temporary folder, or TMPDIR) and run again.")
    if exc.errno == errno.EROFS:
        return f"{where}is on a read-only disk; choose a place on a disk that can be written."
    return f"{where}{exc.strerror or exc}; check that file or folder and run again."


def unknown_command(word: str) -> str | None:
    """The sentence for ``python main.py WORD`` where WORD is neither a command nor a project
    file (issue 31 item 12: it printed the whole help and exited 0): None when WORD may be a
    project to open — a file that exists, or a name with a dot or a folder in it."""
    if word in COMMANDS or os.path.lexists(word) or "." in word or "/" in word or os.sep in word:
        return None
    return (f"{word!r} is not a command; the commands are {', '.join(COMMANDS[:-1])} and "
            f"{COMMANDS[-1]} (or give a project file, FILE.praudit.json, to open it in the app). "
            "python main.py --help lists them.")


def split_project_path(argv: list[str]) -> tuple[list[str], str | None]:
    """``python main.py FILE.praudit.json`` (and the frozen app started with a path, as a
    double-click starts it): the first argument that is neither an option, nor the value of
    ``--sample``, nor a command is the project to open. Returns the other arguments, for the
    parser, and that path (None without one). argparse cannot take an optional positional
    beside sub-commands: it would read ``run`` as the path."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest = argv[i + 1:]
            return (argv[:i], rest[0]) if len(rest) == 1 else (argv, None)
        if arg == "--sample":
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        if arg in COMMANDS:
            return argv, None
        return argv[:i] + argv[i + 1:], arg
    return argv, None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    argv, project_path = split_project_path(list(argv))
    args = build_parser().parse_args(argv)
    if args.version:
        from engine import __version__
        print(f"Privacy Risk Auditor {__version__}")
        return 0
    from engine.private_tmp import use_private_tmp
    try:
        use_private_tmp()        # every temporary file of this session in a 0700 folder
    except OSError as exc:
        print(f"error: cannot make a private folder for temporary files ({exc}).",
              file=sys.stderr)
        return 2
    if args.command is None:
        problem = unknown_command(project_path) if project_path else None
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
        if args.sample is not None:
            from engine.audits.samples import sample_names
            if args.sample not in sample_names():
                print(f"error: there is no sample audit called {args.sample!r}; choose one of "
                      f"{', '.join(sample_names())}.", file=sys.stderr)
                return 2
        from gui.app import main as gui_main
        return gui_main(argv, open_sample=args.sample, open_path=project_path)

    from engine.data.errors import InputError, internal_error_text, missing_package_text
    from engine.private_tmp import remove_private_tmp
    from engine.runtime import JobCancelled

    _Stop.terminated, _Stop.pending, _Stop.phase = False, False, "audit"
    _Stop.install()
    out = Path(args.out) if getattr(args, "out", None) else None
    try:
        if args.command == "calibrate":
            return _calibrate(quiet=args.quiet, scale=args.scale)
        if args.command == "decisions":
            return _decisions(args.folder, args.out)
        if args.command == "compare":
            return _compare(args.files, Path(args.out), quiet=args.quiet, yes=args.yes)
        if args.command == "run":
            from engine.project import load_config
            config = load_config(args.config)
            return _run_config(config, Path(args.out), quiet=args.quiet,
                               report=not args.no_report, include_records=args.include_records,
                               yes=args.yes)
        # An audit type's quick sample, or an extra one such as model-thorough (issue 33
        # item 3); an unknown name is one sentence listing them.
        from engine.audits.samples import sample_config
        return _run_config(sample_config(args.name), Path(args.out), quiet=args.quiet,
                           yes=args.yes)
    except InputError as exc:
        _StderrProgress.end_line()
        print(f"error: {exc.one_line()}", file=sys.stderr)
        if exc.config_line():    # the sentence names the setting by its label; this, by its key
            print(f"  {exc.config_line()}", file=sys.stderr)
        return 2
    except (JobCancelled, KeyboardInterrupt, SystemExit) as exc:
        # ray.init replaces the SIGTERM handler with sys.exit(15): the same signal.
        if isinstance(exc, SystemExit):
            if exc.code != signal.SIGTERM:
                raise
            _Stop.terminated = True
        _StderrProgress.end_line()
        print(_Stop.message(out), file=sys.stderr)
        if _Stop.terminated:
            remove_private_tmp()     # also done at exit; here so that it is gone first
            return 128 + signal.SIGTERM
        return 3
    except OSError as exc:
        _StderrProgress.end_line()
        print(f"error: {_os_error_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - last line of defence: one line, exit 1
        _StderrProgress.end_line()
        missing = missing_package_text(exc)
        if missing:
            print(f"error: {missing}", file=sys.stderr)
            return 1
        print(f"internal error: {internal_error_text(exc)}. Please report it with the config "
              "file.", file=sys.stderr)
        return 1


def exit_code_kept(code: int) -> int:
    """``code`` of a finished command, kept until the process has exited: Python's shutdown
    puts the default handlers back, so a SIGTERM or Ctrl+C in the last moments ended a finished
    run with 143 or 130 and no line (hostile pass, issue 31 item 9). After success both are
    ignored (SIG_IGN survives the shutdown). Called by the script's entry alone, never inside
    main(): tests call main() in their own process."""
    if code == 0 and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return code


if __name__ == "__main__":
    sys.exit(exit_code_kept(main()))
