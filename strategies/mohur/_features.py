"""Shared numba helpers for Mohur strategies: valuing sales and cards from the observation only."""
import numpy as np
from sim.jit import njit

from sim.mohur import engine as E
from strategies._choice import consider  # noqa: F401  (re-exported for the strategies)


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def sale_rupees(obs, g, count):
    """Goods-token rupees a sale of `count` of good g takes now, plus the expected bonus token."""
    v = 0.0
    for i in range(min(count, obs[E.O_TOKREM + g])):
        v += obs[E.O_TOKV + g * E.MAX_TOK + i]
    if count >= 3:
        pile = min(count, 5) - 3
        if obs[E.O_PILE_LEFT + pile] > 0:
            v += obs[E.O_PILE_MEAN + pile] / 100.0
    return v


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def card_worth(obs, g, held):
    """What one more card of g is worth to a hand already holding `held` of it: the token it would take."""
    return 0.0 if held >= obs[E.O_TOKREM + g] else float(obs[E.O_TOKV + g * E.MAX_TOK + held])


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def round_ending_soon(obs):
    """True when one more empty stack or a nearly empty deck would end the round."""
    return obs[E.O_EMPTY] >= obs[E.O_STACKS_END] - 1 or obs[E.O_DECK] <= 4


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def _worths(obs, g, keep_weight):
    held = obs[E.O_HAND + g]
    w = 1.0 + keep_weight * held
    return card_worth(obs, g, held) * w, (card_worth(obs, g, held - 1) * w if held > 0 else 0.0)


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
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


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def fast_take_gain(actions, a, worths, coin_value):
    """take_gain with marginal (first-card) worths: one multiply-add per kind."""
    v = coin_value * (actions[a, E.A_TAKE + E.COIN] - actions[a, E.A_GIVE + E.COIN])
    for g in range(E.NG):
        v += actions[a, E.A_TAKE + g] * worths[g] - actions[a, E.A_GIVE + g] * worths[E.NG + g]
    return v


NO_EXTRA = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@njit(cache=True, _nrt=False)  # see sim.mohur.engine's HOT_NO_NRT
def choose_exchange(obs, actions, a, worths, tw, cv, extra, spend, best, ties, choice):
    """consider() over every exchange of the observer for the on-demand exchanges row a (engine.T_EXCHANGES,
    listed last), generated from the observation in the engine's order, each valued as the strategies value an
    exchange row: tw x fast_take_gain(row, worths, cv), plus take[g] x extra[g] per good, less spend per coin
    given, in that order of operations (the same floats, so the same ties and draws). A take vector whose best
    exchange (its goods less the cheapest cards of the kinds it does not take) falls short of `best` is skipped:
    none of its exchanges would win or tie, so no draw is skipped; so is a block of take vectors that cannot reach it
    (below). The exchange chosen, if any, is written into row a. Returns (best, ties, choice)."""
    coins = E.coin_bound(obs, E.O_HAND, np.int64(obs[E.O_HAND_LIMIT]))
    cost = (tw * worths[6], tw * worths[7], tw * worths[8], tw * worths[9], tw * worths[10], tw * worths[11],
            tw * cv + spend)  # of giving one card of each kind
    gain = (tw * worths[0] + extra[0], tw * worths[1] + extra[1], tw * worths[2] + extra[2],
            tw * worths[3] + extra[3], tw * worths[4] + extra[4], tw * worths[5] + extra[5])  # of taking one good
    # Every card given costs at least the cheapest givable kind's cost, so a take's exchanges are worth at most the
    # sum of (gain - cheapest) over its goods: the takes come in nested loops (the last good outermost: next_take's
    # order) and a block of takes whose goods so far cannot reach `best` even with every positive rest is skipped.
    cheapest = np.inf
    for g in range(E.NK):
        if (coins if g == E.COIN else obs[E.O_HAND + g]) > 0:
            cheapest = min(cheapest, cost[g])
    if cheapest == np.inf:  # nothing to give: no exchange
        return best, ties, choice
    d0, d1, d2 = gain[0] - cheapest, gain[1] - cheapest, gain[2] - cheapest
    d3, d4, d5 = gain[3] - cheapest, gain[4] - cheapest, gain[5] - cheapest
    m = E.O_MARKET
    r1 = obs[m] * max(d0, 0.0)
    r2 = r1 + obs[m + 1] * max(d1, 0.0)
    r3 = r2 + obs[m + 2] * max(d2, 0.0)
    r4 = r3 + obs[m + 3] * max(d3, 0.0)
    r5 = r4 + obs[m + 4] * max(d4, 0.0)
    if r5 + obs[m + 5] * max(d5, 0.0) < best - 1e-6:  # no take can reach best: often a sale or a take beats them
        return best, ties, choice
    has_extra = extra[0] != 0.0 or extra[1] != 0.0 or extra[2] != 0.0 or extra[3] != 0.0 or extra[4] != 0.0 or \
        extra[5] != 0.0
    order, kinds = np.int64(0), 0  # the kinds the hand can give, cheapest first (KIND_BITS each): insertion sort
    for g in range(E.NK):
        if (coins if g == E.COIN else obs[E.O_HAND + g]) > 0:
            at = 0
            while at < kinds and cost[(order >> (E.KIND_BITS * at)) & E.KMASK] <= cost[g]:
                at += 1
            low = order & ((np.int64(1) << (E.KIND_BITS * at)) - 1)
            order = low | (np.int64(g) << (E.KIND_BITS * at)) | ((order ^ low) << E.KIND_BITS)
            kinds += 1
    min_ex = obs[E.O_MIN_EXCHANGE]
    for t5 in range(obs[m + 5] + 1):
        s5 = t5 * d5
        if s5 + r5 < best - 1e-6:
            if d5 <= 0.0:  # more of this good only lowers it
                break
            continue
        for t4 in range(obs[m + 4] + 1):
            s4 = s5 + t4 * d4
            if s4 + r4 < best - 1e-6:
                if d4 <= 0.0:  # more of this good only lowers it
                    break
                continue
            for t3 in range(obs[m + 3] + 1):
                s3 = s4 + t3 * d3
                if s3 + r3 < best - 1e-6:
                    if d3 <= 0.0:  # more of this good only lowers it
                        break
                    continue
                for t2 in range(obs[m + 2] + 1):
                    s2 = s3 + t2 * d2
                    if s2 + r2 < best - 1e-6:
                        if d2 <= 0.0:  # more of this good only lowers it
                            break
                        continue
                    for t1 in range(obs[m + 1] + 1):
                        s1 = s2 + t1 * d1
                        if s1 + r1 < best - 1e-6:
                            if d1 <= 0.0:  # more of this good only lowers it
                                break
                            continue
                        for t0 in range(obs[m] + 1):
                            if s1 + t0 * d0 < best - 1e-6:
                                if d0 <= 0.0:
                                    break
                                continue
                            k = t0 + t1 + t2 + t3 + t4 + t5
                            if k < min_ex:
                                continue
                            take = (np.int64(t0) | (np.int64(t1) << E.FIELD) | (np.int64(t2) << (2 * E.FIELD)) |
                                    (np.int64(t3) << (3 * E.FIELD)) | (np.int64(t4) << (4 * E.FIELD)) |
                                    (np.int64(t5) << (5 * E.FIELD)))
                            best, ties, choice = _take_exchanges(obs, actions, a, worths, tw, cv, extra, spend, best,
                                                                 ties, choice, take, k, gain, cost, order, kinds,
                                                                 coins, has_extra)
    return best, ties, choice


@njit(cache=True, _nrt=False, inline="always")  # one caller: compiled into it
def _take_exchanges(obs, actions, a, worths, tw, cv, extra, spend, best, ties, choice, take, k, gain, cost, order,
                    kinds, coins, has_extra):
    """choose_exchange's consider() over the exchanges of one take vector of k goods, in the engine's order."""
    value = 0.0
    for g in range(E.NG):
        value += ((take >> (E.FIELD * g)) & E.FMASK) * gain[g]
    top, left = value, k  # the take's best exchange gives the cheapest cards of the kinds it does not take
    for i in range(kinds):
        g = (order >> (E.KIND_BITS * i)) & E.KMASK
        if g == E.COIN or not (take >> (E.FIELD * g)) & E.FMASK:
            w = min(coins if g == E.COIN else obs[E.O_HAND + g], left)
            top -= w * cost[g]
            left -= w
            if left == 0:
                break
    if left > 0 or top < best - 1e-6:  # no exchange, or none reaches best
        return best, ties, choice
    bounds, gkinds, nk, _ = E.give_bounds(obs, E.O_HAND, take, k, coins)
    if nk <= 3:  # most takes: the engine's two counted loops (_exchanges), in its order
        b0, b1, b2 = bounds & E.FMASK, (bounds >> E.FIELD) & E.FMASK, (bounds >> (2 * E.FIELD)) & E.FMASK
        c0 = cost[gkinds & E.KMASK]
        c1 = cost[(gkinds >> E.KIND_BITS) & E.KMASK] if nk > 1 else 0.0
        c2 = cost[(gkinds >> (2 * E.KIND_BITS)) & E.KMASK] if nk > 2 else 0.0
        for d0 in range(min(b0, k), max(0, k - b1 - b2) - 1, -1):
            r = k - d0
            hi, lo = min(b1, r), max(0, r - b2)
            # the gives with d0 first cards are worth at most this (their value is linear in d1): skip them whole
            if value - d0 * c0 - min(hi * c1 + (r - hi) * c2, lo * c1 + (r - lo) * c2) < best - 1e-6:
                continue
            for d1 in range(hi, lo - 1, -1):
                give = np.int64(d0) | (np.int64(d1) << E.FIELD) | (np.int64(r - d1) << (2 * E.FIELD))
                best, ties, choice = _consider_give(actions, a, worths, tw, cv, extra, spend, best, ties, choice,
                                                    take, k, E.per_kind(give, gkinds, nk), has_extra)
        return best, ties, choice
    give = E.first_give(bounds, nk, k)
    while give >= 0:
        best, ties, choice = _consider_give(actions, a, worths, tw, cv, extra, spend, best, ties, choice, take, k,
                                            E.per_kind(give, gkinds, nk), has_extra)
        give = E.next_give(give, bounds, nk)
    return best, ties, choice


@njit(cache=True, _nrt=False, inline="always")  # one caller: compiled into it
def _consider_give(actions, a, worths, tw, cv, extra, spend, best, ties, choice, take, k, per_kind, has_extra):
    """consider() of the exchange taking `take` (k goods) and giving `per_kind` (both packed per kind), valued as
    the strategies value an exchange row; written into row a when chosen."""
    coins_given = (per_kind >> (E.FIELD * E.COIN)) & E.FMASK
    v = cv * (0 - coins_given)  # fast_take_gain's operations, in its order
    for g in range(E.NG):
        v += ((take >> (E.FIELD * g)) & E.FMASK) * worths[g] - ((per_kind >> (E.FIELD * g)) & E.FMASK) * worths[E.NG + g]
    v = tw * v
    if has_extra:  # adding 0.0 changes no value (a -0.0 becomes 0.0: the same comparisons)
        for g in range(E.NG):
            v += ((take >> (E.FIELD * g)) & E.FMASK) * extra[g]
    v -= spend * coins_given
    chosen, best, ties = consider(v, best, ties)
    if chosen:
        choice = a
        E.write_exchange(actions, a, k, take, per_kind)
    return best, ties, choice
