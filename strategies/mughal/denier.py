from sim.jit import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import NO_CARD, consider, greedy_score, others_max, vt_now


@strategy("mughal", "denier", params={"deny_weight": 1.0, "level_weight": 0.01})
@njit(cache=True, _nrt=False)  # per decision, allocates nothing: no reference counting
def denier(obs, actions, n_actions, params, cfg):
    """Takes what the next player in the passing direction most needs: own VT-if-scored-now plus
    deny_weight x the VT the card would add to the seat that receives this hand (its best suit for the
    card). No denial on declarations or on the last step (no hand passes after it)."""
    p = obs[E.O_SEAT]
    omax, ofav = others_max(obs, cfg, p)
    best_v, ties, choice = -1e18, 0, 0
    if actions[0, E.A_TYPE] != E.T_PLACE or obs[E.O_STEP] >= cfg[E.CFG_HAND]:
        for a in range(n_actions):  # streamed argmax: no score array per decision
            v = greedy_score(obs, cfg, actions, a, p, omax, ofav, params[P_LEVEL_WEIGHT])
            take, best_v, ties = consider(v, best_v, ties)
            if take:
                choice = a
        return choice
    q = obs[E.O_NEXT]
    qmax, qfav = others_max(obs, cfg, q)
    base = vt_now(obs, cfg, q, qmax, qfav, NO_CARD, 0)
    for a in range(n_actions):
        v = greedy_score(obs, cfg, actions, a, p, omax, ofav, params[P_LEVEL_WEIGHT])
        mask = actions[a, E.A_MASK]
        level = actions[a, E.A_LEVEL]
        best = vt_now(obs, cfg, q, qmax, qfav, E.DISASTER, 0) - base if mask == 0 else -1e9
        for k in range(E.NSUITS):
            if mask & (1 << k):
                best = max(best, vt_now(obs, cfg, q, qmax, qfav, k, level) - base)
        v += params[P_DENY_WEIGHT] * max(best, 0.0)
        take, best_v, ties = consider(v, best_v, ties)
        if take:
            choice = a
    return choice
