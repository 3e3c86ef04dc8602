"""Shared numba helpers for Muziris strategies: valuing cards, steps and characters from the observation only.

Values are in coins. Immediate coins count 1; a card's *potential* (the coins it adds to the orders the hand
can make) counts `w` (a strategy parameter). `tb[t]` is an extra value per order of produce t (a strategy's
view of the market condition; zeros for greedy) and `cb` an extra value per card held.
"""
import numpy as np
from sim.jit import njit

from sim.muziris import engine as E
from strategies._choice import consider

NO_BONUS = np.zeros(E.MAX_T)  # tb of strategies without a view of the market condition (a numba constant)
NO_EXTRA = np.zeros(E.MAX_C)  # extra of strategies that value characters as greedy does (a numba constant)


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def val(obs, t, k):
    """Coins for an order of k copies of produce t (k in 1..max_order)."""
    return obs[E.O_VAL + t * E.MAX_ORD + k - 1]


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def potential(obs, t, k):
    """Coins k copies of produce t could make as full orders plus one remainder order (tabulated below POT_K)."""
    if k <= 0:
        return 0.0
    if k < E.POT_K:
        return float(obs[E.O_POT + t * E.POT_K + k])
    m = obs[E.O_MAXORD]
    v = (k // m) * val(obs, t, m)
    if k % m > 0:
        v += val(obs, t, k % m)
    return float(v)


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def keep(obs, t, k):
    """What the k-th copy of t in a hand adds to its potential: potential(k) - potential(k - 1) with one
    division (the k-th copy starts a new order, or turns an order of r - 1 copies into one of r)."""
    if k <= 0:
        return 0.0
    if k < E.POT_K:
        return float(obs[E.O_POT + t * E.POT_K + k] - obs[E.O_POT + t * E.POT_K + k - 1])
    m = obs[E.O_MAXORD]
    r = k % m
    if r == 0:
        r = m
    return float(val(obs, t, r) - (val(obs, t, r - 1) if r > 1 else 0))


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def held(obs, t, hm):
    return obs[E.O_HAND + t] - (1 if t == hm else 0)


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def in_market(obs, t, mm):
    return obs[E.O_MARKET + t] - (1 if t == mm else 0)


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def avg_draw(obs, hm):
    """Expected potential a random card adds (card counts of the whole game as the prior)."""
    total = E.cards(obs, E.O_COUNT)
    v = 0.0
    for t in range(obs[E.O_NT]):
        v += obs[E.O_COUNT + t] * keep(obs, t, held(obs, t, hm) + 1)
    return v / total if total > 0 else 0.0


@njit(cache=True, _nrt=False, inline='always')
def fulfil_score(obs, t, size, bonus, w, tb, cb, hm):
    k = held(obs, t, hm)
    return (val(obs, t, size) + bonus + w * (potential(obs, t, k - size) - potential(obs, t, k)) + tb[t]
            - cb * size)


@njit(cache=True, _nrt=False, inline='always')
def take_type_score(obs, t, a0, w, cb, hm, mm):
    m = in_market(obs, t, mm)
    if a0 > 0:
        m = min(m, a0)
    k = held(obs, t, hm)
    return w * (potential(obs, t, k + m) - potential(obs, t, k)) + cb * m


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def basic_step_value(obs, kind, a0, a1, w, tb, cb, hm, mm, ad):
    """Value of one step that uses no other card's ability, with one card out of hand (hm) or market (mm)."""
    nt = obs[E.O_NT]
    if kind == E.K_GAIN:
        return float(a0)
    if kind == E.K_PER_ORDER:
        return float(min(a0 * E.cards(obs, E.O_PLAY + obs[E.O_SEAT] * E.MAX_T), a1))  # one card per order
    if kind == E.K_DRAW:
        return a0 * (w * ad + cb)
    if kind == E.K_TAKE or kind == E.K_TAKE_TYPE:
        best = 0.0
        for t in range(nt):
            if in_market(obs, t, mm) > 0:
                best = max(best, take_type_score(obs, t, a0 if kind == E.K_TAKE_TYPE else 1, w, cb, hm, mm))
        return best * (a0 if kind == E.K_TAKE else 1)
    if kind == E.K_FULFIL:
        best = 0.0
        for t in range(nt):
            for size in range(1, min(held(obs, t, hm), obs[E.O_MAXORD]) + 1):
                best = max(best, fulfil_score(obs, t, size, a0, w, tb, cb, hm))
        return best
    if kind == E.K_CYCLE:
        gain = 0.0
        for t in range(nt):
            k = held(obs, t, hm)
            if k > 0:
                gain = max(gain, ad - keep(obs, t, k))
        return w * gain * a0
    return 0.0


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def ability_value(obs, t, w, tb, cb, hm, mm, ad):
    v = 0.0
    for i in range(E.MAX_STEPS):
        o = E.O_PSTEP + (t * E.MAX_STEPS + i) * E.STEP_W
        if obs[o] != E.K_NONE:
            v += basic_step_value(obs, obs[o], obs[o + 1], obs[o + 2], w, tb, cb, hm, mm, ad)
    return v


@njit(cache=True, _nrt=False, inline='always')
def hand_ability_score(obs, t, w, tb, cb, ad):
    return ability_value(obs, t, w, tb, cb, t, -1, ad) - w * keep(obs, t, held(obs, t, -1)) - cb


@njit(cache=True, _nrt=False, inline='always')
def step_value(obs, kind, a0, a1, w, tb, cb, ad):
    """Value of a character step now: the best option it offers, one ply."""
    if kind == E.K_HAND_AB or kind == E.K_MARKET_AB:
        best = -1e300
        for t in range(obs[E.O_NT]):
            if kind == E.K_HAND_AB and obs[E.O_HAND + t] > 0:
                best = max(best, hand_ability_score(obs, t, w, tb, cb, ad))
            elif kind == E.K_MARKET_AB and obs[E.O_MARKET + t] > 0:
                best = max(best, ability_value(obs, t, w, tb, cb, -1, t, ad))
        return best if best > -1e300 else 0.0  # no card to use: worth nothing
    return basic_step_value(obs, kind, a0, a1, w, tb, cb, -1, -1, ad)


@njit(cache=True, _nrt=False, inline="always")  # one caller
def char_value(obs, slot, w, tb, cb, ad):
    """Coins on the character plus the value of its action's steps (ad: avg_draw(obs, -1), computed once
    per decision because it is the costliest feature)."""
    v = float(obs[E.O_CH_COINS + slot])
    for i in range(E.MAX_STEPS):
        o = E.O_CSTEP + (slot * E.MAX_STEPS + i) * E.STEP_W
        if obs[o] != E.K_NONE:
            v += step_value(obs, obs[o], obs[o + 1], obs[o + 2], w, tb, cb, ad)
    return v


@njit(cache=True, _nrt=False, inline="always")  # one caller
def option_score(obs, actions, i, w, tb, cb, a0, ad):
    """Score of option i of any decision but the character choice (the strategies differ there); a0 is
    obs[O_SA0] and ad avg_draw(obs, -1), computed once per decision."""
    d, t, y = actions[i, E.A_DECISION], actions[i, E.A_X], actions[i, E.A_Y]
    if d == E.D_TAKE:
        return take_type_score(obs, t, 1, w, cb, -1, -1)
    if d == E.D_TAKE_TYPE:  # y: how many of the type this option takes (rules.take_up_to), 0: as many as a0 allows
        return take_type_score(obs, t, y if y > 0 else a0, w, cb, -1, -1)
    if d == E.D_FULFIL:
        return fulfil_score(obs, t, y, a0, w, tb, cb, -1)
    if d == E.D_CYCLE:
        # discard the card worth least if a fresh draw is expected to be worth more; else stop
        return 0.0 if t < 0 else avg_draw(obs, t) - keep(obs, t, obs[E.O_HAND + t])
    if d == E.D_HAND_AB:
        return hand_ability_score(obs, t, w, tb, cb, ad)
    if d == E.D_MARKET_AB:
        return ability_value(obs, t, w, tb, cb, -1, t, ad)
    if d == E.D_DISCARD:
        return -keep(obs, t, obs[E.O_HAND + t])
    return 0.0


# The choosers stream over the options (no score array per decision: an allocation and its reference counts
# were a sixth of a Muziris game); `consider` breaks ties exactly as pick_best does, with the same draws.
# Every helper here allocates nothing, so none counts references (`_nrt=False`: the atomic increments and
# decrements of `obs` on every call had been a sixth of a greedy game, measured with perf).
# They take integers as int64 and arrays read-only (sim.jit): int32 and int64 indices, a strategy's own `tb` or
# `extra` and the NO_BONUS / NO_EXTRA constants had compiled most of them two to six times.
@njit(cache=True, _nrt=False, int64=True, readonly=True)
def choose_option(obs, actions, n, w, tb, cb):
    """Best option of a pending decision other than the character choice."""
    a0 = obs[E.O_SA0]
    dk = obs[E.O_DKIND]  # only an ability reads the expected draw (pure: skipping it changes no score)
    ad = avg_draw(obs, -1) if dk == E.D_HAND_AB or dk == E.D_MARKET_AB else 0.0
    best, ties, choice = -1e18, 0, 0
    for i in range(n):
        take, best, ties = consider(option_score(obs, actions, i, w, tb, cb, a0, ad), best, ties)
        if take:
            choice = i
    return choice


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def choose_character(obs, actions, n, w, tb, cb, extra):
    """Best character on offer: its char_value plus extra[slot], the strategy's own view of it."""
    ad = avg_draw(obs, -1)
    best, ties, choice = -1e18, 0, 0
    for i in range(n):  # only the characters on offer are valued (pure: the same scores, the same draws)
        k = actions[i, E.A_X]
        take, best, ties = consider(char_value(obs, k, w, tb, cb, ad) + extra[k], best, ties)
        if take:
            choice = i
    return choice


@njit(cache=True, _nrt=False, inline="always")  # one caller
def public_char_value(obs, slot, q, card_value):
    """What character `slot` is worth to seat q, from public information only (q's hand is hidden: its
    orders are estimated from its hand size, a card is worth `card_value`)."""
    v = float(obs[E.O_CH_COINS + slot])
    hn = obs[E.O_HANDN + q]
    nt = obs[E.O_NT]
    m = obs[E.O_MAXORD]
    for i in range(E.MAX_STEPS):
        o = E.O_CSTEP + (slot * E.MAX_STEPS + i) * E.STEP_W
        kind, a0, a1 = obs[o], obs[o + 1], obs[o + 2]
        if kind == E.K_GAIN:
            v += a0
        elif kind == E.K_PER_ORDER:
            v += min(a0 * E.cards(obs, E.O_PLAY + q * E.MAX_T), a1)
        elif kind == E.K_FULFIL and hn > 0:
            mean = 0.0
            for t in range(nt):
                mean += val(obs, t, min(m, max(1, hn // 2)))
            v += mean / nt + a0
        elif kind == E.K_DRAW or kind == E.K_TAKE:
            v += card_value * a0
        elif kind == E.K_TAKE_TYPE:
            most = 0
            for t in range(nt):
                most = max(most, obs[E.O_MARKET + t] if a0 <= 0 else min(a0, obs[E.O_MARKET + t]))
            v += card_value * most
        elif kind == E.K_MARKET_AB or kind == E.K_HAND_AB:
            v += 2.0 * card_value if (kind == E.K_HAND_AB and hn > 0) or kind == E.K_MARKET_AB else 0.0
    return v
