"""Compile several games' kernels in the background while a job that needs them all goes on.

A cold numba cache costs each game's kernel tens of seconds of compiling, on one core. `balance-sim main` plays
the games one after another; worker processes compile them meanwhile, and numba's on-disk cache hands each one
over. The processes (`compile_kernels`) compile first every game's batch kernel (one game played), the heaviest
first (`GameSpec.compile_weight`), then every game's trace (one game traced, as the report's sample games are), each
after its own game's kernel, whose compiled engine functions it then loads rather than compiles again. `main`
plays next whichever game's kernel is compiled first (`first_ready`); each run waits only for its own kernel
(`wait`, in sim.runner.execute) and its report for its own trace: a game plays while its trace and the later
games compile, and a trace no longer delays the next game's kernel.
"""
from __future__ import annotations

import os
import time
from multiprocessing import get_context

STEPS = ("kernel", "trace")
TRACE_AFTER_KERNEL_S = 120  # a trace waits this long at most for its kernel (should that compile process die)

# (game, step) -> (the compile processes, the event set once it is compiled, their queue)
_PENDING: dict = {}


def play_one(game: str, cfg, plan) -> None:
    """Play one game of `plan`'s lineup: the batch kernel's specialisation a run uses."""
    from sim.runner import Plan, run_one_batch
    run_one_batch(game, cfg, Plan(game, plan.players, 1, 0, plan.choices, 1, plan.round_robin), 0, 0, False)


def trace_one(game: str, cfg, plan) -> None:
    """Trace one game of `plan`'s lineup: the play loop the report's sample games use."""
    from sim.game import get_game
    from sim.runner import DEFAULT_BATCH, seat_choices
    seats = list(seat_choices(game, plan.players, plan.choices, plan.round_robin, 0))
    for _ in get_game(game).trace(cfg, plan.players, seats, 0, game=0, batch_size=DEFAULT_BATCH):
        pass


def play_and_trace(game: str, cfg, plan) -> None:
    """Play one game of `plan`'s lineup and trace one: the entry points a run and its report use (the same
    specialisations), so that numba's cache holds them afterwards."""
    play_one(game, cfg, plan)
    trace_one(game, cfg, plan)


_DO = {"kernel": play_one, "trace": trace_one}


def _compile(todo, events, parent: int) -> None:
    from sim.runner import exit_with_parent
    exit_with_parent(parent)
    for step, game, cfg, plan in iter(todo.get, None):  # the jobs in order, then one None per process
        if step != STEPS[0]:
            events[game, STEPS[0]].wait(TRACE_AFTER_KERNEL_S)
        try:
            _DO[step](game, cfg, plan)
        except Exception:
            pass  # the run compiles it again itself and reports the error there, once
        events[game, step].set()


def compile_kernels(jobs: list[tuple], workers: int) -> None:
    """Start compiling `jobs`, (game name, validated config, Plan), in processes (at most one per core and per game,
    or `workers` if positive), and return: every game's kernel, the heaviest first, then every game's trace; the
    processes exit once they are done. With one process, nothing is started (the run compiles its kernels)."""
    workers = min(len(jobs), os.cpu_count() or 1, workers if workers > 0 else len(jobs))
    if workers < 2:
        return
    jobs = sorted(jobs, key=lambda job: -_weight(job[0]))  # stable: ties keep their order
    ctx = get_context("spawn")  # not fork: the parent may already hold numba's compiler state and joblib's threads
    todo, events = ctx.Queue(), {(game, step): ctx.Event() for game, _, _ in jobs for step in STEPS}
    procs = [ctx.Process(target=_compile, args=(todo, events, os.getpid()), daemon=True) for _ in range(workers)]
    for step in STEPS:
        for job in jobs:
            todo.put((step, *job))
            _PENDING[job[0], step] = (procs, events[job[0], step], todo)  # the queue kept alive for the processes
    for _ in procs:
        todo.put(None)
    for proc in procs:
        proc.start()


def _weight(game: str) -> float:
    from sim.errors import UserError
    from sim.game import get_game
    try:
        return get_game(game).compile_weight
    except UserError:
        return 1.0  # an unknown game: its compile job fails, and its run reports why


def _done(game: str, step: str = STEPS[0]) -> bool:
    procs, event, _ = _PENDING.get((game, step), ((), None, None))
    return event is None or event.is_set() or not any(p.is_alive() for p in procs)


def first_ready(games: list[str]) -> str:
    """The first of `games` whose kernel is compiled (or not compiling in the background), once there is one."""
    while not any(_done(game) for game in games):
        time.sleep(0.1)
    return next(game for game in games if _done(game))


def wait(game: str, step: str = STEPS[0]) -> None:
    """Return once `game`'s kernel (or, with step "trace", its trace), if it is compiling in the background, is
    in numba's cache, or its compile processes are gone (the caller then compiles it)."""
    procs, event, _ = _PENDING.pop((game, step), ((), None, None))
    while event is not None and not event.wait(0.5) and any(p.is_alive() for p in procs):
        pass
    for proc in procs if not _PENDING else ():
        proc.join(1)
