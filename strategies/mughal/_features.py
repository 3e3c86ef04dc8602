"""Shared numba helpers for Mughal strategies: 'VT if scoring happened now', from the observation and the public
rules vector (cfg) only."""
from sim.jit import njit

from sim.mughal import engine as E
from strategies._choice import consider  # noqa: F401  (re-exported for the strategies)

NO_CARD = -2   # vt_now's suit for "no card added" (DISASTER = -1 adds a Disaster)


@njit(cache=True, _nrt=False)
def _majority_vt(cfg, tot, cnt, top_other):
    vt = cfg[E.CFG_MAJ_VT] if tot > top_other else cfg[E.CFG_MAJ_TIE_VT]
    return vt if E.eligible(tot, cnt, cfg[E.CFG_ZERO_SCORES]) & (tot >= top_other) else 0


@njit(cache=True, _nrt=False)
def _best(top, tot, ok):
    return max(top, tot if ok else -1)


@njit(cache=True, _nrt=False)
def _claim(tot, cnt):
    """Another seat's total in a suit, -1 without a card of it: exact for `eligible` totals of the seat under either
    zero-total rule (0 and -1 compare the same with totals >= 1). Arithmetic: LLVM makes a select a branch."""
    return tot - (cnt == 0)


@njit(cache=True, _nrt=False)
def seat_now(obs, cfg, p):
    """Seat p's standing if scoring happened now, once a decision, which vt_now adds one card to (a tuple: no
    allocation): (p, favoured total, suits without a card, the others' best per suit and favoured (-1: none), VT
    now but the emperor's, the emperor's bonus alone and tied, the favoured suits)."""
    omax, ofav = others_best(obs, cfg, p)
    return standing(obs, cfg, p, omax, ofav)


@njit(cache=True, _nrt=False, inline="always")  # inlined: seat_now stays one compiled function
def claims(cfg, obs, q):
    """Seat q's claim (_claim) in each suit and its best claim among the emperor's favoured suits (-1: none)."""
    return masked_claims(obs, q, cfg[E.CFG_EMP_MASK + obs[E.O_TURN] - 1])


@njit(cache=True, _nrt=False, inline="always")
def masked_claims(obs, q, mask):
    """claims, given the favoured suits `mask`: reads only the tallies (O_TOT, O_CNT) of `obs`."""
    b = E.NSUITS * q
    v0, v1 = _claim(obs[E.O_TOT + b], obs[E.O_CNT + b]), _claim(obs[E.O_TOT + b + 1], obs[E.O_CNT + b + 1])
    v2, v3 = _claim(obs[E.O_TOT + b + 2], obs[E.O_CNT + b + 2]), _claim(obs[E.O_TOT + b + 3], obs[E.O_CNT + b + 3])
    fav = max(max(v0 if mask & 1 == 1 else -1, v1 if mask & 2 == 2 else -1),
              max(v2 if mask & 4 == 4 else -1, v3 if mask & 8 == 8 else -1))
    return v0, v1, v2, v3, fav


@njit(cache=True, _nrt=False, inline="always")
def others_best(obs, cfg, p):
    """The other seats' best claim per suit and best favoured claim (-1: none)."""
    m0 = m1 = m2 = m3 = ofav = -1
    for q in range(obs[E.O_NP]):  # one pass over each other seat's four suits
        if q == p:
            continue
        v0, v1, v2, v3, fv = claims(cfg, obs, q)
        m0, m1, m2, m3, ofav = max(m0, v0), max(m1, v1), max(m2, v2), max(m3, v3), max(ofav, fv)
    return (m0, m1, m2, m3), ofav


@njit(cache=True, _nrt=False, inline="always")
def standing(obs, cfg, p, omax, ofav):
    """seat_now given the other seats' best claims (others_best)."""
    ezero = cfg[E.CFG_EMP_ZERO]
    t = obs[E.O_TURN] - 1
    mask = cfg[E.CFG_EMP_MASK + t]
    b = E.NSUITS * p
    maj, fav, empty = 0, -1, 0
    for k in range(E.NSUITS):
        tot, cnt = obs[E.O_TOT + b + k], obs[E.O_CNT + b + k]
        maj += _majority_vt(cfg, tot, cnt, omax[k])
        empty += cnt == 0
        fav = _best(fav, tot, ((mask >> k) & 1 == 1) & E.eligible(tot, cnt, ezero))
    base = maj + cfg[E.CFG_DIS_VT] * obs[E.O_DIS + p] + (cfg[E.CFG_ALL_VT] if empty == 0 else 0)
    return p, fav, empty, omax, ofav, base, E.emperor_share(cfg, t, 1), E.emperor_share(cfg, t, 2), mask


@njit(cache=True, _nrt=False)
def vt_now(obs, cfg, seat, suit, level):
    """The VT this turn of `seat` (seat_now) if scoring happened now with one more card on its table in `suit`
    (DISASTER: a Disaster, NO_CARD: no card). Selects rather than branches: which card wins is data the branch
    predictor cannot learn, so a Disaster's row is scored as a card of suit 0 and the result dropped."""
    p, fav, empty, (m0, m1, m2, m3), ofav, vt, sole, tied, mask = seat
    on, k = suit >= 0, max(suit, 0)
    top = (m0 if k == 0 else m1) if k < 2 else (m2 if k == 2 else m3)   # omax[k] would be a jump table
    tot, cnt = obs[E.O_TOT + E.NSUITS * p + k], obs[E.O_CNT + E.NSUITS * p + k]
    gain = _majority_vt(cfg, tot + level, cnt + 1, top) - _majority_vt(cfg, tot, cnt, top)
    gain += cfg[E.CFG_ALL_VT] if (empty == 1) & (cnt == 0) else 0   # its last missing suit
    vt += gain if on else (cfg[E.CFG_DIS_VT] if suit == E.DISASTER else 0)
    # the suit's total only grows, so the favoured total is the larger of the two
    fav = _best(fav, tot + level, on & ((mask >> k) & 1 == 1) & E.eligible(tot + level, cnt + 1, cfg[E.CFG_EMP_ZERO]))
    return vt + ((tied if fav == ofav else sole) if (fav >= 0) & (fav >= ofav) else 0)


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


# Greedy's score of a pick, fast (the search's greedy rollout): what vt_now reads of each suit folded into
# thresholds in rows 1-4 of an action buffer, once a pick; the same integer VT as vt_now (a test compares them).
T_TOT, T_THR, T_TOP, T_GAIN, T_FAV = 0, 1, 2, 3, 4   # columns of a suit's row
NEVER = 1 << 30   # T_FAV of a suit that cannot be the favoured one


@njit(cache=True, _nrt=False, inline="always")
def pick_terms(obs, cfg, p, omax, ofav, sole, tied, mask, rows):
    """rows[1 + k] <- seat p's terms for suit k (T_* columns: the totals a card must reach to score the majority,
    to take it alone and to count as favoured, and the gain of doing so), given the others' best claims, the
    emperor's bonus and the favoured suits. Returns pick_vt's `seat` (its VT now but the emperor's first, a
    Disaster row's VT last)."""
    zero, ezero = cfg[E.CFG_ZERO_SCORES], cfg[E.CFG_EMP_ZERO]
    b = E.NSUITS * p
    maj, fav, empty, missing = 0, -1, 0, 0
    for k in range(E.NSUITS):
        tot, cnt, top = obs[E.O_TOT + b + k], obs[E.O_CNT + b + k], omax[k]
        old = _majority_vt(cfg, tot, cnt, top)
        maj += old
        empty += cnt == 0
        missing = k if cnt == 0 else missing
        favoured = (mask >> k) & 1 == 1
        fav = _best(fav, tot, favoured & E.eligible(tot, cnt, ezero))
        r = rows[1 + k]
        r[T_TOT] = tot
        # _majority_vt(tot + level, cnt + 1, top): eligible (> 0, or any total under the zero rule) and >= top
        r[T_THR] = top if zero == 1 else max(top, 1)
        r[T_TOP] = top
        r[T_GAIN] = -old
        # _best(fav, tot + level, favoured and eligible(tot + level, cnt + 1, ezero))
        r[T_FAV] = (-NEVER if ezero == 1 else 1) if favoured else NEVER
    if empty == 1:
        rows[1 + missing, T_GAIN] += cfg[E.CFG_ALL_VT]
    base = maj + cfg[E.CFG_DIS_VT] * obs[E.O_DIS + p] + (cfg[E.CFG_ALL_VT] if empty == 0 else 0)
    emp = (tied if fav == ofav else sole) if (fav >= 0) & (fav >= ofav) else 0
    return base, fav, ofav, sole, tied, base + cfg[E.CFG_DIS_VT] + emp


@njit(cache=True, _nrt=False, inline="always")
def pick_vt(cfg, seat, rows, k, level):
    """vt_now(obs, cfg, seat_now(obs, cfg, p), k, level) from pick_terms' `seat` and rows: suit k (DISASTER: a
    Disaster)."""
    base, fav, ofav, sole, tied, disaster = seat
    if k < 0:
        return disaster
    r = rows[1 + k]
    x = r[T_TOT] + level
    vt = base + r[T_GAIN] + ((cfg[E.CFG_MAJ_VT] if x > r[T_TOP] else cfg[E.CFG_MAJ_TIE_VT]) if x >= r[T_THR] else 0)
    f = max(fav, x) if x >= r[T_FAV] else fav
    return vt + ((tied if f == ofav else sole) if (f >= 0) & (f >= ofav) else 0)
