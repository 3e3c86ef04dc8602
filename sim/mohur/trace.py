"""One Mohur match as JSON-able events (schema: docs/trace.md), described from the records of the kernel's own
play loop with the same batch seed, so the trace and `run --seed S` agree to the last card."""
from __future__ import annotations

import numpy as np

from sim.mohur import engine as E
from sim.mohur import kernel as K
from sim.mohur.engine import GOODS, KINDS
from sim.playout import recorded, start_game
from sim.rng import DEFAULT_BATCH

CHUNK = 256  # actions recorded per call of the play loop (a match may run to turn_cap x round_cap actions)


def _state(s, cfg) -> dict:
    return {
        "market": {k: int(s[E.S_MARKET + i]) for i, k in enumerate(KINDS)},
        "hands": [{g: int(s[E.S_HAND + E.NK * p + i]) for i, g in enumerate(GOODS)} for p in (0, 1)],
        "coffers": [int(s[E.S_HAND + E.NK * p + E.COIN]) for p in (0, 1)],
        "deck": int(E.deck_left(s)),
        "tokens": {g: [int(cfg[E.CFG_TOK + i * E.MAX_TOK + j])
                       for j in range(int(s[E.S_TOKPOS + i]), int(cfg[E.CFG_NTOK + i]))]
                   for i, g in enumerate(GOODS)},
    }


def _action(row, before, after, cfg, p) -> dict:
    typ = int(row[E.A_TYPE])
    if typ == E.T_TAKE_GOOD:
        return {"type": "take_good", "good": GOODS[int(row[E.A_GOOD])]}
    if typ == E.T_TAKE_COINS:
        return {"type": "take_coins"}
    if typ == E.T_EXCHANGE:
        return {"type": "exchange",
                "take": {k: int(row[E.A_TAKE + i]) for i, k in enumerate(KINDS) if row[E.A_TAKE + i]},
                "give": {k: int(row[E.A_GIVE + i]) for i, k in enumerate(KINDS) if row[E.A_GIVE + i]}}
    g = int(row[E.A_GOOD])
    tokens = [int(cfg[E.CFG_TOK + g * E.MAX_TOK + j]) for j in range(int(before[E.S_TOKPOS + g]),
                                                                        int(after[E.S_TOKPOS + g]))]
    bonus = int(after[E.S_BSUM + p] - before[E.S_BSUM + p]) if after[E.S_BCNT + p] > before[E.S_BCNT + p] else None
    return {"type": "sell", "good": GOODS[g], "count": int(row[E.A_COUNT]),
            "gained": {"tokens": tokens, "bonus": bonus}}


def _round_start(s, cfg) -> dict:
    return {"event": "round_start", "round": int(s[E.S_ROUND]), "starter": int(s[E.S_STARTER]), **_state(s, cfg)}


def _events(rec, before, after, cfg):
    """The events of one recorded action: the action (with the state it left), and when it ended the round,
    the round's end (from the history) and the next round's start."""
    p, row = int(rec[0]), rec[3:]
    rnd = int(before[E.S_ROUND])
    ended = int(after[E.S_ROUND]) != rnd or E.is_over(after)
    moved = after
    if ended:  # `after` already holds the next deal (or the match's end): the action's own effect, on a copy
        moved = before.copy()
        E.step(moved, cfg, np.ascontiguousarray(row.reshape(1, -1)), 0)
    action = {"type": "pass"} if row[E.A_TYPE] == E.T_PASS else _action(row, before, moved, cfg, p)
    yield {"event": "action", "round": rnd, "turn": int(before[E.S_TURN]) + 1, "seat": p, "action": action,
           "state": _state(moved, cfg)}
    if ended:
        h = E.HIST.view(after[E.S_HISTORY + (rnd - 1) * E.HIST_SIZE:])
        yield {"event": "round_end", "round": rnd, "reason": E.END_NAMES[int(h["end_reason"])],
               "rupees": [int(x) for x in h["rupees"]],
               "coin_token": None if h["coin_token"] < 0 else int(h["coin_token"]),
               "winner": None if h["winner"] < 0 else int(h["winner"]),
               "seals": [int(after[E.S_SEALS]), int(after[E.S_SEALS + 1])]}
        if not E.is_over(after):
            yield _round_start(after, cfg)


def trace(cfg, players, choices, seed: int, game: int = 0, batch_size: int = DEFAULT_BATCH):
    """Game `game` of `run --seed S --batch-size B` (game 0 by default, the same for any batch size); `players`
    is always two."""
    v, raw = cfg.vector, cfg.raw
    yield {"event": "match_start", "game": "mohur", "seed": seed, "strategies": [c.name for c in choices],
           "config": {**raw["rules"], **{k: dict(raw[k]) for k in ("cards", "tokens", "bonus", "min_sale")}}}
    s = start_game(E, v, 2, seed, game, batch_size)
    yield _round_start(s, v)
    for steps, log, states in recorded(E, K.play, "mohur", s, v, choices, CHUNK):
        for k in range(steps):
            yield from _events(log[k], states[k], states[k + 1], v)
    winner = None if s[E.S_WINNER] < 0 else int(s[E.S_WINNER])
    end = {"winner": winner, "seals": [int(s[E.S_SEALS]), int(s[E.S_SEALS + 1])], "rounds": int(s[E.S_ROUND])}
    yield {"event": "match_end", **end}
    # every game's trace ends with `game_end` (docs/trace.md): match_end's fields plus the uniform ones
    shares = np.zeros(2)
    E.returns(s, v, shares)
    yield {"event": "game_end", **end, "winners": [] if winner is None else [winner],
           "win_share": [float(x) for x in shares]}
