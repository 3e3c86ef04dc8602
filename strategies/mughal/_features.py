"""Shared numba helpers for Mughal strategies: 'VT if scoring happened now', from the observation and the public
rules vector (cfg) only."""
from sim.jit import njit

from sim.mughal import engine as E
from strategies._choice import consider  # noqa: F401  (re-exported for the strategies)

NO_CARD = -2   # vt_now's suit for "no card added" (DISASTER = -1 adds a Disaster)


@njit(cache=True, _nrt=False)
def _eligible(tot, cnt, zero):
    return tot > 0 or (zero == 1 and cnt > 0)


@njit(cache=True, _nrt=False)
def others_max(obs, cfg, p):
    """The highest eligible total per suit among the other seats (-1: none) as a 4-tuple, and the highest
    favoured total among them for the current emperor (-1: none). Tuples keep the hot path allocation-free."""
    P = obs[E.O_NP]
    mask = cfg[E.CFG_EMP_MASK + obs[E.O_TURN] - 1]
    zero = cfg[E.CFG_ZERO_SCORES]
    ezero = cfg[E.CFG_EMP_ZERO]
    m0 = m1 = m2 = m3 = -1
    ofav = -1
    for q in range(P):
        if q == p:
            continue
        b = E.O_SEATS + E.SB * q
        for k in range(E.NSUITS):
            tot = obs[b + E.B_TOT + k]
            cnt = obs[b + E.B_CNT + k]
            if _eligible(tot, cnt, zero):
                if k == 0 and tot > m0:
                    m0 = tot
                elif k == 1 and tot > m1:
                    m1 = tot
                elif k == 2 and tot > m2:
                    m2 = tot
                elif k == 3 and tot > m3:
                    m3 = tot
            if mask & (1 << k) and _eligible(tot, cnt, ezero) and tot > ofav:
                ofav = tot
    return (m0, m1, m2, m3), ofav


@njit(cache=True, _nrt=False)
def vt_now(obs, cfg, p, omax, ofav, suit, level):
    """Seat p's VT this turn if scoring happened now with one more card on its table in `suit` (-1: a
    Disaster, NO_CARD: no card), against the other seats' best totals omax / ofav."""
    b = E.O_SEATS + E.SB * p
    t = obs[E.O_TURN] - 1
    mask = cfg[E.CFG_EMP_MASK + t]
    zero = cfg[E.CFG_ZERO_SCORES]
    ezero = cfg[E.CFG_EMP_ZERO]
    vt = 0
    fav = -1
    allsuits = True
    for k in range(E.NSUITS):
        tot = obs[b + E.B_TOT + k]
        cnt = obs[b + E.B_CNT + k]
        if k == suit:
            tot += level
            cnt += 1
        if cnt == 0:
            allsuits = False
        if _eligible(tot, cnt, zero):
            if tot > omax[k]:
                vt += cfg[E.CFG_MAJ_VT]
            elif tot == omax[k]:
                vt += cfg[E.CFG_MAJ_TIE_VT]
        if mask & (1 << k) and _eligible(tot, cnt, ezero) and tot > fav:
            fav = tot
    if allsuits:
        vt += cfg[E.CFG_ALL_VT]
    if fav >= 0:
        bonus = cfg[E.CFG_EMP_BONUS + t]
        if fav > ofav:
            vt += bonus
        elif fav == ofav:
            tie = cfg[E.CFG_EMP_TIE]
            vt += bonus // 2 if tie == E.EMP_TIE_HALF else (bonus if tie == E.EMP_TIE_FULL else 0)
    dis = obs[b + E.B_DIS] + (1 if suit == -1 else 0)
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
    omax, ofav = others_max(obs, cfg, p)
    for a in range(n):
        scores[a] = greedy_score(obs, cfg, actions, a, p, omax, ofav, level_weight)


@njit(cache=True, _nrt=False)
def greedy_score(obs, cfg, actions, a, p, omax, ofav, level_weight):
    """greedy_scores for one action, for strategies that stream their argmax (no score array per decision)."""
    return vt_now(obs, cfg, p, omax, ofav, actions[a, E.A_SUIT], actions[a, E.A_LEVEL]) \
        + level_weight * actions[a, E.A_LEVEL]
