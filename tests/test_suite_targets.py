"""The two test targets (issue 18, README "Tests"): `make test` leaves the `claims` tests out and
`make test-claims` runs them — each selects tests, so neither can end in pytest's exit code 5
("no tests collected") — both print the 15 slowest tests, and CI runs both, in that order."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def recipe(target: str) -> str:
    """The command lines of a Makefile target."""
    text = (ROOT / "Makefile").read_text()
    block = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", text, re.M)
    assert block, f"the Makefile has no target {target}"
    return block.group(1)


def test_targets_split_on_the_claims_marker_and_print_the_slowest_tests():
    make = (ROOT / "Makefile").read_text()
    assert re.search(r"^PYTEST :=.*-m pytest.*--durations=15", make, re.M)
    assert '$(PYTEST) -n $(PYTEST_WORKERS) -m "not claims and not cluster and not long"' \
        in recipe("test")
    # the cluster tests each start a real Ray cluster: one process, after the rest
    assert recipe("test-claims").splitlines() == [
        '\t$(PYTEST) -n $(PYTEST_WORKERS) -m "claims or long"', "\t$(PYTEST) -m cluster"]


def test_the_claims_target_selects_tests():
    """(`make test` selects every other test, this file's among them.)"""
    marked = [path for path in sorted((ROOT / "tests").rglob("test_*.py"))
              if re.search(r"pytest\.mark\.claims\b", path.read_text(encoding="utf-8"))]
    assert marked, "no test is marked `claims`: `make test-claims` would collect nothing"


def test_ci_runs_make_test_then_make_test_claims():
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip().startswith("make ")]
    assert steps == ["make test", "make test-claims"]


def test_every_test_of_tests_claims_is_a_claims_test():
    """tests/claims/conftest.py marks the whole folder: a claim added there never lands in
    `make test` by accident."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-p", "no:cacheprovider", "-m", "not claims", "tests/claims"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    collected = [ln for ln in out.stdout.splitlines() if "::" in ln]
    assert not collected, collected[:5]


def test_every_test_of_tests_cluster_is_a_cluster_test():
    """tests/cluster/conftest.py marks the whole folder (each test starts a real Ray
    cluster): none of them lands in `make test`."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-p", "no:cacheprovider", "-m",
                          "not claims and not cluster and not long", "tests/cluster"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    collected = [ln for ln in out.stdout.splitlines() if "::" in ln]
    assert not collected, collected[:5]


def test_every_long_test_named_exists():
    """tests/conftest.py's LONG_TESTS moves the longest robustness tests to make test-claims;
    a renamed test must not silently fall back into make test or out of every target."""
    import subprocess
    import sys

    from tests.conftest import LONG_TESTS

    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-p", "no:cacheprovider", "-m", "long",
                          *sorted({name.split("::")[0] for name in LONG_TESTS})],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    collected = [ln for ln in out.stdout.splitlines() if "::" in ln]
    for name in LONG_TESTS:
        assert any(ln.startswith(name) for ln in collected), name
