"""Seeds for numba's generator, derived per game from the batch seed, and Mohur's per-round deal streams.

Re-seeding every game from (batch seed, game, part) makes a game's random numbers independent of what the games
before it did, so sweep variants share them game by game (common random numbers), not only until the first
game whose length differs.
"""
import numpy as np
from sim.jit import njit


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


# A counter-based stream for dealing: seeding numba's Mersenne Twister costs about 1.3 us (it fills 624 words)
# and every np.random draw fetches the thread's generator through a C call, so a deal that shuffles a
# 55-card deck through np.random costs about 1 us. splitmix64 needs one 64-bit word of state and is seeded by
# a hash, so a deal can have its own stream per (batch seed, game, round) at no cost.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def deal_seed(batch_seed, game, part):
    """The starting state of one deal's stream: 63 bits, returned as int64 so that Python callers (the trace,
    tests) and kernels hand `deal_round` the same type."""
    z = np.uint64(game_seed(batch_seed, game, part)) * _GOLDEN
    z = z ^ (np.uint64(part) << np.uint64(32)) ^ np.uint64(game)
    return np.int64(z >> np.uint64(1))


@njit(cache=True)
def below(state, n):
    """(next state, an integer in [0, n)) from a splitmix64 stream. Multiply-shift on 32 random bits: the bias
    is under n / 2**32 (1e-8 for a 55-card deck)."""
    state = np.uint64(state) + _GOLDEN  # the cast keeps int64 callers from promoting to float
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return state, np.int64(((z >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
