# Privacy Risk Auditor — every target installs what it needs into .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Every runtime and test dependency, pinned with hashes (`make lock` regenerates them all);
# LOCK=requirements/lock-linux-cuda.txt installs PyPI's CUDA build of torch instead.
OS     := $(shell uname -s 2>/dev/null)
LOCK   ?= requirements/lock-$(if $(filter Linux,$(OS)),linux,$(if $(filter Darwin,$(OS)),macos,windows)).txt
# One stamp per lock, so that switching LOCK reinstalls.
STAMP  := $(VENV)/.installed-$(basename $(notdir $(LOCK)))
# Offline install: WHEELHOUSE=DIR (a folder `make wheelhouse` wrote); dist/wheelhouse is used
# when present. Then pip gets --no-index --find-links DIR and never touches the network.
WHEELHOUSE ?= $(patsubst %/SHA256SUMS,%,$(wildcard dist/wheelhouse/SHA256SUMS))
APP    := dist/privacy-risk-auditor/privacy-risk-auditor
# The tools that write the locks, in a venv of their own (build/ is ignored by git).
LOCK_TOOLS := build/lock-tools
PIP_TOOLS_VERSION := 7.6.2
UV_VERSION := 0.13.9

.PHONY: run test test-claims bench demo lint install clean lock wheelhouse verify-wheelhouse app package-test

$(STAMP): pyproject.toml $(LOCK) packaging/install.py $(if $(WHEELHOUSE),$(wildcard $(WHEELHOUSE)/*))
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python packaging/install.py --venv $(VENV) --lock $(LOCK) $(if $(WHEELHOUSE),--wheelhouse "$(WHEELHOUSE)")
	rm -f $(VENV)/.installed*
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)           ## open the app on the bundled sample audit
	$(BIN)/python main.py --sample mechanism

# Both test targets end with the 15 slowest tests and pytest's own last line, "N passed …
# in X s": the suite's duration.
PYTEST := QT_QPA_PLATFORM=offscreen PRA_DEVICE=$${PRA_DEVICE:-cpu} $(BIN)/python -m pytest -q -p no:cacheprovider --durations=15
# Test processes (pytest-xdist): one per core of the 2-core machines the suite is sized for;
# `make test PYTEST_WORKERS=0` runs everything in one process.
PYTEST_WORKERS ?= 2

test: $(STAMP)          ## the test suite, headless, under 10 minutes on 2 cores: all but the `claims` tests
	$(PYTEST) -n $(PYTEST_WORKERS) -m "not claims and not cluster and not long"

test-claims: $(STAMP)   ## the long statistical checks, paper-scale runs and the local Ray cluster (markers `claims`, `cluster`, `long`); CI runs both
	$(PYTEST) -n $(PYTEST_WORKERS) -m "claims or long"
	$(PYTEST) -m cluster

bench: $(STAMP)         ## one ratio line per benchmark case (installs the peer libraries it compares with)
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]"
	$(BIN)/python -m bench

demo: $(STAMP)          ## headless: writes demo-out/result.json and demo-out/report.pdf
	$(BIN)/python main.py demo mechanism --out demo-out

lint: $(STAMP)          ## ruff, and the engine's import layers (pyproject [tool.importlinter])
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

lock:                   ## regenerate requirements/lock-*.txt from pyproject.toml (network)
	test -x $(LOCK_TOOLS)/bin/python || $(PYTHON) -m venv $(LOCK_TOOLS)
	$(LOCK_TOOLS)/bin/python -m pip install --quiet "pip-tools==$(PIP_TOOLS_VERSION)" "uv==$(UV_VERSION)"
	$(LOCK_TOOLS)/bin/python packaging/lock.py

wheelhouse:             ## on a connected machine: every wheel of the lock + SHA256SUMS in dist/wheelhouse
	$(PYTHON) packaging/wheelhouse.py --out dist/wheelhouse $(if $(PLATFORMS),--platforms $(PLATFORMS)) $(if $(GPU),--cuda)

verify-wheelhouse:      ## check a wheelhouse against SHA256SUMS and the lock, install nothing
	$(PYTHON) packaging/install.py --verify-only --lock $(LOCK) --wheelhouse "$(or $(WHEELHOUSE),dist/wheelhouse)"

app: $(STAMP)           ## frozen one-folder app (PyInstaller) in dist/privacy-risk-auditor
	$(BIN)/python packaging/build_app.py

package-test: $(STAMP)  ## the offline-install and frozen-app tests (minutes; not part of `make test`)
	test -x $(APP) || $(MAKE) app
	PRA_PACKAGE_TEST=1 QT_QPA_PLATFORM=offscreen PRA_DEVICE=cpu $(BIN)/python -m pytest -q -p no:cacheprovider -m packaging tests/packaging

clean:
	rm -rf $(VENV) demo-out .pytest_cache
