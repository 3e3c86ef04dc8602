"""`balance-sim bench`: games per second per strategy pairing, on one core and on several workers. Speed lives
here, never in timed test asserts; figures are warm and from one process, so their ratios hold on a noisy machine."""
from __future__ import annotations

import time

import click
import numpy as np

from analysis import stats
from sim import inputs
from sim.config import build
from sim.errors import UserError
from sim.game import MAIN_TABLE, game_names, get_game
from sim.registry import choices, param_table, registered
from sim.runner import Plan, execute

SEARCH_PRESETS = ("expert-fast", "expert")  # the search presets whose cost and strength `bench` prints
MAX_STRENGTH_GAMES = 100_000


def _one_core(spec, cfg, players, chosen, n_games) -> float:
    lineup = np.tile(np.arange(len(chosen), dtype=np.int64), (n_games, 1))
    seconds, _ = _timed(spec.function("kernel"), cfg, players, chosen, lineup, 50, time.perf_counter)
    return n_games / seconds


@click.command()
@click.argument("games", nargs=-1)
@click.option("-n", "--games-per-run", "n_games", type=int, default=20_000, show_default=True)
@click.option("-j", "--jobs", type=int, default=2, show_default=True, help="Workers for the parallel figure.")
@click.option("--strength-games", "n_strength", type=int, default=40, show_default=True,
              help="Games of each search preset against the bench lineup's first heuristic (or --against), for "
                   "its win rate; 0 skips them.")
@click.option("--search-only", is_flag=True, help="Only the search presets' section (decisions per CPU-second, "
                                                  "strength): no heuristic figures.")
@click.option("--against", "against", default=None, metavar="NAME",
              help="The strategy or preset the search presets' strength games face (e.g. tuned).")
def bench(games, n_games, jobs, n_strength, search_only, against):
    """Matches per second per strategy pairing, on one core and on JOBS workers; search players' decisions per
    CPU-second beside their win rate against greedy (or --against)."""
    inputs.positive("--games-per-run", n_games, inputs.MAX_BENCH_GAMES)
    inputs.jobs(jobs, allow_all=False)
    inputs.whole("--strength-games", n_strength, 0, MAX_STRENGTH_GAMES, "a number of games (0: none)")
    for name in games:
        get_game(name)
    for name in (games or game_names()) if against is not None else ():  # all checked before any figure
        spec = get_game(name)
        try:
            choices(spec.name, spec.validate(build(spec.package), spec.default_players).presets, [against])
        except UserError as exc:
            raise UserError(f"--against: {exc}") from None
    for name in games or game_names():
        spec = get_game(name)
        players = spec.default_players
        cfg = spec.validate(build(spec.package), players)
        click.echo(f"== {spec.title}: {players} players" + ("" if search_only else f", {n_games:,} games per figure"))
        if search_only:
            _bench_search(spec, cfg, players, n_games, n_strength, against)
            continue
        for strat in [d.name for d in registered(spec.name) if not d.search]:  # search players: see below
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
        _bench_search(spec, cfg, players, n_games, n_strength, against)


def _bench_search(spec, cfg, players, n_games, n_strength, against=None) -> None:
    """Search players (SEARCH_PRESETS, else each search strategy) on one core: decisions per CPU-second in mirror
    games, and the win share against `against` (default the bench lineup's heuristic), seat rotated (CPU time: not
    the machine's load)."""
    names = ([name for name in SEARCH_PRESETS if name in cfg.presets]
             or [d.name for d in registered(spec.name) if d.search])
    kernel = spec.function("kernel")
    opponent = against or spec.bench_lineup[0]
    for name in names:
        mirror = tuple(choices(spec.name, cfg.presets, [name] * players))
        m = max(1, min(5, n_games // 4000))
        seconds, tables = _timed(kernel, cfg, players, mirror, np.zeros((m, players), dtype=np.int64))
        decisions = _decisions(tables)
        line = f"  {name:<12}"
        line += (f" {decisions / seconds:>8,.0f} decisions/CPU-s ({m} mirror games)" if decisions
                 else f" {m / seconds:>8,.2f} mirror games/CPU-s")
        if n_strength:
            line += "; " + _strength(spec, cfg, players, kernel, name, opponent, n_strength)
        click.echo(line)


def _strength(spec, cfg, players, kernel, name, opponent, n) -> str:
    rotate = np.array([np.roll(np.arange(players), k) for k in range(players)] * (-(-n // players)),
                      dtype=np.int64)[:n]
    chosen = tuple(choices(spec.name, cfg.presets, [name] + [opponent] * (players - 1)))
    seconds, tables = _timed(kernel, cfg, players, chosen, rotate)
    won = _seat_shares(spec, tables, players, n)[rotate == 0]  # choice 0 is the search player's seat
    r = stats.rate(float(won.sum()), n)
    return (f"vs {opponent} wins {r['estimate']:.1%} ({r['ci_low']:.1%}-{r['ci_high']:.1%}) of {n} games "
            f"(even: {1 / players:.0%}), {seconds / n:.3g} CPU-s/game")


def _seat_shares(spec, tables, players, n) -> np.ndarray:
    """(games, seats) win shares: the `players` table's `win_share`, else the `winner` seat's (-1: all share)."""
    share = np.zeros((n, players))
    seats = tables.get("players")
    if seats is not None and "win_share" in seats:
        share[seats["game"], seats["seat"]] = seats["win_share"]
        return share
    main = tables[MAIN_TABLE]
    winner = np.asarray(main["winner"])
    share[main[spec.id_column], :] = np.where(winner[:, None] < 0, 1 / players,
                                              winner[:, None] == np.arange(players))
    return share


def _timed(kernel, cfg, players, chosen, lineup, warm_games=1, clock=time.process_time):
    """(seconds by `clock`, tables) of one batch, after `warm_games` games (compile or load from cache)."""
    base = np.array([c.base_id for c in chosen], dtype=np.int64)
    params = param_table(chosen)
    kernel(cfg, players, lineup[:warm_games], base, params, 7, False)
    start = clock()
    tables = kernel(cfg, players, lineup, base, params, 11, False)
    return clock() - start, tables


def _decisions(tables) -> float | None:
    """Decisions strategies took (calls with more than one option), from whichever table counts them."""
    for name in ("rounds", "games"):
        table = tables.get(name)
        if table and "decisions" in table:
            return float(np.sum(table["decisions"]))
    return None

