"""`balance-sim strategies` and `balance-sim config`: what a game offers to choose from."""
from __future__ import annotations

import click

from sim.commands.options import config_options
from sim.config import build, default_text
from sim.game import get_game
from sim.registry import all_names


@click.command("strategies")
@click.argument("game")
@config_options
def strategies_cmd(game, config_file, sets):
    """List the strategies and presets of GAME, one per line."""
    spec = get_game(game)
    cfg = spec.validate(build(spec.package, config_file, tuple(sets)), spec.default_players)
    click.echo("\n".join(all_names(spec.name, cfg.presets)))


@click.command("config")
@click.argument("game")
def config_cmd(game):
    """Print the full default configuration of GAME as commented TOML."""
    click.echo(default_text(get_game(game).package), nl=False)
