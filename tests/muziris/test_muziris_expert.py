"""Muziris search player (`ismcts`, presets expert-fast / expert): determinization, information hygiene,
strength with lenient bounds, and the runner + report path. Small budgets and few games keep this fast."""
import random

import numpy as np
import pytest

from sim.config import build
from sim.muziris import engine as E
from sim.muziris import kernel as K
from sim.muziris.config import validate
from sim.muziris.determinize import determinize
from sim.registry import choices, registered
from sim.rng import reseed
from strategies.muziris.expert import ismcts  # called directly: the kernels' own compiled copy

pytestmark = pytest.mark.slow  # `make test-fast` leaves these out

CFG = validate(build("sim.muziris"), 3)
V = CFG.vector
NAMES = [d.name for d in registered("muziris")]


def reach(seed, steps, players):
    """A game set up and advanced by up to `steps` random legal actions (still running)."""
    rng = random.Random(seed)
    s = E.new_state()
    E.new_game(s, V, players, np.uint32(seed), 0)
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    for _ in range(steps):
        n = E.legal_actions(s, V, buf)
        a = rng.randrange(n)
        before = s.copy()
        E.apply_action(s, V, buf, a)
        if E.is_over(s):
            return before
    return s


def observe(s):
    obs = np.zeros(E.OBS_SIZE, np.int32)
    E.observe(s, V, E.current_player(s), obs)
    return obs


def vector(name, **overrides):
    c = choices("muziris", CFG.presets, [name])[0]
    vec = c.vector()
    names = list(registered("muziris")[c.base_id].params)
    for k, v in overrides.items():
        vec[names.index(k)] = v
    return c.base_id, vec



@pytest.mark.parametrize("seed", range(12))
def test_determinized_world_is_consistent_with_the_observation(seed):
    players = 2 + seed % 3
    s = reach(seed, 10 + 23 * seed, players)
    me = int(s[E.S_CUR])
    obs = observe(s)
    reseed(np.uint32(seed), 0, 0)
    hands = set()
    for _ in range(20):
        w = E.new_state()
        determinize(obs, V, w)
        E.check_invariants(w, V)
        assert np.array_equal(observe(w), obs), "the sampled world must look the same to the observer"
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


def plant(s, rng):
    """Same observation for the player to act, different hidden state: swap a card of another player's hand
    with a deck card of another produce, swap a discard card with a deck card, shuffle the deck. Returns the
    new state, or None when nothing can be swapped."""
    me = int(s[E.S_CUR])
    t = s.copy()
    lo, hi = int(E.S_DECK + t[E.S_DECKPOS]), int(E.S_DECK + t[E.S_DECKLEN])
    changed = False
    for q in range(int(t[E.S_NP])):
        if q == me:
            continue
        held = [x for x in range(8) if t[E.S_HAND + q * E.MAX_T + x] > 0]
        spots = [i for i in range(lo, hi) if held and t[i] != held[0]]
        if held and spots:
            x, i = held[0], spots[0]
            t[E.S_HAND + q * E.MAX_T + x] -= 1
            t[E.S_HAND + q * E.MAX_T + t[i]] += 1
            t[i] = x
            changed = True
            break
    disc = [x for x in range(8) if t[E.S_DISCARD + x] > 0]
    spots = [i for i in range(lo, hi) if disc and t[i] != disc[0]]
    if disc and spots:
        x, i = disc[0], spots[-1]
        t[E.S_DISCARD + x] -= 1
        t[E.S_DISCARD + t[i]] += 1
        t[i] = x
        changed = True
    deck = list(t[lo:hi])
    rng.shuffle(deck)
    t[lo:hi] = deck
    return t if changed else None


def test_hidden_state_does_not_change_the_choice():
    rng = random.Random(5)
    sid, params = vector("ismcts", iterations=40)
    assert registered("muziris")[sid].function == ismcts.py_func.__name__
    checked = 0
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    for seed in range(60):
        s = reach(seed, 8 + 5 * seed, 3)
        t = plant(s, rng)
        if t is None:
            continue
        assert not np.array_equal(s, t)
        E.check_invariants(t, V)
        obs_s, obs_t = observe(s), observe(t)
        assert np.array_equal(obs_s, obs_t), "the planted change must be invisible to the player to act"
        n = E.legal_actions(s, V, buf)
        if n < 2:
            continue
        picks = []
        for state in (s, t):
            E.legal_actions(state, V, buf)
            reseed(np.uint32(1000 + seed), 0, 0)
            picks.append(int(ismcts(observe(state), buf, n, params, V)))
        assert picks[0] == picks[1]
        checked += 1
        if checked >= 8:
            break
    assert checked >= 5


def play(names, n, seed, **overrides):
    """n games, seats rotated; returns the first name's win share (shared wins count 1/k)."""
    chosen = choices("muziris", CFG.presets, names)
    base = np.array([c.base_id for c in chosen], np.int64)
    params = np.stack([c.vector() for c in chosen])
    for k, v in overrides.items():
        params[0, list(registered("muziris")[chosen[0].base_id].params).index(k)] = v
    P = len(names)
    lineup = np.array([[(i + r) % P for i in range(P)] for r in range(P)] * (n // P), np.int64)
    out = K.run_batch(validate(build("sim.muziris"), P), P, lineup, base, params, seed, False)
    share = out["players"]["win_share"].reshape(len(lineup), P)
    return float(sum(share[g, list(lineup[g]).index(0)] for g in range(len(lineup))))


def test_small_budget_beats_random_and_greedy():
    # lenient: a broken search (random-like play) would lose nearly all of these
    assert play(["ismcts", "random"], 6, 3, iterations=24) >= 5
    assert play(["expert-fast", "greedy"], 12, 4) >= 7


def test_rollout_policy_is_a_parameter():
    random_id = NAMES.index("random")
    # random rollouts still play legal, finished games; a search rollout policy is refused
    assert play(["ismcts", "greedy"], 2, 5, iterations=8, rollout=random_id) >= 0
    with pytest.raises(Exception):
        play(["ismcts", "greedy"], 2, 5, iterations=8, rollout=NAMES.index("ismcts"))


def test_fixed_determinizations_and_full_rollouts_run():
    assert play(["ismcts", "random"], 2, 6, iterations=16, determinizations=4) >= 1
    assert play(["ismcts", "random"], 2, 6, iterations=8, rollout_depth=0, tree_depth=0, exploration=0.7) >= 0
    assert play(["ismcts", "random"], 2, 6, iterations=8, rollout_depth=5, widening=1) >= 0
