"""Shared fixtures for the generic machinery tests (CLI, runner), and every game's kernels compiled side by side
before a whole run (tests/warm_kernels.py)."""
import contextlib
import os
import sys

import pytest

# Where PYTHONDONTWRITEBYTECODE is set (CI images often set it), every run would rewrite the test modules' asserts
# and compile the modules the tests import (numpy, pandas, ... less those sim.bytecode wrote at install) again, in
# every pytest-xdist worker: about 3.5 of the 6.5 CPU-s a worker spends collecting. Written once, read thereafter
# (python and pytest read bytecode whatever the variable says).
sys.dont_write_bytecode = False
from click.testing import CliRunner

WHOLE_RUN = 100  # tests in a session from which compiling every game's kernels first, side by side, pays


@pytest.fixture(scope="session", autouse=True)
def kernels_compiled_side_by_side(request, tmp_path_factory):
    """On more than one core a whole run first compiles every game's kernels side by side, for the tests to load;
    should that fail, nothing is lost: each test compiles what it needs itself, and reports any error there.
    Under pytest-xdist the first worker compiles them while the others wait (a lock in the run's shared temporary
    folder): tests started beside that compile would compile the same kernels again."""
    if len(request.session.items) >= WHOLE_RUN and (os.cpu_count() or 1) > 1:
        with _first_worker_only(tmp_path_factory) as first:
            if first:
                import warm_kernels
                from sim.game import game_names

                for proc in warm_kernels.start(game_names()):
                    proc.join(timeout=900)
    yield


@contextlib.contextmanager
def _first_worker_only(tmp_path_factory):
    """Yields True in the one process of the run that should do the work (every process without xdist); the
    other workers block until it is done, then get False."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield True
        return
    import fcntl

    shared = tmp_path_factory.getbasetemp().parent  # one folder for all of this run's workers
    done = shared / "kernels-compiled"
    with open(shared / "kernels-compiled.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        first = not done.exists()
        yield first
        done.touch()


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """Invoke `balance-sim` in-process from a scratch working directory; returns click's Result."""
    from sim.cli import main

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(main, [str(a) for a in args])

    return invoke
