"""`balance-sim psro`: self-play by a growing population (analysis.psro): evolve a best response to the pool's
equilibrium mix, add it, measure it against every member, repeat; psro.json and preset.toml (every response)."""
from __future__ import annotations

import json

import click

from analysis import psro_page
from analysis.psro import game_psro
from sim import evolve as E, inputs, results
from sim.commands.evolve_cmd import check, options, setup_of
from sim.commands.options import out_or_default
from sim.errors import UserError
from sim.lock import exclusive
from sim.registry import registered

DEFAULT_GAMES = 2_000


@click.command()
@click.argument("game", required=False)
@click.option("--strategy", "strategy", default=None, help="The strategy (or preset) whose best responses evolve.")
@click.option("--against", default=None, help="The starting pool, comma-separated (default: every heuristic of -s all).")
@click.option("--rounds", type=int, default=3, show_default=True, help="Best responses to add (at most).")
@click.option("--games", type=int, default=DEFAULT_GAMES, show_default=True,
              help="Games per pair measuring a new member against each member (fresh deals).")
@click.option("--stop-gain", type=float, default=0.0, show_default=True,
              help="Stop once a best response beats the pool's mix by no more than this win share.")
@options
def psro(game, strategy, against, rounds, games, stop_gain, **o):
    """Self-play by a growing population: best response -> add to the pool -> re-evolve, the pool mixed by its
    equilibrium (PSRO). Each round is one `evolve` search (--budget games) against the pool. Writes psro.json,
    psro.html and preset.toml.

    \b
    balance-sim psro GAME --strategy NAME [--against A,B,...] [--rounds 3] [--budget GAMES] [-o DIR]
    """
    check(o)
    if o["resume"]:
        raise UserError("psro: --resume is not offered; run the command again")
    if not game or not strategy:
        raise UserError("psro: give GAME and --strategy NAME, e.g. 'balance-sim psro mohur --strategy weighted'")
    if not 1 <= rounds <= 100:
        raise UserError(f"--rounds {rounds}: allowed 1 to 100")
    inputs.positive("--games", games, inputs.MAX_GAMES)
    if not 0 <= stop_gain < 1:
        raise UserError(f"--stop-gain {stop_gain}: a win share from 0 to 1 (exclusive)")
    if o["out"] is not None:
        inputs.output_folder(o["out"])
    setup = setup_of("psro", game, strategy, against, o)
    prepared = E.prepare(setup, o["jobs"], o["backend"], o["scheduler"])
    E.check_budget(prepared)
    out = out_or_default(o["out"], f"{setup['game']}-psro")
    say = (lambda line: None) if o["quiet"] else (lambda line: click.echo(line, err=True))
    with exclusive(out):
        results.check_output(out, "psro")
        staging = results.begin(out, {"game": setup["game"], "psro": setup, "command": "psro",
                                      "identity": results.identity(setup)}, o["quiet"])
        pop = game_psro(prepared, rounds, games, stop_gain, say)
        d = registered(setup["game"])[prepared.arena.base.base_id]
        members = [{"name": c.name, "base": c.base,
                    "params": dict(zip(d.params, c.params)) if c.base == prepared.arena.base.base else None}
                   for c in pop.members]
        result = {"setup": setup, "rounds": rounds, "games_per_pair": games, "stop_gain": stop_gain,
                  "games_played_per_pair": E.rotation(prepared.arena.players, games), "members": members,
                  "shares": pop.shares.tolist(), "mix": dict(zip([c.name for c in pop.members], pop.mix().tolist())),
                  "history": pop.rounds}
        (staging / "psro.json").write_text(json.dumps(result, indent=1))
        (staging / "psro.html").write_text(psro_page.page(result))
        lines = [f"# best responses of balance-sim psro {setup['game']} --strategy {strategy} --seed {setup['seed']}"]
        for m in members:
            if m["params"] is not None and m["name"] != strategy:
                lines += [f"[strategies.{m['name']}]", f"base = {json.dumps(m['base'])}"]
                lines += [f"{k} = {float(v)!r}" for k, v in m["params"].items() if k in prepared.space.names]
        (staging / "preset.toml").write_text("\n".join(lines) + "\n")
        results.write_meta(staging, {"game": setup["game"], "psro": setup, "command": "psro",
                                     "identity": results.identity(setup), "partial": False})
        results.finish(staging, out)
    for r in pop.rounds:
        click.echo(f"round {r['round'] + 1}: gain over the mix {r['gain']:+.3f}; mix "
                   + ", ".join(f"{c.name} {w:.2f}" for c, w in zip(pop.members, r["mix_after"]) if w > 0.005))
    click.echo(str(out / "psro.json"))
