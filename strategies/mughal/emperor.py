from sim.jit import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import consider, greedy_score, seat_now, strongest_suit


@strategy("mughal", "emperor", params={"emperor_weight": 1.0, "coming_weight": 0.0, "level_weight": 0.01})
@njit(cache=True, _nrt=False)  # per decision, allocates nothing: no reference counting
def emperor_chaser(obs, actions, n_actions, params, cfg):
    """Plays to the emperors' favoured suits: VT-if-scored-now plus emperor_weight x level for a card in a
    suit the current emperor favours ("any": the seat's strongest suit, since the favoured total is the
    highest suit total) and coming_weight x level for a suit the next emperor favours. Tables are cleared
    every turn, so only the current emperor can pay for today's cards: coming_weight defaults to 0."""
    seat = seat_now(obs, cfg, obs[E.O_SEAT])
    t = obs[E.O_TURN] - 1
    mask = cfg[E.CFG_EMP_MASK + t]
    if mask == 15:
        mask = 1 << strongest_suit(obs, obs[E.O_SEAT])
    nxt = cfg[E.CFG_EMP_MASK + t + 1] if t + 1 < cfg[E.CFG_NTURNS] else 0
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):  # streamed argmax: no score array per decision
        v = greedy_score(obs, cfg, actions, a, seat, params[P_LEVEL_WEIGHT])
        k = actions[a, E.A_SUIT]
        if k >= 0:
            if mask & (1 << k):
                v += params[P_EMPEROR_WEIGHT] * actions[a, E.A_LEVEL]
            if nxt & (1 << k):
                v += params[P_COMING_WEIGHT] * actions[a, E.A_LEVEL]
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice
