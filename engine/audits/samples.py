"""The bundled sample audits the app and the command line offer (issue 33 item 3, "A first run
in two minutes").

Every audit type has one quick sample: its registry entry's ``demo`` (engine.audits.registry),
written out as ``resources/configs/<type>_demo.toml`` for the app's form, and each finishes in
under two minutes on two quiet cores. A sample that takes longer is named here as an *extra*
sample, under its own name, and is offered beside the quick one with its estimated time (the
GUI's home page, ``python main.py --sample NAME``, ``python main.py demo NAME``): the model
audit's *thorough* sample, the whole defence sweep of issue 9 with reference models trained
under every setting (minutes, not seconds).

The names are the audit types' names and the extra samples' names; :func:`sample_config` turns
one into its Config, :func:`sample_dict` into the dict the app's form loads, both read from the
TOML file the user can open and copy.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.audits import model
from engine.audits.registry import AUDIT_TYPES, config_from_dict
from engine.data.errors import InputError, given_value
from engine.data.paths import APP_FOLDER

CONFIGS = APP_FOLDER / "resources" / "configs"


@dataclass(frozen=True)
class ExtraSample:
    """A sample beyond its audit type's quick one: its name (the command line's), its audit
    type, the words that offer it, the function that builds its config and its TOML file."""

    name: str
    audit_type: str
    title: str                  # the menu entry's words, before its estimated time
    description: str            # one sentence: what it runs, and why it takes longer
    config: Callable[[], Any]
    toml: str                   # file name under resources/configs

    @property
    def path(self) -> Path:
        return CONFIGS / self.toml


EXTRA_SAMPLES: dict[str, ExtraSample] = {sample.name: sample for sample in (
    ExtraSample(
        "model-thorough", "model", "Machine-learning model, thorough",
        "The model sample with every setting of each defence (14 settings), each also trained "
        "as 4 copies of the model under its defence for the strongest attacks.",
        model.thorough_config, "model_thorough.toml"),
)}


def sample_names() -> tuple[str, ...]:
    """Every sample's name: the audit types' quick samples first, then the extra ones."""
    return (*AUDIT_TYPES, *EXTRA_SAMPLES)


def audit_type_of(name: str) -> str:
    """The audit type a sample belongs to (InputError naming the samples for an unknown one)."""
    if name in AUDIT_TYPES:
        return name
    if name in EXTRA_SAMPLES:
        return EXTRA_SAMPLES[name].audit_type
    raise InputError(f"there is no sample audit called {given_value(name)}; choose one of "
                     f"{', '.join(sample_names())}.")


def sample_config(name: str):
    """The Config of the sample ``name``: an audit type's quick sample (its registry demo) or
    an extra sample read from its TOML file."""
    audit_type_of(name)
    if name in AUDIT_TYPES:
        return AUDIT_TYPES[name].demo()
    sample = EXTRA_SAMPLES[name]
    with open(sample.path, "rb") as fh:
        return config_from_dict(tomllib.load(fh), source=str(sample.path))


def sample_dict(name: str) -> dict:
    """An extra sample's config as the dict the app's form loads (validated)."""
    return sample_config(name).to_dict()
