"""Scoring a round (coin token, rupees, tie-breaks), who starts, and the end of the match."""
import numpy as np
import pytest

from mohur_helpers import COIN, E, build_state, make_cfg, play_batch

DEFAULT = make_cfg()
V = DEFAULT.vector


def scored(*, coins=(0, 0), gsum=(0, 0), bsum=(0, 0), bcnt=(0, 0), gcnt=(0, 0), v=V):
    s = build_state(v)
    for p in range(2):
        s[E.S_HAND + 7 * p + COIN] = coins[p]
        s[E.S_GSUM + p], s[E.S_BSUM + p] = gsum[p], bsum[p]
        s[E.S_BCNT + p], s[E.S_GCNT + p] = bcnt[p], gcnt[p]
    s[E.S_END] = E.END_STACKS
    return [int(x) for x in E.round_score(s, v)]  # rupees0, rupees1, coin holder, winner, tie_break


@pytest.mark.parametrize("given,expected", [  # expected: seat 0's and 1's rupees, coin token holder, winner, tie-break
    (dict(coins=(4, 3)), [5, 0, 0, 0, 0]),  # the coin token to strictly more coins
    (dict(coins=(1, 6)), [0, 5, 1, 1, 0]),
    *[(dict(coins=coins, gsum=(10, 10), bcnt=(1, 1), gcnt=(3, 3), bsum=(2, 2)), [12, 12, -1, -1, 3])
      for coins in [(0, 0), (3, 3), (7, 7)]],  # a coin tie gives nobody the token
    (dict(coins=(5, 1), gsum=(20, 23), bsum=(4, 3)), [29, 26, 0, 0, 0]),  # goods + bonus + coin token
    (dict(coins=(1, 1), gsum=(14, 10)), [14, 10, -1, 0, 0]),  # the coin token can decide the round
    (dict(coins=(1, 2), gsum=(14, 10)), [14, 15, 1, 1, 0]),
    (dict(gsum=(20, 19), bcnt=(0, 3), gcnt=(2, 9)), [20, 19, -1, 0, 0]),  # higher rupees win, whatever the tokens
    # tied rupees: more bonus tokens win (before goods tokens), then more goods tokens, else a drawn round
    (dict(gsum=(10, 13), bsum=(5, 2), bcnt=(2, 1), gcnt=(3, 6)), [15, 15, -1, 0, 1]),
    (dict(gsum=(10, 10), bsum=(3, 3), bcnt=(1, 2), gcnt=(6, 3)), [13, 13, -1, 1, 1]),
    (dict(gsum=(12, 12), bcnt=(1, 1), bsum=(2, 2), gcnt=(5, 4)), [14, 14, -1, 0, 2]),
    (dict(gsum=(12, 12), gcnt=(3, 4)), [12, 12, -1, 1, 2]),
    (dict(gsum=(12, 12), bcnt=(1, 1), bsum=(2, 2), gcnt=(4, 4), coins=(2, 2)), [14, 14, -1, -1, 3]),
    (dict(), [0, 0, -1, -1, 3]),
])
def test_round_score(given, expected):
    assert scored(**given) == expected


def test_coin_token_value_is_configurable():
    v = make_cfg("rules.coin_token=9").vector
    assert scored(coins=(2, 1), v=v)[:3] == [9, 0, 0]


@pytest.mark.parametrize("drawn,starter,winner,expected", [
    *[(None, starter, winner, 1 - winner) for starter in (0, 1) for winner in (0, 1)],  # led by the round's loser
    (None, 0, -1, 1), (None, 1, -1, 0),  # after a drawn round, by default the other trader starts
    ("same", 0, -1, 0), ("same", 1, -1, 1), ("same", 0, 0, 1)])  # or the same one; a decided round: its loser
def test_next_round_starter(drawn, starter, winner, expected):
    v = V if drawn is None else make_cfg(f'rules.drawn_round_starter="{drawn}"').vector
    assert E.next_starter(v, starter, winner) == expected


# ------------------------------------------------------------------ whole matches through the kernel


@pytest.fixture(scope="module")
def greedy_tables():
    return play_batch(DEFAULT, ["greedy", "racer"], 400, 123)


def test_rounds_led_by_previous_loser_in_kernel(greedy_tables):
    _, games, rounds = greedy_tables
    checked = 0
    for i in range(len(rounds["match"]) - 1):
        if rounds["match"][i + 1] != rounds["match"][i]:
            continue
        w, st = rounds["winner"][i], rounds["starter"][i]
        expected = 1 - w if w >= 0 else 1 - st
        assert rounds["starter"][i + 1] == expected
        checked += 1
    assert checked > 200


def test_first_round_starter_matches_game_table_and_is_random(greedy_tables):
    _, games, rounds = greedy_tables
    first = rounds["round"] == 1
    assert np.array_equal(rounds["starter"][first], games["first_starter"])
    share = games["first_starter"].mean()
    assert 0.4 < share < 0.6, f"first starter not random: seat 1 starts {share:.2f} of matches"


@pytest.mark.parametrize("choice,seat", [("seat0", 0), ("seat1", 1)])
def test_first_starter_configured(choice, seat):
    cfg = make_cfg(f'rules.first_starter="{choice}"')
    _, games, rounds = play_batch(cfg, ["greedy", "random"], 60, 5)
    assert (games["first_starter"] == seat).all()
    assert (rounds["starter"][rounds["round"] == 1] == seat).all()


def check_match_end(games, rounds, seals):
    for m in range(len(games["match"])):
        w = games["winner"][m]
        s0, s1 = games["seals_0"][m], games["seals_1"][m]
        assert w in (0, 1)
        assert (s0, s1)[w] == seals and (s0, s1)[1 - w] < seals
        mine = rounds["match"] == m
        rw = rounds["winner"][mine]
        assert mine.sum() == games["rounds"][m]
        assert (rw == 0).sum() == s0 and (rw == 1).sum() == s1
        # the match ends the moment the seals are reached: the last round gave the winning seal
        assert rw[-1] == w
        assert np.array_equal(rounds["round"][mine], np.arange(1, mine.sum() + 1))


def test_match_is_best_of_three(greedy_tables):
    _, games, rounds = greedy_tables
    check_match_end(games, rounds, 2)
    assert set(np.unique(games["rounds"])) <= {2, 3, 4, 5}
    assert (games["rounds"] == 3).any() and (games["rounds"] == 2).any()


@pytest.mark.parametrize("seals", [3, 1])
def test_seals_to_win_configurable(seals):
    _, games, rounds = play_batch(make_cfg(f"rules.seals_to_win={seals}"), ["greedy", "hoarder"], 100, 9)
    check_match_end(games, rounds, seals)
    assert (games["rounds"] >= seals).all()


def test_recorded_round_scores_are_consistent(greedy_tables):
    _, _, r = greedy_tables
    coin = np.where(r["coin_token"] == 0, 5, 0), np.where(r["coin_token"] == 1, 5, 0)
    for p in (0, 1):
        assert np.array_equal(r[f"rupees_{p}"], r[f"goods_rupees_{p}"] + r[f"bonus_rupees_{p}"] + coin[p])
    more0, more1 = r["coins_0"] > r["coins_1"], r["coins_1"] > r["coins_0"]
    assert np.array_equal(r["coin_token"], np.where(more0, 0, np.where(more1, 1, -1)))
    decided = r["rupees_0"] != r["rupees_1"]
    assert np.array_equal(r["winner"][decided], np.where(r["rupees_0"] > r["rupees_1"], 0, 1)[decided])
    assert set(np.unique(r["end_reason"])) <= {E.END_STACKS, E.END_DECK}


# Nothing can score: the starter's only action is to take the 3 coins (worth nothing: coin_token = 0), then
# both traders must pass. Every round is a full tie (drawn); no seal is ever awarded.
ALWAYS_DRAWN = ("cards.gold=0", "cards.silver=0", "cards.cloth=0", "cards.spice=0", "cards.leather=0",
                "cards.diamond=20", "cards.coin=3", "rules.market_size=3", "rules.hand_size=1",
                "rules.hand_limit=1", "min_sale.diamond=50", "rules.coin_token=0", "rules.round_cap=6")


@pytest.mark.parametrize("option", ["other", "same"])
def test_drawn_rounds_in_kernel(option):
    cfg = make_cfg(*ALWAYS_DRAWN, f'rules.drawn_round_starter="{option}"')
    _, games, rounds = play_batch(cfg, ["greedy", "random"], 20, 6)
    assert (rounds["winner"] == -1).all() and (rounds["tie_break"] == 3).all()
    assert (games["winner"] == -1).all() and (games["rounds"] == 6).all()
    assert (games["seals_0"] == 0).all() and (games["seals_1"] == 0).all()
    for m in range(20):
        st = rounds["starter"][rounds["match"] == m]
        expected = [(games["first_starter"][m] + (i if option == "other" else 0)) % 2 for i in range(6)]
        assert list(st) == expected
