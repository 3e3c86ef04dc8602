"""One test per rule of the rulebook (seeds/003) and per DEFAULT of rules/muziris.md, plus its example."""
import numpy as np
import pytest

from sim.muziris import engine as E
from muziris_helpers import (T, act, add_play, cfg_with, hand, legal, market, pick, play_out, setup, slot)

STD2 = ["advisor", "customer", "merchant", "beggar"]


def test_rulebook_example_of_play(cfg):
    # Blue (seat 0) is first player; Red (seat 1). The Beggar is the 2-player game's special character.
    s = setup(cfg, 2, fp=0, chars=STD2, hands=[{"banana": 1, "pepper": 1}, {"mango": 1, "ginger": 1}],
              market={"banana": 1, "cinnamon": 1, "cucumber": 2}, coins=[0, 1])
    pick(cfg, s, "merchant")
    act(cfg, s, E.D_TAKE, T(cfg, "banana"))
    assert hand(cfg, s, 0) == {"banana": 2, "pepper": 1}
    pick(cfg, s, "customer")
    act(cfg, s, E.D_FULFIL, T(cfg, "banana"), 2)
    assert s[E.S_COINS] == 2 and s[E.S_C_ORD + T(cfg, "banana")] == 2
    assert s[E.S_PLAY + T(cfg, "banana")] == 1 and s[E.S_DISCARD + T(cfg, "banana")] == 1
    assert s[E.S_CUR] == 1  # play passes to Red
    pick(cfg, s, "advisor")
    act(cfg, s, E.D_MARKET_AB, T(cfg, "cinnamon"))
    assert s[E.S_DISCARD + T(cfg, "cinnamon")] == 1
    act(cfg, s, E.D_TAKE_TYPE, T(cfg, "cucumber"), 2)  # "Red adds 2 Cucumber cards": 1 or 2, Red's choice
    # the round is over
    assert hand(cfg, s, 1) == {"mango": 1, "ginger": 1, "cucumber": 2}
    assert s[E.S_ROUND] == 2 and not E.is_over(s)
    assert s[E.S_CH_COINS + slot(cfg, s, "beggar")] == 1
    assert all(s[E.S_CH_COINS + slot(cfg, s, c)] == 0 for c in ("advisor", "customer", "merchant"))
    assert all(s[E.S_CH_MARK + k] == 0 for k in range(4))
    assert E.cards(s, E.S_MARKET) == 4
    assert s[E.S_FP] == 1 and s[E.S_CUR] == 1 and s[E.S_MARKERS] == 2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup(players):
    c = cfg_with(players)
    s = E.new_state()
    E.new_game(s, c.vector, players, 5, 0)
    ids = [c.characters[s[E.S_CH_ID + k]] for k in range(s[E.S_NCH])]
    assert ids[:3] == ["advisor", "customer", "merchant"] and len(ids) == 3 + players - 1
    assert len(set(ids)) == len(ids)
    assert all(E.hand_size(s, p) == 2 for p in range(players))
    assert E.cards(s, E.S_MARKET) == 4 and E.deck_left(s) == 84 - 2 * players - 4
    fp = s[E.S_FP]
    assert [s[E.S_COINS + p] for p in range(players)] == [0 if p == fp else 1 for p in range(players)]
    assert s[E.S_CUR] == fp and s[E.S_MARKERS] == 2 and s[E.S_ROUND] == 1


def test_first_player_random_and_specials_random():
    c = cfg_with(3)
    fps, specials = set(), set()
    s = E.new_state()
    for seed in range(40):
        E.new_game(s, c.vector, 3, seed, 0)
        fps.add(int(s[E.S_FP]))
        specials |= {int(s[E.S_CH_ID + k]) for k in range(3, 5)}
    assert fps == {0, 1, 2} and len(specials) == 5


def test_markers_per_round_and_turn_order(cfg):
    s = setup(cfg, 3, fp=1)
    seats = []
    while s[E.S_ROUND] == 1:
        if s[E.S_PHASE] == E.PH_CHAR:
            seats.append(int(s[E.S_CUR]))
        act(cfg, s, *legal(cfg, s)[0])
    assert seats == [1, 1, 2, 0]  # first player twice, then clockwise
    assert s[E.S_FP] == 2  # the marker passes to the left


def test_marked_character_unavailable_and_coins_taken(cfg):
    s = setup(cfg, 3, fp=0, chars=["advisor", "customer", "merchant", "beggar", "farmer"])
    s[E.S_CH_COINS + slot(cfg, s, "beggar")] = 3
    s[E.S_PLACED] = 3
    s[E.S_ISSUED] += 3
    pick(cfg, s, "beggar")
    assert s[E.S_COINS] == 3 + 2 and s[E.S_C_CHAR] == 3 and s[E.S_C_ABIL] == 2
    assert (E.D_CHAR, slot(cfg, s, "beggar"), 0) not in legal(cfg, s)


def test_unused_character_gains_coin_only_unused(cfg):
    s = setup(cfg, 3, fp=0, chars=["advisor", "customer", "merchant", "beggar", "farmer"])
    for name in ("beggar", "farmer", "merchant", "advisor"):
        pick(cfg, s, name)
        while s[E.S_PHASE] != E.PH_CHAR:
            act(cfg, s, *legal(cfg, s)[0])
    coins = [int(s[E.S_CH_COINS + k]) for k in range(5)]
    assert coins == [0, 1, 0, 0, 0]  # only the Customer went unused
    assert cfg_with(3, rules__unused_character_coins=0).vector[E.CFG_UNUSED_CHARACTER_COINS] == 0


def test_market_refilled_only_at_end_of_round(cfg):
    s = setup(cfg, 3, fp=0, market={"banana": 2, "mango": 2})
    pick(cfg, s, "merchant")
    act(cfg, s, E.D_TAKE, T(cfg, "banana"))
    assert E.cards(s, E.S_MARKET) == 3
    while s[E.S_ROUND] == 1:
        assert E.cards(s, E.S_MARKET) <= 3
        act(cfg, s, *legal(cfg, s)[0])
    assert E.cards(s, E.S_MARKET) == 4


def test_hand_limit_player_chooses_discards(cfg):
    s = setup(cfg, 3, fp=1, chars=["advisor", "customer", "merchant", "beggar", "farmer"],
              hands=[{}, {}, {"banana": 5, "mango": 3}])
    act(cfg, s, E.D_CHAR, slot(cfg, s, "beggar"))
    act(cfg, s, E.D_CHAR, slot(cfg, s, "customer"))  # an empty hand: the Customer does nothing
    assert s[E.S_CUR] == 2
    pick(cfg, s, "farmer")  # 8 + 3 = 11 cards: one over the limit of 10
    assert s[E.S_PHASE] == E.PH_DISCARD and E.hand_size(s, 2) == 11
    options = legal(cfg, s)
    assert all(o[0] == E.D_DISCARD for o in options) and len(options) >= 2
    act(cfg, s, E.D_DISCARD, T(cfg, "banana"))
    assert E.hand_size(s, 2) == 10 and s[E.S_PHASE] == E.PH_CHAR and s[E.S_CUR] == 0


def test_reshuffle_and_empty_draw(cfg):
    s = setup(cfg, 3)
    s[E.S_DISCARD: E.S_DISCARD + E.MAX_T] = 0
    # move the whole deck to the discard pile
    for i in range(s[E.S_DECKPOS], s[E.S_DECKLEN]):
        s[E.S_DISCARD + s[E.S_DECK + i]] += 1
    s[E.S_DECKPOS] = s[E.S_DECKLEN]
    n = E.cards(s, E.S_DISCARD)
    E.draw_to(s, cfg.vector, E.S_HAND, 1)  # a draw that meets an empty deck reshuffles first
    assert s[E.S_RESHUF] == 1 and E.cards(s, E.S_DISCARD) == 0 and E.deck_left(s) == n - 1
    E.check_invariants(s, cfg.vector)
    E.draw_to(s, cfg.vector, E.S_HAND, n + 5)  # deck and discard run dry: the extra draws do nothing
    assert E.deck_left(s) == 0 and s[E.S_RESHUF] == 1
    E.check_invariants(s, cfg.vector)


def test_order_values_and_play_area(cfg):
    s = setup(cfg, 3, fp=0, hands=[{"pepper": 3, "cinnamon": 1}, {}, {}])
    pick(cfg, s, "customer")
    fulfils = [o for o in legal(cfg, s)]
    assert (E.D_FULFIL, T(cfg, "pepper"), 3) in fulfils and (E.D_FULFIL, T(cfg, "cinnamon"), 2) not in fulfils
    act(cfg, s, E.D_FULFIL, T(cfg, "pepper"), 3)
    assert s[E.S_COINS] == 9 and s[E.S_PLAY + T(cfg, "pepper")] == 1
    assert s[E.S_DISCARD + T(cfg, "pepper")] == 2 and s[E.S_ORDSIZE + T(cfg, "pepper") * E.MAX_ORD + 2] == 1


@pytest.mark.parametrize("name,values,count", [
    ("banana", [1, 2, 4], 14), ("cucumber", [1, 2, 4], 13), ("coconut", [1, 3, 5], 12),
    ("mango", [1, 3, 5], 11), ("ginger", [2, 4, 6], 10), ("cinnamon", [2, 4, 7], 9),
    ("cardamom", [2, 5, 8], 8), ("pepper", [3, 6, 9], 7)])
def test_default_produce(cfg, name, values, count):
    t = T(cfg, name)
    assert list(cfg.vector[E.CFG_VAL + t * E.MAX_ORD: E.CFG_VAL + t * E.MAX_ORD + 3]) == values
    assert cfg.vector[E.CFG_COUNT + t] == count


def _advisor(cfg, produce, market_extra, hands, **kw):
    m = {produce: 1}
    for k, n in market_extra.items():
        m[k] = m.get(k, 0) + n
    s = setup(cfg, 3, fp=0, hands=hands, market=m, **kw)
    pick(cfg, s, "advisor")
    act(cfg, s, E.D_MARKET_AB, T(cfg, produce))
    return s


def test_cucumber_take_1(cfg):
    s = _advisor(cfg, "cucumber", {"mango": 2}, [{}, {}, {}])
    act(cfg, s, E.D_TAKE, T(cfg, "mango"))
    assert hand(cfg, s, 0) == {"mango": 1} and market(cfg, s) == {"mango": 1}


@pytest.mark.parametrize("produce,market_extra,coins,cards", [
    ("banana", {"mango": 1}, 0, 2), ("coconut", {}, 2, 0), ("mango", {}, 1, 1)])  # draw 2; gain 2; draw 1, gain 1
def test_abilities_that_draw_and_gain(cfg, produce, market_extra, coins, cards):
    s = _advisor(cfg, produce, market_extra, [{}, {}, {}])
    assert s[E.S_COINS] == s[E.S_C_ABIL] == coins and E.hand_size(s, 0) == cards


def test_ginger_discard_up_to_2_draw_as_many(cfg):
    s = _advisor(cfg, "ginger", {}, [{"banana": 3}, {}, {}])
    assert (E.D_CYCLE, -1, 0) in legal(cfg, s)
    act(cfg, s, E.D_CYCLE, T(cfg, "banana"))
    act(cfg, s, E.D_CYCLE, T(cfg, "banana"))  # second discard ends it: 2 discarded, 2 drawn
    assert E.hand_size(s, 0) == 3 and s[E.S_DISCARD + T(cfg, "banana")] == 2 and s[E.S_PHASE] == E.PH_CHAR
    s = _advisor(cfg, "ginger", {}, [{"banana": 3}, {}, {}])
    act(cfg, s, E.D_CYCLE, T(cfg, "banana"))
    act(cfg, s, E.D_CYCLE, -1)  # stop after one: draw one
    assert E.hand_size(s, 0) == 3 and s[E.S_DISCARD + T(cfg, "banana")] == 1


def test_cinnamon_take_up_to_2_of_one_type(cfg):
    s = _advisor(cfg, "cinnamon", {"mango": 3}, [{}, {}, {}])
    act(cfg, s, E.D_TAKE_TYPE, T(cfg, "mango"), 2)
    assert hand(cfg, s, 0) == {"mango": 2} and market(cfg, s) == {"mango": 1}


def test_cinnamon_one_or_two_is_the_players_choice(cfg):
    # DEFAULT (rules.take_up_to = "choose"): "up to 2" offers 1 and 2 when 2 are available, 1 when only 1 is
    s = _advisor(cfg, "cinnamon", {"mango": 2, "banana": 1}, [{}, {}, {}])
    mango, banana = T(cfg, "mango"), T(cfg, "banana")
    assert sorted(legal(cfg, s)) == sorted([(E.D_TAKE_TYPE, mango, 1), (E.D_TAKE_TYPE, mango, 2),
                                            (E.D_TAKE_TYPE, banana, 1)])
    act(cfg, s, E.D_TAKE_TYPE, mango, 1)
    assert hand(cfg, s, 0) == {"mango": 1} and market(cfg, s) == {"mango": 1, "banana": 1}


def test_cinnamon_always_most_when_configured():
    c = cfg_with(3, rules__take_up_to='"most"')
    s = _advisor(c, "cinnamon", {"mango": 2, "banana": 1}, [{}, {}, {}])
    assert sorted(legal(c, s)) == sorted([(E.D_TAKE_TYPE, T(c, "mango"), 0), (E.D_TAKE_TYPE, T(c, "banana"), 0)])
    act(c, s, E.D_TAKE_TYPE, T(c, "mango"))  # y = 0: as many as "up to 2" allows
    assert hand(c, s, 0) == {"mango": 2} and market(c, s) == {"banana": 1}


def test_captain_takes_every_card_of_the_type_without_choice(cfg):
    chars = ["advisor", "customer", "merchant", "captain", "beggar"]
    s = setup(cfg, 3, fp=0, chars=chars, hands=[{}, {}, {}], market={"mango": 3, "banana": 1})
    pick(cfg, s, "captain")
    assert sorted(legal(cfg, s)) == sorted([(E.D_TAKE_TYPE, T(cfg, "mango"), 0),
                                            (E.D_TAKE_TYPE, T(cfg, "banana"), 0)])  # y = 0: every card
    act(cfg, s, E.D_TAKE_TYPE, T(cfg, "mango"))
    assert hand(cfg, s, 0) == {"mango": 3} and market(cfg, s) == {"banana": 1}


def test_cardamom_fulfil(cfg):
    s = _advisor(cfg, "cardamom", {}, [{"coconut": 2}, {}, {}])
    act(cfg, s, E.D_FULFIL, T(cfg, "coconut"), 2)
    assert s[E.S_COINS] == 3 and s[E.S_C_ABIL] == 0


def test_pepper_coins_per_order_at_most_4(cfg):
    for orders, coins in ((2, 2), (6, 4)):
        s = setup(cfg, 3, fp=0, market={"pepper": 1})
        add_play(cfg, s, 0, "banana", orders)
        pick(cfg, s, "advisor")
        act(cfg, s, E.D_MARKET_AB, T(cfg, "pepper"))
        assert s[E.S_C_ABIL] == coins


def test_market_empty_action_does_nothing(cfg):
    s = setup(cfg, 3, fp=0, market={})
    pick(cfg, s, "merchant")  # nothing to take: the character is still used
    assert s[E.S_PHASE] == E.PH_CHAR and s[E.S_CH_MARK + slot(cfg, s, "merchant")] == 1


@pytest.mark.parametrize("name", ["beggar", "farmer", "captain", "broker", "scholar"])
def test_special_characters(cfg, name):
    chars = ["advisor", "customer", "merchant", name, "beggar" if name != "beggar" else "farmer"]
    s = setup(cfg, 3, fp=0, chars=chars, hands=[{"coconut": 2}, {}, {}], market={"mango": 3, "banana": 1})
    pick(cfg, s, name)
    if name == "beggar":
        assert s[E.S_COINS] == 2
    elif name == "farmer":
        assert E.hand_size(s, 0) == 5
    elif name == "captain":
        act(cfg, s, E.D_TAKE_TYPE, T(cfg, "mango"))
        assert hand(cfg, s, 0)["mango"] == 3 and market(cfg, s) == {"banana": 1}
    elif name == "broker":
        act(cfg, s, E.D_FULFIL, T(cfg, "coconut"), 2)
        assert s[E.S_COINS] == 4 and s[E.S_C_ABIL] == 1
    elif name == "scholar":
        act(cfg, s, E.D_HAND_AB, T(cfg, "coconut"))
        assert s[E.S_COINS] == 2 and hand(cfg, s, 0) == {"coconut": 1}


def _finish_round(cfg, s):
    r = s[E.S_ROUND]
    while s[E.S_ROUND] == r and not E.is_over(s):
        act(cfg, s, *legal(cfg, s)[0])


def test_trigger_orders_final_round_and_reuse(cfg):
    s = setup(cfg, 3, fp=0, cond="trade_winds", hands=[{"banana": 1, "mango": 1}, {}, {}])
    add_play(cfg, s, 0, "pepper", 4)
    pick(cfg, s, "customer")
    act(cfg, s, E.D_FULFIL, T(cfg, "banana"), 1)
    pick(cfg, s, "merchant")
    act(cfg, s, *legal(cfg, s)[0])
    assert s[E.S_FINAL] == 1 and s[E.S_TRIG_SEAT] == 0 and not E.is_over(s)
    # the others still play, and may choose characters that already hold markers
    assert (E.D_CHAR, slot(cfg, s, "customer"), 0) in legal(cfg, s)
    _finish_round(cfg, s)
    assert E.is_over(s) and s[E.S_END] == E.END_TRIGGER and s[E.S_ROUND] == 1


def test_no_reuse_when_configured_off():
    for reuse in ("true", "false"):
        c = cfg_with(3, rules__final_round_reuse=reuse)
        s = setup(c, 3, fp=0, market={})
        s[E.S_FINAL] = 1
        pick(c, s, "merchant")  # an empty market: nothing to take
        assert ((E.D_CHAR, slot(c, s, "merchant"), 0) in legal(c, s)) == (reuse == "true")


def test_trigger_reshuffle_monsoon(cfg):
    s = setup(cfg, 3, fp=0, cond="monsoon")
    s[E.S_RESHUF] = 1
    _finish_round(cfg, s)
    assert E.is_over(s) and s[E.S_TRIG_SEAT] == 0


def test_trigger_coins_royal_treasury(cfg):
    s = setup(cfg, 3, fp=0, cond="royal_treasury", coins=[0, 29, 0])
    assert not E.trigger_met(s, cfg.vector)
    s = setup(cfg, 3, fp=0, cond="royal_treasury", coins=[0, 30, 0])
    _finish_round(cfg, s)
    # checked as each turn ends: seat 0's turn ends first, so seat 0 takes the market condition card
    assert E.is_over(s) and s[E.S_TRIG_SEAT] == 0


def test_trigger_festival_after_round_8(cfg):
    s = setup(cfg, 3, fp=0, cond="festival")
    for r in range(1, 9):
        assert s[E.S_ROUND] == r and not E.is_over(s)
        _finish_round(cfg, s)
    assert E.is_over(s) and s[E.S_ROUND] == 8 and s[E.S_TRIG_SEAT] == -1


def test_round_cap():
    c = cfg_with(3, rules__round_cap=3, rules__condition="festival")
    s = setup(c, 3, fp=0, cond="festival")
    play_out(c, s)
    assert s[E.S_END] == E.END_ROUND_CAP and s[E.S_ROUND] == 3


def _scored(cfg, cond, plays, hands=None, coins=None):
    s = setup(cfg, 3, cond=cond, hands=hands or [{}, {}, {}], coins=coins)
    for p, play in enumerate(plays):
        for name, n in play.items():
            add_play(cfg, s, p, name, n)
    out = np.zeros(E.MAX_P, dtype=np.int64)
    E.condition_coins(s, cfg.vector, out)
    return list(out[:3]), s


@pytest.mark.parametrize("cond,plays,hands,expected", [
    ("trade_winds", [{"banana": 3, "mango": 1}, {}, {"pepper": 1}], None, [4, 0, 2]),
    ("monsoon", [{}, {}, {}], [{"banana": 3}, {}, {"mango": 1}], [3, 0, 1]),
    ("royal_treasury", [{"banana": 2}, {"mango": 2}, {"pepper": 1}], None, [5, 5, 0]),
    ("royal_treasury", [{}, {}, {}], None, [0, 0, 0]),
    ("festival", [{"banana": 2, "mango": 1}, {"banana": 2}, {"mango": 1, "pepper": 1}], None, [6, 3, 6])])
def test_condition_scoring(cfg, cond, plays, hands, expected):
    assert _scored(cfg, cond, plays, hands=hands)[0] == expected


def test_winner_tie_break_and_shared(cfg):
    s = setup(cfg, 3, coins=[10, 10, 4])
    s[E.S_C_SETUP] = 8
    s[E.S_C_COND] = 2  # seat 0: same coins, more from the condition
    share = np.zeros(E.MAX_P)
    E.returns(s, cfg.vector, share)  # fills `share`, returns nothing (the engine interface)
    assert list(share[:3]) == [1, 0, 0]
    s[E.S_C_COND], s[E.S_C_SETUP] = 0, 10
    E.returns(s, cfg.vector, share)
    assert list(share[:3]) == [0.5, 0.5, 0]


def test_end_game_condition_coins_counted(cfg):
    s = setup(cfg, 3, fp=0, cond="monsoon", hands=[{"banana": 2}, {}, {}])
    s[E.S_RESHUF] = 1
    _finish_round(cfg, s)
    assert s[E.S_C_COND] == E.hand_size(s, 0) and s[E.S_C_COND] > 0


@pytest.mark.parametrize("bonus", ["default", "false"])
def test_broker_with_an_empty_hand(bonus):
    # DEFAULT (rules.bonus_without_order = true): the Broker resolves as much as it can, so with no order to
    # fulfil the extra coin is still gained; false: no order, no coin
    c = cfg_with(3) if bonus == "default" else cfg_with(3, rules__bonus_without_order=bonus)
    chars = ["advisor", "customer", "merchant", "broker", "beggar"]
    s = setup(c, 3, fp=0, chars=chars, hands=[{}, {}, {}])
    pick(c, s, "broker")
    gained = 1 if bonus == "default" else 0
    assert s[E.S_COINS] == gained and s[E.S_C_ABIL] == gained and s[E.S_PHASE] == E.PH_CHAR


def _deck_of(s, cards):
    """Leave only the first `cards` deck cards in the deck; the rest go to the discard pile."""
    for i in range(s[E.S_DECKPOS] + cards, s[E.S_DECKLEN]):
        s[E.S_DISCARD + s[E.S_DECK + i]] += 1
    s[E.S_DECKLEN] = s[E.S_DECKPOS] + cards


def _reshuffle_cfg(when):
    """The default configuration (whose reading must be "when_empty") or the other reading."""
    return cfg_with(3) if when == "when_empty" else cfg_with(3, rules__reshuffle=f'"{when}"')


@pytest.mark.parametrize("when", ["when_empty", "at_next_draw"])
def test_reshuffle_the_moment_the_deck_runs_out(when):
    # DEFAULT (rules.reshuffle = "when_empty"), the rulebook: "If during a turn the produce card deck is
    # exhausted, shuffle all cards in the discard pile together to form a new deck"
    c = _reshuffle_cfg(when)
    s = setup(c, 3)
    _deck_of(s, 1)
    n = E.cards(s, E.S_DISCARD)
    E.draw_to(s, c.vector, E.S_HAND, 1)  # the last card leaves the deck
    E.check_invariants(s, c.vector)
    if when == "when_empty":
        assert s[E.S_RESHUF] == 1 and E.deck_left(s) == n and E.cards(s, E.S_DISCARD) == 0
    else:
        assert s[E.S_RESHUF] == 0 and E.deck_left(s) == 0 and E.cards(s, E.S_DISCARD) == n
        E.draw_to(s, c.vector, E.S_HAND, 1)
        assert s[E.S_RESHUF] == 1 and E.deck_left(s) == n - 1


@pytest.mark.parametrize("when", ["when_empty", "at_next_draw"])
def test_monsoon_triggers_on_the_turn_after_a_refill_empties_the_deck(when):
    # the refill after round 1 takes the last deck cards: under the rulebook's reading the discard is reshuffled
    # then, so the first turn of round 2 ends with Monsoon triggered
    c = _reshuffle_cfg(when)
    chars = ["advisor", "customer", "merchant", "beggar", "scholar"]
    s = setup(c, 3, fp=0, chars=chars, cond="monsoon", hands=[{}, {}, {}], market={})
    _deck_of(s, 4)
    for name in ("beggar", "merchant", "customer", "advisor"):  # empty hands and Market: no draws this round
        pick(c, s, name)
    assert s[E.S_ROUND] == 2 and E.cards(s, E.S_MARKET) == 4 and E.deck_left(s) == (0 if when == "at_next_draw" else 80)
    assert s[E.S_RESHUF] == (1 if when == "when_empty" else 0)
    pick(c, s, "beggar")
    pick(c, s, "customer")  # seat 1's turn ends
    assert s[E.S_FINAL] == (1 if when == "when_empty" else 0)
    if when == "when_empty":
        assert s[E.S_TRIG_SEAT] == 1
