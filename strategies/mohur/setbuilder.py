from sim.jit import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import (NO_EXTRA, choose_exchange, consider, fast_take_gain, marginal_worths,
                                        round_ending_soon, sale_rupees)


@strategy("mohur", "setbuilder", listing="row", params={"min_set": 4.0, "keep_weight": 0.5, "take_scale": 0.5,
                                         "coin_value": 0.5},
          bounds={"min_set": (1, 7, True), "keep_weight": (0.0, 2.0, False), "take_scale": (0.0, 2.0, False),
                  "coin_value": (0.0, 5.0, False)})
@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def setbuilder(obs, actions, n_actions, params, cfg):
    """Waits for big sales: collects goods it already holds and sells only sets of `min_set` or more (for
    the bonus tokens), unless the sale empties the stack, the hand is full or the round is about to end."""
    min_set, keep, scale, coin_value = params[P_MIN_SET], params[P_KEEP_WEIGHT], params[P_TAKE_SCALE], params[P_COIN_VALUE]
    hand_full = E.total(obs, E.O_HAND, E.NG) >= obs[E.O_HAND_LIMIT]
    hurry = round_ending_soon(obs)
    worths = marginal_worths(obs, keep)
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):
        if actions[a, E.A_TYPE] == E.T_SELL:
            g, c = actions[a, E.A_GOOD], actions[a, E.A_COUNT]
            v = sale_rupees(obs, g, c)
            ok = c >= min_set or c >= obs[E.O_TOKREM + g] or hand_full or hurry
            v = v + 100.0 if ok else v - 100.0
        elif actions[a, E.A_TYPE] == E.T_EXCHANGES:
            best, ties, choice = choose_exchange(obs, actions, a, worths, scale, coin_value, NO_EXTRA, 0.0, best, ties,
                                                 choice)
            continue
        else:
            v = scale * fast_take_gain(actions, a, worths, coin_value)
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice
