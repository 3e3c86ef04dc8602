import numpy as np
from sim.jit import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import (NO_EXTRA, choose_take, consider, hand_full_or_ending, marginal_worths,
                                        set_sale)

EXCHANGES_ON_DEMAND = True  # see strategies.mohur


@strategy("mohur", "hoarder", params={"min_coins": 2.0, "coin_value": 3.0, "spend_cost": 1.0,
                                      "min_set": 3.0})
@njit(cache=True)
def hoarder(obs, actions, n_actions, params, cfg):
    """Plays for the coin token and drives exchanges with coins: sweeps the market's coins when at least
    `min_coins` lie there, pays for multi-card exchanges in coins, and sells in sets of `min_set`+."""
    forced = hand_full_or_ending(obs)
    best, ties, choice, a = -1e18, 0, 0, 0
    while a < n_actions and actions[a, E.A_TYPE] == E.T_SELL:  # sells come first
        v = set_sale(obs, actions[a, E.A_GOOD], actions[a, E.A_COUNT], params[P_MIN_SET], forced, 50.0)
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
        a += 1
    coins = obs[E.O_MARKET + E.COIN]
    contested = 1.5 if obs[E.O_HAND + E.COIN] <= obs[E.O_OPP_COINS] + 1 else 1.0  # the coin token is in play
    sweep = coins * params[P_COIN_VALUE] * contested if coins >= params[P_MIN_COINS] else coins * 0.5
    return choose_take(obs, actions, a, n_actions, marginal_worths(obs, 0.3), 1.0, 0.0, NO_EXTRA,
                       params[P_SPEND_COST], sweep, best, ties, choice)
