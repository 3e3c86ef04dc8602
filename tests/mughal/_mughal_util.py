import numpy as np

from sim import config as C
from sim.mughal import engine as E
from sim.mughal.config import validate
from sim.registry import choices


def make_cfg(players=4, sets=()):
    raw = C.load_defaults("sim.mughal")
    for a in sets:
        raw = C.apply_set(raw, a)
    return validate(raw, players)


def card(cfg, mask, level=None, unique=None, age=None, skip=()):
    """Id of the first card with these attributes (not in `skip`)."""
    v = cfg.vector
    for c in range(int(v[E.CFG_NCARDS])):
        if c in skip or v[E.CFG_CMASK + c] != mask:
            continue
        if level is not None and v[E.CFG_CLEVEL + c] != level:
            continue
        if unique is not None and v[E.CFG_CUNIQUE + c] != unique:
            continue
        if age is not None and v[E.CFG_CAGE + c] != age:
            continue
        return c
    raise LookupError("no such card")


def bare_state(cfg, players, turn=1):
    """A state in turn `turn` with empty tables and hands (cards not placed anywhere: no invariant checks)."""
    s = E.new_state()
    E.new_game(s, players)
    s[E.S_TURN] = turn
    return s


def lineup_args(cfg, names, players, n):
    ch = choices("mughal", cfg.presets, names)
    base = np.array([c.base_id for c in ch], dtype=np.int64)
    params = np.stack([c.vector() for c in ch])
    lin = np.tile(np.arange(players, dtype=np.int64) % len(ch), (n, 1))
    return lin, base, params


