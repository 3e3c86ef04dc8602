"""The one shape every game has. A game is a package `sim/<name>/` whose `__init__` exposes `GAME`.

The machinery (runner, CLI, reports) only talks to a game through this spec, so a new game is one new
folder with no edit elsewhere.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from sim.errors import UserError


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    package: str                      # e.g. "sim.mohur"; holds defaults.toml
    min_players: int
    max_players: int
    default_players: int
    # validate(raw_config: dict, players: int) -> validated config (anything the game's functions accept).
    # Raises sim.errors.ConfigError naming the key, the value and what is allowed.
    validate: Callable[[dict, int], Any]
    # batch_kernel is a *module-level* function path "module:function" with signature
    # (cfg, players, lineups int64[n, p], choice_base int64[c], choice_params float64[c, MAX_PARAMS],
    #  seed: int, debug: bool) -> dict[table_name, dict[column, np.ndarray]]. Row ids are batch-local
    # (`game` starts at 0); the runner offsets them.
    batch_kernel: str
    # trace(cfg, players, choices: list[StrategyChoice], seed) -> iterable of JSON-able dicts
    trace: Callable[..., Iterable[dict]]
    strategy_args: tuple[str, ...]     # argument names every strategy of this game takes
    main_table: str = "games"          # one row per game/match
    tables: tuple[str, ...] = ("games",)  # the Parquet tables a results folder holds (what its report reads)
    id_column: str = "game"            # the column numbering games within the main table
    default_games: int = 100_000       # what the main job plays
    bench_lineup: tuple[str, ...] = ("greedy", "greedy")

    def check_players(self, players: int) -> int:
        if not self.min_players <= players <= self.max_players:
            raise UserError(f"--players {players}: {self.name} allows {self.min_players} to "
                            f"{self.max_players} players")
        return players


def game_names() -> list[str]:
    import sim
    names = []
    for info in pkgutil.iter_modules(sim.__path__):
        if info.ispkg:
            names.append(info.name)
    return sorted(n for n in names if hasattr(_import(n), "GAME"))


def _import(name: str):
    return importlib.import_module(f"sim.{name}")


def get_game(name: str) -> GameSpec:
    names = game_names()
    if name not in names:
        raise UserError(f"unknown game '{name}'; allowed: {', '.join(names)}")
    return _import(name).GAME


def kernel_function(spec: GameSpec) -> Callable:
    module, _, func = spec.batch_kernel.partition(":")
    return getattr(importlib.import_module(module), func)
