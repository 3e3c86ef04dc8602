import numpy as np
from numba import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import consider, fast_take_gain, marginal_worths, sale_rupees


@strategy("mohur", "greedy", params={"take_weight": 0.01, "coin_value": 1.0})
@njit(cache=True)
def greedy(obs, actions, n_actions, params, cfg):
    """Most rupees this turn (one ply): the best sale if any sale is legal; otherwise the take whose cards
    are worth most at the top of their stacks (scaled by take_weight, so any sale beats any take)."""
    worths = np.empty(2 * E.NG)
    marginal_worths(obs, 0.0, worths)
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):
        if actions[a, E.A_TYPE] == E.T_SELL:
            v = sale_rupees(obs, actions[a, E.A_GOOD], actions[a, E.A_COUNT])
        else:
            v = params[0] * fast_take_gain(actions, a, worths, params[1])
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice
