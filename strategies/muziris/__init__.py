"""Merchants of Muziris strategies: one module per strategy, each registering one numba function with @strategy
(sim.interface.STRATEGY_ARGS -> action row). `obs`: the public table and the player's own hand, `obs[O_DKIND]` the
pending decision (engine.D_*); a row is [decision, x: slot or produce (-1: stop a cycle), y: a count or 0].
"""
