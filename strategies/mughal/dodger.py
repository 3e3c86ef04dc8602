from sim.jit import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import consider, greedy_score, seat_now


@strategy("mughal", "dodger", params={"disaster_weight": 3.0, "level_weight": 0.25})
@njit(cache=True, _nrt=False)  # per decision, allocates nothing: no reference counting
def dodger(obs, actions, n_actions, params, cfg):
    """Disaster dodger: never takes a Disaster while another card is on offer (disaster_weight on top of
    the penalty), so a Disaster stays in the hand for whoever is left with its last card; otherwise
    VT-if-scored-now with a strong preference for high levels (level_weight), keeping its totals high
    enough to absorb a Disaster dealt face up."""
    seat = seat_now(obs, cfg, obs[E.O_SEAT])
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):  # streamed argmax: no score array per decision
        v = greedy_score(obs, cfg, actions, a, seat, params[P_LEVEL_WEIGHT])
        if actions[a, E.A_SUIT] == -1:
            v -= params[P_DISASTER_WEIGHT]
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice
