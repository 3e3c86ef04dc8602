"""Mohur strategies: one module per strategy, each registering one numba function with @strategy.

Signature: (obs int32[:], actions int32[:, :], n_actions int, params float64[:], cfg int64[:]) -> action row
index. `obs` is sim.mohur.engine's observation (O_* offsets); it never holds the rival's hand or bonus values.
`cfg` is the game's public rules vector (CFG_* offsets): what a search player needs to simulate the game.
A strategy registered with `listing="row"` (sim.mohur.engine.LISTINGS) is handed the exchanges as one T_EXCHANGES
row (listed last; sim.mohur.engine.enumerate_actions) into which it writes the exchange it chooses, generated from the
observation (_features.choose_exchange); the kernel reads the registry, so a new strategy needs no engine edit. One
with `listing="counted"` reads only `n_actions`: the engine counts the exchanges and writes only the one drawn.
"""
