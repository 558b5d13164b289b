# The two commands of a fresh start: `make run` and `make test` (see README.md).
# `make run` installs only what running needs; the test tools come with `make test`/`make check`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --quiet --disable-pip-version-check

.PHONY: run test check setup setup-test lint bench screenshots

run: setup
	$(BIN)/adjudicator quickstart

test: setup-test
	$(BIN)/python -m pytest

check: setup-test  # before every commit: the lint, and every test needing no browser, PostgreSQL or load run
	$(BIN)/ruff check adjudicator kiosk tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -m "not browser and not postgres and not slow"

lint: setup-test
	$(BIN)/ruff check adjudicator kiosk tests benchmarks
	$(BIN)/lint-imports

screenshots: setup-test  # the README's pictures, taken afresh into docs/images
	$(BIN)/python -m pytest tests/test_readme_pictures.py --screenshots -p no:cacheprovider -q

bench: setup-test
	$(BIN)/python -m pytest benchmarks --benchmark-only -p no:cacheprovider

setup: $(VENV)/.installed
setup-test: $(VENV)/.installed-test

$(VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) -e '.[test]'
	touch $@
