import numpy as np
from numba import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import greedy_scores, pick_best


@strategy("mughal", "dodger", params={"disaster_weight": 3.0, "level_weight": 0.25})
@njit(cache=True)
def dodger(obs, actions, n_actions, params, cfg):
    """Disaster dodger: never takes a Disaster while another card is on offer (disaster_weight on top of
    the penalty), so a Disaster stays in the hand for whoever is left with its last card; otherwise
    VT-if-scored-now with a strong preference for high levels (level_weight), keeping its totals high
    enough to absorb a Disaster dealt face up."""
    scores = np.empty(n_actions)
    greedy_scores(obs, actions, n_actions, params[1], scores)
    for a in range(n_actions):
        if actions[a, E.A_SUIT] == -1:
            scores[a] -= params[0]
    return pick_best(scores, n_actions)
