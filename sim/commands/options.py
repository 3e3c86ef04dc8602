"""What the commands share: options and their checks, the output folder, progress lines on stderr."""
from __future__ import annotations

import warnings
from pathlib import Path

import click
from click.core import ParameterSource

from sim import inputs
from sim.errors import UserError

QUIET_MODULES = r"(joblib|loky)(\.|$)"  # -q: their UserWarnings are silenced too
DEFAULT_STRATEGY = "greedy"  # what a trace or replay without -s seats everywhere (every game registers it)
BACKENDS = ("loky", "dask", "threading")


def config_options(f):
    f = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                     help="Override one configuration key (dotted, TOML value); repeatable.")(f)
    f = click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
                     help="A TOML file of configuration keys (see 'balance-sim config GAME').")(f)
    return f


def say(line: str) -> None:
    """A progress line (analysis.progress): on stderr, so stdout keeps only the paths a command prints."""
    click.echo(line, err=True)


def backend_options(f):
    f = click.option("--scheduler", default=None, help="Dask scheduler address (with --backend dask).")(f)
    return click.option("--backend", type=click.Choice(BACKENDS), default="loky", show_default=True)(f)


def check_backend(backend: str, scheduler, quiet: bool) -> None:
    """--scheduler only with Dask; -q silences joblib's and loky's UserWarnings too (worker restarts and the like)."""
    if scheduler and backend != "dask":
        raise UserError("--scheduler goes with --backend dask")
    if quiet:
        warnings.filterwarnings("ignore", category=UserWarning, module=QUIET_MODULES)


def out_or_default(out, name: str) -> Path:
    """-o (checked when given), or reports/<name>, checked now."""
    return Path(out) if out is not None else inputs.output_folder(Path("reports") / name)


def game_options(f):
    """--game/--batch-size/--round-robin/--run, shared by `trace` and `replay` (sim.setup.choose_game)."""
    f = click.option("--run", "run_dir", type=click.Path(file_okay=False), default=None,
                     callback=inputs.existing_folder,
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


def default_lineup(which: dict) -> str:
    """Seat DEFAULT_STRATEGY everywhere when -s is not given (in place in `which`), and the note that says so, so
    greedy against greedy is not read as the game meant; empty when -s or --run decides."""
    if which["strategies"] is not None:
        return ""
    which["strategies"] = DEFAULT_STRATEGY
    return "" if which.get("run_dir") else f"no -s given: every seat plays {DEFAULT_STRATEGY}"


def say_default_lineup(note: str) -> None:
    """The note on stderr (once the game is chosen, so that a refusal stays the one line there)."""
    if note:
        click.echo(f"balance-sim: note: {note} (choose with -s A,B)", err=True)


RUN_DECIDES = ("seed", "strategies", "players", "batch_size", "round_robin")  # what --run takes from meta.json


def refuse_with_run(which: dict) -> None:
    """--run DIR takes seed, strategies, players, batch size and round robin from that run: one of them given too
    is refused, not silently ignored."""
    if not which.get("run_dir"):
        return
    ctx = click.get_current_context()
    given = [p for p in ctx.command.params if p.name in RUN_DECIDES
             and ctx.get_parameter_source(p.name) not in (ParameterSource.DEFAULT, None)]
    if given:
        name = max(given[0].opts, key=len) if given[0].opts else given[0].name
        raise UserError(f"{name} cannot be given with --run: the game is that run's (its seed, strategies, players, "
                        "batch size and round robin come from its meta.json); drop it, or drop --run")


def refuse_with_resume(allowed: set[str], what: str, only: str, then: str = "") -> None:
    """--resume plays what the run was started with: an option outside `allowed` is refused, not ignored."""
    ctx = click.get_current_context()
    given = [p for p in ctx.command.params if p.name not in allowed
             and ctx.get_parameter_source(p.name) not in (ParameterSource.DEFAULT, None)]
    if given:
        name = max(given[0].opts, key=len) if given[0].opts else given[0].name
        raise UserError(f"{name} cannot be given with --resume: a resumed {what} plays what it was started with "
                        f"(only {only} apply){then}")
