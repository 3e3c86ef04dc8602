import numpy as np
from numba import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import greedy_scores, pick_best


@strategy("mughal", "specialist", params={"suit": 0.0, "focus": 1.0, "level_weight": 0.01})
@njit(cache=True)
def specialist(obs, actions, n_actions, params, cfg):
    """Builds one suit (suit: 0 military, 1 building, 2 culture, 3 wealth; presets specialist-<suit>):
    VT-if-scored-now plus focus x level for a card placed (or declared) in that suit."""
    scores = np.empty(n_actions)
    greedy_scores(obs, actions, n_actions, params[2], scores)
    suit = int(params[0])
    for a in range(n_actions):
        if actions[a, E.A_SUIT] == suit:
            scores[a] += params[1] * actions[a, E.A_LEVEL]
    return pick_best(scores, n_actions)
