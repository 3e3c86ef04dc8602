"""Mohur's exchanges (take k market goods, give back k cards of other kinds, coins included): listed as rows,
counted without listing them (`count_exchanges`), or found again by their count (`counted_exchange`).
"""
import numpy as np  # noqa: F401 (numba's globals)
from sim.jit import njit

from sim.mohur.layout import *  # noqa: F401,F403 (the layout's constants, compiled as numba globals)
from sim.mohur.layout import simple_row, too_many, total


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def coin_bound(v, h, limit):
    """At most how many coins the hand at v[h:h+NK] may give in an exchange (goods after it <= the hand limit)."""
    return min(v[h + COIN], limit - total(v, h, NG))


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def _exchanges(s, cfg, m, h, coins, actions, n, on_demand):
    """The exchange rows from row n on, or (EX_ROW) one T_EXCHANGES row if there is any, or (EX_COUNTED) n plus
    how many there are (see count_exchanges). Takes, bounds and gives are packed in registers (FIELD bits an
    entry): no scratch memory; with at most three kinds to give (most takes) the gives are two counted loops."""
    min_ex = cfg[CFG_MIN_EXCHANGE]
    if on_demand == EX_COUNTED:
        counted = count_exchanges(s, m, h, coins, min_ex, actions, n)
        s[S_COUNTED] = counted
        return n + counted
    if on_demand == EX_ROW:  # most turns: min_ex goods to take, and min_ex cards to give whatever is taken
        goods, spare = 0, max(0, coins)
        for g in range(NG):
            goods += s[m + g]
            spare += 0 if s[m + g] > 0 else s[h + g]
        if goods >= min_ex and spare >= min_ex:
            return simple_row(actions, n, T_EXCHANGES, -1, 0)
    take, k = np.int64(0), 0
    while True:
        take, k = next_take(s, m, take, k)
        if k < 0:
            return n
        if k < min_ex:
            continue
        bounds, kinds, nk, room = give_bounds(s, h, take, k, coins)
        if room < k:
            continue
        if on_demand == EX_ROW:
            return simple_row(actions, n, T_EXCHANGES, -1, 0)
        b0, b1, b2 = bounds & FMASK, (bounds >> FIELD) & FMASK, (bounds >> (2 * FIELD)) & FMASK
        if nk <= 3:  # two counted loops (the general walk below mispredicts its branches more)
            for d0 in range(min(b0, k), max(0, k - b1 - b2) - 1, -1):
                r = k - d0
                for d1 in range(min(b1, r), max(0, r - b2) - 1, -1):
                    if n >= MAX_ACTIONS - 2:
                        too_many()
                    give = d0 | (d1 << FIELD) | ((r - d1) << (2 * FIELD))
                    n = write_exchange(actions, n, k, take, per_kind(give, kinds, nk))
        else:
            give = first_give(bounds, nk, k)
            while give >= 0:
                if n >= MAX_ACTIONS - 2:
                    too_many()
                n = write_exchange(actions, n, k, take, per_kind(give, kinds, nk))
                give = next_give(give, bounds, nk)


@njit(cache=True, _nrt=False, inline="always")  # see HOT_NO_NRT; one caller
def count_exchanges(s, m, h, coins, min_ex, actions, n):
    """EX_COUNTED: how many exchanges the hand at s[h:h+NK] has with the market at s[m:m+NK], as `_exchanges`
    lists them; rows n on <- (where its exchanges end, the take packed, its size k) per take vector with any.
    A take's gives are the coefficient of y^k in the product of (1 + y + ... + y^bound) over the kinds it does not
    take, multiplied in level by level of the take loops: a coefficient read a take, not a walk over its gives
    (which had been ~70% of a random mirror match)."""
    base = _times((1, 0, 0, 0, 0, 0, 0, 0), max(0, coins))
    for g in range(NG):
        if s[m + g] == 0 and s[h + g] > 0:
            base = _times(base, s[h + g])
    # the goods the market holds: how many, and the hand's bound where it holds some (0: nothing to multiply in)
    m0, m1, m2, m3, m4, m5 = s[m], s[m + 1], s[m + 2], s[m + 3], s[m + 4], s[m + 5]
    h0, h1, h2 = (s[h] if m0 > 0 else 0), (s[h + 1] if m1 > 0 else 0), (s[h + 2] if m2 > 0 else 0)
    h3, h4, h5 = (s[h + 3] if m3 > 0 else 0), (s[h + 4] if m4 > 0 else 0), (s[h + 5] if m5 > 0 else 0)
    end, row = n, n
    for t5 in range(m5 + 1):
        p5 = _times(base, h5) if t5 == 0 and h5 > 0 else base
        for t4 in range(m4 + 1):
            p4 = _times(p5, h4) if t4 == 0 and h4 > 0 else p5
            for t3 in range(m3 + 1):
                p3 = _times(p4, h3) if t3 == 0 and h3 > 0 else p4
                for t2 in range(m2 + 1):
                    p2 = _times(p3, h2) if t2 == 0 and h2 > 0 else p3
                    for t1 in range(m1 + 1):
                        p1 = _times(p2, h1) if t1 == 0 and h1 > 0 else p2
                        for t0 in range(m0 + 1):
                            k = t0 + t1 + t2 + t3 + t4 + t5
                            if k < min_ex:
                                continue
                            c = p1[k]
                            if t0 == 0:  # the first good given too: one coefficient of p1 x (1 + ... + y^h0)
                                for j in range(1, min(h0, k) + 1):
                                    c += p1[k - j]
                            if c > 0:
                                end += c
                                if end > MAX_ACTIONS - 2:
                                    too_many()
                                actions[row, 0] = end
                                actions[row, 1] = (t0 | (t1 << FIELD) | (t2 << (2 * FIELD)) | (t3 << (3 * FIELD)) |
                                                   (t4 << (4 * FIELD)) | (t5 << (5 * FIELD)))
                                actions[row, 2] = k
                                row += 1
    return end - n


@njit(cache=True, _nrt=False, inline="always")  # see HOT_NO_NRT
def _times(p, b):
    """The coefficients p of y^0..y^7 times (1 + y + ... + y^b), truncated to degree 7 (no exchange is larger:
    the market holds at most 7 cards): prefix sums (times 1 / (1 - y)) less themselves shifted by b + 1."""
    c0, c1, c2, c3, c4, c5, c6, c7 = p
    c1 += c0
    c2 += c1
    c3 += c2
    c4 += c3
    c5 += c4
    c6 += c5
    c7 += c6
    s0, s1, s2, s3, s4, s5, s6, s7 = c0, c1, c2, c3, c4, c5, c6, c7
    for _ in range(min(b, 7) + 1):
        s0, s1, s2, s3, s4, s5, s6, s7 = 0, s0, s1, s2, s3, s4, s5, s6
    return (c0 - s0, c1 - s1, c2 - s2, c3 - s3, c4 - s4, c5 - s5, c6 - s6, c7 - s7)


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def counted_exchange(s, cfg, actions, a):
    """Row a <- the exchange that legal_actions counted (EX_COUNTED) as action a, found from its take's row."""
    i = s[S_NLEGAL] - s[S_COUNTED]
    start = i
    while actions[i, 0] <= a:
        start = actions[i, 0]
        i += 1
    take, k, h = np.int64(actions[i, 1]), np.int64(actions[i, 2]), S_HAND + NK * s[S_CUR]
    bounds, kinds, nk, _ = give_bounds(s, h, take, k, coin_bound(s, h, cfg[CFG_HAND_LIMIT]))
    skip, give = a - start, np.int64(0)  # gives of this take before it
    if nk <= 3:  # _exchanges' two counted loops: skip whole first counts, then step to the second count
        b0, b1, b2 = bounds & FMASK, (bounds >> FIELD) & FMASK, (bounds >> (2 * FIELD)) & FMASK
        for d0 in range(min(b0, k), max(0, k - b1 - b2) - 1, -1):
            r = k - d0
            hi = min(b1, r)
            if skip <= hi - max(0, r - b2):
                d1 = hi - skip
                give = d0 | (d1 << FIELD) | ((r - d1) << (2 * FIELD))
                break
            skip -= hi - max(0, r - b2) + 1
    else:
        give = first_give(bounds, nk, k)
        for _ in range(skip):
            give = next_give(give, bounds, nk)
    write_exchange(actions, a, k, take, per_kind(give, kinds, nk))


FIELD, FMASK = 5, np.int64(31)     # packed counts: a take, a bound or a give is at most 7 (the market's size)
KIND_BITS, KMASK = 3, np.int64(7)  # packed kind indices: 0..6


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def count_gives(bounds, nk, k):
    """How many gives of k <= 7 cards there are within packed `bounds` over nk kinds (count_exchanges' arithmetic
    for one take, which the tests check against the walk)."""
    c = (1, 0, 0, 0, 0, 0, 0, 0)
    for i in range(nk):
        c = _times(c, (bounds >> (FIELD * i)) & FMASK)
    return c[k]


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def next_take(v, m, take, k):
    """Exchanges take k >= min_exchange goods from the market at v[m:m+NK] and give back k cards (goods of kinds
    not taken, or coins). Take vectors come in mixed-radix order over the market's goods, the first kind fastest:
    returns the (packed) take vector after `take` and its total, or (take, -1) after the last."""
    for j in range(NG):
        tj = (take >> (FIELD * j)) & FMASK
        if tj < v[m + j]:
            return take + (np.int64(1) << (FIELD * j)), k + 1
        k -= tj
        take &= ~(FMASK << (FIELD * j))
    return take, -1


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def give_bounds(v, h, take, k, coins):
    """For a take of k goods, how many of each kind the hand at v[h:h+NK] may give: (bounds, kinds, nk, room),
    packed over the nk kinds with a bound (`kinds` their indices); room < k: no exchange."""
    bounds, kinds, nk, room = np.int64(0), np.int64(0), 0, 0
    for g in range(NK):
        if g == COIN:
            b = max(0, min(coins, k))
        elif (take >> (FIELD * g)) & FMASK:
            b = 0
        else:
            b = min(v[h + g], k)
        if b > 0:
            bounds |= np.int64(b) << (FIELD * nk)
            kinds |= np.int64(g) << (KIND_BITS * nk)
            nk += 1
            room += b
    return bounds, kinds, nk, room


@njit(cache=True)
def first_give(bounds, nk, k):
    """The first give of k cards within packed `bounds` over nk kinds (left-heavy: fill from the left)."""
    return _fill_left(np.int64(0), bounds, 0, nk, k)


@njit(cache=True)
def _fill_left(give, bounds, i, nk, left):
    """`give` with `left` more cards put in entries i..nk-1 (all zero), each filled to its bound from the left."""
    for j in range(i, nk):
        w = min((bounds >> (FIELD * j)) & FMASK, left)
        give |= w << (FIELD * j)
        left -= w
    return give


@njit(cache=True)
def next_give(give, bounds, nk):
    """The give after `give` in left-heavy (lexicographically decreasing) order, or -1: move one unit from the
    rightmost movable entry rightward and refill the rest from the left."""
    right = 0
    spare = 0
    i = nk - 1
    while i >= 0:
        w = (give >> (FIELD * i)) & FMASK
        if i < nk - 1 and w > 0 and spare > right:
            give = (give & ((np.int64(1) << (FIELD * (i + 1))) - 1)) - (np.int64(1) << (FIELD * i))
            return _fill_left(give, bounds, i + 1, nk, right + 1)
        right += w
        spare += (bounds >> (FIELD * i)) & FMASK
        i -= 1
    return np.int64(-1)


@njit(cache=True)
def per_kind(give, kinds, nk):
    """A give packed over its nk kinds -> packed per kind (FIELD bits for each of the NK kinds)."""
    out = np.int64(0)
    for i in range(nk):
        out |= ((give >> (FIELD * i)) & FMASK) << (FIELD * ((kinds >> (KIND_BITS * i)) & KMASK))
    return out


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def write_exchange(actions, n, k, take, give):
    """Row n <- the exchange of k cards taking `take` and giving `give` (both packed per kind). Returns n + 1."""
    actions[n, A_TYPE] = T_EXCHANGE
    actions[n, A_GOOD] = -1
    actions[n, A_COUNT] = k
    for g in range(NK):
        actions[n, A_TAKE + g] = (take >> (FIELD * g)) & FMASK
        actions[n, A_GIVE + g] = (give >> (FIELD * g)) & FMASK
    return n + 1
