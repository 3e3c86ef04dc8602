"""`balance-sim trace`: one game as JSON lines (schemas: docs/trace.md)."""
from __future__ import annotations

import json

import click

from sim.commands.options import config_options, game_options
from sim.setup import DEFAULT_SEED, choose_game


@click.command()
@click.argument("game", required=False)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("-s", "--strategies", default="greedy", show_default=True,
              help="Strategies by seat, comma-separated (one name: every seat plays it).")
@click.option("-p", "--players", type=int, default=None)
@game_options
@config_options
def trace(**which):
    """Play one game and print it as JSON lines (schemas: docs/trace.md)."""
    for event in choose_game(**which).events():
        click.echo(json.dumps(event, separators=(",", ":")))
