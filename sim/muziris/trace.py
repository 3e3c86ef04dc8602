"""One Muziris game as JSON-able events (schema: docs/trace.md), described from the records of the kernel's own
play loop (sim.playout) with the same seeding: `trace(seed=S)` is game 0 of `run muziris -n 1 --seed S`."""
from __future__ import annotations

import numpy as np

from sim.playout import recorded, start_game
from sim.rng import DEFAULT_BATCH

from sim.muziris import engine as E
from sim.muziris.kernel import play

CHUNK = 4096  # actions recorded per call of the play loop (a game runs on over as many calls as it needs)


def _counts(cfg, row) -> dict:
    return {cfg.produce[t]: int(row[t]) for t in range(len(cfg.produce)) if row[t] > 0}


def _state(cfg, s) -> dict:
    P = int(s[E.S_NP])
    hands = [_counts(cfg, s[E.S_HAND + p * E.MAX_T: E.S_HAND + (p + 1) * E.MAX_T]) for p in range(P)]
    plays = [_counts(cfg, s[E.S_PLAY + p * E.MAX_T: E.S_PLAY + (p + 1) * E.MAX_T]) for p in range(P)]
    return {
        "round": int(s[E.S_ROUND]), "first_player": int(s[E.S_FP]), "final_round": bool(s[E.S_FINAL]),
        "coins": [int(s[E.S_COINS + p]) for p in range(P)],
        "hands": hands, "play_areas": plays,
        "market": _counts(cfg, s[E.S_MARKET: E.S_MARKET + E.MAX_T]),
        "deck": int(E.deck_left(s)), "discard": int(E.cards(s, E.S_DISCARD)), "reshuffles": int(s[E.S_RESHUF]),
        "characters": [{"name": cfg.characters[s[E.S_CH_ID + k]], "coins": int(s[E.S_CH_COINS + k]),
                        "markers": int(s[E.S_CH_MARK + k])} for k in range(int(s[E.S_NCH]))],
    }


def _option(cfg, s, d, x, y) -> dict:
    out = {"decision": E.DECISION_NAMES[d]}
    if d == E.D_CHAR:
        out["character"] = cfg.characters[s[E.S_CH_ID + x]]
    elif d == E.D_CYCLE and x < 0:
        out["stop"] = True
    else:
        out["produce"] = cfg.produce[x]
    if d == E.D_FULFIL:
        out["size"] = int(y)
    elif d == E.D_TAKE_TYPE:  # cards taken: the chosen count, or (y = 0) every card of the type / up to a0
        _, a0, _ = E._step_of(s, cfg.vector, s[E.S_DEPTH] - 1)
        m = int(s[E.S_MARKET + x])
        out["count"] = int(y) if y > 0 else (m if a0 <= 0 else min(int(a0), m))
    return out


def _sources(cfg, s, p) -> dict:
    return {
        "orders": {cfg.produce[t]: int(s[E.S_C_ORD + p * E.MAX_T + t]) for t in range(len(cfg.produce))},
        "characters": int(s[E.S_C_CHAR + p]), "abilities": int(s[E.S_C_ABIL + p]),
        "setup": int(s[E.S_C_SETUP + p]), "condition": int(s[E.S_C_COND + p]),
    }


def trace(cfg, players: int, choices, seed: int, game: int = 0, batch_size: int = DEFAULT_BATCH):
    v = cfg.vector
    s = start_game(E, v, players, seed, game, batch_size)  # game `game` of `run --seed S` (game 0: `run -n 1`)
    # log rows (player, options, row, decision, x, y); the states before each action (the first: after setup)
    # and after the last, played by the kernel's loop
    logs, befores = [], []
    for steps, log, states in recorded(E, play, "muziris", s, v, choices, CHUNK):
        logs.append(log[:steps])
        befores.append(states[:steps])
    log, states = np.concatenate(logs), np.concatenate(befores + [s[None, :].copy()])
    s = states[0]
    yield {"event": "game_start", "game": "muziris", "seed": seed, "players": players,
           "strategies": [c.name for c in choices], "config": cfg.raw,
           "condition": cfg.conditions[s[E.S_COND]],
           "characters_in_play": [cfg.characters[s[E.S_CH_ID + k]] for k in range(int(s[E.S_NCH]))],
           "state": _state(cfg, s)}
    use = None       # the open `use` event; a use that ends its turn stays open through the hand-limit discards
    discards: list = []
    for step, row in enumerate(log):
        s, after = states[step], states[step + 1]
        p, n = int(row[0]), int(row[1])
        d, x, y = (int(row[3 + c]) for c in (E.A_DECISION, E.A_X, E.A_Y))
        option = {**_option(cfg, s, d, x, y), "options": n}
        rnd, final = int(s[E.S_ROUND]), int(s[E.S_FINAL])
        coins_on = [int(s[E.S_CH_COINS + k]) for k in range(int(s[E.S_NCH]))]
        if d == E.D_CHAR:
            use = {"event": "use", "round": rnd, "seat": p, "character": option["character"],
                   "coins_taken": coins_on[x], "coins_before": int(s[E.S_COINS + p]), "choices": [option]}
        else:
            if d == E.D_DISCARD:
                discards.append(option)
            if use is not None:
                use["choices"].append(option)
        s = after
        round_ended = bool(E.is_over(s) or int(s[E.S_ROUND]) != rnd)
        if use is not None and s[E.S_PHASE] not in (E.PH_STEP, E.PH_DISCARD):
            use.update(coins_gained=int(s[E.S_COINS + p]) - use.pop("coins_before"), round_ended=round_ended,
                       state=_state(cfg, s))
            yield use
            use = None
        if discards and s[E.S_PHASE] != E.PH_DISCARD:
            yield {"event": "hand_limit", "round": rnd, "seat": p, "discarded": [c["produce"] for c in discards],
                   "choices": discards, "round_ended": round_ended, "state": _state(cfg, s)}
            discards = []
        if not final and s[E.S_FINAL]:
            trig = int(s[E.S_TRIG_SEAT])
            yield {"event": "trigger", "round": rnd, "seat": trig if trig >= 0 else None,
                   "condition": cfg.conditions[s[E.S_COND]], "state": _state(cfg, s)}
        if not E.is_over(s) and int(s[E.S_ROUND]) != rnd:
            unused = [cfg.characters[s[E.S_CH_ID + k]] for k in range(int(s[E.S_NCH]))
                      if s[E.S_CH_COINS + k] > coins_on[k]]
            yield {"event": "end_of_round", "round": rnd, "coins_added_to": unused,
                   "next_first_player": int(s[E.S_FP]), "state": _state(cfg, s)}
    s = states[-1]
    share = np.zeros(E.MAX_P)
    E.returns(s, v, share)
    yield {"event": "game_end", "rounds": int(s[E.S_ROUND]), "end_reason": E.END_NAMES[s[E.S_END]],
           "trigger_seat": int(s[E.S_TRIG_SEAT]) if s[E.S_TRIG_SEAT] >= 0 else None,
           "coins": [int(s[E.S_COINS + p]) for p in range(players)],
           "coins_by_source": [_sources(cfg, s, p) for p in range(players)],
           "winners": [p for p in range(players) if share[p] > 0], "n_winners": int(np.count_nonzero(share[:players])),
           "win_share": [float(share[p]) for p in range(players)],
           "peak_coins": int(s[E.S_ISSUED]), "coins_short": bool(s[E.S_ISSUED] > v[E.CFG_BOXED_COINS]),
           "state": _state(cfg, s)}
