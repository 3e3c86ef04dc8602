"""`balance-sim sensitivity`: rank the configuration numbers that move a game's figures most."""
from __future__ import annotations

import json
import math
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import click
import numpy as np
import pandas as pd
from tqdm import tqdm

from analysis.paired import block_statistics
from analysis.report import conclude
from analysis.sensitivity import BASE_SUMMARY, build_sensitivity_report
from analysis.summary import summary_for
from sim import inputs, results, sensitivity_design as S
from sim.commands.options import config_options
from sim.errors import RunInterrupted, UserError
from sim.lock import exclusive
from sim.rng import DEFAULT_BATCH
from sim.runner import Plan, execute
from sim.sensitivity_design import (BLOCK_WORDS, Design, analyse, assign_config, default_metrics,
                                    metric_names, resolve_metric)
from sim.setup import DEFAULT_SEED, load_setup
from sim.variants import variant_meta


@click.command()
@click.argument("game")
@click.option("--param", "params", multiple=True, metavar="KEY[=LO:HI]",
              help="A knob: a numeric key (default range +-30% around its default, narrowed to what the game "
                   "accepts) or KEY=LO:HI; a whole list (tokens.diamond) is scaled by a factor. Repeatable.")
@click.option("--all-numeric", is_flag=True, help="Every numeric key of the configuration, lists element-wise "
                                                  "(strategy presets and report settings left out).")
@click.option("--metric", "metrics", multiple=True, metavar="M",
              help="A figure of summary.json (default: every headline figure); repeatable.")
@click.option("--method", type=click.Choice(["morris", "sobol"]), default="morris", show_default=True,
              help="Morris elementary effects to screen many knobs; Sobol indices for a short list.")
@click.option("-n", "--games", "n_games", type=int, default=None, help="Games per design point.")
@click.option("--budget", type=int, default=None, help="Most games in all (design points x games per point).")
@click.option("--spread", type=float, default=0.3, show_default=True,
              help="Default range: this fraction either side of a knob's default.")
@click.option("--levels", type=int, default=4, show_default=True, help="Morris grid levels (even).")
@click.option("-s", "--strategies", default="all", show_default=True)
@click.option("-p", "--players", type=int, default=None)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("-j", "--jobs", type=int, default=1, show_default=True,
              help="Workers for each design point's batches (helps when -n exceeds --batch-size).")
@click.option("--batch-size", type=int, default=None, help="Games per batch (default 2000).")
@click.option("-o", "--out", "out", type=click.Path(file_okay=False), default=None,
              help="Output folder (default reports/<game>-sensitivity).")
@click.option("-q", "--quiet", is_flag=True)
@config_options
def sensitivity(game, params, all_numeric, metrics, method, n_games, budget, spread, levels, strategies, players,
                seed, jobs, batch_size, out, quiet, config_file, sets):
    """Rank the configuration numbers that move GAME's figures most (Morris or Sobol, on common random numbers).

    \b
    balance-sim sensitivity GAME (--param KEY[=LO:HI] ... | --all-numeric) [--metric M ...] [-n N]
                            [--budget GAMES] [--method morris|sobol] [-s A,B] [-o DIR]
    Writes DIR/sensitivity.html (a tornado chart per metric), sensitivity.csv and points.csv.
    """
    if bool(params) == all_numeric:
        raise UserError("sensitivity: give --param KEY[=LO:HI] (repeatable) or --all-numeric, not both")
    if n_games is not None:
        inputs.positive("--games", n_games, S.MAX_GAMES_PER_POINT)  # a point's games are held in memory
    if budget is not None:
        inputs.positive("--budget", budget)
    if batch_size is not None:
        inputs.batch_size(batch_size)
    inputs.seed(seed)
    if not 0 < spread < 1:
        raise UserError(f"--spread {spread}: must be between 0 and 1 (0.3 = +-30%)")
    if not 2 <= levels <= S.MAX_LEVELS or levels % 2:
        raise UserError(f"--levels {levels}: must be an even number from 2 to {S.MAX_LEVELS} (4 is usual)")
    inputs.jobs(jobs)
    if out is not None:
        inputs.output_folder(out)
    spec, players, cfg, chosen, rr = load_setup(game, config_file, sets, players, strategies)
    base = cfg.raw  # the built configuration, before validation turned it into the game's arrays
    factors, left_out, check = S.make_knobs(spec, players, base, list(params), spread)
    if not factors:
        raise UserError("sensitivity: no knob has a range to vary; " + "; ".join(left_out[:3]))
    if method == "sobol" and len(factors) > S.MAX_SOBOL_KNOBS:
        raise UserError(f"--method sobol: for at most {S.MAX_SOBOL_KNOBS} knobs (got {len(factors)}); screen them "
                        "with --method morris first")
    for m in metrics:
        if not m or any(c.isspace() for c in m):
            raise UserError(f"--metric {m!r}: not a metric name")
    blocks, n_games = S.size_design(method, len(factors), n_games, budget)
    design = S.build_design(factors, method, blocks, seed, check, levels)
    out = Path(out) if out else Path("reports") / f"{spec.name}-sensitivity"
    if not quiet:
        click.echo(f"{len(factors)} knobs, {design.blocks} {S.BLOCK_WORDS[method]} x {design.size} points x "
                   f"{n_games:,} games; {sum(design.skipped.values())} refused points replaced", err=True)
    lines, folder = run_sensitivity(spec, players, chosen, rr, base, list(metrics), design, n_games, seed, jobs,
                                    batch_size or DEFAULT_BATCH, out, quiet, budget, left_out)
    click.echo("\n".join([*lines, str(folder / "sensitivity.html")]))


def run_sensitivity(spec, players, chosen, round_robin, base: dict, metrics: list[str], design: Design,
                    n_games: int, seed: int, jobs: int, batch_size: int, out: Path, quiet: bool = False,
                    budget: int | None = None, skipped_knobs: list[str] = ()):
    """Play every distinct design point once under the output's lock, analyse, write the pages."""
    assigns = [design.assignment(row) for row in design.X]
    labels = [json.dumps(a, sort_keys=True) for a in assigns]
    distinct = list(dict.fromkeys(labels))  # a rounded step can land on a point already played: same games
    plan = Plan(spec.name, players, n_games, seed, tuple(chosen), batch_size, round_robin)
    method = design.method
    meta = {"kind": "sensitivity", "game": spec.name, "sensitivity": True, "method": method, "players": players,
            "seed": seed, "games_per_point": n_games, "budget": budget, "design_points": len(assigns),
            "points_played": len(distinct), "games": len(distinct) * n_games, "blocks": design.blocks,
            "sampled_blocks": design.sampled_blocks, "skipped_points": sum(design.skipped.values()),
            "skipped_reasons": dict(design.skipped), "levels": design.levels,
            "knobs": [{"key": f.key, "low": f.low, "high": f.high, "whole_numbers": f.integer,
                       "scales_list": f.scales_list, "range": f.describe_range()} for f in design.factors],
            "left_out": list(skipped_knobs),
            "strategies": [{"name": c.name, "base": c.base, "params": list(c.params)} for c in chosen],
            "round_robin": round_robin, "batch_size": batch_size, "config": base}
    meta["identity"] = results.identity(meta)  # the same command again starts an interrupted one afresh
    with exclusive(out):
        results.check_output(out, "sensitivity")
        staging = results.begin(out, meta, quiet, keeps_parts=False)
        summaries: dict[str, dict] = {}
        game_blocks: dict[str, dict] = {}  # per point, each metric's (sum, count) per block of game ids
        # your configuration itself, played once more for its conclusions (as its own report would say them),
        # where the budget leaves room for it
        base_room = budget is None or (len(distinct) + 1) * n_games <= budget
        base_summary = None
        bar = tqdm(total=(len(distinct) + base_room) * n_games, unit="game", disable=quiet, dynamic_ncols=True,
                   desc=f"{spec.name} sensitivity", mininterval=0.5, file=sys.stderr)
        interrupted = False
        try:
            if base_room:
                base_cfg = spec.validate(assign_config(base, {}), players)
                tables, _ = execute(spec, base_cfg, plan, jobs=jobs, progress=False)
                point_meta = variant_meta(spec, players, plan, base_cfg)
                base_summary = conclude(summary_for(tables, point_meta), point_meta, tables)
                del tables
                bar.update(n_games)
            for label in distinct:
                assign = json.loads(label)
                cfg = spec.validate(assign_config(base, assign), players)
                tables, _ = execute(spec, cfg, plan, jobs=jobs, progress=False)
                point_meta = variant_meta(spec, players, plan, cfg)
                summary = summary_for(tables, point_meta)
                if not summaries:
                    metrics = _check_metrics(metrics, summary, spec.name, staging)
                if method == "morris":
                    found = block_statistics(tables, point_meta, summary, blocks=S.GAME_BLOCKS)
                    game_blocks[label] = {m: found[m] for m in metrics if m in found}
                summaries[label] = summary
                bar.update(n_games)
                bar.set_postfix(points=f"{len(summaries)}/{len(distinct)}", refresh=False)
        except (RunInterrupted, KeyboardInterrupt):
            interrupted = True
        finally:
            bar.close()
        if interrupted and not summaries:
            raise UserError(f"interrupted before the first design point finished; nothing is saved ({staging})")
        size = design.size
        done = 0  # whole blocks played, in order
        while done < design.blocks and all(labels[i] in summaries for i in range(done * size, (done + 1) * size)):
            done += 1
        points = _points_table(design, assigns, labels, summaries, metrics, done * size)
        points.to_csv(staging / "points.csv", index=False)
        if done < 2:
            raise UserError(f"interrupted: {len(summaries)} of {len(distinct)} design points played, too few for a "
                            f"whole pair of {BLOCK_WORDS[method]}; their figures are in {staging / 'points.csv'}")
        analysed = points[points["analysed"]]
        values = {m: analysed[m].to_numpy(dtype=float) for m in metrics}
        played = [labels[i] for i in range(done * size)]
        # a metric is resampled game by game only where every point has its block sums; else through its errors
        blocks = {m: np.stack([game_blocks[label][m] for label in played]) for m in metrics
                  if all(m in game_blocks.get(label, {}) for label in played)}
        se = {m: analysed[f"{m}.se"].to_numpy(dtype=float) for m in metrics}
        table = analyse(replace(design, X=design.X[: done * size]), values, seed, blocks=blocks, se=se)
        table.to_csv(staging / "sensitivity.csv", index=False)
        base_games = n_games if base_summary is not None else 0
        meta = {**meta, "partial": interrupted, "blocks_analysed": done, "metrics": metrics,
                "points_finished": len(summaries), "games_played": len(summaries) * n_games + base_games,
                "base_games": base_games, "base_room": base_room}
        if base_summary is not None:
            (staging / BASE_SUMMARY).write_text(json.dumps(base_summary, indent=2, default=str) + "\n")
        lines = build_sensitivity_report(table, meta, staging,
                                         (base_summary or {}).get("conclusions") if base_summary else None)
        results.write_meta(staging, meta)
        if interrupted:
            raise UserError(f"interrupted: {done} of {design.blocks} {BLOCK_WORDS[method]} finished; their analysis "
                            f"is in {staging / 'sensitivity.html'} (marked partial)")
        results.finish(staging, out)
        return lines, out


def _check_metrics(wanted: list[str], summary: dict, game: str, staging: Path) -> list[str]:
    if not wanted:
        return default_metrics(summary)
    unknown = [name for name in wanted if resolve_metric(name, summary) is None]
    if unknown:
        shutil.rmtree(staging, ignore_errors=True)
        raise UserError(f"--metric {unknown[0]}: not a figure of {game}; allowed: {', '.join(metric_names(summary))}")
    return list(dict.fromkeys(resolve_metric(name, summary) for name in wanted))


def _points_table(design: Design, assigns, labels, summaries, metrics, n_rows: int) -> pd.DataFrame:
    rows = []
    for i in range(len(assigns)):
        s = summaries.get(labels[i])
        if s is None:
            continue
        row = {"point": i, "block": i // design.size, "analysed": i < n_rows,
               **{f.key: json.dumps(assigns[i][f.key]) if f.scales_list else assigns[i][f.key]
                  for f in design.factors}}
        for m in metrics:
            fig = s.get(m) or {}
            est = fig.get("estimate")
            row[m] = math.nan if est is None else est
            lo, hi = row[f"{m}.ci_low"], row[f"{m}.ci_high"] = fig.get("ci_low"), fig.get("ci_high")
            finite = lo is not None and hi is not None and np.isfinite([lo, hi]).all()
            row[f"{m}.se"] = (hi - lo) / (2 * 1.959964) if finite else math.nan  # from the 95% interval
        rows.append(row)
    return pd.DataFrame(rows)
