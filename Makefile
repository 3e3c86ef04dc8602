# balance-sim: `make run` (simulate every game on its defaults and write the reports) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,dask]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/balance-sim main -o reports

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/balance-sim bench

clean:
	rm -rf $(VENV) reports/*/ .pytest_cache
