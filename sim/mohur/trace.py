"""One Mohur match as JSON-able events (schema: docs/trace.md).

The match is the one `balance-sim run mohur -n 1 --seed S -s A,B` plays: the same batch seed, the same
compiled primitives called in the same order, so the trace and the kernel agree to the last card.
"""
from __future__ import annotations

import numpy as np

from sim.mohur import engine as E
from sim.mohur import kernel as K
from sim.mohur.config import GOODS, KINDS
from sim.rng import deal_seed
from sim.runner import DEFAULT_BATCH, game_origin


def _state(s, cfg) -> dict:
    return {
        "market": {k: int(s[E.S_MARKET + i]) for i, k in enumerate(KINDS)},
        "hands": [{g: int(s[E.S_HAND + 7 * p + i]) for i, g in enumerate(GOODS)} for p in (0, 1)],
        "coffers": [int(s[E.S_HAND + E.COIN]), int(s[E.S_HAND + 7 + E.COIN])],
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
    bonus = None
    if after[E.S_BCNT + p] > before[E.S_BCNT + p]:
        bonus = int(after[E.S_BSUM + p] - before[E.S_BSUM + p])
    return {"type": "sell", "good": GOODS[g], "count": int(row[E.A_COUNT]),
            "gained": {"tokens": tokens, "bonus": bonus}}


def _config_view(raw: dict) -> dict:
    view = dict(raw["rules"])
    view.update({"cards": dict(raw["cards"]), "tokens": dict(raw["tokens"]), "bonus": dict(raw["bonus"]),
                 "min_sale": dict(raw["min_sale"])})
    return view


def trace(cfg, choices, seed: int, game: int = 0, batch_size: int = DEFAULT_BATCH):
    """Game `game` of `run --seed S --batch-size B` (game 0 by default, the same for any batch size)."""
    v = cfg.vector
    sids = np.array([c.base_id for c in choices], dtype=np.int64)
    params = np.stack([c.vector() for c in choices])
    yield {"event": "match_start", "game": "mohur", "seed": seed, "strategies": [c.name for c in choices],
           "config": _config_view(cfg.raw)}
    root, local = game_origin(seed, game, batch_size)
    root = np.uint32(root)
    K.seed_rng(K.match_seed(root, local, 0))
    s = E.new_state()
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    scored = np.zeros(5, dtype=np.int32)
    starter = int(K.draw_first_starter(v))
    winner = None
    for rnd in range(1, int(v[E.CFG_ROUND_CAP]) + 1):
        s[E.S_ROUND] = rnd
        E.deal_round(s, v, starter, deal_seed(root, local, rnd))
        yield {"event": "round_start", "round": rnd, "starter": starter, **_state(s, v)}
        while not E.is_over(s):
            p = int(s[E.S_CUR])
            n = E.legal_actions(s, v, p, actions)
            turn = int(s[E.S_TURN]) + 1
            if n == 0:
                E.pass_turn(s, v)
                event = {"event": "action", "round": rnd, "turn": turn, "seat": p, "action": {"type": "pass"}}
            else:
                if n > 1:
                    s[E.S_DECISIONS] += 1
                    E.observe(s, v, p, obs)
                    a = int(K.choose_action(sids[p], obs, actions, n, params[p], v))
                else:
                    a = 0
                before = s.copy()
                E.apply_action(s, v, p, actions, a)
                event = {"event": "action", "round": rnd, "turn": turn, "seat": p,
                         "action": _action(actions[a], before, s, v, p)}
            event["state"] = _state(s, v)
            yield event
            if not E.is_over(s) and s[E.S_TURN] >= v[E.CFG_TURN_CAP]:
                s[E.S_END] = E.END_TURN_CAP
        E.score_round(s, v, scored)
        if scored[3] >= 0:
            s[E.S_SEALS + scored[3]] += 1
        yield {"event": "round_end", "round": rnd, "reason": E.END_NAMES[int(s[E.S_END])],
               "rupees": [int(scored[0]), int(scored[1])],
               "coin_token": None if scored[2] < 0 else int(scored[2]),
               "winner": None if scored[3] < 0 else int(scored[3]),
               "seals": [int(s[E.S_SEALS]), int(s[E.S_SEALS + 1])]}
        if max(s[E.S_SEALS], s[E.S_SEALS + 1]) >= v[E.CFG_SEALS]:
            winner = 0 if s[E.S_SEALS] >= v[E.CFG_SEALS] else 1
            break
        starter = int(E.next_starter(v, starter, scored[3]))
    end = {"winner": winner, "seals": [int(s[E.S_SEALS]), int(s[E.S_SEALS + 1])], "rounds": rnd}
    yield {"event": "match_end", **end}
    # every game's trace ends with `game_end` (docs/trace.md): match_end's fields plus the uniform ones
    yield {"event": "game_end", **end, "winners": [] if winner is None else [winner],
           "win_share": [float(x) for x in K.win_shares(np.array([-1 if winner is None else winner]))[0]]}
