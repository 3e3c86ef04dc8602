"""Mohur strategies: one module per strategy, each registering one numba function with @strategy.

Signature: (obs int32[:], actions int32[:, :], n_actions int, params float64[:], cfg int64[:]) -> action row
index. `obs` is sim.mohur.engine's observation (O_* offsets); it never holds the rival's hand or bonus values.
`cfg` is the game's public rules vector (CFG_* offsets): what a search player needs to simulate the game.
"""
