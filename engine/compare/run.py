"""Running a comparison (issue 34 item 1, "Speed and memory"): every candidate through the
audit registry's ``run_audit`` in turn — its config's compute settings decide in-process or
Ray, as for a single audit (ARCHITECTURE §3) — with progress spanned per candidate and Cancel
honoured inside and between candidates.

Streaming: each finished candidate's files are written at once to ``out_dir/candidate-<i>/``
(engine.run_folder.write_run: ``config.toml`` and ``result.json``, each written crash-safely,
result.json last), and ``out_dir/comparison.json`` is rewritten (engine.atomic_write) after
every candidate with each one's status — "finished", "pending", "cancelled" or "failed" —
so a Cancel, a crash or a full disk keeps every candidate that finished. Memory: only the
finished candidates' results (read once, as engine.results.loaded objects) are kept; a
candidate's arrays (its game, its models) are released before the next one starts, so the
peak is one audit's peak.

The whole set's estimate is the sum of the candidates' times, and the largest peak memory
(they run one after another).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from engine.atomic_write import write_text
from engine.audits.registry import run_audit
from engine.compare.candidates import CandidateSet, candidates_from_projects, validate
from engine.compare.summary import compare_results
from engine.compare.types import Comparison
from engine.config_file import config_to_toml
from engine.data.errors import InputError
from engine.estimates import CostEstimate, estimate
from engine.results.loaded import load_result
from engine.run_folder import RESULT, write_run
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, JobCancelled, Progress
from engine.signoff import result_sha256

COMPARISON_FILE = "comparison.json"
COMPARISON_REPORT = "comparison.pdf"


def folder_name(index: int) -> str:
    return f"candidate-{index}"


def estimate_comparison(cset: CandidateSet, *, slowdown: float | None = None,
                        machine: bool = True) -> CostEstimate:
    """The whole set's estimate: the sum of the candidates' times, the largest peak memory
    (they run one after another), each candidate's steps named by its label."""
    validate(cset)
    configs = cset.configs()
    ones = [estimate(config, slowdown=slowdown, machine=machine) for config in configs]
    parts = [replace(p, what=f"{c.label}: {p.what}")
             for c, one in zip(cset.candidates, ones, strict=True) for p in one.parts]
    notes: list[str] = []
    for one in ones:
        notes += [n for n in one.notes if n not in notes]
    biggest = max(ones, key=lambda one: one.resident_bytes)
    return CostEstimate(cset.audit_type, float(sum(one.seconds for one in ones)),
                        float(max(one.peak_bytes for one in ones)),
                        float(biggest.resident_bytes), biggest.resident_setting,
                        tuple(parts), tuple(notes),
                        slowdown=max(one.slowdown for one in ones))


def write_comparison(out: Path, comparison: Comparison) -> None:
    write_text(out / COMPARISON_FILE,
               json.dumps(comparison.to_dict(), indent=2, ensure_ascii=False) + "\n")


def read_comparison(path) -> Comparison:
    """A saved comparison.json (a file, or the folder holding one) as a :class:`Comparison`."""
    p = Path(path)
    if p.is_dir():
        p = p / COMPARISON_FILE
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InputError(f"{p}: cannot be read as a comparison (missing, or not complete "
                         "JSON); run the comparison again.", source=str(p)) from None
    return Comparison.from_dict(data, source=str(p))


def check_out_folder(out: Path) -> None:
    """Refuse to replace a comparison.json that this app did not write (the user's file)."""
    existing = out / COMPARISON_FILE
    if existing.exists():
        try:
            read_comparison(existing)
        except InputError:
            raise InputError(f"{existing}: is not a comparison this app wrote, and the "
                             "comparison would replace it; move or rename it, or choose "
                             "another output folder with --out.", source=str(existing)
                             ) from None


def run_comparison(cset: CandidateSet, out_dir, *, progress: Progress = NO_PROGRESS,
                   cancel: CancelToken = NEVER) -> Comparison:
    """Run every candidate and stream the results (module docstring). Returns the
    :class:`Comparison`; a Cancel writes comparison.json with the finished candidates kept and
    the others marked "cancelled", then raises :class:`engine.runtime.JobCancelled`."""
    validate(cset)
    configs = cset.configs()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    check_out_folder(out)
    n = len(configs)
    results: list = [None] * n
    statuses = ["pending"] * n
    errors: list = [None] * n
    folders: list = [None] * n
    shas: list = [None] * n
    runtimes: list = [None] * n

    def snapshot() -> Comparison:
        comparison = compare_results(cset, results, statuses=statuses, errors=errors,
                                     folders=folders, shas=shas, runtimes=runtimes)
        write_comparison(out, comparison)
        return comparison

    snapshot()
    for i, (c, config) in enumerate(zip(cset.candidates, configs, strict=True)):
        span = progress.span(i / n, (i + 1) / n)
        words = f"Candidate {i + 1} of {n} ({c.label})"

        def tell(fraction, message, span=span, words=words):
            span(fraction, f"{words}: {message}" if message else words)

        statuses[i] = "running"
        try:
            cancel.check()
            result = run_audit(config, progress=Progress(tell), cancel=cancel)
            folder = out / folder_name(i + 1)
            write_run(folder, result, config_toml=config_to_toml(config.to_dict()),
                      report=False)
            runtimes[i] = result.runtime_s
            # Dropped here, so its attachments (models, arrays) are freed by reference
            # counting before the next candidate starts (a gc.collect() would cost 0.3 s).
            del result
            # The result as written: its fingerprint is the one a sign-off of it records.
            written = json.loads((folder / RESULT).read_text(encoding="utf-8"))
            shas[i] = result_sha256(written)
            results[i] = load_result(written)     # read once, not at every summary
            statuses[i] = "finished"
            folders[i] = folder_name(i + 1)
        except (JobCancelled, KeyboardInterrupt):
            for j in range(i, n):
                statuses[j] = "cancelled"
            snapshot()
            raise
        except InputError as exc:
            statuses[i], errors[i] = "failed", exc.one_line()
        except Exception as exc:  # noqa: BLE001 - one candidate's crash keeps the others
            statuses[i] = "failed"
            errors[i] = (f"The run of this candidate stopped with an unexpected error "
                         f"({type(exc).__name__}: {exc}); the other candidates are kept.")
        snapshot()
    progress(1.0, "Comparison done")
    return snapshot()


def compare_projects(paths, *, highest_level: str = "low") -> Comparison:
    """Saved projects side by side, no re-run (engine.compare.candidates.
    candidates_from_projects checks them)."""
    saved = candidates_from_projects(paths, highest_level=highest_level)
    return compare_results(saved.cset, list(saved.results),
                           shas=[result_sha256(r) for r in saved.results],
                           folders=[c.source.removeprefix("project:")
                                    for c in saved.cset.candidates])
