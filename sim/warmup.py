"""Compile several games' kernels in the background while a job that needs them all goes on.

A cold numba cache costs each game's kernel tens of seconds of compiling, on one core. `balance-sim main` plays
the games one after another; worker processes compile them meanwhile (one game played and one traced, as the
report's sample games are), the heaviest first (`GameSpec.compile_weight`), and `main` plays next whichever game is
compiled first (`first_ready`); each run waits only for its own game (`wait`, in sim.runner.execute): a later game
compiles while an earlier one plays and is reported. numba's on-disk cache hands each kernel over.
"""
from __future__ import annotations

import os
import time
from multiprocessing import get_context

# game -> (the compile processes, their queue: kept alive for them to unpickle; the event set once it is compiled)
_PENDING: dict = {}


def play_and_trace(game: str, cfg, plan) -> None:
    """Play one game of `plan`'s lineup and trace one: the entry points a run and its report use (the same
    specialisations), so that numba's cache holds them afterwards."""
    from sim.game import get_game
    from sim.runner import DEFAULT_BATCH, Plan, run_one_batch, seat_choices
    run_one_batch(game, cfg, Plan(game, plan.players, 1, 0, plan.choices, 1, plan.round_robin), 0, 0, False)
    seats = list(seat_choices(game, plan.players, plan.choices, plan.round_robin, 0))
    for _ in get_game(game).trace(cfg, plan.players, seats, 0, game=0, batch_size=DEFAULT_BATCH):
        pass


def _compile(todo, ready, parent: int) -> None:
    from sim.runner import exit_with_parent
    exit_with_parent(parent)
    for game, cfg, plan in iter(todo.get, None):  # the jobs in order, then one None per process
        try:
            play_and_trace(game, cfg, plan)
        except Exception:
            pass  # the run compiles it again itself and reports the error there, once
        ready[game].set()


def compile_kernels(jobs: list[tuple], workers: int) -> None:
    """Start compiling `jobs`, (game name, validated config, Plan), the heaviest to compile first, and return.
    With one worker, or one kernel, nothing is done here (the run compiles it)."""
    workers = min(len(jobs), os.cpu_count() or 1, workers if workers > 0 else len(jobs))
    if workers < 2:
        return
    jobs = sorted(jobs, key=lambda job: -_weight(job[0]))  # stable: ties keep their order
    ctx = get_context("spawn")  # not fork: the parent may already hold numba's compiler state and joblib's threads
    todo, ready = ctx.Queue(), {game: ctx.Event() for game, _, _ in jobs}
    for job in [*jobs, *[None] * workers]:
        todo.put(job)
    procs = [ctx.Process(target=_compile, args=(todo, ready, os.getpid()), daemon=True) for _ in range(workers)]
    for proc in procs:
        proc.start()
    _PENDING.update({game: (procs, todo, event) for game, event in ready.items()})


def _weight(game: str) -> float:
    from sim.errors import UserError
    from sim.game import get_game
    try:
        return get_game(game).compile_weight
    except UserError:
        return 1.0  # an unknown game: its compile job fails, and its run reports why


def _done(game: str) -> bool:
    procs, _, event = _PENDING.get(game, ((), None, None))
    return event is None or event.is_set() or not any(p.is_alive() for p in procs)


def first_ready(games: list[str]) -> str:
    """The first of `games` whose kernel is compiled (or not compiling in the background), once there is one."""
    while not any(_done(game) for game in games):
        time.sleep(0.1)
    return next(game for game in games if _done(game))


def wait(game: str) -> None:
    """Return once `game`'s kernel, if it is compiling in the background, is in numba's cache, or its compile
    process is gone (the run then compiles it)."""
    procs, _, event = _PENDING.pop(game, ((), None, None))
    while event is not None and not event.wait(0.5) and any(p.is_alive() for p in procs):
        pass
    for proc in procs if not _PENDING else ():
        proc.join(1)
