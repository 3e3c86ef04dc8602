"""Issue 39, part 1: what a hostile or careless user hands balance-sim is refused up front or read as data,
never run, played under another label or written as TOML of its own. Small runs; each test fails if its case
regresses."""
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from analysis import evolve_page
from sim import evolve as E
from cli_runs import cli, interrupt_at, ok, one_line_error
from sim.errors import RunInterrupted
from sim.results import partial_path
from hostile_names import preset_config


# ---- a key given twice, an empty preset name ----
def test_tune_and_sweep_refuse_a_repeated_param_up_front(tmp_path):
    for kind, extra in (("tune", ["--target", "turns_per_round=0..1000", "--budget", "2000"]), ("sweep", ["-n", "20"])):
        out = tmp_path / kind
        r = cli(kind, "mohur", "--param", "rules.coin_token", "--values", "3", "--param", "rules.coin_token",
                "--values", "5", *extra, "-s", "greedy,racer", "-j", "1", "-o", out)
        one_line_error(r, "--param rules.coin_token", "more than once")
        assert not out.exists() and not (tmp_path / f"{kind}.partial").exists() and list(tmp_path.iterdir()) == []


def test_an_empty_or_multiline_preset_name_is_refused_up_front(tmp_path):
    for i, name in enumerate(["", "  ", "x\ny"]):
        cfg = preset_config(tmp_path / f"c{i}.toml", names=[name])
        out = tmp_path / f"out{i}"
        one_line_error(cli("run", "mohur", "-n", "10", "-s", "all", "--config", cfg, "-j", "1", "-o", out),
                       "--config", "preset name")
        assert not out.exists() and not (tmp_path / f"out{i}.partial").exists()


# ---- evolve's preset.toml ----
def test_evolved_preset_toml_reads_back_whatever_the_name(tmp_path):
    cfg = preset_config(tmp_path / "c.toml", names=["my preset", "a.b"], round_robin=False)
    for name in ("my preset", "a.b"):
        out = tmp_path / name.replace(" ", "_")
        ok(cli("evolve", "mohur", "--strategy", name, "--against", "greedy", "--budget", "200", "--popsize", "4",
               "--validation-games", "10", "--config", cfg, "-j", "1", "-q", "-o", out))
        doc = tomllib.loads((out / "preset.toml").read_text())
        assert list(doc["strategies"]) == [f"{name}-evolved"] and doc["strategies"][f"{name}-evolved"]["base"] == "greedy"
        ok(cli("run", "mohur", "--config", out / "preset.toml", "-s", f"{name}-evolved,greedy", "-n", "4", "-j", "1",
               "-q", "--no-report", "-o", out / "check"))


def test_preset_toml_never_lets_a_name_write_toml_lines():
    """The writer itself (a name the config would refuse still cannot inject): a newline, quotes, a backslash."""
    for name in ("x\n[strategies.evil]\nbase = \"random\"", 'q"\\', "del\x7f"):
        result = {"setup": {"strategy": name, "kind": "evolve", "game": "mohur", "seed": 1, "budget": 5,
                            "config": {"strategies": {name: {"base": "greedy", "round_robin": True}}}},
                  "base": "greedy", "winner": {"take_weight": 1.5}}
        text = evolve_page.preset_toml(result)
        assert tomllib.loads(text) == {"strategies": {f"{name}-evolved": {"base": "greedy", "take_weight": 1.5}}}
        assert len(text.splitlines()) == 4  # the comment, the table, base, the one parameter


# ---- locks: a link, a folder inside a locked one ----
def _writer_holds(folder: Path):
    """Another process holding `folder`'s write lock (as a run, sweep or resume does) until it is ended."""
    code = ("import sys, time; from pathlib import Path; from sim.lock import exclusive\n"
            "with exclusive(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(120)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(folder)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("small") / "rc2"
    ok(cli("run", "mohur", "-n", "40", "-s", "greedy,racer", "-j", "1", "-q", "--no-report", "-o", out))
    return out


def test_a_link_to_a_folder_being_written_is_refused(small_run, tmp_path):
    partial = small_run.with_name("rc2.partial")
    small_run.rename(partial)  # as a run --resume finds it
    (tmp_path / "alias.partial").symlink_to(partial)
    proc = _writer_holds(small_run)
    try:
        one_line_error(cli("report", tmp_path / "alias.partial"), "report", "another balance-sim")
        one_line_error(cli("report", tmp_path / "alias.partial", "-o", tmp_path / "r"), "another balance-sim")
    finally:
        proc.kill()
        proc.wait()
        partial.rename(small_run)
    assert not list(partial.parent.glob(".report-*")) and not list(small_run.glob(".report-*"))
    assert not (tmp_path / "r").exists()


def test_a_variant_inside_a_sweep_being_written_is_refused(small_run, tmp_path):
    sweep = tmp_path / "X"
    variant = tmp_path / "X.partial" / "variant-000"
    shutil.copytree(small_run, variant)
    proc = _writer_holds(sweep)
    try:
        one_line_error(cli("report", variant), "inside", "X.partial", "another balance-sim")
        one_line_error(cli("report", variant, "-o", tmp_path / "r"), "inside", "X.partial")
    finally:
        proc.kill()
        proc.wait()
    assert not (variant / "report.html").exists() and not (tmp_path / "r").exists()
    ok(cli("report", variant, "-q"))  # once the sweep is gone (interrupted), its variants may be reported


# ---- run --resume keeps --no-report ----
def test_resume_of_a_no_report_run_writes_no_report(tmp_path, monkeypatch):
    out = tmp_path / "nr"
    interrupt_at(monkeypatch, 1)
    cut = cli("run", "mohur", "-n", "40", "--batch-size", "20", "-s", "greedy,racer", "-j", "1", "-q", "--no-report",
              "-o", out)
    assert cut.exit_code == 2 and (tmp_path / "nr.partial").is_dir(), cut.output
    monkeypatch.undo()
    r = ok(cli("run", "--resume", out))
    assert not (out / "report.html").exists() and not (out / "summary.json").exists()
    assert r.stdout.strip() == str(out), "the folder is named, not a report.html that is not there"
    assert json.loads((out / "meta.json").read_text())["no_report"] is True
    ok(cli("report", out, "-q"))  # the report is still one command away
    assert (out / "report.html").is_file()


# ---- tampered values: refused (report) or played again (sweep), never used ----
def _tampered(src: Path, dst: Path, table: str, column: str, value) -> Path:
    shutil.copytree(src, dst)
    frame = pd.read_parquet(dst / f"{table}.parquet")
    frame[column] = frame[column].astype(object if isinstance(value, str) else float if value != value else frame[column].dtype)
    frame.loc[0 if isinstance(value, str) else slice(None), column] = value
    frame.to_parquet(dst / f"{table}.parquet", index=False)
    return dst


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("finished") / "base"
    ok(cli("run", "mohur", "-n", "60", "-s", "greedy,racer", "-j", "1", "-q", "--no-report", "-o", out))
    return out


@pytest.mark.parametrize("table,column,value,said", [
    ("games", "turns", -5, "holds -5"), ("rounds", "turns", -5, "holds -5"), ("games", "winner", 5, "holds 5"),
    ("games", "winner", -7, "holds -7"), ("rounds", "match", 0, "rounds games.parquet says"),
    ("games", "win_share_0", float("nan"), "not a finite number"), ("games", "strategy_0", "evil", "'evil'")])
def test_report_refuses_values_no_game_can_give(finished, tmp_path, table, column, value, said):
    bad = _tampered(finished, tmp_path / "bad", table, column, value)
    one_line_error(cli("report", bad), f"{table}.parquet", f"'{column}'", said, "damaged")
    assert not (bad / "report.html").exists()


@pytest.mark.parametrize("field,value", [("estimate", float("nan")), ("n", -5), ("estimate", 1e308),
                                         ("ci_high", float("inf"))])
def test_report_refuses_a_summary_only_figure_out_of_range(tmp_path, field, value):
    out = tmp_path / "so"
    ok(cli("run", "mohur", "-n", "40", "-s", "greedy,racer", "-j", "1", "-q", "--summary-only", "-o", out))
    summary = json.loads((out / "summary.json").read_text())
    summary["first_player_round_win_rate"][field] = value
    (out / "summary.json").write_text(json.dumps(summary))
    one_line_error(cli("report", out), "first_player_round_win_rate", field, "damaged")


SWEEP = ["sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "5", "-n", "400", "--batch-size", "200",
         "-s", "greedy,racer", "-j", "1", "-q"]


def test_a_sweep_never_uses_an_edited_variant(tmp_path, monkeypatch):
    ref = tmp_path / "ref"
    ok(cli(*SWEEP, "-o", ref))
    edits = {"summary": lambda v: (v / "summary.json").write_text((v / "summary.json").read_text().replace(
                 '"estimate": ', '"estimate": 0.99, "was": ', 1)),
             "games": lambda v: _tampered(v, v.with_name("t"), "games", "win_share_0", float("nan"))
             and _swap(v, "games") and _tampered(v, v.with_name("t2"), "games", "winner", -7) and _swap(v, "games", "t2")}
    for name, edit in edits.items():
        out = tmp_path / name
        interrupt_at(monkeypatch, 3, nth=True)  # variant 0 finished, variant 1 started
        one_line_error(cli(*SWEEP, "-o", out), "interrupted")
        monkeypatch.undo()
        edit(partial_path(out) / "variant-000")
        ok(cli(*SWEEP, "-o", out))
        pd.testing.assert_frame_equal(pd.read_csv(out / "sweep.csv"), pd.read_csv(ref / "sweep.csv"))
        assert (out / "sweep.parquet").read_bytes() == (ref / "sweep.parquet").read_bytes()


def _swap(variant: Path, table: str, copy: str = "t") -> bool:
    """The edited copy's table in place of the variant's (its meta.json and the rest untouched)."""
    shutil.copy(variant.with_name(copy) / f"{table}.parquet", variant / f"{table}.parquet")
    shutil.rmtree(variant.with_name(copy))
    return True


EVOLVE = ["evolve", "mohur", "--strategy", "hoarder", "--against", "greedy,racer", "--budget", "1000", "--popsize", "4",
          "--validation-games", "20", "--seed", "4", "-j", "1", "-q"]


@pytest.mark.parametrize("edit", ["incumbent outside the cube", "incumbent fitness", "fitness, checksum redone"])
def test_evolve_refuses_an_edited_saved_search(tmp_path, monkeypatch, edit):
    evaluate, calls = E.Arena.evaluate, []

    def interrupted(self, gen, candidates, games):
        calls.append(gen)
        if gen == 2:  # the third generation (a challenger's re-test is played under another key)
            raise RunInterrupted()
        return evaluate(self, gen, candidates, games)

    monkeypatch.setattr(E.Arena, "evaluate", interrupted)
    out = tmp_path / "cut"
    assert cli(*EVOLVE, "-o", out).exit_code == 2
    monkeypatch.undo()
    path = partial_path(out) / E.STATE
    state = json.loads(path.read_text())
    last = state["history"][-1]
    if edit == "incumbent outside the cube":
        last["incumbent"] = [5.0, -5.0][: len(last["incumbent"])] + last["incumbent"][2:]
    else:
        last["incumbent_fitness"] = 0.942
    if edit != "incumbent fitness":  # the checksum made again: the record itself must still follow
        state["digest"] = E._state_digest(state)
    path.write_text(json.dumps(state))
    said = "altered" if edit == "incumbent fitness" else "does not replay at generation 1"
    result = cli("evolve", "--resume", out, "-q")
    *before, line = result.stderr.strip().splitlines()  # the saved parts are announced even with -q
    assert result.exit_code == 2 and line.startswith("balance-sim: error: ") and said in line, result.output
    assert all(b.startswith("balance-sim: continuing the interrupted run") for b in before), result.output
    assert not out.exists() and path.is_file()
