# The two commands of a fresh start: `make run` and `make test` (see README.md).
# `make run` installs only what running needs; the test tools come with `make test`/`make check`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --quiet --disable-pip-version-check

.PHONY: run test check setup setup-test lint docs bench bench-once screenshots translations

run: setup
	$(BIN)/adjudicator quickstart

test: setup-test  # everything: browsers, PostgreSQL, load runs, each benchmark once (about 40 minutes on 2 cores)
	$(BIN)/python -m pytest
	$(MAKE) bench-once

# Every benchmark once, untimed, at its smallest size (benchmarks/sizing.py), so none can break
# unseen: `make test` (and so CI) runs it; `make bench` times them, at every size.
bench-once: setup-test
	$(BIN)/python -m pytest benchmarks --benchmark-disable -q -p no:cacheprovider

# Before every commit (about 1-2 minutes): the lint, and every test that needs no browser, no
# PostgreSQL and no load run (the markers are in setup.cfg; tests/conftest.py sets most).
check: lint
	$(BIN)/python -m pytest -m "not browser and not postgres and not slow" -n 2 -q -p no:cacheprovider

lint: setup-test
	$(BIN)/ruff check adjudicator kiosk tests benchmarks docs/generate.py docs/readme_home.py
	$(BIN)/lint-imports
	$(BIN)/mkdocs build --strict --quiet

# The manual's generated pages (the command reference, the settings table, each rulebook's chain
# of opinions), made afresh from the program; tests/cli/test_docs.py fails when one is stale.
docs: setup-test
	$(BIN)/cog -r -I docs docs/reference/commands.md docs/reference/settings.md docs/director.md \
		docs/penalties.md
	$(BIN)/mkdocs build --strict

screenshots: setup-test  # the README's pictures, taken afresh into docs/images
	$(BIN)/python -m pytest tests/kiosk/test_readme_pictures.py --screenshots -p no:cacheprovider -q

bench: setup-test
	$(BIN)/python -m pytest benchmarks --benchmark-only -p no:cacheprovider

setup: $(VENV)/.installed
setup-test: $(VENV)/.installed-test $(VENV)/wheelhouse/.built

$(VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) -e '.[test]'
	touch $@

# What the tests that run pip need, fetched here, at setup, so that no test reaches beyond the
# machine (tests/support/wheelhouse.py): the package's dependencies and build tools as wheels,
# and the default lexicons' archives (adjudicator/words/defaults.py), with what reading their
# metadata needs (scrabble's setup.py asks for pytest-runner).
DEFAULT_ARCHIVES = $(BIN)/python -c "from adjudicator.words.defaults import DEFAULTS; \
	print(' '.join(source.requirement for source in DEFAULTS))"
$(VENV)/wheelhouse/.built: setup.cfg pyproject.toml adjudicator/words/defaults.py | $(VENV)/.installed
	$(BIN)/pip wheel --quiet --disable-pip-version-check -w $(VENV)/wheelhouse . \
		setuptools wheel pytest-runner
	rm -f $(VENV)/wheelhouse/adjudicator-*.whl
	$(BIN)/pip download --quiet --disable-pip-version-check --no-deps -d $(VENV)/wheelhouse \
		$$($(DEFAULT_ARCHIVES))
	touch $@

# The kiosk's catalogues (kiosk/translations): extract the messages, add the new ones to each
# language's .po (translate them there), and compile the .mo files the package ships.
BABEL_KEYWORDS := -k N_ -k NP_:1,2 -k _l -k T -k TN:1,2
translations: setup
	$(BIN)/pybabel extract -F babel.cfg $(BABEL_KEYWORDS) --no-location --sort-output \
		--omit-header -o kiosk/translations/messages.pot .
	$(BIN)/pybabel update -i kiosk/translations/messages.pot -d kiosk/translations \
		--no-fuzzy-matching --ignore-obsolete
	$(BIN)/pybabel compile -d kiosk/translations --statistics
