"""Merchants of Muziris: 2-4 players pick characters to take produce and fulfil orders (docs/muziris.md)."""
from sim.game import GameSpec
from sim.muziris.config import validate


def _trace(cfg, players, choices, seed, **which):  # which: game=K, batch_size=B of a run
    from sim.muziris.trace import trace
    return trace(cfg, players, choices, seed, **which)


GAME = GameSpec(
    name="muziris",
    title="Merchants of Muziris",
    package="sim.muziris",
    min_players=2,
    max_players=4,
    default_players=3,
    validate=validate,
    batch_kernel="sim.muziris.kernel:run_batch",
    trace=_trace,
    strategy_args=("obs", "actions", "n_actions", "params", "cfg"),
    main_table="games",
    tables=("games", "players", "picks", "characters", "orders"),
    id_column="game",
    default_games=100_000,
    bench_lineup=("greedy", "greedy", "greedy"),
)
