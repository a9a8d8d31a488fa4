# Privacy Risk Auditor — every target installs what it needs into .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench demo lint install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)           ## open the app on the bundled sample audit
	$(BIN)/python main.py --sample mechanism

test: $(STAMP)          ## the whole test suite, headless
	QT_QPA_PLATFORM=offscreen PRA_DEVICE=$${PRA_DEVICE:-cpu} $(BIN)/python -m pytest -q -p no:cacheprovider

bench: $(STAMP)         ## one ratio line per benchmark case (installs the peer libraries it compares with)
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]"
	$(BIN)/python -m bench

demo: $(STAMP)          ## headless: writes demo-out/result.json and demo-out/report.pdf
	$(BIN)/python main.py demo mechanism --out demo-out

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) demo-out .pytest_cache
