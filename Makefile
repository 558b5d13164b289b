# The two commands of a fresh start: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test setup lint bench screenshots

run: setup
	$(BIN)/adjudicator quickstart

test: setup
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check adjudicator kiosk tests benchmarks

screenshots: setup  # the README's pictures, taken afresh into docs/images
	$(BIN)/python -m pytest tests/kiosk/test_readme_pictures.py --screenshots -p no:cacheprovider -q

bench: setup
	$(BIN)/python -m pytest benchmarks --benchmark-only -p no:cacheprovider

setup: $(VENV)/.installed

$(VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@
