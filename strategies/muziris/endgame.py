import numpy as np
from sim.jit import njit

from sim.muziris import engine as E
from sim.registry import strategy
from strategies.muziris._features import NO_EXTRA, choose_character, choose_option


@njit(cache=True, inline="always")
def condition_values(obs, weight, push, tb):
    """Fill tb (extra value per order of each produce) and return cb (extra value per card held), from the
    drawn market condition's end scoring, plus `push` towards its trigger when leading (away when not)."""
    kind, amt = obs[E.O_SCORE], obs[E.O_AMT]
    me = obs[E.O_SEAT]
    sign = 1.0  # leading: no rival has as many coins
    for q in range(obs[E.O_NP]):
        if q != me and obs[E.O_COINS + q] >= obs[E.O_COINS + me]:
            sign = -1.0
    cb = 0.0
    for t in range(obs[E.O_NT]):
        mine = obs[E.O_PLAY + me * E.MAX_T + t]
        if kind == E.SC_PER_TYPE:
            tb[t] = weight * amt if mine == 0 else 0.0
        elif kind == E.SC_MOST_ORDERS:
            tb[t] = weight * amt / obs[E.O_NP]
        elif kind == E.SC_MOST_EACH:
            most = 0
            for q in range(obs[E.O_NP]):
                if q != me:
                    most = max(most, obs[E.O_PLAY + q * E.MAX_T + t])
            tb[t] = weight * amt if mine <= most else 0.0
        if obs[E.O_TRIG] == E.TR_ORDERS:
            tb[t] += sign * push
    if kind == E.SC_PER_HAND:
        cb = weight * amt
    if obs[E.O_TRIG] == E.TR_RESHUFFLES:
        cb += sign * push * 0.5
    return cb


# "endgame", formerly "condition" (a clash with the market condition itself): the old name stays an alias, so
# older commands and results folders still play it
@strategy("muziris", "endgame", params={"card_weight": 0.3, "cond_weight": 0.8, "push": 0.5}, aliases=("condition",))
@njit(cache=True, inline="always")  # into the registry's dispatcher (see _features)
def endgame(obs, actions, n_actions, params, cfg):
    """Greedy, plus the drawn market condition: orders that raise its end scoring (new produce types, most
    orders, most of a type) count cond_weight x its amount extra, a card in hand is worth it under a
    per-card scoring, and when leading it hurries the end trigger (orders, reshuffles) by `push` coins of
    value per step (and slows it when behind)."""
    tb = np.zeros(E.MAX_T)
    cb = condition_values(obs, params[P_COND_WEIGHT], params[P_PUSH], tb)
    if obs[E.O_DKIND] != E.D_CHAR:
        return choose_option(obs, actions, n_actions, params[P_CARD_WEIGHT], tb, cb)
    return choose_character(obs, actions, n_actions, params[P_CARD_WEIGHT], tb, cb, NO_EXTRA)
