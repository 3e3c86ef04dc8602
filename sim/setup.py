"""What a command plays, validated before any game is, and one game of a run to trace or replay (`choose_game`):
game 0 of `run -n 1` with `-s` seat by seat, or game K (`--game K`) of the run its options (or `--run DIR`) name."""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path

from sim import inputs
from sim.config import build
from sim.errors import UserError
from sim.game import game_names, get_game
from sim.interface import check_engine
from sim.lock import shared
from sim.meta import check_run, read
from sim.registry import alias_of, all_names, choices, round_robin_names
from sim.rng import DEFAULT_BATCH
from sim.runner import Plan, plan_of, seat_choices

DEFAULT_SEED = 1


def _note(line: str) -> None:
    print(f"balance-sim: {line}", file=sys.stderr)


def load_setup(game: str, config_file, sets, players, strategies: str):
    """(spec, players, config, strategy choices, round robin), all validated before any game is played."""
    spec = get_game(game)
    _check_engine_once(spec)
    players = spec.check_players(players if players is not None else spec.default_players)
    cfg = spec.validate(build(spec.package, config_file, tuple(sets)), players)
    inputs.preset_names(cfg.presets, "--config" if config_file else "--set")
    for line in getattr(cfg, "warnings", ()):
        _note(f"warning: {line}")
    long = next((n for n in cfg.presets if len(n) > inputs.MAX_LABEL), None)
    if long is not None:  # a report reads no longer label back (sim.report_folder.check_labels)
        raise UserError(f"config key 'strategies.{long[:40]}...': a preset name of {len(long):,} characters; at most "
                        f"{inputs.MAX_LABEL}")
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    for old in sorted({n for n in names if n not in cfg.presets and alias_of(spec.name, n)}):
        _note(f"note: strategy '{old}' is now called '{alias_of(spec.name, old)}'; the old name still works as an "
              "alias")
    round_robin = names == ["all"]
    if round_robin:  # search players cost milliseconds a move: they play only when named
        names = round_robin_names(spec.name, cfg.presets)
    if not names:
        raise UserError("--strategies: give one or more names separated by commas, or 'all'; allowed: "
                        + ", ".join(all_names(spec.name, cfg.presets)))
    return spec, players, cfg, tuple(choices(spec.name, cfg.presets, names)), round_robin


@functools.cache  # a game's engine does not change within a process; the main job asks per game
def _check_engine_once(spec) -> None:
    """A game whose engine departs from the interface fails here, before any game is played, naming how."""
    check_engine(spec.module("engine"), spec.name)


def main_setups(scale: float = 1.0) -> list[tuple]:
    """The main job's games on their defaults, each (spec, players, config, strategies, round robin, games)."""
    setups = []
    for name in game_names():
        spec, players, cfg, chosen, rr = load_setup(name, None, (), None, "all")
        n = inputs.games(max(1, int(spec.default_games * scale)), f"--scale {scale:g}: {spec.name} would play")
        setups.append((spec, players, cfg, chosen, rr, n))
    return setups


def main_jobs(setups: list[tuple], seed: int = DEFAULT_SEED) -> list[tuple]:
    """The compile jobs of the main job's games, (game, config, Plan), as sim.warmup takes them."""
    return [(spec.name, cfg, Plan(spec.name, players, n, seed, chosen, DEFAULT_BATCH, rr))
            for spec, players, cfg, chosen, rr, n in setups]


@dataclass(frozen=True)
class Chosen:
    """One game of a run, ready to trace."""
    spec: object
    cfg: object
    players: int
    seats: tuple        # StrategyChoice per seat
    seed: int
    game: int
    batch_size: int

    def events(self):
        return self.spec.trace(self.cfg, self.players, list(self.seats), self.seed, game=self.game,
                               batch_size=self.batch_size)


def choose_game(game, seed, strategies, players, config_file, sets, game_index, batch_size, round_robin,
                run_dir) -> Chosen:
    """Validate everything and name the game to trace; UserError (one line) on any mistake."""
    inputs.seed(seed)
    if game_index is not None:
        inputs.game_index(game_index)
    if batch_size is not None:
        inputs.batch_size(batch_size)
    if run_dir:
        if config_file or sets:
            raise UserError("--run takes the configuration from that run's meta.json: drop --config/--set")
        folder = Path(run_dir)
        with shared(folder, "--run"):  # not while a run is replacing the folder
            meta = read(folder)
            run = check_run(folder, meta, "--run")
        if game and game != meta["game"]:
            raise UserError(f"--run {folder}: that run played {meta['game']}, not {game}")
        return from_meta(meta, game_index or 0, run)
    if not game:
        raise UserError("missing GAME (or --run DIR)")
    spec, players, cfg, chosen, everyone = load_setup(game, config_file, sets, players, strategies)
    if game_index is None:
        if batch_size is not None or round_robin:
            raise UserError("--batch-size and --round-robin describe a run: use them with --game K")
        if len(chosen) == 1:
            chosen = chosen * players
        if len(chosen) != players:
            raise UserError(f"--strategies: give 1 or {players} names for {players} players, got {len(chosen)} "
                            "(or --game K to show game K of a run with these strategies)")
        return Chosen(spec, cfg, players, tuple(chosen), seed, 0, DEFAULT_BATCH)
    seats = seat_choices(spec.name, players, chosen, round_robin or everyone, game_index)
    return Chosen(spec, cfg, players, seats, seed, game_index, batch_size or DEFAULT_BATCH)





def from_meta(meta: dict, index: int, run: dict | None = None) -> Chosen:
    """Game `index` of the run a meta.json describes (`run`: its checked settings, `sim.meta.check_run`)."""
    run = run or check_run(Path("."), meta)
    planned = meta.get("planned_games", run["games"])
    if isinstance(planned, bool) or not isinstance(planned, int) or planned < 1:
        raise UserError(f"meta.json: 'planned_games' is {planned!r}, expected a number of games")
    if not 0 <= index < planned:
        raise UserError(f"--game {index}: that run has games 0 to {planned - 1}")
    plan = plan_of(run, planned)
    seats = seat_choices(plan.game, plan.players, plan.choices, plan.round_robin, index)
    return Chosen(run["spec"], run["config"], plan.players, seats, plan.seed, index, plan.batch_size)
