from sim.jit import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import consider, greedy_score, seat_now


@strategy("mughal", "specialist", params={"suit": 0.0, "focus": 1.0, "level_weight": 0.01},
          bounds={"suit": (0, 3, True)})  # 0 military, 1 building, 2 culture, 3 wealth
@njit(cache=True, _nrt=False)  # per decision, allocates nothing: no reference counting
def specialist(obs, actions, n_actions, params, cfg):
    """Builds one suit (suit: 0 military, 1 building, 2 culture, 3 wealth; presets specialist-<suit>):
    VT-if-scored-now plus focus x level for a card placed (or declared) in that suit."""
    seat = seat_now(obs, cfg, obs[E.O_SEAT])
    suit = int(params[P_SUIT])
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):  # streamed argmax: no score array per decision
        v = greedy_score(obs, cfg, actions, a, seat, params[P_LEVEL_WEIGHT])
        if actions[a, E.A_SUIT] == suit:
            v += params[P_FOCUS] * actions[a, E.A_LEVEL]
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice
