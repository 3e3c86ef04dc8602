"""`balance-sim ladder`: each pair's win share recovered from planted games, the page escaping every name, and a
small ladder through the command (files written, one line exit 2 on bad input)."""
import json

import numpy as np
import pytest

from analysis import ladder as L
from cli_runs import cli as invoke, ok


def test_pair_shares_recover_planted_chances_and_their_intervals_cover():
    """Two players, a beats b with probability 0.7; three players, one c against two a's wins 0.5 of its games:
    the table gives each within its interval, which covers the truth in about 95% of repetitions."""
    covered = 0
    for rep in range(200):
        rng = np.random.default_rng(rep)
        won = rng.random(400) < 0.7
        codes = np.tile([0, 1], (400, 1))
        codes[1::2] = [1, 0]  # seats alternate
        wins = np.where(codes == 0, won[:, None], ~won[:, None]).astype(float)
        table = L.pair_table(codes, wins, ["a", "b"]).set_index(["player", "against"])
        row = table.loc[("a", "b")]
        covered += row["low"] <= 0.7 <= row["high"]
        assert abs(table.loc[("b", "a"), "share"] - (1 - row["share"])) < 1e-12
    assert 0.92 <= covered / 200 <= 0.98, covered
    codes = np.array([[2, 0, 0], [0, 2, 0], [0, 0, 2], [2, 0, 0]])
    wins = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 1], [0, 0.5, 0.5]], dtype=float)
    table = L.pair_table(codes, wins, ["a", "b", "c"]).set_index(["player", "against"])
    assert table.loc[("c", "a"), "share"] == 0.5 and table.loc[("c", "a"), "games"] == 4
    assert table.loc[("a", "c"), "share"] == pytest.approx((0 + 0.5 + 0 + 0.5) / 4)  # per game, its seats' mean


def test_the_page_escapes_every_name():
    result = {"setup": {"game": "mohur", "players": 2, "seed": 1, "games": 10, "command": "ladder <x>"},
              "population": "fresh deals",
              "elo": [{"player": "<b>&bad", "elo": 10.0, "ci_low": None, "ci_high": 20.0, "games": 10},
                      {"player": "ok", "elo": -10.0, "ci_low": -20.0, "ci_high": 0.0, "games": 10}],
              "pairs": [{"player": "<b>&bad", "against": "ok", "share": 0.6, "games": 10, "low": 0.3, "high": 0.8}]}
    page = L.page(result)
    assert "<b>&bad" not in page and "&lt;b&gt;&amp;bad" in page and "ladder &lt;x&gt;" in page
    assert "open to +20" in L.markdown(result)


def test_a_small_ladder_through_the_command(tmp_path):
    out = tmp_path / "ladder"
    ok(invoke("ladder", "mohur", "-s", "random,greedy,hoarder", "-n", "12", "--seed", "2", "-o", out, "-q"))
    result = json.loads((out / "ladder.json").read_text())
    assert [r["player"] for r in result["elo"]][-1] == "random"
    assert {(p["player"], p["against"]) for p in result["pairs"]} == {
        (a, b) for a in ("random", "greedy", "hoarder") for b in ("random", "greedy", "hoarder") if a != b}
    assert all(p["games"] == 12 for p in result["pairs"])
    assert (out / "ladder.html").read_text().startswith("<!doctype html>")
    bad = invoke("ladder", "mohur", "-s", "greedy,nobody", "-n", "4", "-o", tmp_path / "bad")
    assert bad.exit_code == 2 and "nobody" in bad.output and len(bad.output.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()
