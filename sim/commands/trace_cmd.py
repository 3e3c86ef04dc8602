"""`balance-sim trace`: one game as JSON lines (schemas: docs/trace.md)."""
from __future__ import annotations

import json

import click

from sim.commands.options import (DEFAULT_STRATEGY, config_options, default_lineup, game_options, refuse_with_run,
                                  say_default_lineup)
from sim.setup import DEFAULT_SEED, choose_game


@click.command()
@click.argument("game", required=False)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("-s", "--strategies", default=None,
              help="Strategies by seat, comma-separated (one name: every seat plays it). "
                   f"Default: every seat plays {DEFAULT_STRATEGY} (said on stderr).")
@click.option("-p", "--players", type=int, default=None)
@game_options
@config_options
def trace(**which):
    """Play one game and print it as JSON lines (schemas: docs/trace.md)."""
    refuse_with_run(which)
    note = default_lineup(which)
    chosen = choose_game(**which)
    say_default_lineup(note)
    for event in chosen.events():
        click.echo(json.dumps(event, separators=(",", ":")))
