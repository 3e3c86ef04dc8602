import numpy as np
from sim.jit import njit

from sim.registry import strategy


@strategy("mohur", "random", observes=False, listing="counted")  # reads only n_actions
@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def random_choice(obs, actions, n_actions, params, cfg):
    """Uniform over the legal actions."""
    return np.random.randint(0, n_actions)
