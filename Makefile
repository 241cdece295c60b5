# Two entry points for a fresh machine (Python >= 3.10, pip, make): `make demo`, `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint setup setup-test system-deps clean

$(BIN)/cranfield:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .

setup: $(BIN)/cranfield

setup-test: setup
	$(BIN)/pip install -q -e '.[test]'

demo: setup
	$(BIN)/cranfield demo

# Debian packages for the browser tests (chromium, chromium-driver), the PostgreSQL tests
# (postgresql) and the trec_eval 10.0 oracle (cc, make).
system-deps:
	sh tools/system-deps chromium=chromium chromedriver=chromium-driver \
	  '/usr/lib/postgresql/*/bin/initdb=postgresql' cc=gcc make=make

test: setup-test system-deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .ruff_cache
