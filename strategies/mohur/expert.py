"""`ismcts`, Mohur's search player: the shared information-set MCTS (strategies/search.py) over Mohur's engine.
A sampled world ends with its round, so the search values the round being played (`round_value`).
"""
from sim.jit import njit

from sim.mohur import engine as E
from sim.mohur.determinize import determinize
from strategies.search import registered_player


@njit(cache=True)
def round_value(s, cfg, params, out):
    """out[seat] <- 1 won / 0.5 drawn / 0 lost, plus margin_weight x (own rupees - rival's), the round scored
    as it stands."""
    r0, r1, _, winner, _ = E.round_score(s, cfg)
    mw = params[P_MARGIN_WEIGHT]  # noqa: F821 - set by the registry
    for seat in range(2):
        out[seat] = 0.5 if winner < 0 else (1.0 if winner == seat else 0.0)
    out[0] += mw * (r0 - r1)
    out[1] += mw * (r1 - r0)


@njit(cache=True)
def hand_rupees(s, cfg, p):
    """The goods tokens seat p's hand would take if it sold every good it may sell now (count >= minimum)."""
    v = 0
    for g in range(E.NG):
        c = s[E.S_HAND + E.NK * p + g]
        if c >= max(1, cfg[E.CFG_MIN_SALE + g]):
            pos = s[E.S_TOKPOS + g]
            for i in range(pos, min(pos + c, cfg[E.CFG_NTOK + g])):
                v += cfg[E.CFG_TOK + g * E.MAX_TOK + i]
    return v


@njit(cache=True)
def evaluate(s, cfg, params, out):
    """A round cut short: scored as it stands, each trader's hand counted at the tokens it could sell now."""
    r0, r1, _, _, _ = E.round_score(s, cfg)
    m = r0 + hand_rupees(s, cfg, 0) - r1 - hand_rupees(s, cfg, 1)
    mw = params[P_MARGIN_WEIGHT]  # noqa: F821 - set by the registry
    out[0] = (0.5 if m == 0 else (1.0 if m > 0 else 0.0)) + mw * m
    out[1] = (0.5 if m == 0 else (0.0 if m > 0 else 1.0)) - mw * m


ismcts, search = registered_player("mohur", E, determinize, 2, __name__, evaluate=evaluate, value=round_value,
                                   extra={"margin_weight": 0.1})
