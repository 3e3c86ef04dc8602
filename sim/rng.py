"""Seeds for numba's generator, derived per game from the batch seed (so a game's numbers do not depend on the
games before it: common random numbers game by game), and Mohur's per-round deal streams."""
import numpy as np
from sim.jit import njit

DEFAULT_BATCH = 2000  # games per batch: a batch is the unit of work, of saving and of its own seed


def batch_seed(root: int, b: int) -> int:
    """Seed of batch b: child b of SeedSequence(root), made on its own so a plan of any size needs no list."""
    child = np.random.SeedSequence(root, spawn_key=(b,))  # what SeedSequence(root).spawn(n)[b] is
    return int(child.generate_state(1, dtype=np.uint32)[0])


def batch_seeds(root: int, n_batches: int) -> list[int]:
    return [batch_seed(root, b) for b in range(n_batches)]


def game_origin(seed: int, game: int, batch_size: int = DEFAULT_BATCH) -> tuple[int, int]:
    """(batch seed, index within its batch) of game `game` of a run: what a trace needs to replay it."""
    b, local = divmod(int(game), int(batch_size))
    return batch_seed(seed, b), local  # made on its own: no list of the b seeds before it


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


# A counter-based stream for dealing: seeding numba's Mersenne Twister costs 1.3 us and each np.random draw a C
# call; splitmix64 is one word of state, so a deal has its own stream per (batch seed, game, round) at no cost.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def deal_seed(batch_seed, game, part):
    """The 63-bit start of one deal's stream, int64 so Python callers and kernels hand `deal_round` one type."""
    z = np.uint64(game_seed(batch_seed, game, part)) * _GOLDEN
    z = z ^ (np.uint64(part) << np.uint64(32)) ^ np.uint64(game)
    return np.int64(z >> np.uint64(1))


@njit(cache=True)
def below(state, n):
    """(next state, an integer in [0, n)) from a splitmix64 stream; multiply-shift's bias is under n / 2**32."""
    state = np.uint64(state) + _GOLDEN  # the cast keeps int64 callers from promoting to float
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return state, np.int64(((z >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
