"""`balance-sim run`: play a game many times into a results folder, or finish an interrupted one (`--resume`)."""
from __future__ import annotations

import importlib
import platform
import shutil
from datetime import datetime, timezone
from pathlib import Path

import click

import sim
from analysis.progress import reporting
from analysis.report import build_report, build_summary_report
from analysis.summary import SUMMARISER
from sim import inputs, meta as folder_meta, results, warmup
from sim.batches import saved_batches
from sim.commands.options import (backend_options, check_backend, config_options, out_or_default,
                                  refuse_with_resume, say)
from sim.errors import UserError, machine_errors, stopped_part_way
from sim.game import game_names
from sim.lock import exclusive
from sim.rng import DEFAULT_BATCH
from sim.runner import Plan, ends_if_interrupted, execute, plan_of
from sim.setup import DEFAULT_SEED, from_meta, load_setup


@click.command()
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
@backend_options
@click.option("--resume", "resume", type=click.Path(file_okay=False), default=None, callback=inputs.existing_folder,
              help="Complete an interrupted run: its results folder (or the .partial folder it left).")
@click.option("--no-report", is_flag=True, help="Write the tables only.")
@click.option("--summary-only", is_flag=True,
              help="Aggregate the headline figures in the workers and keep no tables (flat memory at any -n).")
@click.option("--debug", is_flag=True, help="Check every invariant after every action (slow).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary line.")
@config_options
def run(game, n_games, strategies, players, round_robin, seed, jobs, out, batch_size, backend, scheduler, resume,
        no_report, summary_only, debug, quiet, config_file, sets):
    """Play GAME many times and write a results folder (tables, meta.json, report)."""
    inputs.jobs(jobs)
    check_backend(backend, scheduler, quiet)
    if resume:
        refuse_with_resume(RESUMABLE, "run", "-j, --backend, --scheduler, --no-report and -q",
                           "; start a new run to change it")
        inputs.named_folder(resume, "--resume")
        inputs.dask_scheduler(backend, scheduler)
        folder, no_report = resume_run(Path(resume), jobs, backend, scheduler, not no_report, quiet)
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
        out = out_or_default(out, spec.name)
        inputs.dask_scheduler(backend, scheduler)
        folder = run_to_folder(spec, players, cfg, chosen, round_robin, n_games, seed, jobs, out, batch_size,
                               backend, scheduler, not no_report, debug, quiet, summary_only)
    if not quiet:
        click.echo(str(folder / "report.html") if not no_report else str(folder))


RUN_IDENTITY = ("game", "players", "games", "seed", "summary_only", "strategies", "round_robin", "batch_size",
                "debug", "config")
RESUMABLE = {"resume", "jobs", "backend", "scheduler", "no_report", "quiet"}  # how, not what, is played


def run_to_folder(spec, players, cfg, chosen, round_robin, n_games, seed, jobs, out, batch_size, backend,
                  scheduler, report: bool, debug: bool, quiet: bool, summary_only: bool = False) -> Path:
    meta = {
        "kind": "run", "game": spec.name, "players": players, "games": n_games, "seed": seed, "summary_only": summary_only,
        "strategies": [{"name": c.name, "base": c.base, "params": list(c.params)} for c in chosen],
        "round_robin": round_robin, "batch_size": batch_size, "debug": debug, "config": cfg.raw,
        "no_report": not report,  # so that `run --resume` keeps the choice (how, not what: not in the identity)
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


def resume_run(folder: Path, jobs, backend, scheduler, report: bool, quiet: bool) -> tuple[Path, bool]:
    """(the finished folder, whether it was left without a report): a run started with --no-report stays so."""
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
        report = report and meta.get("no_report") is not True
        return _complete(run["spec"], run["config"], plan_of(run), meta, staging, out, jobs, backend, scheduler,
                         report, quiet), not report


def _complete(spec, cfg, plan, meta, staging, out, jobs, backend, scheduler, report, quiet) -> Path:
    batch_dir = staging / results.BATCHES
    summary_meta = {k: meta[k] for k in ("game", "players", "config", "strategies", "seed")} \
        if meta.get("summary_only") else None

    def saved() -> str:
        done = len(saved_batches(batch_dir, summary_meta is not None))
        return f"{done} of {plan.n_batches} batches are saved in {staging}"

    for stale in [staging / "report.html", staging / "summary.json", *staging.glob("*.png")]:
        stale.unlink(missing_ok=True)  # a report of the partial run ('report DIR.partial') is not this run's
    if (staging / "replays").is_dir() and not (staging / "replays").is_symlink():
        shutil.rmtree(staging / "replays")
    with stopped_part_way(saved, f"finish with 'balance-sim run --resume {out}'",
                          f" or report them with 'balance-sim report {staging}'", workers_sep=":"):
        sink = None if summary_meta else results.ParquetSink(staging, spec, plan)
        warmup.wait(spec.name)  # its kernel, if `main` is compiling it in the background
        tables, timing = execute(spec, cfg, plan, jobs=jobs, backend=backend, scheduler=scheduler,
                                 debug=meta.get("debug", False), progress=not quiet, batch_dir=batch_dir,
                                 summary_meta=summary_meta, summariser=SUMMARISER, sink=sink)
        meta = {**meta, "partial": False, "timing": timing, "jobs": jobs, "backend": backend}
        if meta.get("summary_only"):
            build_summary_report(tables["summary"], meta, staging)
        else:
            sink.close()  # the tables were streamed to Parquet batch by batch
            if report:
                warmup.wait(spec.name, "trace")  # the sample games' trace, if `main` is compiling it
                with reporting(None if quiet else say), ends_if_interrupted():
                    build_report(results.read_tables(staging), meta, staging, game_of_run=from_meta)
            meta["tables"] = results.table_rows(staging)  # what a reader checks the tables against
        results.write_meta(staging, meta)
        results.finish(staging, out)
    if not quiet and timing["games_per_second"]:
        click.echo(f"{spec.name}: {timing['games_played_now']:,} games in {timing['seconds']:.1f} s "
                   f"({timing['games_per_second']:,.0f}/s), seed {meta['seed']}", err=True)
    return out
