"""`balance-sim tune`: search parameter values that meet balance targets."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import click
import numpy as np
import pandas as pd

from analysis.formatting import fmt_metric
from analysis.summary import summary_for
from analysis import conclusions as C
from analysis.tune import build_tune_report, candidate_conclusions, miss_by, params_label, tune_findings
from sim import inputs, results
from sim.commands.grid_options import MAX_CANDIDATES, PASS_THROUGH, parse_options, sweep_setup
from sim.errors import UserError
from sim.runner import Plan, execute
from sim.variants import (MAX_VARIANTS, check_values, games_check, grid, grid_cell, halving_shares, loss,
                          parse_target, scalar, staged, variant_config, variant_label, variant_meta)


@click.command(context_settings=PASS_THROUGH)
@click.argument("game")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def tune(game, args):
    """Search parameter values that meet balance targets (successive halving on common random numbers).

    \b
    balance-sim tune GAME --param KEY (--values ... | --range START:STOP:STEP) [--param KEY ...]
                     --target METRIC=VALUE[:TOLERANCE] | METRIC=LOW..HIGH [--target ...] --budget GAMES
                     [-s A,B] [-p P] [--seed S] [-j J] [-o DIR] [--max-candidates 64]
    """
    params, opts = parse_options("tune", args, ("--budget", {"type": int, "required": True}),
                                  ("--max-candidates", {"type": int, "default": 64}),
                                  ("--batch-size", {"type": int, "default": 500}))
    if not params:
        raise UserError("tune: give at least one --param KEY with --values or --range")
    if not opts.targets:
        raise UserError("tune: give at least one --target METRIC=VALUE[:TOLERANCE]")
    targets = [parse_target(t) for t in opts.targets]
    inputs.positive("--budget", opts.budget)
    inputs.positive("--max-candidates", opts.max_candidates, MAX_CANDIDATES)
    spec, players, chosen, rr, out = sweep_setup("tune", game, opts, targets)
    doc = run_tune(spec, players, chosen, rr, params, targets, out, opts)
    ranking, spent = doc["ranking"], doc["spent"]
    verdict = tune_findings(doc)
    picked = C.conclusion_of(doc, "best_candidate")
    closest = any(f["text"].startswith("Closest candidate") for f in verdict)  # every candidate misses a target
    leading = "leading" if picked and picked["verdict"] != C.REAL else "closest" if closest else "best"
    click.echo(f"spent {spent:,} of {opts.budget:,} games; {leading} candidates:")
    for entry in ranking[:5]:
        click.echo(f"  {variant_label(entry['params'])}  ({entry['games']:,} games)")
        for metric, m in entry["targets"].items():
            band = (f"{m['band'][0]:.1%}..{m['band'][1]:.1%}" if "rate" in metric
                    else f"{m['band'][0]:g}..{m['band'][1]:g}")
            by = miss_by(metric, m) if m["verdict"] == "misses" else ""
            click.echo(f"    {metric}: {fmt_metric(metric, m)}  target {band}: {m['verdict']}{by}")
    if verdict and verdict[0]["id"] == "none_meets":
        click.echo(verdict[0]["text"])
    if picked:
        click.echo(picked["text"])
    click.echo(str(out / "tune.json"))
    click.echo(str(out / "tune.html"))


def run_tune(spec, players, chosen, round_robin, params, targets, out: Path, opts):
    """Successive halving: each round the better half (by distance to the targets) goes on with twice the games,
    on shared deals, extending their saved batches, until one is left or the budget is spent."""
    budget, seed, max_candidates, batch_size = opts.budget, opts.seed, opts.max_candidates, opts.batch_size
    if max_candidates > MAX_VARIANTS:
        raise UserError(f"--max-candidates {max_candidates:,}: at most {MAX_VARIANTS:,}")
    check_values(params)
    total = math.prod(len(v) for _, v in params)
    if total >= 2 ** 62:
        raise UserError(f"tune: a grid of {total:.3g} candidates is too large to sample; give fewer values")
    if total > max_candidates:  # sampled without building the grid, so its size costs nothing
        pick = np.random.default_rng(seed).choice(total, max_candidates, replace=False)
        candidates = [grid_cell(params, int(i)) for i in sorted(pick)]
    else:
        candidates = grid(params, limit=math.inf)
    configs = [spec.validate(variant_config(spec.package, opts.config_file, opts.sets, a), players) for a in candidates]
    rounds = max(1, math.ceil(math.log2(len(candidates)))) + 1 if len(candidates) > 1 else 1
    per_round = budget // rounds
    if per_round // len(candidates) < batch_size:
        raise UserError(f"--budget {budget}: too small for {len(candidates)} candidates over {rounds} rounds; "
                        f"give at least {rounds * len(candidates) * batch_size} games")
    shares = halving_shares(len(candidates), rounds, per_round, batch_size)
    games_check(sum(shares), f"tune --budget {budget:,}")
    # the same command run again continues: candidates' saved batches are checked and reused
    ident = results.identity({"tune": candidates, "configs": [c.raw for c in configs], "seed": seed,
                              "players": players, "strategies": [c.name for c in chosen], "round_robin": round_robin,
                              "batch_size": batch_size, "budget": budget, "max_candidates": max_candidates,
                              "targets": [t.describe() for t in targets]})
    with staged("tune", out, {"game": spec.name, "tune": True, "identity": ident}, opts.quiet) as staging:
        survivors = list(range(len(candidates)))
        games = {c: 0 for c in survivors}
        summaries: dict[int, dict] = {}
        concluded: dict[int, list] = {}  # each candidate's conclusions on its games so far
        spent, history = 0, []
        for r, share in enumerate(shares):
            for c in survivors:
                games[c] += share
                spent += share
                plan = Plan(spec.name, players, games[c], seed, tuple(chosen), batch_size, round_robin)
                tables, _ = execute(spec, configs[c], plan, jobs=opts.jobs, backend=opts.backend, kind="tune",
                                    scheduler=opts.scheduler, progress=False,
                                    batch_dir=staging / f"candidate-{c:03d}" / results.BATCHES)
                point_meta = variant_meta(spec, players, plan, configs[c])
                summaries[c] = summary_for(tables, point_meta)
                unknown = [tg.metric for tg in targets if tg.metric not in summaries[c]]
                if unknown:
                    shutil.rmtree(staging, ignore_errors=True)
                    metrics = sorted(k for k, v in summaries[c].items() if isinstance(v, dict))
                    raise UserError(f"--target {unknown[0]}: not a figure of {spec.name}; allowed: "
                                    + ", ".join(metrics))
                concluded[c] = candidate_conclusions(summaries[c], point_meta, tables)
                history.append({"round": r, "candidate": c, "games": games[c],
                                **{k: scalar(v) for k, v in candidates[c].items()},
                                "loss": loss(summaries[c], targets)[0]})
            survivors.sort(key=lambda c: loss(summaries[c], targets))
            if not opts.quiet:
                best = survivors[0]
                print(f"round {r + 1}/{rounds}: {len(survivors)} candidates x {share:,} more games; best so far "
                      f"{variant_label(candidates[best])} (distance {loss(summaries[best], targets)[0]:.3f})",
                      flush=True)
            survivors = survivors[: math.ceil(len(survivors) / 2)]
        ranked = sorted(summaries, key=lambda c: (-games[c], loss(summaries[c], targets)))
        report = [{"candidate": c, "params": candidates[c], "label": params_label(candidates[c]), "games": games[c],
                   "conclusions": concluded[c],
                   "distance": loss(summaries[c], targets)[0],
                   "targets": {t.metric: {**summaries[c].get(t.metric, {}), "band": [t.low, t.high],
                                          "verdict": t.verdict(summaries[c].get(t.metric, {}))} for t in targets}}
                  for c in ranked]
        for c in range(len(candidates)):
            shutil.rmtree(staging / f"candidate-{c:03d}", ignore_errors=True)
        doc = {"game": spec.name, "budget": budget, "spent": spent, "seed": seed, "method": "successive halving",
               "targets": [t.describe() for t in targets], "ranking": report}
        # the answer, computed once: the leader named, or a toss-up (analysis.conclusions, as the play style's)
        doc["conclusions"] = [c for c in [C.best_candidate(report, summaries[ranked[0]])] if c]
        (staging / "tune.json").write_text(json.dumps(doc, indent=2, default=str) + "\n")
        pd.DataFrame(history).to_csv(staging / "history.csv", index=False)
        build_tune_report(json.loads(json.dumps(doc, default=str)), pd.DataFrame(history), staging)
        results.write_meta(staging, {"game": spec.name, "tune": True, "partial": False, "budget": budget,
                                     "spent": spent, "seed": seed})
        results.finish(staging, out)
        return doc
