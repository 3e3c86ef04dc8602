"""The `balance-sim` command line. Every mistake in a flag or configuration is one line on stderr, exit 2."""
from __future__ import annotations

import json
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import click

import sim
from sim.errors import UserError

DEFAULT_SEED = 1


def _fail(message: str) -> None:
    click.echo(f"balance-sim: error: {message}", err=True)
    sys.exit(2)


class Group(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except UserError as exc:
            _fail(str(exc))


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(sim.__version__, prog_name="balance-sim")
def main():
    """Monte Carlo balance simulator for Mohur, Mughal and Merchants of Muziris."""


def _game_arg(f):
    return click.argument("game")(f)


def _config_options(f):
    f = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                     help="Override one configuration key (dotted, TOML value); repeatable.")(f)
    f = click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
                     help="A TOML file of configuration keys (see 'balance-sim config GAME').")(f)
    return f


def load_setup(game: str, config_file, sets, players, strategies: str):
    """Everything validated before any game is played: game, players, configuration, strategies."""
    from sim.config import build
    from sim.game import get_game
    from sim.registry import all_names, choices, registered
    spec = get_game(game)
    players = spec.check_players(players if players is not None else spec.default_players)
    raw = build(spec.package, config_file, tuple(sets))
    cfg = spec.validate(raw, players)
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    round_robin = names == ["all"]
    if round_robin:
        names = [d.name for d in registered(spec.name)]
    if not names:
        raise UserError("--strategies: give one or more names separated by commas, or 'all'; allowed: "
                        + ", ".join(all_names(spec.name, cfg.presets)))
    return spec, players, cfg, tuple(choices(spec.name, cfg.presets, names)), round_robin


@main.command()
@click.argument("game", required=False)
@click.option("-n", "--games", "n_games", type=int, default=None, help="Games (matches) to play.")
@click.option("-s", "--strategies", default="all", show_default=True,
              help="Strategies or presets by seat, comma-separated; 'all' = every registered strategy.")
@click.option("-p", "--players", type=int, default=None, help="Players (games that allow a choice).")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="Root random seed.")
@click.option("-j", "--jobs", type=int, default=1, show_default=True, help="Parallel workers (-1: all cores).")
@click.option("-o", "--out", "out", type=click.Path(file_okay=False), default=None,
              help="Results folder (default reports/<game>).")
@click.option("--batch-size", type=int, default=None, help="Games per batch (default 2000).")
@click.option("--backend", type=click.Choice(["loky", "dask", "threading"]), default="loky", show_default=True)
@click.option("--scheduler", default=None, help="Dask scheduler address (with --backend dask).")
@click.option("--resume", "resume", type=click.Path(file_okay=False), default=None,
              help="Complete an interrupted run: its results folder (or the .partial folder it left).")
@click.option("--no-report", is_flag=True, help="Write the tables only.")
@click.option("--debug", is_flag=True, help="Check every invariant after every action (slow).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary line.")
@_config_options
def run(game, n_games, strategies, players, seed, jobs, out, batch_size, backend, scheduler, resume, no_report,
        debug, quiet, config_file, sets):
    """Play GAME many times and write a results folder (tables, meta.json, report)."""
    from sim.runner import DEFAULT_BATCH
    if jobs == 0 or jobs < -1:
        raise UserError(f"--jobs {jobs}: must be a positive number of workers, or -1 for all cores")
    if scheduler and backend != "dask":
        raise UserError("--scheduler goes with --backend dask")
    if resume:
        folder = resume_run(Path(resume), jobs, backend, scheduler, not no_report, quiet)
    else:
        if not game:
            raise UserError("missing GAME; allowed: " + ", ".join(_game_names()))
        spec, players, cfg, chosen, round_robin = load_setup(game, config_file, sets, players, strategies)
        n_games = spec.default_games if n_games is None else n_games
        if n_games < 1:
            raise UserError(f"--games {n_games}: must be at least 1")
        batch_size = DEFAULT_BATCH if batch_size is None else batch_size
        if batch_size < 1:
            raise UserError(f"--batch-size {batch_size}: must be at least 1")
        out = Path(out) if out else Path("reports") / spec.name
        folder = run_to_folder(spec, players, cfg, chosen, round_robin, n_games, seed, jobs, out, batch_size,
                               backend, scheduler, not no_report, debug, quiet)
    if not quiet:
        click.echo(str(folder / "report.html") if not no_report else str(folder))


def _game_names():
    from sim.game import game_names
    return game_names()


def run_to_folder(spec, players, cfg, chosen, round_robin, n_games, seed, jobs, out, batch_size, backend,
                  scheduler, report: bool, debug: bool, quiet: bool) -> Path:
    from sim import results
    results.check_output(out)
    meta = {
        "game": spec.name, "players": players, "games": n_games, "seed": seed,
        "strategies": [{"name": c.name, "base": c.base, "params": list(c.params)} for c in chosen],
        "round_robin": round_robin, "batch_size": batch_size, "debug": debug, "config": cfg.raw,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"), "versions": _versions(),
    }
    staging = results.begin(out, meta)
    return _complete(spec, cfg, meta, staging, out, jobs, backend, scheduler, report, quiet)


def resume_run(folder: Path, jobs, backend, scheduler, report: bool, quiet: bool) -> Path:
    from sim import results
    from sim.game import get_game
    staging, out = results.partial_path(folder), results.final_path(folder)
    if not staging.is_dir():
        raise UserError(f"--resume {folder}: no interrupted run there (expected {staging})")
    meta = results.read_meta(staging)
    spec = get_game(meta["game"])
    cfg = spec.validate(meta["config"], meta["players"])
    return _complete(spec, cfg, meta, staging, out, jobs, backend, scheduler, report, quiet)


def _complete(spec, cfg, meta, staging, out, jobs, backend, scheduler, report, quiet) -> Path:
    from sim import results
    from sim.runner import execute, finished_batches, plan_from_meta
    plan = plan_from_meta(meta)
    batch_dir = staging / results.BATCHES
    try:
        tables, timing = execute(spec, cfg, plan, jobs=jobs, backend=backend, scheduler=scheduler,
                                 debug=meta.get("debug", False), progress=not quiet, batch_dir=batch_dir)
    except KeyboardInterrupt:
        done = len(finished_batches(batch_dir))
        raise UserError(f"interrupted: {done} of {plan.n_batches} batches are saved in {staging}; finish with "
                        f"'balance-sim run --resume {out}' or report them with 'balance-sim report {staging}'")
    meta = {**meta, "partial": False, "timing": timing, "jobs": jobs, "backend": backend}
    results.write_tables(staging, tables)
    if report:
        from analysis.report import build_report
        build_report(tables, meta, staging)
    results.write_meta(staging, meta)
    results.finish(staging, out)
    if not quiet and timing["games_per_second"]:
        click.echo(f"{spec.name}: {timing['games_played_now']:,} games in {timing['seconds']:.1f} s "
                   f"({timing['games_per_second']:,.0f}/s), seed {meta['seed']}", err=True)
    return out


def _versions() -> dict:
    import joblib
    import numba
    import numpy
    import pandas
    return {"balance-sim": sim.__version__, "python": platform.python_version(), "numpy": numpy.__version__,
            "numba": numba.__version__, "pandas": pandas.__version__, "joblib": joblib.__version__}


@main.command()
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("-o", "--out", default=None, type=click.Path(file_okay=False),
              help="Where to write the report (default: the results folder itself).")
def report(folder, out):
    """Write report.html, the plots and summary.json for a results FOLDER."""
    from analysis.report import build_report
    from sim import results
    tables, meta = results.load(Path(folder))
    target = Path(out) if out else Path(folder)
    if meta.get("partial"):
        click.echo(f"partial run: reporting the {meta['games']:,} of {meta['planned_games']:,} games that finished",
                   err=True)
    target.mkdir(parents=True, exist_ok=True)
    build_report(tables, meta, target)
    click.echo(str(target / "report.html"))


@main.command()
@_game_arg
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("-s", "--strategies", default="greedy", show_default=True,
              help="Strategies by seat, comma-separated (one name: every seat plays it).")
@click.option("-p", "--players", type=int, default=None)
@_config_options
def trace(game, seed, strategies, players, config_file, sets):
    """Play one game and print it as JSON lines (schema: docs/trace.md)."""
    spec, players, cfg, chosen, _ = load_setup(game, config_file, sets, players, strategies)
    if len(chosen) == 1:
        chosen = chosen * players
    if len(chosen) != players:
        raise UserError(f"--strategies: give 1 or {players} names for {players} players, got {len(chosen)}")
    for event in spec.trace(cfg, players, list(chosen), seed):
        click.echo(json.dumps(event, separators=(",", ":")))


@main.command("strategies")
@_game_arg
@_config_options
def strategies_cmd(game, config_file, sets):
    """List the strategies and presets of GAME, one per line."""
    from sim.config import build
    from sim.game import get_game
    from sim.registry import all_names
    spec = get_game(game)
    cfg = spec.validate(build(spec.package, config_file, tuple(sets)), spec.default_players)
    for name in all_names(spec.name, cfg.presets):
        click.echo(name)


@main.command("config")
@_game_arg
def config_cmd(game):
    """Print the full default configuration of GAME as commented TOML."""
    from sim.config import default_text
    from sim.game import get_game
    click.echo(default_text(get_game(game).package), nl=False)


@main.command()
@click.argument("games", nargs=-1)
@click.option("-n", "--games-per-run", "n_games", type=int, default=20_000, show_default=True)
@click.option("-j", "--jobs", type=int, default=2, show_default=True, help="Workers for the parallel figure.")
def bench(games, n_games, jobs):
    """Matches per second per strategy pairing, on one core and on JOBS workers."""
    from sim.bench import run_bench
    run_bench(list(games), n_games, jobs)


@main.command("main")
@click.option("-o", "--out", default="reports", show_default=True, type=click.Path(file_okay=False))
@click.option("-j", "--jobs", type=int, default=-1, show_default=True)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("--scale", type=float, default=1.0, show_default=True, help="Multiply each game's default count.")
def main_job(out, jobs, seed, scale):
    """The main job: every game on its defaults (all strategies, seats rotated), with reports."""
    from sim.game import game_names
    from sim.runner import DEFAULT_BATCH
    written = []
    for name in game_names():
        spec, players, cfg, chosen, rr = load_setup(name, None, (), None, "all")
        n = max(1, int(spec.default_games * scale))
        folder = run_to_folder(spec, players, cfg, chosen, rr, n, seed, jobs, Path(out) / name, DEFAULT_BATCH, "loky",
                               None, True, False, False)
        written.append(folder / "report.html")
    for path in written:
        click.echo(str(path))


if __name__ == "__main__":
    main()
