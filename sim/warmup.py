"""Compile several games' kernels side by side before a job that needs them all.

A cold numba cache costs each game's kernel tens of seconds of compiling, on one core. `balance-sim main`
plays the games one after another, so without this the compiles queue up; here each kernel is compiled in a
process of its own (one game played), and numba's on-disk cache hands the result to the run that follows.
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context


def _compile_one(game: str, cfg, plan) -> str:
    from sim.runner import Plan, run_one_batch
    warm = Plan(plan.game, plan.players, 1, plan.seed, plan.choices, 1, plan.round_robin)
    # one game through the same entry point the run uses: the same specialisation (types and dispatch mode)
    run_one_batch(game, cfg, warm, 0, 0, False)
    return game


def compile_kernels(jobs: list[tuple], workers: int) -> None:
    """`jobs`: (game name, validated config, Plan) per kernel the caller is about to run. With one worker, or one
    kernel, nothing is done here (the run compiles it as before)."""
    workers = min(len(jobs), os.cpu_count() or 1, workers if workers > 0 else len(jobs))
    if workers < 2:
        return
    # spawn, not fork: the parent may already hold numba's compiler state and joblib's threads
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        for future in [pool.submit(_compile_one, *job) for job in jobs]:
            future.result()
