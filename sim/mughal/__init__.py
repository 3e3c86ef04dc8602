"""Mughal: 2-8 players, seven emperors' turns of simultaneous card drafting (docs/mughal.md)."""
from sim.game import GameSpec

GAME = GameSpec(
    name="mughal",
    title="Mughal",
    min_players=2, max_players=8, default_players=4,
    tables=("games", "players", "picks"),
)
