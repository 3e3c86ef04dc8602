"""One Mughal game as JSON-able events (schema: docs/trace.md): game `game` of `run --seed S`, played by the
kernel's own recording play loop (sim.playout). The state between a turn's last step and its scoring is rebuilt
from the recorded one with the engine's deterministic pieces (the turn's end as a stop, then `close_turn`).
"""
from __future__ import annotations

import numpy as np

from sim.rng import DEFAULT_BATCH

from sim.mughal import engine as E
from sim.mughal import kernel as K
from sim.playout import recorded, start_game

SUIT_NAMES = {E.UNDECLARED: "undeclared", E.DISASTER: "disaster", **dict(enumerate(E.SUITS))}


def _card(cfg, c, suit=None):
    return {"id": int(c), "kind": cfg.kinds[int(cfg.vector[E.CFG_CARD_KIND + c])][0],
            **({} if suit is None else {"suit": SUIT_NAMES[int(suit)]})}


def _state(cfg, s, step):
    """The state as the trace shows it; `step` the phase the event closes (0 = declarations)."""
    P = int(s[E.S_NP])
    seats = []
    for p in range(P):
        table = [_card(cfg, s[E.S_TABLE + E.MAX_TABLE * p + i], s[E.S_TSUIT + E.MAX_TABLE * p + i])
                 for i in range(s[E.S_TLEN + p])]
        hand = [_card(cfg, s[E.S_HAND + E.MAX_HAND * p + i]) for i in range(s[E.S_HLEN + p])]
        seats.append({
            "seat": p, "vt": int(s[E.S_VT + p]),
            "totals": {E.SUITS[k]: int(s[E.S_TOT + E.NSUITS * p + k]) for k in range(E.NSUITS)},
            "table": table, "hand": hand, "hand_dealt_to": int(s[E.S_HORIG + p]),
            "hands_seen": [q for q in range(P) if (s[E.S_SEEN + p] >> q) & 1],
        })
    return {"turn": int(s[E.S_TURN]), "step": int(step),
            "age": E.AGES[s[E.S_OPENED]] if s[E.S_OPENED] >= 0 else None,
            "deck": int(s[E.S_DECKLEN]), "discard": int(s[E.S_DISCLEN]), "removed": int(s[E.S_REMLEN]),
            "reshuffles": int(s[E.S_RESHUFFLES]), "seats": seats}


def trace(cfg, players, choices, seed, game: int = 0, batch_size: int = DEFAULT_BATCH):
    P = int(players)
    choices = [choices[i % len(choices)] for i in range(P)]
    vec = cfg.vector
    hand_size = int(vec[E.CFG_HAND])
    s = start_game(E, vec, P, seed, game, batch_size)  # game `game` of `run --seed S` (game 0: `run -n 1`)
    E.check_invariants(s, vec)
    # one call: no game takes more actions than max_actions_per_game; debug: invariants after every action
    steps, log, states = next(recorded(E, K.play, "mughal", s, vec, choices, int(K.max_actions_per_game(vec, P)),
                                       debug=True))

    yield {"event": "game_start", "game": "mughal", "seed": int(seed), "players": P,
           "strategies": [c.name for c in choices], "config": cfg.raw}
    choices_now = [None] * P
    turn_open = 0
    for k in range(steps):
        before = states[k]
        if k == turn_open:
            t = int(before[E.S_TURN])
            name, bonus, mask, _ = cfg.emperors[t - 1]
            yield {"event": "turn_start", "turn": t, "emperor": name, "bonus": bonus,
                   "favoured": [E.SUITS[j] for j in range(E.NSUITS) if mask & (1 << j)],
                   "direction": "left" if E.direction(before, vec) == 1 else "right",
                   "state": _state(cfg, before, 0)}
        p, row = int(log[k, K.LOG_PLAYER]), log[k, K.LOG_ACTION:]
        choices_now[p] = _card(cfg, row[E.A_CARD], row[E.A_SUIT])
        if states[k + 1][E.S_PEND_SLOT + p] >= 0:
            continue   # the round goes on: picks are pending until its last seat has chosen
        t, step = int(before[E.S_TURN]), int(before[E.S_STEP])
        picked, choices_now = choices_now, [None] * P
        if step == 0:
            yield {"event": "declare", "turn": t, "choices": picked, "state": _state(cfg, states[k + 1], 0)}
            continue
        if step < hand_size:
            yield {"event": "step", "turn": t, "step": step, "choices": picked, "passed": True,
                   "state": _state(cfg, states[k + 1], step)}
            continue
        x = before.copy()  # the turn's last pick again, stopped before scoring
        x[E.S_STOP_AT_TURN_END] = 1
        E.apply_action(x, vec, row.reshape(1, -1).copy(), 0)
        yield {"event": "step", "turn": t, "step": step, "choices": picked, "passed": False,
               "state": _state(cfg, x, step)}
        E.close_turn(x, vec)   # `state` of the scoring event: after the turn's clean-up (discard, removed)
        E.check_invariants(x, vec)
        sc = x[E.S_SCORE: E.S_SCORE + E.SC_SIZE]
        yield {"event": "scoring", "turn": t, "seats": [
            {"seat": q, "majority": int(sc[E.SC_MAJ + q]), "all_suits": int(sc[E.SC_ALL + q]),
             "emperor": int(sc[E.SC_EMP + q]), "disaster": int(sc[E.SC_DIS + q]), "vt": int(x[E.S_VT + q])}
            for q in range(P)],
            "margins": {E.SUITS[j]: int(sc[E.SC_MARGIN + j]) for j in range(E.NSUITS)},
            "emperor_winners": int(sc[E.SC_EMP_WINNERS]), "state": _state(cfg, x, step)}
        turn_open = k + 1
    winner, n_winners = E.winners(s)
    share = np.zeros(E.MAX_PLAYERS, dtype=np.float64)
    E.returns(s, vec, share)
    yield {"event": "game_end", "winner": int(winner), "n_winners": int(n_winners),
           "vt": [int(s[E.S_VT + p]) for p in range(P)],
           "win_share": [float(share[p]) for p in range(P)],
           "parts": [{"majority": int(s[E.S_VT_MAJ + p]), "all_suits": int(s[E.S_VT_ALL + p]),
                      "emperor": int(s[E.S_VT_EMP + p]), "disaster": int(s[E.S_VT_DIS + p])} for p in range(P)]}
