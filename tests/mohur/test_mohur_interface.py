"""Mohur through the engine interface (sim.interface): a forced pass is an action, `apply_action` scores a finished
round into the state's history and deals the next one, and a whole match played by the bound play loop is the
kernel's match, row for row."""
import numpy as np
import pytest

from mohur_support import E, K, build_state, make_cfg, play_batch
from sim.errors import ConfigError
from sim.registry import choices
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


def _expand(rows):
    """Grouped rows -> every exchange they stand for, in the engine's order (the free row dropped)."""
    out = []
    for r in rows:
        if r[E.A_TYPE] != E.T_EXCHANGES:
            out.append(tuple(r))
            continue
        if r[E.A_COUNT] == 0:
            continue
        kinds = [g for g in range(E.NK) if r[E.A_GIVE + g] > 0]
        bounds = sum(int(r[E.A_GIVE + g]) << (E.FIELD * i) for i, g in enumerate(kinds))
        give = E.first_give(bounds, len(kinds), int(r[E.A_COUNT]))
        while give >= 0:
            row = [E.T_EXCHANGE, -1, int(r[E.A_COUNT])] + list(r[E.A_TAKE: E.A_TAKE + E.NG]) + [0] + [0] * E.NK
            for i, g in enumerate(kinds):
                row[E.A_GIVE + g] = (give >> (E.FIELD * i)) & int(E.FMASK)
            out.append(tuple(row))
            give = E.next_give(give, bounds, len(kinds))
    return out


def test_grouped_exchanges_stand_for_exactly_the_listed_ones():
    from mohur_support import reach_state
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    grouped_seen = 0
    for seed in range(40):
        s, _ = reach_state(V, seed, seed % 17, take_bias=0.6)
        if E.round_over(s):
            continue
        full = [tuple(r) for r in buf[: E.legal_actions(s, V, buf)]]
        s[E.S_GROUPED + s[E.S_CUR]] = 1
        n = E.legal_actions(s, V, buf)
        rows = buf[:n].copy()
        grouped_seen += int((rows[:, E.A_TYPE] == E.T_EXCHANGES).any())
        assert _expand(rows) == full
    assert grouped_seen > 10


def test_a_group_is_not_an_action():
    from mohur_support import reach_state
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    for seed in range(40):
        s, _ = reach_state(V, seed, 9, take_bias=0.6)
        s[E.S_GROUPED + s[E.S_CUR]] = 1
        n = E.legal_actions(s, V, buf)
        groups = np.flatnonzero(buf[:n, E.A_TYPE] == E.T_EXCHANGES)
        if len(groups):
            import pytest
            with pytest.raises(ValueError, match="not an action"):
                E.apply_action(s, V, buf, int(groups[0]))
            return
    raise AssertionError("no state with a group of exchanges")


def test_greedy_reading_groups_plays_as_greedy_reading_every_exchange():
    # debug mode lists every exchange; otherwise greedy reads groups: the same tables, draw for draw
    cfg = make_cfg()
    _, g1, r1 = play_batch(cfg, ["greedy", "random", "racer"], 90, 13, debug=True)
    _, g2, r2 = play_batch(cfg, ["greedy", "random", "racer"], 90, 13, debug=False)
    for name in g1:
        assert np.array_equal(g1[name], g2[name]), name
    for name in r1:
        assert np.array_equal(r1[name], r2[name]), name


def test_the_round_cap_is_bounded_by_the_rounds_the_state_records():
    """The state keeps one record per round, so a round cap above that is refused (naming the key), not truncated."""
    assert make_cfg(f"rules.round_cap={E.MAX_ROUNDS}").vector[E.CFG_ROUND_CAP] == E.MAX_ROUNDS
    with pytest.raises(ConfigError, match="rules.round_cap"):
        make_cfg(f"rules.round_cap={E.MAX_ROUNDS + 1}")
