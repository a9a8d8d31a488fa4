"""Every test here starts (once per session) a real local Ray cluster: 2 CPUs, no dashboard —
no mock. They are marked ``cluster`` and run by ``make test-claims`` (CI runs both targets):
starting Ray takes tens of seconds on a busy 2-core machine."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/cluster/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.cluster)


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory):
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        # Ray 2.60 would write its token to ~/.ray/auth_token, readable by everyone (issue 31
        # item 2): this instance's token lives in a test folder, readable by the user alone.
        token = tmp_path_factory.mktemp("ray-token") / "auth_token"
        token.write_text(secrets.token_hex(32))
        token.chmod(0o600)
        os.environ["RAY_AUTH_TOKEN_PATH"] = str(token)
        # The workers import the engine and this package's unit helpers from the checkout.
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 logging_level="ERROR", configure_logging=False,
                 runtime_env={"py_modules": [str(ROOT / "engine"), str(ROOT / "tests")]})
    yield ray
    if started:
        ray.shutdown()
