"""Shared numba helpers for Mughal strategies: 'VT if scoring happened now', from the observation and the public
rules vector only.

A decision values a handful of actions that each add one card to one suit, so `standing` reads the seat's table
and the other seats' best totals once, and `vt_now` then prices a card from it by changing that one suit.
Everything is a tuple or a scalar: the hot path allocates nothing.
"""
from numba import njit

from sim.mughal import engine as E
from strategies._choice import consider, pick_best  # noqa: F401  (re-exported for the strategies)

NO_CARD = -2   # vt_now's suit for "no card added" (DISASTER = -1 adds a Disaster)


@njit(cache=True, _nrt=False)
def _eligible(tot, cnt, zero):
    return tot > 0 or (zero == 1 and cnt > 0)


@njit(cache=True, _nrt=False)
def _majority(cfg, tot, cnt, other):
    """Majority VT of a suit total against the best other eligible total (-1: none)."""
    if not _eligible(tot, cnt, cfg[E.CFG_ZERO_SCORES]) or tot < other:
        return 0
    return cfg[E.CFG_MAJ_VT] if tot > other else cfg[E.CFG_MAJ_TIE_VT]


@njit(cache=True, _nrt=False)
def _suit_max(obs, cfg, p, k, mask):
    """The highest eligible total of suit k among the seats other than p (-1: none), and their highest eligible
    total of it if the current emperor favours it (-1: none)."""
    top = fav = -1
    zero, ezero = cfg[E.CFG_ZERO_SCORES], cfg[E.CFG_EMP_ZERO]
    favoured = mask & (1 << k)
    for q in range(obs[E.O_NP]):
        if q != p:
            tot = obs[E.O_SEATS + E.SB * q + E.B_TOT + k]
            cnt = obs[E.O_SEATS + E.SB * q + E.B_CNT + k]
            if tot > top and _eligible(tot, cnt, zero):
                top = tot
            if favoured and tot > fav and _eligible(tot, cnt, ezero):
                fav = tot
    return top, fav


@njit(cache=True, _nrt=False)
def standing(obs, cfg, p):
    """Seat p's table priced as if scoring happened now, against the other seats' tables: (the others' best
    eligible total per suit, the others' best favoured total, p's majority VT per suit, their sum, p's suits
    without a card, p's favoured total (-1: none), p's Disasters)."""
    mask = cfg[E.CFG_EMP_MASK + obs[E.O_TURN] - 1]
    m0, f0 = _suit_max(obs, cfg, p, 0, mask)
    m1, f1 = _suit_max(obs, cfg, p, 1, mask)
    m2, f2 = _suit_max(obs, cfg, p, 2, mask)
    m3, f3 = _suit_max(obs, cfg, p, 3, mask)
    omax = (m0, m1, m2, m3)
    b = E.O_SEATS + E.SB * p
    ezero = cfg[E.CFG_EMP_ZERO]
    maj = (_majority(cfg, obs[b + E.B_TOT], obs[b + E.B_CNT], m0),
           _majority(cfg, obs[b + E.B_TOT + 1], obs[b + E.B_CNT + 1], m1),
           _majority(cfg, obs[b + E.B_TOT + 2], obs[b + E.B_CNT + 2], m2),
           _majority(cfg, obs[b + E.B_TOT + 3], obs[b + E.B_CNT + 3], m3))
    empty = 0
    fav = -1
    for k in range(E.NSUITS):
        tot, cnt = obs[b + E.B_TOT + k], obs[b + E.B_CNT + k]
        if cnt == 0:
            empty += 1
        if mask & (1 << k) and tot > fav and _eligible(tot, cnt, ezero):
            fav = tot
    return omax, max(max(f0, f1), max(f2, f3)), maj, maj[0] + maj[1] + maj[2] + maj[3], empty, fav, obs[b + E.B_DIS]


@njit(cache=True, _nrt=False)
def vt_now(obs, cfg, p, st, suit, level):
    """Seat p's VT this turn if scoring happened now with one more card on its table in `suit` (DISASTER: a
    Disaster, NO_CARD: none), from its `standing` st."""
    omax, ofav, maj, vt, empty, fav, dis = st
    t = obs[E.O_TURN] - 1
    if suit >= 0:
        b = E.O_SEATS + E.SB * p
        tot = obs[b + E.B_TOT + suit] + level
        cnt = obs[b + E.B_CNT + suit] + 1
        vt += _majority(cfg, tot, cnt, omax[suit]) - maj[suit]
        if cnt == 1:
            empty -= 1
        if cfg[E.CFG_EMP_MASK + t] & (1 << suit) and tot > fav and _eligible(tot, cnt, cfg[E.CFG_EMP_ZERO]):
            fav = tot
    elif suit == E.DISASTER:
        dis += 1
    if empty == 0:
        vt += cfg[E.CFG_ALL_VT]
    if fav >= 0:
        bonus = cfg[E.CFG_EMP_BONUS + t]
        if fav > ofav:
            vt += bonus
        elif fav == ofav:
            tie = cfg[E.CFG_EMP_TIE]
            vt += bonus // 2 if tie == E.EMP_TIE_HALF else (bonus if tie == E.EMP_TIE_FULL else 0)
    return vt + cfg[E.CFG_DIS_VT] * dis


@njit(cache=True, _nrt=False)
def strongest_suit(obs, p):
    b = E.O_SEATS + E.SB * p
    best = 0
    for k in range(1, E.NSUITS):
        if obs[b + E.B_TOT + k] > obs[b + E.B_TOT + best]:
            best = k
    return best


@njit(cache=True, _nrt=False)
def greedy_scores(obs, cfg, actions, n, level_weight, scores):
    """scores[a] = own VT if scoring happened now after action a, plus level_weight x the card's level."""
    p = obs[E.O_SEAT]
    st = standing(obs, cfg, p)
    for a in range(n):
        scores[a] = greedy_score(obs, cfg, actions, a, p, st, level_weight)


@njit(cache=True, _nrt=False)
def greedy_score(obs, cfg, actions, a, p, st, level_weight):
    """greedy_scores for one action, for strategies that stream their argmax (no score array per decision)."""
    return vt_now(obs, cfg, p, st, actions[a, E.A_SUIT], actions[a, E.A_LEVEL]) + level_weight * actions[a, E.A_LEVEL]
