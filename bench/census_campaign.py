"""Run many repetitions of bench/study_census_tables.py at once on a bigger machine (issue 22
item 3): a queue of jobs for the GPU (RAP-rand alone, ``--rap-only``, PyTorch on CUDA) and one
for the CPU cores (the main game: DeSIA, its stochastic module both ways, CIP-rand, best_of,
the data-only guess), each job one (table, release, repetition) written to its own JSON-lines
file under ``--out`` as it ends, so a run cut by its time limit keeps every finished job.

A job's numbers do not depend on where or beside what it runs (each repetition seeds from
7 + r; CIP's solves stop at deterministic limits, RAP trains deterministically on one device):
the files pool with the ones made elsewhere (``study_census_tables --pool``), the RAP lines
paired with the main lines of the same repetition. Jobs are dealt round-robin over the
(table, release) pairs, so a run cut short still covers each.

    OUT=out python -m bench.census_campaign --out out --deadline 480 --gpu-workers 6 \\
        --cpu-workers 8 --rap acs12:0:0-19,acs12:1:0-19 --main gss:0:0-10,gss:1:10-0:best_of
"""

from __future__ import annotations

import argparse
import itertools
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path


def parse_jobs(spec: str, rap: bool, max_targets: dict[str, int], skip: str) -> list[dict]:
    """'TABLE:EPS:FIRST-LAST[:SKIP+SKIP][,…]' → jobs, interleaved across the groups
    (round-robin); SKIP names attacks a group's main games leave out (else ``skip``)."""
    groups = []
    for part in filter(None, spec.split(",")):
        table, eps, span, *own = part.split(":")
        group_skip = own[0] if own else skip
        lo, _, hi = span.partition("-")
        reps = range(int(lo), int(hi or lo) + 1) if int(hi or lo) >= int(lo) else \
            range(int(lo), int(hi) - 1, -1)
        groups.append([{"table": table, "eps": eps, "rep": r, "rap": rap,
                        "max_targets": max_targets.get(table, 10_000), "skip": group_skip}
                       for r in reps])
    return [j for row in itertools.zip_longest(*groups) for j in row if j]


def command(job: dict, out: Path) -> tuple[list[str], Path]:
    kind = "rap" if job["rap"] else "main"
    trials = out / f"{job['table']}_e{job['eps']}_r{job['rep']:02d}_{kind}.jsonl"
    argv = [sys.executable, "-m", "bench.study_census_tables", "--tables", job["table"],
            "--epsilons", job["eps"], "--first-repetition", str(job["rep"]),
            "--repetitions", "1", "--max-targets", str(job["max_targets"]),
            "--trials", str(trials)]
    if job["rap"]:
        argv.append("--rap-only")
    elif job["skip"]:
        from bench.study_census_tables import ATTACKS
        argv += ["--attacks", ",".join(a for a in ATTACKS if a not in job["skip"].split("+"))]
    return argv, trials


def worker(jobs: queue.Queue, env: dict, out: Path, stop_at: float, log) -> None:
    while True:
        try:
            job = jobs.get_nowait()
        except queue.Empty:
            return
        left = stop_at - time.monotonic()
        if left < 30:
            log(f"skipped (time up): {job}")
            continue
        argv, trials = command(job, out)
        t0 = time.monotonic()
        try:
            done = subprocess.run(argv, env=env, timeout=left, capture_output=True, text=True)
            tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or [""]
            log(f"{trials.name}: rc {done.returncode}, {time.monotonic() - t0:.0f} s, "
                f"{tail[0][:200]}")
        except subprocess.TimeoutExpired:
            log(f"{trials.name}: cut at the deadline after {time.monotonic() - t0:.0f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", type=float, default=480, help="seconds from the start")
    ap.add_argument("--gpu-workers", type=int, default=6)
    ap.add_argument("--cpu-workers", type=int, default=8)
    ap.add_argument("--rap", default="", help="RAP-rand jobs: TABLE:EPS:FIRST-LAST,…")
    ap.add_argument("--main", default="", help="main-game jobs: TABLE:EPS:FIRST-LAST,… "
                                                "(LAST < FIRST runs the repetitions downwards)")
    ap.add_argument("--skip", default="", help="attacks left out of the main jobs, e.g. best_of")
    ap.add_argument("--max-targets", default="", help="per table, e.g. gss=20")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stop_at = time.monotonic() + args.deadline
    caps = {k: int(v) for k, v in (x.split("=") for x in filter(None,
                                                                 args.max_targets.split(",")))}
    lock = threading.Lock()
    start = time.monotonic()

    def log(msg: str) -> None:
        with lock:
            line = f"[{time.monotonic() - start:6.0f} s] {msg}"
            print(line, flush=True)
            with open(out / "campaign.log", "a") as fh:
                fh.write(line + "\n")

    base = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    threads = []
    for spec, rap, n, dev in ((args.rap, True, args.gpu_workers, "auto"),
                              (args.main, False, args.cpu_workers, "cpu")):
        jobs: queue.Queue = queue.Queue()
        for job in parse_jobs(spec, rap, caps, args.skip):
            jobs.put(job)
        env = dict(base, PRA_DEVICE=dev)
        for _ in range(n if spec else 0):
            t = threading.Thread(target=worker, args=(jobs, env, out, stop_at, log))
            t.start()
            threads.append(t)
    for t in threads:
        t.join()
    log("campaign done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
