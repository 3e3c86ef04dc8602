"""Shared numba helpers for Mohur strategies: valuing sales and cards from the observation only."""
from numba import njit

from sim.mohur import engine as E
from strategies._choice import consider  # noqa: F401  (re-exported for the strategies)


@njit(cache=True)
def sale_rupees(obs, g, count):
    """Goods-token rupees a sale of `count` of good g takes now, plus the expected bonus token."""
    v = 0.0
    rem = obs[E.O_TOKREM + g]
    for i in range(min(count, rem)):
        v += obs[E.O_TOKV + g * E.MAX_TOK + i]
    if count >= 3:
        pile = min(count, 5) - 3
        if obs[E.O_PILE_LEFT + pile] > 0:
            v += obs[E.O_PILE_MEAN + pile] / 100.0
    return v


@njit(cache=True)
def top_token(obs, g):
    return obs[E.O_TOKV + g * E.MAX_TOK] if obs[E.O_TOKREM + g] > 0 else 0


@njit(cache=True)
def card_worth(obs, g, held):
    """What one more card of g is worth to a hand already holding `held` of it: the token it would take."""
    rem = obs[E.O_TOKREM + g]
    if held >= rem:
        return 0.0
    return float(obs[E.O_TOKV + g * E.MAX_TOK + held])


@njit(cache=True)
def round_ending_soon(obs):
    """True when one more empty stack or a nearly empty deck would end the round."""
    return obs[E.O_EMPTY] >= obs[E.O_STACKS_END] - 1 or obs[E.O_DECK] <= 4


@njit(cache=True)
def _worths(obs, g, keep_weight):
    held = obs[E.O_HAND + g]
    w = 1.0 + keep_weight * held
    return card_worth(obs, g, held) * w, (card_worth(obs, g, held - 1) * w if held > 0 else 0.0)


@njit(cache=True)
def marginal_worths(obs, keep_weight):
    """A 12-tuple: [0:6] worth of one more card of each good, [6:12] worth lost by giving one away. A tuple,
    not an array: a heap array here cost an allocation and two atomic reference counts every decision."""
    g0, l0 = _worths(obs, 0, keep_weight)
    g1, l1 = _worths(obs, 1, keep_weight)
    g2, l2 = _worths(obs, 2, keep_weight)
    g3, l3 = _worths(obs, 3, keep_weight)
    g4, l4 = _worths(obs, 4, keep_weight)
    g5, l5 = _worths(obs, 5, keep_weight)
    return (g0, g1, g2, g3, g4, g5, l0, l1, l2, l3, l4, l5)


@njit(cache=True)
def fast_take_gain(actions, a, worths, coin_value):
    """take_gain with marginal (first-card) worths: one multiply-add per kind."""
    v = coin_value * (actions[a, E.A_TAKE + E.COIN] - actions[a, E.A_GIVE + E.COIN])
    for g in range(E.NG):
        v += actions[a, E.A_TAKE + g] * worths[g] - actions[a, E.A_GIVE + g] * worths[E.NG + g]
    return v
