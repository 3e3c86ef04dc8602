import numpy as np
from sim.jit import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import others_max, vt_now


@strategy("mughal", "greedy", params={"level_weight": 0.01})
@njit(cache=True, _nrt=False)  # per decision, allocates nothing: no reference counting
def greedy(obs, actions, n_actions, params, cfg):
    """Most VT this turn if scoring happened now (majorities, all-suits, emperor, Disasters, against the
    tables as they stand); equal VT: the higher level (level_weight), then at random. Streams the argmax
    (no score array): this is the benchmark strategy."""
    p = obs[E.O_SEAT]
    omax, ofav = others_max(obs, cfg, p)
    best = -1e18
    count = 0
    choice = 0
    for a in range(n_actions):
        v = vt_now(obs, cfg, p, omax, ofav, actions[a, E.A_SUIT], actions[a, E.A_LEVEL]) \
            + params[P_LEVEL_WEIGHT] * actions[a, E.A_LEVEL]
        if v > best + 1e-9:
            best = v
            count = 1
            choice = a
        elif abs(v - best) <= 1e-9:
            count += 1
            if np.random.randint(0, count) == 0:
                choice = a
    return choice
