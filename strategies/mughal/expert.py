"""`ismcts`: determinized Monte Carlo search over this step's choices (flat information-set MCTS).

Mughal's choices are simultaneous and a turn's tables are scored and cleared at its end, so the search is flat:
the root's candidates are this step's choices (a card and its declared suit, or a destiny card's suit; choices
that place the same suits and level are merged). Each iteration samples a world consistent with the observation
(sim.mughal.determinize: the hands this seat has not seen drawn from the unseen cards, the deck shuffled),
applies the candidate while every other seat chooses from the same pre-step state with the rollout policy
(any registered non-search strategy, called through the registry's rollout dispatcher, so numba never sees a
strategy calling itself, and played by the one play loop of sim.playout bound to it), plays the turn on with the rollout policy for every seat (`horizon` 0) or the whole
game (`horizon` 1), and scores it. Reward (horizon 0): (1 - `versus_best`) x (this turn's VT minus the mean of
the other seats') + `versus_best` x (VT lead over the best other seat after the turn); horizon 1: win share plus
`margin_weight` x final VT margin over the best other seat. Candidates are chosen
by UCB1 (`exploration` > 0, in VT units) or, with `exploration` 0, in rounds where every candidate is played
out in the same sampled world (common random numbers). The best mean is played. It reads only `obs` and the
public `cfg`.

Parameters: `iterations` (playouts per decision), `rollout` (a heuristic strategy's name, e.g. "greedy"; the
registry puts its id in the vector), `exploration`,
`determinizations` (0: a fresh world every iteration / round; D: D worlds sampled up front and cycled),
`horizon`, `margin_weight`, `versus_best`.
"""
import math

import numpy as np
from numba import njit

from sim import playout as playout_template
from sim.interface import bind
from sim.mughal import engine as E
from sim.mughal.determinize import determinize
from sim.registry import (MAX_DETERMINIZATIONS, MAX_ITERATIONS, rollout_defaults, rollout_dispatcher,
                          strategy)
from strategies._search import rollout_id

ARGS = ("obs", "actions", "n_actions", "params", "cfg")


@njit(cache=True)
def playout(s, cfg, me, row, horizon, mw, vb, rids, rparams, robs, buf, mover, sc, share, log, states):
    """Apply this seat's candidate `row` in the sampled world `s` (the seats choosing before it in this round
    by the rollout policy, from the same state), play on by the rollout policy, return the reward."""
    P = s[E.S_NP]
    s[E.S_STOP_AT_TURN_END] = 1 if horizon == 0 else 0
    while E.current_player(s) != me and not E.is_over(s):
        rollout_play(s, cfg, rids, rparams, robs, buf, mover, 0, False, 1, log, states)
    for col in range(E.ACOLS):
        buf[0, col] = row[col]
    E.apply_action(s, cfg, buf, 0)
    rollout_play(s, cfg, rids, rparams, robs, buf, mover, 0, False, -1, log, states)
    if horizon == 0:
        E.score_turn(s, cfg, sc)
        mine = 0.0
        others = 0.0
        top = -1e300
        for p in range(P):
            v = sc[E.SC_MAJ + p] + sc[E.SC_ALL + p] + sc[E.SC_EMP + p] + sc[E.SC_DIS + p]
            if p == me:
                mine = v
            else:
                others += v
                top = max(top, s[E.S_VT + p])  # scored: the VT after this turn
        return (1.0 - vb) * (mine - others / (P - 1)) + vb * (s[E.S_VT + me] - top)
    E.returns(s, cfg, share)
    best = -(1 << 30)
    for p in range(P):
        if p != me and s[E.S_VT + p] > best:
            best = s[E.S_VT + p]
    return share[me] + mw * (s[E.S_VT + me] - best)


@njit(cache=True)
def candidate_key(actions, a):
    """Choices that put the same suits and level on the table in the same suit play alike."""
    return ((actions[a, E.A_TYPE] * 64 + actions[a, E.A_MASK]) * 8 + actions[a, E.A_SUIT] + 2) * 4096 \
        + actions[a, E.A_LEVEL]


@strategy("mughal", "ismcts", params={"iterations": 32.0, "rollout": "greedy", "exploration": 0.0,
                                      "determinizations": 0.0, "horizon": 0.0, "margin_weight": 0.05,
                                      "versus_best": 0.5},
          search=True,
          bounds={"iterations": (1, MAX_ITERATIONS, True), "determinizations": (0, MAX_DETERMINIZATIONS, True),
                  "horizon": (0, 1, True), "exploration": (0, 1000, False)})
@njit(cache=True)
def ismcts(obs, actions, n_actions, params, cfg):
    """Determinized flat search: sampled worlds, other seats and the rest of the turn by a rollout policy."""
    if n_actions <= 1:
        return 0
    # candidates: one representative per distinct choice
    rep = np.empty(n_actions, dtype=np.int64)
    nc = 0
    for a in range(n_actions):
        k = candidate_key(actions, a)
        dup = False
        for i in range(nc):
            if candidate_key(actions, rep[i]) == k:
                dup = True
                break
        if not dup:
            rep[nc] = a
            nc += 1
    if nc == 1:
        return 0
    iters = max(1, int(params[P_ITERATIONS]))
    rid = rollout_id(params[P_ROLLOUT], DEFAULT_ROLLOUT, ROLLOUT_PARAMS.shape[0])
    c = params[P_EXPLORATION]
    ndet = int(params[P_DETERMINIZATIONS])
    horizon = int(params[P_HORIZON])
    mw = params[P_MARGIN_WEIGHT]
    vb = params[P_VERSUS_BEST]
    me = obs[E.O_SEAT]
    rids = np.full(E.MAX_PLAYERS, rid, dtype=np.int64)   # every seat of a rollout plays the rollout policy
    rparams = np.zeros((E.MAX_PLAYERS, ROLLOUT_PARAMS.shape[1]), dtype=np.float64)
    for p in range(E.MAX_PLAYERS):
        for j in range(ROLLOUT_PARAMS.shape[1]):  # element loop: a slice copy costs seconds of compile
            rparams[p, j] = ROLLOUT_PARAMS[rid, j]
    mover = np.zeros(ROLLOUT_PARAMS.shape[1], dtype=np.float64)
    log = np.zeros((0, 0), dtype=np.int32)   # rollouts record nothing
    states = np.zeros((0, E.STATE_SIZE), dtype=np.int32)

    world = E.new_state()
    s = E.new_state()
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    robs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    row = np.zeros(E.ACOLS, dtype=np.int32)
    sc = np.zeros(E.SC_SIZE, dtype=np.int32)
    share = np.zeros(E.MAX_PLAYERS, dtype=np.float64)
    worlds = np.zeros((max(ndet, 0), E.STATE_SIZE), dtype=np.int32)
    for d in range(ndet):
        determinize(obs, cfg, worlds[d])
    visits = np.zeros(nc)
    total = np.zeros(nc)

    if c <= 0.0:  # rounds: every candidate in the same world
        rounds = max(1, iters // nc)
        for r in range(rounds):
            if ndet > 0:
                world[:] = worlds[r % ndet]
            else:
                determinize(obs, cfg, world)
            for i in range(nc):
                s[:] = world
                for col in range(E.ACOLS):
                    row[col] = actions[rep[i], col]
                total[i] += playout(s, cfg, me, row, horizon, mw, vb, rids, rparams, robs, buf, mover, sc, share,
                                    log, states)
                visits[i] += 1.0
    else:
        for it in range(iters):
            pick, nun, best = -1, 0, -1e300
            logn = math.log(it + 1.0)
            for i in range(nc):
                if visits[i] == 0:
                    nun += 1
                    if np.random.randint(0, nun) == 0:
                        pick = i
                elif nun == 0:
                    v = total[i] / visits[i] + c * math.sqrt(logn / visits[i])
                    if v > best:
                        best, pick = v, i
            if ndet > 0:
                s[:] = worlds[it % ndet]
            else:
                determinize(obs, cfg, s)
            for col in range(E.ACOLS):
                row[col] = actions[rep[pick], col]
            total[pick] += playout(s, cfg, me, row, horizon, mw, vb, rids, rparams, robs, buf, mover, sc, share,
                                   log, states)
            visits[pick] += 1.0

    choice, mean = 0, -1e300
    for i in range(nc):
        if visits[i] > 0 and total[i] / visits[i] > mean:
            choice, mean = i, total[i] / visits[i]
    return rep[choice]


# Resolved after registration (numba reads these globals when it compiles `ismcts`).
rollout_choose = rollout_dispatcher("mughal", ARGS)
ROLLOUT_PARAMS, DEFAULT_ROLLOUT = rollout_defaults("mughal")


@njit(cache=True)
def _rollout_choose(mode, sid, obs, actions, n_actions, params, cfg):
    """The play loop's dispatcher signature over the non-search strategies (-1 for a search strategy: the
    play loop refuses it)."""
    return rollout_choose(sid, obs, actions, n_actions, params, cfg)


rollout_play = bind(playout_template.play, "mughal_rollout", G=E, CHOOSE=_rollout_choose)
