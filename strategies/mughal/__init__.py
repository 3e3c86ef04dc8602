"""Mughal strategies: one module per strategy, each registering one numba function with @strategy
(sim.interface.STRATEGY_ARGS -> action row). `obs`: the engine's observation (O_*, B_*), of which kernels without
a search player pass only the first OBS_TALLIES entries, all a heuristic may read; `cfg`: the public rules vector.
Declarations come as T_DECLARE rows: "this card on my table in this suit" values both kinds of choice.
"""
