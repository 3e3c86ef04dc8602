"""Muziris search player (`ismcts`, presets expert-fast / expert): determinization, information hygiene,
strength with lenient bounds, and the runner + report path. Small budgets and few games keep this fast."""
import random

import numpy as np
import pytest

from muziris_helpers import observed, plant, reach
from sim.config import build
from sim.muziris import engine as E
from sim.muziris.config import validate
from sim.muziris.determinize import determinize
from sim.registry import registered
from sim.rng import reseed
from strategies.muziris.expert import ismcts  # called directly: the kernels' own compiled copy
from search_checks import (check_hidden_state_is_ignored, check_rollout_policy_and_determinizations_are_parameters,
                           check_small_budget_strength, ismcts_params, sampled_worlds)
from strategy_params import lone_seat

pytestmark = pytest.mark.slow  # `make test-fast` leaves these out

CFG = validate(build("sim.muziris"), 3)
CFG2 = validate(build("sim.muziris"), 2)
V = CFG.vector
NAMES = [d.name for d in registered("muziris")]


@pytest.mark.parametrize("seed", range(12))
def test_determinized_world_is_consistent_with_the_observation(seed):
    players = 2 + seed % 3
    s = reach(V, seed, 10 + 23 * seed, players)
    me = int(s[E.S_CUR])
    obs = observed(V, s)
    reseed(np.uint32(seed), 0, 0)
    hands = set()
    for w in sampled_worlds(E, determinize, obs, V, lambda w: observed(V, w), 20):
        assert np.array_equal(w[E.S_HAND + me * E.MAX_T: E.S_HAND + (me + 1) * E.MAX_T],
                              s[E.S_HAND + me * E.MAX_T: E.S_HAND + (me + 1) * E.MAX_T])
        others = tuple(int(x) for q in range(players) if q != me
                       for x in w[E.S_HAND + q * E.MAX_T: E.S_HAND + (q + 1) * E.MAX_T])
        hands.add(others)
        # the sampled world plays on to a legal end
        n = E.legal_actions(w, V, np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32))
        assert n == E.legal_actions(s, V, np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32))
    if sum(obs[E.O_HANDN + q] for q in range(players) if q != me) >= 2:
        assert len(hands) > 1, "the other hands are sampled, not copied"


def test_hidden_state_does_not_change_the_choice():
    rng = random.Random(5)
    params = ismcts_params("muziris", CFG.presets, ismcts, iterations=40)

    def planted(s, _):
        t = plant(s, rng)
        if t is not None:
            E.check_invariants(t, V)
        return t

    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)

    def choose(state, seed):
        n = E.legal_actions(state, V, buf)
        if n < 2:
            return None
        reseed(np.uint32(1000 + seed), 0, 0)
        return int(ismcts(observed(V, state), buf, n, params, V))

    check_hidden_state_is_ignored(((seed, reach(V, seed, 8 + 5 * seed, 3)) for seed in range(60)),
                                  planted, lambda s, _: observed(V, s), choose, 8, 5)


def play(names, n, seed, **overrides):
    """n 2-player games, seats alternating; returns the first name's win share (shared wins count 1/k)."""
    return float(lone_seat("muziris", CFG2, 2, names, n, seed, **overrides)["win_share"].sum())


def test_small_budget_beats_random_and_greedy():
    check_small_budget_strength(play, 12, 7)


def test_rollout_policy_and_determinizations_are_parameters():
    check_rollout_policy_and_determinizations_are_parameters(play, NAMES)


def test_full_rollouts_run():
    assert play(["ismcts", "random"], 2, 6, iterations=8, rollout_depth=0, tree_depth=0, exploration=0.7) >= 0
    assert play(["ismcts", "random"], 2, 6, iterations=8, rollout_depth=5, widening=1) >= 0
