"""MLP meta-classifier (paper 000 §2.3.3 and §4, Fig. 11(b); Pyrgelis et al.'s 100-node MLP).

The attacker trains a small network on its shadow aggregates (the read values of the target's
positive observations, labelled member / non-member) and scores each release with it. Paper
000 §4 shows why it is sub-optimal: with 2,000 shadows it learns the one-threshold rule (equal
first-layer weights, biases near 0; Fig. 12), and only with ~200,000 does it find the
two-threshold rule (a diagonal first layer whose biases have the opposite sign of the weights,
Thm 5; Fig. 15). :func:`weights_summary` measures exactly that, so a reviewer can see which
rule was learnt.

Architectures: ``"fig11b"`` — k inputs → k sigmoid units → 1 (the paper's Fig. 11(b));
``"mlp100"`` — k → 100 sigmoid units → 1 (the MLP of earlier work). Trained with Adam on the torch device
(engine.runtime.device()), seeded from the config, in mini-batches so the cancel button and the
progress bar respond.
"""

from __future__ import annotations

import math

import numpy as np

from engine.attacks.location.base import AttackData
from engine.attacks.outcome import AttackOutcome
from engine.runtime import (
    NEVER,
    NO_PROGRESS,
    CancelToken,
    Progress,
    torch_generator,
    torch_threads,
)

ARCHITECTURES = {"fig11b": "k → k sigmoid → 1 (paper 000 Fig. 11(b))",
                 "mlp100": "k → 100 sigmoid → 1 (earlier work)"}
MAX_STEPS = 40_000        # Adam steps at most; early stopping usually ends sooner
BATCH_SIZE = 512
LEARNING_RATE = 3e-3
PATIENCE = 10             # epochs without a better held-out loss before training stops


def _network(torch, k: int, architecture: str):
    hidden = k if architecture == "fig11b" else 100
    # Sigmoid hidden units: a smooth step, so one unit can hold one cell's threshold (Thm 5);
    # with ReLU hinges the network at 200,000 shadows stays well below the two-threshold rule.
    return torch.nn.Sequential(torch.nn.Linear(k, hidden), torch.nn.Sigmoid(),
                               torch.nn.Linear(hidden, 1))


def weights_summary(first_weight: np.ndarray, first_bias: np.ndarray) -> dict:
    """Which rule did the first layer learn? (paper 000 §4.2, Fig. 12/15)

    ``diagonal_dominance``: mean |w_jj| / mean |w_ij (i ≠ j)| for the square Fig. 11(b) layer
    (≫ 1: each unit watches one cell, the two-threshold rule; ≈ 1: every unit sums all cells,
    the one-threshold rule). ``opposite_sign_bias``: share of units whose bias has the opposite
    sign of their diagonal weight (a per-cell threshold, Thm 5).
    """
    w = np.asarray(first_weight, dtype=float)
    b = np.asarray(first_bias, dtype=float)
    out = {"shape": list(w.shape)}
    if w.shape[0] == w.shape[1]:
        diag = np.abs(np.diag(w))
        off = np.abs(w[~np.eye(w.shape[0], dtype=bool)])
        out["diagonal_dominance"] = float(diag.mean() / max(off.mean(), 1e-12))
        out["opposite_sign_bias"] = float(np.mean(np.sign(np.diag(w)) * np.sign(b) < 0))
    out["mean_abs_weight"] = float(np.abs(w).mean())
    out["mean_bias"] = float(b.mean())
    return out


def attack(data: AttackData, *, architecture: str = "fig11b", seed: int = 0,
           device: str = "cpu", name: str | None = None, label: str | None = None,
           progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> AttackOutcome:
    import torch

    k = data.k
    xs = data.shadow.x[:, :k].astype(np.float32)
    mean, std = xs.mean(axis=0), xs.std(axis=0) + 1e-6     # standardise with shadow data only
    dev = torch.device(device)
    gen = torch_generator(seed, "meta-classifier", architecture, len(xs))
    # Seed the initial weights without touching torch's global stream (restored on exit).
    with torch.random.fork_rng(devices=[dev] if dev.type == "cuda" else []):
        torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        net = _network(torch, k, architecture).to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=LEARNING_RATE)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    # A tenth of the shadows is held out: training stops at the epoch of lowest held-out loss
    # (patience PATIENCE epochs), as any careful attacker would, so the network is not judged
    # by how well it memorised 2,000 examples.
    order0 = torch.randperm(len(xs), generator=gen).numpy()
    n_val = max(1, len(xs) // 10)
    val_idx, fit_idx = order0[:n_val], order0[n_val:]
    x_all = torch.from_numpy((xs - mean) / std).to(dev)
    y_all = torch.from_numpy(data.shadow.labels.astype(np.float32)).to(dev)
    x_t, y_t = x_all[fit_idx], y_all[fit_idx]
    x_v, y_v = x_all[val_idx], y_all[val_idx]
    n = len(fit_idx)
    batch = min(BATCH_SIZE, n)
    steps_per_epoch = math.ceil(n / batch)
    epochs = max(1, math.ceil(MAX_STEPS / steps_per_epoch))
    with torch_threads(1 if dev.type == "cpu" else None):
        best_loss, best_state, step = _train(net, opt, loss_fn, x_t, y_t, x_v, y_v, n, batch,
                                             epochs, gen, dev, progress, cancel)
    if best_state is not None:
        net.load_state_dict(best_state)
    net.eval()
    with torch.no_grad():
        scores = []
        xt = (data.test.x[:, :k].astype(np.float32) - mean) / std
        for start in range(0, len(xt), 65536):
            cancel.check()
            scores.append(net(torch.from_numpy(xt[start: start + 65536]).to(dev))
                          .squeeze(1).cpu().numpy())
        first = net[0]
        summary = weights_summary(first.weight.detach().cpu().numpy(),
                                  first.bias.detach().cpu().numpy())
        first_weight = first.weight.detach().cpu().numpy()
    details = {
        "statistic": f"MLP {ARCHITECTURES[architecture]} on the target's positive observations",
        "paper": "000 §2.3.3, §4 (Fig. 11(b))",
        "architecture": architecture,
        "shadow_aggregates": int(len(xs)),
        "training_steps": int(step),
        "held_out_loss": float(best_loss),
        "device": str(dev),
        "first_layer": summary,
    }
    if architecture == "fig11b" and k <= 128:
        details["first_layer_weights"] = np.round(first_weight, 4).tolist()
        details["first_layer_orientation"] = "rows = hidden units, columns = input cells"
    return AttackOutcome(name or f"meta_classifier_{architecture}",
                         label or f"MLP meta-classifier, {ARCHITECTURES[architecture]}",
                         np.concatenate(scores).astype(np.float64), 0.0, details)


def _train(net, opt, loss_fn, x_t, y_t, x_v, y_v, n, batch, epochs, gen, dev, progress,
           cancel):
    """Mini-batch Adam with held-out early stopping; returns (best loss, best state, steps)."""
    import torch

    best_loss, best_state, stale, step = math.inf, None, 0, 0
    for epoch in range(epochs):
        cancel.check()
        net.train()
        order = torch.randperm(n, generator=gen).to(dev)
        for start in range(0, n, batch):
            cancel.check()                  # an epoch of 200,000 shadows takes seconds
            idx = order[start: start + batch]
            opt.zero_grad()
            loss = loss_fn(net(x_t[idx]).squeeze(1), y_t[idx])
            loss.backward()
            opt.step()
            step += 1
        net.eval()
        with torch.no_grad():
            val_loss = float(loss_fn(net(x_v).squeeze(1), y_v))
        if val_loss < best_loss - 1e-5:
            best_loss, stale = val_loss, 0
            best_state = {key: v.detach().clone() for key, v in net.state_dict().items()}
        else:
            stale += 1
        progress((epoch + 1) / epochs, f"Training the detector: epoch {epoch + 1} of "
                                       f"{epochs}")
        if stale >= PATIENCE:
            break
    return best_loss, best_state, step
