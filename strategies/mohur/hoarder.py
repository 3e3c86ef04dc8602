from sim.jit import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import (NO_EXTRA, choose_exchange, consider, fast_take_gain, marginal_worths,
                                        round_ending_soon, sale_rupees)


@strategy("mohur", "hoarder", listing="row", params={"min_coins": 2.0, "coin_value": 3.0, "spend_cost": 1.0,
                                      "min_set": 3.0},
          bounds={"min_coins": (1, 8, True), "coin_value": (0.0, 10.0, False),
                  "spend_cost": (0.0, 10.0, False), "min_set": (1, 7, True)})
@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def hoarder(obs, actions, n_actions, params, cfg):
    """Plays for the coin token and drives exchanges with coins: sweeps the market's coins when at least
    `min_coins` lie there, pays for multi-card exchanges in coins, and sells in sets of `min_set`+."""
    min_coins, coin_value, spend_cost, min_set = params[P_MIN_COINS], params[P_COIN_VALUE], params[P_SPEND_COST], params[P_MIN_SET]
    mine, theirs = obs[E.O_HAND + E.COIN], obs[E.O_OPP_COINS]
    contested = 1.5 if mine <= theirs + 1 else 1.0  # the coin token is still in play
    forced = E.total(obs, E.O_HAND, E.NG) >= obs[E.O_HAND_LIMIT] or round_ending_soon(obs)
    worths = marginal_worths(obs, 0.3)
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):
        typ = actions[a, E.A_TYPE]
        if typ == E.T_SELL:
            g, c = actions[a, E.A_GOOD], actions[a, E.A_COUNT]
            v = sale_rupees(obs, g, c)
            v = v + 50.0 if (c >= min_set or c >= obs[E.O_TOKREM + g] or forced) else v - 50.0
        elif typ == E.T_TAKE_COINS:
            coins = actions[a, E.A_TAKE + E.COIN]
            v = coins * coin_value * contested if coins >= min_coins else coins * 0.5
        elif typ == E.T_EXCHANGES:
            best, ties, choice = choose_exchange(obs, actions, a, worths, 1.0, 0.0, NO_EXTRA, spend_cost, best, ties,
                                                 choice)
            continue
        else:
            v = fast_take_gain(actions, a, worths, 0.0)
            v -= spend_cost * actions[a, E.A_GIVE + E.COIN]
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice
