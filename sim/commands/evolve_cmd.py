"""`balance-sim evolve`: flags to a setup, the search (sim.evolve), the page; `exploit` shares options and steps."""
from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from analysis.evolve_page import publish
from sim import evolve as E, inputs, meta as folder_meta, results
from sim.commands.options import backend_options, check_backend, out_or_default, refuse_with_resume
from sim.errors import UserError
from sim.registry import round_robin_names
from sim.setup import DEFAULT_SEED, load_setup

DEFAULT_BUDGET = 20_000
DEFAULT_VALIDATION = 2_000
EVOLVE_BATCH = 1_000  # games per batch: a candidate's games against one member rarely fill one


def options(f):
    for decorator in reversed([
        click.option("-p", "--players", type=int, default=None, help="Players (games that allow a choice)."),
        click.option("--param", "params", multiple=True, metavar="NAME",
                     help="Evolve only this parameter (repeatable; default: every declared parameter)."),
        click.option("--budget", type=int, default=DEFAULT_BUDGET, show_default=True,
                     help="Games the search may play (validation not counted)."),
        click.option("--popsize", type=int, default=None, help="Candidates per generation (default: cma's)."),
        click.option("--step", type=float, default=None,
                     help="CMA-ES's initial step, a fraction of each parameter's range (default 0.3; smaller: "
                          "search near a good start)."),
        click.option("--validation-games", type=int, default=DEFAULT_VALIDATION, show_default=True,
                     help="Held-out games per pool member and comparison."),
        click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="Root random seed."),
        click.option("-j", "--jobs", type=int, default=-1, show_default=True, help="Parallel workers (-1: all cores)."),
        backend_options,
        click.option("--batch-size", type=int, default=EVOLVE_BATCH, show_default=True),
        click.option("-o", "--out", type=click.Path(file_okay=False), default=None),
        click.option("--resume", type=click.Path(file_okay=False), default=None, callback=inputs.existing_folder,
                     help="Continue an interrupted search: its folder (or the .partial folder it left)."),
        click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None),
        click.option("--set", "sets", multiple=True, metavar="KEY=VALUE"),
        click.option("-q", "--quiet", is_flag=True),
    ]):
        f = decorator(f)
    return f


def check(o: dict) -> None:
    inputs.jobs(o["jobs"])
    inputs.seed(o["seed"])
    inputs.batch_size(o["batch_size"])
    inputs.positive("--budget", o["budget"])
    inputs.positive("--validation-games", o["validation_games"], inputs.MAX_GAMES)
    o["step"] = E.SIGMA0 if o["step"] is None else o["step"]
    E.check_step(o["step"])
    if o["popsize"] is not None and not 2 <= o["popsize"] <= 1000:
        raise UserError(f"--popsize {o['popsize']}: must be a whole number from 2 to 1,000")
    check_backend(o["backend"], o["scheduler"], o["quiet"])


def setup_of(kind: str, game, strategy, against, o: dict) -> dict:
    spec, players, cfg, _, _ = load_setup(game, o["config_file"], o["sets"], o["players"], strategy)
    if against is None:
        names = round_robin_names(spec.name, cfg.presets)
    else:
        names = [s.strip() for s in against.split(",") if s.strip()]
        if not names:
            raise UserError("--against: give one or more strategy or preset names separated by commas")
    validation = o["validation_games"]
    if click.get_current_context().get_parameter_source("validation_games") == ParameterSource.DEFAULT:
        # not given: the validation plays no more games than the search may (a search player's game takes seconds)
        validation = min(DEFAULT_VALIDATION, max(1, o["budget"] // (2 * len(names) + 1)))
    return {"kind": kind, "game": spec.name, "players": players, "strategy": strategy, "against": names,
            "weights": None, "params": list(o["params"]), "budget": o["budget"], "seed": o["seed"],
            "popsize": o["popsize"], "step": o["step"], "validation_games": validation,
            "batch_size": o["batch_size"], "config": cfg.raw}


def _resume_setup(folder: str, command: str) -> tuple[dict, Path]:
    staging, out = results.partial_path(Path(folder)), results.final_path(Path(folder))
    if not staging.is_dir() or not results.is_ours(staging):
        raise UserError(f"--resume {folder}: no interrupted {command} there (expected {staging})")
    meta = folder_meta.read(staging)
    setup = meta.get("evolve")
    if meta.get("command") != command or not isinstance(setup, dict):
        raise UserError(f"--resume {folder}: {staging} is not an interrupted {command}")
    return setup, out


def go(setup: dict, o: dict, out: Path, publish, command: str) -> None:
    prepared = E.prepare(setup, o["jobs"], o["backend"], o["scheduler"])
    E.check_budget(prepared)
    inputs.dask_scheduler(o["backend"], o["scheduler"])

    def progress(rec: dict) -> None:
        if not o["quiet"]:
            click.echo(f"generation {rec['generation']}: best {max(rec['fitness']):.3f}, incumbent "
                       f"{rec['incumbent_fitness']:.3f} +- {1.96 * rec['incumbent_se']:.3f} "
                       f"({rec['games_per_member']} games a member, {rec['spent']:,} spent)", err=True)

    folder, lines = E.evolve_to_folder(setup, prepared, out, publish, command=command, quiet=o["quiet"],
                                       progress=progress)
    click.echo("\n".join([*lines, str(folder / f"{command}.html")]))


@click.command()
@click.argument("game", required=False)
@click.option("--strategy", "strategy", default=None, help="The registered strategy or preset to evolve.")
@click.option("--against", default=None, help="Pool, comma-separated (default: every heuristic of -s all).")
@options
def evolve(game, strategy, against, **o):
    """Tune a strategy's parameters with CMA-ES against a pool (common random numbers), validate on fresh deals.

    \b
    balance-sim evolve GAME --strategy NAME [--against A,B,...] [-p N] [--budget GAMES] [--seed S] [-o DIR]
    Writes DIR/evolve.html, history.csv, preset.toml (a preset `run --config` accepts) and evolve.json.
    """
    check(o)
    if o["resume"]:
        refuse_with_resume({"resume", "jobs", "backend", "scheduler", "quiet"}, "search",
                           "-j, --backend, --scheduler and -q")
        setup, out = _resume_setup(o["resume"], "evolve")
    else:
        if not game:
            raise UserError("evolve: missing GAME; e.g. 'balance-sim evolve mohur --strategy hoarder'")
        if not strategy:
            raise UserError("evolve: give --strategy NAME (a registered strategy or preset; "
                            f"'balance-sim strategies {game}' lists them)")
        if o["out"] is not None:
            inputs.output_folder(o["out"])
        setup = setup_of("evolve", game, strategy, against, o)
        out = out_or_default(o["out"], f"{setup['game']}-evolve")
    go(setup, o, out, publish, "evolve")
