"""Mughal strategies: one module per strategy, each registering one numba function with @strategy.

Signature: (obs int32[:], actions int32[:, :], n_actions int, params float64[:], cfg int64[:]) -> action row
index; `cfg` is the public rules vector (sim.mughal.engine CFG_* offsets: the scoring rules and the emperor
track), the same for every seat. `obs` is sim.mughal.engine's observation (O_* and per-seat B_* offsets): every
table, VT, deck and discard sizes, the seat's own hand and the hands it held earlier this turn, never another
hand. Kernels without a search player pass only its first OBS_TALLIES entries (the header and the tables'
tallies O_TOT, O_CNT, O_DIS), so a heuristic reads nothing else.
An action row is (A_TYPE place/declare, A_SLOT, A_CARD, A_SUIT declared suit or -1 for a Disaster, A_LEVEL,
A_MASK). Declarations (a multi-suit destiny card's suit, at the start of the action phase) come to the same
function as T_DECLARE rows: valuing "this card on my table in this suit" serves both kinds of choice.
"""
