import numpy as np
from sim.jit import njit

from sim.registry import strategy


@strategy("muziris", "random", observes=False)
@njit(cache=True, inline="always")  # into the registry's dispatcher (see _features)
def random_choice(obs, actions, n_actions, params, cfg):
    """Uniform over the options of every decision (character, card, order, discard)."""
    return np.random.randint(0, n_actions)
