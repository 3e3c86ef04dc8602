"""Mohur's `weighted` strategy: registration (every weight bounded), legal and reproducible play, observation only,
each feature computed as documented, and weights that move play the way their signs say."""
import functools
import random

import numpy as np
import pytest

from mohur_helpers import (DIAMOND, GOLD, LEATHER, actions_buffer, brute_force, build_state, effect,
                           make_cfg, observed, plant_hidden, play_batch)
from sim.mohur import engine as E, kernel as K
from sim.registry import choices, registered
from strategies.mohur.weighted import FEATURES, row_score, weighted
from cli_runs import traced

CFG = make_cfg()
V = CFG.vector
NAMES = list(FEATURES)
DEFAULTS = np.array([w for w, _, _ in FEATURES.values()])


def weights(**named):
    """A weight vector: zero but the features named."""
    w = np.zeros(len(NAMES))
    for name, value in named.items():
        w[NAMES.index(name)] = value
    return w


def states(n, seed=0):
    """Running states from matches played by `weighted` and `greedy` (seats alternating), mid-round: the turns
    a strategy really meets, with exchanges listed as one row (how the kernel hands them to `weighted`)."""
    rng = random.Random(seed)
    out = []
    game = 0
    buf = actions_buffer()
    pw = DEFAULTS.copy()
    pg = choices("mohur", CFG.presets, ["greedy"])[0].vector()
    from strategies.mohur.greedy import greedy
    while len(out) < n:
        s = E.new_state()
        E.new_game(s, V, 2, 1000 + seed, game)
        s[E.S_ON_DEMAND] = s[E.S_ON_DEMAND + 1] = E.EX_ROW
        while not E.is_over(s) and len(out) < n:
            k = E.legal_actions(s, V, buf)
            obs = observed(V, s)
            if rng.random() < 0.3:
                out.append(s.copy())
            mine = (int(s[E.S_CUR]) + game) % 2 == 0
            a = weighted(obs, buf, k, pw, V) if mine else greedy(obs, buf, k, pg, V)
            E.apply_action(s, V, buf, a)
        game += 1
    return out


@functools.cache
def played_states():
    """160 states of `states()`, made on first use: at import, every pytest-xdist worker collecting this file would
    compile the engine's functions it calls (about 25 CPU-s each on an empty numba cache)."""
    return states(160)


def choose(s, params, seed=1):
    """`weighted`'s choice at state s: (row index, the rows as handed to it, after its choice)."""
    t = s.copy()
    t[E.S_ON_DEMAND + t[E.S_CUR]] = E.EX_ROW
    buf = actions_buffer()
    n = E.legal_actions(t, V, buf)
    K.seed_rng(np.uint32(seed))
    a = int(weighted(observed(V, t), buf, n, params, V))
    return a, buf[:n].copy()


def test_registration_every_weight_has_bounds():
    d = next(d for d in registered("mohur") if d.name == "weighted")
    assert list(d.params) == NAMES and 10 <= len(NAMES) <= 30
    assert set(d.bounds) == set(NAMES) and not d.round_robin and d.listing == "row"
    for name, (lo, hi, whole) in d.bounds.items():
        assert lo < d.params[name] < hi or lo <= d.params[name] <= hi and not whole, name
    assert "weighted" in [c.name for c in choices("mohur", CFG.presets, ["weighted"])]


def test_legal_choices_in_debug_mode_over_many_matches():
    # debug mode lists every exchange and checks the invariants after every action
    _, games, rounds = play_batch(CFG, ["weighted", "greedy"], 60, 3, debug=True)
    assert len(games["winner"]) == 60 and (rounds["end_reason"] != E.END["turn_cap"]).all()


def test_the_exchange_it_writes_is_legal():
    """With exchanges as one row, the exchange `weighted` writes into it is one of the rulebook's (brute force)."""
    written = 0
    for i, s in enumerate(played_states()):
        a, rows = choose(s, DEFAULTS, seed=i)
        p = int(s[E.S_CUR])
        legal = brute_force(s, V, p)
        assert rows[a, E.A_TYPE] not in (E.T_EXCHANGES, E.T_PASS) or len(rows) == 1
        for j in range(len(rows)):
            if rows[j, E.A_TYPE] == E.T_EXCHANGE:
                _, hd, _, _ = effect(s, V, p, rows, j)
                assert tuple(hd) in legal, f"state {i}: the exchange written is not legal"
                written += 1
    assert written >= 20


def test_deterministic_for_a_seed():
    a = play_batch(CFG, ["weighted", "greedy"], 40, 11)
    b = play_batch(CFG, ["weighted", "greedy"], 40, 11)
    c = play_batch(CFG, ["weighted", "greedy"], 40, 12)
    for key in a[1]:
        assert np.array_equal(a[1][key], b[1][key])
    assert not all(np.array_equal(a[2][k], c[2][k]) for k in a[2])


def test_hidden_state_does_not_change_the_choice():
    rng = random.Random(3)
    checked = 0
    for i, s in enumerate(played_states()):
        t = plant_hidden(s, V, rng)
        if t is None:
            continue
        assert not np.array_equal(s, t) and np.array_equal(observed(V, s), observed(V, t))
        for params in (DEFAULTS, np.array([rng.uniform(lo, hi) for _, lo, hi in FEATURES.values()])):
            (a, rows_s), (b, rows_t) = choose(s, params, seed=i), choose(t, params, seed=i)
            assert a == b and np.array_equal(rows_s[a], rows_t[b])
        checked += 1
    assert checked >= 60


def feature_changes(s, rows, j):
    """Each feature's change by row j (unweighted): the score with one weight at 1, the others 0."""
    obs = observed(V, s)
    buf = actions_buffer(rows)
    return {name: row_score(obs, buf, j, weights(**{name: 1.0})) for name in NAMES}


def test_score_is_the_weighted_sum_of_the_feature_changes():
    rng = np.random.default_rng(5)
    for i, s in enumerate(played_states()[:60]):
        a, rows = choose(s, DEFAULTS, seed=i)
        w = rng.uniform(-3, 3, len(NAMES))
        buf = actions_buffer(rows)
        obs = observed(V, s)
        for j in range(len(rows)):
            if rows[j, E.A_TYPE] in (E.T_EXCHANGES, E.T_PASS):
                continue
            f = feature_changes(s, rows, j)
            assert row_score(obs, buf, j, w) == pytest.approx(sum(w[k] * f[n] for k, n in enumerate(NAMES)),
                                                             abs=1e-9)


def test_it_plays_the_highest_score():
    """The row chosen scores highest of all rows (the take rows' fast path agrees with row_score; the exchange
    written into its row is scored exactly like the others), for the defaults and random weights."""
    rng = np.random.default_rng(6)
    for i, s in enumerate(played_states()):
        params = DEFAULTS if i % 2 else np.array([rng.uniform(lo, hi) for _, lo, hi in FEATURES.values()])
        a, rows = choose(s, params, seed=i)
        if len(rows) == 1:
            continue
        buf = actions_buffer(rows)
        obs = observed(V, s)
        scores = [row_score(obs, buf, j, params) for j in range(len(rows)) if rows[j, E.A_TYPE] != E.T_EXCHANGES]
        assert row_score(obs, buf, a, params) >= max(scores) - 1e-9


def test_features_of_a_built_state():
    """Hand-checked: 3 diamonds (stack 7 7 5 5 5), 1 leather; the rival is known to hold a diamond; a diamond
    and 2 coins in the market; 2 coins in the coffer against the rival's 1."""
    s = build_state(V, market_cards=(1, 0, 0, 0, 0, 2, 2), hands=((3, 0, 0, 0, 0, 1, 2), (1, 0, 0, 0, 0, 0, 1)),
                    deck=(GOLD,) * 30)
    s[E.S_KNOWN + 6 + DIAMOND] = 1
    buf = actions_buffer()
    rows = buf[:E.enumerate_actions(s, V, 0, buf)].copy()

    def row(typ, good, count):
        return next(j for j in range(len(rows)) if rows[j, E.A_TYPE] == typ and rows[j, E.A_GOOD] == good
                    and rows[j, E.A_COUNT] == count)

    bonus3 = V[E.CFG_PILE_MEAN] / 100
    f = feature_changes(s, rows, row(E.T_SELL, DIAMOND, 3))
    assert f["rupees_gained"] == 19 and f["hand_value"] == -19 and f["bonus_expected"] == pytest.approx(bonus3)
    assert f["set_bonus_held"] == pytest.approx(-bonus3) and f["small_sale"] == 0
    assert f["precious_held"] == -3 and f["kinds_held"] == -1 and f["hand_cards"] == -3
    # the rival's known diamond now takes 5 instead of 7; the market's diamond is worth 5, not 7, to it
    assert f["rival_known_value"] == -2 and f["market_gift"] == -2
    assert f["coins_held"] == 0 and f["deck_drawn"] == 0 and f["ends_round_ahead"] == 0
    f = feature_changes(s, rows, row(E.T_SELL, DIAMOND, 2))
    assert f["rupees_gained"] == 14 and f["small_sale"] == 1 and f["set_bonus_held"] == pytest.approx(-bonus3)
    f = feature_changes(s, rows, row(E.T_TAKE_GOOD, DIAMOND, 1))
    # the 4th diamond takes the 4th token (5); a 4-card sale's pile replaces the 3-card one
    assert f["hand_value"] == 5 and f["market_gift"] == -7 and f["deck_drawn"] == 1 and f["hand_cards"] == 1
    assert f["set_bonus_held"] == pytest.approx((V[E.CFG_PILE_MEAN + 1] - V[E.CFG_PILE_MEAN]) / 100)
    f = feature_changes(s, rows, row(E.T_TAKE_COINS, E.COIN, 2))
    assert f["coins_held"] == 2 and f["market_coins_left"] == -2 and f["deck_drawn"] == 2
    assert f["coin_token_race"] == 0  # already ahead on coins: the token's expected value does not move
    assert f["hand_value"] == 0 and f["hand_cards"] == 0


@pytest.mark.parametrize("seed", range(3))
def test_round_end_and_hand_full_features(seed):
    """Selling the last leather token empties a third stack: the round ends, scored ahead (+1) or behind (-1);
    filling the hand to its limit sets hand_full."""
    tokpos = [int(V[E.CFG_NTOK + g]) for g in range(3)] + [0, 0, int(V[E.CFG_NTOK + LEATHER]) - 1]
    s = build_state(V, market_cards=(0, 0, 0, 1, 1, 1, 1), hands=((0, 0, 0, 2, 3, 1, 0), (0, 0, 0, 0, 0, 0, 0)),
                    deck=(GOLD,) * 20, tokpos=tokpos)
    s[E.S_GSUM + 1] = 10 * seed  # the rival's rupees: behind, level-ish, ahead of the sale
    buf = actions_buffer()
    rows = buf[:E.enumerate_actions(s, V, 0, buf)].copy()
    j = next(j for j in range(len(rows)) if rows[j, E.A_TYPE] == E.T_SELL and rows[j, E.A_GOOD] == LEATHER)
    f = feature_changes(s, rows, j)
    assert f["empty_stacks"] == 1
    gained = V[E.CFG_TOK + LEATHER * E.MAX_TOK + tokpos[LEATHER]]
    assert f["ends_round_ahead"] == np.sign(gained - 10 * seed)
    j = next(j for j in range(len(rows)) if rows[j, E.A_TYPE] == E.T_TAKE_GOOD)
    f = feature_changes(s, rows, j)
    assert f["hand_full"] == 1 and f["hand_cards"] == 1  # 6 goods + 1 = the limit, 7
    j = next(j for j in range(len(rows)) if rows[j, E.A_TYPE] == E.T_SELL and rows[j, E.A_GOOD] == 3)
    assert feature_changes(s, rows, j)["hand_full"] == 0


def test_weights_move_play_as_documented():
    """A huge weight on one feature makes it pick the action that moves that feature most."""
    sells = takes = coins = 0
    for i, s in enumerate(played_states()):
        a, rows = choose(s, weights(rupees_gained=100.0), seed=i)
        if any(rows[:, E.A_TYPE] == E.T_SELL):
            gains = [feature_changes(s, rows, j)["rupees_gained"] for j in range(len(rows))
                     if rows[j, E.A_TYPE] == E.T_SELL]
            assert rows[a, E.A_TYPE] == E.T_SELL and feature_changes(s, rows, a)["rupees_gained"] == max(gains)
            sells += 1
        a, rows = choose(s, weights(hand_cards=-100.0), seed=i)
        if any(rows[:, E.A_TYPE] == E.T_SELL):  # sheds the most cards: the biggest sale
            sold = max(rows[j, E.A_COUNT] for j in range(len(rows)) if rows[j, E.A_TYPE] == E.T_SELL)
            assert rows[a, E.A_TYPE] == E.T_SELL and rows[a, E.A_COUNT] == sold
        a, rows = choose(s, weights(coins_held=100.0), seed=i)
        if any(rows[:, E.A_TYPE] == E.T_TAKE_COINS):
            assert rows[a, E.A_TYPE] == E.T_TAKE_COINS
            coins += 1
        a, rows = choose(s, weights(market_coins_left=100.0, coins_held=1.0), seed=i)
        assert rows[a, E.A_TYPE] != E.T_TAKE_COINS or len(rows) == 1  # leaves the coins (pays with them if it can)
        a, rows = choose(s, weights(small_sale=-100.0, rupees_gained=1.0), seed=i)
        assert not (rows[a, E.A_TYPE] == E.T_SELL and rows[a, E.A_COUNT] < 3) or all(
            rows[j, E.A_TYPE] == E.T_SELL and rows[j, E.A_COUNT] < 3 for j in range(len(rows)))
        a, rows = choose(s, weights(hand_value=100.0), seed=i)
        if rows[a, E.A_TYPE] != E.T_EXCHANGE:  # an exchange may add more; otherwise the best single take
            best = max(feature_changes(s, rows, j)["hand_value"] for j in range(len(rows))
                       if rows[j, E.A_TYPE] != E.T_EXCHANGES)
            assert feature_changes(s, rows, a)["hand_value"] == best
            takes += 1
    assert sells >= 30 and coins >= 20 and takes >= 30


def test_beats_random_and_holds_its_own_against_greedy():
    # lenient bounds (the quoted figures are in docs/strategies.md): broken scoring would lose these
    _, games, _ = play_batch(CFG, ["weighted", "random"], 40, 21)
    lineup = np.array([[0, 1], [1, 0]] * 20)
    seat = np.where(lineup[:, 0] == 0, 0, 1)
    assert (games["winner"] == seat).sum() >= 34
    _, games, _ = play_batch(CFG, ["weighted", "greedy"], 40, 22)
    assert (games["winner"] == seat).sum() >= 20


def test_traces_its_actions():
    """Run and trace of every game's `weighted`: tests/test_every_game.py."""
    assert sum(e["event"] == "action" for e in traced("mohur", "-s", "weighted,greedy", "--seed", 4)) > 20


def test_not_in_round_robin():
    from sim.setup import load_setup
    _, _, _, chosen, round_robin = load_setup("mohur", None, (), None, "all")
    assert round_robin and "weighted" not in [c.name for c in chosen] and "greedy" in [c.name for c in chosen]
    # its evolved preset `tuned` says round_robin = true in defaults.toml: it plays in `-s all`, at its weights
    tuned = next(c for c in chosen if c.name == "tuned")
    assert tuned.base == "weighted" and tuned.params != next(c for c in load_setup(
        "mohur", None, (), None, "weighted")[3]).params
