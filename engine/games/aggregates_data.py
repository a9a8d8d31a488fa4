"""The count-table game's records (paper 003 §5; moved out of engine/games/aggregates.py, issue
33 item 2): the settings the game reads (:class:`AggregatesGameSettings`, a Protocol the
audit's AggregatesConfig satisfies), the protected records and the attacker's auxiliary sample
(a file, the synthetic census block, or resampled from the protected records).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.aggregates.queries import Domain
from engine.aggregates.release import ReleaseSpec
from engine.compute import ComputeSettings
from engine.data.census import generate_census_blocks
from engine.data.column_roles import read_table_text, schema_without_config
from engine.data.errors import InputError
from engine.data.microdata import (
    Microdata,
    Schema,
    infer_schema_from_csvs,
    load_microdata_csv,
)
from engine.data.paths import resolve_path
from engine.policy import VerdictPolicy
from engine.results.result import input_entry
from engine.runtime import rng

# What runs as a unit of engine.compute here (issue 22 item 6; docs/methods/scale.md): each
# target's deterministic proofs (:func:`prove_target`, :func:`prove_membership`), its
# stochastic module — every seeded chunk of its shadow datasets and its classifier
# (:func:`stochastic_target`) — and its reconstructions (:func:`reconstruct_target`; on a GPU
# up to 64 targets' RAP reconstructions train as one unit, :func:`reconstruct_targets`), in
# both games and in the combination's shadow game; the count-tables audit's sweep points are
# units of engine.audits.aggregates.



class AggregatesGameSettings(Protocol):
    """What the game reads from its settings (engine.audits.aggregates.AggregatesConfig has
    all of it; the field comments there are the meanings)."""

    data: str
    auxiliary: str
    schema: dict
    sensitive: str
    census_records: int
    census_auxiliary: int
    release: str
    release_options: dict
    published_records: int
    attacks: tuple[str, ...]
    mia_attacks: tuple[str, ...]
    model: str
    n_shadow: int
    reconstructions: int
    solver_time_limit: float
    max_targets: int
    list_exposed_records: bool
    confidence: float
    fpr_targets: tuple[float, ...]
    seed: int
    # Read by the run's other parts (engine.games.aggregates_parts, _theory, _summary).
    name: str
    fraction: float
    mechanism: str
    epsilon: float
    delta: float
    budget: str
    membership: bool
    sweep_fractions: tuple[float, ...]
    sweep_epsilons: tuple[float, ...]
    sweep_attacks: tuple[str, ...]
    sweep_targets: int
    policy: VerdictPolicy
    compute: ComputeSettings
    rules: dict                       # the disclosure rules' [rules] table (engine.rules)

    def release_spec(self) -> ReleaseSpec: ...


AUXILIARY_RATIO = 9      # paper 003 §5: D_aux is 9× the protected dataset (90 % / 10 %)


def domain_and_codes(microdata, columns):
    """(Domain, codes): the columns' categories and the records coded in that order."""
    idx = [microdata.schema.index(c) for c in columns]
    labels = tuple(tuple(microdata.schema.column(c).labels()) for c in columns)
    return Domain(columns=tuple(columns), labels=labels), np.ascontiguousarray(
        microdata.codes[:, idx]).astype(np.int32)


@dataclass(frozen=True)
class AuditData:
    """The records one audit runs on.

    ``protected``: D (for a published table: a stand-in of |D| records drawn from the
    attacker's sample, used to simulate the game); ``auxiliary``: D_aux, or None when it is
    resampled from the protected records once the targets are known (see
    :func:`resampled_auxiliary`); ``auxiliary_source``: "file", "synthetic",
    "protected_records" or "published_sample"; ``inputs``: the files read, with hashes."""

    protected: object
    auxiliary: object | None
    auxiliary_source: str
    inputs: list


def _with_sensitive(microdata, sensitive: str, source: str):
    schema = microdata.schema
    if sensitive:
        if sensitive not in schema.names:
            raise InputError(f"{source}: there is no column '{sensitive}' to infer; columns: "
                             f"{', '.join(schema.names)} — choose one of them as the "
                             "sensitive attribute.", source=source, key="sensitive")
        schema = schema.with_roles(sensitive=sensitive)
    try:
        schema.validate_for_audit()
    except InputError as exc:
        raise InputError(f"{source}: {exc}", source=source, key=exc.key) from None
    return Microdata(schema, microdata.codes, microdata.source, microdata.open_labels,
                     microdata.missing_values)


def _proposed_schema(path, apath, config) -> tuple[Schema, str]:
    """A config without a [schema] (the command line): the inferred schema with the roles the
    count-table page proposes (engine.data.column_roles.schema_without_config; the estimate
    sizes the run the same way)."""
    both = apath is not None and config.release != "published"
    inferred = infer_schema_from_csvs([path, apath] if both else [path])  # domains cover both
    return schema_without_config(read_table_text(path), inferred, config.sensitive)


def load_data(config: AggregatesGameSettings) -> AuditData:
    """The protected records and the attacker's auxiliary sample (module docstring)."""
    if not config.data:
        protected, auxiliary = generate_census_blocks(
            config.seed, records_per_block=config.census_records,
            n_auxiliary=config.census_auxiliary, sensitive=config.sensitive or "race")
        return AuditData(protected, auxiliary, "synthetic", [])
    path = resolve_path(config.data)
    apath = resolve_path(config.auxiliary) if config.auxiliary else None
    proposed = ""
    if config.schema:
        schema = Schema.from_dict(config.schema, source=f"{path.name}, schema")
    else:
        schema, proposed = _proposed_schema(path, apath, config)
    records = load_microdata_csv(path, schema)
    records = _with_sensitive(records, config.sensitive, str(path))
    inputs = [input_entry(path, rows=records.n_records,
                          role="published_sample" if config.release == "published"
                          else "protected")]
    if proposed:                        # said in the result's warnings (input_warnings)
        inputs[0]["read_as"] = [*inputs[0].get("read_as", []), proposed]
    if records.missing_values:          # what was done with empty cells (issue 21)
        inputs[0]["missing_values"] = records.missing_values
    if config.release == "published":
        need = 2 * config.published_records
        if records.n_records < need:
            raise InputError(f"{path}: the attacker's sample has {records.n_records:,} records; "
                             f"simulating releases of |D| = {config.published_records:,} people "
                             f"needs at least {need:,} (|D| to stand in for the published "
                             "people, the rest as the attacker's auxiliary data); give a larger "
                             "sample.", source=str(path), key="data")
        order = rng(config.seed, "aggregates-published-standin").permutation(records.n_records)
        stand_in = records.subset(np.sort(order[:config.published_records]))
        rest = records.subset(np.sort(order[config.published_records:]))
        return AuditData(stand_in, rest, "published_sample", inputs)
    if apath is None:
        return AuditData(records, None, "protected_records", inputs)
    aux = load_microdata_csv(apath, records.schema)
    inputs.append(input_entry(apath, rows=aux.n_records, role="auxiliary"))
    if aux.missing_values:
        inputs[-1]["missing_values"] = aux.missing_values
    return AuditData(records, aux, "file", inputs)


def resampled_auxiliary(protected, targets: np.ndarray, seed: int):
    """D_aux when the user gives none: 9·|D| records drawn with replacement from the protected
    records that are not targets — an attacker who knows the population's distribution as
    well as the data itself shows it (strong, hence conservative); never the targets."""
    keep = np.setdiff1d(np.arange(protected.n_records), targets)
    if keep.size == 0:
        raise InputError("Every record is a target, so no auxiliary sample can be drawn from "
                         "the others; give the attacker's sample as a CSV or lower the "
                         "targets attacked at most.", key="auxiliary", setting="max_targets")
    g = rng(seed, "aggregates-auxiliary")
    rows = g.choice(keep, AUXILIARY_RATIO * protected.n_records, replace=True)
    return protected.subset(np.sort(rows))
