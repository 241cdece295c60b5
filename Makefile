# Two entry points for a fresh machine (Python >= 3.10, pip, make, cargo): `make demo`, `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# The compiled engine (rust/: the crates cranfield-trec and cranfield-engine) is built by
# maturin, the package's build backend, when the package is installed: cargo is needed.
ENGINE := src/cranfield/_engine.abi3.so
RUST_SOURCES := $(wildcard rust/Cargo.* rust/*/Cargo.toml rust/*/src/*.rs rust/*/src/*/*.rs)
FUZZ_RUNS ?= 200000
FUZZ_SECONDS ?= 18
# pytest's worker processes (pytest-xdist): the CI machine has 2 cores
PYTEST_WORKERS ?= 2

.PHONY: demo test quick lint setup setup-test system-deps rust-check fuzz clean trec_eval dist wheel-check

$(BIN)/pip:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Packages are installed by uv (PyPI's `uv`, put in the virtual environment by its pip):
# it fetches and unpacks in parallel. `make setup-test` on a fresh machine took 126 s
# with it against 219-229 s with pip, the engine's build (~71 s) included in both. Every
# module is compiled to bytecode at install, as pip does: a process that may not write
# the cache (PYTHONDONTWRITEBYTECODE) would otherwise compile what it imports each time.
UV := $(BIN)/uv
INSTALL := $(UV) pip install -q --python $(BIN)/python --compile-bytecode
$(UV): | $(BIN)/pip
	$(BIN)/pip install -q 'uv>=0.5,<1'

# Each `uv pip install -e` builds the package, the engine included (maturin, in a fresh
# build environment): one install per target, with the extras the target needs, listed
# before $(ENGINE) so that make looks at the module only after it was built.
$(BIN)/cranfield: | $(UV)
	$(INSTALL) -e .

# the test dependencies (the `test` extra), installed again when pyproject.toml changes
# (Microsoft Recommenders' evaluation functions, the oracle of tests/rec, without its
# dependencies: they would bring Jupyter, transformers and more; the functions need only
# pandas, NumPy and scikit-learn, which the test extra has)
$(VENV)/test-extra: pyproject.toml | $(UV)
	$(INSTALL) -e '.[test]'
	$(INSTALL) --no-deps 'recommenders==1.2.1'
	@# ppi-python (the oracle of tests/judgments/test_ppi.py) installs its own test suite as a
	@# top-level package `tests`, which would shadow this project's `tests` package
	rm -rf $(VENV)/lib/python*/site-packages/tests
	touch $@

# rebuilt when a Rust source is newer than the built module (uv would reuse the wheel it
# built before: it watches pyproject.toml, not the Rust sources)
$(ENGINE): $(RUST_SOURCES) | $(BIN)/cranfield
	$(INSTALL) --no-deps --reinstall-package cranfield -e .
	touch $(ENGINE)

setup: $(BIN)/cranfield $(ENGINE)

setup-test: $(VENV)/test-extra $(ENGINE)

demo: setup
	$(BIN)/cranfield demo

# Debian packages for the browser tests (chromium, chromium-driver), the PostgreSQL tests
# (postgresql) and the trec_eval 10.0 oracle (cc, make).
system-deps:
	sh tools/system-deps chromium=chromium chromedriver=chromium-driver \
	  '/usr/lib/postgresql/*/bin/initdb=postgresql' cc=gcc make=make \
	  /usr/share/fonts/truetype/wqy/wqy-microhei.ttc=fonts-wqy-microhei

# trec_eval 10.0, the peer of the README's speed table and of benchmarks/, built -O2 from
# its C source (NIST, github.com/usnistgov/trec_eval; TREC_EVAL_SRC: where a copy is) into
# TREC_EVAL_DIR: `make trec_eval` gives /tmp/te/trec_eval (the tests build their own)
TREC_EVAL_SRC ?= $(firstword $(wildcard ../shared/reference/trec_eval-10.0 ../../shared/reference/trec_eval-10.0))
TREC_EVAL_DIR ?= /tmp/te
trec_eval:
	mkdir -p $(TREC_EVAL_DIR) && cp -r $(TREC_EVAL_SRC)/. $(TREC_EVAL_DIR)/
	$(MAKE) -C $(TREC_EVAL_DIR) CFLAGS='-O2 -I. -Wall -DVERSIONID=\"10.0-rc3\"' trec_eval
	@echo "built $(TREC_EVAL_DIR)/trec_eval"

# the Rust crates: formatting, lints, unit tests (cranfield-engine, the PyO3 module, has
# none: cargo test would only compile it, and PyO3, a second time). `--tests` leaves out
# the examples, which clippy's `--all-targets` has checked, and the doctests: the crates
# have none (tests/test_rust_docs.py), and either would build each library a second
# time, outside the test harness (~55 s of the ~100 s)
rust-check:
	cd rust && cargo fmt --check && cargo clippy --all-targets -- -D warnings && \
		cargo test -q --workspace --exclude cranfield-engine --tests

# libFuzzer on the readers (rust/fuzz: read_trec with seeds/, read_svmlight with
# seeds-svmlight/, model_weights, a model file's weights, with seeds-model/) for a fixed
# number of runs each, at most FUZZ_SECONDS each, all at once (the targets are single-
# threaded: they share the cores), on stable Rust (the coverage flags cargo fuzz would
# pass); a copy of a target's seeds grows in a temporary folder. Each target's report is
# printed after all have ended, in order; a crash shows the panic's message and the input
# (libFuzzer's `Base64:` line), since the folder is removed
FUZZ_FLAGS := -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
	-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
	-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks
FUZZ_TARGETS := read_trec:seeds read_svmlight:seeds-svmlight model_weights:seeds-model
fuzz:
	cd rust/fuzz && HOST=$$(rustc -vV | sed -n 's/^host: //p') && \
	RUSTFLAGS="$(FUZZ_FLAGS)" cargo build -q --release --target $$HOST \
		$(foreach t,$(FUZZ_TARGETS),--bin $(firstword $(subst :, ,$(t)))) && \
	work=$$(mktemp -d) && trap 'rm -rf $$work' EXIT && \
	for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; mkdir $$work/$$name && cp $${t#*:}/* $$work/$$name/ && \
		{ target/$$HOST/release/$$name -runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_SECONDS) \
			-max_len=4096 -seed=1 -print_final_stats=1 -artifact_prefix=$$work/$$name/ \
			$$work/$$name > $$work/$$name.log 2>&1; echo $$? > $$work/$$name.status; } & \
	done; wait; status=0; \
	for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; echo "$$name:"; \
		awk '/panicked/ { after = 4 } after-- > 0 || /^(Done|stat::number_of_executed_units|==|SUMMARY|Base64:)/' \
			$$work/$$name.log; \
		s=$$(cat $$work/$$name.status 2>/dev/null || echo 1); [ "$$s" = 0 ] || status=$$s; \
	done; exit $$status

# what users install: an abi3 wheel (maturin, with its manylinux compliance check) and an
# sdist, in dist/. The wheel is built into the same cargo target as `pip install -e`.
MATURIN := $(BIN)/maturin
$(MATURIN): | $(BIN)/pip
	$(BIN)/pip install -q 'maturin>=1.5,<2'
dist: $(MATURIN) $(ENGINE)
	rm -rf dist
	$(MATURIN) build --release --out dist --quiet
	$(MATURIN) sdist --out dist
	@ls dist

# the wheel in a fresh virtual environment with no cargo on PATH: the demo, every
# subcommand's --help and `--version` (tests/wheel/smoke.py)
WHEEL_VENV ?= build/wheel-venv
wheel-check: dist
	rm -rf $(WHEEL_VENV) && $(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/pip install -q dist/cranfield-*.whl
	$(PYTHON) tests/wheel/smoke.py $(WHEEL_VENV)

# the Python lints first: they take seconds, the Rust checks and the fuzzing minutes
lint: setup-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The sources are compiled to bytecode first: the tests start the command about 1,300
# times, and where PYTHONDONTWRITEBYTECODE is set no process writes the cache, so each one
# would compile every module it imports again (~30 ms of a small job)
test: setup-test lint system-deps rust-check fuzz wheel-check
	$(BIN)/python -m compileall -q -j 0 src tests > /dev/null
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal

# the tests that start no process (no subprocess, browser, PostgreSQL, Dask cluster or
# trec_eval build: tests/conftest.py marks those), without the lints, Rust checks and fuzzing
QUICK_MARKS := not (process or browser or postgres or dask or trec_eval)
quick: setup-test
	$(BIN)/python -m compileall -q -j 0 src tests > /dev/null
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal -m "$(QUICK_MARKS)"

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .ruff_cache rust/target rust/fuzz/target
	rm -f src/cranfield/_engine*.so
