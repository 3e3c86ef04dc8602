"""One Mughal game as JSON-able events (schema: docs/trace.md).

Drives the kernel's own njit steps (begin_turn, play_step, action_step, score_turn, end_turn) from Python
with the same seeding, so the game is exactly game 0 of `balance-sim run mughal -n 1 --seed S` (batch seed
batch_seeds(S, 1)[0]).
"""
from __future__ import annotations

import numpy as np

from sim.rng import reseed
from sim.runner import DEFAULT_BATCH, game_origin

from sim.mughal import engine as E
from sim.mughal import kernel as K
from sim.mughal.config import AGES, SUITS
from sim.registry import MAX_PARAMS, kernel_mode

SUIT_NAMES = {-2: "undeclared", -1: "disaster", 0: "military", 1: "building", 2: "culture", 3: "wealth"}


def _card(cfg, c, suit=None):
    d = {"id": int(c), "kind": cfg.kinds[int(cfg.vector[E.CFG_CKIND + c])][0]}
    if suit is not None:
        d["suit"] = SUIT_NAMES[int(suit)]
    return d


def _state(cfg, s):
    P = int(s[E.S_NP])
    seats = []
    for p in range(P):
        table = [_card(cfg, s[E.S_TABLE + E.MAX_TABLE * p + i], s[E.S_TSUIT + E.MAX_TABLE * p + i])
                 for i in range(s[E.S_TLEN + p])]
        hand = [_card(cfg, s[E.S_HAND + E.MAX_HAND * p + i]) for i in range(s[E.S_HLEN + p])]
        seats.append({
            "seat": p, "vt": int(s[E.S_VT + p]),
            "totals": {SUITS[k]: int(s[E.S_TOT + E.NSUITS * p + k]) for k in range(E.NSUITS)},
            "table": table, "hand": hand, "hand_dealt_to": int(s[E.S_HORIG + p]),
            "hands_seen": [q for q in range(P) if (s[E.S_SEEN + p] >> q) & 1],
        })
    return {"turn": int(s[E.S_TURN]), "step": int(s[E.S_STEP]),
            "age": AGES[s[E.S_OPENED]] if s[E.S_OPENED] >= 0 else None,
            "deck": int(s[E.S_DECKLEN]), "discard": int(s[E.S_DISCLEN]), "removed": int(s[E.S_REMLEN]),
            "reshuffles": int(s[E.S_RESHUFFLES]), "seats": seats}


def _choices(cfg, chosen, P):
    out = []
    for p in range(P):
        if chosen[p, E.A_TYPE] < 0:
            out.append(None)
        else:
            out.append(_card(cfg, chosen[p, E.A_CARD], chosen[p, E.A_SUIT]))
    return out


def trace(cfg, players, choices, seed, game: int = 0, batch_size: int = DEFAULT_BATCH):
    P = int(players)
    if len(choices) != P:
        choices = [choices[i % len(choices)] for i in range(P)]
    vec = cfg.vector
    sids = np.array([c.base_id for c in choices], dtype=np.int64)
    mode = kernel_mode("mughal", sids)
    params = np.zeros((P, MAX_PARAMS), dtype=np.float64)
    for p, c in enumerate(choices):
        params[p] = c.vector()
    s = E.new_state()
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    chosen = np.zeros((E.MAX_PLAYERS, E.ACOLS), dtype=np.int32)
    sc = np.zeros(E.SC_SIZE, dtype=np.int32)
    share = np.zeros(E.MAX_PLAYERS, dtype=np.float64)
    picks = np.zeros((0, int(vec[E.CFG_HAND]), 2), dtype=np.int64)  # no tally in a trace
    debug = True

    root, local = game_origin(seed, game, batch_size)
    reseed(np.uint32(root), local, 0)  # game `game` of `run --seed S` (game 0: `run -n 1`)
    yield {"event": "game_start", "game": "mughal", "seed": int(seed), "players": P,
           "strategies": [c.name for c in choices], "config": cfg.raw}
    E.new_game(s, P)
    for t in range(1, cfg.n_turns + 1):
        name, bonus, mask, age = cfg.emperors[t - 1]
        E.begin_turn(s, vec)
        E.check_invariants(s, vec)
        yield {"event": "turn_start", "turn": t, "emperor": name, "bonus": bonus,
               "favoured": [SUITS[k] for k in range(E.NSUITS) if mask & (1 << k)],
               "direction": "left" if E.direction(s, vec) == 1 else "right", "state": _state(cfg, s)}
        while E.undeclared_total(s) > 0:  # same loop as kernel.declare_all
            s[E.S_STEP] = 0
            K.play_step(s, vec, sids, params, obs, actions, chosen, True, picks, mode)
            E.check_invariants(s, vec)
            yield {"event": "declare", "turn": t, "choices": _choices(cfg, chosen, P), "state": _state(cfg, s)}
        for step in range(1, int(vec[E.CFG_HAND]) + 1):
            K.action_step(s, vec, sids, params, obs, actions, chosen, picks, debug, step, mode)
            yield {"event": "step", "turn": t, "step": step, "choices": _choices(cfg, chosen, P),
                   "passed": step < int(vec[E.CFG_HAND]), "state": _state(cfg, s)}
        E.score_turn(s, vec, sc)
        E.end_turn(s, vec)  # `state` of the scoring event: after the turn's clean-up (discard, removed)
        E.check_invariants(s, vec)
        yield {"event": "scoring", "turn": t, "seats": [
            {"seat": p, "majority": int(sc[E.SC_MAJ + p]), "all_suits": int(sc[E.SC_ALL + p]),
             "emperor": int(sc[E.SC_EMP + p]), "disaster": int(sc[E.SC_DIS + p]), "vt": int(s[E.S_VT + p])}
            for p in range(P)],
            "margins": {SUITS[k]: int(sc[E.SC_MARGIN + k]) for k in range(E.NSUITS)},
            "emperor_winners": int(sc[E.SC_EMP_WINNERS]), "state": _state(cfg, s)}
    winner, k = E.final_result(s, vec, share)
    yield {"event": "game_end", "winner": int(winner), "n_winners": int(k),
           "vt": [int(s[E.S_VT + p]) for p in range(P)],
           "win_share": [float(share[p]) for p in range(P)],
           "parts": [{"majority": int(s[E.S_VT_MAJ + p]), "all_suits": int(s[E.S_VT_ALL + p]),
                      "emperor": int(s[E.S_VT_EMP + p]), "disaster": int(s[E.S_VT_DIS + p])} for p in range(P)]}
