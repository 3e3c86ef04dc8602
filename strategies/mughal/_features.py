"""Shared numba helpers for Mughal strategies: 'VT if scoring happened now', from the observation and the public
rules vector (cfg) only."""
from sim.jit import njit

from sim.mughal import engine as E
from strategies._choice import consider, pick_best  # noqa: F401  (re-exported for the strategies)

NO_CARD = -2   # vt_now's suit for "no card added" (DISASTER = -1 adds a Disaster)


@njit(cache=True, _nrt=False)
def _raise(top, obs, b, k, zero):
    """top, or the total in suit k of the seat block at obs[b:] when that is higher and can score."""
    tot = obs[b + E.B_TOT + k]
    return tot if tot > top and E.eligible(tot, obs[b + E.B_CNT + k], zero) else top


@njit(cache=True, _nrt=False)
def _majority_vt(cfg, tot, cnt, top_other):
    if not E.eligible(tot, cnt, cfg[E.CFG_ZERO_SCORES]) or tot < top_other:
        return 0
    return cfg[E.CFG_MAJ_VT] if tot > top_other else cfg[E.CFG_MAJ_TIE_VT]


@njit(cache=True, _nrt=False)
def seat_now(obs, cfg, p):
    """Seat p's standing if scoring happened now, which vt_now adds one card to: (p, its majority VT, its
    favoured total (-1: none), its suits without a card, the other seats' best total per suit (-1: none), their
    best favoured total (-1: none)). Tuples keep the hot path allocation-free; computed once per decision, so
    scoring a card costs one suit's worth of work, not a pass over every seat and suit."""
    zero = cfg[E.CFG_ZERO_SCORES]
    mask = cfg[E.CFG_EMP_MASK + obs[E.O_TURN] - 1]
    m0 = m1 = m2 = m3 = ofav = -1
    for q in range(obs[E.O_NP]):  # one pass, the suits unrolled: half the time of a pass per suit
        if q != p:
            b = E.O_SEATS + E.SB * q
            m0, m1 = _raise(m0, obs, b, 0, zero), _raise(m1, obs, b, 1, zero)
            m2, m3 = _raise(m2, obs, b, 2, zero), _raise(m3, obs, b, 3, zero)
            for k in range(E.NSUITS):
                if mask & (1 << k):
                    ofav = _raise(ofav, obs, b, k, cfg[E.CFG_EMP_ZERO])
    omax = (m0, m1, m2, m3)
    b = E.O_SEATS + E.SB * p
    maj, fav, empty = 0, -1, 0
    for k in range(E.NSUITS):
        tot = obs[b + E.B_TOT + k]
        cnt = obs[b + E.B_CNT + k]
        maj += _majority_vt(cfg, tot, cnt, omax[k])
        empty += cnt == 0
        if mask & (1 << k) and E.eligible(tot, cnt, cfg[E.CFG_EMP_ZERO]) and tot > fav:
            fav = tot
    return p, maj, fav, empty, omax, ofav


@njit(cache=True, _nrt=False)
def vt_now(obs, cfg, seat, suit, level):
    """The VT this turn of `seat` (seat_now) if scoring happened now with one more card on its table in `suit`
    (DISASTER: a Disaster, NO_CARD: no card)."""
    p, maj, fav, empty, omax, ofav = seat
    b = E.O_SEATS + E.SB * p
    t = obs[E.O_TURN] - 1
    dis = obs[b + E.B_DIS] + (suit == E.DISASTER)
    if suit >= 0:
        tot = obs[b + E.B_TOT + suit]
        cnt = obs[b + E.B_CNT + suit]
        maj += _majority_vt(cfg, tot + level, cnt + 1, omax[suit]) - _majority_vt(cfg, tot, cnt, omax[suit])
        empty -= cnt == 0
        # the suit's total only grows, so the favoured total is the larger of the two
        if cfg[E.CFG_EMP_MASK + t] & (1 << suit) and E.eligible(tot + level, cnt + 1, cfg[E.CFG_EMP_ZERO]):
            fav = max(fav, tot + level)
    vt = maj + cfg[E.CFG_DIS_VT] * dis + (cfg[E.CFG_ALL_VT] if empty == 0 else 0)
    if fav >= 0 and fav >= ofav:
        bonus = cfg[E.CFG_EMP_BONUS + t]
        tie = cfg[E.CFG_EMP_TIE]
        vt += bonus if fav > ofav or tie == E.EMP_TIE_FULL else (bonus // 2 if tie == E.EMP_TIE_HALF else 0)
    return vt


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
    seat = seat_now(obs, cfg, obs[E.O_SEAT])
    for a in range(n):
        scores[a] = greedy_score(obs, cfg, actions, a, seat, level_weight)


@njit(cache=True, _nrt=False)
def greedy_score(obs, cfg, actions, a, seat, level_weight):
    """greedy_scores for one action, for strategies that stream their argmax (no score array per decision)."""
    return vt_now(obs, cfg, seat, actions[a, E.A_SUIT], actions[a, E.A_LEVEL]) + level_weight * actions[a, E.A_LEVEL]
