"""Merchants of Muziris strategies: one module per strategy, each registering one numba function with @strategy.

Signature: (obs int32[:], actions int32[:, :], n_actions int, params float64[:], cfg int64[:]) -> action row
index; `cfg` is the public rules vector (sim.muziris.config, CFG_* offsets).
`obs` is sim.muziris.engine's observation (O_* offsets): the public table and the acting player's own hand
only. `obs[O_DKIND]` says which decision is pending (engine.D_*: character, take, take_type, fulfil, cycle,
hand_ability, market_ability, discard); each action row is [decision, x, y] (x: character slot or produce
type, -1 = stop a cycle; y: order size, or the cards a take_type option takes, 0 when that is not a choice).
"""
