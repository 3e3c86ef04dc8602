# balance-sim: `make run` (simulate every game on its defaults and write the reports) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: `make run` installs only what simulating and reporting need (a quicker first run); `make test` adds
# the test and Dask extras. --no-compile: pip would byte-compile every module of every dependency (about 30 of the
# 46 s of a fresh install); Python writes the bytecode of the modules actually imported on first use instead --
# except where PYTHONDONTWRITEBYTECODE is set: `make install` then writes that of the modules a run imports
# (sim/bytecode.py, ~6 CPU-s once; each later run's processes start 1-2 CPU-s quicker). `make run` on a fresh
# clone leaves it out (one run would not earn back its cost); its early compile (below) writes the bytecode of
# what it imports (numpy, numba, the games), which `main`'s processes import again.
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
PIP := $(BIN)/python -m pip install --quiet --no-compile

.PHONY: run test test-fast bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(PIP) -e .
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) -e ".[test,dask]"
	$(BIN)/python -m sim.bytecode
	touch $@ $(STAMP)

install: $(TEST_STAMP)

# A fresh `make run` installs in two steps: what compiling the kernels needs (numpy, numba, click: a few seconds),
# then the rest while `python -m sim.warmup` compiles main's kernels on the core pip leaves idle (pip works on
# one); `main` then loads them, or waits for the one still compiling (a lock per kernel), instead of compiling them.
run: | $(BIN)/python
	@[ $(STAMP) -nt pyproject.toml ] || { set -x; \
	  $(PIP) $$($(BIN)/python -m sim.warmup --requirements) && \
	  { $(BIN)/python -m sim.warmup & $(PIP) -e . || { kill $$!; exit 1; }; } && touch $(STAMP); }
	$(BIN)/balance-sim main -o reports

# Tests in parallel processes (pytest-xdist), a test file to a process: on 2 cores the suite takes about two
# thirds of the time of one process (docs/performance.md). `make test XDIST=` runs it in one process.
XDIST ?= -n auto --maxprocesses 4 --dist loadfile

test: $(TEST_STAMP)
	$(BIN)/python -m pytest $(XDIST)

# The edit loop: everything but the tests marked slow (about a second of CPU or more each: whole runs with their
# reports, sweeps, tunes and sensitivity runs, coverage simulations, subprocesses, search players, Dask, the
# browser). `make test` (CI) runs them all.
test-fast: $(TEST_STAMP)
	$(BIN)/python -m pytest $(XDIST) -m "not slow"

bench: $(STAMP)
	$(BIN)/balance-sim bench

clean:
	rm -rf $(VENV) reports/*/ .pytest_cache
