"""Shared numba helpers for Mughal strategies: 'VT if scoring happened now', from the observation and the public
rules vector (cfg) only."""
from sim.jit import njit

from sim.mughal import engine as E
from strategies._choice import consider  # noqa: F401  (re-exported for the strategies)

NO_CARD = -2   # vt_now's suit for "no card added" (DISASTER = -1 adds a Disaster)


@njit(cache=True, _nrt=False)
def _raise(top, obs, i, zero, counts):
    """top, or the total at obs[O_TOT + i] when `counts`, it is higher and it can score."""
    tot = obs[E.O_TOT + i]
    return max(top, tot if counts & E.eligible(tot, obs[E.O_CNT + i], zero) else -1)


@njit(cache=True, _nrt=False)
def _majority_vt(cfg, tot, cnt, top_other):
    vt = cfg[E.CFG_MAJ_VT] if tot > top_other else cfg[E.CFG_MAJ_TIE_VT]
    return vt if E.eligible(tot, cnt, cfg[E.CFG_ZERO_SCORES]) & (tot >= top_other) else 0


@njit(cache=True, _nrt=False)
def seat_now(obs, cfg, p):
    """Seat p's standing if scoring happened now, which vt_now adds one card to: (p, its majority VT, its
    favoured total (-1: none), its suits without a card, the other seats' best total per suit (-1: none), their
    best favoured total (-1: none)). Tuples keep the hot path allocation-free; computed once per decision, so
    scoring a card costs one suit's worth of work, not a pass over every seat and suit."""
    zero = cfg[E.CFG_ZERO_SCORES]
    mask = cfg[E.CFG_EMP_MASK + obs[E.O_TURN] - 1]
    m0 = m1 = m2 = m3 = ofav = -1
    for q in range(obs[E.O_NP]):  # one pass, the suits unrolled, selects rather than branches (the data varies)
        b, other = E.NSUITS * q, q != p
        m0, m1 = _raise(m0, obs, b, zero, other), _raise(m1, obs, b + 1, zero, other)
        m2, m3 = _raise(m2, obs, b + 2, zero, other), _raise(m3, obs, b + 3, zero, other)
        for k in range(E.NSUITS):
            ofav = _raise(ofav, obs, b + k, cfg[E.CFG_EMP_ZERO], other & ((mask >> k) & 1 == 1))
    omax = (m0, m1, m2, m3)
    b = E.NSUITS * p
    maj, fav, empty = 0, -1, 0
    for k in range(E.NSUITS):
        tot = obs[E.O_TOT + b + k]
        cnt = obs[E.O_CNT + b + k]
        maj += _majority_vt(cfg, tot, cnt, omax[k])
        empty += cnt == 0
        fav = max(fav, tot if ((mask >> k) & 1 == 1) & E.eligible(tot, cnt, cfg[E.CFG_EMP_ZERO]) else -1)
    return p, maj, fav, empty, omax, ofav


@njit(cache=True, _nrt=False)
def vt_now(obs, cfg, seat, suit, level):
    """The VT this turn of `seat` (seat_now) if scoring happened now with one more card on its table in `suit`
    (DISASTER: a Disaster, NO_CARD: no card)."""
    p, maj, fav, empty, omax, ofav = seat
    t = obs[E.O_TURN] - 1
    dis = obs[E.O_DIS + p] + (suit == E.DISASTER)
    if suit >= 0:
        tot = obs[E.O_TOT + E.NSUITS * p + suit]
        cnt = obs[E.O_CNT + E.NSUITS * p + suit]
        maj += _majority_vt(cfg, tot + level, cnt + 1, omax[suit]) - _majority_vt(cfg, tot, cnt, omax[suit])
        empty -= cnt == 0
        # the suit's total only grows, so the favoured total is the larger of the two
        favoured = (cfg[E.CFG_EMP_MASK + t] >> suit) & 1 == 1
        fav = max(fav, tot + level if favoured & E.eligible(tot + level, cnt + 1, cfg[E.CFG_EMP_ZERO]) else -1)
    emperor = E.emperor_share(cfg, t, 1 + (fav == ofav)) if (fav >= 0) & (fav >= ofav) else 0
    # selects rather than branches: which card wins is data the branch predictor cannot learn
    return maj + cfg[E.CFG_DIS_VT] * dis + (cfg[E.CFG_ALL_VT] if empty == 0 else 0) + emperor


@njit(cache=True, _nrt=False)
def strongest_suit(obs, p):
    b = E.O_TOT + E.NSUITS * p
    best = 0
    for k in range(1, E.NSUITS):
        if obs[b + k] > obs[b + best]:
            best = k
    return best


@njit(cache=True, _nrt=False)
def greedy_score(obs, cfg, actions, a, seat, level_weight):
    """Greedy's score of action a for `seat` (seat_now): its VT if scoring happened now after the action, plus
    level_weight x the card's level. Strategies stream their argmax over it (no score array per decision)."""
    return vt_now(obs, cfg, seat, actions[a, E.A_SUIT], actions[a, E.A_LEVEL]) + level_weight * actions[a, E.A_LEVEL]
