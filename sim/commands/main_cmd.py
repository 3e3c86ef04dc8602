"""`balance-sim main`: the main job, every game on its defaults with reports (what `make run` runs)."""
from __future__ import annotations

from pathlib import Path

import click

from sim import inputs, results, warmup
from sim.commands.run_cmd import run_to_folder
from sim.rng import DEFAULT_BATCH
from sim.setup import DEFAULT_SEED, main_jobs, main_setups


@click.command("main")
@click.option("-o", "--out", default="reports", show_default=True, type=click.Path(file_okay=False))
@click.option("-j", "--jobs", type=int, default=-1, show_default=True)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("--scale", type=float, default=1.0, show_default=True, help="Multiply each game's default count.")
def main_job(out, jobs, seed, scale):
    """The main job: every game on its defaults (all strategies, seats rotated), with reports."""
    inputs.jobs(jobs)
    inputs.seed(seed)
    inputs.scale(scale)
    inputs.output_folder(out, staged=False, own_name=False)  # the games' folders are made inside it
    setups = main_setups(scale)  # every game checked before the first is played
    for spec, *_ in setups:
        inputs.output_folder(Path(out) / spec.name)
        results.check_output(Path(out) / spec.name, "run")
    # kernels compiled in the background while the games play, each once ready; after the checks, so that in a
    # fresh venv the parent and the processes do not byte-compile the same modules side by side
    warmup.compile_kernels(main_jobs(setups, seed), jobs)
    left = {setup[0].name: setup for setup in setups}
    while left:
        spec, players, cfg, chosen, rr, n = left.pop(warmup.first_ready(list(left)))
        run_to_folder(spec, players, cfg, chosen, rr, n, seed, jobs, Path(out) / spec.name, DEFAULT_BATCH, "loky",
                      None, True, False, False)
    click.echo("\n".join(str(Path(out) / spec.name / "report.html") for spec, *_ in setups))
