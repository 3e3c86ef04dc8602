"""numba helpers the search players of every game share."""
from numba import njit


@njit(cache=True)
def most_visited(visits, total, n_actions):
    """The root child (children stored at 1..n_actions) visited most; ties go to the higher mean reward."""
    choice, most, mean = 0, -1.0, -1e300
    for i in range(n_actions):
        v = visits[1 + i]
        m = total[1 + i] / v if v > 0 else -1e300
        if v > most or (v == most and m > mean):
            choice, most, mean = i, v, m
    return choice
