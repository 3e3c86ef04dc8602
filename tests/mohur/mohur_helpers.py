"""Helpers shared by the Mohur tests: configurations, hand-built and randomly reached states, an independent
brute-force enumeration of the legal actions straight from the rulebook, and effect-based action decoding
(what an action *does* to the state, so a test does not trust the engine's own row encoding)."""
from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np

from sim.config import build
from sim.mohur import engine as E, kernel as K
from sim.mohur.config import validate
from sim.registry import choices
from sim.rng import deal_seed
from sim.runner import Plan, lineups
from strategy_params import strategy_arrays

DIAMOND, GOLD, SILVER, CLOTH, SPICE, LEATHER, COIN = range(7)
PRECIOUS = (DIAMOND, GOLD, SILVER)


def make_cfg(*sets):
    """A validated Mohur config: the shipped defaults plus `key=value` overrides."""
    return validate(build("sim.mohur", None, tuple(sets)))


def actions_buffer(rows=None):
    """An action buffer, holding `rows` first when given."""
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    if rows is not None:
        buf[: len(rows)] = rows
    return buf


def observed(v, s, p=None):
    """What seat p (default: the seat to move) observes."""
    p = int(s[E.S_CUR]) if p is None else p
    obs = np.zeros(E.OBS_SIZE, np.int32)
    E.observe(s, v, p, obs)
    return obs


def legal_rows(s, v, p, buf=None):
    buf = actions_buffer() if buf is None else buf
    n = E.enumerate_actions(s, v, p, buf)
    return buf[:n].copy()


def hand(s, p):
    return [int(s[E.S_HAND + 7 * p + k]) for k in range(7)]


def market(s):
    return [int(s[E.S_MARKET + k]) for k in range(7)]


def goods(s, p):
    return sum(hand(s, p)[:6])


def build_state(v, *, market_cards=(0,) * 7, hands=((0,) * 7, (0,) * 7), deck=(), tokpos=(0,) * 6,
                bpos=(0, 0, 0), cur=0, starter=0):
    """A hand-built state. Bonus piles hold the configured values in configured order (unshuffled)."""
    s = E.new_state()
    for k in range(7):
        s[E.S_MARKET + k] = market_cards[k]
        for p in range(2):
            s[E.S_HAND + 7 * p + k] = hands[p][k]
    for i, kind in enumerate(deck):
        s[E.S_DECK + i] = kind
    s[E.S_DECKLEN] = len(deck)
    for g in range(6):
        s[E.S_TOKPOS + g] = tokpos[g]
        s[E.S_FIRST_SALE + g] = -1
    for b in range(3):
        for i in range(int(v[E.CFG_NBONUS + b])):
            s[E.S_BONUS + b * E.MAX_BONUS + i] = v[E.CFG_BONUS + b * E.MAX_BONUS + i]
        s[E.S_BPOS + b] = bpos[b]
    s[E.S_CUR] = cur
    s[E.S_STARTER] = starter
    s[E.S_ROUND] = 1
    return s


def deal(v, seed, starter=0):
    K.seed_rng(np.uint32(seed))
    s = E.new_state()
    s[E.S_ROUND] = 1
    E.deal_round(s, v, starter, deal_seed(np.uint32(seed), 0, 1))
    return s


def reach_state(v, seed, steps, take_bias=0.0):
    """Deal a round from `seed` and play up to `steps` random legal actions (a non-sale preferred with probability
    `take_bias`, to fill hands and coffers); returns the state (possibly over) and the number of actions played."""
    rng = random.Random(seed)
    s = deal(v, seed, starter=seed % 2)
    buf = actions_buffer()
    played = 0
    for _ in range(steps):
        if E.round_over(s):
            break
        p = int(s[E.S_CUR])
        n = E.enumerate_actions(s, v, p, buf)
        if n == 0:
            E.pass_turn(s, v)
            continue
        idx = list(range(n))
        if rng.random() < take_bias:
            takes = [i for i in idx if buf[i, E.A_TYPE] != E.T_SELL]
            idx = takes or idx
        E.play_row(s, v, p, buf, rng.choice(idx))
        played += 1
    return s, played


def plant_unknown_card(s, rng):
    """Same observation for the trader to move, other hidden state: a rival's card it does not know of swapped with
    a deck card of another kind, the deck shuffled; None when nothing can be swapped."""
    q = 1 - int(s[E.S_CUR])
    t = s.copy()
    free = [g for g in range(E.NG) if t[E.S_HAND + 7 * q + g] > t[E.S_KNOWN + 6 * q + g]]
    lo, hi = int(E.S_DECK + t[E.S_DECKPOS]), int(E.S_DECK + t[E.S_DECKLEN])
    spots = [i for i in range(lo, hi) if free and t[i] < E.NG and t[i] != free[0]]
    if not spots:
        return None
    g, i = free[0], spots[0]
    t[E.S_HAND + 7 * q + g] -= 1
    t[E.S_HAND + 7 * q + t[i]] += 1
    t[i] = g
    deck = list(t[lo:hi])
    rng.shuffle(deck)
    t[lo:hi] = deck
    return t


def plant_hidden(s, v, rng):
    """`plant_unknown_card`, and the bonus piles reshuffled and the hidden bonus rupees changed too."""
    t = plant_unknown_card(s, rng)
    if t is None:
        return None
    p = int(s[E.S_CUR])
    for b in range(3):
        base, start, nb = E.S_BONUS + b * E.MAX_BONUS, int(t[E.S_BPOS + b]), int(v[E.CFG_NBONUS + b])
        rest = list(t[base + start: base + nb])
        rng.shuffle(rest)
        t[base + start: base + nb] = rest
    t[E.S_BSUM + 1 - p] += 3
    t[E.S_BSUM + p] += 1
    return t


def drawn_cards(before, after):
    """Counts per kind of the cards drawn from the deck between two states."""
    out = [0] * 7
    for i in range(int(before[E.S_DECKPOS]), int(after[E.S_DECKPOS])):
        out[int(before[E.S_DECK + i])] += 1
    return out


def effect(s, v, p, rows, i):
    """Apply row i to a copy; return (after_state, hand delta per kind, market delta before refill, sold)."""
    after = s.copy()
    buf = actions_buffer(rows)
    E.play_row(after, v, p, buf, i)
    hd = [a - b for a, b in zip(hand(after, p), hand(s, p))]
    drawn = drawn_cards(s, after)
    md = [market(after)[k] - market(s)[k] - drawn[k] for k in range(7)]
    sold = [int(after[E.S_SOLD + k] - s[E.S_SOLD + k]) for k in range(7)]
    return after, hd, md, sold


def brute_force(s, v, p):
    """Every legal action of seat p as its hand delta, straight from the rules page: sell one kind (n >= min_sale);
    take one good; take all coins; exchange k >= max(2, min_exchange) goods for k cards of other kinds."""
    h = hand(s, p)
    m = market(s)
    limit = int(v[E.CFG_HAND_LIMIT])
    min_ex = max(2, int(v[E.CFG_MIN_EXCHANGE]))
    held = sum(h[:6])
    out = Counter()
    for g in range(6):
        for c in range(max(1, int(v[E.CFG_MIN_SALE + g])), h[g] + 1):
            d = [0] * 7
            d[g] = -c
            out[tuple(d)] += 1
    for g in range(6):
        if m[g] > 0 and held + 1 <= limit:
            d = [0] * 7
            d[g] = 1
            out[tuple(d)] += 1
    if m[COIN] > 0:
        d = [0] * 7
        d[COIN] = m[COIN]
        out[tuple(d)] += 1
    for take in itertools.product(*(range(m[g] + 1) for g in range(6))):
        k = sum(take)
        if k < min_ex:
            continue
        ranges = [range(1) if take[g] else range(min(h[g], k) + 1) for g in range(6)]
        ranges.append(range(min(h[COIN], k) + 1))
        for give in itertools.product(*ranges):
            if sum(give) != k:
                continue
            if held + k - sum(give[:6]) > limit:
                continue
            d = [take[g] - give[g] for g in range(6)] + [-give[COIN]]
            out[tuple(d)] += 1
    return out


def play_batch(cfg, names, n, seed, debug=False, batch_start=0):
    """Run the kernel on n matches with seats rotated like the runner does (pairs both ways round)."""
    chosen = choices("mohur", cfg.presets, list(names))
    plan = Plan("mohur", 2, n, seed, tuple(chosen), n, round_robin=len(names) > 2)
    lu = lineups(plan, batch_start, batch_start + n)
    base, params = strategy_arrays("mohur", cfg.presets, names)
    out = K.run_batch(cfg, 2, lu, base, params, seed, debug)
    return lu, out["games"], out["rounds"]
