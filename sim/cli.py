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
    """Turns our UserError and click's own usage errors into one line on stderr and exit code 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except UserError as exc:
            _fail(str(exc))

    def main(self, *args, **kwargs):
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            sys.exit(0)
        except click.UsageError as exc:
            command = exc.ctx.command_path if exc.ctx else "balance-sim"
            _fail(f"{exc.format_message()} (see '{command} --help')")
        except click.ClickException as exc:
            _fail(exc.format_message())
        except click.exceptions.Abort:
            click.echo("aborted", err=True)
            sys.exit(1)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)


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
    if round_robin:  # search players cost milliseconds a move: they play only when named
        names = [d.name for d in registered(spec.name) if not d.search]
    if not names:
        raise UserError("--strategies: give one or more names separated by commas, or 'all'; allowed: "
                        + ", ".join(all_names(spec.name, cfg.presets)))
    return spec, players, cfg, tuple(choices(spec.name, cfg.presets, names)), round_robin


@main.command()
@click.argument("game", required=False)
@click.option("-n", "--games", "n_games", type=int, default=None, help="Games (matches) to play.")
@click.option("-s", "--strategies", default="all", show_default=True,
              help="Strategies or presets by seat, comma-separated; 'all' = every registered heuristic "
                   "(search players only when named).")
@click.option("-p", "--players", type=int, default=None, help="Players (games that allow a choice).")
@click.option("--round-robin", is_flag=True,
              help="Two players: every pairing of the listed strategies, mirror matches included "
                   "(what -s all does), e.g. to compare greedy-vs-greedy with expert-vs-expert.")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="Root random seed.")
@click.option("-j", "--jobs", type=int, default=-1, show_default=True,
              help="Parallel workers (-1: all cores; the tables do not depend on it).")
@click.option("-o", "--out", "out", type=click.Path(file_okay=False), default=None,
              help="Results folder (default reports/<game>).")
@click.option("--batch-size", type=int, default=None, help="Games per batch (default 2000).")
@click.option("--backend", type=click.Choice(["loky", "dask", "threading"]), default="loky", show_default=True)
@click.option("--scheduler", default=None, help="Dask scheduler address (with --backend dask).")
@click.option("--resume", "resume", type=click.Path(file_okay=False), default=None,
              help="Complete an interrupted run: its results folder (or the .partial folder it left).")
@click.option("--no-report", is_flag=True, help="Write the tables only.")
@click.option("--summary-only", is_flag=True,
              help="Aggregate the headline figures in the workers and keep no tables (flat memory at any -n).")
@click.option("--debug", is_flag=True, help="Check every invariant after every action (slow).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary line.")
@_config_options
def run(game, n_games, strategies, players, round_robin, seed, jobs, out, batch_size, backend, scheduler, resume,
        no_report, summary_only, debug, quiet, config_file, sets):
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
        spec, players, cfg, chosen, everyone = load_setup(game, config_file, sets, players, strategies)
        if round_robin and players != 2:
            raise UserError(f"--round-robin: pairings are for two players; {spec.name} has {players} here "
                            "(more players rotate the listed strategies through the seats)")
        round_robin = round_robin or everyone
        n_games = spec.default_games if n_games is None else n_games
        if n_games < 1:
            raise UserError(f"--games {n_games}: must be at least 1")
        batch_size = DEFAULT_BATCH if batch_size is None else batch_size
        if batch_size < 1:
            raise UserError(f"--batch-size {batch_size}: must be at least 1")
        out = Path(out) if out else Path("reports") / spec.name
        folder = run_to_folder(spec, players, cfg, chosen, round_robin, n_games, seed, jobs, out, batch_size,
                               backend, scheduler, not no_report, debug, quiet, summary_only)
    if not quiet:
        click.echo(str(folder / "report.html") if not no_report else str(folder))


def _game_names():
    from sim.game import game_names
    return game_names()


def run_to_folder(spec, players, cfg, chosen, round_robin, n_games, seed, jobs, out, batch_size, backend,
                  scheduler, report: bool, debug: bool, quiet: bool, summary_only: bool = False) -> Path:
    from sim import results
    results.check_output(out)
    meta = {
        "game": spec.name, "players": players, "games": n_games, "seed": seed, "summary_only": summary_only,
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
    from sim.runner import RunInterrupted, execute, finished_batches, plan_from_meta
    plan = plan_from_meta(meta)
    batch_dir = staging / results.BATCHES
    summary_meta = {k: meta[k] for k in ("game", "players", "config", "strategies", "seed")} \
        if meta.get("summary_only") else None
    sink = None if summary_meta else results.ParquetSink(staging, spec, plan)
    try:
        tables, timing = execute(spec, cfg, plan, jobs=jobs, backend=backend, scheduler=scheduler,
                                 debug=meta.get("debug", False), progress=not quiet, batch_dir=batch_dir,
                                 summary_meta=summary_meta, sink=sink)
    except (RunInterrupted, KeyboardInterrupt):
        done = len(finished_batches(batch_dir, summary_meta is not None))
        raise UserError(f"interrupted: {done} of {plan.n_batches} batches are saved in {staging}; finish with "
                        f"'balance-sim run --resume {out}' or report them with 'balance-sim report {staging}'")
    meta = {**meta, "partial": False, "timing": timing, "jobs": jobs, "backend": backend}
    if summary_only := meta.get("summary_only"):
        from analysis.report import build_summary_report
        build_summary_report(tables["summary"], meta, staging)
    else:
        sink.close()  # the tables were streamed to Parquet batch by batch
    if report and not summary_only:
        from analysis.report import build_report
        build_report(results.read_tables(staging), meta, staging)
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
    """Play one game and print it as JSON lines (schemas: docs/trace.md)."""
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


def _is_option(token: str) -> bool:
    """`-n`, `--seed`: an option; `-1`, `-0.5`: a negative value."""
    if not token.startswith("-"):
        return False
    try:
        float(token)
        return False
    except ValueError:
        return True


def _split_params(tokens: list[str]) -> tuple[list, list[str]]:
    """Pull `--param KEY (--values V1 V2 ... | --range START:STOP:STEP)` groups out of the arguments."""
    from sim.config import parse_value
    from sim.sweep import parse_range
    params, rest, i = [], [], 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "--param":
            if i + 1 >= len(tokens):
                raise UserError("--param needs a configuration key, e.g. --param tokens.diamond")
            params.append([tokens[i + 1], None])
            i += 2
        elif tok == "--values":
            if not params:
                raise UserError("--values must follow a --param KEY")
            j = i + 1
            while j < len(tokens) and not _is_option(tokens[j]):
                j += 1
            if j == i + 1:
                raise UserError(f"--values for {params[-1][0]}: give one or more values")
            params[-1][1] = [parse_value(v) for v in tokens[i + 1:j]]
            i = j
        elif tok == "--range":
            if not params or i + 1 >= len(tokens):
                raise UserError("--range START:STOP:STEP must follow a --param KEY")
            params[-1][1] = parse_range(tokens[i + 1])
            i += 2
        else:
            rest.append(tok)
            i += 1
    for key, values in params:
        if values is None:
            raise UserError(f"--param {key}: give its values with --values V1 V2 ... or --range START:STOP:STEP")
    return [(k, v) for k, v in params], rest


def _options_parser(prog: str):
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            raise UserError(f"{prog}: {message}")

    parser = Parser(prog=prog, add_help=False)
    parser.add_argument("-n", "--games", type=int, default=None)
    parser.add_argument("-s", "--strategies", default="all")
    parser.add_argument("-p", "--players", type=int, default=None)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("-o", "--out", default=None)
    parser.add_argument("--config", dest="config_file", default=None)
    parser.add_argument("--set", dest="sets", action="append", default=[])
    parser.add_argument("--target", dest="targets", action="append", default=[])
    parser.add_argument("--backend", choices=["loky", "dask", "threading"], default="loky")
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("-q", "--quiet", action="store_true")
    return parser


_PASS_THROUGH = {"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": ["-h", "--help"]}


@main.command(context_settings=_PASS_THROUGH)
@_game_arg
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def sweep(game, args):
    """Play GAME once per parameter value (or grid) on common random numbers and compare.

    \b
    balance-sim sweep GAME --param KEY --values V1 V2 ... [--param KEY2 --range START:STOP:STEP]
                      [-n N] [-s A,B] [-p P] [--seed S] [-j J] [-o DIR] [--target METRIC=VALUE[:TOL]]
                      [--reports] [--config FILE] [--set KEY=VALUE]
    Writes DIR/variant-NNN/ (a results folder each), sweep.csv, sweep.parquet and sweep_report.html.
    """
    from sim.sweep import parse_target, run_sweep, variant_label
    params, rest = _split_params(list(args))
    parser = _options_parser("sweep")
    parser.add_argument("--reports", action="store_true")
    parser.add_argument("--batch-size", type=int, default=2000)
    opts = parser.parse_args(rest)
    if not 1 <= len(params) <= 2:
        raise UserError("sweep: give one or two --param KEY with --values or --range")
    targets = [parse_target(t) for t in opts.targets]
    spec, players, cfg, chosen, rr = load_setup(game, opts.config_file, opts.sets, opts.players, opts.strategies)
    n_games = opts.games or 20_000
    if n_games < 1:
        raise UserError(f"--games {n_games}: must be at least 1")
    out = Path(opts.out) if opts.out else Path("reports") / f"{spec.name}-sweep"
    folder, lines = run_sweep(spec, players, chosen, rr, params, opts.config_file, opts.sets, n_games, opts.seed,
                              opts.jobs, out, opts.batch_size, opts.reports, targets, opts.backend, opts.scheduler,
                              opts.quiet)
    for line in lines:
        click.echo(line)
    click.echo(str(folder / "sweep_report.html"))


@main.command(context_settings=_PASS_THROUGH)
@_game_arg
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def tune(game, args):
    """Search parameter values that meet balance targets (successive halving on common random numbers).

    \b
    balance-sim tune GAME --param KEY (--values ... | --range START:STOP:STEP) [--param KEY ...]
                     --target METRIC=VALUE[:TOLERANCE] | METRIC=LOW..HIGH [--target ...] --budget GAMES
                     [-s A,B] [-p P] [--seed S] [-j J] [-o DIR] [--max-candidates 64]
    """
    from sim.sweep import parse_target, tune as run_tune, variant_label
    from analysis.report import fmt_metric
    params, rest = _split_params(list(args))
    parser = _options_parser("tune")
    parser.add_argument("--budget", type=int, required=True)
    parser.add_argument("--max-candidates", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=500)
    opts = parser.parse_args(rest)
    if not params:
        raise UserError("tune: give at least one --param KEY with --values or --range")
    if not opts.targets:
        raise UserError("tune: give at least one --target METRIC=VALUE[:TOLERANCE]")
    targets = [parse_target(t) for t in opts.targets]
    spec, players, cfg, chosen, rr = load_setup(game, opts.config_file, opts.sets, opts.players, opts.strategies)
    out = Path(opts.out) if opts.out else Path("reports") / f"{spec.name}-tune"
    ranking, spent = run_tune(spec, players, chosen, rr, params, targets, opts.budget, opts.seed, opts.jobs,
                              opts.config_file, opts.sets, out, opts.max_candidates, opts.batch_size,
                              opts.backend, opts.scheduler, opts.quiet)
    click.echo(f"spent {spent:,} of {opts.budget:,} games; best candidates:")
    for entry in ranking[:5]:
        click.echo(f"  {variant_label(entry['params'])}  ({entry['games']:,} games)")
        for metric, m in entry["targets"].items():
            click.echo(f"    {metric}: {fmt_metric(metric, m)}  target {m['band'][0]:g}..{m['band'][1]:g}: "
                       f"{m['verdict']}")
    click.echo(str(out / "tune.json"))


@main.command("main")
@click.option("-o", "--out", default="reports", show_default=True, type=click.Path(file_okay=False))
@click.option("-j", "--jobs", type=int, default=-1, show_default=True)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("--scale", type=float, default=1.0, show_default=True, help="Multiply each game's default count.")
def main_job(out, jobs, seed, scale):
    """The main job: every game on its defaults (all strategies, seats rotated), with reports."""
    from sim.game import game_names
    from sim.runner import DEFAULT_BATCH, Plan
    from sim.warmup import compile_kernels
    setups = []
    for name in game_names():
        spec, players, cfg, chosen, rr = load_setup(name, None, (), None, "all")
        setups.append((spec, players, cfg, chosen, rr, max(1, int(spec.default_games * scale))))
    # every kernel compiled at once, one process each, before the games are played one after another
    compile_kernels([(spec.name, cfg, Plan(spec.name, players, n, seed, chosen, DEFAULT_BATCH, rr))
                     for spec, players, cfg, chosen, rr, n in setups], jobs)
    written = []
    for spec, players, cfg, chosen, rr, n in setups:
        folder = run_to_folder(spec, players, cfg, chosen, rr, n, seed, jobs, Path(out) / spec.name,
                               DEFAULT_BATCH, "loky", None, True, False, False)
        written.append(folder / "report.html")
    for path in written:
        click.echo(str(path))


if __name__ == "__main__":
    main()
