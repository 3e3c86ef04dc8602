"""Checks every game's search player (`ismcts`) gets in tests/<game>/test_<game>_expert.py, where they need the
game's own states: sampled worlds, information hygiene, rollout policies."""
import numpy as np
import pytest

from sim.registry import registered
from strategy_params import preset_vector


def ismcts_params(game, presets, ismcts, **overrides):
    """The `ismcts` preset's parameter vector (`overrides` set by name), checked to belong to `ismcts`, the compiled
    function the test calls directly."""
    sid, params = preset_vector(game, presets, "ismcts", **overrides)
    assert registered(game)[sid].function == ismcts.py_func.__name__
    return params


def sampled_worlds(engine, determinize, obs, v, seen, count):
    """`count` worlds `determinize` samples from observation `obs`, each checked first: the engine's invariants hold
    and `seen(world)`, what the observer sees of it, is `obs`."""
    for _ in range(count):
        w = engine.new_state()
        determinize(obs, v, w)
        engine.check_invariants(w, v)
        assert np.array_equal(seen(w), obs), "the sampled world must look the same to the observer"
        yield w


def check_hidden_state_is_ignored(states, plant, seen, choose, enough, at_least):
    """For each (k, s) of `states`, `plant(s, k)` (other hidden state, or None) looks the same by `seen` and gets the
    same row from `choose` (None: no choice); stops after `enough` states with a choice, asserts `at_least`."""
    checked = 0
    for k, s in states:
        t = plant(s, k)
        if t is None:
            continue
        assert not np.array_equal(s, t)
        assert np.array_equal(seen(s, k), seen(t, k)), "the planted change must be invisible to the one to choose"
        pick = choose(s, k)
        if pick is None:
            continue
        assert choose(t, k) == pick
        checked += 1
        if checked >= enough:
            break
    assert checked >= at_least


def check_small_budget_strength(play, games_vs_greedy, wins_vs_greedy):
    """Lenient: a broken search (random-like play) would lose most of these. `play(names, games, seed, **params)`
    returns the first name's wins (or win shares)."""
    assert play(["ismcts", "random"], 6, 3, iterations=24) >= 5
    assert play(["expert-fast", "greedy"], games_vs_greedy, 4) >= wins_vs_greedy


def check_rollout_policy_and_determinizations_are_parameters(play, names):
    """Random rollouts still play legal, finished games; a search rollout policy is refused; a fixed pool of
    determinizations plays."""
    assert play(["ismcts", "greedy"], 2, 5, iterations=8, rollout=names.index("random")) >= 0
    with pytest.raises(Exception):
        play(["ismcts", "greedy"], 2, 5, iterations=8, rollout=names.index("ismcts"))
    assert play(["ismcts", "random"], 2, 6, iterations=16, determinizations=4) >= 1
