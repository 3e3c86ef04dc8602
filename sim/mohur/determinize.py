"""Determinization for Mohur search players: a full game state sampled consistently with one observation.

`determinize(obs, cfg, s)` writes into `s` a state the trader to move could be in (docs/strategies.md): the
rival's known cards plus goods drawn from the unseen ones, the rest of them shuffled into the deck, and the bonus
tokens drawn so far dealt between the traders by their public counts. Observing it gives back `obs` (a test
checks), and it passes `engine.check_invariants`.
"""
import numpy as np
from sim.jit import njit

from sim.mohur import engine as E


@njit(cache=True)
def determinize(obs, cfg, s):
    p = obs[E.O_SEAT]
    q = 1 - p
    s[:] = 0
    unseen = np.zeros(E.NK, dtype=np.int64)
    for k in range(E.NK):
        s[E.S_HAND + E.NK * p + k] = obs[E.O_HAND + k]
        s[E.S_MARKET + k] = obs[E.O_MARKET + k]
        s[E.S_SOLD + k] = obs[E.O_SOLD + k]
        unseen[k] = cfg[E.CFG_CARDS + k] - obs[E.O_HAND + k] - obs[E.O_MARKET + k] - obs[E.O_SOLD + k]
    unseen[E.COIN] -= obs[E.O_OPP_COINS]
    s[E.S_HAND + E.NK * q + E.COIN] = obs[E.O_OPP_COINS]
    # the rival's goods: the known ones, then the rest drawn from the unseen goods
    known = 0
    for g in range(E.NG):
        kg = obs[E.O_OPP_KNOWN + g]
        s[E.S_HAND + E.NK * q + g] = kg
        unseen[g] -= kg
        known += kg
        if unseen[g] < 0:
            raise ValueError("determinize: observation inconsistent with the configured cards")
    if unseen[E.COIN] < 0:
        raise ValueError("determinize: observation inconsistent with the configured coins")
    pool = np.repeat(np.arange(E.NG, dtype=np.int32), unseen[:E.NG])
    n = pool.shape[0]
    need = obs[E.O_OPP_HAND] - known
    if need < 0 or need > n:
        raise ValueError("determinize: the rival's hand size does not fit the unseen goods")
    for i in range(need):  # partial Fisher-Yates: a uniform draw without replacement
        j = np.random.randint(i, n)
        pool[i], pool[j] = pool[j], pool[i]
        s[E.S_HAND + E.NK * q + pool[i]] += 1
    d = 0
    for i in range(need, n):
        s[E.S_DECK + d] = pool[i]
        d += 1
    for _ in range(unseen[E.COIN]):
        s[E.S_DECK + d] = E.COIN
        d += 1
    if d != obs[E.O_DECK]:
        raise ValueError("determinize: unseen cards do not match the deck count")
    np.random.shuffle(s[E.S_DECK:E.S_DECK + d])
    s[E.S_DECKLEN] = d
    s[E.S_DECKPOS] = 0
    # token stacks (public): positions from the tokens left
    for g in range(E.NG):
        pos = cfg[E.CFG_NTOK + g] - obs[E.O_TOKREM + g]
        s[E.S_TOKPOS + g] = pos
        taken = 0
        for i in range(pos):
            taken += cfg[E.CFG_TOK + g * E.MAX_TOK + i]
        s[E.S_TAKEN + E.NG * p + g] = taken  # per-seat split is not public; only the total is checked
        s[E.S_FIRST_SALE + g] = -1 if pos == 0 and obs[E.O_SOLD + g] == 0 else 0
        s[E.S_KNOWN + E.NG * p + g] = obs[E.O_MY_KNOWN + g]
        s[E.S_KNOWN + E.NG * q + g] = obs[E.O_OPP_KNOWN + g]
    # bonus piles: reshuffle each; the drawn prefix is dealt between the traders by their public counts
    drawn_vals = np.empty(E.NPILES * E.MAX_BONUS, dtype=np.int32)
    nd = 0
    for b in range(E.NPILES):
        nb = cfg[E.CFG_NBONUS + b]
        base = E.S_BONUS + b * E.MAX_BONUS
        for i in range(nb):
            s[base + i] = cfg[E.CFG_BONUS + b * E.MAX_BONUS + i]
        np.random.shuffle(s[base:base + nb])
        drawn = nb - obs[E.O_PILE_LEFT + b]
        s[E.S_BPOS + b] = drawn
        psum = 0
        for i in range(drawn):
            psum += s[base + i]
            drawn_vals[nd] = s[base + i]
            nd += 1
        s[E.S_PSUM + b] = psum
    mine = obs[E.O_MY_BCNT]
    if mine + obs[E.O_OPP_BCNT] != nd:
        raise ValueError("determinize: bonus token counts do not match the piles")
    for i in range(mine):
        j = np.random.randint(i, nd)
        drawn_vals[i], drawn_vals[j] = drawn_vals[j], drawn_vals[i]
        s[E.S_BSUM + p] += drawn_vals[i]
    for i in range(mine, nd):
        s[E.S_BSUM + q] += drawn_vals[i]
    s[E.S_BCNT + p], s[E.S_BCNT + q] = mine, obs[E.O_OPP_BCNT]
    s[E.S_GSUM + p], s[E.S_GSUM + q] = obs[E.O_MY_GSUM], obs[E.O_OPP_GSUM]
    s[E.S_GCNT + p], s[E.S_GCNT + q] = obs[E.O_MY_GCNT], obs[E.O_OPP_GCNT]
    s[E.S_SEALS + p], s[E.S_SEALS + q] = obs[E.O_MY_SEALS], obs[E.O_OPP_SEALS]
    s[E.S_ROUND] = obs[E.O_ROUND]
    s[E.S_STARTER] = obs[E.O_STARTER]
    s[E.S_CUR] = p
    s[E.S_TURN] = obs[E.O_TURN]
    s[E.S_PASSES] = obs[E.O_PASSES]
    s[E.S_END] = E.END_RUNNING
    s[E.S_ROUND_ONLY] = 1  # the search values one round: the world ends with it (engine.finish_round)
