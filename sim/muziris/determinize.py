"""Determinization for Muziris search players: a full game state sampled consistently with one observation.

`determinize(obs, cfg, s)` writes into `s` a state the player to act could be in (docs/strategies.md): the
public table copied, the unseen cards shuffled and dealt to the other hands and the discard by their public
sizes, the rest the deck; coins not taken from characters are booked as ability coins (the split feeds only the
report). Observing it gives back `obs` (a test checks), and it passes `engine.check_invariants`.
"""
import numpy as np
from sim.jit import njit

from sim.muziris import engine as E


@njit(cache=True)
def determinize(obs, cfg, s):
    me = obs[E.O_SEAT]
    np_ = obs[E.O_NP]
    nt = cfg[E.CFG_NT]
    s[:] = 0
    s[E.S_NP] = np_
    s[E.S_CUR] = me
    s[E.S_END] = E.END_RUNNING
    for si, oi in ((E.S_ROUND, E.O_ROUND), (E.S_FP, E.O_FP), (E.S_FP0, E.O_FP0), (E.S_COND, E.O_COND),
                   (E.S_TURN_IDX, E.O_TURN_IDX), (E.S_MARKERS, E.O_MARKERS), (E.S_FINAL, E.O_FINAL),
                   (E.S_TRIG_SEAT, E.O_TRIG_SEAT), (E.S_RESHUF, E.O_RESHUF), (E.S_DEPTH, E.O_DEPTH)):
        s[si] = obs[oi]
    s[E.S_STAMP] = obs[E.O_STAMP]  # the same game's static observation: `observe` keeps it
    s[E.S_STAMP + 1] = obs[E.O_STAMP + 1]
    dk = obs[E.O_DKIND]
    if dk == E.D_CHAR:
        s[E.S_PHASE] = E.PH_CHAR
    elif dk == E.D_DISCARD:
        s[E.S_PHASE] = E.PH_DISCARD
    elif dk < 0:
        raise ValueError("determinize: the game is over")
    else:
        s[E.S_PHASE] = E.PH_STEP
    for i in range(E.MAX_DEPTH * E.F_SIZE):
        s[E.S_FRAME + i] = obs[E.O_FRAME + i]
    # characters
    nch = obs[E.O_NCH]
    s[E.S_NCH] = nch
    on_chars = 0
    marks = 0
    for k in range(nch):
        s[E.S_CH_ID + k] = obs[E.O_CID + k]
        s[E.S_CH_COINS + k] = obs[E.O_CH_COINS + k]
        s[E.S_CH_MARK + k] = obs[E.O_CH_MARK + k]
        on_chars += obs[E.O_CH_COINS + k]
        marks += obs[E.O_CH_MARK + k]
    s[E.S_MARKS_USED] = marks
    # coins: from characters as observed, the rest booked as ability coins
    held = 0
    taken = 0
    for q in range(np_):
        c = obs[E.O_COINS + q]
        s[E.S_COINS + q] = c
        s[E.S_C_CHAR + q] = obs[E.O_C_CHAR + q]
        s[E.S_C_ABIL + q] = c - obs[E.O_C_CHAR + q]
        held += c
        taken += obs[E.O_C_CHAR + q]
    s[E.S_PLACED] = on_chars + taken
    s[E.S_ISSUED] = held + on_chars
    # cards: the public ones, then the unseen pool dealt to the other hands, the discard pile and the deck
    unseen = np.zeros(E.MAX_T, dtype=np.int64)
    n = 0
    for t in range(nt):
        s[E.S_HAND + me * E.MAX_T + t] = obs[E.O_HAND + t]
        s[E.S_MARKET + t] = obs[E.O_MARKET + t]
        u = cfg[E.CFG_COUNT + t] - obs[E.O_HAND + t] - obs[E.O_MARKET + t]
        for q in range(np_):
            s[E.S_PLAY + q * E.MAX_T + t] = obs[E.O_PLAY + q * E.MAX_T + t]
            u -= obs[E.O_PLAY + q * E.MAX_T + t]
        if u < 0:
            raise ValueError("determinize: observation inconsistent with the configured produce")
        unseen[t] = u
        n += u
    if n > E.MAX_DECK:
        raise ValueError("determinize: more unseen cards than the deck holds")
    pool = np.repeat(np.arange(nt, dtype=np.int32), unseen[:nt])
    np.random.shuffle(pool)
    i = 0
    for q in range(np_):
        if q == me:
            continue
        h = obs[E.O_HANDN + q]
        if i + h > n:
            raise ValueError("determinize: hand sizes do not fit the unseen cards")
        for _ in range(h):
            s[E.S_HAND + q * E.MAX_T + pool[i]] += 1
            i += 1
    nd = obs[E.O_DISCARD_N]
    if i + nd + obs[E.O_DECK] != n:
        raise ValueError("determinize: unseen cards do not match the hand, discard and deck sizes")
    for _ in range(nd):
        s[E.S_DISCARD + pool[i]] += 1
        i += 1
    d = 0
    while i < n:
        s[E.S_DECK + d] = pool[i]
        d += 1
        i += 1
    s[E.S_DECKPOS] = 0
    s[E.S_DECKLEN] = d
