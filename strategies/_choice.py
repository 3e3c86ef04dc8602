"""Choosing among scored actions, shared by the strategies of every game. Ties are broken uniformly at random
with numba's generator (seeded per game), so runs stay reproducible."""
import numpy as np
from sim.jit import njit


@njit(cache=True)
def consider(score, best, ties):
    """Streaming argmax with uniform random tie-breaks: returns (choose_this, best, ties)."""
    if score > best + 1e-9:
        return True, score, 1
    if score >= best - 1e-9:
        ties += 1
        return np.random.randint(0, ties) == 0, best, ties
    return False, best, ties
