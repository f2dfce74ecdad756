# Docent: `make run` starts the app, `make test` runs every check. Both create .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test lint typecheck pytest bench clean dist dist-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/docent

lint: $(VENV)/.installed-test
	$(BIN)/ruff check desktop tests benchmarks
	$(BIN)/ruff format --check desktop tests benchmarks
	$(BIN)/lint-imports

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

# The tests run on every core (pytest-xdist, PYTEST_WORKERS=auto); a module's tests, and
# all of tests/e2e, stay in one worker (tests/conftest.py). PYTEST_WORKERS=0: one process.
PYTEST_WORKERS ?= auto

pytest: $(VENV)/.installed-test
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadscope $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/index_bench.py

$(VENV)/.installed-dist: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dist]'
	touch $@ $(VENV)/.installed

# The desktop bundle and its tarball in dist/ (a few minutes of both cores: run niced).
dist: $(VENV)/.installed-dist
	nice -n 10 packaging/build_dist.sh $(BIN)

# Unpack the tarball into an empty folder and run it with an empty environment
# (index, ask, the window offscreen and under Xvfb, install/uninstall); see packaging/.
dist-check: $(VENV)/.installed
	packaging/dist_check.sh $(BIN)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build dist
