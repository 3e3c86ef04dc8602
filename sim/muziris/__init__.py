"""Merchants of Muziris: 2-4 players pick characters to take produce and fulfil orders (docs/muziris.md)."""
from sim.game import GameSpec

GAME = GameSpec(
    name="muziris",
    title="Merchants of Muziris",
    min_players=2,
    max_players=4,
    default_players=3,
    tables=("games", "players", "picks", "characters", "orders"),
    bench_lineup=("greedy", "greedy", "greedy"),
    compile_weight=1.6,  # 30 CPU-s against Mohur's and Mughal's 19 (docs/speed.md)
)
