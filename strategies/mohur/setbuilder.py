import numpy as np
from sim.jit import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import (NO_EXTRA, choose_take, consider, hand_full_or_ending, marginal_worths,
                                        set_sale)

EXCHANGES_ON_DEMAND = True  # see strategies.mohur


@strategy("mohur", "setbuilder", params={"min_set": 4.0, "keep_weight": 0.5, "take_scale": 0.5,
                                         "coin_value": 0.5})
@njit(cache=True)
def setbuilder(obs, actions, n_actions, params, cfg):
    """Waits for big sales: collects goods it already holds and sells only sets of `min_set` or more (for
    the bonus tokens), unless the sale empties the stack, the hand is full or the round is about to end."""
    forced = hand_full_or_ending(obs)
    best, ties, choice, a = -1e18, 0, 0, 0
    while a < n_actions and actions[a, E.A_TYPE] == E.T_SELL:  # sells come first
        v = set_sale(obs, actions[a, E.A_GOOD], actions[a, E.A_COUNT], params[P_MIN_SET], forced, 100.0)
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
        a += 1
    return choose_take(obs, actions, a, n_actions, marginal_worths(obs, params[P_KEEP_WEIGHT]), params[P_TAKE_SCALE],
                       params[P_COIN_VALUE], NO_EXTRA, 0.0, np.nan, best, ties, choice)
