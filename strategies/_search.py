"""numba helpers the search players of every game share."""
import math

import numpy as np
from numba import njit


@njit(cache=True)
def ucb_root(visits, total, n_actions, it, c):
    """UCB1 over the root's children 1..n_actions (every legal action exists in every sampled world): an
    unvisited child first, uniformly among them; else the best mean reward plus c * sqrt(log(it + 1) / visits)."""
    pick, nun, best = -1, 0, -1e300
    logn = math.log(it + 1.0)
    for i in range(n_actions):
        ch = 1 + i
        if visits[ch] == 0:
            nun += 1
            if np.random.randint(0, nun) == 0:
                pick = i
        elif nun == 0:
            v = total[ch] / visits[ch] + c * math.sqrt(logn / visits[ch])
            if v > best:
                best, pick = v, i
    return pick


@njit(cache=True)
def most_visited(visits, total, n_actions):
    """The root child (children stored at 1..n_actions) visited most; ties go to the higher mean reward."""
    choice, most, mean = 0, -1.0, -1e300
    for i in range(n_actions):
        v = visits[1 + i]
        m = total[1 + i] / v if v > 0 else -1e300
        if v > most or (v == most and m > mean):
            choice, most, mean = i, v, m
    return choice


@njit(cache=True)
def rollout_id(param, default, n_strategies):
    """The rollout policy's strategy id from its parameter: negative = the default policy."""
    rid = int(param)
    if rid < 0:
        rid = default
    if rid >= n_strategies:
        raise ValueError("ismcts: rollout strategy id out of range")
    return rid


@njit(cache=True)
def new_tree(cap):
    """Arrays of a search tree of at most `cap` nodes (node 0 the root): action key, first child, next
    sibling, player to move, visits, total reward, availability count, and the path of one iteration."""
    return (np.zeros(cap, dtype=np.int64), np.full(cap, -1, dtype=np.int32), np.full(cap, -1, dtype=np.int32),
            np.zeros(cap, dtype=np.int32), np.zeros(cap, dtype=np.float64), np.zeros(cap, dtype=np.float64),
            np.ones(cap, dtype=np.float64), np.zeros(cap, dtype=np.int32))
