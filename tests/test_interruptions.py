"""Interruptions and faults lose nothing (issue 12, section 6): a signal at any moment of a parallel run, a full
disk, a worker killed mid-batch; and workers never outlive the run that started them."""
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sim.results
import sim.runner
from sim.game import game_names
from sim.results import partial_path
from cli_runs import alive, cli, ok, one_line_error, same_tables, saved, wait_for_batches

pytestmark = pytest.mark.slow  # `make test-fast` leaves these out

N, BATCH = 8000, 250  # the tables compared: 32 batches
COMMON = ["-j", "1", "-n", str(N), "--batch-size", str(BATCH), "-s", "greedy", "--seed", "3", "-q", "--no-report"]
# A run that is signalled plays this many games: minutes of play, so the signal cannot land after its end however
# late the (loaded) machine lets this test send it. Its plan is then cut to N games (cut_plan) before --resume.
ENDLESS = ["-n", str(10**7)]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """One uninterrupted one-worker run per game, made on first use."""
    made = {}

    def get(game, games=N):
        if (game, games) not in made:
            out = tmp_path_factory.mktemp("ref") / game
            ok(cli("run", game, *COMMON, "-n", games, "-o", out))
            made[game, games] = out
        return made[game, games]

    return get


def cut_plan(out: Path) -> int:
    """Cut an interrupted ENDLESS run's plan to N games (more if more were saved; batches and seeds depend on the
    batch index alone), so --resume plays the rest of the shorter plan. Returns the games of the cut plan."""
    games = max(N, (saved(out) + 2) * BATCH)
    meta_path = partial_path(out) / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["games"] = games
    meta_path.write_text(json.dumps(meta))
    return games


def start(*args):
    return subprocess.Popen([sys.executable, "-m", "sim.cli", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def children(pid: int) -> set[int]:
    """Every descendant process of pid (Linux /proc)."""
    kids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            child = int(stat.parent.name)
            kids |= {child} | children(child)
    return kids


# ------------------------------------------------------------------ a signal at any moment, then --resume


def signal_cases():
    """Every signal once and every game at least once, not every pairing: what a signal does is the runner's, the
    same for every game, and what a game brings (its batches and tables) is the same whichever signal stopped it.
    Each case is a parallel run in a fresh process with its own workers (seconds each), so pairings cost."""
    sigs, games = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], game_names()
    cases = [(sigs[i % len(sigs)], games[(i + 2) % len(games)]) for i in range(max(len(sigs), len(games)))]
    return [pytest.param(sig, game, id=f"{sig.name[3:]}-{game}") for sig, game in cases]


@pytest.mark.parametrize("sig,game", signal_cases())
def test_signal_mid_parallel_run_then_resume_gives_identical_tables(tmp_path, reference, game, sig):
    out = tmp_path / "D"
    proc = start("run", game, *COMMON, *ENDLESS, "-j", 2, "-o", out)
    wait_for_batches(out, 3, proc)  # the workers are playing by now
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=300)
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:  # finishes the batches in hand, then says how to go on
        assert proc.returncode == 2 and "--resume" in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists() and saved(out) >= 3
    games = cut_plan(out)
    r = ok(cli("run", "--resume", out, "-j", 2, "-q", "--no-report"))
    assert "cannot be trusted" not in r.stderr
    same_tables(out, reference(game, games), game)


@pytest.mark.parametrize("game", ["mohur", "muziris"])
def test_double_ctrl_c_then_resume_gives_identical_tables(tmp_path, reference, game):
    out = tmp_path / "D"
    proc = start("run", game, *COMMON, *ENDLESS, "-j", 2, "-o", out)
    wait_for_batches(out, 3, proc)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)  # the second stops at once, mid-batch
    _, err = proc.communicate(timeout=300)
    # however the second lands (mid-batch, or once the run has stopped and is exiting): one line, exit 2
    assert proc.returncode == 2 and "--resume" in err and len(err.strip().splitlines()) == 1, err
    assert not list((partial_path(out) / "batches").glob(".tmp-*"))
    games = cut_plan(out)
    r = ok(cli("run", "--resume", out, "-q", "--no-report"))
    assert "cannot be trusted" not in r.stderr
    same_tables(out, reference(game, games), game)


# ------------------------------------------------------------------ a full disk


def full_disk_after(monkeypatch, batches: int):
    real = sim.runner.save_batch

    def save(batch_dir, b, *args, **kwargs):
        if b >= batches:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(Path(batch_dir) / f"batch-{b:07d}.npz"))
        return real(batch_dir, b, *args, **kwargs)

    monkeypatch.setattr(sim.runner, "save_batch", save)


@pytest.mark.parametrize("game", game_names())
def test_full_disk_keeps_saved_batches_and_resumes_identically(tmp_path, monkeypatch, reference, game):
    out = tmp_path / "D"
    full_disk_after(monkeypatch, 5)
    one_line_error(cli("run", game, *COMMON, "-o", out), "No space left on device", "5 of 32 batches are saved",
                   f"balance-sim run --resume {out}")
    monkeypatch.undo()
    assert saved(out) == 5 and not list((partial_path(out) / "batches").glob(".tmp-*"))
    ok(cli("run", "--resume", out, "-q", "--no-report"))
    same_tables(out, reference(game), game)


def test_full_disk_while_writing_the_tables_then_resume(tmp_path, monkeypatch, reference):
    out = tmp_path / "D"

    def full(sink):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(sink.folder / "games.parquet"))

    monkeypatch.setattr(sim.results.ParquetSink, "close", full)
    one_line_error(cli("run", "mohur", *COMMON, "-o", out), "games.parquet", "32 of 32 batches are saved")
    monkeypatch.undo()
    ok(cli("run", "--resume", out, "-q", "--no-report"))
    assert json.loads((out / "meta.json").read_text())["timing"]["games_played_now"] == 0
    same_tables(out, reference("mohur"), "mohur")


# ------------------------------------------------------------------ workers end with their parent


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
def test_workers_exit_with_their_parent(tmp_path, sig):
    out = tmp_path / "D"
    proc = start("run", "mohur", "-n", 10**7, "--batch-size", BATCH, "-s", "greedy", "-j", 2, "-q", "--no-report",
                 "-o", out)
    wait_for_batches(out, 4, proc)
    workers = children(proc.pid)
    assert workers, "no worker processes found"
    proc.send_signal(sig)
    proc.wait(timeout=300)  # not communicate(): orphaned workers would hold its pipes open
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and any(alive(p) for p in workers):
        time.sleep(0.1)
    assert not [p for p in workers if alive(p)], "worker processes outlived their parent"


# ------------------------------------------------------------------ a worker killed mid-batch


PLAY = sim.runner.run_one_batch  # the real one, whatever a test patches in its place


def dies_once(game, cfg, plan, b, seed, debug, marker=None):
    """Batch 5 kills its worker process the first time it is played."""
    if b == 5 and marker is not None and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)
    return PLAY(game, cfg, plan, b, seed, debug)


def dies_always(game, cfg, plan, b, seed, debug):
    if b == 5:
        os._exit(9)
    return PLAY(game, cfg, plan, b, seed, debug)


@pytest.fixture
def by_value():
    """Ship this module's functions to loky workers by value (the workers cannot import the tests)."""
    import cloudpickle
    module = sys.modules[__name__]
    cloudpickle.register_pickle_by_value(module)
    yield
    cloudpickle.unregister_pickle_by_value(module)


def test_a_worker_killed_mid_batch_is_replaced_and_its_batches_replayed(tmp_path, monkeypatch, reference, by_value):
    import functools
    out = tmp_path / "D"
    marker = str(tmp_path / "died")
    monkeypatch.setattr(sim.runner, "run_one_batch", functools.partial(dies_once, marker=marker))
    r = ok(cli("run", "mohur", *COMMON, "-j", 2, "-o", out))
    assert os.path.exists(marker), "the worker was never killed"
    assert "a worker process died while playing batch" in r.stderr
    same_tables(out, reference("mohur"), "mohur")


def test_a_batch_that_keeps_killing_its_worker_is_reported(tmp_path, monkeypatch, by_value):
    out = tmp_path / "D"
    monkeypatch.setattr(sim.runner, "run_one_batch", dies_always)
    r = cli("run", "mohur", *COMMON, "-j", 2, "-o", out)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert "worker processes died 3 times in a row" in lines[-1] and "--resume" in lines[-1]
    assert "Traceback" not in r.output
    # the batches before the one that kills are saved, with no gap (which batches were in flight alongside it
    # when it died, and were lost with it, depends on timing)
    kept = sorted(int(p.stem.split("-")[1]) for p in (partial_path(out) / "batches").glob("batch-*"))
    assert kept == list(range(len(kept))) and 1 <= len(kept) <= 5
    assert f"while playing batch {len(kept)} or one after it" in lines[-1]


def test_full_disk_before_the_first_batch_is_one_line(tmp_path, monkeypatch):
    def full(folder, meta):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(Path(folder) / "meta.json"))

    monkeypatch.setattr(sim.results, "write_meta", full)
    one_line_error(cli("run", "mohur", *COMMON, "-o", tmp_path / "D"), "No space left on device")


def test_dask_giving_up_on_a_batch_is_one_line(tmp_path, monkeypatch):
    """Dask retries a batch whose worker died on other workers, then raises KilledWorker: one line, exit 2."""
    class KilledWorker(Exception):
        pass

    def killed(game, cfg, plan, b, seed, debug):
        if b == 2:
            raise KilledWorker("Attempted to run task 'run_one_batch-2' on 4 different workers, but all those "
                               "workers died while running it.")
        return PLAY(game, cfg, plan, b, seed, debug)

    monkeypatch.setattr(sim.runner, "run_one_batch", killed)
    one_line_error(cli("run", "mohur", *COMMON, "-o", tmp_path / "D"), "Dask workers died", "2 of 32 batches are saved")
