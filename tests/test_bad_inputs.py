"""Every bad input of issue 12 (section 5): one line on stderr naming the problem, exit code 2, no traceback, and
a snapshot of the scratch folder (paths and bytes) unchanged, all before any game of the run is played."""
import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

import analysis.report
import sim.rng
from sim.commands import run_cmd
from sim.config import apply_set, load_defaults
from sim.game import game_names
from sim.inputs import MAX_GAMES
from sim.mohur.config import validate
from sim.rng import batch_seeds, game_origin
from sim.variants import Target, parse_range, parse_target
from cli_runs import cli as _invoke, ok, one_line_error

BIN = Path(sys.executable).with_name("balance-sim")
RUN = ["run", "mohur", "-n", "10", "-s", "greedy,greedy", "-q", "--no-report", "-o", "out"]
SWEEP = ["sweep", "mohur", "--param", "rules.coin_token", "--values", "4", "6", "-n", "10", "-s", "greedy,greedy",
         "-q", "-o", "out"]
TUNE = ["tune", "mohur", "--param", "rules.coin_token", "--values", "4", "6", "-s", "greedy,greedy", "-q", "-o", "out",
        "--target", "first_player_match_win_rate=0.5:0.1", "--budget", "4000"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Small finished runs to damage: Mohur tables, Mughal tables (another game's), a --summary-only folder."""
    base = tmp_path_factory.mktemp("runs")
    for name, args in (("mohur", ["mohur", "-s", "greedy,greedy"]), ("mughal", ["mughal", "-p", "2"]),
                       ("summary", ["mohur", "-s", "greedy,greedy", "--summary-only"])):
        ok(_invoke("run", *args, "-n", 40, "--batch-size", 20, "-q", "--no-report", "-o", base / name))
    return base


def snapshot(root: Path) -> dict:
    """Every path under root, with a digest of each file's bytes."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*"))}


def assert_refused(result, before: dict, root: Path, names):
    line = one_line_error(result, *names)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert snapshot(root) == before, "a refused command wrote, changed or deleted something"
    return line


# ---------------------------------------------------------------- a results folder damaged for `report`
def _meta(path: Path) -> dict:
    return json.loads((path / "meta.json").read_text())


def _edit_meta(change):
    def setup(res: Path):
        meta = _meta(res)
        change(meta)
        (res / "meta.json").write_text(json.dumps(meta))
    return setup


def _write(name: str, data):
    def setup(res: Path):
        (res / name).write_bytes(data(res) if callable(data) else data)
    return setup


REPORT = [
    ("meta bad JSON", _write("meta.json", b"{bad"), ["meta.json", "not valid JSON"]),
    ("meta a list", _write("meta.json", b"[1, 2]"), ["meta.json", "JSON object"]),
    ("meta empty object", _write("meta.json", b"{}"), ["meta.json", "'game'"]),
    ("meta binary", _write("meta.json", bytes(range(256))), ["meta.json", "not valid JSON"]),
    ("meta of another game", _edit_meta(lambda m: m.update(game="mughal")), ["'strategies'", "mughal"]),
    ("meta of no game", _edit_meta(lambda m: m.update(game="chess")), ["chess", ", ".join(game_names())]),
    ("meta games not a number", _edit_meta(lambda m: m.update(games="many")), ["'games'", "'many'"]),
    *[(f"meta missing {key}", _edit_meta(lambda m, key=key: m.pop(key)), [f"'{key}'"])
      for key in ("game", "players", "games", "seed", "strategies", "config")],
    ("parquet truncated", _write("games.parquet", lambda res: (res / "games.parquet").read_bytes()[:300]),
     ["games.parquet", "Parquet"]),
    ("parquet random bytes", _write("games.parquet", os.urandom(4000)), ["games.parquet", "Parquet"]),
    ("parquet empty", _write("games.parquet", b""), ["games.parquet", "Parquet"]),
    ("parquet missing", lambda res: (res / "rounds.parquet").unlink(), ["rounds.parquet"]),
    ("parquet of fewer games", lambda res: pd.read_parquet(res / "games.parquet").head(5).to_parquet(
        res / "games.parquet"), ["games.parquet", "40"]),
    ("sweep folder", _write("meta.json", json.dumps({"game": "mohur", "sweep": {"rules.coin_token": [4, 6]},
                                                     "games": 10, "seed": 1}).encode()), ["sweep", "variant-000"]),
    ("tune folder", _write("meta.json", json.dumps({"game": "mohur", "tune": True, "seed": 1}).encode()),
     ["tune", "tune.json"]),
    ("sensitivity folder", _edit_meta(lambda m: m.update(sensitivity=True, method="morris")),
     ["a sensitivity screening", "sensitivity.html", "'balance-sim sensitivity'"]),
]


@pytest.mark.parametrize("setup,names", [c[1:] for c in REPORT], ids=[c[0] for c in REPORT])
def test_report_refuses_a_damaged_or_foreign_folder(folders, tmp_path, monkeypatch, setup, names):
    res = tmp_path / "res"
    shutil.copytree(folders / "mohur", res)
    setup(res)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    assert_refused(_invoke("report", "res"), before, tmp_path, ["res", *names])


def test_report_refuses_another_games_tables(folders, tmp_path, monkeypatch):
    res = tmp_path / "res"
    shutil.copytree(folders / "mohur", res)
    shutil.copy(folders / "mughal" / "games.parquet", res / "games.parquet")
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    assert_refused(_invoke("report", "res", "-o", "elsewhere"), before, tmp_path, ["games.parquet", "'match'"])


def test_report_rebuilds_a_summary_only_folder(folders, tmp_path):
    res = tmp_path / "res"
    shutil.copytree(folders / "summary", res)
    written = json.loads((res / "summary.json").read_text())
    ok(_invoke("report", res, "-o", tmp_path / "again"))
    rebuilt = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert rebuilt == written and (tmp_path / "again" / "report.html").is_file()


def test_report_on_a_full_disk_changes_nothing(folders, tmp_path, monkeypatch):
    """report writes to a staging folder and moves the files in only when all are written (as run does)."""
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "res" / "report.html"))

    res = tmp_path / "res"
    shutil.copytree(folders / "mohur", res)
    (res / "summary.json").write_text('{"mine": 1}\n')
    monkeypatch.setattr(analysis.report, "_html", full)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    # -q: no progress lines (on stderr while the report is built), so stderr holds the error line alone
    assert_refused(_invoke("report", "res", "-q"), before, tmp_path,
                   ["No space left on device", "nothing there was changed"])


def test_run_on_a_full_disk_is_one_line_and_keeps_the_saved_batches(tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "report.html")

    monkeypatch.setattr(run_cmd, "build_report", full)  # where `run` calls it
    monkeypatch.chdir(tmp_path)
    result = _invoke("run", "mohur", "-n", 40, "--batch-size", 20, "-s", "greedy,greedy", "-q", "-o", "out")
    one_line_error(result, "No space left on device", "--resume out")
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert not (tmp_path / "out").exists()
    assert len(list((tmp_path / "out.partial" / "batches").glob("batch-*"))) == 2


# ---------------------------------------------------------------- flags and configurations
def _config_file(data: bytes):
    return lambda root: (root / "c.toml").write_bytes(data)


def _partial(root: Path):
    (root / "out.partial").mkdir()
    (root / "out.partial" / "meta.json").write_text('{"game": "mohur", "partial": true}')


CLI = [
    # (id, arguments, setup of the scratch folder, what the line must name)
    ("--set cards=7", RUN + ["--set", "cards=7"], None, ["'cards'", "table", "cards.cloth"]),
    ("--set tokens=5", RUN + ["--set", "tokens=5"], None, ["'tokens'", "table"]),
    ("--set bonus=5", RUN + ["--set", "bonus=5"], None, ["'bonus'", "table"]),
    ("--set strategies=5", RUN + ["--set", "strategies=5"], None, ["'strategies'", "table"]),
    ("--set rules=7", RUN + ["--set", "rules=7"], None, ["'rules'", "table", "hand_limit"]),
    ("--set min_set=abc", RUN + ["--set", "strategies.setbuilder-patient.min_set=abc"], None,
     ["strategies.setbuilder-patient.min_set", "'abc'", "number"]),
    ("--set seconds_per_turn=nan", RUN + ["--set", "report.seconds_per_turn=nan"], None,
     ["report.seconds_per_turn", "nan"]),
    ("--set seconds_per_action=0", ["run", "muziris", "-n", "10", "-q", "--no-report", "-o", "out", "--set",
                                    "report.seconds_per_action=0"], None, ["report.seconds_per_action", "0.1 to 600"]),
    ("--set iterations=-5", RUN + ["--set", "strategies.expert-fast.iterations=-5"], None,
     ["strategies.expert-fast.iterations", "1 to 100,000"]),
    ("--set iterations=1e12", RUN + ["-s", "expert-fast,greedy", "--set", "strategies.expert-fast.iterations=1e12"],
     None, ["strategies.expert-fast.iterations", "1 to 100,000"]),
    ("--set iterations=2.5", RUN + ["--set", "strategies.expert-fast.iterations=2.5"], None, ["whole number"]),
    ("--set rollout=99", RUN + ["--set", "strategies.expert-fast.rollout=99"], None, ["rollout", "greedy"]),
    ("--set preset base=5", RUN + ["--set", "strategies.mine.base=5"], None, ["strategies.mine.base", "greedy"]),
    ("--set round_robin=1", RUN + ["--set", "strategies.tuned.round_robin=1"], None,
     ["strategies.tuned.round_robin", "true", "false"]),
    ("--set round_robin='yes'", RUN + ["--set", "strategies.tuned.round_robin='yes'"], None,
     ["strategies.tuned.round_robin", "true", "false"]),
    ("--set expert round_robin", RUN + ["--set", "strategies.expert-fast.round_robin=true"], None,
     ["strategies.expert-fast.round_robin", "search player"]),
    ("--set greedy.base=random", RUN + ["--set", "strategies.greedy.base=random"], None,
     ["strategies.greedy", "built-in"]),
    ("mughal suit=9", ["run", "mughal", "-n", "10", "-q", "--no-report", "-o", "out",
                       "--set", "strategies.specialist-military.suit=9"], None,
     ["strategies.specialist-military.suit", "0 to 3"]),
    ("--config cards = 5", RUN + ["--config", "c.toml"], _config_file(b"cards = 5\n"), ["'cards'", "table"]),
    ("--config binary", RUN + ["--config", "c.toml"], _config_file(bytes(range(128, 256))), ["c.toml", "UTF-8"]),
    ("--config Latin-1", RUN + ["--config", "c.toml"], _config_file("# caf\xe9\n".encode("latin-1")),
     ["c.toml", "UTF-8"]),
    ("-o under /proc", RUN[:-1] + ["/proc/balance-sim-out"], None, ["/proc"]),
    ("-o under /sys", RUN[:-1] + ["/sys/balance-sim-out"], None, ["/sys"]),
    ("-o file/sub", RUN[:-1] + ["f/sub"], lambda root: (root / "f").write_text("mine"), ["f/sub", "is a file"]),
    ("-o with a .partial file", RUN, lambda root: (root / "out.partial").write_text("mine"),
     ["out.partial", "not a folder"]),
    ("-o ''", RUN[:-1] + [""], None, ["-o ''"]),
    ("run --seed -1", RUN + ["--seed", "-1"], None, ["--seed -1", "at least 0"]),
    ("sweep --seed -1", SWEEP + ["--seed", "-1"], None, ["--seed -1"]),
    ("trace --seed -1", ["trace", "mohur", "--seed", "-1"], None, ["--seed -1"]),
    ("run -n 10**30", RUN + ["-n", str(10**30)], None, ["--games", "1,000,000,000,000"]),
    ("sweep -n 0", SWEEP + ["-n", "0"], None, ["--games 0"]),
    ("sweep -j 0", SWEEP + ["-j", "0"], None, ["--jobs 0"]),
    ("sweep -j -3", SWEEP + ["-j", "-3"], None, ["--jobs -3"]),
    ("sweep --batch-size 0", SWEEP + ["--batch-size", "0"], None, ["--batch-size 0"]),
    ("sweep --batch-size -5", SWEEP + ["--batch-size", "-5"], None, ["--batch-size -5"]),
    ("sweep --target nosuchmetric", SWEEP + ["--target", "nosuchmetric=0.5"], None,
     ["nosuchmetric", "first_player_match_win_rate"]),
    ("tune -j 0", TUNE + ["-j", "0"], None, ["--jobs 0"]),
    ("tune --batch-size 0", TUNE + ["--batch-size", "0"], None, ["--batch-size 0"]),
    ("tune --batch-size -5", TUNE + ["--batch-size", "-5"], None, ["--batch-size -5"]),
    ("tune --max-candidates 0", TUNE + ["--max-candidates", "0"], None, ["--max-candidates 0"]),
    ("tune --budget -5", TUNE + ["--budget", "-5"], None, ["--budget -5"]),
    ("tune --target nosuchmetric", TUNE + ["--target", "nosuchmetric=1"], None, ["nosuchmetric"]),
    ("main -j 0", ["main", "-j", "0", "-o", "out"], None, ["--jobs 0"]),
    ("main --scale -1", ["main", "--scale", "-1", "-o", "out"], None, ["--scale", "above 0"]),
    ("main -o ''", ["main", "-o", ""], None, ["-o ''"]),
    ("bench -n 0", ["bench", "mohur", "-n", "0"], None, ["--games-per-run 0"]),
    ("bench -j 0", ["bench", "mohur", "-j", "0"], None, ["--jobs 0"]),
    ("unreachable Dask scheduler", RUN + ["--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"], None,
     ["--scheduler tcp://127.0.0.1:1", "Dask scheduler"]),
    ("malformed Dask scheduler", RUN + ["--backend", "dask", "--scheduler", "nowhere"], None, ["tcp://"]),
    ("--resume with -n", ["run", "--resume", "out", "-n", "5"], _partial, ["--games", "--resume"]),
    ("--resume with --seed", ["run", "--resume", "out", "--seed", "5"], _partial, ["--seed", "--resume"]),
    ("--resume with --set", ["run", "--resume", "out", "--set", "rules.hand_limit=8"], _partial, ["--set"]),
    ("--resume with a game", ["run", "mughal", "--resume", "out"], _partial, ["game", "--resume"]),
    ("--resume with -o", ["run", "--resume", "out", "-o", "elsewhere"], _partial, ["--out", "--resume"]),
]


SENSITIVITY = ["sensitivity", "mohur", "--param", "rules.coin_token", "-s", "greedy,greedy", "-q", "-o", "out"]


def _deep_list(root: Path):
    (root / "deep.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")


def _deep_table(root: Path):
    (root / "deep.toml").write_text("[strategies]\nmine." + ".".join(["a"] * 3000) + " = 1\n")


def _fifo(root: Path):
    os.mkfifo(root / "c.toml")


CLI += [  # issue 27, section 4: each was a traceback, a hang or a wrong message
    ("run -o /", RUN[:-1] + ["/"], None, ["-o /", "root folder"]),
    ("run -o .", RUN[:-1] + ["."], None, ["-o .", "current folder"]),
    ("run -o ..", RUN[:-1] + [".."], None, ["-o ..", "current folder or one above"]),
    ("run -o sub/..", RUN[:-1] + ["sub/.."], None, ["-o sub/.."]),
    # issue 39: '.' is the folder it names (here: no interrupted run beside it), as `report .` and `evolve --resume .`
    ("run --resume .", ["run", "--resume", "."], None, ["--resume /", "no interrupted run there", ".partial"]),
    ("report -o /", ["report", "res", "-o", "/"], None, ["-o /", "root folder"]),
    ("sweep -o /", SWEEP[:-1] + ["/"], None, ["-o /", "root folder"]),
    ("sensitivity -o .", SENSITIVITY[:-1] + ["."], None, ["-o .", "current folder"]),
    ("sensitivity -o /", SENSITIVITY[:-1] + ["/"], None, ["-o /", "root folder"]),
    ("--config list nested 5,000 deep", RUN + ["--config", "deep.toml"], _deep_list,
     ["--config deep.toml", "nested more than 32 deep"]),
    ("--config preset nested 3,000 deep", RUN + ["--config", "deep.toml"], _deep_table, ["nested more than 32"]),
    ("--set value nested 3,000 deep", RUN + ["--set", "strategies.mine=" + "[" * 3000 + "]" * 3000], None,
     ["--set strategies.mine", "nested more than 32"]),
    ("--set key nested 40 deep", RUN + ["--set", "strategies." + ".".join(["a"] * 40) + "=1"], None,
     ["nested more than 32"]),
    ("sweep --values nested 3,000 deep", ["sweep", "mohur", "--param", "rules.coin_token", "--values",
                                           "[" * 3000 + "]" * 3000, "-n", "10", "-q", "-o", "out"], None,
     ["nested more than 32"]),
    ("--config a FIFO", RUN + ["--config", "c.toml"], _fifo, ["--config c.toml", "named pipe", "not a regular file"]),
    ("--config /dev/zero", RUN + ["--config", "/dev/zero"], None, ["/dev/zero", "character device",
                                                                   "not a regular file"]),
    ("--config a folder", RUN + ["--config", "sub"], lambda root: (root / "sub").mkdir(), ["sub"]),
    ("trace --game 10**18", ["trace", "mohur", "--game", str(10**18), "-s", "greedy,racer"], None,
     ["--game 1000000000000000000", "999,999,999,999"]),
    ("replay --game 10**20-1", ["replay", "mohur", "--game", str(10**20 - 1)], None,
     ["--game 99999999999999999999", "999,999,999,999"]),
    ("replay --game -1", ["replay", "mohur", "--game", "-1"], None, ["--game -1", "at least 0"]),
    ("sensitivity -n 10**12", SENSITIVITY + ["-n", str(10**12)], None, ["--games", "5,000,000"]),
    ("sensitivity --levels 10**9", SENSITIVITY + ["--levels", str(10**9)], None, ["--levels", "2 to 100"]),
    ("sensitivity --levels 10**12", SENSITIVITY + ["--levels", str(10**12)], None, ["--levels", "2 to 100"]),
    ("sensitivity --budget 10**12 -n 200", SENSITIVITY + ["--budget", str(10**12), "-n", "200"], None,
     ["--budget", "20,000 design points"]),
    ("sensitivity --budget 10**12", SENSITIVITY + ["--budget", str(10**12)], None, ["--budget", "5,000,000"]),
    ("sensitivity --budget 10**13", SENSITIVITY + ["--budget", str(10**13)], None, ["--budget", "1,000,000,000,000"]),
    ("sensitivity --batch-size 10**7", SENSITIVITY + ["--batch-size", str(10**7)], None, ["--batch-size"]),
    ("sensitivity --seed -1", SENSITIVITY + ["--seed", "-1"], None, ["--seed -1"]),
    ("sensitivity KEY=0:inf", [*SENSITIVITY[:3], "rules.coin_token=0:inf", *SENSITIVITY[4:]], None,
     ["rules.coin_token=0:inf", "finite"]),
    ("sensitivity KEY=nan:1", [*SENSITIVITY[:3], "rules.coin_token=nan:1", *SENSITIVITY[4:]], None, ["finite"]),
    ("compare -o /proc/x", ["compare", "a", "b", "-o", "/proc/x"], None, ["-o /proc/x", "/proc"]),
    ("compare -o afile/x", ["compare", "a", "b", "-o", "afile/x"], lambda root: (root / "afile").write_text("mine"),
     ["-o afile/x", "is a file"]),
    ("compare -o ''", ["compare", "a", "b", "-o", ""], None, ["-o ''"]),
    ("compare -o /", ["compare", "a", "b", "-o", "/"], None, ["-o /", "root folder"]),
    ("compare -o .", ["compare", "a", "b", "-o", "."], None, ["-o .", "current folder"]),
    *[(f"{cmd[0]} --range {r}", [*cmd[:4], "--range", r, *cmd[7:]], None, [f"--range '{r}'", named])
      for cmd in (SWEEP, TUNE) for r, named in (("0:nan", "finite"), ("0:inf", "finite"), ("-inf:0", "finite"),
                                                ("0:1:inf", "finite"), ("0:1e300:1e-300", "10^600 values"),
                                                ("0:10000", "10,001 values"))],
    *[(f"{cmd[0]} --target {t}", cmd + ["--target", t], None, [f"--target '{t}'", "TOLERANCE at least 0",
                                                               "LOW <= HIGH"])
      for cmd in (SWEEP, TUNE) for t in ("first_player_match_win_rate=0.5:-1", "first_player_match_win_rate=nan",
                                         "first_player_match_win_rate=0.5:nan", "first_player_match_win_rate=inf",
                                         "first_player_match_win_rate=0.5:inf", "turns_per_round=40..30",
                                         "turns_per_round=nan..40", "turns_per_round=30..inf")],
]


@pytest.mark.parametrize("args,setup,names", [c[1:] for c in CLI], ids=[c[0] for c in CLI])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, monkeypatch, args, setup, names):
    monkeypatch.chdir(tmp_path)
    if setup:
        setup(tmp_path)
    before = snapshot(tmp_path)
    line = assert_refused(_invoke(*args), before, tmp_path, names)
    assert "missing key" not in line


# ---------------------------------------------------------------- compare on damaged or foreign folders (issue 27)
def _summary_figure(name: str, key: str, value):
    def setup(res: Path, folders: Path):
        summary = json.loads((res / "summary.json").read_text())
        summary[name][key] = value
        (res / "summary.json").write_text(json.dumps(summary))
    return setup


def _with_folders(setup):
    return lambda res, folders: setup(res)


COMPARE = [
    ("parquet truncated", "mohur", _with_folders(_write("games.parquet", lambda res: (res / "games.parquet")
                                                        .read_bytes()[:300])), ["games.parquet", "Parquet"]),
    ("parquet random bytes", "mohur", _with_folders(_write("rounds.parquet", os.urandom(4000))),
     ["rounds.parquet", "Parquet"]),
    ("parquet of another game", "mohur",
     lambda res, folders: shutil.copy(folders / "mughal" / "games.parquet", res / "games.parquet"),
     ["games.parquet", "another game"]),
    ("parquet of fewer games", "mohur", _with_folders(lambda res: pd.read_parquet(res / "games.parquet").head(5)
                                                      .to_parquet(res / "games.parquet")), ["games.parquet", "40"]),
    ("summary bad JSON", "summary", _with_folders(_write("summary.json", b"{bad")), ["summary.json"]),
    ("summary a list", "summary", _with_folders(_write("summary.json", b"[1, 2]")), ["summary.json", "JSON object"]),
    ("summary missing", "summary", _with_folders(lambda res: (res / "summary.json").unlink()), ["summary.json"]),
    ("summary figure a string", "summary", _summary_figure("turns_per_round", "estimate", "abc"),
     ["summary.json", "turns_per_round", "not a number"]),
    ("summary interval a list", "summary", _summary_figure("turns_per_round", "ci_low", [1]),
     ["summary.json", "ci_low"]),
    ("sweep folder", "mohur", _with_folders(_edit_meta(lambda m: m.update(sweep={"rules.coin_token": [4, 6]}))),
     ["sweep folder", "variant-000"]),
    ("tune folder", "mohur", _with_folders(_edit_meta(lambda m: m.update(tune=True))), ["tune folder"]),
    ("sensitivity folder", "mohur", _with_folders(_edit_meta(lambda m: m.update(sensitivity=True))),
     ["sensitivity folder"]),
]


@pytest.mark.parametrize("source,setup,names", [c[1:] for c in COMPARE], ids=[c[0] for c in COMPARE])
def test_compare_refuses_a_damaged_or_foreign_folder(folders, tmp_path, monkeypatch, source, setup, names):
    res = tmp_path / "res"
    shutil.copytree(folders / source, res)
    setup(res, folders)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    for args in (("res", folders / source), (folders / source, "res")):  # as A and as B
        assert_refused(_invoke("compare", *args, "-o", "cc"), before, tmp_path, ["res", *names])


# ---------------------------------------------------------------- a game of a run, however far in (issue 27)
def test_a_games_seed_is_made_directly_and_is_the_one_the_list_gave():
    for seed, size in ((1, 2000), (7, 3), (2**40, 1)):
        for game in (0, 1, 2, 1999, 2000, 2001, 12_345):
            b, local = divmod(game, size)
            assert game_origin(seed, game, size) == (batch_seeds(seed, b + 1)[b], local)


def test_the_last_game_of_the_largest_run_needs_no_list_of_seeds(monkeypatch):
    def no_lists(root, n):
        raise AssertionError(f"a list of {n:,} batch seeds was made")

    monkeypatch.setattr(sim.rng, "batch_seeds", no_lists)
    root, local = sim.rng.game_origin(1, MAX_GAMES - 1, 1)
    assert local == 0 and 0 <= root < 2**32


def test_ranges_and_targets_next_to_the_refused_ones_still_work():
    assert len(parse_range("0:9999")) == 10_000 and parse_range("0:1:0.25") == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert parse_range("-3:-1") == [-3, -2, -1] and parse_range("5:5") == [5]
    assert parse_target("m=0.5:0") == Target("m", 0.5, 0.5) == parse_target("m=0.5") == parse_target("m=0.5..0.5")
    assert parse_target("m=-1..-0.5") == Target("m", -1.0, -0.5)


def test_valid_neighbours_of_the_refused_inputs_still_work(cli):
    """A new preset on a built-in base, and a table given as an inline table, are accepted."""
    result = ok(cli("strategies", "mohur", "--set", 'strategies.mine.base="greedy"', "--set", "rules={hand_limit=8}",
                    "--set", "strategies.expert-fast.iterations=100000"))
    assert "mine" in result.stdout.split()


# ---------------------------------------------------------------- warnings: degenerate settings, joblib, cache
def test_degenerate_mohur_settings_warn_in_one_line_without_numpy_warnings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _invoke("run", "mohur", "-n", 20, "-s", "greedy,greedy", "-q", "-o", "out",
                         "--set", "tokens.diamond=[]", "--set", "tokens.gold=[]", "--set", "tokens.silver=[]")
    assert result.exit_code == 0, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("balance-sim: warning: tokens:"), lines
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in caught]


def test_a_deck_that_is_exactly_the_deal_is_warned_about():
    cfg = load_defaults("sim.mohur")
    for kind, count in dict(diamond=3, gold=3, silver=4, cloth=0, spice=0, leather=2, coin=3).items():
        apply_set(cfg, f"cards.{kind}={count}")
    assert any("exactly the deal" in w for w in validate(cfg).warnings)
    assert validate(load_defaults("sim.mohur")).warnings == ()


@pytest.mark.slow
def test_quiet_parallel_run_prints_nothing(tmp_path):
    """joblib warned that "0 tasks ... have been cancelled" after a one-batch parallel run, even with -q."""
    proc = subprocess.run([str(BIN), "run", "mohur", "-n", "2", "-j", "2", "--backend", "threading", "-q",
                           "--no-report", "-s", "greedy,greedy", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout == "", proc.stderr


def test_unwritable_cache_folder_falls_back_to_a_stated_one(tmp_path, monkeypatch, capsys):
    (tmp_path / "file").write_text("mine")
    monkeypatch.setenv("BALANCE_SIM_CACHE", "")  # unset for cache_root, and restored afterwards
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file" / "cache"))
    root = sim.cache_root()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot be written" in err[0] and str(root) in err[0]
    assert os.environ["BALANCE_SIM_CACHE"] == str(root) and (tmp_path / "file").read_text() == "mine"
    assert sim._writable(root) is None  # the fallback is usable
