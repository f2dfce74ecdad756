# Docent: `make run` starts the app, `make test` runs every check. Both create .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test lint typecheck pytest bench clean

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

pytest: $(VENV)/.installed-test
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/index_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
