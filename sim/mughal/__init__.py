"""Mughal: 2-8 players, seven emperors' turns of simultaneous card drafting (docs/mughal.md)."""
from sim.game import GameSpec
from sim.mughal.config import validate


def _trace(cfg, players, choices, seed, **which):  # which: game=K, batch_size=B of a run
    from sim.mughal.trace import trace
    return trace(cfg, players, choices, seed, **which)


GAME = GameSpec(
    name="mughal",
    title="Mughal",
    package="sim.mughal",
    min_players=2,
    max_players=8,
    default_players=4,
    validate=validate,
    batch_kernel="sim.mughal.kernel:run_batch",
    trace=_trace,
    strategy_args=("obs", "actions", "n_actions", "params", "cfg"),
    main_table="games",
    tables=("games", "players", "picks"),
    id_column="game",
    default_games=100_000,
    bench_lineup=("greedy", "greedy", "greedy", "greedy"),
)
