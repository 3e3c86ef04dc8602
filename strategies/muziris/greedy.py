from sim.jit import njit

from sim.muziris import engine as E
from sim.registry import strategy
from strategies._choice import consider
from strategies.muziris._features import NO_BONUS, avg_draw, char_value, choose_option


@strategy("muziris", "greedy", params={"card_weight": 0.3})
@njit(cache=True, _nrt=False)  # allocates nothing (see _features)
def greedy(obs, actions, n_actions, params, cfg):
    """Most coins now (one ply): each character is worth the coins on it plus the best its action can earn
    at once; cards count at card_weight x the coins they add to the orders the hand can make (a tie-break
    that also makes it take, keep and discard sensibly)."""
    if obs[E.O_DKIND] != E.D_CHAR:
        return choose_option(obs, actions, n_actions, params[P_CARD_WEIGHT], NO_BONUS, 0.0)
    ad = avg_draw(obs, -1)
    best, ties, choice = -1e18, 0, 0
    for i in range(n_actions):  # only the characters on offer are valued (pure: the same scores, the same draws)
        value = char_value(obs, actions[i, E.A_X], params[P_CARD_WEIGHT], NO_BONUS, 0.0, ad)
        take, best, ties = consider(value, best, ties)
        if take:
            choice = i
    return choice
