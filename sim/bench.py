"""`balance-sim bench`: games per second per strategy pairing, on one core and on several workers.

Speed lives here, never in timed test asserts. Figures are warm (each kernel is run once before timing) and
measured in one process run, so ratios between them are meaningful even on a noisy machine.
"""
from __future__ import annotations

import time

import click
import numpy as np

from sim.config import build
from sim.game import game_names, get_game, kernel_function
from sim.registry import choices, registered
from sim.runner import Plan, execute


def _one_core(spec, cfg, players, chosen, n_games) -> float:
    kernel = kernel_function(spec)
    base = np.array([c.base_id for c in chosen], dtype=np.int64)
    params = np.stack([c.vector() for c in chosen])
    lineup = np.tile(np.arange(len(chosen), dtype=np.int64), (n_games, 1))
    kernel(cfg, players, lineup[:50], base, params, 7, False)  # warm: compile or load from cache
    start = time.perf_counter()
    kernel(cfg, players, lineup, base, params, 11, False)
    return n_games / (time.perf_counter() - start)


def run_bench(games: list[str], n_games: int, jobs: int) -> None:
    for name in games or game_names():
        spec = get_game(name)
        players = spec.default_players
        cfg = spec.validate(build(spec.package), players)
        click.echo(f"== {spec.title}: {players} players, {n_games:,} games per figure")
        strategies = [d.name for d in registered(spec.name) if not d.search]  # search players: see below
        for strat in strategies:
            chosen = tuple(choices(spec.name, cfg.presets, [strat] * players))
            rate = _one_core(spec, cfg, players, chosen, n_games)
            click.echo(f"  {'-vs-'.join([strat] * min(players, 2)):<28} one core {rate:>10,.0f} games/s")
        chosen = tuple(choices(spec.name, cfg.presets, list(spec.bench_lineup)))
        single = _one_core(spec, cfg, players, chosen, n_games)
        plan = Plan(spec.name, players, n_games * jobs, 1, chosen, 2000)
        execute(spec, cfg, plan, jobs=jobs, progress=False)  # warm the workers
        _, timing = execute(spec, cfg, plan, jobs=jobs, progress=False)
        parallel = timing["games_per_second"]
        click.echo(f"  {' vs '.join(spec.bench_lineup)}: one core {single:,.0f}/s; {jobs} workers "
                   f"{parallel:,.0f}/s ({parallel / single:.2f}x, {parallel / single / jobs:.0%} per worker)")
        _bench_search(spec, cfg, players, n_games)


def _bench_search(spec, cfg, players, n_games) -> None:
    """Search players at their default budget: the `expert` preset (or each search strategy's defaults) against
    the bench lineup's first strategy, on one core. Few games: a search decision costs milliseconds."""
    names = [name for name in ("expert",) if name in cfg.presets]
    if not names:
        names = [d.name for d in registered(spec.name) if d.search]
    for name in names:
        chosen = tuple(choices(spec.name, cfg.presets, [name] + [spec.bench_lineup[0]] * (players - 1)))
        n = max(2, min(20, n_games // 1000))
        kernel = kernel_function(spec)
        base = np.array([c.base_id for c in chosen], dtype=np.int64)
        params = np.stack([c.vector() for c in chosen])
        lineup = np.array([np.roll(np.arange(players), k) for k in range(players)] * (-(-n // players)),
                          dtype=np.int64)[:n]
        kernel(cfg, players, lineup[:1], base, params, 7, False)  # warm
        start = time.perf_counter()
        tables = kernel(cfg, players, lineup, base, params, 11, False)
        seconds = time.perf_counter() - start
        decisions = _search_decisions(tables, lineup)
        line = f"  {name} vs {spec.bench_lineup[0]:<18} one core {n / seconds:>10,.2f} games/s"
        if decisions is not None:
            line += f", {decisions / seconds:,.0f} {name} decisions/s ({n} games)"
        click.echo(line)


def _search_decisions(tables, lineup):
    """Decisions taken by the searching seat, where the tables count decisions (Mohur's rounds table counts
    both traders' decisions; turns alternate, so the search player's share is half)."""
    rounds = tables.get("rounds")
    if not rounds or "decisions" not in rounds or lineup.shape[1] != 2:
        return None
    return float(np.sum(rounds["decisions"])) / 2.0
