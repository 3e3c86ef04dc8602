"""Mohur: 2-player trading, best of three rounds (docs/mohur.md)."""
from sim.game import GameSpec
from sim.mohur.config import validate


def _trace(cfg, players, choices, seed, **which):  # which: game=K, batch_size=B of a run
    from sim.mohur.trace import trace
    return trace(cfg, choices, seed, **which)


GAME = GameSpec(
    name="mohur",
    title="Mohur",
    package="sim.mohur",
    min_players=2,
    max_players=2,
    default_players=2,
    validate=validate,
    batch_kernel="sim.mohur.kernel:run_batch",
    trace=_trace,
    strategy_args=("obs", "actions", "n_actions", "params", "cfg"),
    main_table="games",
    tables=("games", "rounds"),
    id_column="match",
    default_games=100_000,
    bench_lineup=("greedy", "greedy"),
)
