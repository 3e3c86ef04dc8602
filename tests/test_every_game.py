"""Tests every registered game passes (OpenSpiel's games_sim_test is the model).

Parametrised over `sim.game.game_names()`, so a new game is picked up without an edit here. Game-specific
files keep only the rules.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from sim.config import build, load_defaults
from sim.errors import UserError
from sim.game import game_names, get_game
from sim.registry import choices, registered
from sim.runner import Plan, execute

GAMES = game_names()


def _setup(game: str, players: int):
    spec = get_game(game)
    cfg = spec.validate(build(spec.package), players)
    return spec, cfg


def _heuristics(game: str) -> list[str]:
    return [d.name for d in registered(game) if not d.search]


def _lineup(game: str, players: int, offset: int = 0) -> list[str]:
    names = _heuristics(game)
    return [names[(offset + k) % len(names)] for k in range(players)]


def _play(game, players, names, n, seed, *, debug=False, jobs=1, batch=None, backend="loky"):
    spec, cfg = _setup(game, players)
    chosen = tuple(choices(game, cfg.presets, names))
    plan = Plan(game, players, n, seed, chosen, batch or n, round_robin=False)
    tables, _ = execute(spec, cfg, plan, jobs=jobs, backend=backend, debug=debug, progress=False)
    return spec, tables


def _player_counts(game):
    spec = get_game(game)
    return sorted({spec.min_players, spec.default_players, spec.max_players})


def test_every_game_is_found():
    assert {"mohur", "mughal", "muziris"} <= set(GAMES)


# ------------------------------------------------------------------ configuration


@pytest.mark.parametrize("game", GAMES)
def test_defaults_validate_at_every_player_count(game):
    spec = get_game(game)
    for players in range(spec.min_players, spec.max_players + 1):
        assert spec.validate(build(spec.package), players) is not None
    for players in (spec.min_players - 1, spec.max_players + 1):
        with pytest.raises(UserError, match="players"):
            spec.check_players(players)


def _numeric_leaves(node, path=()):
    """Every (dotted key, value) holding a number or a list of numbers, outside strategy presets."""
    if isinstance(node, dict):
        for key, value in node.items():
            if path == () and key == "strategies":
                continue
            yield from _numeric_leaves(value, path + (key,))
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield ".".join(path), node
    elif isinstance(node, list) and node and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                 for v in node):
        yield ".".join(path), node
    elif isinstance(node, list):  # an array of tables (Mughal's emperors): indexed from 1, as --set does
        for i, value in enumerate(node, start=1):
            yield from _numeric_leaves(value, path + (str(i),))


@pytest.mark.parametrize("game", GAMES)
def test_a_broken_configuration_is_refused_naming_the_key(game):
    """Every numeric key given text is refused with a UserError naming that key (never another exception)."""
    spec = get_game(game)
    leaves = list(_numeric_leaves(load_defaults(spec.package)))
    assert len(leaves) >= 10, "a game's numbers live in its defaults.toml"
    for key, _ in leaves:
        with pytest.raises(UserError) as refused:
            spec.validate(build(spec.package, None, (f'{key}="lots"',)), spec.default_players)
        assert key.split(".")[-1] in str(refused.value), (key, str(refused.value))
    with pytest.raises(UserError, match="unknown key"):
        build(spec.package, None, ("no_such_key=1",))


# ------------------------------------------------------------------ play


@pytest.mark.parametrize("game", GAMES)
def test_every_heuristic_strategy_plays_legally_with_invariants_checked(game):
    """Debug mode checks every invariant (cards and tokens conserved, legal actions only) after every action."""
    names = _heuristics(game)
    for players in _player_counts(game):
        for offset in range(0, len(names), players):
            spec, tables = _play(game, players, _lineup(game, players, offset), 24, seed=5 + offset,
                                 debug=True)
            main = tables[spec.main_table]
            assert len(main) == 24
            assert main["winner"].between(-1, players - 1).all()


@pytest.mark.parametrize("game", GAMES)
def test_random_play_outs_keep_every_invariant(game):
    spec = get_game(game)
    assert "random" in _heuristics(game), "every game has a random player (the legality baseline)"
    for players in _player_counts(game):
        _, tables = _play(game, players, ["random"] * players, 60, seed=17, debug=True)
        assert len(tables[spec.main_table]) == 60


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_tables_at_any_job_count(game):
    spec = get_game(game)
    players = spec.default_players
    names = _lineup(game, players, 1)
    _, one = _play(game, players, names, 400, seed=23, batch=100, jobs=1)
    _, two = _play(game, players, names, 400, seed=23, batch=100, jobs=2, backend="threading")
    assert one.keys() == two.keys()
    for name in one:
        pd.testing.assert_frame_equal(one[name], two[name])
    _, other = _play(game, players, names, 400, seed=24, batch=100, jobs=1)
    assert not one[spec.main_table].equals(other[spec.main_table])


@pytest.mark.parametrize("game", GAMES)
def test_trace_is_game_zero_of_a_one_game_run(game, tmp_path):
    from click.testing import CliRunner

    from sim.cli import main

    spec = get_game(game)
    runner = CliRunner()
    for players in _player_counts(game):
        lineup = ",".join(_lineup(game, players, players))
        for seed in (3, 8):
            traced = runner.invoke(main, ["trace", game, "--seed", seed, "-s", lineup, "-p", players])
            assert traced.exit_code == 0, traced.output
            events = [json.loads(line) for line in traced.output.splitlines()]
            assert events[0]["seed"] == seed
            out = tmp_path / f"{players}-{seed}"
            ran = runner.invoke(main, ["run", game, "-n", 1, "--seed", seed, "-s", lineup, "-p", players,
                                       "-o", str(out), "-q", "--no-report"])
            assert ran.exit_code == 0, ran.output
            row = pd.read_parquet(out / f"{spec.main_table}.parquet").iloc[0]
            end = events[-1]
            assert end["event"] == "game_end"
            assert end["win_share"] == [float(row[f"win_share_{p}"]) for p in range(players)], (players, seed)
            if "winners" in end:
                winner = end["winners"][0] if len(end["winners"]) == 1 else -1
            else:
                winner = -1 if end["winner"] is None else end["winner"]
            assert winner == int(row["winner"]), (players, seed)


@pytest.mark.parametrize("game", GAMES)
def test_every_seat_wins_sometimes_and_results_cover_every_game(game):
    """Seats rotate, so with equal strategies every seat wins some games; ids run 0..n-1 with no gap."""
    spec = get_game(game)
    players = spec.default_players
    _, tables = _play(game, players, ["greedy"] * players, 600, seed=2, batch=200)
    main = tables[spec.main_table]
    assert np.array_equal(main[spec.id_column].to_numpy(), np.arange(600))
    wins = main["winner"].value_counts()
    assert all(wins.get(seat, 0) > 0 for seat in range(players)), wins.to_dict()


@pytest.mark.parametrize("game", GAMES)
def test_win_shares_sum_to_one_or_nobody_wins(game):
    """`win_share_<seat>` of the main table: each game's shares sum to 1, or to 0 when by configuration nobody
    wins; a sole winner holds the whole win."""
    spec = get_game(game)
    for players in _player_counts(game):
        _, tables = _play(game, players, _lineup(game, players), 200, seed=31)
        main = tables[spec.main_table]
        shares = main[[f"win_share_{p}" for p in range(players)]].to_numpy()
        assert ((shares >= 0) & (shares <= 1)).all()
        total = shares.sum(axis=1)
        nobody = np.isclose(total, 0)
        assert (nobody | np.isclose(total, 1)).all()
        sole = main["winner"].to_numpy() >= 0
        assert not (nobody & sole).any()
        assert sole.any()
        assert (shares[sole, main["winner"].to_numpy()[sole]] == 1).all()
