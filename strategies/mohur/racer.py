import numpy as np
from sim.jit import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import choose_take, consider, marginal_worths, sale_rupees, top_token

EXCHANGES_ON_DEMAND = True  # see strategies.mohur


@strategy("mohur", "racer", params={"sell_threshold": 3.0, "precious_bias": 1.0, "coin_value": 0.3})
@njit(cache=True)
def racer(obs, actions, n_actions, params, cfg):
    """Sells early to take the top tokens and empty stacks: any sale whose first token is worth at least
    `sell_threshold` goes now; it takes the goods with the richest tops, precious ones weighted up."""
    best, ties, choice, a = -1e18, 0, 0, 0
    while a < n_actions and actions[a, E.A_TYPE] == E.T_SELL:  # sells come first
        g = actions[a, E.A_GOOD]
        v = sale_rupees(obs, g, actions[a, E.A_COUNT])
        take, best, ties = consider(v + 100.0 if top_token(obs, g) >= params[P_SELL_THRESHOLD] else 0.3 * v, best,
                                    ties)
        if take:
            choice = a
        a += 1
    bias = params[P_PRECIOUS_BIAS]
    return choose_take(obs, actions, a, n_actions, marginal_worths(obs, 0.0), 1.0, params[P_COIN_VALUE],
                       (_bias(obs, 0, bias), _bias(obs, 1, bias), _bias(obs, 2, bias), _bias(obs, 3, bias),
                        _bias(obs, 4, bias), _bias(obs, 5, bias)), 0.0, np.nan, best, ties, choice)


@njit(cache=True)
def _bias(obs, g, bias):
    """What each card of good g taken adds: precious goods (sold in twos or more) weighted up, more so when one
    is already held (exact as the factors 1 and 1/2 are powers of two)."""
    return bias * (1.0 if obs[E.O_HAND + g] > 0 else 0.5) if obs[E.O_MINSALE + g] >= 2 else 0.0
