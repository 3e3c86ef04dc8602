import numpy as np

from sim import config as C
from sim.mughal import engine as E
from sim.mughal.config import validate
from strategy_params import strategy_arrays


def make_cfg(players=4, sets=()):
    raw = C.load_defaults("sim.mughal")
    for a in sets:
        raw = C.apply_set(raw, a)
    return validate(raw, players)


def card(cfg, mask, level=None, unique=None, age=None, skip=()):
    """Id of the first card with these attributes (not in `skip`)."""
    v = cfg.vector
    for c in range(int(v[E.CFG_NCARDS])):
        if c in skip or v[E.CFG_CARD_MASK + c] != mask:
            continue
        if level is not None and v[E.CFG_CARD_LEVEL + c] != level:
            continue
        if unique is not None and v[E.CFG_CARD_UNIQUE + c] != unique:
            continue
        if age is not None and v[E.CFG_CARD_AGE + c] != age:
            continue
        return c
    raise LookupError("no such card")


def bare_state(cfg, players, turn=1, seed=None):
    """A state in turn `turn` (0: before the first) with empty tables and hands (cards not placed anywhere: no
    invariant checks); `seed` seeds the engine's generator."""
    s = E.new_state()
    E.reset(s, players)
    s[E.S_TURN] = turn
    if seed is not None:
        E.seed(seed)
    return s


def observe(cfg, s, p, size=E.OBS_SIZE):
    obs = np.zeros(size, np.int32)
    E.observe(s, cfg.vector, p, obs)
    return obs


def plant(cfg, s, p, rng):
    """Same observation for seat p, different hidden state: a card of a hand p has not seen swapped with a deck card
    of other suits or level, and the deck shuffled. None when nothing can be swapped."""
    v = cfg.vector
    obs = observe(cfg, s, p)
    t = s.copy()
    hidden = [q for q in range(int(s[E.S_NP])) if obs[E.O_SEATS + E.SB * q + E.B_KNOWN] == 0 and s[E.S_HLEN + q]]
    if not hidden:
        return None
    h = E.S_HAND + E.MAX_HAND * hidden[0]
    for i in range(int(t[E.S_HLEN + hidden[0]])):
        c = t[h + i]
        for j in range(int(t[E.S_DECKLEN])):
            d = t[E.S_DECK + j]
            if v[E.CFG_CARD_MASK + d] != v[E.CFG_CARD_MASK + c] or v[E.CFG_CARD_LEVEL + d] != v[E.CFG_CARD_LEVEL + c]:
                t[h + i], t[E.S_DECK + j] = d, c
                deck = list(t[E.S_DECK: E.S_DECK + t[E.S_DECKLEN]])
                rng.shuffle(deck)
                t[E.S_DECK: E.S_DECK + t[E.S_DECKLEN]] = deck
                return t
    return None


def lineup_args(cfg, names, players, n):
    base, params = strategy_arrays("mughal", cfg.presets, names)
    lin = np.tile(np.arange(players, dtype=np.int64) % len(base), (n, 1))
    return lin, base, params


def play_until(cfg, s, sids, params, done, mode=None):
    """Play `s` one action at a time through the kernel's play loop (invariants checked) until done(s)."""
    from sim.mughal import kernel as K
    from sim.registry import HEURISTIC_ONLY
    obs = np.zeros(E.OBS_SIZE, np.int32)
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    mover = np.zeros(params.shape[1])
    log = np.zeros((0, 0), np.int32)
    states = np.zeros((0, E.STATE_SIZE), np.int32)
    while not done(s):
        if E.is_over(s):
            raise AssertionError("the game ended first")
        K.play(s, cfg.vector, sids, params, obs, actions, mover, HEURISTIC_ONLY if mode is None else mode, True, 1,
               log, states)
    return s


def round_start(s):
    """No pick is pending: the state every seat of the round chooses from."""
    return (s[E.S_PEND_SLOT: E.S_PEND_SLOT + s[E.S_NP]] < 0).all()
