"""Mohur batch kernel: many matches in one compiled loop (sim.playout's, one for every pairing), the result arrays
filled from each final state (the engine keeps every round's record).

Every round is dealt from its own stream (sim.mohur.engine.new_game), so sweep variants play on common random
numbers round by round, not only until their first difference.
"""
import numpy as np
from sim.jit import njit

from sim import playout
from sim.interface import bind
from sim.mohur import engine as E
from sim.registry import kernel_mode, listings, mode_dispatcher, observer

choose = mode_dispatcher("mohur")  # kernels: `mode` says whether search players can be asked
play = bind(playout.play, "mohur", inline=True, G=E, CHOOSE=choose, OBSERVES=observer("mohur"))  # kernel and trace

# rounds table: the match, then the round record the engine keeps in its history (one int32 column each)
ROUND_COLUMNS = ["match"] + E.round_columns()
GAME_COLUMNS = ["match", "first_starter", "winner", "seals_0", "seals_1", "rounds", "turns"]
GC = {name: i for i, name in enumerate(GAME_COLUMNS)}
NRC = len(ROUND_COLUMNS)
NGC = len(GAME_COLUMNS)
R_RECORD = ROUND_COLUMNS.index("round")  # numba sees these as compile-time constants
G_MATCH, G_FIRST, G_WINNER, G_SEALS, G_ROUNDS, G_TURNS = (
    GC[c] for c in ("match", "first_starter", "winner", "seals_0", "rounds", "turns"))
assert GC["seals_1"] == G_SEALS + 1 and R_RECORD + E.HIST_SIZE == NRC


@njit(cache=True)
def seed_rng(seed):
    """Seed numba's generator from Python (tests that reach states by hand)."""
    np.random.seed(seed)


@njit(cache=True, inline="always")
def _record_match(s, match, games, g, rows, r):
    """The finished match's game row and its round rows (from the state's history); returns (rows, next r)."""
    rounds = s[E.S_ROUND]
    if r + rounds > rows.shape[0]:
        grown = np.zeros((2 * rows.shape[0] + rounds, rows.shape[1]), dtype=np.int32)  # as play_batch's: one overload
        for i in range(r):  # element loops: slice copies pull in seconds of compile
            for j in range(rows.shape[1]):
                grown[i, j] = rows[i, j]
        rows = grown
    turns = 0
    for i in range(rounds):
        h = E.S_HISTORY + i * E.HIST_SIZE
        rows[r, 0] = match
        for j in range(E.HIST_SIZE):
            rows[r, R_RECORD + j] = s[h + j]
        turns += s[h + E.H_TURNS]
        r += 1
    games[g, G_MATCH] = match
    games[g, G_FIRST] = s[E.S_HISTORY + E.H_STARTER]
    games[g, G_WINNER] = s[E.S_WINNER]
    games[g, G_SEALS] = s[E.S_SEALS]
    games[g, G_SEALS + 1] = s[E.S_SEALS + 1]
    games[g, G_ROUNDS] = rounds
    games[g, G_TURNS] = turns
    return rows, r


@njit(cache=True)
def play_batch(cfg, lineups, choice_base, choice_params, seed, debug, mode, on_demand):
    n = lineups.shape[0]
    games = np.zeros((n, NGC), dtype=np.int32)
    rows = np.zeros((3 * n + 16, NRC), dtype=np.int32)
    s = E.new_state()
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    sids = np.zeros(2, dtype=np.int64)
    params = np.zeros((2, choice_params.shape[1]), dtype=np.float64)
    mover = np.empty(choice_params.shape[1], dtype=np.float64)
    no_log = np.zeros((0, 3 + E.ACOLS), dtype=np.int32)
    no_states = np.zeros((0, E.STATE_SIZE), dtype=np.int32)
    r = 0
    for m in range(n):
        playout.seat_lineup(lineups, m, choice_base, choice_params, sids, params)
        E.new_game(s, cfg, 2, seed, m)
        if debug:  # debug mode sees every legal action listed
            E.check_invariants(s, cfg)
        else:
            for p in range(2):
                s[E.S_ON_DEMAND + p] = on_demand[sids[p]]
        play(s, cfg, sids, params, obs, actions, mover, mode, debug, -1, no_log, no_states)
        rows, r = _record_match(s, m, games, m, rows, r)
    return games, rows[:r]


def win_shares(winner):
    """(matches, 2) win shares from the match winners: 1 to the winner; no winner (stopped by the round cap)
    is half a win each, as the analysis has always counted it (analysis.common)."""
    seat = np.arange(2)
    return np.where(winner[:, None] == seat, 1.0, np.where(winner[:, None] < 0, 0.5, 0.0))


def run_batch(cfg, players, lineups, choice_base, choice_params, seed, debug):
    """The entry point the runner ships to workers (a plain module-level function: joblib imports it once)."""
    mode = kernel_mode("mohur", choice_base[lineups.ravel()])
    on_demand = listings("mohur")  # how each strategy's exchanges are listed: the same choices, fewer rows
    games, rounds = play_batch(cfg.vector, lineups, choice_base, choice_params, np.uint32(seed), debug, mode,
                               on_demand)
    shares = win_shares(games[:, GC["winner"]])
    return {
        "games": {**{name: games[:, i].astype(_dtype(name)) for i, name in enumerate(GAME_COLUMNS)},
                  **{f"win_share_{p}": shares[:, p] for p in range(2)}},
        "rounds": {name: rounds[:, i].astype(_dtype(name)) for i, name in enumerate(ROUND_COLUMNS)},
    }


_WIDE = {"match", "turns", "decisions"}          # can exceed 16 bits (turn_cap up to 100,000)
_NARROW = {"starter", "winner", "end_reason", "coin_token", "tie_break", "first_starter", "seals_0", "seals_1"}


def _dtype(name: str):
    """Compact columns: a million matches' rounds table is ~300 MB in int16 against ~600 MB in int32.
    Rupee totals fit 16 bits because validation caps token values (sim.mohur.config.MAX_RUPEES)."""
    return np.int32 if name in _WIDE else np.int8 if name in _NARROW or name.startswith("tokens_") else np.int16

