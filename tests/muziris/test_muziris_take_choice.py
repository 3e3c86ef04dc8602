"""Every Muziris strategy, search player and random included, answers the Cinnamon decision (1 or 2 cards of a
type, rules.take_up_to = "choose") with a legal option, and the heuristics weigh how many cards they take."""
import importlib

import numpy as np

from sim.muziris import engine as E
from sim.registry import choices, registered
from sim.rng import reseed
from muziris_helpers import T, act, default_cfg, pick, setup


def strategy_function(choice):
    """The registered function itself, called as the kernels call it (no Python-only dispatcher to compile)."""
    d = registered("muziris")[choice.base_id]
    return getattr(importlib.import_module(d.module), d.function)


def _cinnamon_decision(cfg, seed=0):
    s = setup(cfg, 3, fp=0, hands=[{"mango": 1}, {}, {}], market={"cinnamon": 1, "mango": 2, "banana": 1},
              seed=seed)
    pick(cfg, s, "advisor")
    act(cfg, s, E.D_MARKET_AB, T(cfg, "cinnamon"))
    return s


def _choose(cfg, s, choice):
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    n = E.legal_actions(s, cfg.vector, actions)
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    E.observe(s, cfg.vector, E.current_player(s), obs)
    a = int(strategy_function(choice)(obs, actions, n, choice.vector(), cfg.vector))
    assert 0 <= a < n, f"{choice.name}: option {a} of {n}"
    return tuple(int(v) for v in actions[a])


def test_every_strategy_answers_the_cinnamon_choice():
    cfg = default_cfg()
    names = [d.name for d in registered("muziris")] + ["expert-fast"]
    picked = {}
    for choice in choices("muziris", cfg.presets, names):
        for seed in range(6):
            s = _cinnamon_decision(cfg, seed)
            reseed(seed, 0, 0)
            d, x, y = _choose(cfg, s, choice)
            assert d == E.D_TAKE_TYPE and 1 <= y <= min(2, s[E.S_MARKET + x])
            picked.setdefault(choice.name, set()).add((cfg.produce[x], y))
    # a mango in hand and two more make an order of 3: greedy takes both
    assert picked["greedy"] == {("mango", 2)}
    random_choice = choices("muziris", cfg.presets, ["random"])[0]
    for seed in range(6, 30):
        reseed(seed, 0, 0)
        d, x, y = _choose(cfg, _cinnamon_decision(cfg, seed), random_choice)
        picked["random"].add((cfg.produce[x], y))
    assert picked["random"] == {("mango", 1), ("mango", 2), ("banana", 1)}
