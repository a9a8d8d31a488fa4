"""tests/packaging: the lock and the wheelhouse checks run in `make test` (milliseconds); the
tests marked `packaging` build a wheelhouse or use the frozen app (minutes, and the wheelhouse
needs the network) and run only under `make package-test`, which sets PRA_PACKAGE_TEST=1."""

import os

import pytest


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PRA_PACKAGE_TEST") == "1":
        return
    skip = pytest.mark.skip(reason="packaging test: run by `make package-test`")
    for item in items:
        if item.get_closest_marker("packaging") is not None:
            item.add_marker(skip)
