"""Silent wrong results and lost data (issue 12, section 4): one writer per output folder, thread-safe
summary-only runs, our folders recognised by a marker, plans that cost no memory before a game is played,
checked saved batches, and interrupted runs, sweeps and tunes that are continued rather than discarded."""
import json
import os
import shutil
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import sim.batches
import sim.rng
import sim.runner
from sim.game import game_names
from sim.lock import exclusive
from sim.results import partial_path
from cli_runs import cli, default_plan, interrupt_at, listing, ok, one_line_error, same_tables, saved, wait_for_batches

GAMES = game_names()
SMALL = ["-j", "1", "--batch-size", "500", "-s", "greedy", "--seed", "7", "-q", "--no-report"]  # -j 1: interrupt_at counts batches played here


def whole_and_interrupted(tmp_path, monkeypatch, args, batch: int, *words):
    """`args` run whole into tmp_path/ref, then again into tmp_path/D with Ctrl-C in batch `batch` (the one error
    line names `words`); returns (D, ref)."""
    out, ref = tmp_path / "D", tmp_path / "ref"
    assert cli(*args, "-o", ref).exit_code == 0
    interrupt_at(monkeypatch, batch)
    one_line_error(cli(*args, "-o", out), *words)
    monkeypatch.undo()
    return out, ref


# ------------------------------------------------------------------ one writer per output folder


def test_a_second_writer_of_one_folder_is_refused(tmp_path):
    out = tmp_path / "D"
    with exclusive(out):
        one_line_error(cli("run", "mohur", "-n", 500, *SMALL, "-o", out), "another balance-sim", str(out))
        one_line_error(cli("run", "--resume", out), "another balance-sim")
        one_line_error(cli("run", "--resume", partial_path(out)), "another balance-sim")
        one_line_error(cli("sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "1", "-n", 500, "-q",
                           "-o", out), "another balance-sim")
        one_line_error(cli("tune", "mohur", "--param", "rules.coin_token", "--values", "0", "1", "--budget", 4000,
                           "--target", "turns_per_round=30..40", "-q", "-o", out), "another balance-sim")
    assert not out.exists() and not partial_path(out).exists()
    # released when the holder ends, and nothing is left behind
    assert cli("run", "mohur", "-n", 500, *SMALL, "-o", out).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["D"]


@pytest.mark.slow
def test_concurrent_runs_and_resumes_of_one_folder(tmp_path):
    """A real second process: a run in progress refuses a run and a resume of its folder; a resume in progress
    refuses another resume."""
    out = tmp_path / "D"
    # minutes of play: the run and its resume are still playing however late a loaded machine lets the checks run
    args = ["run", "mohur", "-n", str(10**7), "--batch-size", "250", "-s", "greedy", "-q", "--no-report", "-o",
            str(out)]
    first = subprocess.Popen([sys.executable, "-m", "sim.cli", *args], stderr=subprocess.PIPE, text=True)
    try:
        wait_for_batches(out, 1, first)
        one_line_error(cli("run", "mohur", "-n", 500, *SMALL, "-o", out), "another balance-sim")
        one_line_error(cli("run", "--resume", out), "another balance-sim")
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=120)
    resume = subprocess.Popen([sys.executable, "-m", "sim.cli", "run", "--resume", str(out), "-q", "--no-report"],
                              stderr=subprocess.PIPE, text=True)
    try:
        wait_for_batches(out, saved(out) + 1, resume)
        one_line_error(cli("run", "--resume", out), "another balance-sim")
    finally:
        resume.send_signal(signal.SIGINT)
        _, err = resume.communicate(timeout=120)
    assert resume.returncode == 2 and "--resume" in err


# ------------------------------------------------------------------ --summary-only with threads


@pytest.mark.parametrize("game", GAMES)
def test_summary_only_with_threads_is_exact_and_clean(tmp_path, game):
    """Batches summarised side by side in threads: every batch counted, no internal fields in summary.json,
    and the figures identical to a one-worker run (repeated: the race it guards against is intermittent)."""
    common = ["run", game, "-n", 3000, "--summary-only", *SMALL]
    assert cli(*common, "-o", tmp_path / "one").exit_code == 0
    reference = json.loads((tmp_path / "one" / "summary.json").read_text())
    for attempt in range(3):
        out = tmp_path / f"threads-{attempt}"
        ok(cli(*common, "-j", 2, "--backend", "threading", "-o", out))
        summary = json.loads((out / "summary.json").read_text())
        leaked = [(name, key) for name, m in summary.items() if isinstance(m, dict) for key in m if key.startswith("_")]
        assert not leaked
        assert summary == reference


# ------------------------------------------------------------------ folders that are not ours


def test_a_folder_with_someone_elses_meta_json_is_refused_untouched(tmp_path):
    data = tmp_path / "dataset"
    (data / "sub").mkdir(parents=True)
    (data / "meta.json").write_text('{"name": "my survey", "rows": 3}')
    (data / "data.csv").write_text("a,b\n1,2\n")
    (data / "sub" / "x.txt").write_text("x")
    before = listing(data)
    one_line_error(cli("run", "mohur", "-n", 500, *SMALL, "-o", data), str(data), "not a balance-sim")
    one_line_error(cli("sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "1", "-n", 500, "-q",
                       "-o", data), "not a balance-sim")
    assert listing(data) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataset"]


def test_an_unrelated_partial_folder_keeps_its_contents(tmp_path):
    out = tmp_path / "D"
    stranger = partial_path(out)
    stranger.mkdir()
    (stranger / "draft.txt").write_text("mine")
    one_line_error(cli("run", "mohur", "-n", 500, *SMALL, "-o", out), str(stranger))
    one_line_error(cli("run", "--resume", out), "not a balance-sim run")
    assert listing(stranger) == {"draft.txt": b"mine"} and not out.exists()


def test_rerun_replaces_only_what_we_wrote(tmp_path):
    out = tmp_path / "D"
    assert cli("run", "mohur", "-n", 500, *SMALL, "-o", out).exit_code == 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["format"] == "balance-sim-results" and meta["format_version"] == 1
    (out / "notes.txt").write_text("seed 7 looked odd")
    (out / "mine").mkdir()
    (out / "mine" / "plot.png").write_bytes(b"png")
    assert cli("run", "mohur", "-n", 1000, *SMALL[:-4], "--seed", 8, "-q", "-o", out).exit_code == 0
    assert (out / "notes.txt").read_text() == "seed 7 looked odd"
    assert (out / "mine" / "plot.png").read_bytes() == b"png"
    assert json.loads((out / "meta.json").read_text())["seed"] == 8 and (out / "report.html").is_file()
    assert len(pd.read_parquet(out / "games.parquet")) == 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["D"]  # no old or staging folder left


def test_results_folders_of_earlier_versions_are_still_ours(tmp_path):
    """Folders written before the marker (meta.json with our version field) are replaced, user files kept."""
    out = tmp_path / "D"
    assert cli("run", "mohur", "-n", 500, *SMALL, "-o", out).exit_code == 0
    meta = json.loads((out / "meta.json").read_text())
    for key in ("format", "format_version", "files"):
        meta.pop(key)
    (out / "meta.json").write_text(json.dumps(meta))
    (out / "notes.txt").write_text("keep")
    assert cli("run", "mohur", "-n", 500, *SMALL, "-o", out).exit_code == 0
    assert (out / "notes.txt").read_text() == "keep"


# ------------------------------------------------------------------ sizes that cost memory before a game


def test_batch_seeds_are_made_one_by_one():
    children = np.random.SeedSequence(9).spawn(40)
    expected = [int(c.generate_state(1, dtype=np.uint32)[0]) for c in children]
    assert [sim.runner.batch_seed(9, b) for b in range(40)] == expected == sim.rng.batch_seeds(9, 40)


def test_a_huge_plan_costs_nothing_before_its_first_games(monkeypatch):
    """10**12 games: batches and seeds are generated as they are handed out, never listed."""
    import tracemalloc

    def no_lists(root, n):
        raise AssertionError(f"the plan was materialised: batch_seeds({root}, {n})")

    monkeypatch.setattr(sim.rng, "batch_seeds", no_lists)
    spec, cfg, plan = default_plan("mohur", 2, 10**12, 3, ["greedy"], 200)

    class Enough(Exception):
        pass

    seen = []

    def sink(b, tables):
        seen.append(b)
        if len(seen) == 3:
            raise Enough

    tracemalloc.start()
    with pytest.raises(Enough):
        sim.runner.execute(spec, cfg, plan, progress=False, sink=sink)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert seen == [0, 1, 2]
    assert peak < 64 * 2**20


def test_workers_are_capped_at_the_batches_and_too_many_are_said(monkeypatch, capsys):
    assert sim.runner.worker_count(1000, 2, "loky", None) == 2
    assert "warning" not in capsys.readouterr().err  # 1000 asked, but only 2 will start: nothing to warn of
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert sim.runner.worker_count(1000, 50, "loky", None) == 50
    assert "more than the 2 cores" in capsys.readouterr().err
    assert sim.runner.worker_count(-1, 50, "loky", None) == 2
    assert sim.runner.worker_count(4, 1, "threading", None) == 1


def test_a_thousand_workers_for_three_batches_start_two(tmp_path, monkeypatch):
    import joblib
    asked = []
    real = joblib.Parallel.__init__

    def record(self, n_jobs=None, **kw):
        asked.append(n_jobs)
        real(self, n_jobs=n_jobs, **kw)

    monkeypatch.setattr(joblib.Parallel, "__init__", record)
    ok(cli("run", "mohur", "-n", 1500, *SMALL, "-j", 1000, "--backend", "threading", "-o", tmp_path / "D"))
    assert asked == [2]  # the first batch plays in the main process, two are left


@pytest.mark.parametrize("args, words", [
    (["sweep", "mohur", "--param", "rules.coin_token", "--range", "0:1000000000:1"], ["1,000,000,001 values"]),
    (["tune", "mohur", "--param", "rules.coin_token", "--range", "0:1000000000:1", "--budget", "4000",
      "--target", "turns_per_round=30..40"], ["at most 10,000"]),
    (["sweep", "mohur", "--param", "rules.coin_token", "--range", "0:99:1", "--param", "rules.hand_limit",
      "--range", "1:11:1"], ["1,100 variants", "at most 1,000"]),
    (["tune", "mohur", "--param", "rules.coin_token", "--values", "0", "1", "--budget", str(10**12),
      "--target", "turns_per_round=30..40"], ["held in memory"]),
    (["sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "1", "-n", str(10**9)], ["held in memory"]),
    (["tune", "mohur", "--param", "rules.coin_token", "--values", "0", "--max-candidates", "100000", "--budget",
      "4000", "--target", "turns_per_round=30..40"], ["--max-candidates"]),
])
def test_grids_and_budgets_beyond_the_stated_maxima_are_refused(tmp_path, args, words):
    out = tmp_path / "out"
    one_line_error(cli(*args, "-q", "-o", out), *words)
    assert list(tmp_path.iterdir()) == []


def test_tune_samples_a_huge_grid_without_building_it(tmp_path):
    """Two parameters of 10,000 values each (10**8 cells): the 64 candidates are drawn by index."""
    from sim.variants import grid, grid_cell
    params = [("a", [1, 2, 3]), ("b", ["x", "y"]), ("c", [0.5, 1.5])]
    assert [grid_cell(params, i) for i in range(12)] == grid(params)
    r = cli("tune", "mohur", "--param", "rules.coin_token", "--range", "0:9999:1", "--param", "rules.hand_limit",
            "--range", "1:10000:1", "--budget", 1000, "--target", "turns_per_round=30..40", "-q",
            "-o", tmp_path / "t")
    # sampled in no time: the first sampled hand limit above 30 is refused (building 10**8 cells would take
    # minutes and gigabytes before that)
    one_line_error(r, "rules.hand_limit", "allowed: 1 to 30")


# ------------------------------------------------------------------ saved batches are checked


@pytest.mark.slow
def test_resume_replays_damaged_batches_and_names_them(tmp_path, monkeypatch):
    out, ref = whole_and_interrupted(tmp_path, monkeypatch, ["run", "mohur", "-n", 3000, *SMALL], 5,
                                     "interrupted: 5 of 6 batches")
    batches = partial_path(out) / "batches"
    shutil.copy(batches / "batch-0000001.npz", batches / "batch-0000002.npz")  # a copy of another batch
    data = (batches / "batch-0000003.npz").read_bytes()
    (batches / "batch-0000003.npz").write_bytes(data[: len(data) // 2])  # truncated
    # rewritten with one changed value, its label (identity and checksum) intact
    tables, check = sim.batches._read(batches / "batch-0000004.npz", False)
    tables = {name: {col: arr.copy() for col, arr in cols.items()} for name, cols in tables.items()}
    tables["games"]["turns"][0] += 1
    sim.batches.write_tables(batches / "batch-0000004.npz", tables, check["identity"], check["digest"],
                             check["context"])
    # a partial report leaves the damaged batches out, naming them, instead of a traceback
    r = ok(cli("report", partial_path(out), "-o", tmp_path / "partial-report"))
    assert json.loads((tmp_path / "partial-report" / "summary.json").read_text())["games"] == 1000
    assert cli("report", partial_path(out)).exit_code == 0  # written into the .partial folder itself
    r = ok(cli("run", "--resume", out, "-q", "--no-report"))
    assert not (out / "summary.json").exists() and not (out / "report.html").exists()  # not the partial's
    assert "batch-0000002.npz (holds batch 1)" in r.stderr
    assert "batch-0000003.npz (unreadable" in r.stderr
    assert "batch-0000004.npz (checksum mismatch)" in r.stderr
    same_tables(out, ref, "mohur")


def test_saved_batches_read_back_whole_in_order_in_both_formats(tmp_path):
    """A batch file gives back every column, in its order, dtype and values (labels included), whether written
    as one buffer (now) or with an entry per column (before), and is judged sound either way. Labels saved
    pickled (before) are refused, never unpickled (tests/test_folder_safety.py)."""
    from sim.batches import CHECK, ForeignBatch, _digest_tables, load_batch, problem, save_batch
    tables = {"games": {"game": np.arange(3, dtype=np.int64), "odd": np.array([1, -2, 3], dtype=np.int8),
                        "label": np.array(["a", "bb", "c"], dtype=object), "share": np.array([0.5, 1.0, 0.0])},
              "counts": {"n": np.array([7], dtype=np.int16)}}
    save_batch(tmp_path / "new", 0, tables, seed=5, bounds=(0, 3))
    pickled = tmp_path / "pickled"
    pickled.mkdir()
    with open(pickled / "batch-0000000.npz", "wb") as f:
        np.savez(f, **{f"{t}/{c}": a for t, cols in tables.items() for c, a in cols.items()},
                 **{f"{CHECK}/identity": np.array([0, 5, 0, 3], dtype=np.int64),
                    f"{CHECK}/digest": np.frombuffer(bytes.fromhex(_digest_tables(tables)), dtype=np.uint8)})
    with pytest.raises(ForeignBatch, match="pickled"):
        problem(pickled, 0, 5, (0, 3), "game")
    plain = {"games": {k: v for k, v in tables["games"].items() if k != "label"}, "counts": tables["counts"]}
    old = tmp_path / "old"
    old.mkdir()
    arrays = {f"{t}/{c}": a for t, cols in plain.items() for c, a in cols.items()}
    arrays[f"{CHECK}/identity"] = np.array([0, 5, 0, 3], dtype=np.int64)
    arrays[f"{CHECK}/digest"] = np.frombuffer(bytes.fromhex(_digest_tables(plain)), dtype=np.uint8)
    with open(old / "batch-0000000.npz", "wb") as f:
        np.savez(f, **arrays)
    for folder, tables in ((tmp_path / "new", tables), (old, plain)):
        back = load_batch(folder, 0)
        assert list(back) == list(tables)
        for name, cols in tables.items():
            assert list(back[name]) == list(cols)
            for col, arr in cols.items():
                assert back[name][col].dtype == arr.dtype and back[name][col].tolist() == arr.tolist()
        assert problem(folder, 0, 5, (0, 3), "game") is None


def test_summary_only_resume_checks_its_batches_too(tmp_path, monkeypatch):
    out, ref = whole_and_interrupted(tmp_path, monkeypatch, ["run", "muziris", "-n", 2000, "--summary-only", *SMALL], 3,
                                     "interrupted")
    batches = partial_path(out) / "batches"
    shutil.copy(batches / "batch-0000000.json", batches / "batch-0000001.json")
    r = cli("run", "--resume", out, "-q")
    assert r.exit_code == 0 and "batch-0000001.json (holds batch 0)" in r.stderr
    assert json.loads((out / "summary.json").read_text()) == json.loads((ref / "summary.json").read_text())


# ------------------------------------------------------------------ interrupted runs are continued, not lost


def test_the_same_command_again_continues_an_interrupted_run(tmp_path, monkeypatch):
    out, ref = whole_and_interrupted(tmp_path, monkeypatch, ["run", "mughal", "-n", 2500, *SMALL], 3,
                                     "interrupted: 3 of 5 batches")
    # other settings: refused, and the saved batches stay
    before = listing(partial_path(out))
    one_line_error(cli("run", "mughal", "-n", 2500, *SMALL[:-4], "--seed", 8, "-q", "--no-report", "-o", out),
                   "other settings", "--resume")
    assert listing(partial_path(out)) == before
    r = ok(cli("run", "mughal", "-n", 2500, *SMALL, "-o", out))
    assert "continuing the interrupted run" in r.stderr and "3 saved parts" in r.stderr
    assert "cannot be trusted" not in r.stderr
    assert json.loads((out / "meta.json").read_text())["timing"]["games_played_now"] == 1000
    same_tables(out, ref, "mughal")


def test_interrupted_summary_only_run_reports_its_saved_batches(tmp_path, monkeypatch):
    out = tmp_path / "D"
    interrupt_at(monkeypatch, 3)
    line = one_line_error(cli("run", "mohur", "-n", 3000, "--summary-only", *SMALL, "-o", out), "3 of 6 batches")
    assert f"balance-sim report {partial_path(out)}" in line
    ok(cli("report", partial_path(out), "-o", tmp_path / "R"))
    summary = json.loads((tmp_path / "R" / "summary.json").read_text())
    assert summary["games"] == 1500 and summary["partial"] is True
    assert summary["rounds_per_match"]["n"] == 1500


SWEEP = ["sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "3", "5", "-n", 1000, "--batch-size", 500,
         "-s", "greedy", "-q"]
TUNE = ["tune", "mohur", "--param", "rules.seals_to_win", "--values", "1", "2", "3", "--target",
        "rounds_per_match=0.95..1.05", "--budget", 6000, "--batch-size", 500, "-s", "greedy", "-q"]


@pytest.mark.parametrize("command", [SWEEP, TUNE], ids=["sweep", "tune"])
@pytest.mark.slow
def test_interrupted_sweeps_and_tunes_continue_with_the_same_command(tmp_path, monkeypatch, command):
    out, ref = tmp_path / "D", tmp_path / "ref"
    assert cli(*command, "-o", ref).exit_code == 0
    interrupt_at(monkeypatch, 4, nth=True)  # four batches in: the second variant, or the second candidate
    line = one_line_error(cli(*command, "-o", out), "interrupted", f"balance-sim {command[0]}")
    assert str(partial_path(out)) in line
    monkeypatch.undo()
    one_line_error(cli("run", "--resume", out), f"interrupted {command[0]}", f"'balance-sim {command[0]}'")
    r = ok(cli(*command, "-o", out))
    assert "continuing the interrupted run" in r.stderr
    if command[0] == "sweep":
        pd.testing.assert_frame_equal(pd.read_csv(out / "sweep.csv"), pd.read_csv(ref / "sweep.csv"))
    else:
        assert json.loads((out / "tune.json").read_text()) == json.loads((ref / "tune.json").read_text())
