# Two entry points for a fresh machine (Python >= 3.10, pip, make): `make demo`, `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint setup setup-test clean

$(BIN)/cranfield:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .

setup: $(BIN)/cranfield

setup-test: setup
	$(BIN)/pip install -q -e '.[test]'

demo: setup
	$(BIN)/cranfield demo

test: setup-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .ruff_cache
