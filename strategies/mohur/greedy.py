from sim.jit import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import (NO_EXTRA, card_worth, choose_exchange, consider, fast_take_gain,
                                        marginal_worths, sale_rupees)


@strategy("mohur", "greedy", listing="row", params={"take_weight": 0.01, "coin_value": 1.0},
          bounds={"take_weight": (0.0, 1.0, False), "coin_value": (0.0, 10.0, False)})
@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def greedy(obs, actions, n_actions, params, cfg):
    """Most rupees this turn (one ply): the best sale if any sale is legal; otherwise the take whose cards
    are worth most at the top of their stacks (scaled by take_weight, so any sale beats any take)."""
    best, ties, choice = -1e18, 0, 0
    n_sells = 0
    while n_sells < n_actions and actions[n_sells, E.A_TYPE] == E.T_SELL:  # sells come first
        v = sale_rupees(obs, actions[n_sells, E.A_GOOD], actions[n_sells, E.A_COUNT])
        take, best, ties = consider(v, best, ties)
        if take:
            choice = n_sells
        n_sells += 1
    tw, cv = params[P_TAKE_WEIGHT], params[P_COIN_VALUE]
    if n_sells > 0 and tw >= 0 and cv >= 0:
        # No take can score more than taking every card in the market: when the best sale beats even that,
        # the takes cannot win or tie, so skipping them changes neither the choice nor the random draws.
        bound = cv * obs[E.O_MARKET + E.COIN]
        for g in range(E.NG):
            bound += obs[E.O_MARKET + g] * card_worth(obs, g, obs[E.O_HAND + g])
        if best > tw * bound + 1e-9:
            return choice
    worths = marginal_worths(obs, 0.0)
    for a in range(n_sells, n_actions):
        if actions[a, E.A_TYPE] == E.T_EXCHANGES:
            best, ties, choice = choose_exchange(obs, actions, a, worths, tw, cv, NO_EXTRA, 0.0, best, ties, choice)
            continue
        take, best, ties = consider(tw * fast_take_gain(actions, a, worths, cv), best, ties)
        if take:
            choice = a
    return choice
