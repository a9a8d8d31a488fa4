"""Our model attacks against IBM ART's on identical model outputs (issue 8: "the metric-attack +
Shokri pipeline against IBM ART's equivalent ... time and AUC side by side").

One audited model and its shadow models are trained once, with the audit's own pipeline
(``engine.audits.model.train_and_query``): purchase-style records (600 binary features, 100
classes, ``engine.data.purchase.generate_purchase``), the attacker holding half of them, the
audited MLP (600-128-100, ReLU, Adam, batch 128, 10 epochs) trained on half of the rest, shadow
models of the same recipe on random halves of the attacker's records — so each shadow model
trains on as many records as the audited one (the audit's default ``attacker_fraction`` of 0.4
gives its shadow models two thirds of the target's training size). Every attack below — ours and ART's — then
reads the SAME probability vectors: ART gets them as ``pred=`` / ``test_pred=`` arrays
(``MembershipInferenceBlackBox.fit/infer``) or through a ``BlackBoxClassifier`` whose predict
function looks the vectors up by record number (``MembershipInferenceBlackBoxRuleBased``).
Attack models learn from the shadow outputs only and are measured on the audited outputs.

Matched pairs (ART 1.20.1, ``art.attacks.inference.membership_inference``):

* label-only gap (Yeom et al.; = our correctness metric) — ``MembershipInferenceBlackBoxRuleBased``
  (``LabelOnlyGapAttack`` is the same class);
* Shokri et al. (one attack MLP per class, on the probability vector) — ``MembershipInference
  BlackBox`` with the true labels (one attack model on the vector and the one-hot label),
  ``attack_model_type`` ``nn`` (ART's default network, 100 epochs), ``rf``, and with ``--full``
  also ``gb``;
* ML-Leaks adversary 1 (one label-agnostic model on the sorted top-3 posteriors) —
  ``MembershipInferenceBlackBox`` without labels (one model on the whole, unsorted vector):
  ``nn`` against our MLP, ``lr`` against our logistic regression;
* shadow-model training — ``ShadowModels`` with a ``PyTorchClassifier`` of the same network,
  optimiser, batch size and epochs, against ``engine.models.train_many_mlps`` (time and the
  shadow models' held-out accuracy; ART's shadow outputs are its own, so no AUC here).

Not matched: the class-dependent threshold attacks of Song & Mittal (confidence, entropy,
modified entropy) and Salem et al.'s top-1 threshold have no ART counterpart (ART's
black-box attack with ``input_type="loss"`` needs ``compute_loss_from_predictions``, which
``BlackBoxClassifier`` does not implement); they are listed with our numbers only.

AUC is the Mann–Whitney statistic with a DeLong 95 % interval (``engine.metrics``), on every
audited record, for both libraries; "bal. acc." is balanced accuracy at each attack's own
decision rule (ours: its threshold from shadow data; ART: ``infer`` without probabilities,
i.e. P(member) rounded). Times are fit + score of each attack, best of 3 for the cheap ones,
one run for those that take seconds. Everything runs on ONE torch thread (ours pins it; ART
under torch's default of 2 threads was 13x slower on this shared 2-core machine) and
scikit-learn's default single job; seeds are fixed (torch and numpy's global generators for
ART, which draws from them).

``python -m bench.bench_art_comparison`` (4,000 records, 3 shadow models: about 60 s of CPU
time, 80 % of it in ART's two nn attack models); ``--quick`` (ART's nn attack models trained 10
epochs instead of its default 100 — said in the output; about 30 s); ``--full`` (8,000 records,
6 shadow models, also ``gb``: several minutes). Skipped with one line when ART is not installed (``make bench`` installs
it; the engine never imports it).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make ``bench`` importable like ``-m bench``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import report  # noqa: E402

SEED = 7
# The attacker holds half of the records, so each shadow model trains on as many records as the
# audited model (a quarter of them each), as Shokri et al.'s shadow models do.
ATTACKER_FRACTION = 0.5
SIZES = {
    "default": {"records": 4000, "epochs": 10, "shadow_models": 3, "art_nn_epochs": 100,
                "gb": False},
    "quick": {"records": 4000, "epochs": 10, "shadow_models": 3, "art_nn_epochs": 10,
              "gb": False},
    "full": {"records": 8000, "epochs": 10, "shadow_models": 6, "art_nn_epochs": 100,
             "gb": True},
}
NOT_IN_ART = ("no ART equivalent: ART 1.20 has no threshold (metric) attacks, and its "
              "loss-input black-box attack needs compute_loss_from_predictions, which "
              "BlackBoxClassifier lacks")


def _timed(fn, repeats: int = 1):
    """(best seconds over ``repeats`` calls, the last call's result)."""
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _auc(scores, member) -> tuple[float, float, float]:
    from engine.metrics import delong_auc_ci

    auc, (lo, hi) = delong_auc_ci(np.asarray(scores, dtype=float).ravel(), member)
    return auc, lo, hi


def _balanced_accuracy(decisions, member) -> float:
    d = np.asarray(decisions, dtype=bool).ravel()
    m = np.asarray(member, dtype=bool)
    return 0.5 * (d[m].mean() + (1.0 - d[~m].mean()))


def _outputs(size: dict):
    """The audit's pipeline, once: (target, shadow, config, model info)."""
    from engine.audits.model import ModelConfig, train_and_query
    from engine.runtime import NEVER, NO_PROGRESS

    config = ModelConfig(synthetic="purchase", synthetic_records=size["records"],
                         epochs=size["epochs"], shadow_models=size["shadow_models"],
                         attacker_fraction=ATTACKER_FRACTION, train_fraction=0.5,
                         attacks=("confidence",), seed=SEED)     # no reference models needed
    out = train_and_query(config, progress=NO_PROGRESS, cancel=NEVER)
    return out.target, out.shadow, config, out.model


# --------------------------------------------------------------------------- the cases

def _ours(target, shadow):
    """name → (label, callable returning (scores, decisions))."""
    from engine.attacks.model import label_only, metric, ml_leaks
    from engine.attacks.model import shadow as shokri

    def wrap(fn):
        def run():
            o = fn()
            return o.scores, o.decisions
        return run

    cases = {
        "label_only_gap": ("label-only gap (= correctness)",
                           wrap(lambda: label_only.attack(target))),
        "shokri": ("Shokri per-class MLPs", wrap(lambda: shokri.attack(target, shadow,
                                                                       seed=SEED))),
        "ml_leaks": ("ML-Leaks MLP, top-3 sorted",
                     wrap(lambda: ml_leaks.attack(target, shadow, seed=SEED))),
        "ml_leaks_logistic": ("ML-Leaks logistic, top-3 sorted",
                              wrap(lambda: ml_leaks.attack(target, shadow, seed=SEED,
                                                           classifier="logistic"))),
    }
    for m in ("confidence", "entropy", "modified_entropy", "top1"):
        kind = "class thresholds" if metric.CLASS_DEPENDENT[m] else "global threshold"
        cases[f"metric_{m}"] = (f"{m.replace('_', ' ')} ({kind})",
                                wrap(lambda m=m: metric.run(target, shadow, metrics=(m,))[0]))
    return cases


def _art_black_box(target, shadow, kind: str, with_labels: bool, nn_epochs: int):
    """ART's learned black-box attack on the shadow vectors; scores on the target's."""
    import torch
    from art.attacks.inference.membership_inference import MembershipInferenceBlackBox
    from art.estimators.classification import BlackBoxClassifier

    def run():
        np.random.seed(SEED)                 # sklearn attack models (random_state=None)
        torch.manual_seed(SEED)              # ART's nn: initialisation and shuffling
        # pred= arrays are given, so the estimator only supplies nb_classes.
        est = BlackBoxClassifier(lambda x: np.zeros((len(x), target.n_classes)), (1,),
                                 target.n_classes)
        attack = MembershipInferenceBlackBox(est, attack_model_type=kind,
                                             nn_model_epochs=nn_epochs)
        m = shadow.member
        if with_labels:
            attack.fit(y=shadow.labels[m], test_y=shadow.labels[~m], pred=shadow.probs[m],
                       test_pred=shadow.probs[~m])
            p = attack.infer(None, target.labels, pred=target.probs, probabilities=True)
        else:
            attack.fit(pred=shadow.probs[m], test_pred=shadow.probs[~m])
            p = attack.infer(None, None, pred=target.probs, probabilities=True)
        p = np.asarray(p, dtype=float).ravel()
        return p, np.round(p) == 1           # ART's own decision: infer() rounds P(member)
    return run


def _art_rule_based(target):
    from art.attacks.inference.membership_inference import MembershipInferenceBlackBoxRuleBased
    from art.estimators.classification import BlackBoxClassifier

    table = target.probs.astype(np.float32)
    rows = np.arange(target.n, dtype=np.float32)[:, None]     # "records" = their row numbers

    def run():
        est = BlackBoxClassifier(lambda x: table[x[:, 0].astype(np.int64)], (1,),
                                 target.n_classes)
        attack = MembershipInferenceBlackBoxRuleBased(est)
        d = attack.infer(rows, target.labels)
        return d.astype(float), d == 1
    return run


def _shadow_training(config, size):
    """(ours seconds, ART seconds, our held-out acc, ART held-out acc, rows per model)."""
    import torch
    from art.attacks.inference.membership_inference import ShadowModels
    from art.estimators.classification import PyTorchClassifier

    from engine.data.purchase import generate_purchase
    from engine.games.model import split_records
    from engine.models import TrainingSpec, reference_tasks, train_many_mlps

    data = generate_purchase(config.seed, config.synthetic_records)
    population, _, _ = split_records(config, data.n_records, None)
    X, y, k = data.X[population], data.y[population], data.n_classes
    s = size["shadow_models"]

    def ours():
        tasks = reference_tasks(s, SEED, X.shape[0], design="fixed_size")
        spec = TrainingSpec(epochs=size["epochs"], batch_size=128, seed=SEED)
        many = train_many_mlps(spec, X, y, k, tasks, device="cpu")
        probs = many.predict_proba(X)
        masks = np.array([t.mask(X.shape[0]) for t in tasks])
        return float(np.mean([(probs[r, ~masks[r]].argmax(1) == y[~masks[r]]).mean()
                              for r in range(s)]))

    def art():
        torch.manual_seed(SEED)
        net = torch.nn.Sequential(torch.nn.Linear(X.shape[1], 128), torch.nn.ReLU(),
                                  torch.nn.Linear(128, k))
        template = PyTorchClassifier(net, torch.nn.CrossEntropyLoss(), (X.shape[1],), k,
                                     optimizer=torch.optim.Adam(net.parameters(), lr=1e-3),
                                     device_type="cpu")
        sm = ShadowModels(template, num_shadow_models=s, random_state=SEED)
        # ShadowModels fits each clone with PyTorchClassifier.fit's defaults: batch 128,
        # 10 epochs — the same as ours (size["epochs"] = 10).
        _, (_, y_out, p_out) = sm.generate_shadow_dataset(X, y, member_ratio=0.5)
        return float((np.asarray(p_out).argmax(1) == y_out).mean())

    t_ours, acc_ours = _timed(ours)
    t_art, acc_art = _timed(art)
    return t_ours, t_art, acc_ours, acc_art, X.shape[0] // 2


# --------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    try:
        import art
        from art.attacks.inference import membership_inference  # noqa: F401
    except ImportError:
        print("bench_art_comparison: skipped — IBM ART is not installed (it is the dev-only "
              "'bench' extra: make bench, or pip install -e '.[bench]')", flush=True)
        return
    from engine.runtime import torch_threads

    mode = "full" if "--full" in argv else "quick" if "--quick" in argv else "default"
    size = SIZES[mode]
    from sklearn.exceptions import ConvergenceWarning

    warnings.filterwarnings("ignore", module="art")
    warnings.filterwarnings("ignore", category=ConvergenceWarning)   # ART's lr: max_iter 100
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with torch_threads(1):
        _main(size, art.__version__, mode)
    print(f"bench_art_comparison ({mode}): {time.perf_counter() - wall0:.0f} s wall, "
          f"{time.process_time() - cpu0:.0f} s CPU in all", flush=True)


def _main(size: dict, art_version: str, mode: str) -> None:
    t0 = time.perf_counter()
    target, shadow, config, model = _outputs(size)
    member = target.member
    nn_note = ("" if size["art_nn_epochs"] == 100
               else f", ART nn attack models {size['art_nn_epochs']} epochs (its default: 100)")
    print(f"ART {art_version} vs ours on identical outputs: purchase-style "
          f"{size['records']:,} records × 600 features, 100 classes (seed {SEED}); target "
          f"MLP 600-128-100, {size['epochs']} epochs, train/test accuracy "
          f"{model['train_accuracy']:.3f}/{model['test_accuracy']:.3f}; "
          f"{size['shadow_models']} shadow models → {shadow.n:,} shadow vectors; "
          f"{target.n:,} audited records ({int(member.sum()):,} members); 1 torch thread"
          f"{nn_note}; outputs made in {time.perf_counter() - t0:.1f} s", flush=True)

    ours = _ours(target, shadow)
    nn_epochs = size["art_nn_epochs"]
    art_nn = f"nn {nn_epochs} ep" if nn_epochs != 100 else "nn"
    pairs = [
        ("label_only_gap", "BlackBoxRuleBased (= LabelOnlyGapAttack)",
         _art_rule_based(target), 3),
        ("shokri", f"BlackBox {art_nn} + label", _art_black_box(target, shadow, "nn", True,
                                                                  nn_epochs), 1),
        ("shokri", "BlackBox rf + label", _art_black_box(target, shadow, "rf", True,
                                                         nn_epochs), 1),
    ]
    if size["gb"]:
        pairs.append(("shokri", "BlackBox gb + label",
                      _art_black_box(target, shadow, "gb", True, nn_epochs), 1))
    pairs += [
        ("ml_leaks", f"BlackBox {art_nn}, no label", _art_black_box(target, shadow, "nn",
                                                                      False, nn_epochs), 1),
        ("ml_leaks_logistic", "BlackBox lr, no label",
         _art_black_box(target, shadow, "lr", False, nn_epochs), 3),
    ]

    rows, done, notes = [], {}, []
    for key, art_name, art_fn, repeats in pairs:
        label, fn = ours[key]
        if key not in done:
            done[key] = _timed(fn, 3 if key != "shokri" else 1)
        t_ours, (s_ours, d_ours) = done[key]
        t_art, (s_art, d_art) = _timed(art_fn, repeats)
        a, b = _auc(s_ours, member), _auc(s_art, member)
        report(f"{label} vs ART {art_name} [AUC ours {a[0]:.3f} ({a[1]:.3f}-{a[2]:.3f}), "
               f"ART {b[0]:.3f} ({b[1]:.3f}-{b[2]:.3f})]", t_ours, t_art)
        rows.append((label, art_name, t_ours, t_art, a, b, _balanced_accuracy(d_ours, member),
                     _balanced_accuracy(d_art, member)))
        top = float(np.max(s_art))
        if key != "label_only_gap" and np.mean(s_art == top) > 0.5:
            notes.append(f"ART {art_name}: P(member) = {top:g} exactly for "
                         f"{np.mean(s_art == top):.1%} of the audited records (its attack model "
                         f"saturates), so its AUC is mostly that of tied scores")

    t_o, t_a, acc_o, acc_a, n_rows = _shadow_training(config, size)
    report(f"{size['shadow_models']} shadow MLPs (train_many_mlps) vs ART ShadowModels + "
           f"PyTorchClassifier [{n_rows:,} rows each, {size['epochs']} epochs; held-out "
           f"accuracy ours {acc_o:.3f}, ART {acc_a:.3f}]", t_o, t_a)

    unmatched = []
    for key in ("metric_confidence", "metric_entropy", "metric_modified_entropy",
                "metric_top1"):
        label, fn = ours[key]
        t, (s, d) = _timed(fn, 3)
        unmatched.append((label, t, _auc(s, member), _balanced_accuracy(d, member)))

    print(f"{'ours':<36} {'ART':<42} {'ours s':>8} {'ART s':>8} {'ratio':>6}  "
          f"{'AUC ours (95% CI)':<22} {'AUC ART (95% CI)':<22} bal.acc ours/ART", flush=True)
    for label, art_name, t_o, t_a, a, b, acc_o, acc_a in rows:
        print(f"{label:<36} {art_name:<42} {t_o:8.3f} {t_a:8.3f} {t_a / t_o:6.1f}  "
              f"{a[0]:.3f} ({a[1]:.3f}-{a[2]:.3f})    {b[0]:.3f} ({b[1]:.3f}-{b[2]:.3f})    "
              f"{acc_o:.3f}/{acc_a:.3f}", flush=True)
    for label, t, a, acc in unmatched:
        print(f"{label:<36} {'—':<42} {t:8.3f} {'—':>8} {'—':>6}  "
              f"{a[0]:.3f} ({a[1]:.3f}-{a[2]:.3f})    {'—':<22} {acc:.3f}/—", flush=True)
    for note in [NOT_IN_ART, *notes]:
        print(f"  — {note}", flush=True)


if __name__ == "__main__":
    main()
