"""Mughal batch kernel: many games in one compiled loop (sim.playout's, one for every lineup), the result rows
filled from each final state and the pick tally from the play loop's log of applied actions.
"""
import numpy as np
from sim.jit import njit

from sim import playout
from sim.interface import bind
from sim.mughal import engine as E
from sim.registry import kernel_mode, mode_dispatcher, observer

choose = mode_dispatcher("mughal")  # kernels: `mode` says whether search players can be asked
play = bind(playout.play, "mughal", inline=True, G=E, CHOOSE=choose, OBSERVES=observer("mughal"))

GAME_FIXED = ["game", "winner", "n_winners", "turns", "reshuffles", "vt_top", "vt_margin", "decisions"]
PLAYER_FIXED = ["game", "seat", "vt_total", "vt_majority", "vt_all_suits", "vt_emperor", "vt_disaster",
                "disasters", "disasters_destiny", "disasters_picked", "majorities_won", "majorities_tied",
                "all_suits_turns", "emperor_wins"]
NGF = len(GAME_FIXED)
NPF = len(PLAYER_FIXED)
# result columns by name, in the lists' order (module-level ints: numba compiles them as constants)
G_GAME, G_WINNER, G_N_WINNERS, G_TURNS, G_RESHUFFLES, G_VT_TOP, G_VT_MARGIN, G_DECISIONS = range(NGF)
(P_GAME, P_SEAT, P_VT_TOTAL, P_VT_MAJORITY, P_VT_ALL_SUITS, P_VT_EMPEROR, P_VT_DISASTER, P_DISASTERS,
 P_DISASTERS_DESTINY, P_DISASTERS_PICKED, P_MAJORITIES_WON, P_MAJORITIES_TIED, P_ALL_SUITS_TURNS,
 P_EMPEROR_WINS) = range(NPF)
# player columns copied from the state's whole-game tallies (per seat at offset + seat)
_PLAYER_TALLIES = ((P_VT_TOTAL, E.S_VT), (P_VT_MAJORITY, E.S_VT_MAJ), (P_VT_ALL_SUITS, E.S_VT_ALL),
                   (P_VT_EMPEROR, E.S_VT_EMP), (P_VT_DISASTER, E.S_VT_DIS), (P_DISASTERS_DESTINY, E.S_DIS_DESTINY),
                   (P_DISASTERS_PICKED, E.S_DIS_PICKED), (P_MAJORITIES_WON, E.S_MAJ_SOLE),
                   (P_MAJORITIES_TIED, E.S_MAJ_TIED), (P_ALL_SUITS_TURNS, E.S_ALL_SUITS_TURNS),
                   (P_EMPEROR_WINS, E.S_EMP_WINS))
PICK_OFFERED, PICK_PICKED = 0, 1
LOG_PLAYER, LOG_ACTION = 0, 3   # play loop log row: player, legal actions, row chosen, then the action's columns


def game_columns(n_turns):
    """Fixed columns, then per turn t (1-based): emp_winners_t (players sharing the emperor bonus, 0 none),
    then margin_<suit>_t (top suit total minus the second; -1 nobody scored the suit)."""
    return (GAME_FIXED + [f"emp_winners_{t}" for t in range(1, n_turns + 1)]
            + [f"margin_{s}_{t}" for t in range(1, n_turns + 1) for s in E.SUITS])


def player_columns(n_turns):
    return PLAYER_FIXED + [f"emp_vt_{t}" for t in range(1, n_turns + 1)]


@njit(cache=True)
def max_actions_per_game(cfg, players):
    """Every action of a game: per turn, each seat declares at most its destiny cards and places its hand."""
    return cfg[E.CFG_NTURNS] * players * (cfg[E.CFG_DESTINY] + cfg[E.CFG_HAND])


@njit(cache=True)
def tally_picks(cfg, players, log, steps, picks):
    """picks[kind, step - 1, picked] from a game's applied actions (run_batch derives offered from them). Places
    come step by step, every seat once a step."""
    step, left = 0, players   # counted, not divided out of the place's index: two divisions a place
    for i in range(steps):
        if log[i, LOG_ACTION + E.A_TYPE] == E.T_PLACE:
            picks[cfg[E.CFG_CARD_KIND + log[i, LOG_ACTION + E.A_CARD]], step, PICK_PICKED] += 1
            left -= 1
            if left == 0:
                step, left = (step + 1) % cfg[E.CFG_HAND], players


@njit(cache=True)
def fill_rows(s, cfg, players, g, games, prows, shares, share):
    """Game g's result rows from its final state."""
    nt = cfg[E.CFG_NTURNS]
    winner, k = E.winners(s)
    E.returns(s, cfg, share)
    top = -(1 << 30)
    second = -(1 << 30)
    for p in range(players):
        v = s[E.S_VT + p]
        if v > top:
            second = top
            top = v
        elif v > second:
            second = v
        row = g * players + p
        prows[row, P_GAME] = g
        prows[row, P_SEAT] = p
        for col, at in _PLAYER_TALLIES:
            prows[row, col] = s[at + p]
        prows[row, P_DISASTERS] = s[E.S_DIS_DESTINY + p] + s[E.S_DIS_PICKED + p]
        for t in range(nt):
            prows[row, NPF + t] = s[E.S_HIST_EMP_VT + E.MAX_PLAYERS * t + p]
        shares[row] = share[p]
    for t in range(nt):
        games[g, NGF + t] = s[E.S_HIST_EMP_WINNERS + t]
        for k2 in range(E.NSUITS):
            games[g, NGF + nt + t * E.NSUITS + k2] = s[E.S_HIST_MARGIN + E.NSUITS * t + k2]
    games[g, G_GAME] = g
    games[g, G_WINNER] = winner
    games[g, G_N_WINNERS] = k
    games[g, G_TURNS] = nt
    games[g, G_RESHUFFLES] = s[E.S_RESHUFFLES]
    games[g, G_VT_TOP] = top
    games[g, G_VT_MARGIN] = top - second
    games[g, G_DECISIONS] = s[E.S_DECISIONS]


@njit(cache=True)
def play_batch(cfg, players, lineups, choice_base, choice_params, seed, debug, mode):
    n = lineups.shape[0]
    nt = cfg[E.CFG_NTURNS]
    games = np.zeros((n, NGF + nt * (1 + E.NSUITS)), dtype=np.int32)
    prows = np.zeros((n * players, NPF + nt), dtype=np.int32)
    shares = np.zeros(n * players, dtype=np.float64)
    picks = np.zeros((cfg[E.CFG_NKINDS], cfg[E.CFG_HAND], 2), dtype=np.int64)
    s = E.new_state()
    obs = np.zeros(E.OBS_SIZE if len(mode) > 0 else E.OBS_TALLIES, dtype=np.int32)  # heuristics: tallies only
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    share = np.zeros(E.MAX_PLAYERS, dtype=np.float64)
    sids = np.zeros(players, dtype=np.int64)
    params = np.zeros((players, choice_params.shape[1]), dtype=np.float64)
    mover = np.zeros(choice_params.shape[1], dtype=np.float64)
    log = np.zeros((max_actions_per_game(cfg, players), LOG_ACTION + E.ACOLS), dtype=np.int32)
    no_states = np.zeros((0, E.STATE_SIZE), dtype=np.int32)
    for g in range(n):
        playout.seat_lineup(lineups, g, choice_base, choice_params, sids, params)
        E.new_game(s, cfg, players, seed, g)
        if debug:
            E.check_invariants(s, cfg)
        steps = play(s, cfg, sids, params, obs, actions, mover, mode, debug, -1, log, no_states)
        tally_picks(cfg, players, log, steps, picks)
        fill_rows(s, cfg, players, g, games, prows, shares, share)
    return games, prows, shares, picks


_GAME_DTYPES = {"game": np.int32, "decisions": np.int16, "winner": np.int8, "n_winners": np.int8, "turns": np.int8,
                "reshuffles": np.int16, "vt_top": np.int16, "vt_margin": np.int16}


def run_batch(cfg, players, lineups, choice_base, choice_params, seed, debug):
    """The entry point the runner ships to workers (a plain module-level function: joblib imports it once)."""
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
    # a hand holds at step k exactly the cards picked from it at steps k.. (each step takes one card from every
    # hand), so a card picked at step k was offered at steps 1..k: once per batch here, not per pick in the kernel
    picks[:, :, PICK_OFFERED] = picks[:, ::-1, PICK_PICKED].cumsum(axis=1)[:, ::-1]
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
