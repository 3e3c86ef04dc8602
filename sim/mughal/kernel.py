"""Mughal batch kernel: many games in one compiled loop, filling result arrays.

Strategies are called through the registry's integer dispatcher, so one compiled kernel serves every lineup.
Simultaneous choice: in each step every seat's choice is computed from the state before any card of that
step is placed, then all choices are applied. numba's generator is re-seeded for every game from
(batch seed, game) (sim.rng), so sweep variants share their random numbers game by game.
"""
import numpy as np
from numba import njit

from sim.mughal import engine as E
from sim.registry import dispatcher, kernel_mode, mode_dispatcher
from sim.rng import reseed

STRATEGY_ARGS = ("obs", "actions", "n_actions", "params", "cfg")
choose = mode_dispatcher("mughal", STRATEGY_ARGS)  # kernels: `mode` says whether search players can be asked
choose_action = dispatcher("mughal", STRATEGY_ARGS)

SUITS = ("military", "building", "culture", "wealth")
GAME_FIXED = ["game", "winner", "n_winners", "turns", "reshuffles", "vt_top", "vt_margin", "decisions"]
PLAYER_FIXED = ["game", "seat", "vt_total", "vt_majority", "vt_all_suits", "vt_emperor", "vt_disaster",
                "disasters", "disasters_destiny", "disasters_picked", "majorities_won", "majorities_tied",
                "all_suits_turns", "emperor_wins"]
NGF = len(GAME_FIXED)
NPF = len(PLAYER_FIXED)
PICK_OFFERED, PICK_PICKED = 0, 1


def game_columns(n_turns):
    """Fixed columns, then per turn t (1-based): emp_winners_t (players sharing the emperor bonus, 0 none),
    then margin_<suit>_t (top suit total minus the second; -1 nobody scored the suit)."""
    return (GAME_FIXED + [f"emp_winners_{t}" for t in range(1, n_turns + 1)]
            + [f"margin_{s}_{t}" for t in range(1, n_turns + 1) for s in SUITS])


def player_columns(n_turns):
    return PLAYER_FIXED + [f"emp_vt_{t}" for t in range(1, n_turns + 1)]


@njit(cache=True)
def play_step(s, cfg, sids, params, obs, actions, chosen, declare, picks, mode):
    """One simultaneous step: every seat chooses from the same state, then all choices apply.
    Returns how many seats acted. `picks` [kind, step, offered/picked] counts hand choices."""
    P = s[E.S_NP]
    step = s[E.S_STEP]
    acted = 0
    # copies instead of row views (params[p], chosen[p]): a view costs two atomic reference counts
    mover = np.empty(params.shape[1], dtype=params.dtype)
    row = np.empty(E.ACOLS, dtype=chosen.dtype)
    for p in range(P):
        n = E.legal_actions(s, cfg, p, actions, declare)
        chosen[p, E.A_TYPE] = -1
        if n == 0:
            continue
        a = 0
        if n > 1:
            s[E.S_DECISIONS] += 1
            E.observe(s, cfg, p, obs)
            for j in range(params.shape[1]):
                mover[j] = params[p, j]
            a = choose(mode, sids[p], obs, actions, n, mover, cfg)
            if a < 0 or a >= n:
                raise ValueError("strategy returned an action index outside the legal actions")
        for c in range(E.ACOLS):
            chosen[p, c] = actions[a, c]
        if not declare and picks.shape[0] > 0:
            for i in range(s[E.S_HLEN + p]):
                kind = cfg[E.CFG_CKIND + s[E.S_HAND + E.MAX_HAND * p + i]]
                picks[kind, step - 1, PICK_OFFERED] += 1
            picks[cfg[E.CFG_CKIND + actions[a, E.A_CARD]], step - 1, PICK_PICKED] += 1
    for p in range(P):
        if chosen[p, E.A_TYPE] >= 0:
            for c in range(E.ACOLS):
                row[c] = chosen[p, c]
            E.apply_action(s, cfg, p, row)
            acted += 1
    return acted


@njit(cache=True)
def declare_all(s, cfg, sids, params, obs, actions, chosen, picks, debug, mode):
    """Start of the action phase: owners declare their multi-suit destiny cards, one card per seat per step."""
    s[E.S_STEP] = 0
    while E.undeclared_total(s) > 0:
        play_step(s, cfg, sids, params, obs, actions, chosen, True, picks, mode)
        if debug:
            E.check_invariants(s, cfg)


@njit(cache=True)
def action_step(s, cfg, sids, params, obs, actions, chosen, picks, debug, step, mode):
    """Action step `step` (1-based): all seats place a card, then hands pass (not after the last step)."""
    s[E.S_STEP] = step
    play_step(s, cfg, sids, params, obs, actions, chosen, False, picks, mode)
    if step < cfg[E.CFG_HAND]:
        E.pass_hands(s, cfg)
    if debug:
        E.check_invariants(s, cfg)


@njit(cache=True)
def play_game(s, cfg, players, sids, params, obs, actions, chosen, sc, share, picks, debug, mode,
              g, games, prows, shares):
    nt = cfg[E.CFG_NTURNS]
    E.new_game(s, players)
    r0 = g * players
    for p in range(players):
        prows[r0 + p, 0] = g
        prows[r0 + p, 1] = p
    for t in range(1, nt + 1):
        E.begin_turn(s, cfg)
        if debug:
            E.check_invariants(s, cfg)
        declare_all(s, cfg, sids, params, obs, actions, chosen, picks, debug, mode)
        for step in range(1, cfg[E.CFG_HAND] + 1):
            action_step(s, cfg, sids, params, obs, actions, chosen, picks, debug, step, mode)
        E.score_turn(s, cfg, sc)
        games[g, NGF + t - 1] = sc[E.SC_EMP_WINNERS]
        for k in range(E.NSUITS):
            games[g, NGF + nt + (t - 1) * E.NSUITS + k] = sc[E.SC_MARGIN + k]
        for p in range(players):
            row = r0 + p
            prows[row, 10] += sc[E.SC_MAJ_SOLE + p]
            prows[row, 11] += sc[E.SC_MAJ_TIED + p]
            if sc[E.SC_ALL + p] != 0:
                prows[row, 12] += 1
            if sc[E.SC_EMP_WINNERS] > 0 and sc[E.SC_EMP + p] > 0:
                prows[row, 13] += 1
            prows[row, NPF + t - 1] = sc[E.SC_EMP + p]
        E.end_turn(s, cfg)
        if debug:
            E.check_invariants(s, cfg)
    winner, k = E.final_result(s, cfg, share)
    top = -(1 << 30)
    second = -(1 << 30)
    for p in range(players):
        v = s[E.S_VT + p]
        if v > top:
            second = top
            top = v
        elif v > second:
            second = v
        row = r0 + p
        prows[row, 2] = v
        prows[row, 3] = s[E.S_VT_MAJ + p]
        prows[row, 4] = s[E.S_VT_ALL + p]
        prows[row, 5] = s[E.S_VT_EMP + p]
        prows[row, 6] = s[E.S_VT_DIS + p]
        prows[row, 7] = s[E.S_DIS_DESTINY + p] + s[E.S_DIS_PICKED + p]
        prows[row, 8] = s[E.S_DIS_DESTINY + p]
        prows[row, 9] = s[E.S_DIS_PICKED + p]
        shares[row] = share[p]
    games[g, 0] = g
    games[g, 1] = winner
    games[g, 2] = k
    games[g, 3] = nt
    games[g, 4] = s[E.S_RESHUFFLES]
    games[g, 5] = top
    games[g, 6] = top - second
    games[g, 7] = s[E.S_DECISIONS]


@njit(cache=True)
def play_batch(cfg, players, lineups, choice_base, choice_params, seed, debug, mode):
    n = lineups.shape[0]
    nt = cfg[E.CFG_NTURNS]
    games = np.zeros((n, NGF + nt * (1 + E.NSUITS)), dtype=np.int32)
    prows = np.zeros((n * players, NPF + nt), dtype=np.int32)
    shares = np.zeros(n * players, dtype=np.float64)
    picks = np.zeros((cfg[E.CFG_NKINDS], cfg[E.CFG_HAND], 2), dtype=np.int64)
    s = E.new_state()
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    chosen = np.zeros((E.MAX_PLAYERS, E.ACOLS), dtype=np.int32)
    sc = np.zeros(E.SC_SIZE, dtype=np.int32)
    share = np.zeros(E.MAX_PLAYERS, dtype=np.float64)
    sids = np.zeros(players, dtype=np.int64)
    params = np.zeros((players, choice_params.shape[1]), dtype=np.float64)
    for g in range(n):
        for p in range(players):
            c = lineups[g, p]
            sids[p] = choice_base[c]
            for j in range(choice_params.shape[1]):  # element loop: a slice copy costs seconds of compile
                params[p, j] = choice_params[c, j]
        reseed(seed, g, 0)
        play_game(s, cfg, players, sids, params, obs, actions, chosen, sc, share, picks, debug, mode,
                  g, games, prows, shares)
    return games, prows, shares, picks


_GAME_DTYPES = {"game": np.int32, "decisions": np.int16, "winner": np.int8, "n_winners": np.int8, "turns": np.int8,
                "reshuffles": np.int16, "vt_top": np.int16, "vt_margin": np.int16}


def run_batch(cfg, players, lineups, choice_base, choice_params, seed, debug):
    """Module-level entry point the runner ships to workers (see shared notes: plain functions scale)."""
    lineups = np.ascontiguousarray(lineups, dtype=np.int64)
    choice_base = np.ascontiguousarray(choice_base, dtype=np.int64)
    mode = kernel_mode("mughal", choice_base[lineups.ravel()])
    games, prows, shares, picks = play_batch(cfg.vector, int(players), lineups, choice_base,
                                             np.ascontiguousarray(choice_params, dtype=np.float64),
                                             np.uint32(seed), bool(debug), mode)
    nt = cfg.n_turns
    gtab = {}
    for i, name in enumerate(game_columns(nt)):
        gtab[name] = games[:, i].astype(_GAME_DTYPES.get(name, np.int16 if name.startswith("margin_") else np.int8))
    for p in range(players):  # the main table carries every seat's win share (docs/trace.md: game_end)
        gtab[f"win_share_{p}"] = shares.reshape(-1, players)[:, p]
    ptab = {}
    for i, name in enumerate(player_columns(nt)):
        dtype = np.int32 if name == "game" else np.int16 if name.startswith(("vt_", "emp_vt_")) else np.int8
        ptab[name] = prows[:, i].astype(dtype)
    ptab["win_share"] = shares
    nk, hs = picks.shape[0], picks.shape[1]
    kind = np.repeat(np.arange(nk, dtype=np.int16), hs)
    ptable = {
        "kind": kind,
        "label": np.array([cfg.kinds[k][0] for k in kind], dtype=object),
        "suits": np.array([cfg.kinds[k][1] for k in kind], dtype=np.int8),
        "level": np.array([cfg.kinds[k][2] for k in kind], dtype=np.int16),
        "step": np.tile(np.arange(1, hs + 1, dtype=np.int8), nk),
        "offered": picks[:, :, PICK_OFFERED].reshape(-1),
        "picked": picks[:, :, PICK_PICKED].reshape(-1),
    }
    return {"games": gtab, "players": ptab, "picks": ptable}
