from sim.jit import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import NO_CARD, consider, greedy_score, seat_now, vt_now


@strategy("mughal", "denier", params={"deny_weight": 1.0, "level_weight": 0.01})
@njit(cache=True, _nrt=False)  # per decision, allocates nothing: no reference counting
def denier(obs, actions, n_actions, params, cfg):
    """Takes what the next player in the passing direction most needs: own VT-if-scored-now plus
    deny_weight x the VT the card would add to the seat that receives this hand (its best suit for the
    card). No denial on declarations or on the last step (no hand passes after it)."""
    seat = seat_now(obs, cfg, obs[E.O_SEAT])
    deny = actions[0, E.A_TYPE] == E.T_PLACE and obs[E.O_STEP] < cfg[E.CFG_HAND]
    receiver = seat_now(obs, cfg, obs[E.O_NEXT])
    base = vt_now(obs, cfg, receiver, NO_CARD, 0)
    disaster_gain = vt_now(obs, cfg, receiver, E.DISASTER, 0) - base   # the same for every Disaster: once
    best_v, ties, choice = -1e18, 0, 0
    for a in range(n_actions):  # streamed argmax: no score array per decision
        v = greedy_score(obs, cfg, actions, a, seat, params[P_LEVEL_WEIGHT])
        if deny:
            mask = actions[a, E.A_MASK]
            level = actions[a, E.A_LEVEL]
            gain = disaster_gain if mask == 0 else -1e9
            for k in range(E.NSUITS):
                if mask & (1 << k):
                    gain = max(gain, vt_now(obs, cfg, receiver, k, level) - base)
            v += params[P_DENY_WEIGHT] * max(gain, 0.0)
        take, best_v, ties = consider(v, best_v, ties)
        if take:
            choice = a
    return choice
