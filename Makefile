# `make run` and `make test` each set up .venv first (see README).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean install-pi compiled

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/cabinet run

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check cabinet confspec drivers ui tests bench
	$(BIN)/mypy --strict cabinet confspec

# On the Pi, as root, from a fresh clone (needs only python3 and python3-venv):
# installs or updates the cabinet; safe to run again; the journal is kept.
install-pi:
	$(PYTHON) -m cabinet install

# optional: the mypyc copy for long simulations (PYTHONPATH=build/compiled; README "Measured")
compiled: $(STAMP)
	$(BIN)/python bench/build_compiled.py

clean:
	rm -rf $(VENV) build *.egg-info
