"""Shared numba helpers for Mohur strategies: valuing sales and cards from the observation only."""
import numpy as np
from sim.jit import njit

from sim.mohur import engine as E
from strategies._choice import consider  # noqa: F401  (re-exported for the strategies)


@njit(cache=True)
def sale_rupees(obs, g, count):
    """Goods-token rupees a sale of `count` of good g takes now, plus the expected bonus token."""
    v = 0.0
    rem = obs[E.O_TOKREM + g]
    for i in range(min(count, rem)):
        v += obs[E.O_TOKV + g * E.MAX_TOK + i]
    if count >= 3:
        pile = min(count, 5) - 3
        if obs[E.O_PILE_LEFT + pile] > 0:
            v += obs[E.O_PILE_MEAN + pile] / 100.0
    return v


@njit(cache=True)
def top_token(obs, g):
    return obs[E.O_TOKV + g * E.MAX_TOK] if obs[E.O_TOKREM + g] > 0 else 0


@njit(cache=True)
def card_worth(obs, g, held):
    """What one more card of g is worth to a hand already holding `held` of it: the token it would take."""
    rem = obs[E.O_TOKREM + g]
    if held >= rem:
        return 0.0
    return float(obs[E.O_TOKV + g * E.MAX_TOK + held])


@njit(cache=True)
def round_ending_soon(obs):
    """True when one more empty stack or a nearly empty deck would end the round."""
    return obs[E.O_EMPTY] >= obs[E.O_STACKS_END] - 1 or obs[E.O_DECK] <= 4


@njit(cache=True)
def _worths(obs, g, keep_weight):
    held = obs[E.O_HAND + g]
    w = 1.0 + keep_weight * held
    return card_worth(obs, g, held) * w, (card_worth(obs, g, held - 1) * w if held > 0 else 0.0)


@njit(cache=True)
def marginal_worths(obs, keep_weight):
    """A 12-tuple: [0:6] worth of one more card of each good, [6:12] worth lost by giving one away. A tuple,
    not an array: a heap array here cost an allocation and two atomic reference counts every decision."""
    g0, l0 = _worths(obs, 0, keep_weight)
    g1, l1 = _worths(obs, 1, keep_weight)
    g2, l2 = _worths(obs, 2, keep_weight)
    g3, l3 = _worths(obs, 3, keep_weight)
    g4, l4 = _worths(obs, 4, keep_weight)
    g5, l5 = _worths(obs, 5, keep_weight)
    return (g0, g1, g2, g3, g4, g5, l0, l1, l2, l3, l4, l5)


@njit(cache=True)
def fast_take_gain(actions, a, worths, coin_value):
    """take_gain with marginal (first-card) worths: one multiply-add per kind."""
    v = coin_value * (actions[a, E.A_TAKE + E.COIN] - actions[a, E.A_GIVE + E.COIN])
    for g in range(E.NG):
        v += actions[a, E.A_TAKE + g] * worths[g] - actions[a, E.A_GIVE + g] * worths[E.NG + g]
    return v


NO_EXTRA = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@njit(cache=True)
def set_sale(obs, g, c, min_set, forced, push):
    """A sale valued by a set collector: its rupees, pushed up by `push` when it sells at least `min_set`, empties
    the stack or is `forced`, and down by `push` otherwise."""
    v = sale_rupees(obs, g, c)
    return v + push if (c >= min_set or c >= obs[E.O_TOKREM + g] or forced) else v - push


@njit(cache=True)
def hand_full_or_ending(obs):
    """No room for another good, or the round is about to end: time to sell what one holds."""
    full = 0
    for g in range(E.NG):
        full += obs[E.O_HAND + g]
    return full >= obs[E.O_HAND_LIMIT] or round_ending_soon(obs)


@njit(cache=True)
def choose_take(obs, actions, first, n_actions, worths, tw, cv, extra, spend, coins_row, best, ties, choice):
    """The choice after consider() over rows first.. (the takes, the coins and the exchanges, after the sells), each
    valued tw x fast_take_gain(row, worths, cv), plus take[g] x extra[g] per good, less spend per coin given; the
    coins row at `coins_row` instead unless that is NaN. The on-demand exchanges row: choose_exchange."""
    for a in range(first, n_actions):
        typ = actions[a, E.A_TYPE]
        if typ == E.T_EXCHANGES:
            best, ties, choice = choose_exchange(obs, actions, a, worths, tw, cv, extra, spend, best, ties, choice)
            continue
        if typ == E.T_TAKE_COINS and not np.isnan(coins_row):
            v = coins_row
        else:
            v = tw * fast_take_gain(actions, a, worths, cv)
            for g in range(E.NG):
                v += actions[a, E.A_TAKE + g] * extra[g]
            v -= spend * actions[a, E.A_GIVE + E.COIN]
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice


@njit(cache=True, _nrt=False)
def choose_exchange(obs, actions, a, worths, tw, cv, extra, spend, best, ties, choice):
    """_choose_exchange, compiled once: numba specialises a function on the integer constants it is called with."""
    return _choose_exchange(obs, actions, a, worths, tw, cv, extra, spend, best, np.int64(ties), np.int64(choice))


@njit(cache=True, _nrt=False)  # see sim.mohur.engine's HOT_NO_NRT
def _choose_exchange(obs, actions, a, worths, tw, cv, extra, spend, best, ties, choice):
    """consider() over every exchange of the observer for the on-demand exchanges row a (engine.T_EXCHANGES,
    listed last), generated from the observation in the engine's order, each valued as choose_take values a
    listed exchange, summed as the take's value less each card given at its cost: equal up to rounding, far inside
    consider's 1e-9 tie band, so the same choices and draws. Whatever cannot reach `best` is skipped, a take
    vector or a run of gives at a time (its best exchange falls short): none of its exchanges would win or tie,
    so no draw is skipped. The exchange chosen, if any, is written into row a. Returns (best, ties, choice)."""
    coins = E.coin_bound(obs, E.O_HAND, obs[E.O_HAND_LIMIT])
    cost = (tw * worths[6], tw * worths[7], tw * worths[8], tw * worths[9], tw * worths[10], tw * worths[11],
            tw * cv + spend)  # what giving one card of each kind costs
    cheapest_first = _cheapest_first(cost)
    take, k = np.int64(0), 0
    while True:
        take, k = E.next_take(obs, E.O_MARKET, take, k)
        if k < 0:
            return best, ties, choice
        if k < obs[E.O_MIN_EXCHANGE]:
            continue
        value = 0.0  # of the take alone
        for g in range(E.NG):
            t = (take >> (E.FIELD * g)) & E.FMASK
            value += tw * t * worths[g] + t * extra[g]
        # the best exchange of this take gives the cheapest cards: fill the cheapest kinds first (none left to
        # give: no exchange)
        gain, left = value, k
        for i in range(E.NK):
            g = (cheapest_first >> (E.KIND_BITS * i)) & E.KMASK
            if g == E.COIN:
                w = min(max(0, coins), left)
            elif (take >> (E.FIELD * g)) & E.FMASK:
                w = 0
            else:
                w = min(obs[E.O_HAND + g], left)
            gain -= w * cost[g]
            left -= w
        if left > 0 or gain < best - 1e-6:
            continue
        bounds, kinds, nk, _ = E.give_bounds(obs, E.O_HAND, take, k, coins)
        if nk <= 3:  # the engine's two counted loops (E._exchanges), a row of gives skipped when short of best
            b0, b1, b2 = bounds & E.FMASK, (bounds >> E.FIELD) & E.FMASK, (bounds >> (2 * E.FIELD)) & E.FMASK
            c0 = cost[kinds & E.KMASK]
            c1 = cost[(kinds >> E.KIND_BITS) & E.KMASK] if nk > 1 else 0.0
            c2 = cost[(kinds >> (2 * E.KIND_BITS)) & E.KMASK] if nk > 2 else 0.0
            for d0 in range(min(b0, k), max(0, k - b1 - b2) - 1, -1):
                r = k - d0
                row = value - d0 * c0
                hi, lo = min(b1, r), max(0, r - b2)
                if row - min(hi * c1 + (r - hi) * c2, lo * c1 + (r - lo) * c2) < best - 1e-6:
                    continue
                for d1 in range(hi, lo - 1, -1):
                    chosen, best, ties = consider(row - d1 * c1 - (r - d1) * c2, best, ties)
                    if chosen:
                        choice = a
                        give = d0 | (d1 << E.FIELD) | ((r - d1) << (2 * E.FIELD))
                        E.write_exchange(actions, a, k, take, E.per_kind(give, kinds, nk))
            continue
        give = E.first_give(bounds, nk, k)
        while give >= 0:
            v = value
            for i in range(nk):
                v -= ((give >> (E.FIELD * i)) & E.FMASK) * cost[(kinds >> (E.KIND_BITS * i)) & E.KMASK]
            chosen, best, ties = consider(v, best, ties)
            if chosen:
                choice = a
                E.write_exchange(actions, a, k, take, E.per_kind(give, kinds, nk))
            give = E.next_give(give, bounds, nk)


@njit(cache=True, _nrt=False)
def _cheapest_first(cost):
    """The NK kinds packed (KIND_BITS each) in increasing order of cost."""
    order, used = np.int64(0), 0
    for i in range(E.NK):
        at, c = 0, 1e300
        for g in range(E.NK):
            if not (used >> g) & 1 and cost[g] < c:
                at, c = g, cost[g]
        used |= 1 << at
        order |= np.int64(at) << (E.KIND_BITS * i)
    return order



@njit(cache=True, _nrt=False)  # see sim.mohur.engine's HOT_NO_NRT
def exchange_number(obs, actions, a, i):
    """The observer's exchanges, in the engine's order, counted without listing them: returns how many come
    before exchange number i (all of them if there are fewer, or i < 0), and writes exchange i, if any, into
    row a (an on-demand exchanges row)."""
    coins = E.coin_bound(obs, E.O_HAND, obs[E.O_HAND_LIMIT])
    take, k, seen = np.int64(0), 0, 0
    while True:
        take, k = E.next_take(obs, E.O_MARKET, take, k)
        if k < 0:
            return seen
        if k < obs[E.O_MIN_EXCHANGE]:
            continue
        bounds, kinds, nk, room = E.give_bounds(obs, E.O_HAND, take, k, coins)
        if room < k:
            continue
        count = 0
        if nk <= 3:  # the gives of the engine's two counted loops (E._exchanges), a row at a time
            b0, b1, b2 = bounds & E.FMASK, (bounds >> E.FIELD) & E.FMASK, (bounds >> (2 * E.FIELD)) & E.FMASK
            for d0 in range(min(b0, k), max(0, k - b1 - b2) - 1, -1):
                count += max(0, min(b1, k - d0) - max(0, k - d0 - b2) + 1)
        else:
            give = E.first_give(bounds, nk, k)
            while give >= 0:
                count += 1
                give = E.next_give(give, bounds, nk)
        if 0 <= i - seen < count:
            give = E.first_give(bounds, nk, k)
            for _ in range(i - seen):
                give = E.next_give(give, bounds, nk)
            E.write_exchange(actions, a, k, take, E.per_kind(give, kinds, nk))
            return i
        seen += count
