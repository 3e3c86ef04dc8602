"""Batch runs: plan the games, fan the batches out through joblib, gather the tables, write them atomically.

Determinism: batches have a fixed size that does not depend on the number of workers, and each batch's seed
comes from `SeedSequence(root).spawn(n_batches)[b]`, so the same root seed gives identical tables for any job
count, backend or scheduling order.
"""
from __future__ import annotations

import itertools
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError
from sim.game import GameSpec, kernel_function

DEFAULT_BATCH = 2000


@dataclass(frozen=True)
class Plan:
    game: str
    players: int
    n_games: int
    seed: int
    choices: tuple  # StrategyChoice per lineup index
    batch_size: int
    round_robin: bool = False  # two players: every pairing of the choices, mirror matches included

    @property
    def n_batches(self) -> int:
        return -(-self.n_games // self.batch_size)

    def batch_bounds(self, b: int) -> tuple[int, int]:
        return b * self.batch_size, min(self.n_games, (b + 1) * self.batch_size)


def pairings(n_choices: int, round_robin: bool) -> list[tuple[int, int]]:
    """Two-seat pairings: every unordered pair, mirror matches included, when playing round-robin."""
    if round_robin:
        return list(itertools.combinations_with_replacement(range(n_choices), 2))
    return [(0, 1 % n_choices)]


def lineups(plan: Plan, start: int, stop: int) -> np.ndarray:
    """Strategy (choice index) per game and seat, a pure function of the game's global index.

    Seats rotate game by game, so every strategy sits in every seat equally often and seat effects
    separate from strategy effects. Two players: blocks of two games play one pairing both ways round.
    More players: seat s of game g plays choice (g // p + s) mod c, rotated by g mod p.
    """
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
    base = ((g // p)[:, None] + seats[None, :]) % c
    shift = (g % p)[:, None]
    return np.take_along_axis(base, (seats[None, :] - shift) % p, axis=1)


def batch_seeds(root: int, n_batches: int) -> list[int]:
    children = np.random.SeedSequence(root).spawn(n_batches)
    return [int(child.generate_state(1, dtype=np.uint32)[0]) for child in children]


def run_one_batch(game: str, cfg, plan: Plan, b: int, seed: int, debug: bool) -> dict:
    """Plays batch b. A plain module-level function so joblib workers import the engine once and reuse it."""
    from sim.game import get_game
    spec = get_game(game)
    start, stop = plan.batch_bounds(b)
    base = np.array([c.base_id for c in plan.choices], dtype=np.int64)
    params = np.stack([c.vector() for c in plan.choices])
    tables = kernel_function(spec)(cfg, plan.players, lineups(plan, start, stop), base, params,
                                   seed, debug)
    for table in tables.values():
        if spec.id_column in table:
            table[spec.id_column] = table[spec.id_column].astype(np.int64) + start
    return tables


def summarize_one_batch(game: str, cfg, plan: Plan, b: int, seed: int, debug: bool, meta: dict) -> dict:
    """--summary-only: play batch b and return only its mergeable summary (counts and sums), so memory stays
    flat however many games are played."""
    import json

    from analysis import stats
    from analysis.report import summary_for
    from sim.game import get_game
    spec = get_game(game)
    start, stop = plan.batch_bounds(b)
    tables = assemble(spec, plan, [run_one_batch(game, cfg, plan, b, seed, debug)])
    with stats.aggregating():
        summary = summary_for(tables, {**meta, "games": stop - start})
    part = stats.merge({}, summary)
    return json.loads(json.dumps(part))  # plain floats: small to ship back and to save


def _parallel(n_jobs: int, backend: str, scheduler: str | None):
    from joblib import Parallel, parallel_config
    if backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise UserError("--backend dask needs dask[distributed]: pip install 'balance-sim[dask]'") from None
        if scheduler:
            client = Client(scheduler)
        else:
            client = Client(LocalCluster(n_workers=max(1, n_jobs), threads_per_worker=1, processes=True,
                                         dashboard_address=None))
        return client, parallel_config(backend="dask")
    return None, parallel_config(backend=backend)


class RunInterrupted(Exception):
    """Ctrl-C: the batches finished so far are saved (with a batch folder) and the run can be resumed."""


class _StopOnCtrlC:
    """The first Ctrl-C asks the run to stop after the batch in hand (it is saved, so nothing is lost); a second
    one stops at once. Compiled kernels cannot be interrupted cleanly mid-batch, hence the flag."""

    def __init__(self):
        self.requested = False
        self._old = None

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self):
        import signal
        import threading
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc):
        import signal
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
        return False

    def check(self):
        if self.requested:
            raise RunInterrupted()


def execute(spec: GameSpec, cfg, plan: Plan, *, jobs: int = 1, backend: str = "loky",
            scheduler: str | None = None, debug: bool = False, progress: bool = True,
            batch_dir: Path | None = None, summary_meta: dict | None = None,
            sink=None) -> tuple[dict, dict]:
    """Play the plan and return (tables, timings). Batches come back in order whatever the scheduling.

    With `batch_dir`, each finished batch is saved there at once (atomically), and batches already saved
    are loaded instead of played: an interrupted run resumes where it stopped with identical results.
    With `summary_meta` (--summary-only) each batch is summarised in its worker and only the merged summary
    comes back: `({"summary": {...}}, timing)` instead of tables.
    With `sink` (a callable taking (batch, tables)), every batch is handed to it in batch order as soon as it
    and all batches before it are in, and nothing is kept: `({}, timing)` comes back. This is how `run` streams
    its tables to Parquet with flat memory.
    """
    from joblib import Parallel, delayed
    from tqdm import tqdm

    seeds = batch_seeds(plan.seed, plan.n_batches)
    summary_only = summary_meta is not None
    done = set(finished_batches(batch_dir, summary_only)) if batch_dir else set()
    todo = [b for b in range(plan.n_batches) if b not in done]
    started = time.perf_counter()
    results: dict[int, dict] = {}
    bar = tqdm(total=plan.n_games, unit="game", disable=not progress, dynamic_ncols=True,
               desc=spec.name, mininterval=0.5, file=sys.stderr)
    bar.update(sum(np.subtract(*plan.batch_bounds(b)[::-1]) for b in done))
    client = None

    merged: dict = {}

    next_out = [0]

    def flush():
        """Hand the sink every batch that is now next in order (saved batches are read back lazily)."""
        while next_out[0] < plan.n_batches:
            b = next_out[0]
            if b in results:
                sink(b, results.pop(b))
            elif b in done:
                sink(b, load_batch(batch_dir, b))
            else:
                break
            next_out[0] += 1

    def keep(b, tables):
        if batch_dir is not None:
            save_batch(batch_dir, b, tables, summary_only)
        if summary_only:
            stats.merge(merged, tables)  # merged as they arrive: nothing per batch is kept
        else:
            results[b] = tables
            if sink is not None:
                flush()
        start, stop = plan.batch_bounds(b)
        bar.update(stop - start)

    if summary_only:
        from analysis import stats
        work, extra = summarize_one_batch, (summary_meta,)
    else:
        work, extra = run_one_batch, ()
    stop = _StopOnCtrlC()
    try:
        with stop:
            if (jobs == 1 and backend == "loky") or len(todo) < 2:  # nothing to share out: no workers
                for b in todo:
                    keep(b, work(spec.name, cfg, plan, b, seeds[b], debug, *extra))
                    stop.check()
            else:
                # The first batch plays here, so the kernel is compiled once (or loaded) in this process and
                # the workers load it from numba's cache: workers compiling side by side double the work,
                # and the compiler's memory trips loky's leak guard, which restarts them with a warning.
                first, rest = todo[0], todo[1:]
                keep(first, work(spec.name, cfg, plan, first, seeds[first], debug, *extra))
                stop.check()
                client, ctx = _parallel(jobs, backend, scheduler)
                with ctx:
                    tasks = (delayed(work)(spec.name, cfg, plan, b, seeds[b], debug, *extra) for b in rest)
                    for b, tables in zip(rest, Parallel(n_jobs=jobs, return_as="generator")(tasks)):
                        keep(b, tables)
                        stop.check()
    except Exception as exc:
        if stop.requested:  # a worker killed by the same Ctrl-C: still an interruption, not a failure
            raise RunInterrupted() from exc
        raise
    finally:
        bar.close()
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - started
    if sink is not None and not summary_only:
        flush()
        done = set()
    for b in sorted(done):
        if summary_only:
            stats.merge(merged, load_batch(batch_dir, b, True))
        else:
            results[b] = load_batch(batch_dir, b)
    if summary_only:
        tables = {"summary": stats.finalize(merged)}
    elif sink is not None:
        tables = {}
    else:
        tables = assemble(spec, plan, [results[b] for b in range(plan.n_batches)])
    played = sum(np.subtract(*plan.batch_bounds(b)[::-1]) for b in todo)
    return tables, {"seconds": elapsed, "games_played_now": int(played),
                    "games_per_second": played / elapsed if elapsed and played else None}


def assemble(spec: GameSpec, plan: Plan, batches: list[dict]) -> dict[str, pd.DataFrame]:
    names = batches[0].keys() if batches else []
    return {name: _to_frame(spec, plan, [b[name] for b in batches]) for name in names}


def _batch_path(batch_dir: Path, b: int, summary_only: bool = False) -> Path:
    return Path(batch_dir) / f"batch-{b:07d}.{'json' if summary_only else 'npz'}"


def save_batch(batch_dir: Path, b: int, tables: dict, summary_only: bool = False) -> None:
    import json
    batch_dir = Path(batch_dir)
    batch_dir.mkdir(parents=True, exist_ok=True)
    final = _batch_path(batch_dir, b, summary_only)
    tmp = batch_dir / f".tmp-{final.name}"
    if summary_only:
        tmp.write_text(json.dumps(tables))
    else:
        np.savez(tmp, **{f"{table}/{col}": arr for table, cols in tables.items() for col, arr in cols.items()})
    os.replace(tmp, final)


def load_batch(batch_dir: Path, b: int, summary_only: bool = False) -> dict:
    import json
    if summary_only:
        return json.loads(_batch_path(batch_dir, b, True).read_text())
    tables: dict[str, dict] = {}
    with np.load(_batch_path(batch_dir, b)) as data:
        for key in data.files:
            table, _, col = key.partition("/")
            tables.setdefault(table, {})[col] = data[key]
    return tables


def finished_batches(batch_dir: Path | None, summary_only: bool = False) -> list[int]:
    if batch_dir is None or not Path(batch_dir).is_dir():
        return []
    ext = "json" if summary_only else "npz"
    return sorted(int(p.name.split("-")[1].split(".")[0]) for p in Path(batch_dir).glob(f"batch-*.{ext}"))


def _to_frame(spec: GameSpec, plan: Plan, batches: list[dict]) -> pd.DataFrame:
    """Concatenate a table's batches and name the strategies: a `strategy` column where rows have a seat,
    `strategy_<seat>` columns where rows are whole games (or rounds of one)."""
    # column by column, dropping each batch's piece once copied: peak memory is one table plus one column
    frame = pd.DataFrame({k: np.concatenate([b.pop(k) for b in batches]) for k in list(batches[0])})
    if spec.id_column not in frame:
        return frame  # an aggregate table (counts per batch)
    names = np.array([c.name for c in plan.choices], dtype=object)
    categories = pd.CategoricalDtype(sorted(set(names)))
    ids = frame[spec.id_column].to_numpy()
    first = int(ids.min()) if len(ids) else 0
    seats = lineups(plan, first, int(ids.max()) + 1 if len(ids) else 0)[ids - first]  # only the rows' range
    if "seat" in frame:
        chosen = np.take_along_axis(seats, frame["seat"].to_numpy()[:, None].astype(np.int64), axis=1)[:, 0]
        frame["strategy"] = pd.Categorical(names[chosen], dtype=categories)
    else:
        for s in range(plan.players):
            frame[f"strategy_{s}"] = pd.Categorical(names[seats[:, s]], dtype=categories)
    return frame


def plan_from_meta(meta: dict) -> Plan:
    """Rebuild a run's plan from its meta.json (for --resume and partial reports)."""
    from sim.registry import StrategyChoice, registered
    ids = {d.name: i for i, d in enumerate(registered(meta["game"]))}
    missing = [s["base"] for s in meta["strategies"] if s["base"] not in ids]
    if missing:
        raise UserError(f"strategy '{missing[0]}' of that run is no longer registered")
    chosen = tuple(StrategyChoice(s["name"], s["base"], ids[s["base"]], tuple(s["params"]))
                   for s in meta["strategies"])
    return Plan(meta["game"], meta["players"], meta["games"], meta["seed"], chosen, meta["batch_size"],
                meta.get("round_robin", False))
