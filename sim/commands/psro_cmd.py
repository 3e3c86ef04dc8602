"""`balance-sim psro`: self-play by a growing population (analysis.psro): evolve a best response to the pool's
equilibrium mix, add it, measure it against every member, repeat; psro.json, psro.html and preset.toml (every
response). The loop is saved after each round in `<out>.partial/psro-state.json`; --resume (or the same command
again) goes on from it, every saved round checked to follow from the table (analysis.psro.restore)."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import click

from analysis import psro_page
from analysis.psro import game_psro
from sim import evolve as E, inputs, results
from sim import meta as folder_meta
from sim.commands.evolve_cmd import check, options, setup_of
from sim.commands.options import out_or_default, refuse_with_resume
from sim.errors import UserError, stopped_part_way
from sim.lock import exclusive
from sim.registry import registered

DEFAULT_GAMES = 2_000
STATE = "psro-state.json"


def _digest(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def save_state(folder: Path, state: dict) -> None:
    """The loop as plain JSON with a SHA-256 of itself, written whole or not at all."""
    tmp = folder / f".{STATE}.tmp"
    tmp.write_text(json.dumps({**state, "digest": _digest(state)}))
    os.replace(tmp, folder / STATE)


def load_state(folder: Path) -> dict | None:
    """The saved loop of an interrupted psro (None when there is none); a file that is not one we wrote whole is
    refused in one line. `restore` then checks what it says."""
    path = folder / STATE
    if not os.path.lexists(path):
        return None
    try:
        state = json.loads(inputs.read_regular(path))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        raise UserError(f"{path}: unreadable saved loop; delete {folder} to start again") from None
    if not isinstance(state, dict) or state.get("digest") != _digest({k: v for k, v in state.items()
                                                                       if k != "digest"}):
        raise UserError(f"{path}: the saved loop was altered after it was written (its checksum differs); delete "
                        f"{folder} to start again")
    return {k: v for k, v in state.items() if k != "digest"}


def _loop_of(meta: dict, folder) -> dict:
    """--resume: the loop's own settings as saved in meta.json, checked (untrusted: a folder's file)."""
    loop = meta.get("psro_loop")
    ok = isinstance(loop, dict) and all(isinstance(loop.get(k), int) and not isinstance(loop.get(k), bool)
                                        for k in ("rounds", "games")) \
        and isinstance(loop.get("stop_gain"), (int, float)) and not isinstance(loop.get("stop_gain"), bool)
    if not ok:
        raise UserError(f"--resume {folder}: its meta.json has no valid psro_loop (rounds, games, stop_gain); "
                        "delete the .partial folder to start again")
    return loop


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
        refuse_with_resume({"resume", "jobs", "backend", "scheduler", "quiet"}, "loop",
                           "-j, --backend, --scheduler and -q")
        staging, out = results.partial_path(Path(o["resume"])), results.final_path(Path(o["resume"]))
        meta = folder_meta.read(staging) if staging.is_dir() and results.is_ours(staging) else {}
        if meta.get("command") != "psro" or not isinstance(meta.get("psro"), dict):
            raise UserError(f"--resume {o['resume']}: no interrupted psro there (expected {staging})")
        setup, loop = meta["psro"], _loop_of(meta, o["resume"])
        rounds, games, stop_gain = loop["rounds"], loop["games"], float(loop["stop_gain"])
        strategy = setup.get("strategy")
    else:
        if not game or not strategy:
            raise UserError("psro: give GAME and --strategy NAME, e.g. 'balance-sim psro mohur --strategy weighted'")
        if o["out"] is not None:
            inputs.output_folder(o["out"])
        setup = setup_of("psro", game, strategy, against, o)
        out = out_or_default(o["out"], f"{setup['game']}-psro")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 100:
        raise UserError(f"--rounds {rounds}: allowed 1 to 100")
    inputs.positive("--games", games, inputs.MAX_GAMES)
    if not 0 <= stop_gain < 1:
        raise UserError(f"--stop-gain {stop_gain}: a win share from 0 to 1 (exclusive)")
    prepared = E.prepare(setup, o["jobs"], o["backend"], o["scheduler"])
    E.check_budget(prepared)
    say = (lambda line: None) if o["quiet"] else (lambda line: click.echo(line, err=True))
    loop = {"rounds": rounds, "games": games, "stop_gain": stop_gain}
    with exclusive(out):
        results.check_output(out, "psro")
        staging = results.begin(out, {"game": setup["game"], "psro": setup, "psro_loop": loop, "command": "psro",
                                      "identity": results.identity({**setup, "psro_loop": loop})}, o["quiet"])
        saved = load_state(staging)
        saved_rounds = list((saved or {}).get("rounds") or [])
        done = lambda: f"{len(saved_rounds)} round(s) are saved in {staging}"  # noqa: E731

        def keep(state):
            saved_rounds[:] = state["rounds"]
            save_state(staging, state)

        with stopped_part_way(done, f"continue with 'balance-sim psro --resume {out}' or the same command"):
            try:
                pop = game_psro(prepared, rounds, games, stop_gain, say, saved=saved, save=keep)
            except ValueError as exc:
                raise UserError(f"{staging / STATE}: {exc}; delete {staging} to start again") from None
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
        results.write_meta(staging, {"game": setup["game"], "psro": setup, "psro_loop": loop, "command": "psro",
                                     "identity": results.identity({**setup, "psro_loop": loop}), "partial": False})
        results.finish(staging, out)
    for r in pop.rounds:
        click.echo(f"round {r['round'] + 1}: gain over the mix {r['gain']:+.3f}; mix "
                   + ", ".join(f"{c.name} {w:.2f}" for c, w in zip(pop.members, r["mix_after"]) if w > 0.005))
    click.echo(str(out / "psro.json"))
