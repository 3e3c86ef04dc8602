"""`ismcts`: single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012).

Each iteration samples a world consistent with the observation (sim.muziris.determinize: the other players'
hands, the discard pile and the deck order are dealt from the unseen cards by their public sizes), walks one
shared tree of action histories with UCB over the options legal in that world (the "availability" count
replaces the parent's visits), adds one node, plays the game out with a rollout policy for every player (any
registered non-search strategy, called through the registry's rollout dispatcher, so numba never sees a
strategy calling itself) and backs the result up to each node for the player who chose there: that player's
win share (1 won, 1/k shared by k, 0 lost) plus `margin_weight` per coin of lead over the best rival. The
root's most visited option is played. It reads only `obs` and the public `cfg`.

Parameters: `iterations` per decision; `rollout`, the rollout policy: a heuristic strategy's name (a preset says
`rollout = "greedy"`; the registry puts its id in the vector), played
with its registered defaults; `exploration`, the UCB constant; `determinizations`, 0 for a fresh world every
iteration or D to cycle through D worlds sampled up front; `margin_weight`; `horizon`, 0 to play every
rollout to the end of the game, or R to stop it after R more round ends and score the coins then (the
market condition's end-of-game coins are not added to a cut rollout).
"""
import math

import numpy as np
from numba import njit

from sim import playout
from sim.interface import bind
from sim.muziris import engine as E
from sim.muziris.determinize import determinize
from sim.registry import (MAX_DETERMINIZATIONS, MAX_ITERATIONS, rollout_defaults, rollout_dispatcher,
                          strategy)
from strategies._search import most_visited, new_tree, rollout_id, ucb_root

ARGS = ("obs", "actions", "n_actions", "params", "cfg")


@njit(cache=True)
def action_key(actions, a):
    """An option row [decision, x, y] as one integer, the same in every world (y < 64: an order size, or the
    cards a take_type option takes, at most the Market's size; 0 when the count is not a choice)."""
    return (np.int64(actions[a, E.A_D]) * 64 + actions[a, E.A_X] + 1) * 64 + actions[a, E.A_Y]


@njit(cache=True)
def _rollout_choice(mode, sid, obs, actions, n_actions, params, cfg):
    """The play loop's CHOOSE for rollouts: the registry's rollout dispatcher (heuristic strategies only)."""
    return rollout_choose(sid, obs, actions, n_actions, params, cfg)


@njit(cache=True)
def rollout(s, cfg, sids, params, obs, actions, mover, horizon, no_log, no_states):
    """Play on from `s` with the rollout policy in `sids`/`params` for every player (sim.playout's loop), to the
    end of the game or, with horizon R > 0, until R more rounds have ended (one action per call of the loop)."""
    if horizon <= 0:
        rollout_play(s, cfg, sids, params, obs, actions, mover, 0, False, -1, no_log, no_states)
        return
    stop = s[E.S_ROUND] + horizon
    while not E.is_over(s) and s[E.S_ROUND] < stop:
        rollout_play(s, cfg, sids, params, obs, actions, mover, 0, False, 1, no_log, no_states)


@njit(cache=True)
def hand_value(s, cfg, p):
    """Coins the hand could still earn as orders: each produce split into orders of the largest size."""
    mo = cfg[E.CFG_MAXORD]
    v = 0
    for t in range(cfg[E.CFG_NT]):
        k = s[E.S_HAND + p * E.MAX_T + t]
        while k > 0:
            z = min(k, mo)
            v += cfg[E.CFG_VAL + t * E.MAX_ORD + z - 1]
            k -= z
    return v


@njit(cache=True)
def rewards(s, cfg, margin_weight, hand_weight, share, score, cond, rew):
    """rew[seat] <- win share + margin_weight x (own score - best rival's score). A finished game scores its
    coins; a rollout cut by the horizon scores coins + the market condition's end-of-game coins as if the
    game ended now + hand_weight x the hand's order value, and the best score wins (ties shared)."""
    np_ = s[E.S_NP]
    if E.is_over(s):
        E.returns(s, cfg, share)
        for p in range(np_):
            score[p] = s[E.S_COINS + p]
    else:
        E.condition_coins(s, cfg, cond)
        best, k = -1e300, 0
        for p in range(np_):
            score[p] = s[E.S_COINS + p] + cond[p] + hand_weight * hand_value(s, cfg, p)
            if score[p] > best:
                best, k = score[p], 1
            elif score[p] == best:
                k += 1
        for p in range(np_):
            share[p] = 1.0 / k if score[p] == best else 0.0
    for p in range(np_):
        rival = -1e300
        for q in range(np_):
            if q != p and score[q] > rival:
                rival = score[q]
        rew[p] = share[p] + margin_weight * (score[p] - rival)


@strategy("muziris", "ismcts", params={"iterations": 16.0, "rollout": "greedy", "exploration": 0.7,
                                       "determinizations": 0.0, "margin_weight": 0.05, "horizon": 4.0,
                                       "hand_weight": 0.0},
          search=True,
          bounds={"iterations": (1, MAX_ITERATIONS, True), "determinizations": (0, MAX_DETERMINIZATIONS, True),
                  "horizon": (0, 1000, True), "exploration": (0, 1000, False)})
@njit(cache=True)
def ismcts(obs, actions, n_actions, params, cfg):
    """Information-set MCTS: sampled worlds, one shared tree, rollouts with a heuristic (greedy by default)."""
    if n_actions <= 1:
        return 0
    iters = max(1, int(params[P_ITERATIONS]))
    rid = rollout_id(params[P_ROLLOUT], DEFAULT_ROLLOUT, ROLLOUT_PARAMS.shape[0])
    c = params[P_EXPLORATION]
    ndet = int(params[P_DETERMINIZATIONS])
    mw = params[P_MARGIN_WEIGHT]
    horizon = int(params[P_HORIZON])
    hw = params[P_HAND_WEIGHT]
    me = obs[E.O_SEAT]
    np_ = obs[E.O_NP]
    rsids = np.full(np_, rid, dtype=np.int64)
    rparams = np.empty((np_, ROLLOUT_PARAMS.shape[1]), dtype=np.float64)
    for p in range(np_):
        rparams[p] = ROLLOUT_PARAMS[rid]
    rmover = np.empty(ROLLOUT_PARAMS.shape[1], dtype=np.float64)
    no_log = np.zeros((0, 3 + E.ACOLS), dtype=np.int32)
    no_states = np.zeros((0, E.STATE_SIZE), dtype=np.int32)

    cap = 1 + n_actions + iters
    key, first, sib, mover, visits, total, avail, path = new_tree(cap)
    for i in range(n_actions):  # root child i + 1 <-> row i of the caller's legal options
        mover[1 + i] = me
    nn = 1 + n_actions

    s = E.new_state()
    buf = np.empty((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    robs = obs.copy()  # the static part (values, abilities, characters) is the same in every world
    share = np.zeros(E.MAX_P)
    score = np.zeros(E.MAX_P)
    cond = np.zeros(E.MAX_P, dtype=np.int64)
    rew = np.zeros(E.MAX_P)
    worlds = np.zeros((max(ndet, 0), E.STATE_SIZE), dtype=np.int32)
    for d in range(ndet):
        determinize(obs, cfg, worlds[d])

    for it in range(iters):
        if ndet > 0:
            s[:] = worlds[it % ndet]
        else:
            determinize(obs, cfg, s)
        # root: every legal option is available in every world; UCB1, unvisited options first
        pick = ucb_root(visits, total, n_actions, it, c)
        E.apply_action(s, cfg, actions, pick)
        node = 1 + pick
        path[0] = node
        plen = 1
        expanded = visits[node] == 0
        while not expanded and not E.is_over(s):
            p = E.current_player(s)
            n = E.legal_actions(s, cfg, buf)
            if n == 1:  # forced: not a decision, no node
                E.apply_action(s, cfg, buf, 0)
                continue
            nun, new_a, best, best_ch, best_a = 0, -1, -1e300, -1, -1
            for a in range(n):
                k = action_key(buf, a)
                ch = first[node]
                while ch >= 0 and (key[ch] != k or mover[ch] != p):
                    ch = sib[ch]
                if ch < 0:
                    nun += 1
                    if np.random.randint(0, nun) == 0:
                        new_a = a
                else:
                    avail[ch] += 1.0
                    v = total[ch] / visits[ch] + c * math.sqrt(math.log(avail[ch]) / visits[ch])
                    if v > best:
                        best, best_ch, best_a = v, ch, a
            if nun > 0 and nn < cap:
                ch = nn
                nn += 1
                key[ch] = action_key(buf, new_a)
                mover[ch] = p
                sib[ch] = first[node]
                first[node] = ch
                E.apply_action(s, cfg, buf, new_a)
                expanded = True
            elif best_ch >= 0:
                ch = best_ch
                E.apply_action(s, cfg, buf, best_a)
            else:
                break  # node budget spent: play out from here
            node = ch
            path[plen] = node
            plen += 1
        rollout(s, cfg, rsids, rparams, robs, buf, rmover, horizon, no_log, no_states)
        rewards(s, cfg, mw, hw, share, score, cond, rew)
        for i in range(plen):
            nd = path[i]
            visits[nd] += 1.0
            total[nd] += rew[mover[nd]]

    return most_visited(visits, total, n_actions)


# Resolved after registration (numba reads these globals when it compiles `ismcts`).
rollout_choose = rollout_dispatcher("muziris", ARGS)
rollout_play = bind(playout.play, "muziris_rollout", G=E, CHOOSE=_rollout_choice)
ROLLOUT_PARAMS, DEFAULT_ROLLOUT = rollout_defaults("muziris")
