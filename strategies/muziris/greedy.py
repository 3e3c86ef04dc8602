import numpy as np
from numba import njit

from sim.muziris import engine as E
from sim.registry import strategy
from strategies.muziris._features import NO_BONUS, avg_draw, char_value, choose_character, choose_option


@strategy("muziris", "greedy", params={"card_weight": 0.3})
@njit(cache=True)
def greedy(obs, actions, n_actions, params, cfg):
    """Most coins now (one ply): each character is worth the coins on it plus the best its action can earn
    at once; cards count at card_weight x the coins they add to the orders the hand can make (a tie-break
    that also makes it take, keep and discard sensibly)."""
    tb = NO_BONUS
    if obs[E.O_DKIND] != E.D_CHAR:
        return choose_option(obs, actions, n_actions, params[P_CARD_WEIGHT], tb, 0.0)
    cs = np.zeros(E.MAX_C)
    ad = avg_draw(obs, -1)
    for k in range(obs[E.O_NCH]):
        cs[k] = char_value(obs, k, params[P_CARD_WEIGHT], tb, 0.0, ad)
    return choose_character(actions, n_actions, cs)
