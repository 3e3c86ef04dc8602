import numpy as np
from numba import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import pick_best, sale_rupees, take_gain


@strategy("mohur", "greedy", params={"take_weight": 0.01, "coin_value": 1.0})
@njit(cache=True)
def greedy(obs, actions, n_actions, params):
    """Most rupees this turn (one ply): the best sale if any sale is legal; otherwise the take whose cards
    are worth most at the top of their stacks (scaled by take_weight, so any sale beats any take)."""
    scores = np.empty(n_actions)
    for a in range(n_actions):
        if actions[a, E.A_TYPE] == E.T_SELL:
            scores[a] = sale_rupees(obs, actions[a, E.A_GOOD], actions[a, E.A_COUNT])
        else:
            scores[a] = params[0] * take_gain(obs, actions, a, params[1], 0.0)
    return pick_best(scores, n_actions)
