from sim.jit import njit

from sim.muziris import engine as E
from sim.registry import strategy
from strategies.muziris._features import NO_BONUS, NO_EXTRA, choose_character, choose_option


@strategy("muziris", "greedy", params={"card_weight": 0.3})
@njit(cache=True, _nrt=False, inline="always")  # allocates nothing; inlined (see _features)
def greedy(obs, actions, n_actions, params, cfg):
    """Most coins now (one ply): each character is worth the coins on it plus the best its action can earn
    at once; cards count at card_weight x the coins they add to the orders the hand can make (a tie-break
    that also makes it take, keep and discard sensibly)."""
    if obs[E.O_DKIND] != E.D_CHAR:
        return choose_option(obs, actions, n_actions, params[P_CARD_WEIGHT], NO_BONUS, 0.0)
    return choose_character(obs, actions, n_actions, params[P_CARD_WEIGHT], NO_BONUS, 0.0, NO_EXTRA)
