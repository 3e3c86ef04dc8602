import numpy as np
from sim.jit import njit

from sim.muziris import engine as E
from sim.registry import strategy
from strategies.muziris._features import NO_BONUS, choose_character, choose_option


@strategy("muziris", "grabber", params={"coin_weight": 10.0, "card_weight": 0.3})
@njit(cache=True, inline="always")  # into the registry's dispatcher (see _features)
def grabber(obs, actions, n_actions, params, cfg):
    """Takes the character carrying the most coins (coin_weight x its coins, plus its greedy value, so the
    greedy value only breaks ties when coin_weight is large); plays the rest like greedy."""
    w = params[P_CARD_WEIGHT]
    if obs[E.O_DKIND] != E.D_CHAR:
        return choose_option(obs, actions, n_actions, w, NO_BONUS, 0.0)
    extra = np.zeros(E.MAX_C)
    for k in range(obs[E.O_NCH]):
        extra[k] = params[P_COIN_WEIGHT] * obs[E.O_CH_COINS + k]
    return choose_character(obs, actions, n_actions, w, NO_BONUS, 0.0, extra)
