"""Rulebook 'line worth knowing' and the shapes of a take, checked on hand-built states and on the legal action
lists of many random reachable states (hypothesis), against an independent brute-force enumeration."""
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mohur_helpers import (COIN, CLOTH, LEATHER, PRECIOUS, SPICE, E, actions_buffer, brute_force, build_state, effect,
                           goods, hand, legal_rows, make_cfg, market, reach_state)

DEFAULT = make_cfg()
V = DEFAULT.vector
# a designer's variant: bigger market, tighter hand, bigger minimum exchange, precious cloth
VARIANT = make_cfg("rules.market_size=6", "rules.market_coins=2", "rules.hand_limit=6", "rules.min_exchange=3",
                   "min_sale.cloth=2", "rules.hand_size=4")
CONFIGS = {"default": DEFAULT, "variant": VARIANT}

HYP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_line_worth_knowing(s, cfg, p):
    """Every legal action of seat p obeys the five bullets of the rulebook's 'line worth knowing', judged
    from what the action does to the state (not from how the engine labels it)."""
    v = cfg.vector
    rows = legal_rows(s, v, p)
    limit = int(v[E.CFG_HAND_LIMIT])
    m = market(s)
    for i in range(len(rows)):
        after, hd, md, sold = effect(s, v, p, rows, i)
        took = [max(0, d) for d in hd]
        gave = [max(0, -d) for d in hd]
        if any(sold):
            # selling: exactly one kind leaves the hand, nothing enters it
            kinds = [k for k in range(7) if sold[k]]
            assert len(kinds) == 1, f"sale of more than one kind at once: {rows[i]}"
            g = kinds[0]
            assert g != COIN, "coins are never sold"
            assert not any(took), "a sale took cards"
            assert gave[g] == sold[g] and sum(gave) == sold[g]
            if g in PRECIOUS and cfg is DEFAULT:
                assert sold[g] >= 2, f"single {('diamond', 'gold', 'silver')[g]} sale is legal: {rows[i]}"
            assert sold[g] >= max(1, int(v[E.CFG_MIN_SALE + g]))
            continue
        # a take of some shape
        assert all(-md[k] == hd[k] for k in range(7)), "cards of a take must come from / go to the market"
        if took[COIN]:
            assert not any(took[:6]) and not any(gave), f"coins taken together with goods: {rows[i]}"
            assert took[COIN] == m[COIN], f"only some of the coins taken: {took[COIN]} of {m[COIN]}"
        elif sum(took) == 1 and not any(gave):
            pass  # take one good
        else:
            k = sum(took)
            assert sum(gave) == k, f"exchange with unequal counts: {rows[i]}"
            assert k >= 2, f"one-for-one exchange (or net one-for-one: same kind taken and returned): {rows[i]}"
            assert k >= int(v[E.CFG_MIN_EXCHANGE])
            assert not any(took[g] and gave[g] for g in range(7))
            # the row itself never takes and returns the same kind, and never takes coins in an exchange
            r = rows[i]
            assert r[E.A_TAKE + COIN] == 0, "an exchange takes coins"
            assert not any(r[E.A_TAKE + g] and r[E.A_GIVE + g] for g in range(7)), \
                f"exchange takes and returns the same kind: {r}"
        assert goods(after, p) <= limit, f"a take ends with {goods(after, p)} goods (> {limit}): {rows[i]}"
    return rows


def engine_effects(s, cfg, p):
    rows = legal_rows(s, cfg.vector, p)
    return Counter(tuple(effect(s, cfg.vector, p, rows, i)[1]) for i in range(len(rows))), rows


# ---------------------------------------------------------------------------------------------------------
# hand-built states


def test_coins_and_goods_never_together_and_never_some_coins():
    s = build_state(V, market_cards=(1, 0, 0, 1, 0, 0, 3), hands=((0, 0, 0, 1, 1, 0, 2), (0,) * 7),
                    deck=[LEATHER] * 20)
    rows = check_line_worth_knowing(s, DEFAULT, 0)
    coin_rows = [r for r in rows if r[E.A_TAKE + COIN] > 0]
    assert len(coin_rows) == 1, "exactly one coin take: all the market's coins"
    r = coin_rows[0]
    assert r[E.A_TYPE] == E.T_TAKE_COINS and r[E.A_TAKE + COIN] == 3
    assert not any(r[E.A_TAKE + g] for g in range(6)) and not any(r[E.A_GIVE:E.A_GIVE + 7])
    after, hd, md, _ = effect(s, V, 0, rows, next(i for i in range(len(rows)) if rows[i][E.A_TYPE] == E.T_TAKE_COINS))
    assert hd == [0] * 6 + [3] and market(after)[COIN] == 0  # the deck holds only leather
    assert market(after) == [1, 0, 0, 1, 0, 3, 0]  # refilled to 5 from the deck


def test_no_coin_take_when_market_has_no_coins():
    s = build_state(V, market_cards=(1, 1, 1, 1, 1, 0, 0), hands=((0,) * 6 + (4,), (0,) * 7), deck=[LEATHER] * 5)
    rows = check_line_worth_knowing(s, DEFAULT, 0)
    assert not any(r[E.A_TYPE] == E.T_TAKE_COINS for r in rows)


def test_no_one_for_one_exchange_and_no_same_kind_exchange():
    # market: 2 cloth, 1 spice, 1 diamond, 1 coin; hand: 2 cloth, 1 spice, 1 leather, coins 2
    s = build_state(V, market_cards=(1, 0, 0, 2, 1, 0, 1), hands=((0, 0, 0, 2, 1, 1, 2), (0,) * 7),
                    deck=[LEATHER] * 10)
    rows = check_line_worth_knowing(s, DEFAULT, 0)
    for r in rows:
        if r[E.A_TYPE] == E.T_EXCHANGE:
            assert r[E.A_COUNT] >= 2 and sum(r[E.A_TAKE:E.A_TAKE + 7]) == r[E.A_COUNT] == \
                sum(r[E.A_GIVE:E.A_GIVE + 7])
    # e.g. take 1 cloth + 1 spice, give 1 cloth + 1 leather must not be there (cloth both ways)
    bad = [r for r in rows if r[E.A_TYPE] == E.T_EXCHANGE and r[E.A_TAKE + CLOTH] and r[E.A_GIVE + CLOTH]]
    assert not bad
    # one-for-one: take 1 diamond give 1 leather must not be there
    assert not any(sum(r[E.A_TAKE:E.A_TAKE + 7]) == 1 and sum(r[E.A_GIVE:E.A_GIVE + 7]) == 1 for r in rows)
    # but a 2-for-2 exchange is: take diamond + spice, give leather + coin
    effects, _ = engine_effects(s, DEFAULT, 0)
    assert effects[(1, 0, 0, 0, 1, -1, -1)] == 1


def test_one_for_one_is_not_legal_even_when_it_is_the_only_exchange_shape():
    # market has a single good; the hand has other goods: only take-one-good, never a 1-for-1 swap
    s = build_state(V, market_cards=(1, 0, 0, 0, 0, 0, 4), hands=((0, 0, 0, 3, 0, 0, 0), (0,) * 7), deck=[1] * 5)
    rows = check_line_worth_knowing(s, DEFAULT, 0)
    assert not any(r[E.A_TYPE] == E.T_EXCHANGE for r in rows)


@pytest.mark.parametrize("good", PRECIOUS)
def test_single_precious_sale_never_legal(good):
    h = [0] * 7
    h[good] = 1
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=(tuple(h), (0,) * 7), deck=[5] * 5)
    rows = check_line_worth_knowing(s, DEFAULT, 0)
    assert not any(r[E.A_TYPE] == E.T_SELL for r in rows)
    h[good] = 3
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=(tuple(h), (0,) * 7), deck=[5] * 5)
    sells = sorted(int(r[E.A_COUNT]) for r in legal_rows(s, V, 0) if r[E.A_TYPE] == E.T_SELL)
    assert sells == [2, 3]


@pytest.mark.parametrize("good", (CLOTH, SPICE, LEATHER))
def test_common_goods_sell_singly(good):
    h = [0] * 7
    h[good] = 2
    s = build_state(V, market_cards=(5, 0, 0, 0, 0, 0, 0), hands=(tuple(h), (0,) * 7), deck=[0] * 5)
    sells = sorted(int(r[E.A_COUNT]) for r in legal_rows(s, V, 0) if r[E.A_TYPE] == E.T_SELL)
    assert sells == [1, 2]


def test_selling_more_than_one_kind_impossible():
    s = build_state(V, market_cards=(0, 0, 0, 0, 0, 5, 0), hands=((2, 2, 2, 1, 0, 0, 0), (0,) * 7), deck=[5] * 5)
    rows = check_line_worth_knowing(s, DEFAULT, 0)
    sells = [r for r in rows if r[E.A_TYPE] == E.T_SELL]
    assert len(sells) == 4  # 2 diamond, 2 gold, 2 silver, 1 cloth: one kind each


def test_hand_limit_after_take():
    # 7 goods in hand: no take of one good; an exchange may not be paid with coins (hand would grow)
    s = build_state(V, market_cards=(1, 1, 0, 1, 0, 0, 2), hands=((0, 0, 0, 3, 2, 2, 5), (0,) * 7),
                    deck=[5] * 20)
    rows = check_line_worth_knowing(s, DEFAULT, 0)
    assert not any(r[E.A_TYPE] == E.T_TAKE_GOOD for r in rows)
    assert not any(r[E.A_TYPE] == E.T_EXCHANGE and r[E.A_GIVE + COIN] > 0 for r in rows)
    assert any(r[E.A_TYPE] == E.T_EXCHANGE for r in rows)  # goods-for-goods still fine
    assert any(r[E.A_TYPE] == E.T_TAKE_COINS for r in rows)  # coins never crowd the hand
    # 6 goods: one coin may pay, not two
    s = build_state(V, market_cards=(1, 1, 0, 1, 0, 0, 2), hands=((0, 0, 0, 2, 2, 2, 5), (0,) * 7),
                    deck=[5] * 20)
    rows = check_line_worth_knowing(s, DEFAULT, 0)
    assert any(r[E.A_TYPE] == E.T_TAKE_GOOD for r in rows)
    coin_pay = [int(r[E.A_GIVE + COIN]) for r in rows if r[E.A_TYPE] == E.T_EXCHANGE]
    assert max(coin_pay) == 1


def test_exchange_may_give_coins_but_never_take_them():
    s = build_state(V, market_cards=(0, 0, 0, 2, 1, 0, 2), hands=((0,) * 6 + (3,), (0,) * 7), deck=[5] * 20)
    effects, rows = engine_effects(s, DEFAULT, 0)
    check_line_worth_knowing(s, DEFAULT, 0)
    # take 2 cloth for 2 coins, take cloth+spice for 2 coins, take all three for 3 coins
    assert effects[(0, 0, 0, 2, 0, 0, -2)] == 1
    assert effects[(0, 0, 0, 1, 1, 0, -2)] == 1
    assert effects[(0, 0, 0, 2, 1, 0, -3)] == 1
    assert all(r[E.A_TAKE + COIN] == 0 for r in rows if r[E.A_TYPE] == E.T_EXCHANGE)


def test_exchange_enumeration_matches_brute_force_on_hand_built_state():
    s = build_state(V, market_cards=(1, 1, 1, 1, 1, 0, 0), hands=((0, 0, 0, 2, 2, 2, 4), (0,) * 7),
                    deck=[5] * 20)
    effects, rows = engine_effects(s, DEFAULT, 0)
    assert effects == brute_force(s, V, 0)
    assert max(effects.values()) == 1, "duplicate legal actions"
    assert len(rows) > 100  # a rich position: many exchanges


# ---------------------------------------------------------------------------------------------------------
# random reachable states


def on_random_states(test):
    """Hypothesis draws a round dealt from a seed and played up to 120 random actions (a take bias of 0, 0.6 or
    0.9), under either configuration."""
    return HYP(given(seed=st.integers(0, 2**31 - 1), steps=st.integers(0, 120),
                     bias=st.sampled_from([0.0, 0.6, 0.9]), cfg_name=st.sampled_from(sorted(CONFIGS)))(test))


def random_state(seed, steps, bias, cfg_name):
    cfg = CONFIGS[cfg_name]
    return cfg, reach_state(cfg.vector, seed, steps, bias)[0]


@on_random_states
def test_line_worth_knowing_on_random_states(seed, steps, bias, cfg_name):
    cfg, s = random_state(seed, steps, bias, cfg_name)
    for p in (0, 1):
        check_line_worth_knowing(s, cfg, p)


@on_random_states
def test_every_legal_action_enumerated_once(seed, steps, bias, cfg_name):
    cfg, s = random_state(seed, steps, bias, cfg_name)
    for p in (0, 1):
        effects, rows = engine_effects(s, cfg, p)
        expected = brute_force(s, cfg.vector, p)
        assert max(effects.values(), default=1) == 1, "duplicate legal actions"
        assert effects == expected, (f"missing: {expected - effects}; extra: {effects - expected}")


def test_random_play_reaches_rich_states():
    """Guard for the two property tests above: the random states they draw include full hands, coffers and
    many exchanges (so the properties are not checked on trivial states only)."""
    full = coffers = rich = 0
    for seed in range(40):
        s, _ = reach_state(DEFAULT.vector, seed, 60, 0.9)
        full += goods(s, 0) == 7 or goods(s, 1) == 7
        coffers += hand(s, 0)[COIN] >= 3 or hand(s, 1)[COIN] >= 3
        rich += len(legal_rows(s, DEFAULT.vector, int(s[E.S_CUR]))) >= 30
    assert full >= 5 and coffers >= 5 and rich >= 5


@on_random_states
def test_counted_exchanges_are_the_enumerated_ones(seed, steps, bias, cfg_name):
    # random's listing (EX_COUNTED): the exchanges counted without being listed (engine.count_exchanges) and the one
    # drawn written when applied (engine.counted_exchange), against the full listing: the same number for either
    # seat, and at every exchange index the row the full listing has there
    cfg, s = random_state(seed, steps, bias, cfg_name)
    v = cfg.vector
    if E.round_over(s):
        return
    buf = actions_buffer()
    for p in (0, 1):
        full = legal_rows(s, v, p)
        exchanges = int((full[:, E.A_TYPE] == E.T_EXCHANGE).sum())
        counted = s.copy()
        assert E.enumerate_actions(counted, v, p, buf, E.EX_COUNTED) == len(full)
        assert counted[E.S_COUNTED] == exchanges
        assert (buf[: len(full) - exchanges] == full[: len(full) - exchanges]).all()
    p = int(s[E.S_CUR])
    full = legal_rows(s, v, p)
    for a in range(len(full)):
        if full[a, E.A_TYPE] != E.T_EXCHANGE:
            continue
        counted = s.copy()
        counted[E.S_ON_DEMAND + p] = E.EX_COUNTED
        assert E.legal_actions(counted, v, buf) == len(full)
        E.apply_action(counted, v, buf, a)
        assert (buf[a] == full[a]).all(), (a, buf[a], full[a])
