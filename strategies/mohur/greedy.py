import numpy as np
from numba import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import card_worth, consider, fast_take_gain, marginal_worths, sale_rupees


@strategy("mohur", "greedy", params={"take_weight": 0.01, "coin_value": 1.0})
@njit(cache=True)
def greedy(obs, actions, n_actions, params, cfg):
    """Most rupees this turn (one ply): the best sale if any sale is legal; otherwise the take whose cards
    are worth most at the top of their stacks (scaled by take_weight, so any sale beats any take).
    Reads exchanges listed one by one or in groups (engine._enumerate, `grouped`): the same choice either way."""
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
    group, chosen = -1, np.int64(0)  # the group (row) and the gives per kind (packed) of a chosen exchange
    for a in range(n_sells, n_actions):
        if actions[a, E.A_TYPE] != E.T_EXCHANGES:
            v = tw * fast_take_gain(actions, a, worths, cv)
            take, best, ties = consider(v, best, ties)
            if take:
                choice, group = a, -1
        elif actions[a, E.A_COUNT] > 0:  # a group (the free row last has count 0)
            best, ties, picked = _walk_group(actions, a, worths, tw, cv, best, ties)
            if picked >= 0:
                group, chosen = a, picked
    if group >= 0:
        choice = n_actions - 1  # the free row: the chosen exchange, written out
        _write_exchange(actions, choice, group, chosen)
    return choice


@njit(cache=True)
def _walk_group(actions, a, worths, tw, cv, best, ties):
    """consider() over group a's exchanges in the engine's order, each valued exactly as fast_take_gain values
    its row, unless even its best exchange falls short of `best` (then none would win or tie: no draw is
    skipped). Returns (best, ties, the packed gives per kind of the last exchange taken, or -1)."""
    k = actions[a, E.A_COUNT]
    bounds, kinds, nk = np.int64(0), np.int64(0), 0
    gain = 0.0  # what the take brings, before what the give costs
    for g in range(E.NK):
        b = actions[a, E.A_GIVE + g]
        if b > 0:
            bounds |= np.int64(b) << (E.FIELD * nk)
            kinds |= np.int64(g) << (E.KIND_BITS * nk)
            nk += 1
        if g < E.NG:
            gain += actions[a, E.A_TAKE + g] * worths[g]
    if tw >= 0:
        # the cheapest give fills the cheapest kinds first
        cost, left, used = 0.0, k, 0
        while left > 0:
            cheapest, at = 1e300, -1
            for i in range(nk):
                if not (used >> i) & 1:
                    g = (kinds >> (E.KIND_BITS * i)) & E.KMASK
                    c = cv if g == E.COIN else worths[E.NG + g]
                    if c < cheapest:
                        cheapest, at = c, i
            used |= 1 << at
            w = min((bounds >> (E.FIELD * at)) & E.FMASK, left)
            cost += w * cheapest
            left -= w
        if tw * (gain - cost) < best - 1e-6:
            return best, ties, np.int64(-1)
    picked = np.int64(-1)
    give = E.first_give(bounds, nk, k)
    while give >= 0:
        per_kind = np.int64(0)
        for i in range(nk):
            per_kind |= ((give >> (E.FIELD * i)) & E.FMASK) << (E.FIELD * ((kinds >> (E.KIND_BITS * i)) & E.KMASK))
        v = cv * (0 - ((per_kind >> (E.FIELD * E.COIN)) & E.FMASK))  # fast_take_gain's operations, in its order
        for g in range(E.NG):
            v += actions[a, E.A_TAKE + g] * worths[g] - ((per_kind >> (E.FIELD * g)) & E.FMASK) * worths[E.NG + g]
        take, best, ties = consider(tw * v, best, ties)
        if take:
            picked = per_kind
        give = E.next_give(give, bounds, nk)
    return best, ties, picked


@njit(cache=True)
def _write_exchange(actions, row, group, per_kind):
    actions[row, E.A_TYPE] = E.T_EXCHANGE
    actions[row, E.A_GOOD] = -1
    actions[row, E.A_COUNT] = actions[group, E.A_COUNT]
    for g in range(E.NK):
        actions[row, E.A_TAKE + g] = actions[group, E.A_TAKE + g]
        actions[row, E.A_GIVE + g] = (per_kind >> (E.FIELD * g)) & E.FMASK
