"""Mohur forward model as pure functions over small integer arrays (numba, no object mode).

Kinds: 0 diamond, 1 gold, 2 silver, 3 cloth, 4 spice, 5 leather, 6 coin. A trader's hand row holds the goods
in 0..5 and the coffer in 6, so dealing a coin "moves it straight to the coffer" by construction.
Configuration arrives as one int64 vector `cfg` (see CFG_* offsets, built by sim.mohur.config); the whole
game state is one int32 vector `s`, so copying a state (for search) is one `s.copy()`.
"""
import numpy as np
from numba import njit

from sim.rng import below

NG = 6          # goods kinds
NK = 7          # goods + coin
COIN = 6
MAX_TOK = 16    # longest goods token stack
MAX_BONUS = 16  # longest bonus pile
NPILES = 3      # bonus piles for sales of 3, 4, 5+
MAX_DECK = 512
MAX_ACTIONS = 4096
ACOLS = 17

# --- configuration vector offsets ---
CFG_CARDS = 0                      # 7 card counts
CFG_MINSALE = 7                    # 6
CFG_NTOK = 13                      # 6
CFG_TOK = 19                       # 6 x MAX_TOK
CFG_NBONUS = CFG_TOK + NG * MAX_TOK          # 3
CFG_BONUS = CFG_NBONUS + NPILES              # 3 x MAX_BONUS
CFG_HAND_LIMIT = CFG_BONUS + NPILES * MAX_BONUS
CFG_MARKET_SIZE = CFG_HAND_LIMIT + 1
CFG_HAND_SIZE = CFG_HAND_LIMIT + 2
CFG_MARKET_COINS = CFG_HAND_LIMIT + 3
CFG_COIN_TOKEN = CFG_HAND_LIMIT + 4
CFG_SEALS = CFG_HAND_LIMIT + 5
CFG_STACKS_END = CFG_HAND_LIMIT + 6
CFG_MIN_EXCHANGE = CFG_HAND_LIMIT + 7
CFG_FIRST_STARTER = CFG_HAND_LIMIT + 8     # -1 random, else seat
CFG_DRAWN_OTHER = CFG_HAND_LIMIT + 9       # 1: the non-starter starts after a drawn round
CFG_TURN_CAP = CFG_HAND_LIMIT + 10
CFG_STALL = CFG_HAND_LIMIT + 11
CFG_ROUND_CAP = CFG_HAND_LIMIT + 12
CFG_PILE_MEAN = CFG_HAND_LIMIT + 13        # 3: mean of each bonus pile x100 (derived, public knowledge)
CFG_SIZE = CFG_PILE_MEAN + NPILES

# --- state vector offsets ---
S_MARKET = 0                # 7
S_HAND = 7                  # 2 x 7 (coins at index 6 = coffer)
S_TOKPOS = 21               # 6: tokens already taken from each stack
S_BPOS = 27                 # 3: bonus tokens drawn from each pile (public count)
S_DECKPOS = 30
S_DECKLEN = 31
S_GSUM = 32                 # 2: goods-token rupees per seat
S_GCNT = 34                 # 2: goods tokens per seat
S_BSUM = 36                 # 2: bonus rupees per seat (hidden until scoring)
S_BCNT = 38                 # 2: bonus tokens per seat (public)
S_CUR = 40
S_TURN = 41
S_PASSES = 42
S_END = 43                  # 0 running, else END_* reason
S_STARTER = 44
S_TAKEN = 45                # 2 x 6: goods-token rupees per seat per good
S_KNOWN = 57                # 2 x 6: cards the rival knows are in this seat's hand (taken from the market)
S_FIRSTSALE = 69            # 6: rupees of the first sale of each good (-1: none yet)
S_SALES = 75                # 5: sales by size 1..5+
S_PSUM = 80                 # 3: bonus rupees drawn per pile
S_DECISIONS = 83            # turns with more than one legal action
S_SEALS = 84                # 2
S_ROUND = 86
S_SOLD = 87                 # 7: cards sold (discarded) per kind
S_BONUS = 94                # 3 x MAX_BONUS: shuffled piles
S_DECK = S_BONUS + NPILES * MAX_BONUS
S_TCNT = S_DECK + MAX_DECK  # 2 x 6: goods tokens per seat per good (results only: what decides a round)
STATE_SIZE = S_TCNT + 2 * NG

END_RUNNING, END_STACKS, END_DECK, END_STALLED, END_TURN_CAP = 0, 1, 2, 3, 4
END_NAMES = ("running", "stacks", "deck", "stalled", "turn_cap")

# --- actions: one row of ACOLS int32 ---
A_TYPE, A_GOOD, A_COUNT, A_TAKE, A_GIVE = 0, 1, 2, 3, 10
T_TAKE_GOOD, T_TAKE_COINS, T_EXCHANGE, T_SELL = 0, 1, 2, 3
TYPE_NAMES = ("take_good", "take_coins", "exchange", "sell")

# --- observation offsets (what the trader to move may know) ---
O_HAND = 0          # 7: own goods and coffer
O_MARKET = 7        # 7
O_OPP_HAND = 14     # rival's number of goods
O_OPP_COINS = 15
O_DECK = 16
O_TOKREM = 17       # 6: tokens left per stack
O_TOKV = 23         # 6 x MAX_TOK: values left, top first (0 past the end)
O_MY_GSUM = O_TOKV + NG * MAX_TOK
O_OPP_GSUM = O_MY_GSUM + 1
O_MY_BCNT = O_MY_GSUM + 2
O_OPP_BCNT = O_MY_GSUM + 3
O_MY_GCNT = O_MY_GSUM + 4
O_OPP_GCNT = O_MY_GSUM + 5
O_PILE_LEFT = O_MY_GSUM + 6     # 3
O_PILE_MEAN = O_PILE_LEFT + 3   # 3: mean value of each pile's full contents x100 (draws stay hidden)
O_OPP_KNOWN = O_PILE_MEAN + 3   # 6
O_MY_KNOWN = O_OPP_KNOWN + 6    # 6: what the rival knows of my hand
O_MINSALE = O_MY_KNOWN + 6      # 6
O_HAND_LIMIT = O_MINSALE + 6
O_SEAT = O_HAND_LIMIT + 1
O_EMPTY = O_HAND_LIMIT + 2
O_STACKS_END = O_HAND_LIMIT + 3
O_TURN = O_HAND_LIMIT + 4
O_MY_SEALS = O_HAND_LIMIT + 5
O_OPP_SEALS = O_HAND_LIMIT + 6
O_COIN_TOKEN = O_HAND_LIMIT + 7
O_ROUND = O_HAND_LIMIT + 8
O_MARKET_SIZE = O_HAND_LIMIT + 9
O_MIN_EXCHANGE = O_HAND_LIMIT + 10
O_SEALS_TO_WIN = O_HAND_LIMIT + 11
# appended for search players (public facts needed to rebuild a consistent state); never reorder the above
O_SOLD = O_HAND_LIMIT + 12      # 7: cards sold (discarded) per kind this round
O_STARTER = O_SOLD + NK         # seat that started this round
O_PASSES = O_STARTER + 1        # consecutive passes just before this turn
OBS_SIZE = O_PASSES + 1


# HOT_NO_NRT: the two functions called every turn that take arrays and allocate none are compiled without
# numba's reference counting (`_nrt=False`). numba increfs array arguments on entry and its pruning pass gives
# up on functions this size, so each call cost 6 atomic operations: 7% of a greedy match, measured with perf.
# Without NRT they cannot allocate arrays (numba refuses to compile one that tries), which they do not need.


@njit(cache=True)
def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int32)


@njit(cache=True)
def goods_in_hand(s, p):
    n = 0
    for g in range(NG):
        n += s[S_HAND + 7 * p + g]
    return n


@njit(cache=True)
def market_total(s):
    n = 0
    for k in range(NK):
        n += s[S_MARKET + k]
    return n


@njit(cache=True)
def deck_left(s):
    return s[S_DECKLEN] - s[S_DECKPOS]


@njit(cache=True)
def _draw(s):
    kind = s[S_DECK + s[S_DECKPOS]]
    s[S_DECKPOS] += 1
    return kind


@njit(cache=True)
def refill_market(s, cfg):
    while market_total(s) < cfg[CFG_MARKET_SIZE] and deck_left(s) > 0:
        s[S_MARKET + _draw(s)] += 1


@njit(cache=True)
def deal_round(s, cfg, starter, seed):
    """Reset the round (seals and round number are kept) and deal it: rulebook setup, in its order.
    Shuffles draw from the deal's own stream, started at `seed` (sim.rng.deal_seed), not from np.random."""
    x = np.uint64(seed)
    seals0, seals1, rnd = s[S_SEALS], s[S_SEALS + 1], s[S_ROUND]
    s[:] = 0
    s[S_SEALS], s[S_SEALS + 1], s[S_ROUND] = seals0, seals1, rnd
    n = 0
    for k in range(NK):
        count = cfg[CFG_CARDS + k]
        if k == COIN:
            count -= cfg[CFG_MARKET_COINS]  # the setup coins go face up, the rest are shuffled
        for _ in range(count):
            s[S_DECK + n] = k
            n += 1
    s[S_DECKLEN] = n
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        x, j = below(x, i + 1)
        s[S_DECK + i], s[S_DECK + j] = s[S_DECK + j], s[S_DECK + i]
    for p in range(2):
        for _ in range(cfg[CFG_HAND_SIZE]):
            s[S_HAND + 7 * p + _draw(s)] += 1
    s[S_MARKET + COIN] = cfg[CFG_MARKET_COINS]
    refill_market(s, cfg)
    for b in range(NPILES):
        nb = cfg[CFG_NBONUS + b]
        for i in range(nb):
            s[S_BONUS + b * MAX_BONUS + i] = cfg[CFG_BONUS + b * MAX_BONUS + i]
        for i in range(nb - 1, 0, -1):
            x, j = below(x, i + 1)
            a, c = S_BONUS + b * MAX_BONUS + i, S_BONUS + b * MAX_BONUS + j
            s[a], s[c] = s[c], s[a]
    for g in range(NG):
        s[S_FIRSTSALE + g] = -1
    s[S_STARTER] = starter
    s[S_CUR] = starter


@njit(cache=True)
def _too_many():
    raise ValueError("more legal actions than MAX_ACTIONS; lower market_size or hand_limit")


@njit(cache=True)
def _simple_row(actions, n, typ, good, count):
    # no capacity check here (the caller checks once): a function that can raise keeps numba from pruning
    # the reference counts on `actions`, two atomic operations per row
    actions[n, A_TYPE] = typ
    actions[n, A_GOOD] = good
    actions[n, A_COUNT] = count
    for c in range(A_TAKE, ACOLS):
        actions[n, c] = 0
    return n + 1


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def legal_actions(s, cfg, p, actions):
    """Fill `actions` with every legal action of seat p; return how many. Order: sells, takes, coins,
    exchanges (by take vector, then gives in left-heavy order). The last two rows of `actions` are scratch."""
    n = 0
    h = S_HAND + 7 * p
    hand_goods = 0
    for g in range(NG):
        hand_goods += s[h + g]
    limit = cfg[CFG_HAND_LIMIT]
    if hand_goods + NG + 1 >= MAX_ACTIONS - 2:
        _too_many()
    for g in range(NG):  # at most hand_goods sells, NG takes and one coin take: within the check above
        for c in range(max(1, cfg[CFG_MINSALE + g]), s[h + g] + 1):
            n = _simple_row(actions, n, T_SELL, g, c)
    if hand_goods < limit:
        for g in range(NG):
            if s[S_MARKET + g] > 0:
                n = _simple_row(actions, n, T_TAKE_GOOD, g, 1)
                actions[n - 1, A_TAKE + g] = 1
    coins = s[S_MARKET + COIN]
    if coins > 0:
        n = _simple_row(actions, n, T_TAKE_COINS, COIN, coins)
        actions[n - 1, A_TAKE + COIN] = coins
    # exchanges: take k >= min_exchange goods, return k cards (goods of kinds not taken, or coins).
    # Scratch in the last two rows (2-D indexing only: a row view costs two atomic reference counts):
    # row SC holds the take vector [0:6] and the give vector [6:13]; row SB the bounds [0:7].
    SC = MAX_ACTIONS - 1
    SB = MAX_ACTIONS - 2
    for c in range(ACOLS):
        actions[SC, c] = 0
    min_ex = cfg[CFG_MIN_EXCHANGE]
    coin_bound_all = min(s[h + COIN], limit - hand_goods)
    k = 0
    while True:
        j = 0
        while j < NG:  # mixed-radix increment over the market's goods, keeping the total k
            if actions[SC, j] < s[S_MARKET + j]:
                actions[SC, j] += 1
                k += 1
                break
            k -= actions[SC, j]
            actions[SC, j] = 0
            j += 1
        if j == NG:
            break
        if k < min_ex:
            continue
        room = 0
        for g in range(NG):
            b = 0 if actions[SC, g] > 0 else min(s[h + g], k)
            actions[SB, g] = b
            room += b
        b = max(0, min(coin_bound_all, k))  # goods in hand afterwards = hand_goods + coins given
        actions[SB, COIN] = b
        room += b
        if room < k:
            continue
        left = k
        for i in range(NK):  # first composition: fill from the left
            v = min(actions[SB, i], left)
            actions[SC, NG + i] = v
            left -= v
        while True:
            if n >= MAX_ACTIONS - 2:
                _too_many()
            actions[n, A_TYPE] = T_EXCHANGE
            actions[n, A_GOOD] = -1
            actions[n, A_COUNT] = k
            for g in range(NG):
                actions[n, A_TAKE + g] = actions[SC, g]
            actions[n, A_TAKE + COIN] = 0
            for i in range(NK):
                actions[n, A_GIVE + i] = actions[SC, NG + i]
            n += 1
            # next composition (left-heavy order): move one unit from the rightmost movable entry rightward
            right = 0
            spare = 0
            i = NK - 1
            while i >= 0:
                v = actions[SC, NG + i]
                if i < NK - 1 and v > 0 and spare > right:
                    actions[SC, NG + i] = v - 1
                    left = right + 1
                    for j2 in range(i + 1, NK):
                        w = min(actions[SB, j2], left)
                        actions[SC, NG + j2] = w
                        left -= w
                    break
                right += v
                spare += actions[SB, i]
                i -= 1
            if i < 0:
                break
    return n


@njit(cache=True)
def empty_stacks(s, cfg):
    e = 0
    for g in range(NG):
        if s[S_TOKPOS + g] >= cfg[CFG_NTOK + g]:
            e += 1
    return e


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def apply_action(s, cfg, p, actions, a):
    """Apply row `a` of `actions` for seat p, refill after a take, advance the turn, check the round end."""
    h = S_HAND + 7 * p
    typ = actions[a, A_TYPE]
    if typ == T_SELL:
        g, c = actions[a, A_GOOD], actions[a, A_COUNT]
        s[h + g] -= c
        s[S_SOLD + g] += c
        known = S_KNOWN + 6 * p + g
        s[known] = max(0, s[known] - c)
        gained = 0
        for _ in range(c):
            pos = s[S_TOKPOS + g]
            if pos >= cfg[CFG_NTOK + g]:
                break  # a short stack: take what remains, the sale still counts for the bonus
            v = cfg[CFG_TOK + g * MAX_TOK + pos]
            s[S_TOKPOS + g] += 1
            s[S_GSUM + p] += v
            s[S_GCNT + p] += 1
            s[S_TAKEN + 6 * p + g] += v
            s[S_TCNT + 6 * p + g] += 1
            gained += v
        if s[S_FIRSTSALE + g] < 0:
            s[S_FIRSTSALE + g] = gained
        s[S_SALES + min(c, 5) - 1] += 1
        if c >= 3:
            pile = min(c, 5) - 3
            pos = s[S_BPOS + pile]
            if pos < cfg[CFG_NBONUS + pile]:  # an empty pile gives nothing
                v = s[S_BONUS + pile * MAX_BONUS + pos]
                s[S_BPOS + pile] += 1
                s[S_BSUM + p] += v
                s[S_BCNT + p] += 1
                s[S_PSUM + pile] += v
    else:
        for k in range(NK):
            t = actions[a, A_TAKE + k]
            g = actions[a, A_GIVE + k]
            s[S_MARKET + k] += g - t
            s[h + k] += t - g
            if k < NG:
                known = S_KNOWN + 6 * p + k
                s[known] = max(0, s[known] - g) + t
        refill_market(s, cfg)
    s[S_TURN] += 1
    s[S_CUR] = 1 - p
    s[S_PASSES] = 0
    if empty_stacks(s, cfg) >= cfg[CFG_STACKS_END]:
        s[S_END] = END_STACKS
    elif deck_left(s) <= 0:
        s[S_END] = END_DECK


@njit(cache=True)
def pass_turn(s, cfg):
    """A trader with no legal action passes (rules page safety rule)."""
    s[S_PASSES] += 1
    s[S_TURN] += 1
    s[S_CUR] = 1 - s[S_CUR]
    if s[S_PASSES] >= cfg[CFG_STALL]:
        s[S_END] = END_STALLED


@njit(cache=True)
def is_over(s):
    return s[S_END] != END_RUNNING


@njit(cache=True)
def score_round(s, cfg, out):
    """Round scoring. out <- [rupees0, rupees1, coin_holder(-1 none), winner(-1 drawn), tie_break]
    tie_break: 0 rupees decided it, 1 bonus-token count, 2 goods-token count, 3 drawn."""
    c0, c1 = s[S_HAND + COIN], s[S_HAND + 7 + COIN]
    holder = -1
    if c0 > c1:
        holder = 0
    elif c1 > c0:
        holder = 1
    r0 = s[S_GSUM] + s[S_BSUM]
    r1 = s[S_GSUM + 1] + s[S_BSUM + 1]
    if holder == 0:
        r0 += cfg[CFG_COIN_TOKEN]
    elif holder == 1:
        r1 += cfg[CFG_COIN_TOKEN]
    winner, tie = -1, 3
    if r0 != r1:
        winner, tie = (0 if r0 > r1 else 1), 0
    elif s[S_BCNT] != s[S_BCNT + 1]:
        winner, tie = (0 if s[S_BCNT] > s[S_BCNT + 1] else 1), 1
    elif s[S_GCNT] != s[S_GCNT + 1]:
        winner, tie = (0 if s[S_GCNT] > s[S_GCNT + 1] else 1), 2
    out[0], out[1], out[2], out[3], out[4] = r0, r1, holder, winner, tie


@njit(cache=True)
def next_starter(cfg, starter, winner):
    """The loser of a round leads the next; after a drawn round, by configuration."""
    if winner >= 0:
        return 1 - winner
    return 1 - starter if cfg[CFG_DRAWN_OTHER] == 1 else starter


@njit(cache=True)
def observe(s, cfg, p, obs):
    """What seat p may know: own hand, the public table, counts, and tracked knowledge of the rival.
    `obs` is a zeroed buffer or one this function filled before for the same `cfg`: a token stack whose
    count left is unchanged is not rewritten (half the cost of a call). Strategies must not write to it."""
    q = 1 - p
    for k in range(NK):
        obs[O_HAND + k] = s[S_HAND + 7 * p + k]
        obs[O_MARKET + k] = s[S_MARKET + k]
    obs[O_OPP_HAND] = goods_in_hand(s, q)
    obs[O_OPP_COINS] = s[S_HAND + 7 * q + COIN]
    obs[O_DECK] = deck_left(s)
    for g in range(NG):
        pos = s[S_TOKPOS + g]
        nt = cfg[CFG_NTOK + g]
        left = max(0, nt - pos)
        obs[O_OPP_KNOWN + g] = s[S_KNOWN + 6 * q + g]
        obs[O_MY_KNOWN + g] = s[S_KNOWN + 6 * p + g]
        obs[O_MINSALE + g] = cfg[CFG_MINSALE + g]
        if obs[O_TOKREM + g] == left and (left == 0 or obs[O_TOKV + g * MAX_TOK] == cfg[CFG_TOK + g * MAX_TOK + pos]):
            continue  # this stack's values are already in the buffer (stacks only change on a sale)
        obs[O_TOKREM + g] = left
        # values left, top first, then zeros up to the stack's full length; entries past it are never
        # written, so they stay 0 from the zeroed allocation (every observation is np.zeros; a hot-loop saving)
        for i in range(left):
            obs[O_TOKV + g * MAX_TOK + i] = cfg[CFG_TOK + g * MAX_TOK + pos + i]
        for i in range(left, nt):
            obs[O_TOKV + g * MAX_TOK + i] = 0
    obs[O_MY_GSUM], obs[O_OPP_GSUM] = s[S_GSUM + p], s[S_GSUM + q]
    obs[O_MY_BCNT], obs[O_OPP_BCNT] = s[S_BCNT + p], s[S_BCNT + q]
    obs[O_MY_GCNT], obs[O_OPP_GCNT] = s[S_GCNT + p], s[S_GCNT + q]
    for b in range(NPILES):
        nb = cfg[CFG_NBONUS + b]
        obs[O_PILE_LEFT + b] = nb - s[S_BPOS + b]
        obs[O_PILE_MEAN + b] = cfg[CFG_PILE_MEAN + b]
    obs[O_HAND_LIMIT] = cfg[CFG_HAND_LIMIT]
    obs[O_SEAT] = p
    obs[O_EMPTY] = empty_stacks(s, cfg)
    obs[O_STACKS_END] = cfg[CFG_STACKS_END]
    obs[O_TURN] = s[S_TURN]
    obs[O_MY_SEALS], obs[O_OPP_SEALS] = s[S_SEALS + p], s[S_SEALS + q]
    obs[O_COIN_TOKEN] = cfg[CFG_COIN_TOKEN]
    obs[O_ROUND] = s[S_ROUND]
    obs[O_MARKET_SIZE] = cfg[CFG_MARKET_SIZE]
    obs[O_MIN_EXCHANGE] = cfg[CFG_MIN_EXCHANGE]
    obs[O_SEALS_TO_WIN] = cfg[CFG_SEALS]
    for k in range(NK):
        obs[O_SOLD + k] = s[S_SOLD + k]
    obs[O_STARTER] = s[S_STARTER]
    obs[O_PASSES] = s[S_PASSES]


@njit(cache=True)
def check_invariants(s, cfg):
    """Debug mode: cards and tokens conserved, hand limit, market size, stacks sorted."""
    for k in range(NK):
        in_deck = 0
        for i in range(s[S_DECKPOS], s[S_DECKLEN]):
            if s[S_DECK + i] == k:
                in_deck += 1
        total = s[S_MARKET + k] + s[S_HAND + k] + s[S_HAND + 7 + k] + in_deck + s[S_SOLD + k]
        if total != cfg[CFG_CARDS + k]:
            raise AssertionError("invariant: cards of a kind not conserved")
        if s[S_MARKET + k] < 0 or s[S_HAND + k] < 0 or s[S_HAND + 7 + k] < 0:
            raise AssertionError("invariant: negative card count")
    for p in range(2):
        if goods_in_hand(s, p) > cfg[CFG_HAND_LIMIT]:
            raise AssertionError("invariant: hand over the limit")
    if market_total(s) > cfg[CFG_MARKET_SIZE]:
        raise AssertionError("invariant: market over its size")
    taken_total = 0
    for g in range(NG):
        nt = cfg[CFG_NTOK + g]
        if s[S_TOKPOS + g] > nt:
            raise AssertionError("invariant: more tokens taken than the stack held")
        for i in range(1, nt):
            if cfg[CFG_TOK + g * MAX_TOK + i] > cfg[CFG_TOK + g * MAX_TOK + i - 1]:
                raise AssertionError("invariant: stack not sorted high to low")
        taken = 0
        for i in range(s[S_TOKPOS + g]):
            taken += cfg[CFG_TOK + g * MAX_TOK + i]
        if taken != s[S_TAKEN + g] + s[S_TAKEN + 6 + g]:
            raise AssertionError("invariant: token rupees not conserved")
        taken_total += s[S_TOKPOS + g]
    if taken_total != s[S_GCNT] + s[S_GCNT + 1]:
        raise AssertionError("invariant: goods token count not conserved")
    drawn = 0
    for b in range(NPILES):
        drawn += s[S_BPOS + b]
    if drawn != s[S_BCNT] + s[S_BCNT + 1]:
        raise AssertionError("invariant: bonus token count not conserved")
