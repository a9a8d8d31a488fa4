"""Roles proposed for a table the app has never seen (issue 33 item 4): id-like columns and row
numbers left out with a reason, a handful of low-cardinality quasi-identifiers, continuous
numbers left out until banded, a sensitive column suggested or none — on the three synthetic
public-style tables of tests/data/public_style and on small frames built here."""

from __future__ import annotations

from math import prod
from pathlib import Path

import pandas as pd
import pytest

from engine.audits.aggregates import AggregatesConfig
from engine.data.column_roles import (
    FEW_VALUES,
    MAX_QUASI_IDENTIFIERS,
    RECORD_SPACE_BUDGET,
    propose_roles,
    propose_roles_for_csv,
)
from engine.data.microdata import infer_schema, load_microdata_csv

TABLES = Path(__file__).resolve().parents[1] / "data" / "public_style"
WAGES, ADULT, DISCHARGES = (TABLES / name for name in
                            ("wages_534.csv", "adult_like.csv", "hospital_discharges.csv"))


def proposal_of(path: Path):
    records = load_microdata_csv(path)
    return records, propose_roles_for_csv(path, records.schema)


def frame_proposal(columns: dict):
    frame = pd.DataFrame({k: [str(v) for v in vs] for k, vs in columns.items()})
    return propose_roles(frame, infer_schema(frame))


def test_the_wage_table_leaves_out_its_row_numbers_and_its_wages_with_reasons():
    _records, proposal = proposal_of(WAGES)
    roles = proposal.roles()
    # The row numbers rise with gaps (kept from a larger file): the inferred schema alone made
    # them a quasi-identifier (issue 33).
    assert roles["rownames"] == "ignore"
    assert "row numbers" in proposal.reason("rownames")
    assert roles["wage"] == "ignore"
    assert "continuous" in proposal.reason("wage") and "band" in proposal.reason("wage")
    assert proposal.sensitive == "race"
    assert "rownames" in proposal.sentence() and "wage" in proposal.sentence()


@pytest.mark.parametrize("path", [WAGES, ADULT, DISCHARGES], ids=lambda p: p.stem)
def test_each_table_gets_a_handful_of_small_quasi_identifiers_and_a_runnable_schema(path):
    records, proposal = proposal_of(path)
    schema = proposal.apply(records.schema)
    qi = schema.quasi_identifiers
    assert 1 <= len(qi) <= MAX_QUASI_IDENTIFIERS
    for name in qi:
        column = schema.column(name)
        assert column.domain_size <= FEW_VALUES or name.startswith("age"), name
        assert proposal.reason(name)
    space = prod(schema.column(c).domain_size for c in (*qi, schema.sensitive))
    assert space <= RECORD_SPACE_BUDGET
    schema.validate_for_audit()
    # The engine's own config check accepts the proposed schema with tables of its columns.
    AggregatesConfig.from_dict({"audit_type": "aggregates", "data": str(path),
                                "schema": schema.to_dict(), "release": "marginals"})
    every = {c.name for c in proposal.columns}
    assert every == set(records.schema.names)
    assert all(c.reason for c in proposal.columns)


def test_codes_and_weights_unique_in_every_row_are_left_out():
    _records, hospital = proposal_of(DISCHARGES)
    assert hospital.roles()["patient_code"] == "ignore"
    assert "every row" in hospital.reason("patient_code")
    assert hospital.roles()["total_charges"] == "ignore"
    assert hospital.sensitive == "diagnosis_group"
    _records, adult = proposal_of(ADULT)
    assert adult.roles()["fnlwgt"] == "ignore"
    assert adult.roles()["hours_per_week"] == "ignore"
    assert adult.sensitive == "income"


@pytest.mark.parametrize("start", [0, 1])
def test_plain_row_numbers_are_named_as_such(start):
    n = 40
    proposal = frame_proposal({"n": range(start, start + n),
                               "sex": ["F", "M"] * (n // 2),
                               "health": ["good", "poor", "fair", "good"] * (n // 4)})
    assert proposal.roles()["n"] == "ignore"
    assert f"row numbers {start}–{start + n - 1}" in proposal.reason("n")
    assert proposal.roles()["sex"] == "quasi_identifier"
    assert proposal.sensitive == "health"


def test_a_table_without_a_sensitive_name_says_so():
    n = 30
    proposal = frame_proposal({"name": [f"person {i}" for i in range(n)],
                               "colour": ["red", "blue", "green"] * (n // 3),
                               "size": ["S", "M", "L", "XL", "S"] * (n // 5)})
    assert proposal.sensitive == ""
    assert proposal.roles()["name"] == "ignore"
    assert "choose the attribute" in proposal.sentence()
    assert set(proposal.quasi_identifiers) == {"colour", "size"}


def test_more_small_columns_than_a_handful_leave_the_rest_out_with_a_reason():
    n = 24
    columns = {f"flag{i}": ["a", "b", "c"] * (n // 3) for i in range(7)}
    proposal = frame_proposal(columns)
    assert len(proposal.quasi_identifiers) == MAX_QUASI_IDENTIFIERS
    left = [c for c in proposal.columns if c.role == "ignore"]
    assert len(left) == 7 - MAX_QUASI_IDENTIFIERS
    assert all("proposed already" in c.reason for c in left)


def test_the_same_table_gives_the_same_proposal():
    assert proposal_of(WAGES)[1] == proposal_of(WAGES)[1]


def test_the_tables_are_small_and_say_they_are_synthetic():
    for path in (WAGES, ADULT, DISCHARGES):
        assert path.stat().st_size <= 50_000
    assert "synthetic" in (TABLES / "README.md").read_text(encoding="utf-8").lower()
