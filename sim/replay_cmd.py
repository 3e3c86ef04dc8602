"""Which game to trace or replay, and the `balance-sim replay` command.

Without `--game`, `-s` lists the strategies seat by seat and the game is game 0 of `run -n 1 --seed S` (what
`trace` has always shown). With `--game K`, `-s`, `--batch-size` and `--round-robin` are the *run's* options and
the game is game K of that run: its batch seed, its index in the batch and its seats as the run's lineup
rotation gives them. `--run DIR` takes all of those from a results folder's meta.json.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click

from sim.errors import UserError

DEFAULT_STRATEGY = "greedy"  # what a replay without -s seats everywhere (every game registers it)


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


def game_options(f):
    """--game/--batch-size/--round-robin/--run, shared by `trace` and `replay`."""
    f = click.option("--run", "run_dir", type=click.Path(file_okay=False), default=None,
                     help="Take seed, strategies, players, configuration and batch size from this results "
                          "folder's meta.json (pick the game with --game K).")(f)
    f = click.option("--round-robin", is_flag=True,
                     help="With --game: the run was played with --round-robin (or -s all).")(f)
    f = click.option("--batch-size", type=int, default=None,
                     help="With --game: the run's batch size (default 2000).")(f)
    f = click.option("--game", "game_index", type=int, default=None,
                     help="Game K of `run --seed S -s ...` (0-based, as in games.parquet): -s, --batch-size "
                          "and --round-robin are then that run's options.")(f)
    return f


def choose_game(game, seed, strategies, players, config_file, sets, game_index, batch_size, round_robin,
                run_dir) -> Chosen:
    """Validate everything and name the game to trace; UserError (one line) on any mistake."""
    from sim import inputs
    from sim.runner import DEFAULT_BATCH, seat_choices
    inputs.seed(seed)
    if game_index is not None:
        inputs.game_index(game_index)
    if batch_size is not None:
        inputs.batch_size(batch_size)
    if run_dir:
        if config_file or sets:
            raise UserError("--run takes the configuration from that run's meta.json: drop --config/--set")
        return _from_run(Path(run_dir), game, game_index or 0)
    from sim.cli import load_setup
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


def _from_run(folder: Path, game, index: int) -> Chosen:
    from sim.lock import shared
    from sim.meta import checked
    with shared(folder, "--run"):  # not while a run is replacing the folder
        meta, run = checked(folder, "--run")
    if game and game != meta["game"]:
        raise UserError(f"--run {folder}: that run played {meta['game']}, not {game}")
    return from_meta(meta, index, run)


def from_meta(meta: dict, index: int, run: dict | None = None) -> Chosen:
    """Game `index` of the run a meta.json describes (`run`: its checked settings, `sim.meta.check_run`)."""
    from sim.meta import check_run
    from sim.runner import plan_of, seat_choices
    run = run or check_run(Path("."), meta)
    planned = meta.get("planned_games", run["games"])
    if isinstance(planned, bool) or not isinstance(planned, int) or planned < 1:
        raise UserError(f"meta.json: 'planned_games' is {planned!r}, expected a number of games")
    if not 0 <= index < planned:
        raise UserError(f"--game {index}: that run has games 0 to {planned - 1}")
    plan = plan_of(run, planned)
    seats = seat_choices(plan.game, plan.players, plan.choices, plan.round_robin, index)
    return Chosen(run["spec"], run["config"], plan.players, seats, plan.seed, index, plan.batch_size)


def default_lineup(which: dict) -> str:
    """Seat DEFAULT_STRATEGY everywhere when -s is not given (in place in `which`), and the note that says so:
    a designer who forgot -s must not read greedy against greedy as the game they meant. Empty when -s or --run
    decides the strategies."""
    if which["strategies"] is not None:
        return ""
    which["strategies"] = DEFAULT_STRATEGY
    return "" if which.get("run_dir") else f"no -s given: every seat plays {DEFAULT_STRATEGY}"


def say_default_lineup(note: str) -> None:
    """The note on stderr (once the game is chosen, so that a refusal stays the one line there)."""
    if note:
        click.echo(f"balance-sim: note: {note} (choose with -s A,B)", err=True)


@click.command()
@click.argument("game", required=False)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("-s", "--strategies", default=None,
              help="Strategies by seat, comma-separated (one name: every seat plays it); with --game, the run's. "
                   f"Default: every seat plays {DEFAULT_STRATEGY} (said on stderr and on the page).")
@click.option("-p", "--players", type=int, default=None)
@game_options
@click.option("-o", "--out", default="replay.html", show_default=True, type=click.Path(dir_okay=False),
              help="The HTML page to write.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override one configuration key (dotted, TOML value); repeatable.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="A TOML file of configuration keys (see 'balance-sim config GAME').")
def replay(out, **which):
    """Write one game as a self-contained HTML page to step through (the events of `trace`)."""
    from analysis.replay import is_replay_page, write_replay
    from sim.lock import exclusive
    from sim.results import check_output_file
    if not str(out).strip():
        raise UserError("-o '': give a file path for the page")
    check_output_file(Path(out), "a replay page", is_replay_page)
    note = default_lineup(which)
    chosen = choose_game(**which)
    events = list(chosen.events())
    say_default_lineup(note)
    try:
        with exclusive(Path(out)):
            check_output_file(Path(out), "a replay page", is_replay_page)  # again, now that we hold it
            write_replay(Path(out), events, game_index=chosen.game, batch_size=chosen.batch_size, note=note)
    except OSError as exc:  # a folder given, a file where a folder should be, no room, no permission
        raise UserError(f"-o {out}: cannot write the page there ({exc.strerror or exc})") from None
    click.echo(str(out))
