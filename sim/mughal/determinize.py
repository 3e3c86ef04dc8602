"""Determinization for Mughal search players: a full game state sampled consistently with one observation.

`determinize(obs, cfg, s)` writes into `s` a state the observing seat could be in (docs/strategies.md): public
tables, VT and O_GONE copied, the hands it knows refilled with unplaced cards of the same suits and level, every
other hand drawn from the unseen cards, the rest the shuffled deck, no pick pending. Observing it gives back
`obs` (a test checks), and it passes `engine.check_invariants`. `sample_state(..., whole=False)` samples the turn
only (worlds that end with it): the card piles stay empty and only the hidden hands are drawn (a partial
Fisher-Yates shuffle); the piles' room holds the working arrays, so no world allocates.
"""
import numpy as np
from sim.jit import njit

from sim.mughal import engine as E


@njit(cache=True, _nrt=False)
def determinize(obs, cfg, s):
    """The engine interface's determinization: a whole state (sample_state with `whole`)."""
    sample_state(obs, cfg, s, True)


@njit(cache=True, _nrt=False)  # once a sampled world, allocates nothing: no reference counts
def sample_state(obs, cfg, s, whole):
    P = obs[E.O_NP]
    t = obs[E.O_TURN]
    step = obs[E.O_STEP]
    nc = cfg[E.CFG_NCARDS]
    E.reset(s, P)
    s[E.S_TURN] = t
    s[E.S_STEP] = step
    opened = -1
    for i in range(t):
        opened = max(opened, cfg[E.CFG_EMP_AGE + i])
    s[E.S_OPENED] = opened
    # working arrays in the card piles' room, filled last or left empty: s[USED + c] = 1 for a table card c,
    # s[POOL + i] the unseen cards (POOL is the deck's place: the deck is the pool's rest, shifted down)
    USED, POOL = E.S_REM, E.S_DECK
    for c in range(nc):
        s[USED + c] = 0
    # public: tables, VT (the discard and removed cards last, once the working arrays are done)
    for q in range(P):
        b = E.O_SEATS + E.SB * q
        s[E.S_VT + q] = obs[b + E.B_VT]
        for i in range(cfg[E.CFG_DESTINY] + cfg[E.CFG_HAND]):
            c = obs[E.O_TABLE_CARD + E.MAX_TABLE * q + i]
            if c < 0:
                break
            s[USED + c] = 1
            E.to_table(s, cfg, q, c, obs[E.O_TABLE_SUIT + E.MAX_TABLE * q + i])
    # the unseen pool; pool[:k] is dealt, pool[k:] the cards left in some order (every draw is uniform among them)
    inplay = 0  # bit a: the cards of age a are in the game (one test per age, not per card)
    for a in range(len(E.AGES)):
        inplay |= (1 if E.age_in_play(s, cfg, a) else 0) << a
    n, word, bit = 0, obs[E.O_GONE], 0
    for c in range(nc):  # not on a table, not gone (the public bit set, word by word), of an age in play
        s[POOL + n] = c  # written always, kept when it counts: no branch on which cards are left
        n += (s[USED + c] == 0) & (word & 1 == 0) & ((inplay >> cfg[E.CFG_CARD_AGE + c]) & 1 == 1)
        word >>= 1
        bit += 1
        if bit == E.GONE_BITS:
            word, bit = obs[E.O_GONE + (c + 1) // E.GONE_BITS], 0
    k = 0
    d = obs[E.O_DIR]
    passes = step - 1 if step > 0 else 0
    for known in (1, 0):  # known hands first: the hidden ones are drawn from what they leave
        for q in range(P):
            b = E.O_SEATS + E.SB * q
            if (obs[b + E.B_KNOWN] == 1) != (known == 1):
                continue
            hl = obs[b + E.B_HLEN]
            s[E.S_HLEN + q] = hl
            s[E.S_HORIG + q] = (q - d * passes) % P
            seen = 0
            for j in range(passes + 1):
                seen |= 1 << ((q - d * j) % P)
            s[E.S_SEEN + q] = seen
            if k + hl > n:
                raise ValueError("determinize: too few unseen cards for the hands")
            for i in range(hl):
                if known == 1:  # a card of the slot's suits and level: uniformly among the copies (whole)
                    mask = obs[b + E.B_HMASK + i]
                    level = obs[b + E.B_HLEVEL + i]
                    r = 0
                    if whole:
                        for j in range(k, n):
                            c = s[POOL + j]
                            r += (cfg[E.CFG_CARD_MASK + c] == mask) & (cfg[E.CFG_CARD_LEVEL + c] == level)
                        r = np.random.randint(0, r) if r > 0 else 0
                    j = k
                    while j < n:
                        c = s[POOL + j]
                        if cfg[E.CFG_CARD_MASK + c] == mask and cfg[E.CFG_CARD_LEVEL + c] == level:
                            if r == 0:
                                break
                            r -= 1
                        j += 1
                    if j == n:
                        raise ValueError("determinize: a known hand card is not among the unseen cards")
                else:
                    j = np.random.randint(k, n)
                s[POOL + k], s[POOL + j] = s[POOL + j], s[POOL + k]
                s[E.S_HAND + E.MAX_HAND * q + i] = s[POOL + k]
                k += 1
    if n - k != obs[E.O_DECK]:
        raise ValueError("determinize: unseen cards do not match the deck count")
    if whole:
        for i in range(k, n):  # the deck: the rest, shuffled, moved down over the dealt cards
            j = np.random.randint(i, n)
            s[POOL + i], s[POOL + j] = s[POOL + j], s[POOL + i]
            s[E.S_DECK + i - k] = s[POOL + i]
        s[E.S_DECKLEN] = n - k
        for c in range(nc):  # the discard and the removed cards (over the table marks, no longer needed)
            if (obs[E.O_GONE + c // E.GONE_BITS] >> (c % E.GONE_BITS)) & 1:
                E.put_gone(s, cfg, c)
        if s[E.S_DISCLEN] != obs[E.O_DISC]:
            raise ValueError("determinize: the discard does not match its public count")
    E.start_round(s)  # this round's picks are simultaneous: nobody's is known, every chooser picks afresh
