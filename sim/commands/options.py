"""What the commands share: the configuration options, progress lines on stderr, -q's silencing."""
from __future__ import annotations

import warnings

import click
from click.core import ParameterSource

QUIET_MODULES = r"(joblib|loky)(\.|$)"  # -q: their UserWarnings are silenced too
DEFAULT_STRATEGY = "greedy"  # what a trace or replay without -s seats everywhere (every game registers it)


def config_options(f):
    f = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                     help="Override one configuration key (dotted, TOML value); repeatable.")(f)
    f = click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
                     help="A TOML file of configuration keys (see 'balance-sim config GAME').")(f)
    return f


def say(line: str) -> None:
    """A progress line (analysis.progress): on stderr, so stdout keeps only the paths a command prints."""
    click.echo(line, err=True)


def quiet_warnings() -> None:
    """-q: no joblib or loky UserWarnings either (worker restarts and the like), only errors."""
    warnings.filterwarnings("ignore", category=UserWarning, module=QUIET_MODULES)


def game_options(f):
    """--game/--batch-size/--round-robin/--run, shared by `trace` and `replay` (sim.setup.choose_game)."""
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


def option_given(ctx: click.Context, allowed: set[str]) -> str | None:
    """The longest flag of the first option given on the command line outside `allowed` (parameter names), if
    any: `--resume` refuses such an option rather than silently ignoring it."""
    given = [p for p in ctx.command.params if p.name not in allowed
             and ctx.get_parameter_source(p.name) not in (ParameterSource.DEFAULT, None)]
    if not given:
        return None
    return max(given[0].opts, key=len) if given[0].opts else given[0].name
