"""Mohur through the engine interface: a forced pass is an action, `apply_action` scores a finished round and deals
the next, and a match played by the bound play loop is the kernel's match, row for row."""
import dataclasses

import numpy as np
import pytest

from mohur_helpers import E, K, build_state, make_cfg, play_batch, reach_state
from sim.errors import ConfigError
from sim import registry
from sim.registry import choices, listings, registered
from sim.rng import deal_seed

V = make_cfg().vector


def test_a_forced_pass_is_the_one_legal_action():
    v = make_cfg("rules.hand_limit=1", "rules.hand_size=1").vector
    s = build_state(v, market_cards=(0, 0, 0, 5, 0, 0, 0), deck=[3] * 5)
    s[E.S_HAND + 0] = 1  # a single unsellable diamond at the hand limit, no coins: nothing to do
    s[E.S_HAND + E.NK + 0] = 1
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    assert E.legal_actions(s, v, buf) == 1 and buf[0, E.A_TYPE] == E.T_PASS
    E.apply_action(s, v, buf, 0)
    assert s[E.S_CUR] == 1 and s[E.S_PASSES] == 1 and not E.is_over(s)


def _play_random(s, v, rng, until):
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    while not E.is_over(s) and not until(s):
        n = E.legal_actions(s, v, buf)
        assert n > 0
        E.apply_action(s, v, buf, int(rng.integers(n)))
        E.check_invariants(s, v)


def test_a_finished_round_is_recorded_and_the_next_dealt_from_its_stream():
    rng = np.random.default_rng(3)
    for game in range(6):
        s = E.new_state()
        E.new_game(s, V, 2, np.uint32(11), game)
        assert s[E.S_ROUND] == 1 and not E.is_over(s)
        _play_random(s, V, rng, lambda t: t[E.S_ROUND] > 1)
        first = E.HIST.view(s[E.S_HISTORY:])
        assert first["round"] == 1 and first["end_reason"] != E.END["running"]
        assert sum(s[E.S_SEALS: E.S_SEALS + 2]) == (first["winner"] >= 0)
        if E.is_over(s):
            continue
        expected = E.new_state()  # round 2 as dealt on its own, from (seed, game, 2)
        expected[E.S_ROUND] = 2
        E.deal_round(expected, V, int(s[E.S_STARTER]), deal_seed(np.uint32(11), game, 2))
        assert np.array_equal(s[: E.ROUND_PART], expected[: E.ROUND_PART])


def test_the_match_ends_with_a_winner_or_the_round_cap_and_returns_shares():
    rng = np.random.default_rng(5)
    for cap in (1, 3):
        v = make_cfg(f"rules.round_cap={cap}").vector
        s = E.new_state()
        E.new_game(s, v, 2, np.uint32(2), cap)
        _play_random(s, v, rng, lambda t: False)
        out = np.zeros(2)
        E.returns(s, v, out)
        assert out.sum() == 1.0 and s[E.S_ROUND] <= cap
        w = s[E.S_WINNER]
        assert (w >= 0 and s[E.S_SEALS + w] == v[E.CFG_SEALS]) or (w < 0 and s[E.S_ROUND] == cap)


def test_the_bound_play_loop_plays_the_kernels_match():
    cfg = make_cfg()
    lu, games, rounds = play_batch(cfg, ["greedy", "racer"], 3, 7)
    chosen = choices("mohur", cfg.presets, ["greedy", "racer"])
    for m in range(3):
        sids = np.array([chosen[c].base_id for c in lu[m]], dtype=np.int64)
        params = np.stack([chosen[c].vector() for c in lu[m]])
        s = E.new_state()
        E.new_game(s, cfg.vector, 2, np.uint32(7), m)
        K.play(s, cfg.vector, sids, params, np.zeros(E.OBS_SIZE, np.int32),
               np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32), np.empty(params.shape[1]), (), True, -1,
               np.zeros((0, 3 + E.ACOLS), np.int32), np.zeros((0, E.STATE_SIZE), np.int32))
        assert s[E.S_WINNER] == games["winner"][m] and s[E.S_ROUND] == games["rounds"][m]
        mine = rounds["match"] == m
        for i in range(int(s[E.S_ROUND])):
            rec = E.HIST.view(s[E.S_HISTORY + i * E.HIST_SIZE:])
            assert rec["turns"] == rounds["turns"][mine][i] and rec["winner"] == rounds["winner"][mine][i]


def _exchanges_from(obs):
    """Every exchange the observer may make, generated from its observation as the on-demand strategies do
    (strategies/mohur/_features.choose_exchange), as rows."""
    out, take, k = [], 0, 0
    coins = E.coin_bound(obs, E.O_HAND, obs[E.O_HAND_LIMIT])
    buf = np.zeros((1, E.ACOLS), np.int32)
    while True:
        take, k = E.next_take(obs, E.O_MARKET, take, k)
        if k < 0:
            return out
        bounds, kinds, nk, room = E.give_bounds(obs, E.O_HAND, take, k, coins)
        if k < obs[E.O_MIN_EXCHANGE] or room < k:
            continue
        give = E.first_give(bounds, nk, k)
        while give >= 0:
            E.write_exchange(buf, 0, k, take, E.per_kind(give, kinds, nk))
            out.append(tuple(buf[0]))
            give = E.next_give(give, bounds, nk)


def test_exchanges_on_demand_are_exactly_the_listed_ones():
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    on_demand_seen = 0
    for seed in range(40):
        s, _ = reach_state(V, seed, seed % 17, take_bias=0.6)
        if E.round_over(s):
            continue
        full = [tuple(r) for r in buf[: E.legal_actions(s, V, buf)]]
        exchanges = [r for r in full if r[E.A_TYPE] == E.T_EXCHANGE]
        obs = np.zeros(E.OBS_SIZE, np.int32)
        E.observe(s, V, s[E.S_CUR], obs)
        assert _exchanges_from(obs) == exchanges
        s[E.S_ON_DEMAND + s[E.S_CUR]] = 1
        rows = [tuple(r) for r in buf[: E.legal_actions(s, V, buf)]]
        simple = full[: len(full) - len(exchanges)]
        if exchanges and simple:  # the exchanges as one row, last
            assert rows == simple + [(E.T_EXCHANGES, -1, 0) + (0,) * (E.ACOLS - 3)]
            on_demand_seen += 1
        else:  # nothing to hide them behind, or none
            assert rows == full
    assert on_demand_seen > 10


def test_counted_exchanges_are_the_listed_ones_written_when_chosen():
    # EX_COUNTED (random): the same number of legal actions, the simple rows listed, and whichever exchange is
    # chosen, apply_action plays the row the full listing has at that index
    buf, full = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32), np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    counted_seen = 0
    for seed in range(40):
        s, _ = reach_state(V, seed, seed % 17, take_bias=0.6)
        if E.round_over(s):
            continue
        n = E.legal_actions(s.copy(), V, full)
        exchanges = int(np.sum(full[:n, E.A_TYPE] == E.T_EXCHANGE))
        for a in range(n):
            listed, counted = s.copy(), s.copy()
            counted[E.S_ON_DEMAND + s[E.S_CUR]] = E.EX_COUNTED
            assert E.legal_actions(counted, V, buf) == n and counted[E.S_COUNTED] == exchanges
            assert np.array_equal(buf[: n - exchanges], full[: n - exchanges])
            E.legal_actions(listed, V, full)
            E.apply_action(listed, V, full, a)
            E.apply_action(counted, V, buf, a)
            assert np.array_equal(buf[a], full[a])
            counted[E.S_ON_DEMAND + s[E.S_CUR]] = s[E.S_ON_DEMAND + s[E.S_CUR]]
            assert np.array_equal(counted, listed)
        counted_seen += exchanges > 0
    assert counted_seen > 10


def test_counting_gives_matches_walking_them():
    # count_gives (the polynomial arithmetic, `_times`, that random's exchanges are counted with) against the walk
    # that lists them, up to seven kinds
    rng = np.random.default_rng(5)
    for _ in range(600):
        nk, k = int(rng.integers(0, 8)), int(rng.integers(0, 8))
        bound = rng.integers(0, 8, nk)
        bounds = sum(int(b) << (E.FIELD * i) for i, b in enumerate(bound))
        walked, give = 0, E.first_give(bounds, nk, k) if bound.sum() >= k else -1
        while give >= 0:
            walked += 1
            give = E.next_give(give, bounds, nk)
        assert E.count_gives(bounds, nk, k) == walked, (bound, k)


def test_the_exchanges_row_is_not_an_action():
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    for seed in range(40):
        s, _ = reach_state(V, seed, 9, take_bias=0.6)
        s[E.S_ON_DEMAND + s[E.S_CUR]] = 1
        n = E.legal_actions(s, V, buf)
        if buf[n - 1, E.A_TYPE] == E.T_EXCHANGES:
            with pytest.raises(ValueError, match="not an action"):
                E.apply_action(s, V, buf, n - 1)
            return
    raise AssertionError("no state with exchanges on demand")


@pytest.mark.parametrize("names", [("greedy", "random", "racer"), ("hoarder", "setbuilder", "racer")])
def test_strategies_generating_exchanges_play_as_reading_every_exchange(names):
    # debug mode lists every exchange; otherwise as each strategy declares (@strategy(listing=...)): the same
    # tables, draw for draw
    flags = dict(zip([d.name for d in registered("mohur")], listings("mohur")))
    assert all(flags[name] for name in names)  # random's are counted (EX_COUNTED), the others' generated
    cfg = make_cfg()
    _, g1, r1 = play_batch(cfg, list(names), 90, 13, debug=True)
    _, g2, r2 = play_batch(cfg, list(names), 90, 13, debug=False)
    for name in g1:
        assert np.array_equal(g1[name], g2[name]), name
    for name in r1:
        assert np.array_equal(r1[name], r2[name]), name


def test_the_round_cap_is_bounded_by_the_rounds_the_state_records():
    """The state keeps one record per round, so a round cap above that is refused (naming the key), not truncated."""
    assert make_cfg(f"rules.round_cap={E.MAX_ROUNDS}").vector[E.CFG_ROUND_CAP] == E.MAX_ROUNDS
    with pytest.raises(ConfigError, match="rules.round_cap"):
        make_cfg(f"rules.round_cap={E.MAX_ROUNDS + 1}")


def test_the_kernel_lists_actions_as_each_strategy_declares(monkeypatch):
    # random declares listing="counted": its choices are those it makes with every exchange listed (no declaration);
    # declared "row", it draws the exchanges row, which it never fills, and the engine refuses it: the kernel reads
    # the declaration
    random = registry._REGISTRY["mohur"]["random"]
    assert random.listing == "counted"
    cfg = make_cfg()
    _, g1, r1 = play_batch(cfg, ["random"], 40, 3)
    for listing, same in (("", True), ("row", False)):
        monkeypatch.setitem(registry._REGISTRY["mohur"], "random", dataclasses.replace(random, listing=listing))
        if same:
            _, g2, r2 = play_batch(cfg, ["random"], 40, 3)
            assert all(np.array_equal(t1[c], t2[c]) for t1, t2 in ((g1, g2), (r1, r2)) for c in t1)
        else:
            with pytest.raises(ValueError, match="not an action"):
                play_batch(cfg, ["random"], 40, 3)
