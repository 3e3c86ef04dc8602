"""Mohur search player (`ismcts`, presets expert-fast / expert): determinization, information hygiene,
strength with lenient bounds, and the runner + report path. Small budgets and few matches keep this fast."""
import random

import numpy as np
import pytest

from sim.config import build
from sim.mohur import engine as E
from sim.mohur import kernel as K
from sim.mohur.config import validate
from sim.mohur.determinize import determinize
from sim.registry import choices, registered
from sim.rng import deal_seed
from strategies.mohur.expert import ismcts  # called directly: the kernels' own compiled copy

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


def observe(s, p=None):
    p = int(s[E.S_CUR]) if p is None else p
    obs = np.zeros(E.OBS_SIZE, np.int32)
    E.observe(s, V, p, obs)
    return obs


def vector(name, **overrides):
    c = choices("mohur", CFG.presets, [name])[0]
    vec = c.vector()
    names = list(registered("mohur")[c.base_id].params)
    for k, v in overrides.items():
        vec[names.index(k)] = v
    return c.base_id, vec



@pytest.mark.parametrize("seed", range(12))
def test_determinized_world_is_consistent_with_the_observation(seed):
    s = reach(seed, 5 + 7 * seed)
    p = int(s[E.S_CUR])
    obs = observe(s)
    K.seed_rng(np.uint32(seed))
    hands = set()
    for _ in range(20):
        w = E.new_state()
        determinize(obs, V, w)
        E.check_invariants(w, V)
        assert np.array_equal(observe(w, p), obs), "the sampled world must look the same to the observer"
        q = 1 - p
        for g in range(E.NG):
            assert w[E.S_HAND + 7 * q + g] >= obs[E.O_OPP_KNOWN + g], "known cards stay in the rival's hand"
        hands.add(tuple(w[E.S_HAND + 7 * q: E.S_HAND + 7 * q + 6]))
        assert w[E.S_BSUM] + w[E.S_BSUM + 1] == sum(
            w[E.S_BONUS + b * E.MAX_BONUS + i] for b in range(3) for i in range(w[E.S_BPOS + b]))
    unknown = obs[E.O_OPP_HAND] - obs[E.O_OPP_KNOWN: E.O_OPP_KNOWN + 6].sum()
    if unknown >= 2:
        assert len(hands) > 1, "the unknown part of the rival's hand is sampled, not copied"


def plant(s, rng):
    """Same observation for the trader to move, different hidden state: swap an unknown card of the rival's
    hand with a deck card of another kind, shuffle the deck, reshuffle the bonus piles and the hidden bonus
    rupees. Returns the new state, or None when nothing can be swapped."""
    p = int(s[E.S_CUR])
    q = 1 - p
    t = s.copy()
    free = [g for g in range(E.NG) if t[E.S_HAND + 7 * q + g] > t[E.S_KNOWN + 6 * q + g]]
    lo, hi = int(E.S_DECK + t[E.S_DECKPOS]), int(E.S_DECK + t[E.S_DECKLEN])
    spots = [i for i in range(lo, hi) if t[i] < E.NG and free and t[i] != free[0]]
    if not free or not spots:
        return None
    g, i = free[0], spots[0]
    t[E.S_HAND + 7 * q + g] -= 1
    t[E.S_HAND + 7 * q + t[i]] += 1
    t[i] = g
    deck = list(t[lo:hi])
    rng.shuffle(deck)
    t[lo:hi] = deck
    for b in range(3):
        base, start, nb = E.S_BONUS + b * E.MAX_BONUS, int(t[E.S_BPOS + b]), int(V[E.CFG_NBONUS + b])
        rest = list(t[base + start: base + nb])
        rng.shuffle(rest)
        t[base + start: base + nb] = rest
    t[E.S_BSUM + q] += 3
    t[E.S_BSUM + p] += 1
    return t


def test_hidden_state_does_not_change_the_choice():
    rng = random.Random(5)
    sid, params = vector("ismcts", iterations=40)
    assert registered("mohur")[sid].function == ismcts.py_func.__name__
    checked = 0
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    for seed in range(40):
        s = reach(seed, 6 + seed % 17)
        t = plant(s, rng)
        if t is None:
            continue
        assert not np.array_equal(s, t)
        obs_s, obs_t = observe(s), observe(t)
        assert np.array_equal(obs_s, obs_t), "the planted change must be invisible to the trader to move"
        p = int(s[E.S_CUR])
        n = E.enumerate_actions(s, V, p, buf)
        if n < 2:
            continue
        picks = []
        for state in (s, t):
            E.enumerate_actions(state, V, p, buf)
            K.seed_rng(np.uint32(1000 + seed))
            E.observe(state, V, p, obs_s)
            picks.append(int(ismcts(obs_s, buf, n, params, V)))
        assert picks[0] == picks[1]
        checked += 1
        if checked >= 6:
            break
    assert checked >= 4


def play(names, n, seed, **overrides):
    """n matches, seats alternating; returns the first name's wins (draws count one half)."""
    chosen = choices("mohur", CFG.presets, names)
    base = np.array([c.base_id for c in chosen], np.int64)
    params = np.stack([c.vector() for c in chosen])
    for k, v in overrides.items():
        params[0, list(registered("mohur")[chosen[0].base_id].params).index(k)] = v
    lineup = np.array([[0, 1], [1, 0]] * (n // 2), np.int64)
    out = K.run_batch(CFG, 2, lineup, base, params, seed, False)
    w = out["games"]["winner"]
    first_seat = np.where(lineup[:, 0] == 0, 0, 1)
    return float((w == first_seat).sum() + 0.5 * (w < 0).sum())


def test_small_budget_beats_random_and_greedy():
    # lenient: a broken search (random-like play) would lose most of these
    assert play(["ismcts", "random"], 6, 3, iterations=24) >= 5
    assert play(["expert-fast", "greedy"], 10, 4) >= 6


def test_rollout_policy_is_a_parameter():
    random_id = NAMES.index("random")
    # random rollouts still play legal, finished matches; a search rollout policy is refused
    assert play(["ismcts", "greedy"], 2, 5, iterations=8, rollout=random_id) >= 0
    with pytest.raises(Exception):
        play(["ismcts", "greedy"], 2, 5, iterations=8, rollout=NAMES.index("ismcts"))


def test_fixed_determinization_pool_runs():
    assert play(["ismcts", "random"], 2, 6, iterations=16, determinizations=4) >= 1
