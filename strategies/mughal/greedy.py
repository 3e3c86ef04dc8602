from sim.jit import njit

from sim.mughal import engine as E
from sim.registry import strategy
from strategies.mughal._features import consider, greedy_score, seat_now


@strategy("mughal", "greedy", params={"level_weight": 0.01})
@njit(cache=True, _nrt=False)  # per decision, allocates nothing: no reference counting
def greedy(obs, actions, n_actions, params, cfg):
    """Most VT this turn if scoring happened now (majorities, all-suits, emperor, Disasters, against the
    tables as they stand); equal VT: the higher level (level_weight), then at random. Streams the argmax
    (no score array): this is the benchmark strategy."""
    seat = seat_now(obs, cfg, obs[E.O_SEAT])
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):
        take, best, ties = consider(greedy_score(obs, cfg, actions, a, seat, params[P_LEVEL_WEIGHT]), best, ties)
        if take:
            choice = a
    return choice
