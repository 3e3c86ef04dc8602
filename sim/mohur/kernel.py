"""Mohur batch kernel: many matches in one compiled loop, filling result arrays.

Strategies are called through the registry's integer dispatcher, so one compiled kernel serves every
pairing. Randomness: every round is dealt from its own stream, seeded from (batch seed, match, round) (sim.rng),
so each round of a match is dealt the same way whatever happened before it: variants of a sweep play on common
random numbers round by round, not only until their first difference. numba's generator, which the strategies
use for their tie-breaks, is seeded once per match, from (batch seed, match, 0), and also draws the first
starter.
"""
import numpy as np
from numba import njit

from sim.mohur import engine as E
from sim.registry import dispatcher, kernel_mode, mode_dispatcher
from sim.rng import deal_seed, game_seed

STRATEGY_ARGS = ("obs", "actions", "n_actions", "params", "cfg")
choose = mode_dispatcher("mohur", STRATEGY_ARGS)  # kernels: `mode` says whether search players can be asked
choose_action = dispatcher("mohur", STRATEGY_ARGS)  # every strategy, for the trace's Python loop

GOODS = ("diamond", "gold", "silver", "cloth", "spice", "leather")

# rounds table: one int32 column each
ROUND_COLUMNS = (
    ["match", "round", "starter", "winner", "end_reason", "turns", "decisions",
     "rupees_0", "rupees_1", "goods_tokens_0", "goods_tokens_1", "goods_rupees_0", "goods_rupees_1",
     "bonus_tokens_0", "bonus_tokens_1", "bonus_rupees_0", "bonus_rupees_1", "coin_token", "coins_0",
     "coins_1", "tie_break"]
    + [f"taken_{g}_{p}" for g in GOODS for p in (0, 1)]
    + [f"first_sale_{g}" for g in GOODS]
    + [f"left_{g}" for g in GOODS]
    + [f"sales_size_{n}" for n in range(1, 6)]
    + [f"bonus_pile{b}_count" for b in (3, 4, 5)]
    + [f"bonus_pile{b}_rupees" for b in (3, 4, 5)]
    + [f"tokens_{g}_{p}" for g in GOODS for p in (0, 1)]  # goods tokens per good and seat
)
RC = {name: i for i, name in enumerate(ROUND_COLUMNS)}
GAME_COLUMNS = ["match", "first_starter", "winner", "seals_0", "seals_1", "rounds", "turns"]
GC = {name: i for i, name in enumerate(GAME_COLUMNS)}
NRC = len(ROUND_COLUMNS)
NGC = len(GAME_COLUMNS)
# numba sees these as compile-time constants
R_TAKEN = RC["taken_diamond_0"]
R_FIRST = RC["first_sale_diamond"]
R_LEFT = RC["left_diamond"]
R_SALES = RC["sales_size_1"]
R_PCNT = RC["bonus_pile3_count"]
R_PSUM = RC["bonus_pile3_rupees"]
R_TCNT = RC["tokens_diamond_0"]


@njit(cache=True)
def seed_rng(seed):
    np.random.seed(seed)


match_seed = game_seed  # (batch seed, match, 0): numba's generator, once per match


@njit(cache=True)
def draw_first_starter(cfg):
    first = cfg[E.CFG_FIRST_STARTER]
    return np.random.randint(0, 2) if first < 0 else first


@njit(cache=True)
def play_round(s, cfg, sids, params, obs, actions, debug, mode):
    """Play one dealt round to its end. Returns nothing; the state holds the outcome."""
    cap = cfg[E.CFG_TURN_CAP]
    # the mover's parameters are copied into one vector: a row view (params[p]) per decision would cost two
    # atomic reference counts, which showed up as 7% of a greedy match
    mover = np.empty(params.shape[1], dtype=params.dtype)
    while not E.is_over(s):
        p = s[E.S_CUR]
        n = E.legal_actions(s, cfg, p, actions)
        if n == 0:
            E.pass_turn(s, cfg)
        else:
            if n > 1:
                s[E.S_DECISIONS] += 1
                E.observe(s, cfg, p, obs)
                for j in range(params.shape[1]):
                    mover[j] = params[p, j]
                a = choose(mode, sids[p], obs, actions, n, mover, cfg)
                if a < 0 or a >= n:
                    raise ValueError("strategy returned an action index outside the legal actions")
            else:
                a = 0
            E.apply_action(s, cfg, p, actions, a)
        if debug:
            E.check_invariants(s, cfg)
        if not E.is_over(s) and s[E.S_TURN] >= cap:
            s[E.S_END] = E.END_TURN_CAP


@njit(cache=True)
def _record_round(rows, r, s, cfg, match, scored):
    rows[r, 0] = match
    rows[r, 1] = s[E.S_ROUND]
    rows[r, 2] = s[E.S_STARTER]
    rows[r, 3] = scored[3]
    rows[r, 4] = s[E.S_END]
    rows[r, 5] = s[E.S_TURN]
    rows[r, 6] = s[E.S_DECISIONS]
    rows[r, 7], rows[r, 8] = scored[0], scored[1]
    for p in range(2):
        rows[r, 9 + p] = s[E.S_GCNT + p]
        rows[r, 11 + p] = s[E.S_GSUM + p]
        rows[r, 13 + p] = s[E.S_BCNT + p]
        rows[r, 15 + p] = s[E.S_BSUM + p]
        rows[r, 18 + p] = s[E.S_HAND + 7 * p + E.COIN]
    rows[r, 17] = scored[2]
    rows[r, 20] = scored[4]
    for g in range(E.NG):
        rows[r, R_TAKEN + 2 * g] = s[E.S_TAKEN + g]
        rows[r, R_TAKEN + 2 * g + 1] = s[E.S_TAKEN + 6 + g]
        rows[r, R_FIRST + g] = s[E.S_FIRSTSALE + g]
        rows[r, R_TCNT + 2 * g] = s[E.S_TCNT + g]
        rows[r, R_TCNT + 2 * g + 1] = s[E.S_TCNT + 6 + g]
        left = 0
        for i in range(s[E.S_TOKPOS + g], cfg[E.CFG_NTOK + g]):
            left += cfg[E.CFG_TOK + g * E.MAX_TOK + i]
        rows[r, R_LEFT + g] = left
    for i in range(5):
        rows[r, R_SALES + i] = s[E.S_SALES + i]
    for b in range(E.NPILES):
        rows[r, R_PCNT + b] = s[E.S_BPOS + b]
        rows[r, R_PSUM + b] = s[E.S_PSUM + b]


@njit(cache=True)
def play_match(s, cfg, sids, params, obs, actions, debug, mode, match, games, g, rows, r, seed):
    """Play a whole match (best of `seals_to_win`); write its game row and round rows. Returns next r."""
    scored = np.zeros(5, dtype=np.int32)
    np.random.seed(match_seed(seed, match, 0))
    starter = draw_first_starter(cfg)
    s[E.S_SEALS] = 0
    s[E.S_SEALS + 1] = 0
    turns = 0
    winner = -1
    for rnd in range(1, cfg[E.CFG_ROUND_CAP] + 1):
        s[E.S_ROUND] = rnd
        E.deal_round(s, cfg, starter, deal_seed(seed, match, rnd))
        if debug:
            E.check_invariants(s, cfg)
        play_round(s, cfg, sids, params, obs, actions, debug, mode)
        E.score_round(s, cfg, scored)
        if scored[3] >= 0:
            s[E.S_SEALS + scored[3]] += 1
        if r >= rows.shape[0]:
            grown = np.zeros((2 * rows.shape[0], rows.shape[1]), dtype=rows.dtype)
            for i in range(rows.shape[0]):  # element loops: slice copies pull in seconds of compile
                for j in range(rows.shape[1]):
                    grown[i, j] = rows[i, j]
            rows = grown
        _record_round(rows, r, s, cfg, match, scored)
        r += 1
        turns += s[E.S_TURN]
        if s[E.S_SEALS] >= cfg[E.CFG_SEALS] or s[E.S_SEALS + 1] >= cfg[E.CFG_SEALS]:
            winner = 0 if s[E.S_SEALS] >= cfg[E.CFG_SEALS] else 1
            break
        starter = E.next_starter(cfg, starter, scored[3])
    games[g, 0] = match
    games[g, 1] = rows[r - rnd, 2]
    games[g, 2] = winner
    games[g, 3] = s[E.S_SEALS]
    games[g, 4] = s[E.S_SEALS + 1]
    games[g, 5] = rnd
    games[g, 6] = turns
    return rows, r


@njit(cache=True)
def play_batch(cfg, lineups, choice_base, choice_params, seed, debug, mode):
    n = lineups.shape[0]
    games = np.zeros((n, NGC), dtype=np.int32)
    rows = np.zeros((3 * n + 16, NRC), dtype=np.int32)
    s = E.new_state()
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    sids = np.zeros(2, dtype=np.int64)
    params = np.zeros((2, choice_params.shape[1]), dtype=np.float64)
    r = 0
    for m in range(n):
        for p in range(2):
            c = lineups[m, p]
            sids[p] = choice_base[c]
            for j in range(choice_params.shape[1]):
                params[p, j] = choice_params[c, j]
        rows, r = play_match(s, cfg, sids, params, obs, actions, debug, mode, m, games, m, rows, r, seed)
    return games, rows[:r]


def win_shares(winner):
    """(matches, 2) win shares from the match winners: 1 to the winner; no winner (stopped by the round cap)
    is half a win each, as the analysis has always counted it (analysis.common)."""
    seat = np.arange(2)
    return np.where(winner[:, None] == seat, 1.0, np.where(winner[:, None] < 0, 0.5, 0.0))


def run_batch(cfg, players, lineups, choice_base, choice_params, seed, debug):
    """Module-level entry point the runner ships to workers (see shared notes: plain functions scale)."""
    mode = kernel_mode("mohur", choice_base[lineups.ravel()])
    games, rounds = play_batch(cfg.vector, lineups, choice_base, choice_params, np.uint32(seed), debug, mode)
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

