"""The `balance-sim` command line: one-line errors with exit code 2, listings, config, trace vs run."""
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from sim.mohur.config import GOODS, KINDS
from cli_runs import ok, one_line_error, traced

BIN = Path(sys.executable).with_name("balance-sim")


BAD = [
    # (arguments after `run`, what the one-line message must name)
    (["mohur", "--set", "tokens.diamond=[5,7]"], ["tokens.diamond", "[7, 5]"]),
    (["mohur", "--set", "rules.hand_limit=-1"], ["rules.hand_limit", "1 to 30"]),
    (["mohur", "--set", "nosuch=1"], ["nosuch", "rules"]),
    (["mohur", "--set", "rules.hand_limt=3"], ["rules.hand_limt", "hand_limit"]),
    (["mohur", "--set", "rules.first_starter=north"], ["rules.first_starter", "seat0"]),
    (["mohur", "-s", "greedy,nosuch"], ["nosuch", "greedy", "random"]),
    (["nosuchgame"], ["nosuchgame", "mohur"]),
    (["mohur", "-n", "0"], ["--games", "at least 1"]),
    (["mohur", "-j", "0"], ["--jobs", "-1"]),
    (["mohur", "--batch-size", "0"], ["--batch-size", "at least 1"]),
    (["mohur", "--config", "missing.toml"], ["--config", "missing.toml"]),
    (["mohur", "-p", "3"], ["--players", "2"]),
    # errors click itself detects are one line too, as sim/cli.py promises (they printed click's usage block once)
    (["mohur", "-n", "abc"], []), (["mohur", "--bogus-flag"], []), (["mohur", "--backend", "foo"], []),
]


@pytest.mark.parametrize("args,names", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_run_input_exits_2_with_one_line(cli, tmp_path, args, names):
    out = tmp_path / "out"
    result = cli("run", *args, "-o", out, *([] if "-n" in args else ["-n", "10"]), "--no-report")
    one_line_error(result, *names)
    assert result.stdout == ""
    assert not out.exists(), "an output folder was created for a refused run"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")], "a partial folder was left"
    assert not (tmp_path / "reports").exists()


def test_bad_input_through_the_installed_script(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([str(BIN), "run", "mohur", "--set", "rules.hand_limit=-1", "-o", str(out), "--no-report"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "rules.hand_limit" in proc.stderr
    assert not out.exists()


def test_trace_and_strategies_refuse_bad_input_too(cli):
    """Per game: tests/test_every_game.py (bad input); here, commands given no game of this balance-sim."""
    for args in (["strategies", "nosuchgame"], ["config", "nosuchgame"], ["trace", "nosuchgame"],
                 ["strategies", "mohur", "--set", "rules.hand_limit=-1"]):
        one_line_error(cli(*args))


def test_strategies_lists_names_one_per_line(cli):
    result = ok(cli("strategies", "mohur"))
    lines = result.stdout.splitlines()
    assert {"greedy", "setbuilder", "racer", "hoarder", "random"} <= set(lines)
    assert {"setbuilder-patient", "racer-precious"} <= set(lines)  # the shipped presets
    assert len(lines) == len(set(lines)) and all(line and line.strip() == line and " " not in line
                                                 for line in lines)


# ------------------------------------------------------------------ trace


def check_trace_schema(events):
    """The trace event schema of sim/mohur/trace.py (docs/trace.md)."""
    def counts(d, keys):
        assert set(d) == set(keys) and all(isinstance(x, int) and x >= 0 for x in d.values())

    def state(e):
        counts(e["market"], KINDS)
        assert len(e["hands"]) == 2
        for h in e["hands"]:
            counts(h, GOODS)
        assert len(e["coffers"]) == 2 and all(isinstance(c, int) for c in e["coffers"])
        assert isinstance(e["deck"], int) and e["deck"] >= 0
        assert set(e["tokens"]) == set(GOODS)
        for stack in e["tokens"].values():
            assert stack == sorted(stack, reverse=True)

    assert events[0]["event"] == "match_start" and [e["event"] for e in events[-2:]] == ["match_end", "game_end"]
    assert {k: v for k, v in events[-1].items() if k not in ("event", "winners", "win_share")} == \
        {k: v for k, v in events[-2].items() if k != "event"}
    start = events[0]
    assert start["game"] == "mohur" and isinstance(start["seed"], int) and len(start["strategies"]) == 2
    assert isinstance(start["config"], dict)
    in_round = False
    for e in events[1:-2]:
        kind = e["event"]
        if kind == "round_start":
            assert not in_round
            in_round = True
            assert isinstance(e["round"], int) and e["starter"] in (0, 1)
            state(e)
        elif kind == "action":
            assert in_round
            assert e["seat"] in (0, 1) and e["turn"] >= 1
            act = e["action"]
            assert act["type"] in ("take_good", "take_coins", "exchange", "sell", "pass")
            if act["type"] == "take_good":
                assert act["good"] in GOODS
            if act["type"] == "exchange":
                assert set(act["take"]) <= set(GOODS) and set(act["give"]) <= set(KINDS)
            if act["type"] == "sell":
                assert act["good"] in GOODS and act["count"] >= 1
                assert set(act["gained"]) == {"tokens", "bonus"}
                assert act["gained"]["bonus"] is None or isinstance(act["gained"]["bonus"], int)
            state(e["state"])
        elif kind == "round_end":
            assert in_round
            in_round = False
            assert e["reason"] in ("stacks", "deck", "stalled", "turn_cap")
            assert len(e["rupees"]) == 2 and e["coin_token"] in (None, 0, 1) and e["winner"] in (None, 0, 1)
            assert len(e["seals"]) == 2
        else:
            raise AssertionError(f"unknown event {kind}")
    assert not in_round
    end = events[-1]
    assert end["winner"] in (None, 0, 1) and len(end["seals"]) == 2 and end["rounds"] >= 1


@pytest.mark.parametrize("seed,a,b", [(1, "greedy", "random"), (7, "random", "hoarder"),
                                      (42, "setbuilder", "racer"), (99, "random", "random"),
                                      (5, "racer-precious", "greedy")])
def test_trace_matches_kernel_run(cli, tmp_path, seed, a, b):
    events = traced("mohur", "--seed", seed, "-s", f"{a},{b}")
    check_trace_schema(events)
    assert events[0]["strategies"] == [a, b] and events[0]["seed"] == seed

    out = tmp_path / "run"
    ok(cli("run", "mohur", "-n", 1, "--seed", seed, "-s", f"{a},{b}", "-o", out, "--no-report", "-q"))
    games = pd.read_parquet(out / "games.parquet")
    rounds = pd.read_parquet(out / "rounds.parquet")
    assert len(games) == 1
    g = games.iloc[0]
    assert (g["strategy_0"], g["strategy_1"]) == (a, b)
    end = events[-1]
    assert (-1 if end["winner"] is None else end["winner"]) == g["winner"]
    assert end["seals"] == [g["seals_0"], g["seals_1"]]
    assert end["rounds"] == g["rounds"] == len(rounds)
    ends = [e for e in events if e["event"] == "round_end"]
    starts = [e for e in events if e["event"] == "round_start"]
    assert [e["starter"] for e in starts] == list(rounds["starter"])
    assert [e["rupees"] for e in ends] == rounds[["rupees_0", "rupees_1"]].values.tolist()
    assert [-1 if e["winner"] is None else e["winner"] for e in ends] == list(rounds["winner"])
    actions = [sum(1 for e in events if e["event"] == "action" and e["round"] == r) for r in rounds["round"]]
    assert actions == list(rounds["turns"])
