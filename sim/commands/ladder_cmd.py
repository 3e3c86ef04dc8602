"""`balance-sim ladder GAME`: a round robin of players on fresh deals, Elo with intervals (analysis.ladder)."""
from __future__ import annotations

import shlex
import sys

import click

from analysis import ladder as L
from sim import inputs, results
from sim.commands.options import backend_options, check_backend, out_or_default
from sim.errors import UserError
from sim.lock import exclusive
from sim.setup import DEFAULT_SEED, load_setup

DEFAULT_GAMES = 200
SEARCH_PRESETS = ("expert-fast", "expert")


def default_players(game: str, presets: dict) -> list[str]:
    """Every heuristic and evolved preset of `-s all` (random first), the presets named `*-evolved` or `*-psro*`
    of the configuration, then the search presets the game ships."""
    from sim.registry import round_robin_names  # here: only the default list needs it
    names = round_robin_names(game, presets)
    names += sorted(n for n in presets if n not in names and ("-evolved" in n or "-psro" in n))
    names += [n for n in SEARCH_PRESETS if n in presets]
    return sorted(names, key=lambda n: n != "random")


@click.command()
@click.argument("game", required=False)
@click.option("-s", "--strategies", "names", default=None,
              help="Players, comma-separated (default: random, every heuristic, tuned, evolved presets, expert-fast, "
                   "expert).")
@click.option("-n", "--games", type=int, default=DEFAULT_GAMES, show_default=True, help="Games per pair.")
@click.option("-p", "--players", type=int, default=None, help="Players per game (games that allow a choice).")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="Root random seed.")
@click.option("-j", "--jobs", type=int, default=1, show_default=True, help="Parallel workers (-1: all cores).")
@backend_options
@click.option("-o", "--out", type=click.Path(file_okay=False), default=None)
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None)
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE")
@click.option("-q", "--quiet", is_flag=True)
def ladder(game, names, games, players, seed, jobs, backend, scheduler, out, config_file, sets, quiet):
    """Every player against every other on fresh deals: Elo with 95% intervals and each pair's win share.

    \b
    balance-sim ladder GAME [-s A,B,...] [-n GAMES_PER_PAIR] [-p N] [--seed S] [-o DIR]
    Writes DIR/ladder.html, ladder.json and ladder.md (the Elo table).
    """
    if not game:
        raise UserError("ladder: missing GAME; e.g. 'balance-sim ladder mohur'")
    inputs.jobs(jobs)
    inputs.seed(seed)
    inputs.positive("--games", games, inputs.MAX_GAMES)
    check_backend(backend, scheduler, quiet)
    if out is not None:
        inputs.output_folder(out)
    spec, players, cfg, _, _ = load_setup(game, config_file, sets, players, "random")
    wanted = default_players(spec.name, cfg.presets) if names is None else names
    if isinstance(wanted, str):
        wanted = [s.strip() for s in wanted.split(",") if s.strip()]
    if len(set(wanted)) != len(wanted) or len(wanted) < 2:
        raise UserError(f"-s {','.join(wanted)}: give two or more different players")
    _, _, _, chosen, _ = load_setup(game, config_file, sets, players, ",".join(wanted))
    out = out_or_default(out, f"{spec.name}-ladder")
    setup = {"game": spec.name, "players": players, "names": list(wanted), "games": games, "seed": seed,
             "config": cfg.raw, "command": "balance-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])}
    say = (lambda line: None) if quiet else (lambda line: click.echo(line, err=True))
    with exclusive(out):
        results.check_output(out, "ladder")
        staging = results.begin(out, {"game": spec.name, "ladder": setup, "command": "ladder",
                                      "identity": results.identity(setup)}, quiet)
        codes, wins = L.play(spec, cfg, players, list(chosen), games, seed, jobs, backend, scheduler, say)
        names_ = [c.name for c in chosen]
        result = L.ladder_json(setup, L.strengths(codes, wins, names_, players), L.pair_table(codes, wins, names_))
        L.write(staging, result)
        results.write_meta(staging, {"game": spec.name, "ladder": setup, "command": "ladder",
                                     "identity": results.identity(setup), "partial": False})
        results.finish(staging, out)
    click.echo(L.markdown(result))
    click.echo(str(out / "ladder.html"))
