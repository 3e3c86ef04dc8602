"""`balance-sim sweep`: one results folder per parameter value (or grid cell) on common random numbers."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import click
import pandas as pd

from analysis import sweep_paired
from analysis.paired import block_statistics
from analysis.progress import reporting
from analysis.report import build_report, conclude
from analysis.summary import summary_for
from analysis.sweep import build_sweep_report
from sim import inputs, results
from sim.commands.grid_options import PASS_THROUGH, parse_options, sweep_setup
from sim.commands.options import say
from sim.errors import UserError
from sim.runner import Plan, execute
from sim.setup import from_meta
from sim.variants import (Target, file_digests, finished_variant, games_check, grid, parse_target, resolve_baseline,
                          scalar, staged, variant_config, variant_label, variant_meta)


@click.command(context_settings=PASS_THROUGH)
@click.argument("game")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def sweep(game, args):
    """Play GAME once per parameter value (or grid) on common random numbers and compare.

    \b
    balance-sim sweep GAME --param KEY --values V1 V2 ... [--param KEY2 --range START:STOP:STEP]
                      [-n N] [-s A,B] [-p P] [--seed S] [-j J] [-o DIR] [--target METRIC=VALUE[:TOL]]
                      [--reports] [--config FILE] [--set KEY=VALUE] [--baseline VALUE | KEY=VALUE ... | #I]
    Writes DIR/variant-NNN/ (a results folder each), sweep.csv, sweep.parquet and sweep_report.html, with each
    variant's paired difference from the baseline (default: the first variant).
    """
    params, opts = parse_options("sweep", args, ("--reports", {"action": "store_true"}),
                                  ("--batch-size", {"type": int, "default": 2000}),
                                  ("--baseline", {"action": "append", "default": []}))
    if not 1 <= len(params) <= 2:
        raise UserError("sweep: give one or two --param KEY with --values or --range")
    targets = [parse_target(t) for t in opts.targets]
    n_games = inputs.games(20_000 if opts.games is None else opts.games)
    spec, players, chosen, rr, out = sweep_setup("sweep", game, opts, targets)
    folder, lines = run_sweep(spec, players, chosen, rr, params, n_games, targets, out, opts)
    click.echo("\n".join([*lines, str(folder / "sweep_report.html")]))


def run_sweep(spec, players, chosen, round_robin, params, n_games, targets: list[Target], out: Path, opts):
    """Play every variant on common random numbers into a folder each, then sweep.csv, sweep.parquet and the page;
    run again after an interruption, it keeps the variants that finished."""
    seed, batch_size, reports, quiet = opts.seed, opts.batch_size, opts.reports, opts.quiet
    variants = grid(params)
    games_check(n_games, f"sweep -n {n_games:,}")
    configs = [spec.validate(variant_config(spec.package, opts.config_file, opts.sets, a), players) for a in variants]
    base = resolve_baseline(params, variants, list(opts.baseline))
    ident = results.identity({"sweep": params, "configs": [c.raw for c in configs], "games": n_games, "seed": seed,
                              "players": players, "strategies": [c.name for c in chosen], "round_robin": round_robin,
                              "batch_size": batch_size, "reports": reports})
    with staged("sweep", out, {"game": spec.name, "sweep": [k for k, _ in params], "identity": ident},
                 quiet) as staging:
        rows, summaries, blocks, metas = [], [], [], []
        for i, (assign, cfg) in enumerate(zip(variants, configs)):
            folder = staging / f"variant-{i:03d}"
            # what this variant plays: a folder finished under anything else is played again, as a batch is
            played_under = results.identity({"variant": assign, "config": cfg.raw, "games": n_games, "seed": seed,
                                             "players": players, "round_robin": round_robin,
                                             "batch_size": batch_size, "reports": reports,
                                             "strategies": [[c.name, c.base, list(c.params)] for c in chosen]})
            kept = finished_variant(folder, played_under)
            if kept is not None:  # finished before an interruption: its games pair with the other variants'
                meta, summary, tables = kept
                # its sentences are recomputed from its figures, never read back (as compare does)
                summary = conclude({k: v for k, v in summary.items() if k not in ("conclusions", "findings",
                                                                                  "strategy_kinds")}, meta, tables)
            else:
                if not quiet:
                    print(f"variant {i + 1}/{len(variants)}: {variant_label(assign)}", flush=True)
                shutil.rmtree(folder, ignore_errors=True)  # a variant cut short: ours, played again
                plan = Plan(spec.name, players, n_games, seed, tuple(chosen), batch_size, round_robin)
                tables, timing = execute(spec, cfg, plan, jobs=opts.jobs, backend=opts.backend,
                                         scheduler=opts.scheduler, progress=not quiet)
                folder.mkdir()
                meta = variant_meta(spec, players, plan, cfg, {"variant": assign, "timing": timing, "partial": False,
                                                        "identity": played_under})
                for name, frame in tables.items():
                    frame.to_parquet(folder / f"{name}.parquet", index=False)
                meta["tables"] = results.table_rows(folder)
                with reporting(None if quiet else say):
                    # without --reports, its conclusions still (the page says them as its report would)
                    summary = (build_report(tables, meta, folder, game_of_run=from_meta) if reports else
                               conclude(summary_for(tables, meta), meta, tables))
                if not reports:
                    (folder / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
                meta["digests"] = file_digests(folder)  # a resume reuses the variant only as written
                results.write_meta(folder, meta)  # last: a variant folder with a finished meta.json is complete
            # summary.json as one flat row: metric, metric.ci_low, metric.ci_high, metric.n
            flat = {name + suffix: m.get(field) for name, m in summary.items() if isinstance(m, dict) and "estimate" in m
                    for suffix, field in (("", "estimate"), (".ci_low", "ci_low"), (".ci_high", "ci_high"), (".n", "n"))}
            rows.append({"variant": i, **{k: scalar(v) for k, v in assign.items()}, **flat})
            summaries.append(summary)
            metas.append(meta)
            blocks.append(block_statistics(tables, meta, summary))
            del tables
        diffs = sweep_paired.variant_differences(spec.name, summaries, blocks, metas, base)
        for i, row in enumerate(rows):
            row.update(sweep_paired.columns(diffs, i, base))
        table = pd.DataFrame(rows)
        table.to_csv(staging / "sweep.csv", index=False)
        table.to_parquet(staging / "sweep.parquet", index=False)
        lines = build_sweep_report(table, params, targets, spec.name, n_games, seed, staging, diffs, base,
                                   [s.get("conclusions") or [] for s in summaries])
        results.write_meta(staging, {"game": spec.name, "sweep": {k: v for k, v in params}, "games": n_games,
                                     "seed": seed, "variants": len(variants), "partial": False, "baseline": base,
                                     "targets": [t.describe() for t in targets]})
        results.finish(staging, out)
        return out, lines
