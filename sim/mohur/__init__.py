"""Mohur: 2-player trading, best of three rounds (docs/mohur.md)."""
from sim.game import GameSpec


def trace_match(cfg, players, choices, seed, **which):
    """sim.mohur.trace.trace under the trace room's signature (it takes no player count: always two)."""
    from sim.mohur.trace import trace
    return trace(cfg, choices, seed, **which)


GAME = GameSpec(
    name="mohur",
    title="Mohur",
    min_players=2,
    max_players=2,
    default_players=2,
    tables=("games", "rounds"),
    id_column="match",
    bench_lineup=("greedy", "greedy"),
    trace_driver="sim.mohur:trace_match",
)
