"""The kernels' strategy arguments for strategy or preset names, shared by the game tests."""
import numpy as np

from sim.game import get_game
from sim.registry import choices, param_table, registered


def strategy_arrays(game, presets, names, **first):
    """(base strategy ids, parameter rows) of `names`; `first` sets parameters of the first name by their names."""
    chosen = choices(game, presets, list(names))
    base = np.array([c.base_id for c in chosen], np.int64)
    params = param_table(chosen)
    order = list(registered(game)[chosen[0].base_id].params)
    for name, value in first.items():
        params[0, order.index(name)] = value
    return base, params


def preset_vector(game, presets, name, **overrides):
    """One name's base strategy id and parameter vector, `overrides` set by parameter name."""
    base, params = strategy_arrays(game, presets, [name], **overrides)
    return int(base[0]), params[0]


def lone_seat_lineup(n, players):
    """n games: strategy 0 in seat g % players of game g, strategy 1 in every other seat."""
    lineup = np.ones((n, players), np.int64)
    lineup[np.arange(n), np.arange(n) % players] = 0
    return lineup


def lone_seat(game, cfg, players, names, n, seed, **first):
    """n games of names[0] in seat g % players of game g against names[1] in every other seat (`first` as in
    strategy_arrays): the players table's rows of that lone seat."""
    base, params = strategy_arrays(game, cfg.presets, names, **first)
    table = get_game(game).run_batch(cfg, players, lone_seat_lineup(n, players), base, params, seed, False)["players"]
    mine = np.asarray(table["seat"]) == np.repeat(np.arange(n) % players, players)
    return {column: np.asarray(values)[mine] for column, values in table.items()}
