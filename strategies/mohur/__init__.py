"""Mohur strategies: one module per strategy, each registering one numba function with @strategy
(sim.interface.STRATEGY_ARGS -> action row). `obs`: the engine's observation (O_*), never the rival's hand or bonus
values; `cfg`: the public rules vector (CFG_*). With `listing="row"` a strategy gets the exchanges as one
T_EXCHANGES row to write its choice into (_features.choose_exchange); with "counted", only their number.
"""
