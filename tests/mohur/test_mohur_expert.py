"""Mohur search player (`ismcts`, presets expert-fast / expert): determinization, information hygiene,
strength with lenient bounds, and the runner + report path. Small budgets and few matches keep this fast."""
import random

import numpy as np
import pytest

from mohur_helpers import observed, plant_hidden
from sim.config import build
from sim.mohur import engine as E, kernel as K
from sim.mohur.config import validate
from sim.mohur.determinize import determinize
from sim.registry import registered
from sim.rng import deal_seed
from strategies.mohur.expert import ismcts  # called directly: the kernels' own compiled copy
from search_checks import (check_hidden_state_is_ignored, check_rollout_policy_and_determinizations_are_parameters,
                           check_small_budget_strength, ismcts_params, sampled_worlds)
from strategy_params import strategy_arrays

pytestmark = pytest.mark.slow  # `make test-fast` leaves these out

CFG = validate(build("sim.mohur"))
V = CFG.vector
NAMES = [d.name for d in registered("mohur")]


def reach(seed, steps):
    """A dealt round advanced by up to `steps` random legal actions (still running)."""
    rng = random.Random(seed)
    K.seed_rng(np.uint32(seed))
    s = E.new_state()
    s[E.S_ROUND] = 1 + seed % 3
    s[E.S_SEALS] = seed % 2
    E.deal_round(s, V, seed % 2, deal_seed(np.uint32(seed), 0, 1))
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    for _ in range(steps):
        p = int(s[E.S_CUR])
        n = E.enumerate_actions(s, V, p, buf)
        if n == 0:
            E.pass_turn(s, V)
        else:
            before = s.copy()
            E.play_row(s, V, p, buf, rng.randrange(n))
            if E.round_over(s):
                return before
    return s


@pytest.mark.parametrize("seed", range(12))
def test_determinized_world_is_consistent_with_the_observation(seed):
    s = reach(seed, 5 + 7 * seed)
    p = int(s[E.S_CUR])
    obs = observed(V, s)
    K.seed_rng(np.uint32(seed))
    hands = set()
    for w in sampled_worlds(E, determinize, obs, V, lambda w: observed(V, w, p), 20):
        q = 1 - p
        for g in range(E.NG):
            assert w[E.S_HAND + 7 * q + g] >= obs[E.O_OPP_KNOWN + g], "known cards stay in the rival's hand"
        hands.add(tuple(w[E.S_HAND + 7 * q: E.S_HAND + 7 * q + 6]))
        assert w[E.S_BSUM] + w[E.S_BSUM + 1] == sum(
            w[E.S_BONUS + b * E.MAX_BONUS + i] for b in range(3) for i in range(w[E.S_BPOS + b]))
    unknown = obs[E.O_OPP_HAND] - obs[E.O_OPP_KNOWN: E.O_OPP_KNOWN + 6].sum()
    if unknown >= 2:
        assert len(hands) > 1, "the unknown part of the rival's hand is sampled, not copied"


def test_hidden_state_does_not_change_the_choice():
    rng = random.Random(5)
    params = ismcts_params("mohur", CFG.presets, ismcts, iterations=40)
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)

    def choose(state, seed):
        p = int(state[E.S_CUR])
        n = E.enumerate_actions(state, V, p, buf)
        if n < 2:
            return None
        K.seed_rng(np.uint32(1000 + seed))
        return int(ismcts(observed(V, state, p), buf, n, params, V))

    check_hidden_state_is_ignored(((seed, reach(seed, 6 + seed % 17)) for seed in range(40)),
                                  lambda s, _: plant_hidden(s, V, rng), lambda s, _: observed(V, s), choose, 6, 4)


def play(names, n, seed, **overrides):
    """n matches, seats alternating; returns the first name's wins (draws count one half)."""
    base, params = strategy_arrays("mohur", CFG.presets, names, **overrides)
    lineup = np.array([[0, 1], [1, 0]] * (n // 2), np.int64)
    out = K.run_batch(CFG, 2, lineup, base, params, seed, False)
    w = out["games"]["winner"]
    first_seat = np.where(lineup[:, 0] == 0, 0, 1)
    return float((w == first_seat).sum() + 0.5 * (w < 0).sum())


def test_small_budget_beats_random_and_greedy():
    check_small_budget_strength(play, 10, 6)


def test_rollout_policy_and_determinizations_are_parameters():
    check_rollout_policy_and_determinizations_are_parameters(play, NAMES)
