"""Shared numba helpers for Mohur strategies: valuing sales and cards from the observation only."""
import numpy as np
from numba import njit

from sim.mohur import engine as E


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
def pick_best(scores, n):
    """Index of the highest score; ties broken uniformly at random."""
    best = -1e18
    count = 0
    choice = 0
    for i in range(n):
        if scores[i] > best + 1e-9:
            best = scores[i]
            count = 1
            choice = i
        elif abs(scores[i] - best) <= 1e-9:
            count += 1
            if np.random.randint(0, count) == 0:
                choice = i
    return choice


@njit(cache=True)
def take_gain(obs, actions, a, coin_value, keep_weight):
    """Value of a take: worth of goods gained minus goods and coins given, given what the hand holds."""
    v = 0.0
    for g in range(E.NG):
        held = obs[E.O_HAND + g]
        t = actions[a, E.A_TAKE + g]
        for i in range(t):
            v += card_worth(obs, g, held + i) * (1.0 + keep_weight * held)
        give = actions[a, E.A_GIVE + g]
        for i in range(give):
            v -= card_worth(obs, g, held - 1 - i) * (1.0 + keep_weight * held)
    v += coin_value * (actions[a, E.A_TAKE + E.COIN] - actions[a, E.A_GIVE + E.COIN])
    return v
