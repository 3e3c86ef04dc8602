"""Runner machinery: deterministic tables for any job count, seat rotation, atomic results folders."""
import itertools
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim.results
import sim.runner
from sim.registry import choices, registered
from sim.rng import batch_seeds
from sim.runner import Plan, lineups, pairings
from cli_runs import default_plan, ok, one_line_error

MOHUR = [d.name for d in registered("mohur") if not d.search and d.round_robin]  # the registered heuristics
FAST = ",".join(d.name for d in registered("mohur") if not getattr(d, "search", False))  # search players are slow


def tables(folder):
    return {name: pd.read_parquet(folder / f"{name}.parquet") for name in ("games", "rounds")}


def run_ok(cli, *args):
    result = ok(cli("run", "mohur", "--no-report", "-q", *args))
    return result


def assert_same(a, b):
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name])


# ------------------------------------------------------------------ determinism


def test_identical_tables_for_one_and_two_jobs(cli, tmp_path):
    common = ["-n", 3000, "--batch-size", 500, "--seed", 11, "-s", FAST]
    run_ok(cli, *common, "-j", 1, "-o", tmp_path / "j1")
    run_ok(cli, *common, "-j", 2, "-o", tmp_path / "j2")
    a, b = tables(tmp_path / "j1"), tables(tmp_path / "j2")
    assert len(a["games"]) == 3000 and len(a["rounds"]) >= 6000
    assert_same(a, b)
    assert np.array_equal(a["games"]["match"].to_numpy(), np.arange(3000))
    # a different seed gives different tables
    run_ok(cli, *common[:-4], "--seed", 12, "-s", FAST, "-j", 1, "-o", tmp_path / "s12")
    c = tables(tmp_path / "s12")
    assert not a["rounds"].equals(c["rounds"])
    assert not np.array_equal(a["games"]["turns"].to_numpy(), c["games"]["turns"].to_numpy())


def test_parallel_run_counts_every_game_it_played():
    """The first batch of a parallel run plays in the main process (the kernel compiles once); the timing and
    the tables still cover every game."""
    spec, cfg, plan = default_plan("mohur", 2, 1200, 3, ["greedy", "random"], 300)
    tabs, timing = sim.runner.execute(spec, cfg, plan, jobs=2, progress=False)
    assert timing["games_played_now"] == 1200
    assert len(tabs["games"]) == 1200
    assert np.array_equal(tabs["games"]["match"].to_numpy(), np.arange(1200))


PLAY = sim.runner.run_one_batch  # the real one, whatever a test patches in its place


def play_and_name_the_process(game, cfg, plan, b, seed, debug):
    return {**PLAY(game, cfg, plan, b, seed, debug), "process": {"pid": np.array([os.getpid()])}}


def test_workers_started_before_the_first_batch_play_the_rest(monkeypatch):
    """loky's workers start while the main process plays the first batch (they import the engine and ready numba
    meanwhile); the batches after it are played by those same processes, not by new ones."""
    if not Path(f"/proc/{os.getpid()}/task").is_dir():
        pytest.skip("reads a process's children from Linux's /proc")
    import cloudpickle

    started, real_start = set(), sim.runner._start_workers

    def children() -> set[int]:
        return {int(pid) for task in Path(f"/proc/{os.getpid()}/task").iterdir()
                for pid in (task / "children").read_text().split()}

    def start(game, workers, loky):
        assert loky["initializer"] is sim.runner.start_worker
        warm = real_start(game, workers, loky)
        started.update(children())  # the worker processes, before the first batch plays
        return warm

    monkeypatch.setattr(sim.runner, "_start_workers", start)
    monkeypatch.setattr(sim.runner, "run_one_batch", play_and_name_the_process)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import the tests
    try:
        spec, cfg, plan = default_plan("mohur", 2, 2000, 3, ["greedy", "random"], 200)
        tabs, _ = sim.runner.execute(spec, cfg, plan, jobs=2, progress=False)
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    pids = tabs["process"]["pid"].tolist()
    assert len(pids) == 10 and pids[0] == os.getpid()  # the first batch plays here
    assert started and set(pids[1:]) <= started


def test_batch_seeds_depend_only_on_root_and_index():
    assert batch_seeds(5, 4) == batch_seeds(5, 4)
    assert batch_seeds(5, 4) != batch_seeds(6, 4)
    assert len(set(batch_seeds(5, 50))) == 50


def test_same_seed_same_tables_in_process(cli, tmp_path):
    run_ok(cli, "-n", 400, "--batch-size", 150, "-s", "greedy,random", "-o", tmp_path / "a")
    run_ok(cli, "-n", 400, "--batch-size", 150, "-s", "greedy,random", "-o", tmp_path / "b")
    assert_same(tables(tmp_path / "a"), tables(tmp_path / "b"))


# ------------------------------------------------------------------ seat rotation


def test_lineups_rotate_seats_for_two_strategies():
    plan = Plan("mohur", 2, 1000, 1, tuple(choices("mohur", {}, ["greedy", "random"])), 300)
    lu = lineups(plan, 0, 1000)
    assert (np.bincount(lu[:, 0], minlength=2) == [500, 500]).all()
    assert (lu[:, 0] != lu[:, 1]).all()
    # a pure function of the global game index: batch boundaries do not matter
    assert np.array_equal(np.concatenate([lineups(plan, 0, 300), lineups(plan, 300, 1000)]), lu)


def test_round_robin_every_pairing_with_mirrors():
    c = len(MOHUR)
    pairs = pairings(c, True)
    assert len(pairs) == c * (c + 1) // 2 and (0, 0) in pairs
    plan = Plan("mohur", 2, 2 * len(pairs) * 3, 1, tuple(choices("mohur", {}, MOHUR)), 100, round_robin=True)
    lu = lineups(plan, 0, plan.n_games)
    ordered = {}
    for a, b in lu:
        ordered[(a, b)] = ordered.get((a, b), 0) + 1
    assert set(ordered) == set(itertools.product(range(c), repeat=2))
    for a, b in itertools.product(range(c), repeat=2):
        assert ordered[(a, b)] == (6 if a == b else 3)
    for s in range(c):
        assert (lu[:, 0] == s).sum() == (lu[:, 1] == s).sum()


def test_round_robin_with_more_players_adds_mirror_games():
    names = ["greedy", "random", "denier"]
    c, p = len(names), 4
    plan = Plan("mughal", p, 2 * c * p * 5, 1, tuple(choices("mughal", {}, names)), 100, round_robin=True)
    lu = lineups(plan, 0, plan.n_games)
    mirror = (lu == lu[:, :1]).all(axis=1)
    assert mirror.mean() == 0.5
    for s in range(c):  # every strategy has its mirror games, and sits in every seat equally often elsewhere
        assert (mirror & (lu[:, 0] == s)).sum() == plan.n_games // (2 * c)
        counts = [(lu[~mirror, seat] == s).sum() for seat in range(p)]
        assert len(set(counts)) == 1
    assert not (lu[~mirror] == lu[~mirror][:, :1]).all(axis=1).any()
    assert np.array_equal(np.concatenate([lineups(plan, 0, 37), lineups(plan, 37, plan.n_games)]), lu)
    named = Plan("mughal", p, 120, 1, tuple(choices("mughal", {}, names)), 100, round_robin=False)
    assert not (lineups(named, 0, 120) == lineups(named, 0, 120)[:, :1]).all(axis=1).any()


def test_seat_rotation_in_results(cli, tmp_path):
    run_ok(cli, "-n", 200, "-s", "greedy,random", "-o", tmp_path / "two")
    g = tables(tmp_path / "two")["games"]
    assert (g["strategy_0"] != g["strategy_1"]).all()
    assert g["strategy_0"].value_counts().to_dict() == {"greedy": 100, "random": 100}
    assert g["strategy_1"].value_counts().to_dict() == {"greedy": 100, "random": 100}

    from sim.setup import load_setup
    every = [c.name for c in load_setup("mohur", None, (), None, "all")[3]]  # what `-s all` plays
    assert every == MOHUR + ["tuned"], "the registered heuristics, then the presets with round_robin = true"
    n_pairs = len(every) * (len(every) + 1) // 2
    run_ok(cli, "-n", 2 * n_pairs * 2, "-s", "all", "-o", tmp_path / "all")
    g = tables(tmp_path / "all")["games"]
    counts = g.groupby(["strategy_0", "strategy_1"], observed=True).size()
    assert len(counts) == len(every) ** 2, "every ordered pairing, mirrors included"
    for (a, b), n in counts.items():
        assert n == (4 if a == b else 2)
    for name in every:
        assert (g["strategy_0"] == name).sum() == (g["strategy_1"] == name).sum() == 4 + 2 * (len(every) - 1)


# ------------------------------------------------------------------ results folders


def leftovers(parent, out):
    return sorted(p.name for p in parent.iterdir() if p.name != out.name and out.name in p.name)


def test_failure_while_writing_leaves_no_output_folder(cli, tmp_path, monkeypatch):
    out = tmp_path / "res"

    def broken(sink):  # the tables are streamed to Parquet; the failure hits when they are finished
        (sink.folder / "games.parquet").write_bytes(b"half a file")
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(sim.results.ParquetSink, "close", broken)
    result = cli("run", "mohur", "-n", 50, "-s", "greedy,random", "-o", out, "--no-report", "-q")
    assert result.exit_code != 0
    assert not out.exists(), "a failed run left something at the output path"
    # Nothing that looks like finished results may be left. The only sibling tolerated is the documented
    # resumable staging folder `<out>.partial` (sim/results.py, `run --resume`), and it must say it is partial.
    left = leftovers(tmp_path, out)
    assert left in ([], ["res.partial"]), f"partial folders left: {left}"
    for name in left:
        meta = json.loads((tmp_path / name / "meta.json").read_text())
        assert meta.get("partial") is True


def test_failure_while_playing_leaves_no_output_folder(cli, tmp_path, monkeypatch):
    out = tmp_path / "res"
    real = sim.runner.run_one_batch

    def flaky(game, cfg, plan, b, seed, debug):
        if b == 2:
            raise RuntimeError("worker died (simulated)")
        return real(game, cfg, plan, b, seed, debug)

    monkeypatch.setattr(sim.runner, "run_one_batch", flaky)
    result = cli("run", "mohur", "-n", 200, "--batch-size", 50, "-s", "greedy,random", "-o", out,
                 "--no-report", "-q")
    assert result.exit_code != 0
    assert not out.exists()
    assert leftovers(tmp_path, out) in ([], ["res.partial"])


def test_failed_rerun_keeps_the_previous_results(cli, tmp_path, monkeypatch):
    out = tmp_path / "res"
    run_ok(cli, "-n", 60, "-s", "greedy,random", "-o", out)
    before = tables(out)

    def broken(sink):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(sim.results.ParquetSink, "close", broken)
    result = cli("run", "mohur", "-n", 80, "--seed", 3, "-s", "greedy,random", "-o", out, "--no-report", "-q")
    assert result.exit_code != 0
    assert_same(before, tables(out))
    monkeypatch.undo()
    # and a successful rerun replaces the earlier results folder whole
    run_ok(cli, "-n", 80, "--seed", 3, "-s", "greedy,random", "-o", out)
    assert len(tables(out)["games"]) == 80
    assert leftovers(tmp_path, out) == []


def test_existing_non_results_folder_is_refused(cli, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.txt").write_text("precious")
    one_line_error(cli("run", "mohur", "-n", 10, "-o", out, "--no-report", "-q"), str(out))
    assert sorted(p.name for p in out.iterdir()) == ["thesis.txt"]
    assert (out / "thesis.txt").read_text() == "precious"
    assert leftovers(tmp_path, out) == []
    # a plain file in the way is refused too
    f = tmp_path / "file"
    f.write_text("x")
    result = cli("run", "mohur", "-n", 10, "-o", f, "--no-report", "-q")
    assert result.exit_code == 2 and f.read_text() == "x"


def test_empty_folder_and_new_path_are_accepted(cli, tmp_path):
    (tmp_path / "empty").mkdir()
    run_ok(cli, "-n", 10, "-o", tmp_path / "empty")
    run_ok(cli, "-n", 10, "-o", tmp_path / "deeper" / "new")
    for folder in (tmp_path / "empty", tmp_path / "deeper" / "new"):
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["game"] == "mohur" and meta["games"] == 10 and not meta.get("partial")
        assert len(tables(folder)["games"]) == 10


def test_background_compile_hands_every_game_over_even_when_one_fails(monkeypatch):
    """`main` compiles kernels in the background and each run waits for its own: a job that fails (here, a game
    that does not exist) must release its run (which then reports the error itself), never hang it."""
    from sim import warmup
    plan = Plan("no-such-game", 2, 1, 0, (), 1)
    monkeypatch.setattr(warmup.os, "cpu_count", lambda: 2)  # two compile processes on any machine
    warmup.compile_kernels([("no-such-game", None, plan), ("nor-this-one", None, plan)], 2)
    assert set(warmup._PENDING) == {(game, step) for game in ("no-such-game", "nor-this-one")
                                    for step in ("kernel", "trace")}
    assert warmup.first_ready(["nor-this-one", "no-such-game"]) in {"no-such-game", "nor-this-one"}
    assert warmup.first_ready(["never-submitted", "no-such-game"]) == "never-submitted"  # nothing pending
    warmup.wait("nor-this-one")
    warmup.wait("no-such-game", "trace")  # a trace waits for its kernel, whose job failed: released all the same
    warmup.wait("no-such-game")
    warmup.wait("nor-this-one", "trace")
    warmup.wait("never-submitted")  # nothing pending: returns at once
    assert not warmup._PENDING
