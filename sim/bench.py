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
    """Search players at their default budget (the `expert` preset, else each search strategy's defaults), on
    one core: games per second against the bench lineup's heuristic, and decisions per second in mirror games
    (every seat searching, so every counted decision is a search decision). Few games: a search decision costs
    milliseconds."""
    names = [name for name in ("expert",) if name in cfg.presets]
    if not names:
        names = [d.name for d in registered(spec.name) if d.search]
    kernel = kernel_function(spec)
    for name in names:
        n = max(2, min(20, n_games // 1000))
        rotate = np.array([np.roll(np.arange(players), k) for k in range(players)] * (-(-n // players)),
                          dtype=np.int64)[:n]
        chosen = tuple(choices(spec.name, cfg.presets, [name] + [spec.bench_lineup[0]] * (players - 1)))
        rate = _timed(kernel, spec, cfg, players, chosen, rotate)[0]
        mirror = tuple(choices(spec.name, cfg.presets, [name] * players))
        m = max(1, n // 4)
        seconds_m, tables = _timed(kernel, spec, cfg, players, mirror, np.zeros((m, players), dtype=np.int64))[1:]
        decisions = _decisions(tables)
        line = f"  {name} vs {spec.bench_lineup[0]:<18} one core {rate:>10,.2f} games/s ({n} games)"
        if decisions:
            line += f"; {decisions / seconds_m:,.0f} {name} decisions/s ({m} mirror games)"
        click.echo(line)


def _timed(kernel, spec, cfg, players, chosen, lineup):
    base = np.array([c.base_id for c in chosen], dtype=np.int64)
    params = np.stack([c.vector() for c in chosen])
    kernel(cfg, players, lineup[:1], base, params, 7, False)  # warm
    start = time.perf_counter()
    tables = kernel(cfg, players, lineup, base, params, 11, False)
    seconds = time.perf_counter() - start
    return len(lineup) / seconds, seconds, tables


def _decisions(tables) -> float | None:
    """Decisions strategies took (calls with more than one option), from whichever table counts them."""
    for name in ("rounds", "games"):
        table = tables.get(name)
        if table and "decisions" in table:
            return float(np.sum(table["decisions"]))
    return None
