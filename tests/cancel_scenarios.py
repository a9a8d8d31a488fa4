"""The Cancel scenarios of issue 11, shared by the pass/fail tests and the bench (issue 18).

The tests (``tests/engine/test_cancel.py``, ``test_cancel_paper_scale.py``) check that a
cancelled job stops — raises JobCancelled — and leaves nothing behind; how *fast* it stops is
a speed figure, measured by ``bench/bench_cancel.py`` against the 2 s goal of issue 11 on a
quiet machine (a pass/fail time limit failed on a loaded machine: 9.3 s at load 15). Both run
the same scenarios from here, so the figure the bench reports is the stop the tests check.

Scales of the paper-scale scenarios, against the papers' (``../shared/papers``):

* mechanism (002 — lecture notes, no fixed size): 2,000,000 membership games per hypothesis
  (the most the app allows) with k = 1,000 observations per person (six weeks of hourly
  counts), cancelled in the game; and 2,000,000 games at the demo's k = 10, cancelled while
  the 4,000,000 scores are measured (ROC, DeLong interval, ε bound).
* location (000): the synthetic city at the Milano set's size (16,000 traces × 800 hourly
  epochs × 96 sites), n = 1,999 others per release, 2,000 + 200,000 shadow aggregates and
  50,000 test aggregates, Laplace ε = 0.5; cancelled while the 200,000 large shadow
  aggregates are drawn. And the meta-classifier's training on 200,000 shadow aggregates (the
  paper's "meta-classifier (200k)"; drawn here as the main shadow set, which is the same loop).
* aggregates (003): a census block of 450 people (paper: 454, the 10 % of a 4,540-person
  block) released as the P-tables, every unique person a target (131), 20,000 shadow datasets,
  K = 100 CIP / RAP reconstructions (paper: 100); cancelled in the deterministic module's
  CP-SAT solves, and in RAP-rand's training of K = 100 relaxed datasets (on 5 targets, to
  reach it quickly: the loop's size is K × |D|, not the number of targets).
* model (001, 004): Purchase100's size — 197,324 synthetic purchase records × 600 binary
  features, 100 classes — with paper 004's 1024-512-256-128 tanh network, 10 shadow models
  (paper 001 used 10) and 16 reference models; cancelled while the data is generated and in
  the audited model's first epoch. The stacked shadow and reference training comes only after
  the audited model's 30 epochs (over an hour at this size on a CPU), so its loop is run
  directly (:func:`stacked_training_job`): one step of the 26 stacked networks on that table.

Imports only the engine (and the standard library): never a bench peer library.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from pathlib import Path

from engine.audits.registry import demo_config, run_audit
from engine.runtime import CancelToken, JobCancelled, Progress
from tests.busy_cores import BusyCores

GOAL_S = 2.0            # issue 11: Cancel stops a job within 2 s (a quiet machine's figure)
# Hang guards, not speed limits: far above any time seen (a stop took 9.3 s at load 15; the
# model demo reached its defences in about 5 minutes at load 6), so a job that never gets
# there or ignores Cancel fails its test instead of hanging CI.
REACH_TIMEOUT_S = 900   # until the job is inside the loop where Cancel is pressed
STOP_TIMEOUT_S = 120    # from Cancel to the end of the job
LOAD_SETTLE_S = 0.5     # let the scheduler share the cores before pressing Cancel
# Caches a library keeps in the temporary folder (compiled kernels, no records): removed with
# the session's private folder at exit (engine.private_tmp), not left by the cancelled job.
LIBRARY_CACHES = ("torchinductor_",)


# --------------------------------------------------------------------------- demo size

# Where in each bundled demo Cancel is pressed (share of its progress bar), so the stop lands
# inside the long loops: the mechanism game's trials, the location attacks, DeSIA's solver
# calls, the model's stacked training and, for the model, the defences' training.
DEMO_CASES = {"mechanism": 0.3, "location": 0.5, "aggregates": 0.2, "model": 0.1,
              "model-defences": 0.5}


def demo_case_config(name: str):
    """The demo's config; the model's defences (past 35 % of its bar) are reached on a smaller
    sample to keep the suite's time: the same loops, 1,500 records instead of 4,000."""
    if name == "model-defences":
        return replace(demo_config("model"), synthetic_records=1500)
    return demo_config(name)


def past(share: float):
    return lambda fraction, message: fraction >= share


def starts_with(text: str, share: float = 0.0):
    return lambda fraction, message: message.startswith(text) and fraction >= share


def demo_case(name: str):
    """(config, when Cancel is pressed, seconds to wait then) of a demo-size scenario."""
    return demo_case_config(name), past(DEMO_CASES[name]), 0.0


# --------------------------------------------------------------------------- paper scale

def mechanism_game():
    return replace(demo_config("mechanism"), trials=2_000_000, observations=1000)


def mechanism_measure():
    return replace(demo_config("mechanism"), trials=2_000_000)


def location_paper(**changes):
    paper = dict(traces="", city_users=16_000, city_epochs=800, aggregate_size=1999,
                 shadow_aggregates=2000, large_shadow_aggregates=200_000,
                 test_aggregates=50_000, sweep_test_aggregates=4000)
    return replace(demo_config("location"), **{**paper, **changes})


def aggregates_paper(**changes):
    paper = dict(reconstructions=100, n_shadow=20_000, max_targets=100_000)
    return replace(demo_config("aggregates"), **{**paper, **changes})


def model_paper():
    from engine.defences.config import DefenceConfig

    return replace(demo_config("model"), synthetic_records=197_324, architecture="purchase",
                   shadow_models=10, reference_models=16,
                   defences=DefenceConfig(enabled=False))


# name: (config, when the job is in the loop, seconds to wait then before pressing Cancel)
PAPER_CASES = {
    "mechanism-game": (mechanism_game, starts_with("Membership game"), 0.5),
    # Pressed just after the game's last batch: the first attack's scores are being measured.
    "mechanism-measure": (mechanism_measure, past(0.70), 0.3),
    # The 2,000-shadow set is ready at 17 % of the bar; the 200,000 come next (~8 s of noise).
    "location-large-shadows": (location_paper, past(0.17), 1.0),
    "location-meta-classifier-200k": (
        lambda: location_paper(shadow_aggregates=200_000, large_shadow_aggregates=0,
                               attacks=("meta_classifier",)),
        starts_with("Training the detector"), 1.0),
    "aggregates-solver": (aggregates_paper,
                          starts_with("Looking for values the counts prove: target 10 "), 0.2),
    "aggregates-rap": (lambda: aggregates_paper(attacks=("rap_rand",), max_targets=5,
                                                membership=False),
                       starts_with("Looking for values the counts prove: target 5 of 5"),
                       3.0),
    "model-data": (model_paper, past(0.0), 0.5),
    "model-training": (model_paper, starts_with("Training the model: epoch 1"), 0.5),
}


def stacked_training_job():
    """(job(progress, cancel), when it is in the loop, seconds to wait then, networks) of the
    model audit's shadow and reference models at paper scale: 10 + 16 networks of
    1024-512-256-128 (tanh) on half of Purchase100's 197,324 records each (the audit reaches
    this loop only after the audited model's 30 epochs). One step of all 26 as one stack was
    about 1 s quiet and 2-4 s under load, and a step cannot be interrupted; on a CPU the stack
    now trains in groups of at most engine.models.batched.CPU_STEP_MACS multiply-adds a step
    (5 of these networks), each step ~0.05 s quiet."""
    import numpy as np

    from engine.data.purchase import generate_purchase
    from engine.games.model import split_records
    from engine.models import reference_tasks, train_many_mlps

    config = model_paper()
    data = generate_purchase(config.seed, config.synthetic_records)
    population, universe, _ = split_records(config, data.n_records, None)
    stacked = np.r_[universe, population]
    n_u = universe.size
    masks = []
    for t in reference_tasks(config.shadow_models, config.seed, population.size,
                             design="fixed_size"):
        m = np.zeros(stacked.size, dtype=bool)
        m[n_u:] = t.mask(population.size)
        masks.append(m)
    for t in reference_tasks(config.reference_models, config.seed + 1, n_u, design="balanced"):
        m = np.zeros(stacked.size, dtype=bool)
        m[:n_u] = t.mask(n_u)
        masks.append(m)
    X, y = data.X[stacked], data.y[stacked]
    del data
    masks = np.array(masks)

    def job(progress, cancel):
        return train_many_mlps(config.training_spec(), X, y, 100, masks, device="cpu",
                               progress=progress, cancel=cancel)

    # "Training ..." is said before the first step (~1 s each).
    return job, starts_with("Training"), 2.5, len(masks)


# --------------------------------------------------------------------------- running one

def child_processes() -> set[int]:
    """Ids of this process's live children (Linux /proc; empty elsewhere)."""
    me = os.getpid()
    out = set()
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.add(int(entry.name))
    return out


def audit_job(config):
    """job(progress, cancel) running ``config``'s audit as the app does."""
    return lambda progress, cancel: run_audit(config, progress=progress, cancel=cancel)


def run_and_cancel(job, in_loop, delay: float, name: str, *, burners: int = 0) -> dict:
    """Run ``job(progress, cancel)`` on a worker thread; once its progress satisfies
    ``in_loop(fraction, message)`` wait ``delay`` seconds, press Cancel (with ``burners``
    busy processes loading the cores) and wait for the job to end.

    Returns {"how": "cancelled" | "finished" | "failed: ..." | "never reached its loop ..." |
    "still running", "stop_s": seconds from Cancel to the job's end (None if it did not end),
    "burner_pids": the busy processes' ids (gone by now; for the leftover-process check)}.
    """
    token = CancelToken()
    reached = threading.Event()
    outcome: dict = {}

    def progress(fraction, message=""):
        if in_loop(fraction, message):
            reached.set()

    def work():
        try:
            job(Progress(progress), token)
            outcome["how"] = "finished"
        except JobCancelled:
            outcome["how"] = "cancelled"
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            outcome["how"] = f"failed: {exc!r}"
        outcome["end"] = time.perf_counter()

    worker = threading.Thread(target=work, name=f"cancel-{name}")
    worker.start()
    pids: set[int] = set()
    pressed = None
    in_time = False
    try:
        give_up = time.monotonic() + REACH_TIMEOUT_S
        while not reached.is_set() and worker.is_alive() and time.monotonic() < give_up:
            reached.wait(0.1)            # a job that ends (or fails) first is not waited for
        in_time = reached.is_set()
        if in_time:
            time.sleep(delay)
            with BusyCores(burners, LOAD_SETTLE_S) as load:
                pressed = time.perf_counter()
                token.cancel()
                worker.join(timeout=STOP_TIMEOUT_S)
                pids = load.pids
    finally:
        token.cancel()
        worker.join(timeout=STOP_TIMEOUT_S)
    if not in_time:
        # Whatever the job did after the guard (Cancel stops it then), it was not cancelled
        # inside the loop this scenario is about.
        outcome["how"] = (f"never reached its loop in {REACH_TIMEOUT_S} s "
                          f"(then {outcome.get('how', 'still running')})")
    elif worker.is_alive():
        outcome["how"] = "still running"
    stop_s = outcome["end"] - pressed if pressed is not None and "end" in outcome else None
    return {"how": outcome["how"], "stop_s": stop_s, "burner_pids": pids}


def leftovers(before_threads, before_children, burner_pids, tmp_dir) -> list[str]:
    """What a finished job left behind: non-daemon threads, child processes (other than the
    busy ones) and files in ``tmp_dir`` (other than a library's caches); empty when nothing."""
    time.sleep(0.2)                      # threads a library started are given a moment
    out = []
    threads = [t for t in threading.enumerate() if t not in before_threads and t.is_alive()
               and not t.daemon]
    if threads:
        out.append(f"threads left behind: {threads}")
    children = child_processes() - set(before_children) - set(burner_pids)
    if children:
        out.append(f"processes left behind: {sorted(children)}")
    files = [f for f in Path(tmp_dir).iterdir() if not f.name.startswith(LIBRARY_CACHES)]
    if files:
        out.append(f"temporary files left behind: {files}")
    return out
