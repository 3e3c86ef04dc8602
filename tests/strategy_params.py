"""The kernels' strategy arguments for strategy or preset names, shared by the game tests."""
import numpy as np

from sim.registry import choices, registered


def strategy_arrays(game, presets, names, **first):
    """(base strategy ids, parameter rows) of `names`; `first` sets parameters of the first name by their names."""
    chosen = choices(game, presets, list(names))
    base = np.array([c.base_id for c in chosen], np.int64)
    params = np.stack([c.vector() for c in chosen])
    order = list(registered(game)[chosen[0].base_id].params)
    for name, value in first.items():
        params[0, order.index(name)] = value
    return base, params


def preset_vector(game, presets, name, **overrides):
    """One name's base strategy id and parameter vector, `overrides` set by parameter name."""
    base, params = strategy_arrays(game, presets, [name], **overrides)
    return int(base[0]), params[0]
