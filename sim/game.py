"""The one shape every game has. A game is a package `sim/<name>/` whose `__init__` exposes `GAME`.

The machinery finds each of a game's rooms through this spec, so a new game is new rooms only (docs/new-game.md).
"""
from __future__ import annotations

import difflib
import functools
import importlib
import pkgutil
from dataclasses import dataclass, fields
from types import ModuleType
from typing import Any, Callable, Iterable

from sim.errors import UserError
import sim

MAIN_TABLE = "games"  # every results folder's table of one row per game (per match), numbered by `id_column`

# Where each room of game `name` lives unless its GameSpec names another place, and what it must expose.
ROOMS = {
    "package": "sim.{name}",               # GAME (this spec) and defaults.toml, every number of the game
    "config": "sim.{name}.config",         # validate(raw: dict, players) -> config; ConfigError naming the key
    "engine": "sim.{name}.engine",         # the engine interface of sim.interface
    "kernel": "sim.{name}.kernel",         # run_batch (see `GameSpec.run_batch`) and play, the game's binding
                                           # of sim.playout.play (the kernel's and the trace driver's loop)
    "trace": "sim.{name}.trace",           # trace (see `GameSpec.trace`)
    "determinize": "sim.{name}.determinize",  # determinize(obs, cfg, s): a full state the observation allows
    "strategies": "strategies.{name}",     # one module per @strategy (sim.registry), presets in defaults.toml
    "analysis": "analysis.{name}",         # summarize(tables, meta), sections(tables, meta, summary, outdir),
                                           # optional HEADLINES and LABELS
    "replay": "analysis.replay.{name}",    # frames(events), SCORE_NAME, games_frame(tables, meta)
    "docs": "docs/{name}.md",              # the rules as implemented, every default and its key
}
# Rooms that name a function ("module:function"; the module alone means the function named here).
FUNCTIONS = {"config": "validate", "kernel": "run_batch", "trace": "trace"}


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    min_players: int
    max_players: int
    default_players: int
    tables: tuple[str, ...] = (MAIN_TABLE,)  # the Parquet tables a results folder holds, MAIN_TABLE first
    id_column: str = "game"                  # the column numbering games within MAIN_TABLE
    default_games: int = 100_000             # what the main job plays
    bench_lineup: tuple[str, ...] = ()       # `bench`'s lineup; left empty, greedy in every default seat
    compile_weight: float = 1.0  # its kernels' cold compile against a typical game's: `main` starts the heaviest first
    # The rooms (ROOMS): left empty, each is where ROOMS puts it.
    package: str = ""
    config: str = ""
    engine: str = ""
    kernel: str = ""
    trace_driver: str = ""  # the "trace" room; `trace` is the method that calls it
    determinize: str = ""
    strategies: str = ""
    analysis: str = ""
    replay: str = ""
    docs: str = ""

    def __post_init__(self):
        for room, where in ROOMS.items():
            attr = _ATTR.get(room, room)
            if not getattr(self, attr):
                object.__setattr__(self, attr, where.format(name=self.name))
        if not self.tables or self.tables[0] != MAIN_TABLE:
            raise ValueError(f"{self.name}: tables start with the main table '{MAIN_TABLE}'")
        if not self.min_players <= self.default_players <= self.max_players:
            raise ValueError(f"{self.name}: default_players outside min_players..max_players")
        if not self.bench_lineup:
            object.__setattr__(self, "bench_lineup", ("greedy",) * self.default_players)
        if len(self.bench_lineup) != self.default_players:
            raise ValueError(f"{self.name}: bench_lineup names one strategy per seat of default_players")

    def rooms(self) -> dict[str, str]:
        """{room: where it is}, every room of ROOMS."""
        return {room: getattr(self, _ATTR.get(room, room)) for room in ROOMS}

    def module(self, room: str) -> ModuleType:
        """The imported module of a room ("engine", "analysis", ...; the docs page is a file, not a module)."""
        if room == "docs":
            raise ValueError("the docs room is a file: spec.docs")
        return importlib.import_module(self.rooms()[room].partition(":")[0])

    def function(self, room: str) -> Callable:
        """The function a room names: config -> validate, kernel -> run_batch, trace -> trace."""
        where = self.rooms()[room]
        return getattr(self.module(room), where.partition(":")[2] or FUNCTIONS[room])

    def validate(self, raw: dict, players: int) -> Any:
        """The validated configuration (anything the game's functions accept); raises sim.errors.ConfigError
        naming the key, the value and what is allowed."""
        return self.function("config")(raw, players)

    def run_batch(self, cfg, players, lineups, choice_base, choice_params, seed, debug) -> dict:
        """One batch: (cfg, players, lineups int64[n, p], choice_base int64[c], choice_params float64[c,
        MAX_PARAMS], seed, debug) -> {table: {column: array}}, row ids batch-local (the runner offsets them)."""
        return self.function("kernel")(cfg, players, lineups, choice_base, choice_params, seed, debug)

    def trace(self, cfg, players: int, choices, seed: int, **which) -> Iterable[dict]:
        """Game `game` (keyword, default 0) of a run seeded `seed` with batch size `batch_size` (keyword) as
        JSON-able events, starting with the run's seed and ending with `game_end` (docs/trace.md)."""
        return self.function("trace")(cfg, players, choices, seed, **which)

    def check_players(self, players: int) -> int:
        if not self.min_players <= players <= self.max_players:
            if self.min_players == self.max_players:
                raise UserError(f"--players {players}: {self.name} is a {self.min_players}-player game; allowed: "
                                f"{self.min_players}")
            raise UserError(f"--players {players}: {self.name} allows {self.min_players} to "
                            f"{self.max_players} players")
        return players


_ATTR = {"trace": "trace_driver"}  # rooms whose GameSpec field has another name
assert {_ATTR.get(room, room) for room in ROOMS} <= {f.name for f in fields(GameSpec)}


def game_names() -> list[str]:
    """Every game: each package under sim/ with a `GAME` (the registry of games; nothing else lists them)."""
    return list(_game_names())


@functools.cache  # the registry and the runner ask per call; the packages under sim/ do not change in a run
def _game_names() -> tuple[str, ...]:
    names = [info.name for info in pkgutil.iter_modules(sim.__path__) if info.ispkg]
    return tuple(sorted(n for n in names if hasattr(importlib.import_module(f"sim.{n}"), "GAME")))


def get_game(name: str) -> GameSpec:
    """The game called `name`, in any case ("Mohur" is mohur); a near miss gets a suggestion."""
    names = _game_names()
    key = str(name).strip().lower()
    if key not in names:
        close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise UserError(f"unknown game '{name}'{hint}; allowed: {', '.join(names)}")
    return importlib.import_module(f"sim.{key}").GAME
