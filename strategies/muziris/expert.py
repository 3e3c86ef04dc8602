"""`ismcts`, Muziris's search player: the shared information-set MCTS (strategies/search.py) over Muziris's engine,
valuing a world by its win shares plus `margin_weight` per coin of lead over the best rival.
"""
from sim.jit import njit
import numpy as np

from sim.muziris import engine as E
from sim.muziris.determinize import determinize
from strategies.search import registered_player


@njit(cache=True)
def margin_value(s, params, score, share, out):
    """out[p] <- share[p] + margin_weight x (score[p] - the best rival's score)."""
    mw = params[P_MARGIN_WEIGHT]  # noqa: F821 - set by the registry
    for p in range(s[E.S_NP]):
        rival = -1e300
        for q in range(s[E.S_NP]):
            if q != p and score[q] > rival:
                rival = score[q]
        out[p] = share[p] + mw * (score[p] - rival)


@njit(cache=True)
def final_value(s, cfg, params, out):
    """A finished game: win shares and the coin margin."""
    share = np.zeros(E.MAX_P)
    E.returns(s, cfg, share)
    margin_value(s, params, s[E.S_COINS:E.S_COINS + E.MAX_P], share, out)


@njit(cache=True)
def evaluate(s, cfg, params, out):
    """A game cut short: scored as if it ended now (coins and the market condition's coins), the best score
    winning (ties shared)."""
    cond = np.zeros(E.MAX_P, dtype=np.int64)
    E.condition_coins(s, cfg, cond)
    n = s[E.S_NP]
    score = s[E.S_COINS:E.S_COINS + n] + cond[:n]
    best = score == score.max()
    margin_value(s, params, score, best / best.sum(), out)


@njit(cache=True)
def action_key(actions, a):
    """An option row [decision, x, y] as one integer, the same in every world (y < 64: an order size, or the
    cards a take_type option takes, at most the Market's size; 0 when the count is not a choice)."""
    return (np.int64(actions[a, E.A_DECISION]) * 64 + actions[a, E.A_X] + 1) * 64 + actions[a, E.A_Y]


ismcts, search = registered_player("muziris", E, determinize, E.MAX_P, __name__, evaluate=evaluate,
                                   value=final_value, action_key=action_key, extra={"margin_weight": 0.05})
