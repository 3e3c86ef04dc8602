"""`ismcts`: single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012).

Each iteration samples a world consistent with the observation (sim.mohur.determinize: the rival's hand from
the unseen cards, holding the cards known to be in it; the deck order; the bonus piles and hidden bonus
values), walks one shared tree of action histories with UCB over the actions legal in that world (the
"availability" count replaces the parent's visits), adds one node, plays the round out with a rollout policy
(any registered non-search strategy, called through the registry's rollout dispatcher, so numba never sees a
strategy calling itself) and backs the result up: 1 for a won round, 1/2 drawn, 0 lost, plus `margin_weight`
per rupee of margin. The root's most visited action is played. It reads only `obs` and the public `cfg`.

Parameters: `iterations` per decision; `rollout`, the rollout policy: a heuristic strategy's name (a preset says
`rollout = "greedy"`; the registry puts its id in the vector), played with its
registered defaults; `exploration`, the UCB constant; `determinizations`, 0 for a fresh world every iteration
or D to cycle through D worlds sampled up front; `margin_weight`.
"""
import math

import numpy as np
from numba import njit

from sim import playout
from sim.interface import bind
from sim.mohur import engine as E
from sim.mohur.determinize import determinize
from sim.registry import (MAX_DETERMINIZATIONS, MAX_ITERATIONS, rollout_defaults, rollout_dispatcher,
                          strategy)
from strategies._search import most_visited, new_tree, rollout_id, ucb_root

ARGS = ("obs", "actions", "n_actions", "params", "cfg")


@njit(cache=True)
def action_key(actions, a):
    """An action row as one integer (type, good, count, take and give per kind), the same in every world."""
    k = np.int64(actions[a, E.A_TYPE])
    k = k * 8 + actions[a, E.A_GOOD] + 1
    k = k * 32 + min(actions[a, E.A_COUNT], 31)
    for i in range(E.NK):
        k = k * 8 + min(actions[a, E.A_TAKE + i], 7)
    for i in range(E.NK):
        k = k * 8 + min(actions[a, E.A_GIVE + i], 7)
    return k


@njit(cache=True)
def _rollout_choose(mode, sid, obs, actions, n_actions, params, cfg):
    """The rollout dispatcher in the play loop's calling convention (no mode: heuristics only)."""
    return rollout_choose(sid, obs, actions, n_actions, params, cfg)


@njit(cache=True)
def round_rewards(s, cfg, margin_weight, scored, rew):
    """rew[seat] <- 1 won / 0.5 drawn / 0 lost, plus margin_weight x (own rupees - rival's)."""
    E.score_round(s, cfg, scored)
    for seat in range(2):
        w = scored[3]
        res = 0.5 if w < 0 else (1.0 if w == seat else 0.0)
        rew[seat] = res + margin_weight * (scored[seat] - scored[1 - seat])


@strategy("mohur", "ismcts", params={"iterations": 16.0, "rollout": "greedy", "exploration": 0.7,
                                     "determinizations": 0.0, "margin_weight": 0.1}, search=True,
          bounds={"iterations": (1, MAX_ITERATIONS, True), "determinizations": (0, MAX_DETERMINIZATIONS, True),
                  "exploration": (0, 1000, False)})
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
    rsids = np.full(2, rid, dtype=np.int64)  # both traders play the rollout policy
    rparams = np.empty((2, ROLLOUT_PARAMS.shape[1]))
    for j in range(ROLLOUT_PARAMS.shape[1]):
        rparams[0, j] = rparams[1, j] = ROLLOUT_PARAMS[rid, j]
    rmover = np.empty(ROLLOUT_PARAMS.shape[1])
    no_log = np.zeros((0, 3 + E.ACOLS), dtype=np.int32)
    no_states = np.zeros((0, E.STATE_SIZE), dtype=np.int32)
    me = obs[E.O_SEAT]

    cap = 1 + n_actions + iters
    key, first, sib, mover, visits, total, avail, path = new_tree(cap)
    for i in range(n_actions):  # root child i + 1 <-> row i of the caller's legal actions
        mover[1 + i] = me
    nn = 1 + n_actions

    s = E.new_state()
    buf = np.empty((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    robs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    scored = np.zeros(5, dtype=np.int32)
    rew = np.zeros(2)
    worlds = np.zeros((max(ndet, 0), E.STATE_SIZE), dtype=np.int32)
    for d in range(ndet):
        determinize(obs, cfg, worlds[d])

    for it in range(iters):
        if ndet > 0:
            s[:] = worlds[it % ndet]
        else:
            determinize(obs, cfg, s)
        # root: every legal action is available in every world; UCB1, unvisited actions first
        pick = ucb_root(visits, total, n_actions, it, c)
        E.apply_action(s, cfg, actions, pick)  # a sampled world ends with its round (determinize)
        node = 1 + pick
        path[0] = node
        plen = 1
        expanded = visits[node] == 0
        while not expanded and not E.is_over(s):
            p = s[E.S_CUR]
            n = E.legal_actions(s, cfg, buf)
            if buf[0, E.A_TYPE] == E.T_PASS:  # a forced pass is no choice: no node
                E.apply_action(s, cfg, buf, 0)
                continue
            nun, new_a, best, best_ch, best_a = 0, -1, -1e300, -1, -1
            for a in range(n):
                k = action_key(buf, a)
                ch = first[node]
                while ch >= 0 and key[ch] != k:
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
        rollout(s, cfg, rsids, rparams, robs, buf, rmover, 0, False, -1, no_log, no_states)
        round_rewards(s, cfg, mw, scored, rew)
        for i in range(plen):
            nd = path[i]
            visits[nd] += 1.0
            total[nd] += rew[mover[nd]]

    return most_visited(visits, total, n_actions)


# Resolved after registration (numba reads these globals when it compiles `ismcts`).
rollout_choose = rollout_dispatcher("mohur", ARGS)
rollout = bind(playout.play, "mohur_rollout", G=E, CHOOSE=_rollout_choose)  # the one play loop, for rollouts
ROLLOUT_PARAMS, DEFAULT_ROLLOUT = rollout_defaults("mohur")
