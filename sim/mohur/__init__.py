"""Mohur: 2-player trading, best of three rounds (docs/mohur.md)."""
from sim.game import GameSpec


GAME = GameSpec(
    name="mohur",
    title="Mohur",
    min_players=2, max_players=2, default_players=2,
    tables=("games", "rounds"),
    id_column="match",
)
