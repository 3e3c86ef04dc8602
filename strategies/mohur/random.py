import numpy as np
from sim.jit import njit

from sim.registry import strategy


EXCHANGES_ON_DEMAND = "counted"  # reads only how many actions there are (see strategies.mohur)

@strategy("mohur", "random", observes=False)
@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def random_choice(obs, actions, n_actions, params, cfg):
    """Uniform over the legal actions."""
    return np.random.randint(0, n_actions)
