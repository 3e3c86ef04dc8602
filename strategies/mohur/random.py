import numpy as np
from sim.jit import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import exchange_number

EXCHANGES_ON_DEMAND = True  # see strategies.mohur: the exchanges are counted, only the one drawn is written


@strategy("mohur", "random")
@njit(cache=True)
def random_choice(obs, actions, n_actions, params, cfg):
    """Uniform over the legal actions (the same draw whether the exchanges are listed or come on demand)."""
    last = n_actions - 1
    if actions[last, E.A_TYPE] != E.T_EXCHANGES:
        return np.random.randint(0, n_actions)
    i = np.random.randint(0, last + exchange_number(obs, actions, last, -1))
    if i >= last:
        exchange_number(obs, actions, last, i - last)
        return last
    return i
