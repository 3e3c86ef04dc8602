"""Muziris batch kernel: many games in one compiled loop, filling result arrays.

Strategies are called through the registry's integer dispatcher, so one compiled kernel serves every
lineup. Randomness: numba's generator is re-seeded for every game from (batch seed, game) (sim.rng),
so sweep variants share their random numbers game by game.
A decision with a single option is applied without asking the strategy (the trace does the same).
"""
import numpy as np
from numba import njit

from sim.muziris import engine as E
from sim.registry import dispatcher, kernel_mode, mode_dispatcher
from sim.rng import reseed

STRATEGY_ARGS = ("obs", "actions", "n_actions", "params", "cfg")
choose = mode_dispatcher("muziris", STRATEGY_ARGS)  # kernels: `mode` says whether search players can be asked
choose_action = dispatcher("muziris", STRATEGY_ARGS)  # every strategy, for the trace's Python loop

PICK_COINS = 40   # coins-on-character buckets 0..40; the last one holds 40 or more

GAME_COLUMNS = ("first_player", "condition", "winner", "n_winners", "rounds", "end_reason", "trigger_seat",
                "reshuffles", "peak_coins", "decisions", "uses", "specials_mask")
NGC = len(GAME_COLUMNS)
# players table, before the per-produce order coins
PLAYER_COLUMNS = ("coins", "coins_orders", "coins_characters", "coins_abilities", "coins_setup",
                  "coins_condition", "orders", "hand")
NPC = len(PLAYER_COLUMNS)


@njit(cache=True)
def play_game(s, cfg, players, sids, params, obs, actions, debug, picks, mode):
    """Play one game from setup to its end; count character picks by coins on the character."""
    E.new_game(s, cfg, players)
    E.observe_static(s, cfg, obs)
    mover = np.empty(params.shape[1], dtype=params.dtype)  # a copy, not params[p]: a view costs two atomics
    if debug:
        E.check_invariants(s, cfg)
    while not E.is_over(s):
        n = E.legal_actions(s, cfg, actions)
        if n == 0:
            raise ValueError("a pending decision without options")
        a = 0
        if n > 1:
            E.observe(s, cfg, obs)
            p = s[E.S_CUR]
            for j in range(params.shape[1]):
                mover[j] = params[p, j]
            a = choose(mode, sids[p], obs, actions, n, mover, cfg)
            if a < 0 or a >= n:
                raise ValueError("strategy returned an option index outside the legal options")
        d, x, y = actions[a, 0], actions[a, 1], actions[a, 2]
        if d == E.D_CHAR:
            picks[s[E.S_CH_ID + x], min(s[E.S_CH_COINS + x], PICK_COINS)] += 1
        E.apply_action(s, cfg, d, x, y)
        if debug:
            E.check_invariants(s, cfg)


@njit(cache=True)
def play_batch(cfg, players, lineups, choice_base, choice_params, seed, debug, mode):
    n = lineups.shape[0]
    nt = cfg[E.CFG_NT]
    nc = cfg[E.CFG_NC]
    games = np.zeros((n, NGC), dtype=np.int32)
    # per player: the fixed columns, order coins by produce, ability coins by character action, by produce
    prow = np.zeros((n * players, NPC + nt + nc + nt), dtype=np.int32)
    share = np.zeros(n * players, dtype=np.float32)
    picks = np.zeros((E.MAX_C, PICK_COINS + 1), dtype=np.int64)
    char_games = np.zeros(E.MAX_C, dtype=np.int64)
    char_rounds = np.zeros(E.MAX_C, dtype=np.int64)
    ordsize = np.zeros((E.MAX_T, E.MAX_ORD), dtype=np.int64)
    s = E.new_state()
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    sids = np.zeros(players, dtype=np.int64)
    params = np.zeros((players, choice_params.shape[1]), dtype=np.float64)
    sh = np.zeros(E.MAX_P, dtype=np.float64)
    for g in range(n):
        for p in range(players):
            c = lineups[g, p]
            sids[p] = choice_base[c]
            for j in range(choice_params.shape[1]):  # element loop: a slice copy costs seconds of compile
                params[p, j] = choice_params[c, j]
        reseed(seed, g, 0)
        play_game(s, cfg, players, sids, params, obs, actions, debug, picks, mode)
        k = E.winners(s, sh)
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
        for t in range(nt):
            for z in range(E.MAX_ORD):
                ordsize[t, z] += s[E.S_ORDSIZE + t * E.MAX_ORD + z]
        games[g, 0] = s[E.S_FP0]
        games[g, 1] = s[E.S_COND]
        games[g, 2] = winner
        games[g, 3] = k
        games[g, 4] = s[E.S_ROUND]
        games[g, 5] = s[E.S_END]
        games[g, 6] = s[E.S_TRIG_SEAT]
        games[g, 7] = s[E.S_RESHUF]
        games[g, 8] = E.total_coins(s)  # coins out of the supply never go back, so the end is the peak
        games[g, 9] = s[E.S_DECISIONS]
        games[g, 10] = s[E.S_NUSES]
        games[g, 11] = mask
        for p in range(players):
            r = g * players + p
            orders_coins = 0
            for t in range(nt):
                prow[r, NPC + t] = s[E.S_C_ORD + p * E.MAX_T + t]
                orders_coins += s[E.S_C_ORD + p * E.MAX_T + t]
            for c in range(nc):
                prow[r, NPC + nt + c] = s[E.S_C_ABIL_BY + p * E.ABIL_BY + c]
            for t in range(nt):
                prow[r, NPC + nt + nc + t] = s[E.S_C_ABIL_BY + p * E.ABIL_BY + E.MAX_C + t]
            prow[r, 0] = s[E.S_COINS + p]
            prow[r, 1] = orders_coins
            prow[r, 2] = s[E.S_C_CHAR + p]
            prow[r, 3] = s[E.S_C_ABIL + p]
            prow[r, 4] = s[E.S_C_SETUP + p]
            prow[r, 5] = s[E.S_C_COND + p]
            prow[r, 6] = E.orders_of(s, p)
            prow[r, 7] = E.hand_size(s, p)
            share[r] = sh[p]
    return games, prow, share, picks, char_games, char_rounds, ordsize


def run_batch(cfg, players, lineups, choice_base, choice_params, seed, debug):
    """Module-level entry point the runner ships to workers (see shared notes: plain functions scale)."""
    lineups = np.ascontiguousarray(lineups, dtype=np.int64)
    choice_base = np.asarray(choice_base, dtype=np.int64)
    mode = kernel_mode("muziris", choice_base[lineups.ravel()])
    games, prow, share, picks, char_games, char_rounds, ordsize = play_batch(
        cfg.vector, int(players), lineups, choice_base, np.asarray(choice_params, dtype=np.float64),
        np.uint32(seed), bool(debug), mode)
    n = games.shape[0]
    gt = {"game": np.arange(n, dtype=np.int32)}
    small = {"first_player", "condition", "winner", "n_winners", "end_reason", "trigger_seat"}
    for i, name in enumerate(GAME_COLUMNS):
        gt[name] = games[:, i].astype(np.int8 if name in small else np.int32)
    gt["coins_short"] = games[:, GAME_COLUMNS.index("peak_coins")] > cfg.vector[E.CFG_BOXED]
    for p in range(players):  # the main table carries every seat's win share (docs/trace.md: game_end)
        gt[f"win_share_{p}"] = share.reshape(n, players)[:, p]
    pt = {"game": np.repeat(np.arange(n, dtype=np.int32), players),
          "seat": np.tile(np.arange(players, dtype=np.int8), n)}
    for i, name in enumerate(PLAYER_COLUMNS):
        pt[name] = prow[:, i].astype(np.int16)
    for t, produce in enumerate(cfg.produce):
        pt[f"coins_order_{produce}"] = prow[:, NPC + t].astype(np.int16)
    pt["first_player"] = pt["seat"] == np.repeat(gt["first_player"], players)
    pt["win_share"] = share
    nc = len(cfg.characters)
    for c, character in enumerate(cfg.characters):  # ability coins by source (sum: coins_abilities)
        pt[f"coins_action_{character}"] = prow[:, NPC + len(cfg.produce) + c].astype(np.int16)
    for t, produce in enumerate(cfg.produce):
        pt[f"coins_ability_{produce}"] = prow[:, NPC + len(cfg.produce) + nc + t].astype(np.int16)
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
    t_idx, z_idx = np.meshgrid(np.arange(nt), np.arange(cfg.vector[E.CFG_MAXORD]), indexing="ij")
    t_idx, z_idx = t_idx.ravel(), z_idx.ravel()
    tables["orders"] = {"produce": t_idx.astype(np.int8), "name": np.array(cfg.produce, dtype=object)[t_idx],
                        "size": (z_idx + 1).astype(np.int8), "count": ordsize[t_idx, z_idx]}
    return tables
