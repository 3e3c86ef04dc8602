"""Batch runs: plan the games, fan the batches out through joblib, gather the tables. Each batch has a fixed size
and its own seed (`SeedSequence(root).spawn(n)[b]`): the same tables at any -j, backend or scheduling order."""
from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import logging
import os
import signal
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sim.batches import context_digest, load_batch, save_batch, sound_batches
from sim.errors import RunInterrupted, WorkersFailed
from sim.game import GameSpec, get_game
from sim.inputs import SCHEDULER_TIMEOUT_S
from sim.registry import param_table
from sim.rng import DEFAULT_BATCH, batch_seed

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Plan:
    game: str
    players: int
    n_games: int
    seed: int
    choices: tuple  # StrategyChoice per lineup index
    batch_size: int
    round_robin: bool = False  # every pairing (two players) or rotations and mirror games (more), see lineups

    @property
    def n_batches(self) -> int:
        return -(-self.n_games // self.batch_size)

    def batch_bounds(self, b: int) -> tuple[int, int]:
        return b * self.batch_size, min(self.n_games, (b + 1) * self.batch_size)

    def batch_games(self, b: int) -> int:
        start, stop = self.batch_bounds(b)
        return stop - start


def pairings(n_choices: int, round_robin: bool) -> list[tuple[int, int]]:
    """Two-seat pairings: every unordered pair, mirror matches included, when playing round-robin."""
    return list(itertools.combinations_with_replacement(range(n_choices), 2)) if round_robin else [(0, 1 % n_choices)]


def lineups(plan: Plan, start: int, stop: int) -> np.ndarray:
    """Strategy (choice index) per game and seat, a pure function of the game's index, seats rotating game by game
    (pairings both ways round; more players: a line-up rotated over p games, every pair meeting, round-robin
    alternating with mirror games to measure seats at equal skill)."""
    g = np.arange(start, stop, dtype=np.int64)
    p, c = plan.players, len(plan.choices)
    if p == 2:
        pairs = np.array(pairings(c, plan.round_robin or c > 2), dtype=np.int64)
        pair = pairs[(g // 2) % len(pairs)]
        swap = (g % 2) == 1
        out = pair.copy()
        out[swap] = pair[swap][:, ::-1]
        return out
    seats = np.arange(p, dtype=np.int64)
    block = g // p
    if plan.round_robin:  # every second block of p games is a mirror game (every seat one strategy)
        turn, mirror = block // 2, (block % 2) == 1
    else:
        turn, mirror = block, np.zeros(len(g), dtype=bool)
    offset = turn % c
    if c <= 2 * p - 1:  # consecutive windows already bring every pair together
        base = (offset[:, None] + seats[None, :]) % c
    else:
        combos = np.array(list(itertools.combinations(range(c), p)), dtype=np.int64)
        base = combos[turn % len(combos)]
    base[mirror] = offset[mirror][:, None]
    shift = (g % p)[:, None]
    return np.take_along_axis(base, (seats[None, :] - shift) % p, axis=1)


def seat_choices(game: str, players: int, choices: tuple, round_robin: bool, index: int) -> tuple:
    """The strategy choice at each seat of game `index` of a run, as `lineups` seats them."""
    plan = Plan(game, players, index + 1, 0, tuple(choices), 1, round_robin)
    return tuple(choices[c] for c in lineups(plan, index, index + 1)[0])


def run_one_batch(game: str, cfg, plan: Plan, b: int, seed: int, debug: bool) -> dict:
    """Plays batch b. A plain module-level function so joblib workers import the engine once and reuse it."""
    spec = get_game(game)
    start, stop = plan.batch_bounds(b)
    base = np.array([c.base_id for c in plan.choices], dtype=np.int64)
    params = param_table(plan.choices)
    tables = spec.run_batch(cfg, plan.players, lineups(plan, start, stop), base, params, seed, debug)
    for table in tables.values():
        if spec.id_column in table:
            table[spec.id_column] = table[spec.id_column].astype(np.int64) + start
    return tables


def summarize_one_batch(game: str, cfg, plan: Plan, b: int, seed: int, debug: bool, meta: dict,
                        summariser) -> dict:
    """--summary-only: batch b's mergeable summary (`summariser.batch`): flat memory at any -n."""
    spec = get_game(game)
    tables = assemble(spec, plan, [run_one_batch(game, cfg, plan, b, seed, debug)])
    return summariser.batch(tables, {**meta, "games": plan.batch_games(b)})


def _warn(message: str) -> None:
    from tqdm import tqdm
    tqdm.write(f"balance-sim: warning: {message}", file=sys.stderr)  # above a progress bar, not through it


def worker_count(jobs: int, tasks: int, backend: str, scheduler: str | None) -> int:
    """Workers worth starting (each ~300 MB): no more than the batches left; beyond the cores, said."""
    cores = os.cpu_count() or 1
    wanted = cores if jobs < 0 else jobs
    if wanted > cores and not scheduler and tasks > cores:
        _warn(f"-j {jobs} is more than the {cores} cores here: the workers share them (no faster) and each "
              "holds its own memory")
    return max(1, min(wanted, tasks))


def exit_with_parent(parent_pid: int) -> None:
    """First thing in a worker (or compile) process: end with the main process however it ends, rather than play on
    for minutes. Linux kills it even while a compiled batch holds the GIL; elsewhere a thread checks."""
    if os.getppid() != parent_pid:
        return  # not our direct child (a Dask worker under its nanny): its own supervisor ends it
    if sys.platform.startswith("linux"):
        import ctypes
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    else:

        def watch():
            while os.getppid() == parent_pid:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, daemon=True, name="balance-sim-parent-watch").start()
    if os.getppid() != parent_pid:  # the parent died before the watch was set
        os._exit(1)


PARENT_ENV = "BALANCE_SIM_RUN_PID"  # set for a local Dask cluster's worker processes: the run they serve


def dask_setup(worker) -> None:
    """Dask preload of a local cluster's workers: end with the run, and leave Ctrl-C to it."""
    parent = os.environ.get(PARENT_ENV)
    if not parent:
        return  # a worker of someone's cluster (--scheduler): its own supervisor ends it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.getLogger("distributed.worker.state_machine").setLevel(logging.ERROR)  # batches cancelled on Ctrl-C
    if os.getppid() != int(parent):
        os._exit(1)  # the run ended before this worker got going
    exit_with_parent(int(parent))


def start_worker(parent_pid: int) -> None:
    """loky worker initializer: end with the parent, and ready numba's compiler (~0.9 CPU-s) while the parent plays
    the first batch; nothing names the game, so `main`'s games share the workers."""
    exit_with_parent(parent_pid)
    from numba import njit
    njit(lambda x: x + 1)(1)


def _ready(game: str) -> int:
    """A worker's first task: import the game's engine, which its batches need."""
    get_game(game).module("kernel")
    return os.getpid()


def _start_workers(game: str, workers: int, loky: dict):
    """Start the loky workers now; their first tasks' generator is consumed after the parent's batch."""
    from joblib import Parallel, delayed, parallel_config
    with parallel_config(backend="loky", **loky):
        return Parallel(n_jobs=workers, return_as="generator")(delayed(_ready)(game) for _ in range(workers))


def _death(exc: Exception) -> str:
    """loky's several-paragraph message, down to how the worker ended (e.g. 'exit codes SIGKILL(-9)')."""
    import re
    found = re.search(r"exit codes? of the workers? (?:are|is) \{([^}]*)\}", str(exc))
    return (f"exit codes {found.group(1)}" if found else
            (str(exc).strip().splitlines() or [type(exc).__name__])[0][:160])


def _loky(backend: str) -> dict:
    return {"initializer": start_worker, "initargs": (os.getpid(),)} if backend == "loky" else {}


CANCELLED = ".*(?:successfully executed|been cancelled)"  # joblib on closing a generator early: what was meant


@contextlib.contextmanager
def _parallel(tasks, workers: int, backend: str, loky: dict):
    """joblib's results of `tasks` in order; leaving early (Ctrl-C, a full disk) cancels the tasks in flight."""
    from joblib import Parallel, parallel_config  # deferred: joblib starts nothing for a plan run here
    with parallel_config(backend=backend, **loky), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=CANCELLED)
        results = Parallel(n_jobs=workers, return_as="generator")(tasks)
        try:
            yield results
        finally:
            results.close()


def _client(n_jobs: int, backend: str, scheduler: str | None):
    if backend != "dask":
        return None
    from dask.distributed import Client, LocalCluster  # installed: the CLI checked it (inputs.dask_scheduler)
    if scheduler:  # it answered the CLI's check a moment ago (inputs.dask_scheduler)
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
    os.environ[PARENT_ENV] = str(os.getpid())  # inherited by the worker processes, read by dask_setup
    return Client(LocalCluster(n_workers=max(1, n_jobs), threads_per_worker=1, processes=True,
                               dashboard_address=None, preload=["sim.runner"]))


def _close(client, stopped: bool) -> None:
    """End the Dask client and our local cluster; stopped part-way, its warnings of cancelled work are noise."""
    cluster = getattr(client, "cluster", None)
    if stopped:
        logging.getLogger("distributed").setLevel(logging.ERROR)
    client.close()
    if cluster is not None:
        cluster.close()


WORKER_RETRIES = 2  # a worker that dies is replaced and its batches played again, this many times in a row


# Set by the command-line program, not a test or notebook: once stopped on a signal the process is about to exit,
# and a further Ctrl-C would only turn its clean exit into a traceback.
IGNORE_SIGNALS_ONCE_STOPPED = False


# Set by the command-line program's handler of Ctrl-C and SIGTERM (sim.cli): a KeyboardInterrupt that something
# swallowed on its way up (a plotting library) still ends the command as interrupted.
INTERRUPTED_BY_SIGNAL = False


@contextlib.contextmanager
def ends_if_interrupted():
    """The block's work counts only if no signal came meanwhile: else (even if the KeyboardInterrupt was swallowed,
    or turned into another error half-way, e.g. a figure cut short) a KeyboardInterrupt, so nothing is installed."""
    try:
        yield
    except Exception:
        if INTERRUPTED_BY_SIGNAL:
            raise KeyboardInterrupt from None
        raise
    if INTERRUPTED_BY_SIGNAL:
        raise KeyboardInterrupt


def stop_quietly_once_interrupted() -> None:
    """The installed program's choice (sim.cli): see IGNORE_SIGNALS_ONCE_STOPPED."""
    global IGNORE_SIGNALS_ONCE_STOPPED
    IGNORE_SIGNALS_ONCE_STOPPED = True


class _StopOnCtrlC:
    """The first Ctrl-C (or SIGTERM) stops after the batch in hand (kernels cannot stop mid-batch)."""

    def __init__(self):
        self.requested = False
        self.at_once = False  # Dask: a batch in hand may never come back (a scheduler gone silent): stop now
        self._old = {}

    def _handle(self, signum, frame):
        if self.requested or self.at_once:
            self.requested = True
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        for sig, old in self._old.items():
            signal.signal(sig, signal.SIG_IGN if self.requested and IGNORE_SIGNALS_ONCE_STOPPED else old)
        return False

    def check(self):
        if self.requested:
            raise RunInterrupted()


def execute(spec: GameSpec, cfg, plan: Plan, *, jobs: int = 1, backend: str = "loky",
            scheduler: str | None = None, debug: bool = False, progress: bool = True,
            batch_dir: Path | None = None, summary_meta: dict | None = None, summariser=None,
            sink=None, kind: str = "run") -> tuple[dict, dict]:
    """Play the plan: (tables, timings), batches delivered in order. `batch_dir`: each saved at once, sound saved
    ones loaded instead (`kind` the command), so a resumed run is identical. `summary_meta`: summarised in the workers
    by `summariser` ({"summary": ...}). `sink(b, tables)`: handed over, nothing kept ({}). Flat memory in the plan."""
    from tqdm import tqdm  # deferred with joblib's imports below: a plan run in this process needs neither

    summary_only = summary_meta is not None
    if summary_only and summariser is None:
        raise ValueError("--summary-only needs a summariser")
    seed_of = functools.partial(batch_seed, plan.seed)
    context = batch_context(spec, cfg, plan, summary_only, kind)
    done = _sound_saved(spec, plan, batch_dir, seed_of, summary_only, context)
    saved_games = sum(plan.batch_games(b) for b in done)
    started = time.perf_counter()
    bar = tqdm(total=plan.n_games, unit="game", disable=not progress, dynamic_ncols=True,
               desc=spec.name, mininterval=0.5, file=sys.stderr)
    bar.update(saved_games)
    merged, collected = {}, []  # --summary-only's sums; the batches' tables
    deliver = ((lambda b, tables: summariser.merge(merged, tables)) if summary_only else
               sink or (lambda b, tables: collected.append(tables)))
    order = _InOrder(plan, batch_dir, done, summary_only, context, seed_of, deliver, bar)
    work, extra = (summarize_one_batch, (summary_meta, summariser)) if summary_only else (run_one_batch, ())

    def play(b: int) -> dict:
        return work(spec.name, cfg, plan, b, seed_of(b), debug, *extra)

    client = None
    stop = _StopOnCtrlC()
    try:
        with stop:
            todo = order.pending()
            first = next(todo, None)
            remaining = plan.n_batches - len(done) - (first is not None)
            workers = worker_count(jobs, remaining, backend, scheduler) if remaining else 1
            loky = _loky(backend)
            _play_first(spec.name, first, play, order, stop, workers if remaining else 1, backend, loky)
            if remaining and workers == 1 and backend != "dask":
                for b in todo:
                    order.keep(b, play(b))
                    stop.check()
            elif remaining:
                stop.at_once = backend == "dask"  # what is saved stays saved; batches in flight are played again
                client = _client(workers, backend, scheduler)
                _play_in_parallel(work, (spec.name, cfg, plan), seed_of, (debug, *extra), first, order, stop,
                                  workers, backend, loky)
    except Exception as exc:
        if stop.requested:  # a worker killed by the same Ctrl-C: still an interruption, not a failure
            raise RunInterrupted() from exc
        if type(exc).__name__ == "KilledWorker":  # Dask already retried the batch on other workers
            raise WorkersFailed(f"Dask workers died playing a batch ({_death(exc)})") from None
        raise
    finally:
        bar.close()
        if client is not None:
            _close(client, stop.requested)
    elapsed = time.perf_counter() - started
    order.flush()  # saved batches after the last one played
    if summary_only:
        tables = {"summary": summariser.finalize(merged)}
    elif sink is not None:
        tables = {}
    else:
        tables = assemble(spec, plan, collected)
    played = plan.n_games - saved_games
    return tables, {"seconds": elapsed, "games_played_now": int(played),
                    "games_per_second": played / elapsed if elapsed and played else None}


def _sound_saved(spec: GameSpec, plan: Plan, batch_dir, seed_of, summary_only: bool, context: str) -> set[int]:
    """The saved batches that can be trusted (none without a batch folder); the others are named and played again."""
    if batch_dir is None:
        return set()
    good, bad = sound_batches(batch_dir, plan, seed_of, spec.id_column, summary_only, context)
    if bad:
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        _warn(f"{len(bad)} saved batch file(s) cannot be trusted and are played again: " + ", ".join(bad[:5]) + more)
    return set(good)


class _InOrder:
    """Finished batches, saved at once, delivered in batch order (a resumed run sums exactly the same)."""

    def __init__(self, plan: Plan, batch_dir, done: set[int], summary_only: bool, context: str, seed_of, deliver,
                 bar):
        self.plan, self.batch_dir, self.done, self.summary_only = plan, batch_dir, done, summary_only
        self.context, self.seed_of, self.deliver, self.bar = context, seed_of, deliver, bar
        self.waiting: dict[int, dict] = {}  # batches ahead of their turn
        self.next_out = 0

    def pending(self, after: int = -1):
        """The batches still to play after batch `after`, generated as they are handed out."""
        return (b for b in range(after + 1, self.plan.n_batches) if b not in self.done)

    def flush(self) -> None:
        """Deliver every batch that is now next in order."""
        while self.next_out < self.plan.n_batches:
            b = self.next_out
            if b in self.waiting:
                self.deliver(b, self.waiting.pop(b))
            elif b in self.done:
                self.deliver(b, load_batch(self.batch_dir, b, self.summary_only))
            else:
                break
            self.next_out += 1

    def keep(self, b: int, tables: dict) -> None:
        if self.batch_dir is not None:
            save_batch(self.batch_dir, b, tables, self.summary_only, seed=self.seed_of(b),
                       bounds=self.plan.batch_bounds(b), context=self.context)
        self.waiting[b] = tables
        self.flush()
        self.bar.update(self.plan.batch_games(b))


def _play_first(game: str, first, play, order: _InOrder, stop, workers: int, backend: str, loky: dict) -> None:
    """The first batch plays here, compiling the kernel once for the workers to load from numba's cache."""
    starting = _start_workers(game, workers, loky) if workers > 1 and backend == "loky" else None
    try:
        if first is not None:
            order.keep(first, play(first))
            stop.check()
        if starting is not None:
            for _ in starting:  # the workers are ready (or soon will be) for the batches
                pass
    finally:
        if starting is not None:
            with warnings.catch_warnings():  # stopped early: its tasks are cancelled, as meant
                warnings.filterwarnings("ignore", message=CANCELLED)
                starting.close()  # (a no-op once they are all in)


def _play_in_parallel(work, head: tuple, seed_of, tail: tuple, last, order: _InOrder, stop, workers: int,
                      backend: str, loky: dict) -> None:
    """The batches after `last` in order; a dead worker's batches replayed, WORKER_RETRIES times in a row."""
    from joblib import delayed  # deferred: joblib starts nothing for a plan run here
    from joblib.externals.loky.process_executor import BrokenProcessPool

    deaths = 0
    while True:
        try:
            tasks = (delayed(work)(*head, b, seed_of(b), *tail) for b in order.pending(last))
            with _parallel(tasks, workers, backend, loky) as played:
                for b, tables in zip(order.pending(last), played):
                    order.keep(b, tables)
                    last, deaths = b, 0
                    stop.check()
            return
        except BrokenProcessPool as exc:
            if stop.requested:
                raise
            deaths += 1
            lost = next(order.pending(last), None)
            if deaths > WORKER_RETRIES:
                raise WorkersFailed(f"worker processes died {deaths} times in a row, the last time "
                                    f"while playing batch {lost} or one after it ({_death(exc)})") from None
            _warn(f"a worker process died while playing batch {lost} or after ({_death(exc)}); "
                  "playing those batches again")


def batch_context(spec: GameSpec, cfg, plan: Plan, summary_only: bool, kind: str) -> str:
    """What a batch is played under, saved in its file (not its games: a tune candidate extends them)."""
    return context_digest({"kind": kind, "game": spec.name, "config": getattr(cfg, "raw", None),
                           "players": plan.players, "round_robin": plan.round_robin, "seed": plan.seed,
                           "batch_size": plan.batch_size, "summary_only": bool(summary_only),
                           "strategies": [[c.name, c.base, [float(v) for v in c.params]] for c in plan.choices]})


def assemble(spec: GameSpec, plan: Plan, batches: list[dict]) -> dict[str, pd.DataFrame]:
    names = batches[0].keys() if batches else []
    return {name: _to_frame(spec, plan, [b[name] for b in batches]) for name in names}


def _to_frame(spec: GameSpec, plan: Plan, batches: list[dict]) -> pd.DataFrame:
    """Concatenate a table's batches column by column (peak: a table and a column) and name the strategies."""
    import pandas as pd  # deferred: a worker plays its batches without importing pandas (nor pyarrow)
    frame = pd.DataFrame({k: np.concatenate([b.pop(k) for b in batches]) for k in list(batches[0])})
    if spec.id_column not in frame:
        return frame  # an aggregate table (counts per batch)
    categories, codes = strategy_codes(plan, frame, spec.id_column)
    dtype = pd.CategoricalDtype(categories)
    for name, code in codes.items():
        frame[name] = pd.Categorical.from_codes(code, dtype=dtype)
    return frame


def strategy_codes(plan: Plan, columns, id_column: str) -> tuple[list[str], dict[str, np.ndarray]]:
    """(category names, {column: code per row}) of a table's strategy columns: `strategy` where rows have a seat,
    `strategy_<seat>` where rows are whole games (or rounds of one). Codes: nothing is made per row."""
    names = [c.name for c in plan.choices]
    categories = sorted(set(names))
    code = np.array([categories.index(n) for n in names], dtype=np.int64)
    ids = np.asarray(columns[id_column])
    first = int(ids.min()) if len(ids) else 0
    seats = code[lineups(plan, first, int(ids.max()) + 1 if len(ids) else 0)[ids - first]]  # the rows' range
    if "seat" in columns:
        seat = np.asarray(columns["seat"])[:, None].astype(np.int64)
        return categories, {"strategy": np.take_along_axis(seats, seat, axis=1)[:, 0]}
    return categories, {f"strategy_{s}": seats[:, s] for s in range(plan.players)}


def plan_of(run: dict, games: int | None = None) -> Plan:
    """The plan of a run's checked settings (`sim.meta.check_run`), optionally of another number of games."""
    return Plan(run["spec"].name, run["players"], run["games"] if games is None else games, run["seed"],
                run["choices"], run["batch_size"] or DEFAULT_BATCH, run["round_robin"])


def fan_out(calls: list[tuple], *, jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
            isolate: bool = False, done=None) -> list:
    """Run `calls`, each (module-level function, args), on `execute`'s workers, results in call order, the first
    here (compiling the kernel once); Ctrl-C stops after the call in hand: RunInterrupted. `isolate` (calls that
    may each take minutes, a search player's batch): every call in worker processes, none here, where a compiled
    kernel holding the GIL would keep a Ctrl-C from being heard; the first Ctrl-C then stops at once, the calls in
    hand abandoned (KeyboardInterrupt). `done(i)`: after call i, for progress."""
    from joblib import delayed  # deferred: joblib starts nothing for calls played here
    out: list = []
    if not calls:
        return out
    if isolate and backend == "loky":
        return _fan_out_isolated(calls, jobs, done)
    client = None
    stop = _StopOnCtrlC()
    try:
        with stop:
            func, args = calls[0]
            out.append(func(*args))
            _done(done, 0)
            stop.check()
            rest = calls[1:]
            workers = worker_count(jobs, len(rest), backend, scheduler) if rest else 1
            if rest and workers == 1 and backend != "dask":
                for func, args in rest:
                    out.append(func(*args))
                    _done(done, len(out) - 1)
                    stop.check()
            elif rest:
                client = _client(workers, backend, scheduler)
                with _parallel((delayed(f)(*a) for f, a in rest), workers, backend, _loky(backend)) as results:
                    for result in results:
                        out.append(result)
                        _done(done, len(out) - 1)
                        stop.check()
    except Exception as exc:
        if stop.requested:
            raise RunInterrupted() from exc
        if type(exc).__name__ in ("KilledWorker", "BrokenProcessPool", "TerminatedWorkerError"):
            raise WorkersFailed(f"worker processes died ({_death(exc)})") from None
        raise
    finally:
        if client is not None:
            client.close()
    return out


def _done(done, i: int) -> None:
    if done is not None:
        done(i)


def _fan_out_isolated(calls: list[tuple], jobs: int, done) -> list:
    """fan_out's `isolate`: every call in loky workers (one at -j 1: joblib would play n_jobs=1 here), this process
    waiting on their results, where a signal is heard; leaving early (Ctrl-C, SIGTERM) kills the workers with the
    calls in hand."""
    from joblib.externals.loky import get_reusable_executor  # deferred: nothing is started for a plan run here
    out: list = []
    stop = _StopOnCtrlC()
    stop.at_once = True  # nothing of the calls is kept before the last: no call in hand is worth waiting for
    workers = worker_count(jobs, len(calls), "loky", None)
    try:
        with stop:
            executor = get_reusable_executor(max_workers=workers, **_loky("loky"))
            todo, flying = iter(calls), collections.deque()
            try:
                while True:  # as many calls in flight as workers: none queued for loky to hand out as it stops
                    while len(flying) < workers and (call := next(todo, None)) is not None:
                        flying.append(executor.submit(call[0], *call[1]))
                    if not flying:
                        break
                    out.append(flying.popleft().result())
                    _done(done, len(out) - 1)
            except BaseException:  # the calls in hand go with the workers
                executor.shutdown(wait=False, kill_workers=True)
                raise
    except Exception as exc:
        if stop.requested:
            raise RunInterrupted() from exc
        if type(exc).__name__ in ("BrokenProcessPool", "TerminatedWorkerError"):
            raise WorkersFailed(f"worker processes died ({_death(exc)})") from None
        raise
    return out
