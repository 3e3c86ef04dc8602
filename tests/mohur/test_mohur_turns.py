"""Refilling the market, when a round ends, selling (tokens, bonus piles) and what a trader may see."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mohur_helpers import (COIN, CLOTH, DIAMOND, GOLD, LEATHER, SILVER, SPICE, E, actions_buffer, build_state, deal,
                           hand, legal_rows, make_cfg, market, reach_state)

DEFAULT = make_cfg()
V = DEFAULT.vector
EMPTY = (0,) * 7


def find(rows, typ, good=None, count=None):
    for i, r in enumerate(rows):
        if r[E.A_TYPE] == typ and (good is None or r[E.A_GOOD] == good) and (count is None or r[E.A_COUNT] == count):
            return i
    raise AssertionError(f"no legal action {typ}/{good}/{count}")


def play(s, p, typ, good=None, count=None, v=V):
    rows = legal_rows(s, v, p)
    i = find(rows, typ, good, count)
    buf = actions_buffer(rows)
    E.play_row(s, v, p, buf, i)
    return rows[i]


# ------------------------------------------------------------------ refill and the short market


def test_refill_to_five_after_take():
    s = build_state(V, market_cards=(1, 0, 0, 1, 0, 0, 3), deck=[DIAMOND, GOLD, SILVER, SPICE, LEATHER])
    play(s, 0, E.T_TAKE_COINS)
    assert market(s) == [2, 1, 1, 1, 0, 0, 0]
    assert E.deck_left(s) == 2 and not E.round_over(s)
    assert hand(s, 0)[COIN] == 3


def test_refill_as_far_as_the_deck_allows_and_deck_out_ends_round():
    s = build_state(V, market_cards=(1, 0, 0, 1, 0, 0, 3), deck=[SILVER])
    play(s, 0, E.T_TAKE_COINS)
    assert market(s) == [1, 0, 1, 1, 0, 0, 0], "refill draws what the deck has"
    assert E.deck_left(s) == 0
    assert s[E.S_END] == E.END_DECK, "the deck is empty after the action resolved: the round ends"


def test_no_refill_after_a_sale():
    s = build_state(V, market_cards=(1, 0, 0, 1, 0, 0, 3), hands=((0, 0, 0, 2, 0, 0, 0), EMPTY),
                    deck=[SILVER] * 5)
    before = market(s)
    play(s, 0, E.T_SELL, CLOTH, 2)
    assert market(s) == before and E.deck_left(s) == 5


def test_short_market_is_legal_and_does_not_end_round():
    # a market of 3 with cards left in the deck: play goes on, legal actions exist, a sale keeps it short
    s = build_state(V, market_cards=(1, 0, 0, 1, 0, 0, 1), hands=((0, 0, 0, 2, 0, 0, 0), EMPTY),
                    deck=[SILVER] * 6)
    rows = legal_rows(s, V, 0)
    assert len(rows) > 0
    play(s, 0, E.T_SELL, CLOTH, 1)
    assert not E.round_over(s) and sum(market(s)) == 3
    # the next take refills it to 5
    play(s, 1, E.T_TAKE_GOOD, DIAMOND)
    assert sum(market(s)) == 5 and E.deck_left(s) == 3 and not E.round_over(s)


def test_short_market_after_deck_runs_out_mid_refill():
    # the deck holds 1 card; taking 3 coins refills only one: market of 3, deck empty -> round over (deck)
    s = build_state(V, market_cards=(0, 0, 0, 1, 1, 0, 3), deck=[GOLD])
    play(s, 0, E.T_TAKE_COINS)
    assert sum(market(s)) == 3
    assert s[E.S_END] == E.END_DECK


# ------------------------------------------------------------------ round end


def test_two_empty_stacks_do_not_end_round_three_do():
    ntok = [int(V[E.CFG_NTOK + g]) for g in range(6)]
    tokpos = list(ntok)
    tokpos[CLOTH] = ntok[CLOTH] - 1  # cloth has 1 token left; diamond, gold, silver, spice, leather...
    tokpos[SPICE] = 0
    tokpos[LEATHER] = 0
    tokpos[SILVER] = 0  # empty: diamond, gold
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((0, 0, 0, 1, 2, 0, 0), EMPTY),
                    deck=[LEATHER] * 10, tokpos=tuple(tokpos))
    assert E.empty_stacks(s, V) == 2
    play(s, 0, E.T_SELL, SPICE, 1)
    assert not E.round_over(s), "two empty stacks must not end the round"
    play(s, 1, E.T_TAKE_GOOD, LEATHER)
    assert not E.round_over(s)
    play(s, 0, E.T_SELL, CLOTH, 1)
    assert E.empty_stacks(s, V) == 3
    assert s[E.S_END] == E.END_STACKS, "the third empty stack ends the round once the sale resolved"
    # the sale itself resolved fully before the end: token taken, cards gone
    assert s[E.S_GCNT] == 2 and hand(s, 0)[CLOTH] == 0


def test_empty_stacks_to_end_is_configurable():
    cfg = make_cfg("rules.empty_stacks_to_end=1")
    v = cfg.vector
    tokpos = [0] * 6
    tokpos[DIAMOND] = int(v[E.CFG_NTOK + DIAMOND]) - 2
    s = build_state(v, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((2, 0, 0, 0, 0, 0, 0), EMPTY),
                    deck=[LEATHER] * 10, tokpos=tuple(tokpos))
    play(s, 0, E.T_SELL, DIAMOND, 2, v=v)
    assert s[E.S_END] == E.END_STACKS


# ------------------------------------------------------------------ selling


def test_sale_takes_tokens_from_the_top():
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((3, 0, 0, 2, 0, 0, 0), EMPTY),
                    deck=[LEATHER] * 10)
    play(s, 0, E.T_SELL, DIAMOND, 2)
    assert s[E.S_GSUM] == 7 + 7 and s[E.S_GCNT] == 2 and s[E.S_TOKPOS + DIAMOND] == 2
    play(s, 1, E.T_TAKE_GOOD, LEATHER)
    play(s, 0, E.T_SELL, CLOTH, 2)
    assert s[E.S_GSUM] == 14 + 5 + 3 and s[E.S_GCNT] == 4 and s[E.S_BCNT] == 0
    # the second seller of diamonds takes what is left
    s2 = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=(EMPTY, (2, 0, 0, 0, 0, 0, 0)),
                     deck=[LEATHER] * 10, tokpos=(2, 0, 0, 0, 0, 0), cur=1)
    play(s2, 1, E.T_SELL, DIAMOND, 2)
    assert s2[E.S_GSUM + 1] == 5 + 5


@pytest.mark.parametrize("size,pile", [(3, 0), (4, 1), (5, 2), (6, 2), (7, 2)])
def test_bonus_pile_by_sale_size(size, pile):
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((0, 0, 0, 0, 0, size, 0), EMPTY),
                    deck=[DIAMOND] * 10)
    top = int(s[E.S_BONUS + pile * E.MAX_BONUS])
    play(s, 0, E.T_SELL, LEATHER, size)
    assert s[E.S_BCNT] == 1 and s[E.S_BSUM] == top
    assert [int(s[E.S_BPOS + b]) for b in range(3)] == [1 if b == pile else 0 for b in range(3)]
    assert s[E.S_GCNT] == size and s[E.S_GSUM] == sum(int(V[E.CFG_TOK + LEATHER * E.MAX_TOK + i])
                                                      for i in range(size))


def test_sales_under_three_draw_no_bonus():
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((0, 0, 0, 0, 0, 2, 0), EMPTY),
                    deck=[DIAMOND] * 10)
    play(s, 0, E.T_SELL, LEATHER, 2)
    assert s[E.S_BCNT] == 0 and s[E.S_BSUM] == 0 and all(s[E.S_BPOS + b] == 0 for b in range(3))


def test_short_stack_gives_what_remains_and_still_counts_for_bonus():
    tokpos = [0] * 6
    tokpos[CLOTH] = int(V[E.CFG_NTOK + CLOTH]) - 2  # two tokens left: 1, 1
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((0, 0, 0, 4, 0, 0, 0), EMPTY),
                    deck=[DIAMOND] * 10, tokpos=tuple(tokpos))
    top4 = int(s[E.S_BONUS + 1 * E.MAX_BONUS])
    play(s, 0, E.T_SELL, CLOTH, 4)
    assert s[E.S_GCNT] == 2 and s[E.S_GSUM] == 2
    assert s[E.S_BCNT] == 1 and s[E.S_BSUM] == top4 and s[E.S_BPOS + 1] == 1, "a short sale of 4 draws from pile 4"
    assert hand(s, 0)[CLOTH] == 0, "all four cards are discarded"


def test_empty_stack_sale_still_counts_for_bonus():
    tokpos = [0] * 6
    tokpos[SPICE] = int(V[E.CFG_NTOK + SPICE])
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((0, 0, 0, 0, 3, 0, 0), EMPTY),
                    deck=[DIAMOND] * 10, tokpos=tuple(tokpos))
    rows = legal_rows(s, V, 0)
    assert any(r[E.A_TYPE] == E.T_SELL and r[E.A_GOOD] == SPICE for r in rows), "selling into an empty stack"
    play(s, 0, E.T_SELL, SPICE, 3)
    assert s[E.S_GCNT] == 0 and s[E.S_GSUM] == 0
    assert s[E.S_BCNT] == 1 and s[E.S_BSUM] == int(s[E.S_BONUS])


def test_empty_bonus_pile_gives_nothing():
    nb = int(V[E.CFG_NBONUS + 0])
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((0, 0, 0, 0, 0, 3, 0), EMPTY),
                    deck=[DIAMOND] * 10, bpos=(nb, 0, 0))
    play(s, 0, E.T_SELL, LEATHER, 3)
    assert s[E.S_BCNT] == 0 and s[E.S_BSUM] == 0 and s[E.S_BPOS] == nb
    assert s[E.S_GCNT] == 3, "the goods tokens are still taken"


def test_configured_empty_bonus_pile_gives_nothing():
    cfg = make_cfg("bonus.5=[]")
    v = cfg.vector
    s = build_state(v, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((0, 0, 0, 0, 0, 5, 0), EMPTY),
                    deck=[DIAMOND] * 10)
    play(s, 0, E.T_SELL, LEATHER, 5, v=v)
    assert s[E.S_BCNT] == 0 and s[E.S_BSUM] == 0


def test_bonus_draws_follow_the_shuffled_pile():
    """Over a round's shuffled pile, successive draws give every token of the pile exactly once."""
    pile = 2
    nb = int(V[E.CFG_NBONUS + pile])
    s = deal(V, 11)
    expected = sorted(int(x) for x in s[E.S_BONUS + pile * E.MAX_BONUS: E.S_BONUS + pile * E.MAX_BONUS + nb])
    got = []
    for _ in range(nb + 1):
        s[E.S_HAND + LEATHER] = 5
        before = int(s[E.S_BSUM])
        s[E.S_TOKPOS + LEATHER] = 0
        s[E.S_END] = 0
        play(s, 0, E.T_SELL, LEATHER, 5)
        got.append(int(s[E.S_BSUM]) - before)
    assert sorted(got[:nb]) == expected and got[nb] == 0


# ------------------------------------------------------------------ hidden information


def scramble_hidden(s, p, rng):
    """A state differing from s only in what seat p may not know: the rival's hand composition (same count,
    same cards known to be there), every bonus value (drawn or not, both seats), and the deck order."""
    q = 1 - p
    t = s.copy()
    h = [int(t[E.S_HAND + 7 * q + g]) for g in range(6)]
    known = [int(t[E.S_KNOWN + 6 * q + g]) for g in range(6)]
    free = sum(h) - sum(known)
    new = list(known)
    for _ in range(free):
        new[int(rng.integers(0, 6))] += 1
    for g in range(6):
        t[E.S_HAND + 7 * q + g] = new[g]
    for b in range(3):
        for i in range(E.MAX_BONUS):
            t[E.S_BONUS + b * E.MAX_BONUS + i] = int(rng.integers(0, 40))
        t[E.S_PSUM + b] = int(rng.integers(0, 100))
    for pp in (0, 1):
        t[E.S_BSUM + pp] = int(rng.integers(0, 100))
    lo, hi = int(t[E.S_DECKPOS]), int(t[E.S_DECKLEN])
    t[E.S_DECK + lo: E.S_DECK + hi] = rng.permutation(t[E.S_DECK + lo: E.S_DECK + hi])
    return t


def observation(s, v, p):
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    E.observe(s, v, p, obs)
    return obs


def test_observation_hides_bonus_values_and_rival_hand_hand_built():
    s = build_state(V, market_cards=(1, 0, 0, 1, 0, 0, 3), hands=((2, 0, 0, 1, 0, 0, 1), (0, 1, 3, 0, 0, 1, 2)),
                    deck=[LEATHER, GOLD, SILVER, CLOTH] * 3, bpos=(1, 1, 0))
    s[E.S_BSUM], s[E.S_BSUM + 1], s[E.S_BCNT], s[E.S_BCNT + 1] = 3, 6, 1, 1
    t = s.copy()
    t[E.S_HAND + 7 + 1], t[E.S_HAND + 7 + 2], t[E.S_HAND + 7 + 3] = 0, 2, 2  # rival: same 5 goods, other kinds
    t[E.S_BSUM], t[E.S_BSUM + 1] = 1, 4  # other bonus values drawn
    for b in range(3):  # other values left in the piles
        t[E.S_BONUS + b * E.MAX_BONUS: E.S_BONUS + (b + 1) * E.MAX_BONUS] = 9
    assert np.array_equal(observation(s, V, 0), observation(t, V, 0))
    # sanity: the observation does see its own hand and public counts
    u = s.copy()
    u[E.S_HAND + 3] += 1
    assert not np.array_equal(observation(s, V, 0), observation(u, V, 0))
    u = s.copy()
    u[E.S_BCNT + 1] += 1
    assert not np.array_equal(observation(s, V, 0), observation(u, V, 0)), "bonus token counts are public"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(0, 90), scramble=st.integers(0, 2**31 - 1))
def test_observation_ignores_hidden_information_on_random_states(seed, steps, scramble):
    s, _ = reach_state(V, seed, steps, 0.5)
    rng = np.random.default_rng(scramble)
    for p in (0, 1):
        t = scramble_hidden(s, p, rng)
        assert np.array_equal(observation(s, V, p), observation(t, V, p)), \
            f"seat {p}'s observation depends on hidden information"


def test_reused_observation_buffer_matches_a_fresh_one():
    """observe skips rewriting token stacks whose count is unchanged; a buffer reused over a whole match (both
    seats, sales emptying stacks, a new round) must read exactly like a freshly zeroed one."""
    rng = np.random.default_rng(3)
    reused = np.zeros(E.OBS_SIZE, dtype=np.int32)
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    checked = sells = 0
    for rnd in range(1, 4):
        s = deal(V, 100 + rnd, starter=rnd % 2)
        while not E.round_over(s):
            p = int(s[E.S_CUR])
            E.observe(s, V, p, reused)
            assert np.array_equal(reused, observation(s, V, p))
            for g in range(6):  # and both read the stacks right: values left, top first, then zeros
                nt, pos = int(V[E.CFG_NTOK + g]), int(s[E.S_TOKPOS + g])
                values = [int(V[E.CFG_TOK + g * E.MAX_TOK + i]) for i in range(pos, nt)]
                assert reused[E.O_TOKREM + g] == nt - pos
                row = reused[E.O_TOKV + g * E.MAX_TOK: E.O_TOKV + (g + 1) * E.MAX_TOK]
                assert list(row) == values + [0] * (E.MAX_TOK - len(values))
            checked += 1
            n = E.enumerate_actions(s, V, p, buf)
            if n == 0:
                E.pass_turn(s, V)
                continue
            sell_rows = [i for i in range(n) if buf[i, E.A_TYPE] == E.T_SELL]
            a = int(rng.choice(sell_rows)) if sell_rows and rng.random() < 0.6 else int(rng.integers(n))
            sells += int(buf[a, E.A_TYPE] == E.T_SELL)
            E.play_row(s, V, p, buf, a)
    assert checked > 60 and sells > 15
