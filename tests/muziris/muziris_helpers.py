"""Test helpers (a uniquely named module: tests/ folders have no __init__). Helpers to set up Muziris situations directly through the engine and drive them choice by choice."""
import random

import numpy as np
from sim.config import build
from sim.muziris import engine as E
from sim.muziris.config import validate


def default_cfg():
    return validate(build("sim.muziris"), 3)


def cfg_with(players=3, **sets):
    from sim.config import apply_set
    raw = build("sim.muziris")
    for key, value in sets.items():
        apply_set(raw, f"{key.replace('__', '.')}={value}")
    return validate(raw, players)


def T(cfg, name):
    return cfg.produce.index(name)


def slot(cfg, s, name):
    for k in range(int(s[E.S_NCH])):
        if cfg.characters[s[E.S_CH_ID + k]] == name:
            return k
    raise KeyError(name)


def setup(cfg, players=3, fp=0, chars=None, hands=None, market=None, cond="trade_winds", coins=None, seed=0):
    """A game just set up, then rearranged: characters in play, hands, market, first player, condition,
    coins. The deck is rebuilt from the cards left, so every card stays accounted for."""
    v = cfg.vector
    s = E.new_state()
    E.new_game(s, v, players, seed, 0)
    if chars is not None:
        s[E.S_CH_ID: E.S_CH_ID + E.MAX_C] = 0
        for k, name in enumerate(chars):
            s[E.S_CH_ID + k] = cfg.characters.index(name)
        s[E.S_NCH] = len(chars)
    s[E.S_COND] = cfg.conditions.index(cond)
    if hands is not None:
        s[E.S_HAND: E.S_HAND + E.MAX_P * E.MAX_T] = 0
        for p, hand in enumerate(hands):
            for name, n in hand.items():
                s[E.S_HAND + p * E.MAX_T + T(cfg, name)] = n
    if market is not None:
        s[E.S_MARKET: E.S_MARKET + E.MAX_T] = 0
        for name, n in market.items():
            s[E.S_MARKET + T(cfg, name)] = n
    left = []
    for t in range(len(cfg.produce)):
        used = s[E.S_MARKET + t] + sum(s[E.S_HAND + p * E.MAX_T + t] for p in range(E.MAX_P))
        n = v[E.CFG_COUNT + t] - used
        assert n >= 0, "more cards placed than the game has"
        left += [t] * int(n)
    rng = np.random.default_rng(seed)
    rng.shuffle(left)
    s[E.S_DECK: E.S_DECK + len(left)] = left
    s[E.S_DECKPOS], s[E.S_DECKLEN] = 0, len(left)
    s[E.S_FP] = s[E.S_FP0] = fp
    s[E.S_COINS: E.S_COINS + E.MAX_P] = 0
    s[E.S_C_SETUP: E.S_C_SETUP + E.MAX_P] = 0
    for p, c in enumerate(coins or [0] * players):
        s[E.S_COINS + p] = c
        s[E.S_C_SETUP + p] = c
    s[E.S_ISSUED] = sum(coins or [0])
    E._start_turn(s, v, 0)
    E.check_invariants(s, v)
    return s


def _actions(cfg, s):
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    return actions, [tuple(int(x) for x in row) for row in actions[:E.legal_actions(s, cfg.vector, actions)]]


def legal(cfg, s):
    return _actions(cfg, s)[1]


def act(cfg, s, d, x=0, y=0):
    """Apply one option (its row among the legal actions, so it must be legal), then check the invariants."""
    actions, rows = _actions(cfg, s)
    assert (d, x, y) in rows, f"{(d, x, y)} not among {rows}"
    E.apply_action(s, cfg.vector, actions, rows.index((d, x, y)))
    E.check_invariants(s, cfg.vector)


def pick(cfg, s, name):
    act(cfg, s, E.D_CHAR, slot(cfg, s, name))


def hand(cfg, s, p):
    return {cfg.produce[t]: int(s[E.S_HAND + p * E.MAX_T + t]) for t in range(len(cfg.produce))
            if s[E.S_HAND + p * E.MAX_T + t]}


def market(cfg, s):
    return {cfg.produce[t]: int(s[E.S_MARKET + t]) for t in range(len(cfg.produce)) if s[E.S_MARKET + t]}


def play_out(cfg, s, choose=lambda options: options[0]):
    """Finish the game, each decision taken by `choose` (default: the first option)."""
    while not E.is_over(s):
        act(cfg, s, *choose(legal(cfg, s)))


def add_play(cfg, s, p, name, n):
    """Put n cards of a produce in seat p's play area, taking them out of the deck (cards conserved)."""
    t = T(cfg, name)
    for _ in range(n):
        for i in range(s[E.S_DECKPOS], s[E.S_DECKLEN]):
            if s[E.S_DECK + i] == t:
                s[E.S_DECK + i] = s[E.S_DECK + s[E.S_DECKLEN] - 1]
                s[E.S_DECKLEN] -= 1
                break
        else:
            raise AssertionError(f"no {name} left in the deck")
        s[E.S_PLAY + p * E.MAX_T + t] += 1


def reach(v, seed, steps, players=3):
    """A game set up and advanced by up to `steps` random legal actions (still running)."""
    rng = random.Random(seed)
    s = E.new_state()
    E.new_game(s, v, players, np.uint32(seed), 0)
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    for _ in range(steps):
        n = E.legal_actions(s, v, buf)
        before = s.copy()
        E.apply_action(s, v, buf, rng.randrange(n))
        if E.is_over(s):
            return before
    return s


def observed(v, s):
    """The observation of the player to act."""
    obs = np.zeros(E.OBS_SIZE, np.int32)
    E.observe(s, v, E.current_player(s), obs)
    return obs


def plant(s, rng):
    """Same observation for the player to act, other hidden state: a card of another hand and one of the discard
    swapped with deck cards of another produce, the deck shuffled (None when nothing could be swapped)."""
    me = int(s[E.S_CUR])
    t = s.copy()
    lo, hi = int(E.S_DECK + t[E.S_DECKPOS]), int(E.S_DECK + t[E.S_DECKLEN])
    changed = False
    for q in range(int(t[E.S_NP])):
        held = [x for x in range(E.MAX_T) if t[E.S_HAND + q * E.MAX_T + x] > 0] if q != me else []
        spots = [i for i in range(lo, hi) if held and t[i] != held[0]]
        if held and spots:
            x, i = held[0], spots[0]
            t[E.S_HAND + q * E.MAX_T + x] -= 1
            t[E.S_HAND + q * E.MAX_T + t[i]] += 1
            t[i] = x
            changed = True
            break
    disc = [x for x in range(E.MAX_T) if t[E.S_DISCARD + x] > 0]
    spots = [i for i in range(lo, hi) if disc and t[i] != disc[0]]
    if disc and spots:
        x, i = disc[0], spots[-1]
        t[E.S_DISCARD + x] -= 1
        t[E.S_DISCARD + t[i]] += 1
        t[i] = x
        changed = True
    deck = list(t[lo:hi])
    rng.shuffle(deck)
    t[lo:hi] = deck
    return t if changed else None


def rotating_lineup(n, players, n_choices):
    """n games' seats: game g seats choices g // players, g // players + 1, ... (modulo n_choices)."""
    g = np.arange(n)[:, None]
    return (g // players + np.arange(players)[None, :]) % n_choices
