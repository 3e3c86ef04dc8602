"""Setup of a round (rulebook bullets and rules page 'Setup of a round')."""
from collections import Counter

import numpy as np
import pytest

from mohur_helpers import COIN, E, K, deal, hand, make_cfg, market
from sim.rng import deal_seed

DEFAULT = make_cfg()
V = DEFAULT.vector
SEEDS = range(60)


def deck_cards(s, start=0, stop=None):
    stop = int(s[E.S_DECKLEN]) if stop is None else stop
    return [int(s[E.S_DECK + i]) for i in range(start, stop)]


@pytest.mark.parametrize("seed", SEEDS)
def test_deal(seed):
    s = deal(V, seed, starter=seed % 2)
    # the 3 setup coins are taken out before the shuffle; the deck holds the other 52 cards
    assert int(s[E.S_DECKLEN]) == 52
    full = Counter(deck_cards(s))
    assert full[COIN] == 11 - 3 and all(full[g] == V[E.CFG_CARDS + g] for g in range(6))
    # five cards each, dealt from the top; coins dealt go straight to the coffer (hand row index 6)
    for p in range(2):
        dealt = Counter(deck_cards(s, 5 * p, 5 * p + 5))
        assert hand(s, p) == [dealt[k] for k in range(7)]
        assert sum(hand(s, p)) == 5
    # market: the 3 setup coins plus exactly the 2 next cards = 5
    drawn = Counter(deck_cards(s, 10, 12))
    assert market(s) == [drawn[k] + (3 if k == COIN else 0) for k in range(7)]
    assert sum(market(s)) == 5 and market(s)[COIN] >= 3
    assert E.deck_left(s) == 55 - 3 - 10 - 2
    # stacks full and sorted high to low in what a trader sees
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    E.observe(s, V, 0, obs)
    for g in range(6):
        n = int(V[E.CFG_NTOK + g])
        assert obs[E.O_TOKREM + g] == n
        vals = list(obs[E.O_TOKV + g * E.MAX_TOK: E.O_TOKV + g * E.MAX_TOK + n])
        assert vals == sorted(vals, reverse=True) == sorted(list(V[E.CFG_TOK + g * E.MAX_TOK:
                                                                  E.CFG_TOK + g * E.MAX_TOK + n]), reverse=True)
    # bonus piles: the configured multiset, nothing drawn yet
    for b in range(3):
        nb = int(V[E.CFG_NBONUS + b])
        pile = sorted(int(x) for x in s[E.S_BONUS + b * E.MAX_BONUS: E.S_BONUS + b * E.MAX_BONUS + nb])
        assert pile == sorted(int(x) for x in V[E.CFG_BONUS + b * E.MAX_BONUS: E.CFG_BONUS + b * E.MAX_BONUS + nb])
        assert s[E.S_BPOS + b] == 0
    assert s[E.S_CUR] == s[E.S_STARTER] == seed % 2
    assert not E.round_over(s)
    E.check_invariants(s, V)


def piles(s):
    return tuple(tuple(int(x) for x in s[E.S_BONUS + b * E.MAX_BONUS: E.S_BONUS + b * E.MAX_BONUS
                                         + int(V[E.CFG_NBONUS + b])]) for b in range(3))


def test_bonus_piles_and_deck_shuffled_per_seed():
    states = [deal(V, seed) for seed in SEEDS]
    for b in range(3):
        orders = {piles(s)[b] for s in states}
        assert len(orders) >= 10, f"bonus pile {b} barely shuffled across seeds"
        tops = {o[0] for o in orders}
        assert tops == set(int(x) for x in V[E.CFG_BONUS + b * E.MAX_BONUS:
                                              E.CFG_BONUS + b * E.MAX_BONUS + int(V[E.CFG_NBONUS + b])])
    decks = {tuple(deck_cards(s)) for s in states}
    assert len(decks) == len(states)


def test_bonus_piles_reshuffled_every_round():
    """Each round of one match deals new, separately shuffled piles (and resets the round's state)."""
    K.seed_rng(np.uint32(5))
    s = E.new_state()
    seen = []
    for rnd in range(1, 30):
        s[E.S_ROUND] = rnd
        s[E.S_SEALS] = rnd % 2
        s[E.S_GSUM] = 99  # leftovers of the previous round must be cleared
        s[E.S_TOKPOS + 3] = 4
        s[E.S_BPOS] = 2
        E.deal_round(s, V, 0, deal_seed(np.uint32(5), 0, rnd))
        assert s[E.S_ROUND] == rnd and s[E.S_SEALS] == rnd % 2, "deal must keep seals and the round number"
        assert s[E.S_GSUM] == 0 and s[E.S_TOKPOS + 3] == 0 and s[E.S_BPOS] == 0
        seen.append(piles(s))
    for b in range(3):
        assert len({p[b] for p in seen}) >= 5
    # the three piles are shuffled separately: their permutations are not locked together
    perms = set()
    for p in seen:
        perms.add((p[1][0], p[2][0]))
    assert len(perms) >= 4


def test_market_coins_and_size_follow_configuration():
    cfg = make_cfg("rules.market_size=6", "rules.market_coins=1", "rules.hand_size=4", "cards.coin=5")
    v = cfg.vector
    for seed in range(20):
        s = deal(v, seed)
        assert sum(market(s)) == 6 and market(s)[COIN] >= 1
        assert sum(hand(s, 0)) == sum(hand(s, 1)) == 4
        assert int(s[E.S_DECKLEN]) == int(v[E.CFG_CARDS:E.CFG_CARDS + 7].sum()) - 1
        E.check_invariants(s, v)


def test_deal_stream_is_uniform():
    """The deal's own generator (sim.rng.below) is uniform: each value of [0, 7) within 3% of its share."""
    from sim.rng import below

    state = np.uint64(12345)
    counts = np.zeros(7, dtype=np.int64)
    for _ in range(70_000):
        state, r = below(np.uint64(state), 7)
        counts[r] += 1
    assert counts.min() > 0.97 * 10_000 and counts.max() < 1.03 * 10_000


def test_shuffled_deck_top_card_follows_the_card_counts():
    """Fisher-Yates over the deal stream: the first card dealt is each kind in proportion to its count in the
    shuffled deck (coins less the market's setup coins)."""
    n = 4000
    firsts = Counter()
    for seed in range(n):
        s = E.new_state()
        E.deal_round(s, V, 0, deal_seed(np.uint32(seed), seed, 1))
        firsts[int(s[E.S_DECK])] += 1
    counts = [int(V[E.CFG_CARDS + k]) for k in range(7)]
    counts[COIN] -= int(V[E.CFG_MARKET_COINS])
    total = sum(counts)
    for k in range(7):
        expected = n * counts[k] / total
        assert abs(firsts[k] - expected) < 4 * (expected * (1 - counts[k] / total)) ** 0.5 + 1, (k, firsts[k], expected)
