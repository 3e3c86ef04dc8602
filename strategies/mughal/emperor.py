import numpy as np
from numba import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import greedy_scores, pick_best, strongest_suit


@strategy("mughal", "emperor", params={"emperor_weight": 1.0, "coming_weight": 0.0, "level_weight": 0.01})
@njit(cache=True)
def emperor_chaser(obs, actions, n_actions, params, cfg):
    """Plays to the emperors' favoured suits: VT-if-scored-now plus emperor_weight x level for a card in a
    suit the current emperor favours ("any": the seat's strongest suit, since the favoured total is the
    highest suit total) and coming_weight x level for a suit the next emperor favours. Tables are cleared
    every turn, so only the current emperor can pay for today's cards: coming_weight defaults to 0."""
    scores = np.empty(n_actions)
    greedy_scores(obs, actions, n_actions, params[2], scores)
    t = obs[E.O_TURN] - 1
    mask = obs[E.O_EMP_MASK + t]
    if mask == 15:
        mask = 1 << strongest_suit(obs, obs[E.O_SEAT])
    nxt = obs[E.O_EMP_MASK + t + 1] if t + 1 < obs[E.O_NTURNS] else 0
    for a in range(n_actions):
        k = actions[a, E.A_SUIT]
        if k >= 0:
            if mask & (1 << k):
                scores[a] += params[0] * actions[a, E.A_LEVEL]
            if nxt & (1 << k):
                scores[a] += params[1] * actions[a, E.A_LEVEL]
    return pick_best(scores, n_actions)
