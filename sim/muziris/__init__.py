"""Merchants of Muziris: 2-4 players pick characters to take produce and fulfil orders (docs/muziris.md)."""
from sim.game import GameSpec

GAME = GameSpec(
    name="muziris",
    title="Merchants of Muziris",
    min_players=2, max_players=4, default_players=3,
    tables=("games", "players", "picks", "characters", "orders"),
    compile_weight=1.4,  # ~26 CPU-s of cold compile against Mohur's and Mughal's ~19 (docs/architecture.md)
)
