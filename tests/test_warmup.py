"""Compile locks (sim/warmup.py): processes that want the same kernel at once compile it once, and `make run`'s
early compile (`python -m sim.warmup`, started beside pip) needs nothing pip has not installed yet."""
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sim import warmup
from sim.runner import Plan

pytestmark = pytest.mark.slow  # `make test-fast` leaves these out

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def lock_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the lock files only: numba read its own at import
    return tmp_path


def test_a_compile_lock_is_held_by_one_holder_at_a_time(lock_folder):
    with warmup.compiling("g", "kernel") as held:
        assert held
        with warmup.compiling("g", "kernel", wait=False) as again:
            assert not again  # another open file: as another process would see it
        with warmup.compiling("g", "trace", wait=False) as step, warmup.compiling("h", "kernel", wait=False) as game:
            assert step and game  # another step, another game: locks of their own
    with warmup.compiling("g", "kernel", wait=False) as free:
        assert free


def test_a_waiting_compile_starts_when_the_holder_is_done(lock_folder):
    order = []
    release = threading.Event()

    def holder():
        with warmup.compiling("g", "kernel"):
            order.append("holder has it")
            release.wait(10)
            order.append("holder done")

    thread = threading.Thread(target=holder)
    thread.start()
    while not order:
        time.sleep(0.01)
    threading.Timer(0.3, release.set).start()
    with warmup.compiling("g", "kernel") as held:  # blocks until the holder's block ends
        order.append("waiter has it")
        assert held
    thread.join()
    assert order == ["holder has it", "holder done", "waiter has it"]


def test_precompile_takes_only_what_no_one_else_is_compiling(lock_folder, monkeypatch):
    calls = []
    monkeypatch.setattr(warmup, "_DO", {step: (lambda game, cfg, plan, step=step: calls.append((game, step)))
                                        for step in warmup.STEPS})
    jobs = [(game, None, Plan(game, 2, 1, 0, (), 1)) for game in ("a", "b", "c")]
    with warmup.compiling("a", "kernel"), warmup.compiling("c", "trace"):
        done = warmup.precompile(jobs)
    # a: its kernel compiling elsewhere, so its trace too is left to that process; c: its trace compiling elsewhere
    assert done == calls == [("b", "kernel"), ("c", "kernel"), ("b", "trace")]


def test_main_s_compile_processes_wait_for_a_kernel_compiling_elsewhere(lock_folder, monkeypatch):
    """`main`'s processes take the same locks: a kernel another process is compiling is not compiled beside it
    (here its job would fail at once, as an unknown game does, were it not waiting)."""
    plan = Plan("no-such-game", 2, 1, 0, (), 1)
    monkeypatch.setattr(warmup.os, "cpu_count", lambda: 2)
    with warmup.compiling("no-such-game", "kernel"):
        warmup.compile_kernels([("no-such-game", None, plan), ("nor-this-one", None, plan)], 2)
        warmup.wait("nor-this-one")  # taken from the queue after no-such-game's kernel, and done
        time.sleep(1.0)
        assert not warmup._done("no-such-game")
    warmup.wait("no-such-game")  # released with the lock
    for game in ("no-such-game", "nor-this-one"):
        warmup.wait(game, "trace")
    assert not warmup._PENDING


def test_compiling_main_s_kernels_needs_only_numpy_numba_and_click(tmp_path):
    """`make run` starts `python -m sim.warmup` once pip has installed `compile_requirements()` alone: it must
    import nothing else (pandas, pyarrow, matplotlib, scipy, ... are still being installed beside it)."""
    assert [req.split(">")[0] for req in warmup.compile_requirements()] == list(warmup.COMPILE_NEEDS)
    script = """
import sys
missing = {"pandas", "pyarrow", "matplotlib", "scipy", "joblib", "tqdm", "statsmodels", "SALib", "dask"}

class NotInstalledYet:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in missing:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NotInstalledYet())
from sim.setup import main_jobs, main_setups
from sim.warmup import precompile

jobs = [job for job in main_jobs(main_setups()) if job[0] == "mughal"]
print(precompile(jobs))
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[('mughal', 'kernel'), ('mughal', 'trace')]", out.stderr[-2000:]
