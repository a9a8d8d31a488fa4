"""Membership and attribute inference attacks on machine-learning models (issue 8; papers 001
and 004 §4, plus LiRA and RMIA).

Every attack reads model *outputs* only (class probabilities, true labels), so models trained in
the app and "bring your own predictions" files are audited the same way, and returns a
:class:`~engine.attacks.model.base.AttackOutcome`: a score per record (higher = member) and the
threshold of its own rule, chosen on shadow/reference data or fixed by the rule, never on the
audited scores.

* :mod:`btta` — Bayesian Take-the-Typical (paper 001 Alg. 1), closed forms, Thm 2 bound;
* :mod:`cbtta` — its categorical version with PTL/PPL/PTC/PPC partitions (paper 001 §CBTTA);
* :mod:`metric` — correctness, confidence, entropy, modified entropy, top-1 (paper 004 §4.4.1);
* :mod:`ml_leaks` — ML-Leaks adversary 1; :mod:`shadow` — Shokri et al.'s per-class attack;
* :mod:`lira`, :mod:`rmia` — reference-model likelihood-ratio attacks;
* :mod:`label_only` — the gap attack and the generalization gap;
* :mod:`attribute` — attribute inference beside a data-only baseline.

The name → attack table the model game plays (engine.games.model.run_attacks) is
:data:`ATTACKS`: each entry takes the game's outputs (``target``, ``shadow``, ``references``),
the settings it reads (``seed``, ``cbtta_partition``), the device and the cancel token, and
returns its outcomes (one each; the metric attacks share one function, one metric each).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from engine.attacks.model import btta, cbtta, label_only, lira, metric, ml_leaks, rmia
from engine.attacks.model import shadow as shokri
from engine.attacks.outcome import AttackOutcome


def _btta(out, settings, *, device, cancel) -> list[AttackOutcome]:
    return [btta.attack(out.target, btta.params_from_outputs(out.shadow),
                        source="the attacker's shadow models")]


def _cbtta(out, settings, *, device, cancel) -> list[AttackOutcome]:
    return [cbtta.attack(out.target, cbtta.fit(out.shadow, settings.cbtta_partition))]


def _metric(name: str, out, settings, *, device, cancel) -> list[AttackOutcome]:
    return metric.run(out.target, out.shadow, metrics=(name,))


def _ml_leaks(out, settings, *, device, cancel) -> list[AttackOutcome]:
    return [ml_leaks.attack(out.target, out.shadow, seed=settings.seed, device=device,
                            cancel=cancel)]


def _shokri(out, settings, *, device, cancel) -> list[AttackOutcome]:
    return [shokri.attack(out.target, out.shadow, seed=settings.seed, device=device,
                          cancel=cancel)]


def _lira(online: bool, out, settings, *, device, cancel) -> list[AttackOutcome]:
    return [lira.attack(out.target, out.references, online=online)]


def _rmia(out, settings, *, device, cancel) -> list[AttackOutcome]:
    return [rmia.attack(out.target, out.references)]


def _label_only(out, settings, *, device, cancel) -> list[AttackOutcome]:
    return [label_only.attack(out.target)]


ATTACKS: dict[str, Callable[..., list[AttackOutcome]]] = {
    "btta": _btta,
    "cbtta": _cbtta,
    **{name: partial(_metric, name) for name in
       ("correctness", "confidence", "entropy", "modified_entropy", "top1")},
    "ml_leaks": _ml_leaks,
    "shokri": _shokri,
    "lira_online": partial(_lira, True),
    "lira_offline": partial(_lira, False),
    "rmia": _rmia,
    "label_only": _label_only,
}
