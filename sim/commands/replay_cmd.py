"""`balance-sim replay`: one game (sim.setup.choose_game) as a self-contained HTML page to step through."""
from __future__ import annotations

from pathlib import Path

import click

from analysis.replay import is_replay_page, write_replay
from sim.commands.options import DEFAULT_STRATEGY, default_lineup, game_options, refuse_with_run, say_default_lineup
from sim.errors import UserError
from sim.lock import exclusive
from sim.results import check_output_file
from sim.setup import choose_game


@click.command()
@click.argument("game", required=False)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("-s", "--strategies", default=None,
              help="Strategies by seat, comma-separated (one name: every seat plays it); with --game, the run's. "
                   f"Default: every seat plays {DEFAULT_STRATEGY} (said on stderr and on the page).")
@click.option("-p", "--players", type=int, default=None)
@game_options
@click.option("-o", "--out", default="replay.html", show_default=True, type=click.Path(dir_okay=False),
              help="The HTML page to write.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override one configuration key (dotted, TOML value); repeatable.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="A TOML file of configuration keys (see 'balance-sim config GAME').")
def replay(out, **which):
    """Write one game as a self-contained HTML page to step through (the events of `trace`)."""
    if not str(out).strip():
        raise UserError("-o '': give a file path for the page")
    check_output_file(Path(out), "a replay page", is_replay_page)
    refuse_with_run(which)
    note = default_lineup(which)
    chosen = choose_game(**which)
    events = list(chosen.events())
    say_default_lineup(note)
    try:
        with exclusive(Path(out)):
            check_output_file(Path(out), "a replay page", is_replay_page)  # again, now that we hold it
            write_replay(Path(out), events, game_index=chosen.game, batch_size=chosen.batch_size, note=note)
    except OSError as exc:  # a folder given, a file where a folder should be, no room, no permission
        raise UserError(f"-o {out}: cannot write the page there ({exc.strerror or exc})") from None
    click.echo(str(out))
