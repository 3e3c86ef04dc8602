"""Compile several games' kernels in the background while a job that needs them all goes on (docs/architecture.md).

A cold cache costs each kernel tens of seconds on one core: processes compile every game's kernel, the heaviest
first, then every game's trace after its kernel; numba's on-disk cache hands them over, and a lock per (game, step)
makes processes that want the same kernel compile it once.

Only the standard library at the top: `python -m sim.warmup --requirements` runs before numpy, numba and click are
installed, and the compile processes start faster without pandas (project imports are "deferred").
"""
from __future__ import annotations

import contextlib
import os
import time
from multiprocessing import get_context
from pathlib import Path

STEPS = ("kernel", "trace")
COMPILE_NEEDS = ("numpy", "numba", "click")  # all that compiling and playing main's kernels imports (a test checks)
TRACE_AFTER_KERNEL_S = 120  # a trace waits this long at most for its kernel (should that compile process die)

# (game, step) -> (the compile processes, the event set once it is compiled, their queue)
_PENDING: dict = {}


def play_one(game: str, cfg, plan) -> None:
    """Play one game of `plan`'s lineup: the batch kernel's specialisation a run uses."""
    from sim.runner import Plan, run_one_batch  # deferred (module docstring)
    run_one_batch(game, cfg, Plan(game, plan.players, 1, 0, plan.choices, 1, plan.round_robin), 0, 0, False)


def trace_one(game: str, cfg, plan) -> None:
    """Trace one game of `plan`'s lineup: the play loop the report's sample games use."""
    from sim.game import get_game  # deferred (module docstring)
    from sim.runner import DEFAULT_BATCH, seat_choices  # deferred (module docstring)
    seats = list(seat_choices(game, plan.players, plan.choices, plan.round_robin, 0))
    for _ in get_game(game).trace(cfg, plan.players, seats, 0, game=0, batch_size=DEFAULT_BATCH):
        pass


def play_and_trace(game: str, cfg, plan) -> None:
    """Play and trace one game of `plan`'s lineup: the specialisations a run and its report use, into the cache."""
    play_one(game, cfg, plan)
    trace_one(game, cfg, plan)


_DO = {"kernel": play_one, "trace": trace_one}


def _compile(todo, events, parent: int) -> None:
    from sim.runner import exit_with_parent  # deferred (module docstring)
    exit_with_parent(parent)
    for step, game, cfg, plan in iter(todo.get, None):  # the jobs in order, then one None per process
        if step != STEPS[0]:
            events[game, STEPS[0]].wait(TRACE_AFTER_KERNEL_S)
        with compiling(game, step):  # another process (`precompile`) may be compiling it: then loaded after
            try:
                _DO[step](game, cfg, plan)
            except Exception:
                pass  # the run compiles it again itself and reports the error there, once
        events[game, step].set()


def compile_kernels(jobs: list[tuple], workers: int) -> None:
    """Start compiling `jobs`, (game name, validated config, Plan), in processes (one per core and game at most, or
    `workers` if positive), and return. With one process, nothing is started (the run compiles its kernels)."""
    workers = min(len(jobs), os.cpu_count() or 1, workers if workers > 0 else len(jobs))
    if workers < 2:
        return
    jobs = _heaviest_first(jobs)
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


def _heaviest_first(jobs: list[tuple]) -> list[tuple]:
    """The order every compile process takes jobs in: the heaviest game's first (stable: ties keep their order)."""
    return sorted(jobs, key=lambda job: -_weight(job[0]))


def _weight(game: str) -> float:
    from sim.errors import UserError  # deferred (module docstring)
    from sim.game import get_game  # deferred (module docstring)
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
    """Return once `game`'s kernel (or its trace) compiling in the background is in the cache or its processes
    are gone (the caller then compiles it)."""
    procs, event, _ = _PENDING.pop((game, step), ((), None, None))
    while event is not None and not event.wait(0.5) and any(p.is_alive() for p in procs):
        pass
    for proc in procs if not _PENDING else ():
        proc.join(1)


def _lock_path(game: str, step: str) -> Path:
    from sim import cache_root  # deferred (module docstring)
    folder = Path(os.environ.get("NUMBA_CACHE_DIR") or cache_root())  # set by `import sim`: per source hash
    return folder / f".compiling-{game}-{step}.lock"


@contextlib.contextmanager
def compiling(game: str, step: str, wait: bool = True):
    """Hold the lock (an advisory `flock`, dropped however its holder ends) on compiling `game`'s `step`; yields
    whether it is held: waits for its holder unless `wait` is False. No lock file possible: nothing to share,
    yields True."""
    import fcntl
    path = _lock_path(game, step)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield True
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            held = True
        except BlockingIOError:
            held = False
        yield held
    finally:
        os.close(fd)  # closing drops the lock


def precompile(jobs: list[tuple]) -> list[tuple[str, str]]:
    """Compile `jobs`' kernels, then their traces, here, skipping what another process is compiling; returns
    the (game, step) pairs compiled."""
    done = []
    jobs = _heaviest_first(jobs)
    for step in STEPS:
        for game, cfg, plan in jobs:
            if step != STEPS[0]:  # a trace after its kernel (whose compiled engine it loads), never beside it
                with compiling(game, STEPS[0], wait=False) as kernel_free:
                    if not kernel_free:
                        continue
            with compiling(game, step, wait=False) as free:
                if not free:
                    continue
                try:
                    _DO[step](game, cfg, plan)
                except Exception:
                    continue  # `main` compiles it again and reports the error there, once
                done.append((game, step))
    return done


def _precompile_main() -> None:
    """`python -m sim.warmup`: compile `main`'s kernels while `make run` installs the rest (numpy, numba, click
    suffice)."""
    import signal
    import sys
    # make's shell leaves SIGINT ignored in a background job: Ctrl-C on `make run` should end this too
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # part of the install, like sim.bytecode: where PYTHONDONTWRITEBYTECODE is set, `main` and each of its
    # processes would otherwise compile numba's and numpy's modules from source again (~0.6 CPU-s a process)
    sys.dont_write_bytecode = False
    from sim.setup import main_jobs, main_setups  # deferred (module docstring)
    try:
        precompile(main_jobs(main_setups()))
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except Exception:  # e.g. a broken default configuration: `main` reports it, in one line
        raise SystemExit(1) from None


def compile_requirements() -> list[str]:
    """pyproject's requirements among COMPILE_NEEDS, `make run`'s first install step."""
    import re
    import tomllib
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    return [dep for dep in deps if re.match(r"[\w.-]+", dep)[0].lower() in COMPILE_NEEDS]


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["--requirements"]:
        print(" ".join(compile_requirements()))
    else:
        _precompile_main()
