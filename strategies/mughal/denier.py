import numpy as np
from numba import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import greedy_scores, others_max, pick_best, vt_now


@strategy("mughal", "denier", params={"deny_weight": 1.0, "level_weight": 0.01})
@njit(cache=True)
def denier(obs, actions, n_actions, params, cfg):
    """Takes what the next player in the passing direction most needs: own VT-if-scored-now plus
    deny_weight x the VT the card would add to the seat that receives this hand (its best suit for the
    card). No denial on declarations or on the last step (no hand passes after it)."""
    scores = np.empty(n_actions)
    greedy_scores(obs, actions, n_actions, params[1], scores)
    if actions[0, E.A_TYPE] != E.T_PLACE or obs[E.O_STEP] >= obs[E.O_HAND_SIZE]:
        return pick_best(scores, n_actions)
    q = obs[E.O_NEXT]
    omax, ofav = others_max(obs, q)
    base = vt_now(obs, q, omax, ofav, -2, 0)
    for a in range(n_actions):
        mask = actions[a, E.A_MASK]
        level = actions[a, E.A_LEVEL]
        best = vt_now(obs, q, omax, ofav, -1, 0) - base if mask == 0 else -1e9
        for k in range(E.NSUITS):
            if mask & (1 << k):
                best = max(best, vt_now(obs, q, omax, ofav, k, level) - base)
        scores[a] += params[0] * max(best, 0.0)
    return pick_best(scores, n_actions)
