"""Compile every game's kernels side by side before a whole test run (tests/conftest.py starts this): on an empty
numba cache each game costs tens of seconds on one core; one process per game compiles what the tests call through
the runner and the trace at the same time, and numba's on-disk cache hands the results to the test process."""
import dataclasses
import os


def compile_game(game: str, parent: int) -> None:
    """Play one game of `game` through the runner with greedy players and with a search player, and trace one.
    Quietly: should it fail, the test that needs the kernel compiles it and reports the error there."""
    try:
        _play_and_trace(game, parent)
    except Exception:
        os._exit(1)


def _play_and_trace(game: str, parent: int) -> None:
    from sim.config import build
    from sim.game import get_game
    from sim.registry import choices
    from sim.runner import Plan, exit_with_parent, run_one_batch
    from sim.warmup import play_and_trace

    exit_with_parent(parent)
    spec = get_game(game)
    players = spec.default_players
    cfg = spec.validate(build(spec.package), players)
    greedy = choices(game, cfg.presets, ["greedy"] * players)
    search = choices(game, cfg.presets, ["ismcts"])[0]
    search = dataclasses.replace(search, params=(1.0, *search.params[1:]))  # one iteration: compiling is the point
    play_and_trace(game, cfg, Plan(game, players, 1, 0, tuple(greedy), 1))
    run_one_batch(game, cfg, Plan(game, players, 1, 0, (search, *greedy[1:]), 1), 0, 0, False)


def start(games) -> list:
    """One spawned process per game (not forked: the test process may hold numba's compiler state)."""
    from multiprocessing import get_context

    ctx = get_context("spawn")
    procs = [ctx.Process(target=compile_game, args=(game, os.getpid()), daemon=True) for game in games]
    for proc in procs:
        proc.start()
    return procs
