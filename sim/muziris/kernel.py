"""Muziris batch kernel: many games in one compiled loop (sim.playout's, one for every lineup), filling result
arrays from the final states. `new_game` re-seeds numba's generator per game (sim.rng): sweep variants share them.
"""
import numpy as np
from sim.jit import njit

from sim import playout
from sim.interface import Layout, bind
from sim.muziris import engine as E
from sim.registry import kernel_mode, mode_dispatcher, observer

choose = mode_dispatcher("muziris")  # kernels: `mode` says whether search players can be asked
play = bind(playout.play, "muziris", G=E, CHOOSE=choose, OBSERVES=observer("muziris"))

# One row per game and one per player: the result columns, named once (the kernel writes by these offsets)
GAME_ROW = Layout("muziris game row", [(name, 1) for name in (
    "first_player", "condition", "winner", "n_winners", "rounds", "end_reason", "trigger_seat", "reshuffles",
    "peak_coins", "decisions", "uses", "specials_mask")])
(G_FIRST_PLAYER, G_CONDITION, G_WINNER, G_N_WINNERS, G_ROUNDS, G_END_REASON, G_TRIGGER_SEAT, G_RESHUFFLES,
 G_PEAK_COINS, G_DECISIONS, G_USES, G_SPECIALS_MASK) = (at for at, _ in GAME_ROW.fields.values())
SMALL_GAME_COLUMNS = {"first_player", "condition", "winner", "n_winners", "end_reason", "trigger_seat"}  # int8
PLAYER_ROW = Layout("muziris player row", [
    ("coins", 1), ("coins_orders", 1), ("coins_characters", 1), ("coins_abilities", 1), ("coins_setup", 1),
    ("coins_condition", 1), ("orders", 1), ("hand", 1),
    ("coins_order", E.MAX_T),     # order coins by produce
    ("coins_action", E.MAX_C),    # ability coins by the character action that gave them (configuration index)
    ("coins_ability", E.MAX_T),   # ... by the produce ability that gave them
])
(P_COINS, P_COINS_ORDERS, P_COINS_CHARACTERS, P_COINS_ABILITIES, P_COINS_SETUP, P_COINS_CONDITION, P_ORDERS, P_HAND,
 P_COINS_ORDER, P_COINS_ACTION, P_COINS_ABILITY) = (at for at, _ in PLAYER_ROW.fields.values())
NGC, NPC = GAME_ROW.size, PLAYER_ROW.size


@njit(cache=True)
def play_batch(cfg, players, lineups, choice_base, choice_params, seed, debug, mode):
    n = lineups.shape[0]
    games = np.zeros((n, NGC), dtype=np.int32)
    prow = np.zeros((n * players, NPC), dtype=np.int32)
    share = np.zeros(n * players, dtype=np.float32)
    picks = np.zeros(E.MAX_C * (E.PICK_COINS + 1), dtype=np.int64)  # by configuration index and coins
    char_games = np.zeros(E.MAX_C, dtype=np.int64)
    char_rounds = np.zeros(E.MAX_C, dtype=np.int64)
    ordsize = np.zeros(E.MAX_T * E.MAX_ORD, dtype=np.int64)  # by produce and size
    s = E.new_state()
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    sids = np.zeros(players, dtype=np.int64)
    params = np.zeros((players, choice_params.shape[1]), dtype=np.float64)
    mover = np.empty(choice_params.shape[1], dtype=np.float64)
    no_log = np.zeros((0, 3 + E.ACOLS), dtype=np.int32)
    no_states = np.zeros((0, E.STATE_SIZE), dtype=np.int32)
    sh = np.zeros(E.MAX_P, dtype=np.float64)
    for g in range(n):
        playout.seat_lineup(lineups, g, choice_base, choice_params, sids, params)
        E.new_game(s, cfg, players, seed, g)
        if debug:
            E.check_invariants(s, cfg)
        play(s, cfg, sids, params, obs, actions, mover, mode, debug, -1, no_log, no_states)
        E.returns(s, cfg, sh)
        k = 0  # winners: a shared win gives each of them 1/k
        for p in range(players):
            if sh[p] > 0:
                k += 1
        winner = -1
        mask = 0
        for p in range(players):
            if sh[p] > 0 and k == 1:
                winner = p
        for slot in range(s[E.S_NCH]):
            cid = s[E.S_CH_ID + slot]
            char_games[cid] += 1
            char_rounds[cid] += s[E.S_ROUND]
            if cfg[E.CFG_CSTD + cid] == 0:
                mask |= 1 << cid
        for i in range(E.MAX_C * (E.PICK_COINS + 1)):  # one flat add (the rows of characters not in play are zeros)
            picks[i] += s[E.S_PICKS + i]
        for i in range(E.MAX_T * E.MAX_ORD):
            ordsize[i] += s[E.S_ORDSIZE + i]
        games[g, G_FIRST_PLAYER] = s[E.S_FP0]
        games[g, G_CONDITION] = s[E.S_COND]
        games[g, G_WINNER] = winner
        games[g, G_N_WINNERS] = k
        games[g, G_ROUNDS] = s[E.S_ROUND]
        games[g, G_END_REASON] = s[E.S_END]
        games[g, G_TRIGGER_SEAT] = s[E.S_TRIG_SEAT]
        games[g, G_RESHUFFLES] = s[E.S_RESHUF]
        games[g, G_PEAK_COINS] = s[E.S_ISSUED]  # coins out of the supply never go back, so the end is the peak
        games[g, G_DECISIONS] = s[E.S_DECISIONS]
        games[g, G_USES] = s[E.S_NUSES]
        games[g, G_SPECIALS_MASK] = mask
        for p in range(players):
            r = g * players + p
            for t in range(E.MAX_T):  # zeros past the configuration's produce
                prow[r, P_COINS_ORDER + t] = s[E.S_C_ORD + p * E.MAX_T + t]
            for i in range(E.ABIL_BY):  # coins_action then coins_ability: the state's order (zeros past nc and nt)
                prow[r, P_COINS_ACTION + i] = s[E.S_C_ABIL_BY + p * E.ABIL_BY + i]
            prow[r, P_COINS] = s[E.S_COINS + p]
            prow[r, P_COINS_ORDERS] = E.cards(s, E.S_C_ORD + p * E.MAX_T)  # a row of counts by produce
            prow[r, P_COINS_CHARACTERS] = s[E.S_C_CHAR + p]
            prow[r, P_COINS_ABILITIES] = s[E.S_C_ABIL + p]
            prow[r, P_COINS_SETUP] = s[E.S_C_SETUP + p]
            prow[r, P_COINS_CONDITION] = s[E.S_C_COND + p]
            prow[r, P_ORDERS] = E.orders_of(s, p)
            prow[r, P_HAND] = E.hand_size(s, p)
            share[r] = sh[p]
    return (games, prow, share, picks.reshape(E.MAX_C, E.PICK_COINS + 1), char_games, char_rounds,
            ordsize.reshape(E.MAX_T, E.MAX_ORD))


def run_batch(cfg, players, lineups, choice_base, choice_params, seed, debug):
    """The entry point the runner ships to workers (a plain module-level function: joblib imports it once)."""
    lineups = np.ascontiguousarray(lineups, dtype=np.int64)
    choice_base = np.asarray(choice_base, dtype=np.int64)
    mode = kernel_mode("muziris", choice_base[lineups.ravel()])
    games, prow, share, picks, char_games, char_rounds, ordsize = play_batch(
        cfg.vector, int(players), lineups, choice_base, np.asarray(choice_params, dtype=np.float64),
        np.uint32(seed), bool(debug), mode)
    n = games.shape[0]
    gt = {"game": np.arange(n, dtype=np.int32)}
    for name, (at, _) in GAME_ROW.fields.items():
        gt[name] = games[:, at].astype(np.int8 if name in SMALL_GAME_COLUMNS else np.int32)
    gt["coins_short"] = games[:, G_PEAK_COINS] > cfg.vector[E.CFG_BOXED_COINS]
    for p in range(players):  # the main table carries every seat's win share (docs/trace.md: game_end)
        gt[f"win_share_{p}"] = share.reshape(n, players)[:, p]
    pt = {"game": np.repeat(np.arange(n, dtype=np.int32), players),
          "seat": np.tile(np.arange(players, dtype=np.int8), n)}
    for name, (at, shape) in PLAYER_ROW.fields.items():
        if shape == (1,):  # the per-produce and per-character columns follow, named from the configuration
            pt[name] = prow[:, at].astype(np.int16)
    for t, produce in enumerate(cfg.produce):
        pt[f"coins_order_{produce}"] = prow[:, P_COINS_ORDER + t].astype(np.int16)
    pt["first_player"] = pt["seat"] == np.repeat(gt["first_player"], players)
    pt["win_share"] = share
    for c, character in enumerate(cfg.characters):  # ability coins by source (sum: coins_abilities)
        pt[f"coins_action_{character}"] = prow[:, P_COINS_ACTION + c].astype(np.int16)
    for t, produce in enumerate(cfg.produce):
        pt[f"coins_ability_{produce}"] = prow[:, P_COINS_ABILITY + t].astype(np.int16)
    nc = len(cfg.characters)
    names = np.array(cfg.characters, dtype=object)
    ci, coins = np.nonzero(picks[:nc])
    tables = {
        "games": gt,
        "players": pt,
        "picks": {"character": ci.astype(np.int16), "name": names[ci], "coins": coins.astype(np.int16),
                  "count": picks[ci, coins]},
        "characters": {"character": np.arange(nc, dtype=np.int16), "name": names,
                       "games_in_play": char_games[:nc], "rounds_in_play": char_rounds[:nc],
                       "picks": picks[:nc].sum(axis=1)},
    }
    nt = len(cfg.produce)
    t_idx, z_idx = np.indices((nt, cfg.vector[E.CFG_MAX_ORDER])).reshape(2, -1)
    tables["orders"] = {"produce": t_idx.astype(np.int8), "name": np.array(cfg.produce, dtype=object)[t_idx],
                        "size": (z_idx + 1).astype(np.int8), "count": ordsize[t_idx, z_idx]}
    return tables
