"""Seeds for numba's generator, derived per game (and per round) from the batch seed.

Re-seeding every game from (batch seed, game, part) makes a game's random numbers independent of what the games
before it did, so sweep variants share them game by game (common random numbers), not only until the first
game whose length differs.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def game_seed(batch_seed, game, part):
    """A well-mixed 32-bit seed (splitmix64 finaliser over the three numbers)."""
    z = np.uint64(batch_seed) * np.uint64(0x9E3779B97F4A7C15)
    z ^= np.uint64(game) * np.uint64(0xBF58476D1CE4E5B9)
    z ^= np.uint64(part) * np.uint64(0x94D049BB133111EB)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.uint32(z & np.uint64(0xFFFFFFFF))


@njit(cache=True)
def reseed(batch_seed, game, part):
    np.random.seed(game_seed(batch_seed, game, part))
