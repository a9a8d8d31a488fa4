"""Membership attacks on location aggregates (paper 000, and a likelihood-ratio attack beyond it).

Every attack reads the aggregates on a few cells only (engine.games.location) and returns an
:class:`~engine.attacks.location.base.AttackOutcome`: a score per test aggregate (higher =
"the target is in it") and the threshold its own rule chose on the attacker's shadow
aggregates, never on the test aggregates.

The name → attack table the location audit plays is :data:`ATTACKS`: each entry takes the
:class:`~engine.attacks.location.base.AttackData`, the settings it reads (the audit's config:
``measured_fpr_targets()``, ``per_cell_fpr``, ``threshold_rule``, ``reference_traces``,
``mechanism``, ``seed``), the larger shadow set when the audit drew one, the device, a
progress span and the cancel token, and returns its outcomes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from engine.attacks.location import (
    likelihood_ratio,
    meta_classifier,
    one_threshold,
    reference,
    two_threshold,
)
from engine.attacks.outcome import AttackOutcome


def _one_threshold(data, settings, *, large_shadow, device, progress,
                   cancel) -> list[AttackOutcome]:
    return [one_threshold.attack(data, settings.measured_fpr_targets())]


def _two_threshold(data, settings, *, large_shadow, device, progress,
                   cancel) -> list[AttackOutcome]:
    return [two_threshold.attack(data, settings.per_cell_fpr or None,
                                 rule=settings.threshold_rule)]


def _reference(data, settings, *, large_shadow, device, progress,
               cancel) -> list[AttackOutcome]:
    return [reference.attack(data, settings.reference_traces)]


def _likelihood_ratio(data, settings, *, large_shadow, device, progress,
                      cancel) -> list[AttackOutcome]:
    # Without noise (or without a known scale) the ratio is taken on exact counts.
    if settings.mechanism == "none" or data.scale is None:
        data = replace(data, mechanism="none")
    return [likelihood_ratio.attack(data, cancel=cancel)]


def _meta_classifier(name: str, architecture: str, data, settings, *, large_shadow, device,
                     progress, cancel) -> list[AttackOutcome]:
    """The meta-classifier on the shadow aggregates, and again on the larger shadow set
    (``{name}_large``) when the audit drew one."""
    shown = meta_classifier.ARCHITECTURES[architecture]
    outs = [meta_classifier.attack(
        data, architecture=architecture, seed=settings.seed, device=device, name=name,
        label=f"MLP meta-classifier, {shown}, {len(data.shadow.labels):,} shadows",
        progress=progress, cancel=cancel)]
    if large_shadow is not None:
        big = replace(data, shadow=large_shadow)
        outs.append(meta_classifier.attack(
            big, architecture=architecture, seed=settings.seed, device=device,
            name=f"{name}_large",
            label=f"MLP meta-classifier, {shown}, {len(big.shadow.labels):,} shadows",
            progress=progress, cancel=cancel))
    return outs


ATTACKS: dict[str, Callable[..., list[AttackOutcome]]] = {
    "one_threshold": _one_threshold,
    "two_threshold": _two_threshold,
    "meta_classifier": partial(_meta_classifier, "meta_classifier", "fig11b"),
    "meta_classifier_100": partial(_meta_classifier, "meta_classifier_100", "mlp100"),
    "reference": _reference,
    "likelihood_ratio": _likelihood_ratio,
}
