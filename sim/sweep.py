"""Parameter sweeps and auto-balancing (`balance-sim sweep`, `balance-sim tune`).

Every variant is played from the same root seed, so all variants share their batch seeds (common random numbers):
where a parameter does not change the deck, the variants are dealt the same cards and differences between them
are the parameter's effect, not noise.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import math
import re
import shutil
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from sim import results
from sim.config import build, parse_value, set_value
from sim.errors import UserError, stopped_part_way
from sim.lock import exclusive
from sim.runner import Plan, assemble, execute, run_one_batch


MAX_VALUES = 10_000  # values one --param may take (--range or --values): larger grids are refused before any work
MAX_VARIANTS = 1_000  # variants (grid cells) a sweep plays; tune samples at most --max-candidates of any grid
MAX_IN_MEMORY_GAMES = 5_000_000  # games of one variant or candidate held in memory (about 330 bytes each)


@dataclass(frozen=True)
class Target:
    metric: str
    low: float
    high: float

    @property
    def centre(self) -> float:
        return (self.low + self.high) / 2

    def distance(self, value: float | None) -> float:
        """0 inside the band, else how far outside it, in units of the band's half-width (or 1% if zero)."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return math.inf
        scale = max((self.high - self.low) / 2, 0.01 * max(abs(self.centre), 1e-9), 1e-9)
        return max(0.0, self.low - value, value - self.high) / scale

    def verdict(self, m: dict) -> str:
        """meets: the whole 95% interval is inside the band; plausible: the estimate is; misses otherwise."""
        est, lo, hi = m.get("estimate"), m.get("ci_low"), m.get("ci_high")
        if est is None:
            return "misses"
        if lo is not None and hi is not None and self.low <= lo and hi <= self.high:
            return "meets"
        return "plausible" if self.low <= est <= self.high else "misses"

    def describe(self) -> str:
        return f"{self.metric} in [{self.low:g}, {self.high:g}]"


TARGET_FORMS = ("METRIC=VALUE[:TOLERANCE] (finite numbers, TOLERANCE at least 0) or METRIC=LOW..HIGH (finite, "
                "LOW <= HIGH), e.g. first_player_match_win_rate=0.5:0.01 or turns_per_round=25..35")


def parse_target(text: str) -> Target:
    """METRIC=VALUE[:TOLERANCE] or METRIC=LOW..HIGH: finite numbers, a tolerance of at least 0, LOW <= HIGH (a
    band read either way round, or a negative tolerance, would be a band nobody asked for)."""
    metric, sep, rest = text.partition("=")
    if not sep or not metric.strip():
        raise UserError(f"--target {text!r}: expected {TARGET_FORMS}")
    try:
        if ".." in rest:
            lo, hi = (float(x) for x in rest.split(".."))
            ok = math.isfinite(lo) and math.isfinite(hi) and lo <= hi
        else:
            value, _, tol = rest.partition(":")
            v, t = float(value), float(tol or 0)
            ok = math.isfinite(v) and math.isfinite(t) and t >= 0
            lo, hi = v - t, v + t
    except ValueError:
        ok = False
    if not ok:
        raise UserError(f"--target {text!r}: expected {TARGET_FORMS}")
    return Target(metric.strip(), lo, hi)


def _count(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"about 10^{len(str(n)) - 1}"


def parse_range(text: str) -> list:
    """START:STOP:STEP, inclusive of STOP when the steps land on it (3:9:1 -> 3, 4, ..., 9): finite numbers, at
    most MAX_VALUES values."""
    parts = text.split(":")
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        nums = []
    if (len(nums) not in (2, 3) or not all(math.isfinite(n) for n in nums) or (len(nums) == 3 and nums[2] <= 0)
            or nums[1] < nums[0]):
        raise UserError(f"--range {text!r}: expected START:STOP[:STEP], finite numbers with START <= STOP and "
                        "STEP > 0, e.g. 3:9:1")
    step = nums[2] if len(nums) == 3 else 1.0
    span = (nums[1] - nums[0]) / step  # in floats, as the values are made
    count = (int(math.floor(span + 1e-9)) + 1 if math.isfinite(span) else  # overflowed: counted exactly instead
             math.floor((Fraction(nums[1]) - Fraction(nums[0])) / Fraction(step)) + 1)
    if count > MAX_VALUES:
        raise UserError(f"--range {text!r}: {_count(count)} values; at most {MAX_VALUES:,} per parameter")
    values = [nums[0] + i * step for i in range(count)]
    integral = all(float(p).is_integer() for p in nums)
    return [int(round(v)) if integral else round(v, 10) for v in values]


def variant_label(assign: dict) -> str:
    return ", ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in assign.items())


def variant_config(package: str, config_file, sets, assign: dict) -> dict:
    cfg = build(package, config_file, tuple(sets))
    for key, value in assign.items():
        cfg = set_value(cfg, key, value)
    return cfg


def _check_values(params: list[tuple[str, list]]) -> None:
    for key, values in params:
        if len(values) > MAX_VALUES:
            raise UserError(f"--param {key}: {len(values):,} values; at most {MAX_VALUES:,} per parameter")


def grid(params: list[tuple[str, list]], limit: int = MAX_VARIANTS, what: str = "sweep") -> list[dict]:
    _check_values(params)
    if (size := math.prod(len(v) for _, v in params)) > limit:
        raise UserError(f"{what}: {size:,} variants (" + " x ".join(f"{len(v):,} {k}" for k, v in params)
                        + f"); at most {limit:,}: give fewer values")
    keys = [k for k, _ in params]
    return [dict(zip(keys, combo)) for combo in itertools.product(*[v for _, v in params])]


def resolve_baseline(params: list[tuple[str, list]], variants: list[dict], specs: list[str]) -> int:
    """--baseline: the variant the others are compared with. `#I` is variant I (as numbered in sweep.csv);
    VALUE is the swept parameter's value (one parameter); KEY=VALUE, repeated, picks a grid cell. Default 0."""
    if not specs:
        return 0
    labels = "; ".join(f"#{i} {variant_label(v)}" for i, v in enumerate(variants))
    if len(specs) == 1 and specs[0].startswith("#"):
        text = specs[0][1:]
        if text.isdigit() and int(text) < len(variants):
            return int(text)
        raise UserError(f"--baseline {specs[0]}: no such variant; allowed: {labels}")
    wanted = {}
    for spec in specs:
        key, sep, value = spec.partition("=")
        if not sep:
            if len(params) != 1 or len(specs) != 1:
                raise UserError(f"--baseline {spec}: with several parameters give KEY=VALUE for each, or #I; "
                                f"allowed: {labels}")
            key, value = params[0][0], spec
        if key not in dict(params):
            raise UserError(f"--baseline {spec}: {key} is not swept; swept: {', '.join(k for k, _ in params)}")
        wanted[key] = parse_value(value)
    matches = [i for i, v in enumerate(variants) if all(v[k] == wanted[k] for k in wanted)]
    if len(matches) != 1:
        raise UserError(f"--baseline {' '.join(specs)}: " + ("matches no variant" if not matches else
                        "matches several variants; name every parameter") + f"; allowed: {labels}")
    return matches[0]


def grid_cell(params: list[tuple[str, list]], index: int) -> dict:
    """Cell `index` of the grid in itertools.product order (C order), without building the grid."""
    at = np.unravel_index(index, [len(values) for _, values in params])
    return {key: values[i] for (key, values), i in zip(params, at)}


def _games_check(games: int, what: str) -> None:
    if games > MAX_IN_MEMORY_GAMES:
        raise UserError(f"{what}: {games:,} games of one variant would be held in memory; at most "
                        f"{MAX_IN_MEMORY_GAMES:,} (use 'balance-sim run --summary-only' for larger runs)")


def _scalar(value):
    return value if isinstance(value, (int, float, str, bool)) else json.dumps(value)


def _meta(spec, players, plan, cfg, extra=None) -> dict:
    return {"game": spec.name, "players": players, "games": plan.n_games, "seed": plan.seed,
            "strategies": [{"name": c.name, "base": c.base, "params": list(c.params)} for c in plan.choices],
            "round_robin": plan.round_robin, "batch_size": plan.batch_size, "config": cfg.raw, **(extra or {})}


def run_sweep(spec, players, chosen, round_robin, params, config_file, sets, n_games, seed, jobs, out: Path,
              batch_size, reports: bool, targets: list[Target], backend="loky", scheduler=None, quiet=False,
              baseline: list[str] = ()):
    """Play every variant of the grid on common random numbers; write one results folder per variant, the
    combined table (sweep.csv, sweep.parquet, with each variant's paired difference from the baseline) and
    sweep_report.html. The same command run again after an interruption keeps the variants that finished."""
    from analysis import sweep_paired
    from analysis.paired import block_statistics
    from analysis.progress import reporting
    from analysis.report import build_report, summary_for
    from analysis.sweep import build_sweep_report

    variants = grid(params)
    _games_check(n_games, f"sweep -n {n_games:,}")
    configs = [spec.validate(variant_config(spec.package, config_file, sets, a), players) for a in variants]
    base = resolve_baseline(params, variants, list(baseline))
    ident = results.identity({"sweep": params, "configs": [c.raw for c in configs], "games": n_games, "seed": seed,
                              "players": players, "strategies": [c.name for c in chosen], "round_robin": round_robin,
                              "batch_size": batch_size, "reports": reports})
    with _staged("sweep", out, {"game": spec.name, "sweep": [k for k, _ in params], "identity": ident},
                 quiet) as staging:
        rows, summaries, blocks, metas = [], [], [], []
        for i, (assign, cfg) in enumerate(zip(variants, configs)):
            folder = staging / f"variant-{i:03d}"
            # what this variant plays: a folder finished under anything else (copied from another variant, or
            # from before a change) is played again, as a saved batch is
            played_under = results.identity({"variant": assign, "config": cfg.raw, "games": n_games, "seed": seed,
                                             "players": players, "round_robin": round_robin,
                                             "batch_size": batch_size, "reports": reports,
                                             "strategies": [[c.name, c.base, list(c.params)] for c in chosen]})
            kept = _finished_variant(folder, played_under)
            if kept is not None:  # finished before an interruption: its games pair with the other variants'
                meta, summary, tables = kept
            else:
                if not quiet:
                    print(f"variant {i + 1}/{len(variants)}: {variant_label(assign)}", flush=True)
                shutil.rmtree(folder, ignore_errors=True)  # a variant cut short: ours, played again
                plan = Plan(spec.name, players, n_games, seed, tuple(chosen), batch_size, round_robin)
                tables, timing = execute(spec, cfg, plan, jobs=jobs, backend=backend, scheduler=scheduler,
                                         progress=not quiet)
                folder.mkdir()
                meta = _meta(spec, players, plan, cfg, {"variant": assign, "timing": timing, "partial": False,
                                                        "identity": played_under})
                for name, frame in tables.items():
                    frame.to_parquet(folder / f"{name}.parquet", index=False)
                meta["tables"] = results.table_rows(folder)
                with reporting(None if quiet else lambda line: print(line, file=sys.stderr, flush=True)):
                    summary = build_report(tables, meta, folder) if reports else summary_for(tables, meta)
                if not reports:
                    (folder / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
                results.write_meta(folder, meta)  # last: a variant folder with a finished meta.json is complete
            # summary.json as one flat row: metric, metric.ci_low, metric.ci_high, metric.n
            flat = {name + suffix: m.get(field) for name, m in summary.items() if isinstance(m, dict)
                    for suffix, field in (("", "estimate"), (".ci_low", "ci_low"), (".ci_high", "ci_high"), (".n", "n"))}
            rows.append({"variant": i, **{k: _scalar(v) for k, v in assign.items()}, **flat})
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
        lines = build_sweep_report(table, params, targets, spec.name, n_games, seed, staging, diffs, base)
        results.write_meta(staging, {"game": spec.name, "sweep": {k: v for k, v in params}, "games": n_games,
                                     "seed": seed, "variants": len(variants), "partial": False, "baseline": base,
                                     "targets": [t.describe() for t in targets]})
        results.finish(staging, out)
        return out, lines


def _finished_variant(folder: Path, played_under: str):
    """(meta, summary, tables) of a variant folder finished under `played_under`, or None: absent, cut short,
    played under other settings, or with tables that disagree with its meta.json."""
    kept = results._meta_of(folder)
    if kept is None or kept.get("partial") is not False or kept.get("identity") != played_under:
        return None
    try:
        summary = json.loads((folder / "summary.json").read_text())
        if not isinstance(summary, dict) or kept.get("tables") != results.table_rows(folder):
            return None
        return kept, summary, results.read_tables(folder)
    except (OSError, ValueError, RecursionError):
        return None


@contextlib.contextmanager
def _staged(kind: str, out: Path, meta: dict, quiet: bool):
    """The locked staging folder of a sweep or tune. An interrupted one keeps what finished in its `.partial`
    folder; the same command continues."""
    with exclusive(out):
        results.check_output(out, kind)
        staging = results.begin(out, {**meta, "partial": True}, quiet)
        with stopped_part_way(lambda: f"what finished is kept in {staging}",
                              f"run the same 'balance-sim {kind}' command again to continue"):
            yield staging


PROBE_GAMES = 4  # games played in memory to learn a game's figure names before a sweep or tune starts


def check_targets(spec, cfg, players, chosen, round_robin, targets: list[Target]) -> None:
    """Refuse a --target that names no figure of the game before the sweep or tune plays (and writes) anything.
    Figure names depend on the game, strategies and players (win_rate[greedy], ...[round=3]), so they are read
    from the summary of a few games played in memory, nothing written; a name with a [..] qualifier is also
    accepted when its base name is a figure (the qualifier may need more games to appear)."""
    if not targets:
        return
    from analysis.report import summary_for
    for t in targets:
        if not re.match(r"^[\w\[\]=.<>-]+$", t.metric):
            raise UserError(f"--target {t.metric!r}: not a metric name")
    plan = Plan(spec.name, players, PROBE_GAMES, 0, tuple(chosen), PROBE_GAMES, round_robin)
    tables = assemble(spec, plan, [run_one_batch(spec.name, cfg, plan, 0, 0, False)])
    summary = summary_for(tables, _meta(spec, players, plan, cfg))
    names = sorted(k for k, v in summary.items() if isinstance(v, dict))
    bases = {n.split("[")[0] for n in names}
    for t in targets:
        if t.metric not in names and t.metric.split("[")[0] not in bases:
            raise UserError(f"--target {t.metric}: not a figure of {spec.name}; allowed: "
                            + ", ".join(n for n in names if "[" not in n) + " (and their [..] variants in summary.json)")


def loss(summary: dict, targets: list[Target]) -> tuple[float, float]:
    """(distance outside the bands, summed; closeness to the bands' centres) -- lower is better."""
    outside = sum(t.distance(summary.get(t.metric, {}).get("estimate")) for t in targets)
    centre = sum(abs((summary.get(t.metric, {}).get("estimate") or 0) - t.centre) /
                 max(t.high - t.low, 1e-9) for t in targets)
    return outside, centre


def tune(spec, players, chosen, round_robin, params, targets, budget, seed, jobs, config_file, sets, out: Path,
         max_candidates=64, batch_size=500, backend="loky", scheduler=None, quiet=False):
    """Successive halving over the parameter grid: every candidate gets an equal share of a round's games, the
    better half (by distance to the targets) goes on to the next round with twice the games each, until one is
    left or the budget is spent. Candidates replay the same seeds (common random numbers), and each round
    extends a candidate's earlier games instead of starting again (saved batches are reused). The targets'
    names were checked by `check_targets`."""
    if max_candidates > MAX_VARIANTS:
        raise UserError(f"--max-candidates {max_candidates:,}: at most {MAX_VARIANTS:,}")
    _check_values(params)
    total = math.prod(len(v) for _, v in params)
    if total >= 2 ** 62:
        raise UserError(f"tune: a grid of {total:.3g} candidates is too large to sample; give fewer values")
    if total > max_candidates:  # sampled without building the grid, so its size costs nothing
        pick = np.random.default_rng(seed).choice(total, max_candidates, replace=False)
        candidates = [grid_cell(params, int(i)) for i in sorted(pick)]
    else:
        candidates = grid(params, limit=math.inf)
    configs = [spec.validate(variant_config(spec.package, config_file, sets, a), players) for a in candidates]
    rounds = max(1, math.ceil(math.log2(len(candidates)))) + 1 if len(candidates) > 1 else 1
    per_round = budget // rounds
    if per_round // len(candidates) < batch_size:
        raise UserError(f"--budget {budget}: too small for {len(candidates)} candidates over {rounds} rounds; "
                        f"give at least {rounds * len(candidates) * batch_size} games")
    shares = _shares(len(candidates), rounds, per_round, batch_size)
    _games_check(sum(shares), f"tune --budget {budget:,}")
    from analysis.report import summary_for
    # the same command run again continues: candidates' saved batches are checked and reused
    ident = results.identity({"tune": candidates, "configs": [c.raw for c in configs], "seed": seed,
                              "players": players, "strategies": [c.name for c in chosen], "round_robin": round_robin,
                              "batch_size": batch_size, "budget": budget, "max_candidates": max_candidates,
                              "targets": [t.describe() for t in targets]})
    with _staged("tune", out, {"game": spec.name, "tune": True, "identity": ident}, quiet) as staging:
        survivors = list(range(len(candidates)))
        games = {c: 0 for c in survivors}
        summaries: dict[int, dict] = {}
        spent, history = 0, []
        for r, share in enumerate(shares):
            for c in survivors:
                games[c] += share
                spent += share
                plan = Plan(spec.name, players, games[c], seed, tuple(chosen), batch_size, round_robin)
                tables, _ = execute(spec, configs[c], plan, jobs=jobs, backend=backend, scheduler=scheduler,
                                    progress=False, batch_dir=staging / f"candidate-{c:03d}" / results.BATCHES,
                                    kind="tune")
                summaries[c] = summary_for(tables, _meta(spec, players, plan, configs[c]))
                unknown = [tg.metric for tg in targets if tg.metric not in summaries[c]]
                if unknown:
                    shutil.rmtree(staging, ignore_errors=True)
                    metrics = sorted(k for k, v in summaries[c].items() if isinstance(v, dict))
                    raise UserError(f"--target {unknown[0]}: not a figure of {spec.name}; allowed: "
                                    + ", ".join(metrics))
                history.append({"round": r, "candidate": c, "games": games[c],
                                **{k: _scalar(v) for k, v in candidates[c].items()},
                                "loss": loss(summaries[c], targets)[0]})
            survivors.sort(key=lambda c: loss(summaries[c], targets))
            if not quiet:
                best = survivors[0]
                print(f"round {r + 1}/{rounds}: {len(survivors)} candidates x {share:,} more games; best so far "
                      f"{variant_label(candidates[best])} (distance {loss(summaries[best], targets)[0]:.3f})",
                      flush=True)
            survivors = survivors[: math.ceil(len(survivors) / 2)]
        ranked = sorted(summaries, key=lambda c: (-games[c], loss(summaries[c], targets)))
        report = [{"candidate": c, "params": candidates[c], "games": games[c],
                   "distance": loss(summaries[c], targets)[0],
                   "targets": {t.metric: {**summaries[c].get(t.metric, {}), "band": [t.low, t.high],
                                          "verdict": t.verdict(summaries[c].get(t.metric, {}))} for t in targets}}
                  for c in ranked]
        for c in range(len(candidates)):
            shutil.rmtree(staging / f"candidate-{c:03d}", ignore_errors=True)
        doc = {"game": spec.name, "budget": budget, "spent": spent, "seed": seed, "method": "successive halving",
               "targets": [t.describe() for t in targets], "ranking": report}
        (staging / "tune.json").write_text(json.dumps(doc, indent=2, default=str) + "\n")
        pd.DataFrame(history).to_csv(staging / "history.csv", index=False)
        from analysis.tune import build_tune_report
        build_tune_report(json.loads(json.dumps(doc, default=str)), pd.DataFrame(history), staging)
        results.write_meta(staging, {"game": spec.name, "tune": True, "partial": False, "budget": budget,
                                     "spent": spent, "seed": seed})
        results.finish(staging, out)
        return report, spent


def _shares(n_candidates: int, rounds: int, per_round: int, batch_size: int) -> list[int]:
    """The games each survivor of successive halving plays round by round (whole batches), until one is left;
    their sum is what the last survivor will have played (and hold in memory)."""
    survivors, shares = n_candidates, []
    for r in range(rounds):
        shares.append((per_round // survivors) // batch_size * batch_size)
        if survivors == 1:
            break
        survivors = math.ceil(survivors / 2) if r < rounds - 1 else survivors
    return shares
