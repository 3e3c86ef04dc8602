from sim.jit import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import (card_worth, choose_exchange, consider, fast_take_gain, marginal_worths,
                                        sale_rupees)


@strategy("mohur", "racer", listing="row", params={"sell_threshold": 3.0, "precious_bias": 1.0, "coin_value": 0.3},
          bounds={"sell_threshold": (0.0, 10.0, False), "precious_bias": (0.0, 5.0, False),
                  "coin_value": (0.0, 5.0, False)})
@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def racer(obs, actions, n_actions, params, cfg):
    """Sells early to take the top tokens and empty stacks: any sale whose first token is worth at least
    `sell_threshold` goes now; it takes the goods with the richest tops, precious ones weighted up."""
    threshold, bias, coin_value = params[P_SELL_THRESHOLD], params[P_PRECIOUS_BIAS], params[P_COIN_VALUE]
    worths = marginal_worths(obs, 0.0)
    precious = _precious(obs, bias)
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):
        typ = actions[a, E.A_TYPE]
        if typ == E.T_SELL:
            g, c = actions[a, E.A_GOOD], actions[a, E.A_COUNT]
            v = sale_rupees(obs, g, c)
            v = v + 100.0 if card_worth(obs, g, 0) >= threshold else 0.3 * v
        elif typ == E.T_EXCHANGES:
            best, ties, choice = choose_exchange(obs, actions, a, worths, 1.0, coin_value, precious, 0.0,
                                                 best, ties, choice)
            continue
        else:
            v = fast_take_gain(actions, a, worths, coin_value)
            for g in range(E.NG):
                v += actions[a, E.A_TAKE + g] * precious[g]
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def _precious(obs, bias):
    """What each good taken adds per card: bias, halved for a good not in hand, for the precious goods (min sale 2+).
    Multiplying by the cards taken after gives the same floats as bias x cards x factor: the factors 1 and 1/2 are
    powers of two; adding 0.0 for the other goods changes no comparison."""
    return (_bias(obs, 0, bias), _bias(obs, 1, bias), _bias(obs, 2, bias), _bias(obs, 3, bias), _bias(obs, 4, bias),
            _bias(obs, 5, bias))


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def _bias(obs, g, bias):
    return bias * (1.0 if obs[E.O_HAND + g] > 0 else 0.5) if obs[E.O_MIN_SALE + g] >= 2 else 0.0
