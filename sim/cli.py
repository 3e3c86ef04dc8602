"""The `balance-sim` command line. Every mistake in a flag or configuration is one line on stderr, exit 2."""
from __future__ import annotations

import contextlib
import importlib
import json
import platform
import sys
import warnings
from datetime import datetime, timezone
from pathlib import Path

import click
from click.core import ParameterSource

import sim
from analysis.progress import reporting
from sim import inputs
from sim.config import build, default_text, parse_value
from sim.errors import UserError, machine_errors, stopped_part_way
from sim.evolve_cmd import evolve, exploit
from sim.game import game_names, get_game
from sim.lock import exclusive, shared
from sim.replay_cmd import choose_game, game_options, replay

DEFAULT_SEED = 1
QUIET_MODULES = r"(joblib|loky)(\.|$)"  # -q: their UserWarnings are silenced too
# joblib warns that "0 tasks ... have been cancelled" when a result generator is closed after its last result:
# nothing was cancelled, so it is noise on every parallel run.
warnings.filterwarnings("ignore", message=r"0 tasks which were still being processed", category=UserWarning)


def _fail(message: str) -> None:
    click.echo(f"balance-sim: error: {message}", err=True)
    sys.exit(2)


class Group(click.Group):
    """Turns our UserError and click's own usage errors into one line on stderr and exit code 2."""

    def invoke(self, ctx):
        try:
            with machine_errors(lambda exc: f"cannot write {exc.filename or 'the results'}: {exc.strerror}"):
                return super().invoke(ctx)
        except UserError as exc:
            _fail(str(exc))

    def main(self, *args, **kwargs):
        if not args and "args" not in kwargs:  # the installed program itself (click's test runner passes args)
            import sim.runner
            sim.runner.IGNORE_SIGNALS_ONCE_STOPPED = True
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


def _config_options(f):
    f = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                     help="Override one configuration key (dotted, TOML value); repeatable.")(f)
    f = click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
                     help="A TOML file of configuration keys (see 'balance-sim config GAME').")(f)
    return f


def _say(line: str) -> None:
    """A progress line (analysis.progress): on stderr, so stdout keeps only the paths a command prints."""
    click.echo(line, err=True)


def load_setup(game: str, config_file, sets, players, strategies: str):
    """Everything validated before any game is played: game, players, configuration, strategies."""
    from sim.registry import all_names, choices, round_robin_names
    spec = get_game(game)
    players = spec.check_players(players if players is not None else spec.default_players)
    cfg = spec.validate(build(spec.package, config_file, tuple(sets)), players)
    for line in getattr(cfg, "warnings", ()):
        click.echo(f"balance-sim: warning: {line}", err=True)
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    from sim.registry import alias_of
    for old in sorted({n for n in names if n not in cfg.presets and alias_of(spec.name, n)}):
        click.echo(f"balance-sim: note: strategy '{old}' is now called '{alias_of(spec.name, old)}'; the old name "
                   "still works as an alias", err=True)
    round_robin = names == ["all"]
    if round_robin:  # search players cost milliseconds a move: they play only when named
        names = round_robin_names(spec.name, cfg.presets)
    if not names:
        raise UserError("--strategies: give one or more names separated by commas, or 'all'; allowed: "
                        + ", ".join(all_names(spec.name, cfg.presets)))
    return spec, players, cfg, tuple(choices(spec.name, cfg.presets, names)), round_robin


@main.command()
@click.argument("game", required=False)
@click.option("-n", "--games", "n_games", type=int, default=None, help="Games (matches) to play.")
@click.option("-s", "--strategies", default="all", show_default=True,
              help="Strategies or presets by seat, comma-separated; 'all' = every registered heuristic "
                   "and every preset with round_robin = true (search players only when named).")
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
    inputs.jobs(jobs)
    if scheduler and backend != "dask":
        raise UserError("--scheduler goes with --backend dask")
    if quiet:  # no joblib or loky UserWarnings either (worker restarts and the like), only errors
        warnings.filterwarnings("ignore", category=UserWarning, module=QUIET_MODULES)
    if resume:
        _refuse_with_resume(click.get_current_context())
        inputs.named_folder(resume, "--resume")
        inputs.dask_scheduler(backend, scheduler)
        folder = resume_run(Path(resume), jobs, backend, scheduler, not no_report, quiet)
    else:
        if not game:
            raise UserError("missing GAME; allowed: " + ", ".join(game_names()))
        if n_games is not None:
            inputs.games(n_games)
        batch_size = inputs.batch_size(DEFAULT_BATCH if batch_size is None else batch_size)
        inputs.seed(seed)
        if out is not None:
            inputs.output_folder(out)
        spec, players, cfg, chosen, everyone = load_setup(game, config_file, sets, players, strategies)
        if round_robin and players != 2:
            raise UserError(f"--round-robin: pairings are for two players; {spec.name} has {players} here "
                            "(more players rotate the listed strategies through the seats)")
        round_robin = round_robin or everyone
        n_games = spec.default_games if n_games is None else n_games
        out = Path(out) if out is not None else inputs.output_folder(Path("reports") / spec.name)
        inputs.dask_scheduler(backend, scheduler)
        folder = run_to_folder(spec, players, cfg, chosen, round_robin, n_games, seed, jobs, out, batch_size,
                               backend, scheduler, not no_report, debug, quiet, summary_only)
    if not quiet:
        click.echo(str(folder / "report.html") if not no_report else str(folder))


RUN_IDENTITY = ("game", "players", "games", "seed", "summary_only", "strategies", "round_robin", "batch_size",
                "debug", "config")
RESUMABLE = {"resume", "jobs", "backend", "scheduler", "no_report", "quiet"}  # how, not what, is played


def _refuse_with_resume(ctx: click.Context) -> None:
    """--resume finishes a run exactly as it was started: an option that would change what is played (games,
    seed, strategies, configuration, output) is refused rather than silently ignored."""
    given = [p for p in ctx.command.params if p.name not in RESUMABLE
             and ctx.get_parameter_source(p.name) not in (ParameterSource.DEFAULT, None)]
    if given:
        name = max(given[0].opts, key=len) if given[0].opts else given[0].name
        raise UserError(f"{name} cannot be given with --resume: a resumed run plays what it was started with "
                        f"(only -j, --backend, --scheduler, --no-report and -q apply); start a new run to change it")


def run_to_folder(spec, players, cfg, chosen, round_robin, n_games, seed, jobs, out, batch_size, backend,
                  scheduler, report: bool, debug: bool, quiet: bool, summary_only: bool = False) -> Path:
    from sim import results
    from sim.runner import Plan
    meta = {
        "kind": "run", "game": spec.name, "players": players, "games": n_games, "seed": seed, "summary_only": summary_only,
        "strategies": [{"name": c.name, "base": c.base, "params": list(c.params)} for c in chosen],
        "round_robin": round_robin, "batch_size": batch_size, "debug": debug, "config": cfg.raw,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": {"balance-sim": sim.__version__, "python": platform.python_version(),
                     **{lib: importlib.import_module(lib).__version__ for lib in ("numpy", "numba", "pandas", "joblib")}},
    }
    meta["identity"] = results.identity({k: meta[k] for k in RUN_IDENTITY})
    with exclusive(out):
        results.check_output(out, "run")
        with machine_errors(lambda exc: f"-o {out}: cannot write there ({exc.strerror or exc})"):
            staging = results.begin(out, meta, quiet)  # continues the same command's interrupted run, if any
        plan = Plan(spec.name, players, n_games, seed, tuple(chosen), batch_size, round_robin)
        return _complete(spec, cfg, plan, meta, staging, out, jobs, backend, scheduler, report, quiet)


def resume_run(folder: Path, jobs, backend, scheduler, report: bool, quiet: bool) -> Path:
    from sim import meta as folder_meta, results
    from sim.runner import plan_of
    staging, out = results.partial_path(folder), results.final_path(folder)
    with exclusive(out, "--resume"):
        if staging.is_symlink() or out.is_symlink():
            raise UserError(f"--resume {folder}: {staging if staging.is_symlink() else out} is a symbolic link; "
                            "give the folder it points to")
        if not staging.is_dir():
            raise UserError(f"--resume {folder}: no interrupted run there (expected {staging})")
        if not (staging / results.META).is_file():
            raise UserError(f"--resume {folder}: {staging} is not a balance-sim run in progress (no meta.json)")
        meta = folder_meta.read(staging)  # a damaged one is said as such
        if not results.is_ours(staging):
            raise UserError(f"--resume {folder}: {staging} is not a balance-sim run in progress")
        kind = folder_meta.kind_of(meta)
        if kind != "run":  # each command continues only its own kind of folder
            raise UserError(f"--resume {folder}: that is an interrupted {kind}; run the same 'balance-sim {kind}' "
                            "command again to continue it")
        if not meta.get("partial"):
            raise UserError(f"--resume {folder}: {staging / 'meta.json'} says the run finished; nothing to resume")
        run = folder_meta.check_run(staging, meta, "--resume")
        results.check_output(out, "run", "--resume")
        return _complete(run["spec"], run["config"], plan_of(run), meta, staging, out, jobs, backend, scheduler,
                         report, quiet)


def _complete(spec, cfg, plan, meta, staging, out, jobs, backend, scheduler, report, quiet) -> Path:
    from sim import results
    from sim.batches import saved_batches
    from sim.runner import execute
    batch_dir = staging / results.BATCHES
    summary_meta = {k: meta[k] for k in ("game", "players", "config", "strategies", "seed")} \
        if meta.get("summary_only") else None

    def saved() -> str:
        done = len(saved_batches(batch_dir, summary_meta is not None))
        return f"{done} of {plan.n_batches} batches are saved in {staging}"

    for stale in [staging / "report.html", staging / "summary.json", *staging.glob("*.png")]:
        stale.unlink(missing_ok=True)  # a report of the partial run ('report DIR.partial') is not this run's
    if (staging / "replays").is_dir() and not (staging / "replays").is_symlink():
        import shutil
        shutil.rmtree(staging / "replays")
    with stopped_part_way(saved, f"finish with 'balance-sim run --resume {out}'",
                          f" or report them with 'balance-sim report {staging}'", workers_sep=":"):
        sink = None if summary_meta else results.ParquetSink(staging, spec, plan)
        tables, timing = execute(spec, cfg, plan, jobs=jobs, backend=backend, scheduler=scheduler,
                                 debug=meta.get("debug", False), progress=not quiet, batch_dir=batch_dir,
                                 summary_meta=summary_meta, sink=sink)
        meta = {**meta, "partial": False, "timing": timing, "jobs": jobs, "backend": backend}
        if summary_only := meta.get("summary_only"):
            from analysis.report import build_summary_report
            build_summary_report(tables["summary"], meta, staging)
        else:
            sink.close()  # the tables were streamed to Parquet batch by batch
        if report and not summary_only:
            from analysis.report import build_report
            from sim.warmup import wait
            wait(spec.name, "trace")  # the sample games' trace, if `main` is compiling it in the background
            with reporting(None if quiet else _say):
                build_report(results.read_tables(staging), meta, staging)
        if not summary_only:  # what a reader checks the tables against (a table cut short is refused)
            meta["tables"] = results.table_rows(staging)
        results.write_meta(staging, meta)
        results.finish(staging, out)
    if not quiet and timing["games_per_second"]:
        click.echo(f"{spec.name}: {timing['games_played_now']:,} games in {timing['seconds']:.1f} s "
                   f"({timing['games_per_second']:,.0f}/s), seed {meta['seed']}", err=True)
    return out


@main.command()
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("-o", "--out", default=None, type=click.Path(file_okay=False),
              help="Where to write the report (default: the results folder itself).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
def report(folder, out, quiet):
    """Write report.html, the plots and summary.json for a results FOLDER."""
    from analysis.report import build_report, build_summary_report, write_atomically
    from sim import report_folder, results
    folder = Path(folder)
    if out is not None:
        inputs.output_folder(out, staged=False, own_name=False)  # written into: '.' is a place too
    if not folder.is_dir():  # before its lock, which would make the folders above it
        raise UserError(f"{folder}: no such folder")
    if out is not None:
        if Path(out).exists() and folder.exists() and Path(out).resolve() == folder.resolve():
            out = None  # -o the folder itself: the default
    target = Path(out) if out is not None else folder
    with contextlib.ExitStack() as held:
        if out is None:  # the report is written into the folder: a writer of it
            held.enter_context(exclusive(folder, "report"))
            results.check_installable(folder, ("report.html",))  # before minutes of building
        else:
            held.enter_context(shared(folder, "report"))
            held.enter_context(exclusive(target))
            results.check_output(target, "report")
        kind, content, meta = report_folder.load(folder)
        if meta.get("partial"):
            click.echo(f"partial run: reporting the {meta['games']:,} of {meta['planned_games']:,} games that "
                       "finished", err=True)
        if kind == "tables" and meta.get("partial") and "summary" in content:  # an interrupted --summary-only run
            kind, content = "summary", {**content["summary"], "partial": True}  # its batches merged
        build = build_summary_report if kind == "summary" else build_report

        def build_in(staging: Path):
            summary = build(content, meta, staging)
            if out is not None:  # a folder of its own: marked ours, so a later report may replace it
                names = sorted({p.name for p in staging.iterdir()} | {results.META})
                results.write_meta(staging, {"kind": "report", "game": meta["game"], "source": str(folder),
                                             "partial": bool(meta.get("partial")), "files": names})
            return summary

        try:
            with machine_errors(lambda exc: f"cannot write the report in {target}: {exc.strerror}; nothing there "
                                            "was changed"):
                with reporting(None if quiet else _say):
                    write_atomically(target, build_in)
        except KeyError as exc:  # a column the game's analysis needs: tables edited, or copied from another run
            raise UserError(f"{folder}: its tables lack {exc} that a {meta['game']} report needs (edited, or from "
                            "another run?); make it again with 'balance-sim run'") from None
    click.echo(str(target / "report.html"))


@main.command()
@click.argument("dir_a")
@click.argument("dir_b")
@click.option("-o", "--out", default=None, type=click.Path(file_okay=False),
              help="Where to write compare.html and compare.json (default reports/compare-A-vs-B).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
def compare(dir_a, dir_b, out, quiet):
    """Every headline figure of results folder DIR_B minus DIR_A, with 95% intervals and a verdict; paired
    game by game when both runs share seed, batch size and lineups (common random numbers)."""
    from analysis.compare import run_compare
    if out is not None:
        inputs.output_folder(out, staged=False)
    with reporting(None if quiet else _say):
        folder = run_compare(Path(dir_a), Path(dir_b), Path(out) if out is not None else None)
    click.echo(str(folder / "compare.html"))


@main.command()
@click.argument("game", required=False)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("-s", "--strategies", default="greedy", show_default=True,
              help="Strategies by seat, comma-separated (one name: every seat plays it).")
@click.option("-p", "--players", type=int, default=None)
@game_options
@_config_options
def trace(**which):
    """Play one game and print it as JSON lines (schemas: docs/trace.md)."""
    for event in choose_game(**which).events():
        click.echo(json.dumps(event, separators=(",", ":")))


@main.command("strategies")
@click.argument("game")
@_config_options
def strategies_cmd(game, config_file, sets):
    """List the strategies and presets of GAME, one per line."""
    from sim.registry import all_names
    spec = get_game(game)
    cfg = spec.validate(build(spec.package, config_file, tuple(sets)), spec.default_players)
    click.echo("\n".join(all_names(spec.name, cfg.presets)))


@main.command("config")
@click.argument("game")
def config_cmd(game):
    """Print the full default configuration of GAME as commented TOML."""
    click.echo(default_text(get_game(game).package), nl=False)


@main.command()
@click.argument("games", nargs=-1)
@click.option("-n", "--games-per-run", "n_games", type=int, default=20_000, show_default=True)
@click.option("-j", "--jobs", type=int, default=2, show_default=True, help="Workers for the parallel figure.")
@click.option("--strength-games", "n_strength", type=int, default=40, show_default=True,
              help="Games of each search preset against greedy, for its win rate; 0 skips them.")
def bench(games, n_games, jobs, n_strength):
    """Matches per second per strategy pairing, on one core and on JOBS workers; search players' decisions per
    CPU-second beside their win rate against greedy."""
    from sim.bench import run_bench, strength_games
    inputs.positive("--games-per-run", n_games, inputs.MAX_BENCH_GAMES)
    inputs.jobs(jobs, allow_all=False)
    strength_games(n_strength)
    for name in games:
        get_game(name)
    run_bench(list(games), n_games, jobs, n_strength)


def _is_option(token: str) -> bool:
    """`-n`, `--seed`: an option; `-1`, `-0.5`: a negative value."""
    try:
        float(token)
    except ValueError:
        return token.startswith("-")
    return False


def _split_params(tokens: list[str]) -> tuple[list, list[str]]:
    """Pull `--param KEY (--values V1 V2 ... | --range START:STOP:STEP)` groups out of the arguments."""
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
            j = next((k for k in range(i + 1, len(tokens)) if _is_option(tokens[k])), len(tokens))
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


def _parse_options(prog: str, args, *own: tuple):
    """The `--param` groups, then the options sweep and tune share and their `own` ((flag, argparse keywords), ...)."""
    import argparse
    params, rest = _split_params(list(args))

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
    for flag, kwargs in own:
        parser.add_argument(flag, **kwargs)
    return params, parser.parse_args(rest)


MAX_CANDIDATES = 4096  # tune: candidates drawn from the grid (each is played at least one batch)
_PASS_THROUGH = {"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": ["-h", "--help"]}


def _sweep_setup(kind: str, game: str, opts, targets) -> tuple:
    """What sweep and tune share once their own options are checked: the common options, then the validated
    setup, the output folder (default reports/<game>-<kind>) and the targets' names, all before anything is
    played. Returns (spec, players, chosen, round_robin, out)."""
    from sim.sweep import check_targets
    inputs.jobs(opts.jobs)
    inputs.seed(opts.seed)
    inputs.batch_size(opts.batch_size)
    if opts.scheduler and opts.backend != "dask":
        raise UserError("--scheduler goes with --backend dask")
    if opts.out is not None:
        inputs.output_folder(opts.out)
    if opts.quiet:
        warnings.filterwarnings("ignore", category=UserWarning, module=QUIET_MODULES)
    spec, players, cfg, chosen, rr = load_setup(game, opts.config_file, opts.sets, opts.players, opts.strategies)
    out = Path(opts.out) if opts.out is not None else inputs.output_folder(Path("reports") / f"{spec.name}-{kind}")
    check_targets(spec, cfg, players, chosen, rr, targets)
    inputs.dask_scheduler(opts.backend, opts.scheduler)
    return spec, players, chosen, rr, out


@main.command(context_settings=_PASS_THROUGH)
@click.argument("game")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def sweep(game, args):
    """Play GAME once per parameter value (or grid) on common random numbers and compare.

    \b
    balance-sim sweep GAME --param KEY --values V1 V2 ... [--param KEY2 --range START:STOP:STEP]
                      [-n N] [-s A,B] [-p P] [--seed S] [-j J] [-o DIR] [--target METRIC=VALUE[:TOL]]
                      [--reports] [--config FILE] [--set KEY=VALUE] [--baseline VALUE | KEY=VALUE ... | #I]
    Writes DIR/variant-NNN/ (a results folder each), sweep.csv, sweep.parquet and sweep_report.html, with each
    variant's paired difference from the baseline (default: the first variant).
    """
    from sim.sweep import parse_target, run_sweep
    params, opts = _parse_options("sweep", args, ("--reports", {"action": "store_true"}),
                                  ("--batch-size", {"type": int, "default": 2000}),
                                  ("--baseline", {"action": "append", "default": []}))
    if not 1 <= len(params) <= 2:
        raise UserError("sweep: give one or two --param KEY with --values or --range")
    targets = [parse_target(t) for t in opts.targets]
    n_games = inputs.games(20_000 if opts.games is None else opts.games)
    spec, players, chosen, rr, out = _sweep_setup("sweep", game, opts, targets)
    folder, lines = run_sweep(spec, players, chosen, rr, params, opts.config_file, opts.sets, n_games, opts.seed,
                              opts.jobs, out, opts.batch_size, opts.reports, targets, opts.backend, opts.scheduler,
                              opts.quiet, opts.baseline)
    click.echo("\n".join([*lines, str(folder / "sweep_report.html")]))


@main.command(context_settings=_PASS_THROUGH)
@click.argument("game")
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
    params, opts = _parse_options("tune", args, ("--budget", {"type": int, "required": True}),
                                  ("--max-candidates", {"type": int, "default": 64}),
                                  ("--batch-size", {"type": int, "default": 500}))
    if not params:
        raise UserError("tune: give at least one --param KEY with --values or --range")
    if not opts.targets:
        raise UserError("tune: give at least one --target METRIC=VALUE[:TOLERANCE]")
    targets = [parse_target(t) for t in opts.targets]
    inputs.positive("--budget", opts.budget)
    inputs.positive("--max-candidates", opts.max_candidates, MAX_CANDIDATES)
    spec, players, chosen, rr, out = _sweep_setup("tune", game, opts, targets)
    ranking, spent = run_tune(spec, players, chosen, rr, params, targets, opts.budget, opts.seed, opts.jobs,
                              opts.config_file, opts.sets, out, opts.max_candidates, opts.batch_size,
                              opts.backend, opts.scheduler, opts.quiet)
    from analysis.tune import tune_findings
    click.echo(f"spent {spent:,} of {opts.budget:,} games; best candidates:")
    for entry in ranking[:5]:
        click.echo(f"  {variant_label(entry['params'])}  ({entry['games']:,} games)")
        for metric, m in entry["targets"].items():
            band = (f"{m['band'][0]:.1%}..{m['band'][1]:.1%}" if "rate" in metric
                    else f"{m['band'][0]:g}..{m['band'][1]:g}")
            click.echo(f"    {metric}: {fmt_metric(metric, m)}  target {band}: {m['verdict']}")
    verdict = tune_findings({"ranking": ranking, "spent": spent, "budget": opts.budget})
    if verdict and verdict[0]["id"] == "none_meets":
        click.echo(verdict[0]["text"])
    click.echo(str(out / "tune.json"))
    click.echo(str(out / "tune.html"))


@main.command()
@click.argument("game")
@click.option("--param", "params", multiple=True, metavar="KEY[=LO:HI]",
              help="A knob: a numeric key (default range +-30% around its default, narrowed to what the game "
                   "accepts) or KEY=LO:HI; a whole list (tokens.diamond) is scaled by a factor. Repeatable.")
@click.option("--all-numeric", is_flag=True, help="Every numeric key of the configuration, lists element-wise "
                                                  "(strategy presets and report settings left out).")
@click.option("--metric", "metrics", multiple=True, metavar="M",
              help="A figure of summary.json (default: every headline figure); repeatable.")
@click.option("--method", type=click.Choice(["morris", "sobol"]), default="morris", show_default=True,
              help="Morris elementary effects to screen many knobs; Sobol indices for a short list.")
@click.option("-n", "--games", "n_games", type=int, default=None, help="Games per design point.")
@click.option("--budget", type=int, default=None, help="Most games in all (design points x games per point).")
@click.option("--spread", type=float, default=0.3, show_default=True,
              help="Default range: this fraction either side of a knob's default.")
@click.option("--levels", type=int, default=4, show_default=True, help="Morris grid levels (even).")
@click.option("-s", "--strategies", default="all", show_default=True)
@click.option("-p", "--players", type=int, default=None)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("-j", "--jobs", type=int, default=1, show_default=True,
              help="Workers for each design point's batches (helps when -n exceeds --batch-size).")
@click.option("--batch-size", type=int, default=None, help="Games per batch (default 2000).")
@click.option("-o", "--out", "out", type=click.Path(file_okay=False), default=None,
              help="Output folder (default reports/<game>-sensitivity).")
@click.option("-q", "--quiet", is_flag=True)
@_config_options
def sensitivity(game, params, all_numeric, metrics, method, n_games, budget, spread, levels, strategies, players,
                seed, jobs, batch_size, out, quiet, config_file, sets):
    """Rank the configuration numbers that move GAME's figures most (Morris or Sobol, on common random numbers).

    \b
    balance-sim sensitivity GAME (--param KEY[=LO:HI] ... | --all-numeric) [--metric M ...] [-n N]
                            [--budget GAMES] [--method morris|sobol] [-s A,B] [-o DIR]
    Writes DIR/sensitivity.html (a tornado chart per metric), sensitivity.csv and points.csv.
    """
    from sim import sensitivity as S
    from sim.runner import DEFAULT_BATCH
    if bool(params) == all_numeric:
        raise UserError("sensitivity: give --param KEY[=LO:HI] (repeatable) or --all-numeric, not both")
    if n_games is not None:
        inputs.positive("--games", n_games, S.MAX_GAMES_PER_POINT)  # a point's games are held in memory
    if budget is not None:
        inputs.positive("--budget", budget)
    if batch_size is not None:
        inputs.batch_size(batch_size)
    inputs.seed(seed)
    if not 0 < spread < 1:
        raise UserError(f"--spread {spread}: must be between 0 and 1 (0.3 = +-30%)")
    if not 2 <= levels <= S.MAX_LEVELS or levels % 2:
        raise UserError(f"--levels {levels}: must be an even number from 2 to {S.MAX_LEVELS} (4 is usual)")
    inputs.jobs(jobs)
    if out is not None:
        inputs.output_folder(out)
    spec, players, cfg, chosen, rr = load_setup(game, config_file, sets, players, strategies)
    base = cfg.raw  # the built configuration, before validation turned it into the game's arrays
    factors, left_out, check = S.make_knobs(spec, players, base, list(params), spread)
    if not factors:
        raise UserError("sensitivity: no knob has a range to vary; " + "; ".join(left_out[:3]))
    if method == "sobol" and len(factors) > S.MAX_SOBOL_KNOBS:
        raise UserError(f"--method sobol: for at most {S.MAX_SOBOL_KNOBS} knobs (got {len(factors)}); screen them "
                        "with --method morris first")
    for m in metrics:
        if not m or any(c.isspace() for c in m):
            raise UserError(f"--metric {m!r}: not a metric name")
    blocks, n_games = S.size_design(method, len(factors), n_games, budget)
    design = S.build_design(factors, method, blocks, seed, check, levels)
    out = Path(out) if out else Path("reports") / f"{spec.name}-sensitivity"
    if not quiet:
        click.echo(f"{len(factors)} knobs, {design.blocks} {S.BLOCK_WORDS[method]} x {design.size} points x "
                   f"{n_games:,} games; {sum(design.skipped.values())} refused points replaced", err=True)
    _, lines, folder = S.run_sensitivity(spec, players, chosen, rr, base, list(metrics), design, n_games, seed,
                                         jobs, batch_size or DEFAULT_BATCH, out, quiet, budget, left_out)
    click.echo("\n".join([*lines, str(folder / "sensitivity.html")]))


def main_setups(scale: float = 1.0) -> list[tuple]:
    """The main job's games, each (spec, players, config, strategies, round robin, games): its defaults, every
    heuristic, seats rotated."""
    setups = []
    for name in game_names():
        spec, players, cfg, chosen, rr = load_setup(name, None, (), None, "all")
        n = inputs.games(max(1, int(spec.default_games * scale)), f"--scale {scale:g}: {spec.name} would play")
        setups.append((spec, players, cfg, chosen, rr, n))
    return setups


def main_jobs(setups: list[tuple], seed: int = DEFAULT_SEED) -> list[tuple]:
    """The compile jobs of the main job's games, (game, config, Plan), as sim.warmup takes them."""
    from sim.runner import DEFAULT_BATCH, Plan
    return [(spec.name, cfg, Plan(spec.name, players, n, seed, chosen, DEFAULT_BATCH, rr))
            for spec, players, cfg, chosen, rr, n in setups]


@main.command("main")
@click.option("-o", "--out", default="reports", show_default=True, type=click.Path(file_okay=False))
@click.option("-j", "--jobs", type=int, default=-1, show_default=True)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("--scale", type=float, default=1.0, show_default=True, help="Multiply each game's default count.")
def main_job(out, jobs, seed, scale):
    """The main job: every game on its defaults (all strategies, seats rotated), with reports."""
    from sim import results, warmup
    from sim.runner import DEFAULT_BATCH
    inputs.jobs(jobs)
    inputs.seed(seed)
    inputs.scale(scale)
    inputs.output_folder(out, staged=False, own_name=False)  # the games' folders are made inside it
    setups = main_setups(scale)  # every game checked before the first is played
    for spec, *_ in setups:
        inputs.output_folder(Path(out) / spec.name)
        results.check_output(Path(out) / spec.name, "run")
    # the kernels compiled in the background, a process per core, while the games are played one after another,
    # each as soon as its kernel is ready. Not started before the checks: in a fresh venv (`make run`, installed
    # without byte-compiling) the parent and the processes would byte-compile the same modules side by side.
    warmup.compile_kernels(main_jobs(setups, seed), jobs)
    left = {setup[0].name: setup for setup in setups}
    while left:
        spec, players, cfg, chosen, rr, n = left.pop(warmup.first_ready(list(left)))
        run_to_folder(spec, players, cfg, chosen, rr, n, seed, jobs, Path(out) / spec.name, DEFAULT_BATCH, "loky",
                      None, True, False, False)
    click.echo("\n".join(str(Path(out) / spec.name / "report.html") for spec, *_ in setups))


main.add_command(replay)  # sim/replay_cmd.py
main.add_command(evolve)  # sim/evolve_cmd.py
main.add_command(exploit)


if __name__ == "__main__":
    main()
