# `make run` and `make test` each set up .venv first (see README).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean install-pi compiled i18n release

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# pygame and pygame-ce are both "import pygame": an older venv's pygame goes first
	$(BIN)/pip uninstall --quiet --yes pygame
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/cabinet run

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

lint: $(STAMP)
	$(BIN)/ruff check cabinet confspec drivers ui tests bench
	$(BIN)/ruff format --check cabinet confspec drivers ui tests bench
	$(BIN)/mypy --strict cabinet confspec drivers ui

# The table's languages (docs/guide/develop.md "Adding a language"): extract every marked player text
# (babel.cfg) into ui/locale/cabinet.pot, merge it into each language's .po (a new
# language: add it to I18N_LANGS and ui/i18n.py LANGUAGES), compile the .mo files the UI
# loads. No line numbers in the catalogs, so moving code does not churn them.
I18N_DIR := ui/locale
I18N_LANGS := es
i18n: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k said -k N_ --no-location --sort-output \
		--project=blackjack-cabinet --version=0.1.0 --msgid-bugs-address= \
		--copyright-holder="blackjack-cabinet" -o $(I18N_DIR)/cabinet.pot .
	for l in $(I18N_LANGS); do \
		if [ -f $(I18N_DIR)/$$l/LC_MESSAGES/cabinet.po ]; then \
			$(BIN)/pybabel update -D cabinet -d $(I18N_DIR) -l $$l -i $(I18N_DIR)/cabinet.pot \
				--ignore-obsolete || exit 1; \
		else \
			$(BIN)/pybabel init -D cabinet -d $(I18N_DIR) -l $$l -i $(I18N_DIR)/cabinet.pot || exit 1; \
		fi; \
	done
	$(BIN)/pybabel compile -D cabinet -d $(I18N_DIR) --statistics

# The signed release a cabinet installs offline (docs/guide/install.md): dist/cabinet-VERSION.tar,
# signed with RELEASE_KEY (made once with `cabinet release-key`; never in the repository).
RELEASE_KEY ?= $(HOME)/.config/cabinet/release-key.pem
release: $(STAMP)
	$(BIN)/cabinet release --key $(RELEASE_KEY) --out dist

# A development install on the Pi from this checkout and PyPI (the engine tilts: not a signed
# release); a cabinet installs a release: sudo cabinet install dist/cabinet-VERSION.tar.
install-pi:
	$(PYTHON) -m cabinet install

# optional: the mypyc copy for long simulations (PYTHONPATH=build/compiled; docs/design/parsheets.md)
compiled: $(STAMP)
	$(BIN)/python bench/build_compiled.py

clean:
	rm -rf $(VENV) build *.egg-info
