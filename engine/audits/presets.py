"""How thorough an audit is: *Quick look*, *Standard*, *Thorough* — or *Custom* (issue 20).

A privacy officer picks a depth, not "DeSIA vs CIP-init": each preset is a small set of config
values (which attacks run, how many simulated releases, shadow datasets or reference models)
applied on top of whatever else the config says — the data, the release, the policy and the seed
are never touched. *Standard* is each audit's own defaults (the attacks an expert reviewer would
expect), so it is derived from the config class, not written twice. A config whose depth values
match no preset is *Custom*: the page then shows today's full list of attacks.

The presets are plain data so the GUI, the command line and the tests read the same table; the
time each takes is the engine's estimate of the config it gives (:mod:`engine.estimates`), never
a number written here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType

from engine.audits import aggregates, location, mechanism, model

QUICK, STANDARD, THOROUGH, CUSTOM = "quick", "standard", "thorough", "custom"
TITLES = {QUICK: "Quick look", STANDARD: "Standard", THOROUGH: "Thorough", CUSTOM: "Custom"}


@dataclass(frozen=True)
class Preset:
    """One depth of one audit type: its key, its title, one plain sentence saying what it runs,
    and the config values it sets (every preset of a type sets the same keys)."""

    key: str
    title: str
    sentence: str
    settings: Mapping[str, object]


def _defaults(config_cls, keys: tuple[str, ...]) -> dict[str, object]:
    """The config class's own default for each key, as its ``to_dict`` writes it."""
    plain = config_cls().to_dict()
    return {key: plain[key] for key in keys}


def _table(config_cls, quick: tuple[str, dict], standard: str, thorough: tuple[str, dict]
           ) -> tuple[Preset, ...]:
    keys = tuple(quick[1])
    assert set(keys) == set(thorough[1]) <= {f.name for f in fields(config_cls)}, keys
    return (Preset(QUICK, TITLES[QUICK], quick[0], MappingProxyType(dict(quick[1]))),
            Preset(STANDARD, TITLES[STANDARD], standard,
                   MappingProxyType(_defaults(config_cls, keys))),
            Preset(THOROUGH, TITLES[THOROUGH], thorough[0], MappingProxyType(dict(thorough[1]))))


PRESETS: dict[str, tuple[Preset, ...]] = {
    "mechanism": _table(
        mechanism.MechanismConfig,
        ("Plays 5,000 rounds of the membership game per side: enough for the overall picture; "
         "the smallest false-positive rates are measured loosely.",
         {"trials": 5_000}),
        "Plays 20,000 rounds per side: the usual precision.",
        ("Plays 200,000 rounds per side: tight intervals, and the measured lower bound on ε "
         "can reach larger values.",
         {"trials": 200_000})),
    "location": _table(
        location.LocationConfig,
        ("The two fastest attackers — one counting rule and the exact best attacker — on "
         "fewer simulated releases; no chart of how exposure grows with a person's visits.",
         {"attacks": ["one_threshold", "likelihood_ratio"], "shadow_aggregates": 1_000,
          "test_aggregates": 5_000, "repetitions": 1, "sweep_targets": 0}),
        "The attackers an expert would try, each measured on enough releases for tight "
        "intervals, with the chart of how exposure grows with a person's visits.",
        ("Every attacker, more simulated releases, and the people split five times over to "
         "show how much the result depends on which people the attacker happened to know.",
         {"attacks": list(location.ATTACKS), "shadow_aggregates": 5_000,
          "test_aggregates": 50_000, "repetitions": 5, "sweep_targets": 10})),
    "aggregates": _table(
        aggregates.AggregatesConfig,
        ("The strongest attacker and two simpler ones on 30 people, fewer simulated tables, "
         "and no test of whether a person is in the data at all.",
         {"attacks": ["desia", "cip_rand", "data_only"], "membership": False,
          "mia_attacks": list(aggregates.DEFAULT_MIA_ATTACKS), "n_shadow": 2_000,
          "max_targets": 30, "reconstructions": 5}),
        f"The attackers an expert would try, on {aggregates.AggregatesConfig().max_targets} "
        "people, and whether a person is in the data at all.",
        ("Every attacker and every variant, on 100 people, with all the tests of whether a "
         "person is in the data: the slowest attackers rebuild each table many times, so "
         "this can take hours.",
         {"attacks": list(aggregates.ATTACKS), "membership": True,
          "mia_attacks": list(aggregates.MIA_ATTACKS), "n_shadow": 20_000,
          "max_targets": 100, "reconstructions": 10})),
    "model": _table(
        model.ModelConfig,
        ("Four fast attackers and one that trains four copies of your model: a first look in "
         "minutes. Defences ticked on the Defences step still run in full.",
         {"attacks": ["btta", "confidence", "modified_entropy", "lira_offline"],
          "shadow_models": 2, "reference_models": 4}),
        f"The attackers an expert would try, with {model.ModelConfig().reference_models} "
        "copies of your model for the strongest.",
        ("Every attacker, with 64 copies of your model for the strongest: the most a "
         "well-funded attacker would do, and the longest run.",
         {"attacks": list(model.ATTACKS), "shadow_models": 16, "reference_models": 64})),
}


def presets(audit_type: str) -> tuple[Preset, ...]:
    """The presets of an audit type, quickest first (empty for a type without any)."""
    return PRESETS.get(audit_type, ())


def apply_preset(config: dict, preset: Preset) -> dict:
    """``config`` (a config dict, maybe half-typed) with the preset's values set; every other
    key — data, release, policy, seed — is left exactly as it was."""
    return {**config, **{key: _copy(value) for key, value in preset.settings.items()}}


def matching_preset(audit_type: str, config: Mapping) -> str:
    """The key of the preset whose every value ``config`` holds, else :data:`CUSTOM`.

    Attack lists match as sets (the order the boxes were ticked in does not matter); a key the
    config lacks counts as the config class's default, as the engine reads it.
    """
    table = presets(audit_type)
    if not table:
        return CUSTOM
    standard = next(p for p in table if p.key == STANDARD).settings
    for preset in table:
        if all(_same(config.get(key, standard[key]), value)
               for key, value in preset.settings.items()):
            return preset.key
    return CUSTOM


def _same(have, want) -> bool:
    if isinstance(want, (list, tuple)):
        return isinstance(have, (list, tuple)) and set(map(str, have)) == set(map(str, want))
    if isinstance(want, bool) or isinstance(have, bool):
        return have is want
    if isinstance(want, (int, float)):
        try:
            return float(have) == float(want)
        except (TypeError, ValueError):
            return False
    return have == want


def _copy(value):
    return list(value) if isinstance(value, (list, tuple)) else value
