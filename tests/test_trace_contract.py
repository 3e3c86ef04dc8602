"""The trace contract for every game: `trace GAME --seed S` is game 0 of `run GAME -n 1 --seed S`."""
import json

import pandas as pd
import pytest

from sim.cli import main
from click.testing import CliRunner

LINEUPS = {"mohur": "greedy,racer", "mughal": "greedy,denier,random,emperor", "muziris": "greedy,random,blocker"}


@pytest.mark.parametrize("game", sorted(LINEUPS))
@pytest.mark.parametrize("seed", [3, 11])
def test_trace_is_game_zero_of_a_one_game_run(game, seed, tmp_path):
    runner = CliRunner()
    players = len(LINEUPS[game].split(","))
    trace = runner.invoke(main, ["trace", game, "--seed", str(seed), "-s", LINEUPS[game], "-p", str(players)])
    assert trace.exit_code == 0, trace.output
    events = [json.loads(line) for line in trace.output.splitlines()]
    assert events[0]["event"] in ("match_start", "game_start") and events[0]["seed"] == seed
    end = events[-1]
    out = tmp_path / "run"
    run = runner.invoke(main, ["run", game, "-n", "1", "--seed", str(seed), "-s", LINEUPS[game], "-p",
                               str(players), "-o", str(out), "-q", "--no-report"])
    assert run.exit_code == 0, run.output
    games = pd.read_parquet(out / "games.parquet")
    assert end["event"] == "game_end"
    seats = [f"win_share_{p}" for p in range(players)]
    assert end["win_share"] == games[seats].iloc[0].tolist()
    if "winners" in end:  # mohur and muziris list every winner; the games table says -1 for a shared win
        traced = end["winners"][0] if len(end["winners"]) == 1 else -1
    else:  # mughal: -1 when shared
        traced = end["winner"]
    assert traced == int(games["winner"][0])
