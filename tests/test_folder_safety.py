"""Results folders are shared between designers (issue 27): nothing in one runs code, side paths take the folder's
lock and refuse what does not match, nothing of a user's is lost, and a crafted meta.json is one line, exit 2.
In-process runs: a lock held here (`exclusive`/`shared`) is a real `flock`, conflicting as another process's."""
import json
import os
import shutil
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.batches import CHECK, ForeignBatch, problem, save_batch
from sim.config import build
from sim.game import get_game
from sim.lock import exclusive, shared
from sim.registry import choices
from sim.results import partial_path
from sim.runner import Plan, execute
from cli_runs import cli, interrupt_at, interrupt_sensitivity_at, listing, ok, one_line_error, same_tables

SMALL = ["-j", "1", "--batch-size", "200", "-s", "greedy,racer", "--seed", "7", "-q"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A finished Mohur run with its report (replays included), another without, and an interrupted one."""
    base = tmp_path_factory.mktemp("runs")
    ok(cli("run", "mohur", "-n", 400, *SMALL, "-o", base / "F"))
    ok(cli("run", "mohur", "-n", 400, *SMALL, "--no-report", "--set", "rules.coin_token=3", "-o", base / "G"))
    mp = pytest.MonkeyPatch()
    interrupt_at(mp, 2)
    r = cli("run", "mohur", "-n", 600, *SMALL, "--no-report", "-o", base / "P")
    mp.undo()
    assert r.exit_code == 2 and "interrupted" in r.output
    return base


def copy(runs: Path, name: str, to: Path) -> Path:
    shutil.copytree(runs / name, to, symlinks=True)
    return to


# ------------------------------------------------------------------ 0. report rebuilds a finished folder


def test_report_rebuilds_a_finished_folder_with_replays(runs, tmp_path):
    folder = copy(runs, "F", tmp_path / "F")
    assert (folder / "replays").is_dir() and any((folder / "replays").iterdir())
    (folder / "notes.txt").write_text("mine")
    ok(cli("report", folder))
    assert sorted(p.name for p in (folder / "replays").iterdir()) == sorted(
        p.name for p in (runs / "F" / "replays").iterdir())
    assert (folder / "notes.txt").read_text() == "mine"
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no .report-PID.tmp left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["F"]  # nor a lock file beside it
    assert "replays" in json.loads((folder / "meta.json").read_text())["files"]
    assert cli("report", folder).exit_code == 0  # and again


# ------------------------------------------------------------------ 1. no code runs from a results folder


class _Touch:
    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))  # unpickling it creates the file: code ran


def test_a_pickled_batch_runs_no_code_and_is_refused(runs, tmp_path):
    folder = copy(runs, "P.partial", tmp_path / "X.partial")
    marker = tmp_path / "code-ran"
    batch = folder / "batches" / "batch-0000000.npz"
    _rewrite(batch, lambda a: a.update({"games/evil": np.array([_Touch(marker)], dtype=object)}))
    assert b"code-ran" in batch.read_bytes()
    one_line_error(cli("report", folder), "batch-0000000.npz", "pickled", "not a batch file balance-sim wrote")
    one_line_error(cli("report", folder, "-o", tmp_path / "R"), "pickled")
    one_line_error(cli("run", "--resume", tmp_path / "X"), "pickled")
    assert not marker.exists()
    assert not (tmp_path / "R").exists() and not (tmp_path / "X").exists()


def _batch(tmp_path: Path) -> Path:
    tables = {"games": {"game": np.arange(3, dtype=np.int64), "label": np.array(["a", "bb", "c"], dtype=object)}}
    save_batch(tmp_path, 0, tables, seed=5, bounds=(0, 3), context="ab" * 32)
    return tmp_path / "batch-0000000.npz"


def _rewrite(path: Path, change) -> None:
    arrays = dict(np.load(path, allow_pickle=False))
    change(arrays)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


@pytest.mark.parametrize("change,words", [
    (lambda a: a.update({"games/extra": np.array([1], dtype=object)}), "pickled"),
    (lambda a: a.update({"games/x.y": np.zeros(3)}), "entry named"),
    (lambda a: a.update({f"{CHECK}/other": np.zeros(3)}), f"{CHECK}/other"),
    (lambda a: a.update({f"{CHECK}/identity": np.zeros(4, dtype=np.float64)}), "identity"),
    (lambda a: a.update({f"{CHECK}/layout": np.frombuffer(json.dumps(
        [["games", "game", "<i8", [3], 10**9]]).encode(), dtype=np.uint8)}), "outside its buffer"),
    (lambda a: a.update({f"{CHECK}/layout": np.frombuffer(json.dumps(
        [["games", "game", "|O", [3], 0]]).encode(), dtype=np.uint8)}), "dtype"),
    (lambda a: a.update({f"{CHECK}/layout": np.frombuffer(json.dumps(
        [["../games", "game", "<i8", [3], 0]]).encode(), dtype=np.uint8)}), "layout entry"),
], ids=["object column", "odd name", "odd check entry", "identity dtype", "offset", "object dtype", "table name"])
def test_a_batch_file_not_as_balance_sim_writes_it_is_refused(tmp_path, change, words):
    path = _batch(tmp_path)
    assert problem(tmp_path, 0, 5, (0, 3), "game", context="ab" * 32) is None  # as written: sound
    _rewrite(path, change)
    with pytest.raises(ForeignBatch, match="not a batch file balance-sim wrote") as err:
        problem(tmp_path, 0, 5, (0, 3), "game")
    assert words in str(err.value)


def test_a_linked_batch_is_refused_and_text_columns_need_no_pickle(tmp_path):
    path = _batch(tmp_path)
    with np.load(path, allow_pickle=False) as data:  # what is written reads back with pickling off
        assert data["games/label"].dtype.kind == "U"
    os.rename(path, tmp_path / "elsewhere.npz")
    os.symlink(tmp_path / "elsewhere.npz", path)
    with pytest.raises(ForeignBatch, match="a link"):
        problem(tmp_path, 0, 5, (0, 3), "game")


@pytest.mark.parametrize("files", [["../outside"], ["/etc/passwd"], ["a/b"], [".."], "report.html"])
def test_meta_listing_paths_outside_the_folder_is_refused_untouched(runs, tmp_path, files):
    victim = copy(runs, "G", tmp_path / "victim")
    (tmp_path / "outside").write_text("theirs")
    _craft(victim, lambda meta: {**meta, "files": files})
    before = listing(tmp_path)
    one_line_error(cli("run", "mohur", "-n", 200, *SMALL, "--no-report", "-o", victim), "'files'",
                   "did not write it")
    assert listing(tmp_path) == before


# ------------------------------------------------------------------ 2. readers and writers, and what a batch was played under


def test_readers_wait_for_no_writer_and_writers_for_no_reader(runs, tmp_path):
    folder = copy(runs, "F", tmp_path / "F")
    other = copy(runs, "G", tmp_path / "G")
    before = listing(tmp_path)
    with exclusive(folder):  # a run (or resume) writing F
        one_line_error(cli("report", folder), "another balance-sim")
        one_line_error(cli("report", folder, "-o", tmp_path / "R"), "another balance-sim", "writing")
        one_line_error(cli("compare", other, folder, "-o", tmp_path / "C"), "another balance-sim")
        one_line_error(cli("replay", "--run", folder, "-o", tmp_path / "r.html"), "another balance-sim")
    with shared(folder, "test"):  # a report or a comparison reading F
        one_line_error(cli("run", "mohur", "-n", 200, *SMALL, "--seed", 2, "--no-report", "-o", folder),
                       "another balance-sim")
        one_line_error(cli("report", folder), "another balance-sim")  # rewriting its report is writing it
        assert {k: v for k, v in listing(tmp_path).items() if k != ".F.lock"} == before
        assert cli("report", folder, "-o", tmp_path / "R").exit_code == 0  # readers share
        assert cli("compare", other, folder, "-o", tmp_path / "C").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["C", "F", "G", "R"]  # no lock file, no staging left


def test_a_report_of_a_partial_folder_while_it_is_resumed_is_one_line(runs, tmp_path):
    folder = copy(runs, "P.partial", tmp_path / "X.partial")
    with exclusive(tmp_path / "X", "--resume"):  # what `run --resume X` holds while it finishes
        one_line_error(cli("report", folder), "another balance-sim")
    assert not [p for p in folder.iterdir() if p.name.startswith(".report")]


def test_resume_replays_a_batch_played_under_other_settings(runs, tmp_path, monkeypatch):
    """A saved batch copied from a run with the same seed but another --set, or other strategies, is played
    again (and named), so the resumed tables are those of an uninterrupted run."""
    ref = tmp_path / "ref"
    assert cli("run", "mohur", "-n", 600, *SMALL, "--no-report", "-o", ref).exit_code == 0
    for other in (["--set", "rules.coin_token=3"], ["-s", "greedy,greedy"]):
        name = "Y" + str(len(other[1]))
        interrupt_at(monkeypatch, 2)
        one_line_error(cli("run", "mohur", "-n", 600, *SMALL, "--no-report", *other, "-o", tmp_path / name),
                       "interrupted")
        monkeypatch.undo()
        out = copy(runs, "P.partial", tmp_path / "Z.partial")
        shutil.copy(tmp_path / f"{name}.partial" / "batches" / "batch-0000001.npz", out / "batches")
        r = ok(cli("run", "--resume", tmp_path / "Z", "-q", "--no-report"))
        assert "batch-0000001.npz (played under other settings" in r.stderr
        same_tables(tmp_path / "Z", ref, "mohur")
        shutil.rmtree(tmp_path / "Z")


def test_batches_of_another_tune_candidate_or_command_are_played_again(tmp_path, capsys):
    """What sweep variants and tune candidates share with a run: `execute` checks what each saved batch was
    played under (configuration and the command's kind among it)."""
    spec = get_game("mohur")
    cfgs = [spec.validate(build(spec.package, None, (f"rules.coin_token={v}",)), 2) for v in (3, 5)]
    plan = Plan("mohur", 2, 400, 7, tuple(choices("mohur", cfgs[0].presets, ["greedy", "racer"])), 200)
    fresh, _ = execute(spec, cfgs[1], plan, progress=False)
    execute(spec, cfgs[0], plan, progress=False, batch_dir=tmp_path / "c0", kind="tune")
    shutil.copytree(tmp_path / "c0", tmp_path / "c1")  # candidate 0's batches copied into candidate 1's folder
    capsys.readouterr()
    tables, timing = execute(spec, cfgs[1], plan, progress=False, batch_dir=tmp_path / "c1", kind="tune")
    assert "played under other settings" in capsys.readouterr().err and timing["games_played_now"] == 400
    for name in fresh:
        pd.testing.assert_frame_equal(tables[name], fresh[name])
    _, timing = execute(spec, cfgs[0], plan, progress=False, batch_dir=tmp_path / "c0", kind="run")
    assert timing["games_played_now"] == 400  # a tune's batches are not a run's
    _, timing = execute(spec, cfgs[0], plan, progress=False, batch_dir=tmp_path / "c0", kind="run")
    assert timing["games_played_now"] == 0  # and its own are kept


@pytest.mark.slow
def test_a_sweep_variant_copied_from_another_is_played_again(tmp_path, monkeypatch):
    sweep = ["sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "5", "-n", 400, "--batch-size", 200,
             "-s", "greedy", "-q"]
    ref = tmp_path / "ref"
    assert cli(*sweep, "-o", ref).exit_code == 0
    interrupt_at(monkeypatch, 3, nth=True)  # variant 0 finished, variant 1 started
    one_line_error(cli(*sweep, "-o", tmp_path / "D"), "interrupted")
    monkeypatch.undo()
    staging = partial_path(tmp_path / "D")
    shutil.rmtree(staging / "variant-001", ignore_errors=True)
    shutil.copytree(staging / "variant-000", staging / "variant-001")
    ok(cli(*sweep, "-o", tmp_path / "D"))
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "D" / "sweep.csv"), pd.read_csv(ref / "sweep.csv"))


SENS = ["sensitivity", "mohur", "--param", "rules.coin_token", "--param", "rules.hand_limit", "-n", 50,
        "-s", "greedy,greedy", "-q", "--metric", "turns_per_round"]


@pytest.mark.slow
def test_each_command_continues_only_its_own_kind_of_folder(tmp_path, monkeypatch):
    interrupt_sensitivity_at(monkeypatch, 9)
    out = tmp_path / "S"
    one_line_error(cli(*SENS, "-o", out), "interrupted")
    monkeypatch.undo()
    before = listing(tmp_path)
    one_line_error(cli("run", "--resume", out), "interrupted sensitivity", "'balance-sim sensitivity'")
    one_line_error(cli("report", partial_path(out)), "sensitivity", "not results of 'balance-sim run'")
    line = one_line_error(cli(*SENS[:-2], "--metric", "rounds_per_match", "--seed", 3, "-o", out),
                          "interrupted sensitivity with other settings", "'balance-sim sensitivity'")
    assert "run --resume" not in line
    one_line_error(cli("run", "mohur", "-n", 200, *SMALL, "--no-report", "-o", out),
                   "interrupted sensitivity", "'balance-sim sensitivity'")
    assert listing(tmp_path) == before
    ok(cli(*SENS, "-o", out))  # the same command starts it again
    one_line_error(cli("report", out), "sensitivity.html")
    one_line_error(cli("run", "mohur", "-n", 200, *SMALL, "--no-report", "-o", out), "holds a sensitivity")


def test_report_and_compare_refuse_tables_that_disagree_with_meta(runs, tmp_path):
    folder = copy(runs, "F", tmp_path / "F")
    rounds = pd.read_parquet(folder / "rounds.parquet")
    rounds.head(10).to_parquet(folder / "rounds.parquet", index=False)
    before = listing(tmp_path)
    one_line_error(cli("report", folder), "rounds.parquet", "10 rows", "damaged")
    one_line_error(cli("compare", runs / "G", folder, "-o", tmp_path / "C"), "rounds.parquet", "damaged")
    games = pd.read_parquet(runs / "F" / "games.parquet")
    shutil.copy(runs / "F" / "rounds.parquet", folder / "rounds.parquet")
    games.iloc[:-1].to_parquet(folder / "games.parquet", index=False)
    one_line_error(cli("report", folder), "games.parquet", "damaged")
    assert listing(tmp_path) == {**before, "F/games.parquet": (folder / "games.parquet").read_bytes(),
                                 "F/rounds.parquet": (folder / "rounds.parquet").read_bytes()}


# ------------------------------------------------------------------ 3. nothing of a user's lost


def test_a_listed_file_balance_sim_would_not_write_is_kept(runs, tmp_path):
    victim = copy(runs, "G", tmp_path / "victim")
    (victim / "thesis.tex").write_text("four years")
    _craft(victim, lambda meta: {**meta, "files": meta["files"] + ["thesis.tex"]})
    ok(cli("run", "mohur", "-n", 200, *SMALL, "--no-report", "-o", victim))
    assert (victim / "thesis.tex").read_text() == "four years"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["victim"]  # no .victim.old-PID left


def test_a_linked_output_or_a_partial_name_is_refused(runs, tmp_path):
    target = copy(runs, "G", tmp_path / "real")
    (target / "notes.txt").write_text("mine")
    os.symlink(target, tmp_path / "L")
    before = listing(tmp_path)
    one_line_error(cli("run", "mohur", "-n", 200, *SMALL, "--no-report", "-o", tmp_path / "L"), "symbolic link",
                   str(target))
    one_line_error(cli("report", runs / "G", "-o", tmp_path / "L"), "symbolic link")
    one_line_error(cli("compare", runs / "G", runs / "G", "-o", tmp_path / "L"), "symbolic link")
    one_line_error(cli("run", "mohur", "-n", 200, *SMALL, "--no-report", "-o", tmp_path / "z.partial"), ".partial")
    assert listing(tmp_path) == before and (tmp_path / "L").is_symlink()


def test_report_elsewhere_replaces_only_its_own_report(runs, tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "report.html").write_text("my own report")
    before = listing(tmp_path)
    one_line_error(cli("report", runs / "G", "-o", user), "not a balance-sim")
    one_line_error(cli("report", runs / "G", "-o", runs / "F"), "holds results of 'balance-sim run'")
    assert listing(tmp_path) == before
    for _ in range(2):  # a report folder of its own is ours to replace
        ok(cli("report", runs / "G", "-o", tmp_path / "R"))
    (tmp_path / "R" / "notes.txt").write_text("kept")
    assert cli("report", runs / "G", "-o", tmp_path / "R").exit_code == 0
    assert (tmp_path / "R" / "notes.txt").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["R", "user"]


def test_report_in_place_keeps_a_report_html_it_did_not_write(runs, tmp_path):
    folder = copy(runs, "G", tmp_path / "G")  # --no-report: report.html is not among its files
    (folder / "report.html").write_text("my notes")
    one_line_error(cli("report", folder), "report.html", "not balance-sim's")
    assert (folder / "report.html").read_text() == "my notes"
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []


def test_replay_refuses_devices_links_folders_and_a_users_file(runs, tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "mine.html").write_text("my page")
    os.symlink(tmp_path / "mine.html", tmp_path / "link.html")
    before = listing(tmp_path)
    for target, words in (("/dev/null", "not a regular file"), (tmp_path / "fifo", "not a regular file"),
                          (tmp_path / "link.html", "symbolic link"), (tmp_path / "mine.html", "would replace")):
        one_line_error(cli("replay", "mohur", "-o", target), str(target), words)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert listing(tmp_path) == before
    for _ in range(2):  # its own page it replaces
        assert cli("replay", "--run", runs / "F", "--game", 3, "-o", tmp_path / "page.html").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link.html", "mine.html", "page.html"]


@pytest.mark.slow
def test_compare_into_one_folder_twice_at_once_and_reruns_leave_no_junk(runs, tmp_path):
    out = tmp_path / "cc"
    with exclusive(out):  # the first compare, still writing
        one_line_error(cli("compare", runs / "F", runs / "G", "-o", out), "another balance-sim")
    assert not out.exists()
    for _ in range(3):
        ok(cli("compare", runs / "F", runs / "G", "-o", out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cc"]
    assert {"compare.json", "compare.html", "compare.png", "meta.json"} <= {p.name for p in out.iterdir()}


# ------------------------------------------------------------------ 4. a crafted meta.json: one line, exit 2


def _strategy(meta, **change):
    return {**meta, "strategies": [{**meta["strategies"][0], **change}, *meta["strategies"][1:]]}


CRAFTED = [
    ("strategy without a base", lambda m: {**m, "strategies": [{"name": "x", "params": []}]}, "base"),
    ("params as strings", lambda m: _strategy(m, params=["a", "b"]), "params"),
    ("params too few", lambda m: _strategy(m, params=[]), "params"),
    ("strategies not a list", lambda m: {**m, "strategies": "greedy"}, "strategies"),
    ("seed -5", lambda m: {**m, "seed": -5}, "'seed' is -5"),
    ("batch size 0", lambda m: {**m, "batch_size": 0}, "'batch_size' is 0"),
    ("batch size 'x'", lambda m: {**m, "batch_size": "x"}, "'batch_size' is 'x'"),
    ("games 'abc'", lambda m: {**m, "games": "abc"}, "'games' is 'abc'"),
    ("players 9", lambda m: {**m, "players": 9}, "'players' is 9"),
    ("config not a table", lambda m: {**m, "config": [1]}, "'config'"),
    ("config unknown key", lambda m: {**m, "config": {**m["config"], "nosuch": 1}}, "nosuch"),
    ("config bad value", lambda m: {**m, "config": {**m["config"], "rules": {**m["config"]["rules"],
                                                                            "hand_limit": "x"}}}, "hand_limit"),
    ("a list", lambda m: [m], "expected a JSON object"),
    ("bad JSON", None, "not valid JSON"),
]


def _craft(folder: Path, change) -> None:
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text("{not json" if change is None else json.dumps(change(meta)))


@pytest.mark.parametrize("change,words", [c[1:] for c in CRAFTED], ids=[c[0] for c in CRAFTED])
def test_a_crafted_meta_json_is_one_line_in_every_command(runs, tmp_path, change, words):
    finished = copy(runs, "G", tmp_path / "F")
    partial = copy(runs, "P.partial", tmp_path / "P.partial")
    for folder in (finished, partial):
        _craft(folder, change)
    before = listing(tmp_path)
    one_line_error(cli("report", finished), words)
    one_line_error(cli("report", partial), words)
    one_line_error(cli("replay", "--run", finished, "-o", tmp_path / "r.html"), words)
    one_line_error(cli("trace", "--run", finished), words)
    one_line_error(cli("run", "--resume", tmp_path / "P"), words)
    one_line_error(cli("compare", runs / "G", finished, "-o", tmp_path / "C"), words)
    assert listing(tmp_path) == before
