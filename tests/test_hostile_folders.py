"""Issue 39, sections 2-4: what a hostile (or unlucky) user does is one line, exit 2, nothing half-written: '.' as a
folder, numbers beyond 64 bits, names too long to stage, broken environment variables, FIFOs inside folders, huge
labels, and Ctrl-C or SIGTERM at any moment (signals in subprocesses, each sent once a readiness marker appears)."""
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from cli_runs import alive, cli, interrupt_at, ok, one_line_error

SMALL = ["-j", "1", "--batch-size", "100", "-s", "greedy,racer", "--seed", "7", "-q"]
HUGE = 2**64
TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A finished Mohur run without its report (G), one with --summary-only (S) and an interrupted one (P)."""
    base = tmp_path_factory.mktemp("hostile")
    ok(cli("run", "mohur", "-n", 300, *SMALL, "--no-report", "-o", base / "G"))
    ok(cli("run", "mohur", "-n", 300, *SMALL, "--summary-only", "--no-report", "-o", base / "S"))
    mp = pytest.MonkeyPatch()
    interrupt_at(mp, 2)
    cut = cli("run", "mohur", "-n", 400, *SMALL, "--no-report", "-o", base / "P")
    mp.undo()
    assert cut.exit_code == 2 and (base / "P.partial" / "batches").is_dir(), cut.output
    return base


def copy(runs: Path, name: str, to: Path) -> Path:
    import shutil
    shutil.copytree(runs / name, to, symlinks=True)
    return to


@contextlib.contextmanager
def never_blocks(seconds: int = 120):
    """Fails (rather than hangs) if the block blocks: SIGALRM ends a blocked open or read."""
    def blocked(signum, frame):
        raise AssertionError(f"blocked for {seconds} s (a FIFO opened?)")

    old = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------------------------ 2. tracebacks


def test_dot_is_the_folder_it_names(runs, tmp_path, monkeypatch):
    folder = copy(runs, "G", tmp_path / "G")
    monkeypatch.chdir(folder)
    assert ok(cli("report", ".", "-q")).stdout.strip() == str(folder / "report.html")
    assert (folder / "report.html").is_file() and not (folder.parent / ".G.lock").exists()
    ok(cli("report", ".", "-o", tmp_path / "R", "-q"))
    assert (tmp_path / "R" / "report.html").is_file()
    ok(cli("compare", ".", runs / "G", "-o", tmp_path / "C", "-q"))
    assert ok(cli("trace", "--run", ".", "--game", "1")).stdout.count("\n") > 3
    one_line_error(cli("evolve", "--resume", "."), f"{folder}.partial")  # named, not "'.' has an empty name"
    one_line_error(cli("run", "--resume", "."), f"{folder}.partial")
    monkeypatch.chdir(tmp_path / "R")
    ok(cli("report", runs / "G", "-o", ".", "-q"))  # into the current folder, by its name


def test_a_parameter_beyond_64_bits_is_one_line(runs, tmp_path):
    one_line_error(cli("run", "mohur", "-n", 10, *SMALL, "--set", f"strategies.tuned.small_sale={HUGE}", "-o",
                       tmp_path / "a"), "strategies.tuned.small_sale", "allowed: -20.0 to 20.0")
    unused = tmp_path / "unused.toml"  # a preset the run does not play is checked all the same
    unused.write_text(f'[strategies.mine]\nbase = "weighted"\nhand_value = {HUGE}\n')
    one_line_error(cli("run", "mohur", "-n", 10, *SMALL, "--config", unused, "-o", tmp_path / "b"),
                   "strategies.mine.hand_value", "allowed:")
    beyond = tmp_path / "beyond.toml"  # a parameter without bounds: beyond any float64
    beyond.write_text(f'[strategies.mine]\nbase = "greedy"\ntake_weight = 1{"0" * 400}\n')
    line = one_line_error(cli("run", "mohur", "-n", 10, *SMALL, "--config", beyond, "-o", tmp_path / "c"),
                          "strategies.mine.take_weight")
    assert len(line) < 1000, line
    folder = copy(runs, "G", tmp_path / "G")
    meta = json.loads((folder / "meta.json").read_text())
    meta["strategies"][0]["params"][0] = HUGE
    (folder / "meta.json").write_text(json.dumps(meta))
    one_line_error(cli("report", folder), "strategies' 0", "params.")
    assert not [p for p in ("a", "b", "c") if os.path.lexists(tmp_path / p)]


def test_names_too_long_to_stage_are_refused_up_front(tmp_path):
    from sim.inputs import ADDED_TO_NAME
    longest = os.pathconf(tmp_path, "PC_NAME_MAX") - ADDED_TO_NAME
    for name in ("n" * 250, "n" * 247, "n" * (longest + 1)):
        one_line_error(cli("run", "mohur", "-n", 10, *SMALL, "-o", tmp_path / name), "its name is", "at most")
        one_line_error(cli("report", tmp_path, "-o", tmp_path / name), "its name is")
    deep = tmp_path.joinpath(*["d" * 200] * 21)
    one_line_error(cli("run", "mohur", "-n", 10, *SMALL, "-o", deep), "full path", "at most")
    one_line_error(cli("report", deep), "full path")
    assert sorted(os.listdir(tmp_path)) == []
    out = tmp_path / ("n" * longest)  # the longest name allowed: staged, locked and replaced twice over
    for _ in range(2):
        ok(cli("run", "mohur", "-n", 100, *SMALL, "--no-report", "-o", out))
    assert sorted(os.listdir(tmp_path)) == [out.name]


def balance_sim(*args, env=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "sim.cli", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300, **kwargs)


def assert_one_line(done, *words):
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("balance-sim: error: "), done.stderr
    assert all(w in lines[0] for w in words), lines[0]
    return lines[0]


@pytest.mark.parametrize("name, value, words", [
    ("BALANCE_SIM_CACHE", "/dev/null", ["BALANCE_SIM_CACHE=/dev/null", "not a folder"]),
    ("BALANCE_SIM_CACHE", "FILE", ["BALANCE_SIM_CACHE=", "not a folder"]),
    ("NUMBA_OPT", "banana", ["NUMBA_OPT=banana", "0, 1, 2, 3 or max"]),
    ("NUMBA_DISABLE_JIT", "banana", ["NUMBA_DISABLE_JIT=banana", "whole number"]),
    ("NUMBA_NUM_THREADS", "0", ["NUMBA_NUM_THREADS=0", "at least 1"]),
])
def test_a_broken_environment_variable_is_one_line(tmp_path, name, value, words):
    if value == "FILE":
        value = str(tmp_path / "a-file")
        Path(value).write_text("")
    assert_one_line(balance_sim("strategies", "mohur", env={name: value}), *words)


def test_odd_scheduler_and_a_damaged_variant_summary(tmp_path, monkeypatch):
    one_line_error(cli("run", "mohur", "-n", 10, "--backend", "dask", "--scheduler", "tcp://[::1", "-o",
                       tmp_path / "d"), "--scheduler tcp://[::1", "tcp://HOST:8786")
    sweep = ["sweep", "mohur", "--param", "rules.coin_token", "--values", "2", "3", "-n", 200, *SMALL, "-o",
             tmp_path / "S"]
    interrupt_at(monkeypatch, 3, nth=True)  # the second variant's first batch: the first variant is finished
    assert cli(*sweep).exit_code == 2
    monkeypatch.undo()
    summary_path = tmp_path / "S.partial" / "variant-000" / "summary.json"
    summary = json.loads(summary_path.read_text())
    figure = next(k for k, v in summary.items() if isinstance(v, dict) and "estimate" in v)
    summary[figure]["estimate"] = "abc"
    summary_path.write_text(json.dumps(summary))
    ok(cli(*sweep))  # the damaged variant is played again, not fed to the paired differences
    table = pd.read_csv(tmp_path / "S" / "sweep.csv")
    assert pd.api.types.is_float_dtype(table[figure]) and table[figure].notna().all()


def test_a_batch_file_replaced_by_a_folder_is_one_line(runs, tmp_path):
    copy(runs, "P.partial", tmp_path / "P.partial")
    batch = next((tmp_path / "P.partial" / "batches").glob("batch-*.npz"))
    batch.unlink()
    batch.mkdir()
    for args in (("run", "--resume", tmp_path / "P"), ("report", tmp_path / "P.partial")):
        one_line_error(cli(*args), batch.name, "a folder")
    assert batch.is_dir()


# ------------------------------------------------------------------ 3. hangs


def test_fifos_inside_folders_are_refused_not_opened(runs, tmp_path):
    def fifo(path: Path) -> None:
        path.unlink()
        os.mkfifo(path)

    with never_blocks():
        g = copy(runs, "G", tmp_path / "G")
        fifo(g / "meta.json")
        one_line_error(cli("report", g), "meta.json", "named pipe")
        one_line_error(cli("run", "mohur", "-n", 10, *SMALL, "-o", g), str(g))
        one_line_error(cli("report", runs / "G", "-o", g), str(g))
        one_line_error(cli("evolve", "mohur", "--strategy", "hoarder", "--budget", 1000, "-o", g), str(g))
        p = copy(runs, "P.partial", tmp_path / "P.partial")
        fifo(p / "meta.json")
        one_line_error(cli("report", p), "meta.json", "named pipe")
        p2 = copy(runs, "P.partial", tmp_path / "Q.partial")
        fifo(next((p2 / "batches").glob("batch-*.npz")))
        one_line_error(cli("report", p2), "named pipe")
        one_line_error(cli("run", "--resume", tmp_path / "Q"), "named pipe")
        s = copy(runs, "S", tmp_path / "S")
        fifo(s / "summary.json")
        one_line_error(cli("report", s), "summary.json", "named pipe")
        t = copy(runs, "G", tmp_path / "T")
        fifo(next(t.glob("*.parquet")))
        one_line_error(cli("report", t), ".parquet")


def test_summary_only_batches_that_are_fifos(tmp_path, monkeypatch):
    interrupt_at(monkeypatch, 2)
    assert cli("run", "mohur", "-n", 400, *SMALL, "--summary-only", "-o", tmp_path / "U").exit_code == 2
    monkeypatch.undo()
    batch = next((tmp_path / "U.partial" / "batches").glob("batch-*.json"))
    batch.unlink()
    os.mkfifo(batch)
    with never_blocks():
        one_line_error(cli("report", tmp_path / "U.partial"), batch.name, "named pipe")
        one_line_error(cli("run", "--resume", tmp_path / "U"), batch.name, "named pipe")


def test_a_huge_strategy_label_is_refused_when_read(runs, tmp_path):
    folder = copy(runs, "G", tmp_path / "G")
    path = folder / "games.parquet"
    games = pd.read_parquet(path)
    games["strategy_0"] = games["strategy_0"].cat.rename_categories(
        {"greedy": "g" * 1_000_000})
    games.to_parquet(path, index=False)
    one_line_error(cli("report", folder), "strategy_0", "1,000,000 characters", "at most 200")
    one_line_error(cli("run", "mohur", "-n", 10, *SMALL, "--set", f"strategies.{'x' * 300}.base=\"greedy\"", "-o",
                       tmp_path / "x"), "300 characters", "at most 200")


# ------------------------------------------------------------------ 4. signals (the installed program)


def driven(tmp_path, target: str, nth: int, mode: str, *args):
    """balance-sim ARGS in a process whose `target` waits at its nth call (tests/signal_driver.py)."""
    marker = tmp_path / f"ready-{len(list(tmp_path.glob('ready-*')))}"
    proc = subprocess.Popen([sys.executable, str(TESTS / "signal_driver.py"), target, str(nth), mode, str(marker),
                             "--", *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path)
    return proc, marker


def when_ready(proc, marker: Path, timeout: float = 600) -> int:
    """The pid the marker names, once it appears (the process reached the moment)."""
    deadline = time.monotonic() + timeout
    while not (marker.exists() and marker.read_text().strip()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{marker} never appeared"
        time.sleep(0.05)
    return int(marker.read_text())


def ended(proc, *words):
    """The process ended with one line `balance-sim: error: ...` naming `words` (after progress lines), exit 2."""
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 2, (out, err)
    assert "Traceback" not in err, err
    line = err.strip().splitlines()[-1]
    assert line.startswith("balance-sim: error: interrupted"), err
    assert all(w in line for w in words), line
    return line


def no_leftovers(folder: Path) -> None:
    """No lock file and no report staging folder beside `folder` or in it."""
    near = [p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}")]
    inside = [p.name for p in folder.iterdir() if p.name.startswith(".report-")] if folder.is_dir() else []
    assert near == [] and inside == [], (near, inside)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
@pytest.mark.parametrize("mode", ["raise", "swallow"])
def test_a_signal_while_report_plots_is_always_the_same_line(runs, tmp_path, sig, mode):
    folder = copy(runs, "G", tmp_path / "G")
    proc, marker = driven(tmp_path, "matplotlib.figure:Figure.savefig", 1, mode, "report", folder, "-q")
    os.kill(when_ready(proc, marker), sig)
    ended(proc, "no report written", str(folder))
    assert not (folder / "report.html").exists() and not (folder / "summary.json").exists()
    no_leftovers(folder)


@pytest.mark.slow
def test_sigterm_or_kill_during_report_leaves_nothing_for_long(runs, tmp_path):
    folder = copy(runs, "G", tmp_path / "G")
    proc, marker = driven(tmp_path, "matplotlib.figure:Figure.savefig", 1, "raise", "report", folder, "-q")
    pid = when_ready(proc, marker)
    os.kill(pid, signal.SIGKILL)
    proc.communicate()
    assert (folder / f".report-{pid}.tmp").is_dir()  # what kill -9 leaves ...
    (folder / ".report-1.tmp").mkdir()  # ... and a staging folder of a live process (init): never touched
    ok(cli("report", folder, "-q"))
    assert not (folder / f".report-{pid}.tmp").exists() and (folder / ".report-1.tmp").is_dir()


@pytest.mark.slow
def test_sigterm_in_the_report_phase_of_a_run(tmp_path):
    proc, marker = driven(tmp_path, "sim.commands.run_cmd:build_report", 1, "raise",
                          "run", "mohur", "-n", 200, *SMALL, "-o", tmp_path / "R")
    os.kill(when_ready(proc, marker), signal.SIGTERM)
    ended(proc, "2 of 2 batches are saved", "run --resume")
    assert not (tmp_path / "R").exists() and (tmp_path / "R.partial").is_dir()
    no_leftovers(tmp_path / "R")


@pytest.mark.slow
def test_sigterm_in_sensitivity_between_points(tmp_path):
    proc, marker = driven(tmp_path, "sim.commands.sensitivity_cmd:summary_for", 1, "raise",
                          "sensitivity", "mohur", "--param", "rules.coin_token=2:4", "-n", 100, *SMALL,
                          "-o", tmp_path / "N")
    os.kill(when_ready(proc, marker), signal.SIGTERM)
    ended(proc, "nothing is saved")
    no_leftovers(tmp_path / "N")


@pytest.mark.slow
def test_sigterm_mid_evolve_then_resume_counts_its_generations(tmp_path):
    args = ["--against", "greedy,racer", "--budget", 1000, "--popsize", 4, "--validation-games", 20, "--seed", 4,
            "-j", 1]
    proc, marker = driven(tmp_path, "sim.evolve:Arena.evaluate", 3, "raise",
                          "evolve", "mohur", "--strategy", "hoarder", *args, "-o", tmp_path / "E")
    os.kill(when_ready(proc, marker), signal.SIGTERM)
    ended(proc, "2 generation(s) are saved")
    no_leftovers(tmp_path / "E")
    resumed = balance_sim("evolve", "--resume", tmp_path / "E")
    assert resumed.returncode == 0, resumed.stderr
    assert "(2 saved parts kept)" in resumed.stderr, resumed.stderr


@pytest.mark.slow
def test_ctrl_c_while_exploit_measures_the_field(tmp_path):
    proc, marker = driven(tmp_path, "sim.runner:run_one_batch", 1, "go",
                          "exploit", "mohur", "--field-games", 200, "--budget", 400, "-j", 1, "-o", tmp_path / "X")
    os.kill(when_ready(proc, marker), signal.SIGINT)
    Path(f"{marker}.go").write_text("")
    ended(proc, "measuring the field")
    no_leftovers(tmp_path / "X")


@pytest.mark.slow
def test_ctrl_c_stops_a_search_players_evolve_without_waiting_for_its_batch(tmp_path):
    """A search player's batch runs in a worker (a compiled kernel would keep this process deaf to Ctrl-C): a batch
    that never ends does not hold up the first Ctrl-C, and the worker goes with it."""
    proc, marker = driven(tmp_path, "sim.evolve:candidate_shares", 1, "forever",
                          "evolve", "mohur", "--strategy", "expert-fast", "--param", "iterations", "--budget", 400,
                          "--batch-size", 20, "-j", 1, "--against", "greedy", "-o", tmp_path / "E")
    worker = when_ready(proc, marker)
    assert worker != proc.pid
    os.kill(proc.pid, signal.SIGINT)
    line = ended(proc, "0 generation(s) are saved")
    assert "evolve --resume" in line
    deadline = time.monotonic() + 120
    while alive(worker):
        assert time.monotonic() < deadline, "the worker outlived the command"
        time.sleep(0.1)
    no_leftovers(tmp_path / "E")


# ------------------------------------------------------------------ 4. messages and what is kept


def test_trace_with_run_refuses_what_the_run_decides(runs):
    for extra in (["-s", "racer"], ["--seed", "3"], ["--batch-size", "7"], ["-p", "2"]):
        one_line_error(cli("trace", "--run", runs / "G", "--game", 1, *extra), extra[0], "--run")
        one_line_error(cli("replay", "--run", runs / "G", "--game", 1, *extra), extra[0], "--run")


def test_a_users_file_under_one_of_our_names_stays_where_it_is(runs, tmp_path):
    for name in ("summary.json", "replays"):
        folder = copy(runs, "G", tmp_path / name.replace(".", "-"))
        (folder / name).mkdir() if name == "replays" else (folder / name).write_text("mine")
        one_line_error(cli("run", "mohur", "-n", 100, *SMALL, "-o", folder), name, "not balance-sim's")
        assert (folder / name).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_long_values_are_cut_and_paths_said_once(runs, tmp_path):
    line = one_line_error(cli("run", "mohur", "-n", 10, *SMALL, "--set", f"strategies.tuned.small_sale=\"{'a' * 100_000}\"",
                              "-o", tmp_path / "a"), "strategies.tuned.small_sale")
    assert len(line) < 1000 and "characters cut)" in line, line
    folder = copy(runs, "G", tmp_path / "G")
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps({**meta, "round_robin": "yes"}))
    line = one_line_error(cli("report", folder), "'round_robin'", "true or false")
    assert line.count("meta.json") == 1, line


def test_evolve_validates_on_no_more_games_than_its_budget_unless_told(tmp_path):
    args = ["evolve", "mohur", "--strategy", "hoarder", "--against", "greedy,racer", "--budget", 1000, "--popsize", 4,
            "--seed", 4, "-j", 1, "-q"]
    ok(cli(*args, "-o", tmp_path / "E"))
    assert json.loads((tmp_path / "E" / "evolve.json").read_text())["setup"]["validation_games"] == 1000 // 5
    ok(cli(*args, "--validation-games", 30, "-o", tmp_path / "F"))
    assert json.loads((tmp_path / "F" / "evolve.json").read_text())["setup"]["validation_games"] == 30
