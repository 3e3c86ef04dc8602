"""`balance-sim compare`: every headline figure of one results folder against another's."""
from __future__ import annotations

from pathlib import Path

import click

from analysis.compare import run_compare
from analysis.progress import reporting
from sim import inputs
from sim.commands.options import say


@click.command()
@click.argument("dir_a", callback=inputs.existing_folder)
@click.argument("dir_b", callback=inputs.existing_folder)
@click.option("-o", "--out", default=None, type=click.Path(file_okay=False),
              help="Where to write compare.html and compare.json (default reports/compare-A-vs-B).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
def compare(dir_a, dir_b, out, quiet):
    """Every headline figure of results folder DIR_B minus DIR_A, with 95% intervals and a verdict; paired
    game by game when both runs share seed, batch size and lineups (common random numbers)."""
    if out is not None:
        inputs.output_folder(out, staged=False)
    with reporting(None if quiet else say):
        folder = run_compare(Path(dir_a), Path(dir_b), Path(out) if out is not None else None)
    click.echo(str(folder / "compare.html"))
