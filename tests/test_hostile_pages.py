"""Every page from one fixture of hostile preset names (tests/hostile_names.py): a report of each game (with
its mirror-games tables), a report rebuilt from the folder, compare, sweep (with its variants' reports), tune,
sensitivity, evolve, exploit and replay. No name's markup reaches a page raw, and a name with `=` keeps its
figures (a key parser that cut it at the `=` read them as n/a)."""
import json

import pytest

from cli_runs import cli, ok
from hostile_names import HOSTILE, SCRIPT, assert_escaped, preset_config

GAMES = {"mohur": ["-n", "300"], "mughal": ["-n", "300", "-p", "3"], "muziris": ["-n", "300", "-p", "3"]}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    return preset_config(tmp_path_factory.mktemp("hostile") / "hostile.toml")


@pytest.fixture(scope="module")
def mohur_run(tmp_path_factory, hostile):
    out = tmp_path_factory.mktemp("mohur") / "run"
    ok(cli("run", "mohur", *GAMES["mohur"], "-s", "all", "--config", hostile, "-j", "1", "-q", "-o", out))
    return out


def page(path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("game", list(GAMES))
def test_report_of_every_game_escapes_every_name(game, hostile, mohur_run, tmp_path):
    out = mohur_run if game == "mohur" else tmp_path / game
    if game != "mohur":
        ok(cli("run", game, *GAMES[game], "-s", "all", "--config", hostile, "-j", "1", "-q", "-o", out))
    summary = json.loads((out / "summary.json").read_text())
    mirrors = [k for k in summary if "[mirror=a=b]" in k]
    assert mirrors, "the preset called a=b has its mirror-game figures"
    for where in (out / "report.html", ok(cli("report", out, "-o", tmp_path / "again", "-q")) and
                  tmp_path / "again" / "report.html"):
        text = page(where)
        assert_escaped(text, f"{game} {where}")
        assert "<td>a=b</td><td>n/a" not in text, "a name with = keeps its figures in the mirror table"
        assert "mirror games of" in text or "mirror matches of" in text


def test_compare_sweep_tune_sensitivity_escape_every_name(hostile, mohur_run, tmp_path):
    ok(cli("compare", mohur_run, mohur_run, "-o", tmp_path / "cmp", "-q"))
    assert_escaped(page(tmp_path / "cmp" / "compare.html"), "compare")
    common = ["-s", "all", "--config", hostile, "-j", "1", "-q"]
    ok(cli("sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "5", "-n", "200", "--reports",
           *common, "-o", tmp_path / "sweep"))
    assert_escaped(page(tmp_path / "sweep" / "variant-000" / "report.html"), "sweep variant")
    assert "<script" not in page(tmp_path / "sweep" / "sweep_report.html")
    ok(cli("tune", "mohur", "--param", "rules.coin_token", "--values", "0", "5", "--target",
           "turns_per_round=0..1000", "--budget", "2000", "-s", f"{SCRIPT},a=b", "--config", hostile, "-j", "1", "-q",
           "-o", tmp_path / "tune"))
    assert "<script" not in page(tmp_path / "tune" / "tune.html")
    ok(cli("sensitivity", "mohur", "--param", "rules.coin_token", "-n", "30", "--budget", "240",
           "--metric", "turns_per_round", *common, "-o", tmp_path / "sens"))
    assert_escaped(page(tmp_path / "sens" / "sensitivity.html"), "sensitivity")


def test_evolve_exploit_replay_escape_every_name(hostile, tmp_path):
    common = ["--config", hostile, "-j", "1", "-q"]
    ok(cli("evolve", "mohur", "--strategy", SCRIPT, "--against", "a=b,greedy", "--budget", "200", "--popsize", "4",
           "--validation-games", "20", *common, "-o", tmp_path / "evolve"))
    assert_escaped(page(tmp_path / "evolve" / "evolve.html"), "evolve")
    ok(cli("exploit", "mohur", "--strategy", "greedy", "--budget", "200", "--popsize", "4", "--field-games", "200",
           "--validation-games", "20", *common, "-o", tmp_path / "exploit"))
    assert_escaped(page(tmp_path / "exploit" / "exploit.html"), "exploit", shown=False)  # the mix names only
    # strategies it weighs above 0, and a preset of greedy may have none
    ok(cli("replay", "mohur", "-s", f"{SCRIPT},{HOSTILE[2]}", "--config", hostile, "-o", tmp_path / "replay.html"))
    text = page(tmp_path / "replay.html")
    assert "<b>amp</b>" not in text and SCRIPT not in text  # names travel as JSON with "</" escaped
