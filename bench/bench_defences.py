"""The model defences' trade-off sweep (issue 9): stacked training against one model after another.

The issue's sweep — no defence, KCD at 5 α (0, .25, .5, .75, 1), DMP at 3 teacher temperatures
(1, 2, 4), L2 at 3 strengths (1e-4, 1e-3, 1e-2), DP-SGD at 3 noise multipliers (.5, 1, 2),
``engine.defences.default_sweep()`` — on a purchase-style table, every model attacked under
the supervised threat model of paper 004 §4.3 (the trade-off's 8 attacks, δ = 1e-5), the
audit's default model (600-128-100 ReLU MLP, Adam, batch 128, 30 epochs). Two ways of doing
the SAME work, each in its own process (so its peak resident memory is its own):

* ours — ``engine.defences.tradeoff(config, default_sweep())``: the undefended model is also
  DMP's teacher, KCD's 5 teachers are shared by every α and the 5 students train as one
  stack, the 3 DMP students and the 3 L2 models each train as one stack;
* reference — the single-setting functions one after another, as a user of the library
  without the sweep would call them: ``undefended``, then ``kcd(alpha=a)`` for each α (five
  teachers and one student each time), ``dmp(temperature=T)`` for each T (its own teacher
  each time), ``l2(weight_decay=λ)`` for each λ, ``dp_sgd(noise_multiplier=σ)`` for each σ;
  every model attacked with the trade-off's own ``measure`` (same split, attacks, δ).

Both give the same models (a stack trains each model as it would alone, engine/models), so the
bench prints the largest difference of test accuracy and of the strongest attack's AUC between
the two runs as a check. DP-SGD (Opacus, per-sample gradients) cannot be stacked and is the
same work in both; the ratios are printed for the whole job, for training only, and for
training without DP-SGD (the part stacking changes).

Data: the bundled ``resources/model/purchase_sample.csv`` (2,000 records, 600 binary features,
100 classes; the audit split gives 500 members, 500 non-members and 1,000 held-out records —
DMP's reference set), and ``engine.data.purchase.generate_purchase`` at 4,000 records (the
model audit's default synthetic data: 1,000 members). Seed 7 (the audit's default).

Every run on ``--threads`` torch threads (default 1, as bench_batched_training: on the shared
2-core machine two threads per process are slower and erratic — measured with ``--threads 2``
on 4,000 records: the stacked training 7x slower, the whole sweep 77 s instead of 39 s). Peak memory: the process's
peak resident set (ru_maxrss), and how much of it came after the imports and the data.

``python -m bench.bench_defences``: both datasets, 30 epochs, best of ``--repeats`` (1) per
variant (150 s measured on 2 shared cores; the goal for the sweep is under 15 minutes);
``--quick``: the bundled sample only, 10 epochs (34 s measured); ``--records N``: only the
synthetic data at N records; ``--epochs N``, ``--seed N``, ``--threads N``, ``--repeats N``.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

SAMPLE = "resources/model/purchase_sample.csv"
VARIANTS = ("ours", "reference")
SEED = 7


def _config(source: str, epochs: int, seed: int):
    from engine.audits.model import ModelConfig

    if source == "sample":
        return ModelConfig(data=SAMPLE, label="label", epochs=epochs, seed=seed)
    return ModelConfig(synthetic="purchase", synthetic_records=int(source), epochs=epochs,
                       seed=seed)


def _rss_mb() -> float:
    try:
        import os

        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError):       # pragma: no cover - not Linux
        return 0.0


def _summary(row: dict) -> dict:
    risk = row["risk"]
    out = {"label": row["label"], "defence": row["defence"],
           "test_accuracy": row["test_accuracy"], "train_accuracy": row["train_accuracy"],
           "auc": risk["auc"]["value"], "balanced_accuracy": risk["accuracy"]["value"],
           "balanced_accuracy_attack": risk["accuracy"]["attack"],
           "tpr_at_1pct": risk["tpr"]["value"], "epsilon_lower_bound": risk["epsilon"]["value"]}
    if "dp" in row:
        out["accountant_epsilon"] = row["dp"]["accountant_epsilon"]
    return out


def _ours(config) -> tuple[list[dict], dict]:
    from engine.defences import RiskLimit, default_sweep, recommend, tradeoff

    res = tradeoff(config, default_sweep())
    limit = RiskLimit("tpr", 0.02, fpr=0.01)
    # Training time from the models' own runtimes: a stack's models share one runtime.
    train = {"none": 0.0, "kcd": 0.0, "dmp": 0.0, "l2": 0.0, "dp_sgd": 0.0}
    for r in res.rows:
        t = r["training_runtime_s"]
        train[r["defence"]] = train[r["defence"]] + t if r["defence"] == "dp_sgd" \
            else max(train[r["defence"]], t)
    return [_summary(r) for r in res.rows], {"train_s": sum(train.values()),
                                              "dp_train_s": train["dp_sgd"],
                                              "members": res.info["data"]["members"],
                                              "delta": res.info["delta"],
                                              "recommendation": recommend(res.rows,
                                                                          limit)["statement"]}


def _reference(config) -> tuple[list[dict], dict]:
    """The same sweep, one single-setting call after another (module docstring)."""
    from engine.defences import default_sweep, dmp, dp_sgd, kcd, l2, undefended
    from engine.defences.tradeoff import SUPERVISED_ATTACKS, measure
    from engine.games.model import load_training_data, split_records
    from engine.runtime import device

    data, _ = load_training_data(config)          # as tradeoff() loads it
    X, y, k = data.X, data.y, data.n_classes
    population, universe, inside = split_records(config, data.n_records, data.member)
    members = universe[inside]
    Xm, ym = X[members], y[members]
    spec = config.training_spec()
    delta = min(1e-5, 1.0 / (10 * members.size))
    fprs = tuple(sorted(set(config.fpr_targets) | {config.policy.fpr}))
    dev = device()
    rows, train_s, dp_s = [], 0.0, 0.0
    for s in default_sweep():
        t0 = time.perf_counter()
        if s.defence == "none":
            model = undefended(Xm, ym, k, spec, seed=config.seed, device=dev)
        elif s.defence == "kcd":
            model = kcd(Xm, ym, k, spec, alpha=s.value, seed=config.seed, device=dev)
        elif s.defence == "dmp":
            model = dmp(Xm, ym, k, spec, X[population], temperature=s.value, seed=config.seed,
                        device=dev)
        elif s.defence == "l2":
            model = l2(Xm, ym, k, spec, weight_decay=s.value, seed=config.seed, device=dev)
        else:
            model = dp_sgd(Xm, ym, k, spec, noise_multiplier=s.value, delta=delta,
                           seed=config.seed, device=dev)
        t = time.perf_counter() - t0
        train_s += t
        dp_s += t if s.defence == "dp_sgd" else 0.0
        row = {**s.to_dict(), **measure(config, model, X[universe], y[universe], inside,
                                        attacks=SUPERVISED_ATTACKS, delta=delta,
                                        fpr_targets=fprs)}
        if s.defence == "dp_sgd":
            row["dp"] = {"accountant_epsilon": model.details["defence"]["epsilon"]}
        rows.append(_summary(row))
    return rows, {"train_s": train_s, "dp_train_s": dp_s, "members": int(members.size),
                  "delta": delta}


def _run_variant(variant: str, source: str, epochs: int, seed: int, threads: int) -> dict:
    import torch

    torch.set_num_threads(threads)
    config = _config(source, epochs, seed)
    # Imports outside the timing (Opacus, the attacks); the data are loaded inside, by both.
    import opacus  # noqa: F401

    import engine.defences  # noqa: F401
    from engine.defences.tradeoff import measure  # noqa: F401
    from engine.games.model import load_training_data

    warm = load_training_data(config)
    base_mb = _rss_mb()
    del warm
    t0, c0 = time.perf_counter(), time.process_time()
    rows, info = (_ours if variant == "ours" else _reference)(config)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"variant": variant, "wall_s": wall, "cpu_s": cpu, "peak_mb": peak_mb,
            "added_mb": max(0.0, peak_mb - base_mb), "rows": rows, **info}


def _in_subprocess(variant: str, source: str, epochs: int, seed: int, threads: int) -> dict:
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-m", "bench.bench_defences", "--variant", variant,
                          "--source", source, "--epochs", str(epochs), "--seed", str(seed),
                          "--threads", str(threads)], cwd=root, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _option(argv: list[str], name: str, default):
    if name in argv:
        return type(default)(argv[argv.index(name) + 1])
    return default


def _bench(source: str, epochs: int, seed: int, threads: int, repeats: int) -> float:
    from bench.timing import report

    best: dict[str, dict] = {}
    for _ in range(repeats):
        for v in VARIANTS:
            r = _in_subprocess(v, source, epochs, seed, threads)
            if v not in best:
                best[v] = r
            else:
                for key in ("wall_s", "cpu_s", "train_s", "dp_train_s"):
                    best[v][key] = min(best[v][key], r[key])
                best[v]["peak_mb"] = max(best[v]["peak_mb"], r["peak_mb"])
                best[v]["added_mb"] = max(best[v]["added_mb"], r["added_mb"])
    ours, ref = best["ours"], best["reference"]
    what = ("bundled purchase_sample.csv (2,000 records)" if source == "sample" else
            f"synthetic purchase data ({int(source):,} records)")
    n = len(ours["rows"])
    print(f"defence sweep on {what}: {n} settings (none, KCD 5 α, DMP 3 T, L2 3 λ, DP-SGD 3 σ), "
          f"each attacked (8 supervised attacks, paper 004 §4.3); {ours['members']} members, "
          f"δ = {ours['delta']:g}; MLP 600-128-100, {epochs} epochs, seed {seed}, "
          f"{threads} torch thread(s), best of {repeats}", flush=True)
    for r in (ours, ref):
        print(f"  {r['variant']:<9} {r['wall_s']:7.1f} s wall ({r['cpu_s']:6.1f} s CPU): "
              f"training {r['train_s']:6.1f} s, of which DP-SGD {r['dp_train_s']:5.1f} s; "
              f"peak RSS {r['peak_mb']:.0f} MB (+{r['added_mb']:.0f} MB after imports and data)",
              flush=True)
    d_acc = max(abs(a["test_accuracy"] - b["test_accuracy"])
                for a, b in zip(ours["rows"], ref["rows"], strict=True))
    d_auc = max(abs(a["auc"] - b["auc"]) for a, b in zip(ours["rows"], ref["rows"], strict=True))
    print(f"  same models: largest difference ours - reference: test accuracy {d_acc:.4f}, "
          f"strongest-attack AUC {d_auc:.4f}", flush=True)
    print(f"  {'setting':<22} {'test acc':>8} {'train':>6} {'AUC':>6} {'bal.acc':>7} "
          f"{'TPR@1%':>6} {'ε LB':>5} {'ε acct':>7}  strongest (bal. acc.)", flush=True)
    for r in ours["rows"]:
        acct = f"{r['accountant_epsilon']:7.2f}" if "accountant_epsilon" in r else " " * 7
        print(f"  {r['label']:<22} {r['test_accuracy']:8.3f} {r['train_accuracy']:6.3f} "
              f"{r['auc']:6.3f} {r['balanced_accuracy']:7.3f} {r['tpr_at_1pct']:6.3f} "
              f"{r['epsilon_lower_bound']:5.2f} {acct}  {r['balanced_accuracy_attack']}",
              flush=True)
    print(f"  recommend(TPR ≤ 2 % at 1 % FPR): {ours['recommendation']}", flush=True)
    tag = "sample" if source == "sample" else f"{int(source)} records"
    report(f"defence sweep ({tag}), whole job: tradeoff() vs single settings one by one (wall)",
           ours["wall_s"], ref["wall_s"])
    report(f"defence sweep ({tag}), whole job (CPU time)", ours["cpu_s"], ref["cpu_s"])
    report(f"defence sweep ({tag}), training only (wall)", ours["train_s"], ref["train_s"])
    report(f"defence sweep ({tag}), training without DP-SGD (wall)",
           ours["train_s"] - ours["dp_train_s"], ref["train_s"] - ref["dp_train_s"])
    return ours["wall_s"]


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    epochs = _option(argv, "--epochs", 10 if quick else 30)
    seed = _option(argv, "--seed", SEED)
    threads = _option(argv, "--threads", 1)
    repeats = _option(argv, "--repeats", 1)
    variant = _option(argv, "--variant", "")
    if variant:
        source = _option(argv, "--source", "sample")
        print(json.dumps(_run_variant(variant, source, epochs, seed, threads)), flush=True)
        return
    records = _option(argv, "--records", 0)
    sources = [str(records)] if records else (["sample"] if quick else ["sample", "4000"])
    t0 = time.perf_counter()
    ours = [_bench(s, epochs, seed, threads, repeats) for s in sources]
    print(f"defence sweep: ours {', '.join(f'{t:.0f} s' for t in ours)} "
          f"(goal: under 15 minutes); bench total {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
