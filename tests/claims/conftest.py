"""Every test of tests/claims is a `claims` test: the papers' claims and the intervals' coverage
are statistical checks over many seeded games, run by `make test-claims` (and CI), not by
`make test` (issue 18: `make test` under 10 minutes on 2 quiet cores; docs/dev/tests.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.claims)
