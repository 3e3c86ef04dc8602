"""Mohur forward model as pure functions over small integer arrays (numba, no object mode), behind the engine
interface of sim.interface: a whole match (best of `seals_to_win` rounds) is one state, and `apply_action` takes
every automatic step (refill, scoring a finished round, dealing the next one, the end of the match).

Kinds: 0 diamond, 1 gold, 2 silver, 3 cloth, 4 spice, 5 leather, 6 coin. A trader's hand row holds the goods
in 0..5 and the coffer in 6, so dealing a coin "moves it straight to the coffer" by construction.
Configuration arrives as one int64 vector `cfg` (CFG, built by sim.mohur.config); the whole match state is one
int32 vector `s` (STATE), so copying a state (for search) is one `s.copy()`.
Chance: numba's generator is seeded once per match (from (batch seed, match, 0)) and draws the first starter
(the strategies draw their tie-breaks from it after that); every round is dealt from its own splitmix stream
seeded from (batch seed, match, round) (sim.rng), whatever happened before it.
"""
import itertools

import numpy as np
from sim.jit import njit

from sim.interface import Layout, codes
from sim.rng import below, deal_seed, game_seed

GOODS = ("diamond", "gold", "silver", "cloth", "spice", "leather")
KINDS = GOODS + ("coin",)
PILES = ("3", "4", "5")  # bonus piles for sales of 3, 4, 5+
SEATS = ("0", "1")
NG = len(GOODS)
NK = len(KINDS)
COIN = KINDS.index("coin")
NPILES = len(PILES)
NSIZES = 5          # sales counted by size 1..5+
MAX_TOK = 16        # longest goods token stack
MAX_BONUS = 16      # longest bonus pile
MAX_DECK = 512
MAX_ROUNDS = 64     # the largest rules.round_cap: the state keeps one history row per round played
MAX_ACTIONS = 4096

CFG = Layout("mohur cfg", [
    ("cards", NK), ("min_sale", NG), ("ntok", NG), ("tok", (NG, MAX_TOK)), ("nbonus", NPILES),
    ("bonus", (NPILES, MAX_BONUS)), ("hand_limit", 1), ("market_size", 1), ("hand_size", 1), ("market_coins", 1),
    ("coin_token", 1), ("seals", 1), ("stacks_end", 1), ("min_exchange", 1),
    ("first_starter", 1),   # -1 random, else seat
    ("drawn_other", 1),     # 1: the non-starter starts after a drawn round
    ("turn_cap", 1), ("stall", 1), ("round_cap", 1),
    ("pile_mean", NPILES),  # mean of each bonus pile x100 (derived, public knowledge)
])
(CFG_CARDS, CFG_MINSALE, CFG_NTOK, CFG_TOK, CFG_NBONUS, CFG_BONUS, CFG_HAND_LIMIT, CFG_MARKET_SIZE, CFG_HAND_SIZE,
 CFG_MARKET_COINS, CFG_COIN_TOKEN, CFG_SEALS, CFG_STACKS_END, CFG_MIN_EXCHANGE, CFG_FIRST_STARTER, CFG_DRAWN_OTHER,
 CFG_TURN_CAP, CFG_STALL, CFG_ROUND_CAP, CFG_PILE_MEAN) = (CFG.offset(f) for f in CFG.fields)
CFG_SIZE = CFG.size

# One round's figures, kept in the state's history when the round is scored (the rounds table's columns, after
# `match`, in this order). Per-field labels name the columns: `rupees_0`, `taken_gold_1`, `bonus_pile4_count`.
ROUND_RECORD = [
    ("round", ()), ("starter", ()), ("winner", ()), ("end_reason", ()), ("turns", ()), ("decisions", ()),
    ("rupees", (SEATS,)), ("goods_tokens", (SEATS,)), ("goods_rupees", (SEATS,)), ("bonus_tokens", (SEATS,)),
    ("bonus_rupees", (SEATS,)), ("coin_token", ()), ("coins", (SEATS,)), ("tie_break", ()),
    ("taken", (GOODS, SEATS)), ("first_sale", (GOODS,)), ("left", (GOODS,)),
    ("sales_size", (tuple(str(i) for i in range(1, NSIZES + 1)),)),
    ("bonus_pile{}_count", (PILES,)), ("bonus_pile{}_rupees", (PILES,)), ("tokens", (GOODS, SEATS)),
]
HIST = Layout("mohur round record", [(f, tuple(len(d) for d in dims) or 1) for f, dims in ROUND_RECORD])


def round_columns() -> list[str]:
    """The round record's column names, in HIST's order."""
    names = [field.format(*labels) if "{}" in field else "_".join((field,) + labels)
             for field, dims in ROUND_RECORD for labels in itertools.product(*dims)]
    assert len(names) == HIST.size
    return names


(H_ROUND, H_STARTER, H_WINNER, H_END, H_TURNS, H_DECISIONS, H_RUPEES, H_GCNT, H_GSUM, H_BCNT, H_BSUM, H_COIN_TOKEN,
 H_COINS, H_TIE, H_TAKEN, H_FIRST, H_LEFT, H_SALES, H_PCNT, H_PSUM, H_TCNT) = (HIST.offset(f) for f in HIST.fields)
HIST_SIZE = HIST.size

# The state: the round's part first (zeroed by every deal), then the match's part (kept across rounds).
STATE = Layout("mohur state", [
    ("market", NK), ("hand", (2, NK)),  # hand[p][COIN] is the coffer
    ("tokpos", NG),                     # tokens already taken from each stack
    ("bpos", NPILES),                   # bonus tokens drawn from each pile (public count)
    ("deckpos", 1), ("decklen", 1),
    ("gsum", 2),                        # goods-token rupees per seat
    ("gcnt", 2),                        # goods tokens per seat
    ("bsum", 2),                        # bonus rupees per seat (hidden until scoring)
    ("bcnt", 2),                        # bonus tokens per seat (public)
    ("cur", 1), ("turn", 1), ("passes", 1),
    ("end", 1),                         # 0 running, else the round's END reason
    ("starter", 1),
    ("taken", (2, NG)),                 # goods-token rupees per seat per good
    ("known", (2, NG)),                 # cards the rival knows are in this seat's hand (taken from the market)
    ("first_sale", NG),                 # rupees of the first sale of each good (-1: none yet)
    ("sales", NSIZES),                  # sales by size 1..5+
    ("psum", NPILES),                   # bonus rupees drawn per pile
    ("decisions", 1),                   # turns with more than one legal action
    ("sold", NK),                       # cards sold (discarded) per kind
    ("bonus", (NPILES, MAX_BONUS)),     # shuffled piles
    ("deck", MAX_DECK),
    ("tcnt", (2, NG)),                  # goods tokens per seat per good (results only: what decides a round)
    ("nlegal", 1),                      # legal actions last listed (apply_action counts a decision when > 1)
    ("counted", 1),                     # how many of them are exchanges counted, not written (EX_COUNTED)
    # --- the match (kept by deal_round) ---
    ("seals", 2), ("round", 1),
    ("seed", 2),                        # the batch seed's low and high 16 bits: the next rounds' deal streams
    ("game", 1),                        # the match's index in its batch
    ("over", 1), ("winner", 1),         # the match is over; its winner (-1: none, stopped by the round cap)
    ("round_only", 1),                  # 1: the match ends with this round (search players value one round)
    ("on_demand", 2),                   # how this seat's strategy is handed the exchanges: an EX_* code
    ("history", (MAX_ROUNDS, HIST_SIZE)),
])
(S_MARKET, S_HAND, S_TOKPOS, S_BPOS, S_DECKPOS, S_DECKLEN, S_GSUM, S_GCNT, S_BSUM, S_BCNT, S_CUR, S_TURN,
 S_PASSES, S_END, S_STARTER, S_TAKEN, S_KNOWN, S_FIRSTSALE, S_SALES, S_PSUM, S_DECISIONS, S_SOLD, S_BONUS,
 S_DECK, S_TCNT, S_NLEGAL, S_COUNTED, S_SEALS, S_ROUND, S_SEED, S_GAME, S_OVER, S_WINNER, S_ROUND_ONLY, S_ON_DEMAND,
 S_HISTORY) = (
    STATE.offset(f) for f in STATE.fields)
ROUND_PART = S_SEALS
STATE_SIZE = STATE.size

END = codes("running", "stacks", "deck", "stalled", "turn_cap")
TIE = codes("rupees", "bonus_tokens", "goods_tokens", "drawn")  # what settled a round (the rounds' tie_break)
END_NAMES = tuple(END)
END_RUNNING, END_STACKS, END_DECK, END_STALLED, END_TURN_CAP = (END[k] for k in END_NAMES)
TIE_RUPEES, TIE_BONUS, TIE_GOODS, TIE_DRAWN = (TIE[k] for k in TIE)

# --- actions: one row of ACOLS int32 ---
ACTION = Layout("mohur action", [("type", 1), ("good", 1), ("count", 1), ("take", NK), ("give", NK)])
A_TYPE, A_GOOD, A_COUNT, A_TAKE, A_GIVE = (ACTION.offset(f) for f in ACTION.fields)
ACOLS = ACTION.size
# pass: no other action is legal; exchanges: there are exchanges, generated by the strategy, which writes the one it
# chooses into this row (listed last, only for a seat whose strategy does that: strategies.mohur)
TYPE = codes("take_good", "take_coins", "exchange", "sell", "pass", "exchanges")
TYPE_NAMES = tuple(TYPE)
T_TAKE_GOOD, T_TAKE_COINS, T_EXCHANGE, T_SELL, T_PASS, T_EXCHANGES = (TYPE[k] for k in TYPE_NAMES)
# how a seat's exchanges are listed (a strategy's `@strategy(listing=...)`, sim.registry): every one; one
# T_EXCHANGES row; or only counted (for a strategy that reads only how many actions there are): apply_action
# writes the one chosen
LISTINGS = codes("listed", "row", "counted")
EX_LISTED, EX_ROW, EX_COUNTED = LISTINGS.values()

# --- the observation (what the trader to move may know) ---
OBS = Layout("mohur obs", [
    ("hand", NK),            # own goods and coffer
    ("market", NK), ("opp_hand", 1),  # the rival's number of goods
    ("opp_coins", 1), ("deck", 1),
    ("tokrem", NG),          # tokens left per stack
    ("tokv", (NG, MAX_TOK)),  # values left, top first (0 past the end)
    ("my_gsum", 1), ("opp_gsum", 1), ("my_bcnt", 1), ("opp_bcnt", 1), ("my_gcnt", 1), ("opp_gcnt", 1),
    ("pile_left", NPILES),
    ("pile_mean", NPILES),   # mean value of each pile's full contents x100 (draws stay hidden)
    ("opp_known", NG),
    ("my_known", NG),        # what the rival knows of my hand
    ("min_sale", NG), ("hand_limit", 1), ("seat", 1), ("empty", 1), ("stacks_end", 1), ("turn", 1),
    ("my_seals", 1), ("opp_seals", 1), ("coin_token", 1), ("round", 1), ("market_size", 1),
    ("min_exchange", 1), ("seals_to_win", 1),
    # appended for search players (public facts needed to rebuild a consistent state); never reorder the above
    ("sold", NK),            # cards sold (discarded) per kind this round
    ("starter", 1),          # seat that started this round
    ("passes", 1),           # consecutive passes just before this turn
])
(O_HAND, O_MARKET, O_OPP_HAND, O_OPP_COINS, O_DECK, O_TOKREM, O_TOKV, O_MY_GSUM, O_OPP_GSUM, O_MY_BCNT,
 O_OPP_BCNT, O_MY_GCNT, O_OPP_GCNT, O_PILE_LEFT, O_PILE_MEAN, O_OPP_KNOWN, O_MY_KNOWN, O_MINSALE, O_HAND_LIMIT,
 O_SEAT, O_EMPTY, O_STACKS_END, O_TURN, O_MY_SEALS, O_OPP_SEALS, O_COIN_TOKEN, O_ROUND, O_MARKET_SIZE,
 O_MIN_EXCHANGE, O_SEALS_TO_WIN, O_SOLD, O_STARTER, O_PASSES) = (OBS.offset(f) for f in OBS.fields)
OBS_SIZE = OBS.size


# HOT_NO_NRT: the functions called every turn that take arrays and allocate none are compiled without
# numba's reference counting (`_nrt=False`). numba increfs array arguments on entry and its pruning pass gives
# up on functions this size, so each call cost 6 atomic operations: 7% of a greedy match, measured with perf.
# Without NRT they cannot allocate arrays (numba refuses to compile one that tries), which they do not need.
# COLD COMPILE: a separately compiled function costs ~0.1-0.3 s once per argument types, and LLVM optimises its
# whole call tree again in each caller: callers pass state entries as int64 (np.int64(...)), and a function with
# one jitted caller is inlined into it by numba (inline="always"; still callable from Python).


@njit(cache=True)
def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int32)


@njit(cache=True)
def new_game(s, cfg, players, seed, game):
    """Deal match `game` of a batch seeded `seed` (2 players): numba's generator is seeded from (seed, game, 0)
    and draws the first starter when the configuration leaves it to chance; round 1 is dealt from its stream."""
    np.random.seed(game_seed(seed, game, 0))
    first = cfg[CFG_FIRST_STARTER]
    starter = np.random.randint(0, 2) if first < 0 else first
    s[S_SEALS:S_ON_DEMAND] = 0  # the match's part, but the seats' flags (the kernel sets them)
    seed32 = np.uint32(seed)
    s[S_SEED] = seed32 & np.uint32(0xFFFF)
    s[S_SEED + 1] = seed32 >> np.uint32(16)
    s[S_GAME] = game
    s[S_WINNER] = -1
    s[S_ROUND] = 1
    deal_round(s, cfg, starter, deal_seed(seed32, game, 1))


@njit(cache=True)
def current_player(s):
    return s[S_CUR]


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def total(v, lo, n):
    """v[lo] + ... + v[lo + n - 1] (a hand's goods, the market's cards) without a slice."""
    t = 0
    for i in range(lo, lo + n):
        t += v[i]
    return t


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
    while total(s, S_MARKET, NK) < cfg[CFG_MARKET_SIZE] and deck_left(s) > 0:
        s[S_MARKET + _draw(s)] += 1


@njit(cache=True)
def deal_round(s, cfg, starter, seed):
    """Reset the round (seals and round number are kept) and deal it: rulebook setup, in its order.
    Shuffles draw from the deal's own stream, started at `seed` (sim.rng.deal_seed), not from np.random."""
    x = np.uint64(seed)
    s[:ROUND_PART] = 0
    n = 0
    for k in range(NK):
        # the setup coins go face up, the rest are shuffled
        count = cfg[CFG_CARDS + k] - (cfg[CFG_MARKET_COINS] if k == COIN else 0)
        s[S_DECK + n:S_DECK + n + count] = k
        n += count
    s[S_DECKLEN] = n
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        x, j = below(x, i + 1)
        s[S_DECK + i], s[S_DECK + j] = s[S_DECK + j], s[S_DECK + i]
    for p in range(2):
        for _ in range(cfg[CFG_HAND_SIZE]):
            s[S_HAND + NK * p + _draw(s)] += 1
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
    s[S_FIRSTSALE:S_FIRSTSALE + NG] = -1
    s[S_STARTER] = starter
    s[S_CUR] = starter


@njit(cache=True)
def _too_many():
    raise ValueError("more legal actions than MAX_ACTIONS; lower market_size or hand_limit")


@njit(cache=True)
def _free_row_chosen():
    raise ValueError("the exchanges row is not an action: write the chosen exchange into it (write_exchange)")


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
def legal_actions(s, cfg, actions):
    """The interface's legal actions of the trader to move: `enumerate_actions`, or one pass row when there is
    none (rules page safety rule). Remembers how many, so that `apply_action` counts a decision."""
    p = s[S_CUR]
    s[S_COUNTED] = 0
    n = enumerate_actions(s, cfg, p, actions, s[S_ON_DEMAND + p])
    if n == 0:
        n = _simple_row(actions, 0, T_PASS, -1, 0)
    s[S_NLEGAL] = n
    return n


@njit(cache=True, _nrt=False, inline="always")  # see HOT_NO_NRT
def enumerate_actions(s, cfg, p, actions, on_demand=EX_LISTED):
    """Fill `actions` with every legal action of seat p; return how many (0: p must pass). Order: sells,
    takes, coins, exchanges (by take vector, then gives in left-heavy order). The last two rows stay free.
    `on_demand` EX_COUNTED: the exchanges are counted, not written (see _exchanges).
    EX_ROW: the exchanges as one T_EXCHANGES row, listed when there is at least one,
    into which the strategy writes the exchange it chooses, generated from its observation (`next_take`,
    `give_bounds`, `first_give`, `next_give`) in the engine's order. Listing every exchange (up to 160 a turn)
    was most of a heuristic match, and the heuristics value most of them only to discard them. When the row
    would hide that there is no choice (no sell or take), every exchange is listed."""
    n = 0
    h = S_HAND + NK * p
    hand_goods = total(s, h, NG)
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
    coins = np.int64(s[S_MARKET + COIN])
    if coins > 0:
        n = _simple_row(actions, n, T_TAKE_COINS, COIN, coins)
        actions[n - 1, A_TAKE + COIN] = coins
    return _exchanges(s, cfg, S_MARKET, h, coin_bound(s, h, limit), actions, n,
                      on_demand if n > 0 or on_demand == EX_COUNTED else EX_LISTED)


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def coin_bound(v, h, limit):
    """At most how many coins the hand at v[h:h+NK] may give in an exchange: goods in hand afterwards = goods
    now + coins given (the hand limit)."""
    return min(v[h + COIN], limit - total(v, h, NG))


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def _exchanges(s, cfg, m, h, coins, actions, n, on_demand):
    """The exchange rows from row n on, or (EX_ROW) the one T_EXCHANGES row if there is any exchange, or
    (EX_COUNTED) n plus how many there are, that number kept in s[S_COUNTED]; rows n on then hold one row per
    take vector instead: (where its exchanges end, the take, its size), read by `counted_exchange`."""
    # The take vector, the give bounds and the give vector live packed in registers (FIELD bits per entry, over
    # the nk kinds that can be given, KIND_BITS bits per kind index): no scratch memory, no scan over unused
    # kinds; with at most three such kinds (most takes) the gives are two counted loops.
    min_ex = cfg[CFG_MIN_EXCHANGE]
    if on_demand == EX_COUNTED:
        counted = count_exchanges(s, m, h, coins, min_ex, actions, n)
        s[S_COUNTED] = counted
        return n + counted
    if on_demand == EX_ROW:  # most turns: min_ex goods to take, and min_ex cards to give whatever is taken
        goods, spare = 0, max(0, coins)
        for g in range(NG):
            goods += s[m + g]
            spare += 0 if s[m + g] > 0 else s[h + g]
        if goods >= min_ex and spare >= min_ex:
            return _simple_row(actions, n, T_EXCHANGES, -1, 0)
    take, k = np.int64(0), 0
    while True:
        take, k = next_take(s, m, take, k)
        if k < 0:
            return n
        if k < min_ex:
            continue
        bounds, kinds, nk, room = give_bounds(s, h, take, k, coins)
        if room < k:
            continue
        if on_demand == EX_ROW:
            return _simple_row(actions, n, T_EXCHANGES, -1, 0)
        b0, b1, b2 = bounds & FMASK, (bounds >> FIELD) & FMASK, (bounds >> (2 * FIELD)) & FMASK
        if nk <= 3:  # two counted loops (the general walk below mispredicts its branches more)
            for d0 in range(min(b0, k), max(0, k - b1 - b2) - 1, -1):
                r = k - d0
                for d1 in range(min(b1, r), max(0, r - b2) - 1, -1):
                    if n >= MAX_ACTIONS - 2:
                        _too_many()
                    give = d0 | (d1 << FIELD) | ((r - d1) << (2 * FIELD))
                    n = write_exchange(actions, n, k, take, per_kind(give, kinds, nk))
        else:
            give = first_give(bounds, nk, k)
            while give >= 0:
                if n >= MAX_ACTIONS - 2:
                    _too_many()
                n = write_exchange(actions, n, k, take, per_kind(give, kinds, nk))
                give = next_give(give, bounds, nk)


@njit(cache=True, _nrt=False, inline="always")  # see HOT_NO_NRT; one caller
def count_exchanges(s, m, h, coins, min_ex, actions, n):
    """EX_COUNTED: how many exchanges the hand at s[h:h+NK] has with the market at s[m:m+NK] (`coins`: coin_bound),
    as `_exchanges` lists them; rows n on <- one row per take vector with any, in the engine's order:
    (where its exchanges end, the take packed, its size k), for `counted_exchange`.
    A take's gives are the coefficient of y^k in the product of (1 + y + ... + y^bound) over the kinds it does not
    take (`_times`, in registers). The take vectors come in nested loops (the last good outermost: next_take's
    order), each level multiplying in its good's factor only where it takes none of that good, and the kinds the
    market does not hold (and coins) multiplied in once: a take then costs a coefficient read, not a walk over the
    kinds and the gives (walking them per take vector had been ~70% of a random mirror match)."""
    base = _times((1, 0, 0, 0, 0, 0, 0, 0), max(0, coins))
    for g in range(NG):
        if s[m + g] == 0 and s[h + g] > 0:
            base = _times(base, s[h + g])
    # the goods the market holds: how many, and the hand's bound where it holds some (0: nothing to multiply in)
    m0, m1, m2, m3, m4, m5 = s[m], s[m + 1], s[m + 2], s[m + 3], s[m + 4], s[m + 5]
    h0, h1, h2 = (s[h] if m0 > 0 else 0), (s[h + 1] if m1 > 0 else 0), (s[h + 2] if m2 > 0 else 0)
    h3, h4, h5 = (s[h + 3] if m3 > 0 else 0), (s[h + 4] if m4 > 0 else 0), (s[h + 5] if m5 > 0 else 0)
    end, row = n, n
    for t5 in range(m5 + 1):
        p5 = _times(base, h5) if t5 == 0 and h5 > 0 else base
        for t4 in range(m4 + 1):
            p4 = _times(p5, h4) if t4 == 0 and h4 > 0 else p5
            for t3 in range(m3 + 1):
                p3 = _times(p4, h3) if t3 == 0 and h3 > 0 else p4
                for t2 in range(m2 + 1):
                    p2 = _times(p3, h2) if t2 == 0 and h2 > 0 else p3
                    for t1 in range(m1 + 1):
                        p1 = _times(p2, h1) if t1 == 0 and h1 > 0 else p2
                        for t0 in range(m0 + 1):
                            k = t0 + t1 + t2 + t3 + t4 + t5
                            if k < min_ex:
                                continue
                            c = p1[k]
                            if t0 == 0:  # the first good given too: one coefficient of p1 x (1 + ... + y^h0)
                                for j in range(1, min(h0, k) + 1):
                                    c += p1[k - j]
                            if c > 0:
                                end += c
                                if end > MAX_ACTIONS - 2:
                                    _too_many()
                                actions[row, 0] = end
                                actions[row, 1] = (t0 | (t1 << FIELD) | (t2 << (2 * FIELD)) | (t3 << (3 * FIELD)) |
                                                   (t4 << (4 * FIELD)) | (t5 << (5 * FIELD)))
                                actions[row, 2] = k
                                row += 1
    return end - n


@njit(cache=True, _nrt=False, inline="always")  # see HOT_NO_NRT
def _times(p, b):
    """The coefficients p of y^0..y^7 times (1 + y + ... + y^b), truncated to degree 7 (no exchange is larger:
    the market holds at most 7 cards): prefix sums (times 1 / (1 - y)) less themselves shifted by b + 1."""
    c0, c1, c2, c3, c4, c5, c6, c7 = p
    c1 += c0
    c2 += c1
    c3 += c2
    c4 += c3
    c5 += c4
    c6 += c5
    c7 += c6
    s0, s1, s2, s3, s4, s5, s6, s7 = c0, c1, c2, c3, c4, c5, c6, c7
    for _ in range(min(b, 7) + 1):
        s0, s1, s2, s3, s4, s5, s6, s7 = 0, s0, s1, s2, s3, s4, s5, s6
    return (c0 - s0, c1 - s1, c2 - s2, c3 - s3, c4 - s4, c5 - s5, c6 - s6, c7 - s7)


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def counted_exchange(s, cfg, actions, a):
    """Row a <- the exchange that legal_actions counted (EX_COUNTED) as action a, found from its take's row."""
    i = s[S_NLEGAL] - s[S_COUNTED]
    start = i
    while actions[i, 0] <= a:
        start = actions[i, 0]
        i += 1
    take, k, h = np.int64(actions[i, 1]), np.int64(actions[i, 2]), S_HAND + NK * s[S_CUR]
    bounds, kinds, nk, _ = give_bounds(s, h, take, k, coin_bound(s, h, cfg[CFG_HAND_LIMIT]))
    skip, give = a - start, np.int64(0)  # gives of this take before it
    if nk <= 3:  # _exchanges' two counted loops: skip whole first counts, then step to the second count
        b0, b1, b2 = bounds & FMASK, (bounds >> FIELD) & FMASK, (bounds >> (2 * FIELD)) & FMASK
        for d0 in range(min(b0, k), max(0, k - b1 - b2) - 1, -1):
            r = k - d0
            hi = min(b1, r)
            if skip <= hi - max(0, r - b2):
                d1 = hi - skip
                give = d0 | (d1 << FIELD) | ((r - d1) << (2 * FIELD))
                break
            skip -= hi - max(0, r - b2) + 1
    else:
        give = first_give(bounds, nk, k)
        for _ in range(skip):
            give = next_give(give, bounds, nk)
    write_exchange(actions, a, k, take, per_kind(give, kinds, nk))


FIELD, FMASK = 5, np.int64(31)     # packed counts: a take, a bound or a give is at most 7 (the market's size)
KIND_BITS, KMASK = 3, np.int64(7)  # packed kind indices: 0..6


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def count_gives(bounds, nk, k):
    """How many gives of k <= 7 cards there are within packed `bounds` over nk kinds: the coefficient of x^k in
    the product of (1 + x + ... + x^b) over the bounds. count_exchanges builds these products level by level in
    its take loops; this one-take form lets the tests check that arithmetic (`_times`) against the walk."""
    c = (1, 0, 0, 0, 0, 0, 0, 0)
    for i in range(nk):
        c = _times(c, (bounds >> (FIELD * i)) & FMASK)
    return c[k]


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def next_take(v, m, take, k):
    """Exchanges take k >= min_exchange goods from the market at v[m:m+NK] and give back k cards (goods of kinds
    not taken, or coins). Take vectors come in mixed-radix order over the market's goods, the first kind fastest:
    returns the (packed) take vector after `take` and its total, or (take, -1) after the last."""
    for j in range(NG):
        tj = (take >> (FIELD * j)) & FMASK
        if tj < v[m + j]:
            return take + (np.int64(1) << (FIELD * j)), k + 1
        k -= tj
        take &= ~(FMASK << (FIELD * j))
    return take, -1


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def give_bounds(v, h, take, k, coins):
    """For a take of k goods, how many of each kind the hand at v[h:h+NK] may give: (bounds, kinds, nk, room),
    packed over the nk kinds with a bound (`kinds` their indices), and room the bounds' sum (< k: no
    exchange). `coins`: coin_bound."""
    bounds, kinds, nk, room = np.int64(0), np.int64(0), 0, 0
    for g in range(NK):
        if g == COIN:
            b = max(0, min(coins, k))
        elif (take >> (FIELD * g)) & FMASK:
            b = 0
        else:
            b = min(v[h + g], k)
        if b > 0:
            bounds |= np.int64(b) << (FIELD * nk)
            kinds |= np.int64(g) << (KIND_BITS * nk)
            nk += 1
            room += b
    return bounds, kinds, nk, room


@njit(cache=True)
def first_give(bounds, nk, k):
    """The first give of k cards within packed `bounds` over nk kinds (left-heavy: fill from the left)."""
    return _fill_left(np.int64(0), bounds, 0, nk, k)


@njit(cache=True)
def _fill_left(give, bounds, i, nk, left):
    """`give` with `left` more cards put in entries i..nk-1 (all zero), each filled to its bound from the left."""
    for j in range(i, nk):
        w = min((bounds >> (FIELD * j)) & FMASK, left)
        give |= w << (FIELD * j)
        left -= w
    return give


@njit(cache=True)
def next_give(give, bounds, nk):
    """The give after `give` in left-heavy (lexicographically decreasing) order, or -1: move one unit from the
    rightmost movable entry rightward and refill the rest from the left."""
    right = 0
    spare = 0
    i = nk - 1
    while i >= 0:
        w = (give >> (FIELD * i)) & FMASK
        if i < nk - 1 and w > 0 and spare > right:
            give = (give & ((np.int64(1) << (FIELD * (i + 1))) - 1)) - (np.int64(1) << (FIELD * i))
            return _fill_left(give, bounds, i + 1, nk, right + 1)
        right += w
        spare += (bounds >> (FIELD * i)) & FMASK
        i -= 1
    return np.int64(-1)


@njit(cache=True)
def per_kind(give, kinds, nk):
    """A give packed over its nk kinds -> packed per kind (FIELD bits for each of the NK kinds)."""
    out = np.int64(0)
    for i in range(nk):
        out |= ((give >> (FIELD * i)) & FMASK) << (FIELD * ((kinds >> (KIND_BITS * i)) & KMASK))
    return out


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def write_exchange(actions, n, k, take, give):
    """Row n <- the exchange of k cards taking `take` and giving `give` (both packed per kind). Returns n + 1."""
    actions[n, A_TYPE] = T_EXCHANGE
    actions[n, A_GOOD] = -1
    actions[n, A_COUNT] = k
    for g in range(NK):
        actions[n, A_TAKE + g] = (take >> (FIELD * g)) & FMASK
        actions[n, A_GIVE + g] = (give >> (FIELD * g)) & FMASK
    return n + 1


@njit(cache=True)
def empty_stacks(s, cfg):
    e = 0
    for g in range(NG):
        if s[S_TOKPOS + g] >= cfg[CFG_NTOK + g]:
            e += 1
    return e


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def apply_action(s, cfg, actions, a):
    """The interface's step: row `a` for the trader to move (`step`), then, when that ended the round, its
    scoring and the next round's deal or the end of the match (`finish_round`)."""
    if s[S_NLEGAL] > 1:
        s[S_DECISIONS] += 1
    if s[S_COUNTED] > 0 and a >= s[S_NLEGAL] - s[S_COUNTED]:  # an exchange counted, not written: write it now
        counted_exchange(s, cfg, actions, a)
    s[S_NLEGAL] = 0
    s[S_COUNTED] = 0
    step(s, cfg, actions, a)
    if s[S_END] != END_RUNNING:
        finish_round(s, cfg)


@njit(cache=True, _nrt=False, inline="always")  # see HOT_NO_NRT
def step(s, cfg, actions, a):
    """Row `a` for the trader to move and what it ends: the round's end reason, the turn cap included."""
    if actions[a, A_TYPE] == T_PASS:
        pass_turn(s, cfg)
    elif actions[a, A_TYPE] == T_EXCHANGES:
        _free_row_chosen()
    else:
        play_row(s, cfg, s[S_CUR], actions, a)
    if s[S_END] == END_RUNNING and s[S_TURN] >= cfg[CFG_TURN_CAP]:
        s[S_END] = END_TURN_CAP


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def play_row(s, cfg, p, actions, a):
    """Apply row `a` of `actions` for seat p, refill after a take, advance the turn, check the round end."""
    h = S_HAND + NK * p
    typ = actions[a, A_TYPE]
    if typ == T_SELL:
        g, c = actions[a, A_GOOD], actions[a, A_COUNT]
        s[h + g] -= c
        s[S_SOLD + g] += c
        known = S_KNOWN + NG * p + g
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
            s[S_TAKEN + NG * p + g] += v
            s[S_TCNT + NG * p + g] += 1
            gained += v
        if s[S_FIRSTSALE + g] < 0:
            s[S_FIRSTSALE + g] = gained
        s[S_SALES + min(c, NSIZES) - 1] += 1
        if c >= 3:  # piles for sales of 3, 4, 5+
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
                known = S_KNOWN + NG * p + k
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
def round_over(s):
    return s[S_END] != END_RUNNING


@njit(cache=True)
def is_over(s):
    return s[S_OVER] != 0


@njit(cache=True)
def returns(s, cfg, out):
    """Win shares: 1 to the match winner; a match stopped by the round cap is half a win each."""
    w = s[S_WINNER]
    for p in range(2):
        out[p] = 0.5 if w < 0 else (1.0 if w == p else 0.0)


@njit(cache=True)
def round_score(s, cfg):
    """(rupees0, rupees1, coin_holder(-1 none), winner(-1 drawn), tie_break: a TIE code)."""
    c0, c1 = s[S_HAND + COIN], s[S_HAND + NK + COIN]
    holder = -1 if c0 == c1 else (0 if c0 > c1 else 1)
    r0 = s[S_GSUM] + s[S_BSUM] + (cfg[CFG_COIN_TOKEN] if holder == 0 else 0)
    r1 = s[S_GSUM + 1] + s[S_BSUM + 1] + (cfg[CFG_COIN_TOKEN] if holder == 1 else 0)
    winner, tie = -1, TIE_DRAWN
    if r0 != r1:
        winner, tie = (0 if r0 > r1 else 1), TIE_RUPEES
    elif s[S_BCNT] != s[S_BCNT + 1]:
        winner, tie = (0 if s[S_BCNT] > s[S_BCNT + 1] else 1), TIE_BONUS
    elif s[S_GCNT] != s[S_GCNT + 1]:
        winner, tie = (0 if s[S_GCNT] > s[S_GCNT + 1] else 1), TIE_GOODS
    return r0, r1, holder, winner, tie


@njit(cache=True)
def finish_round(s, cfg):
    """The round in `s` has ended: score it into the history, award its seal, then end the match (a trader
    holds `seals_to_win` seals, or the round cap) or deal the next round from its own stream."""
    if s[S_ROUND_ONLY] != 0:
        s[S_OVER] = 1  # a search player's world: the round's value is read from the final state
        return
    r0, r1, holder, winner, tie = round_score(s, cfg)
    rnd = s[S_ROUND]
    h = S_HISTORY + (rnd - 1) * HIST_SIZE
    s[h + H_ROUND], s[h + H_STARTER], s[h + H_WINNER], s[h + H_END] = rnd, s[S_STARTER], winner, s[S_END]
    s[h + H_TURNS], s[h + H_DECISIONS], s[h + H_COIN_TOKEN], s[h + H_TIE] = s[S_TURN], s[S_DECISIONS], holder, tie
    s[h + H_RUPEES], s[h + H_RUPEES + 1] = r0, r1
    for p in range(2):
        s[h + H_GCNT + p] = s[S_GCNT + p]
        s[h + H_GSUM + p] = s[S_GSUM + p]
        s[h + H_BCNT + p] = s[S_BCNT + p]
        s[h + H_BSUM + p] = s[S_BSUM + p]
        s[h + H_COINS + p] = s[S_HAND + NK * p + COIN]
        for g in range(NG):
            s[h + H_TAKEN + 2 * g + p] = s[S_TAKEN + NG * p + g]
            s[h + H_TCNT + 2 * g + p] = s[S_TCNT + NG * p + g]
    for g in range(NG):
        s[h + H_FIRST + g] = s[S_FIRSTSALE + g]
        pos = s[S_TOKPOS + g]
        s[h + H_LEFT + g] = total(cfg, CFG_TOK + g * MAX_TOK + pos, cfg[CFG_NTOK + g] - pos)
    for i in range(NSIZES):  # loops, not slice copies: those need NRT, which apply_action runs without
        s[h + H_SALES + i] = s[S_SALES + i]
    for b in range(NPILES):
        s[h + H_PCNT + b] = s[S_BPOS + b]
        s[h + H_PSUM + b] = s[S_PSUM + b]
    if winner >= 0:
        s[S_SEALS + winner] += 1
    if s[S_SEALS] >= cfg[CFG_SEALS] or s[S_SEALS + 1] >= cfg[CFG_SEALS]:
        s[S_WINNER] = 0 if s[S_SEALS] >= cfg[CFG_SEALS] else 1
        s[S_OVER] = 1
    elif rnd >= cfg[CFG_ROUND_CAP]:
        s[S_OVER] = 1
    else:
        starter = next_starter(cfg, s[S_STARTER], winner)
        s[S_ROUND] = rnd + 1
        seed = np.uint32(np.uint32(s[S_SEED]) | (np.uint32(s[S_SEED + 1]) << np.uint32(16)))
        deal_round(s, cfg, starter, deal_seed(seed, np.int64(s[S_GAME]), rnd + 1))


@njit(cache=True)
def next_starter(cfg, starter, winner):
    """The loser of a round leads the next; after a drawn round, by configuration."""
    if winner >= 0:
        return 1 - winner
    return 1 - starter if cfg[CFG_DRAWN_OTHER] == 1 else starter


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT (4 atomic reference counts a decision)
def observe(s, cfg, p, obs):
    """What seat p may know: own hand, the public table, counts, and tracked knowledge of the rival.
    `obs` is a zeroed buffer or one this function filled before for the same `cfg`: a token stack whose
    count left is unchanged is not rewritten (half the cost of a call), nor are the rules' figures. Strategies must not write to it."""
    q = 1 - p
    for k in range(NK):
        obs[O_HAND + k] = s[S_HAND + NK * p + k]
        obs[O_MARKET + k] = s[S_MARKET + k]
        obs[O_SOLD + k] = s[S_SOLD + k]
    obs[O_OPP_HAND] = total(s, S_HAND + NK * q, NG)
    obs[O_OPP_COINS] = s[S_HAND + NK * q + COIN]
    obs[O_DECK] = deck_left(s)
    for g in range(NG):
        pos = s[S_TOKPOS + g]
        nt = cfg[CFG_NTOK + g]
        left = max(0, nt - pos)
        obs[O_OPP_KNOWN + g] = s[S_KNOWN + NG * q + g]
        obs[O_MY_KNOWN + g] = s[S_KNOWN + NG * p + g]
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
        obs[O_PILE_LEFT + b] = cfg[CFG_NBONUS + b] - s[S_BPOS + b]
    obs[O_SEAT], obs[O_EMPTY], obs[O_TURN], obs[O_ROUND] = p, empty_stacks(s, cfg), s[S_TURN], s[S_ROUND]
    obs[O_MY_SEALS], obs[O_OPP_SEALS] = s[S_SEALS + p], s[S_SEALS + q]
    obs[O_STARTER], obs[O_PASSES] = s[S_STARTER], s[S_PASSES]
    if obs[O_SEALS_TO_WIN] == 0:  # the rules' part, written once per buffer (seals_to_win >= 1 marks it written)
        for g in range(NG):
            obs[O_MINSALE + g] = cfg[CFG_MINSALE + g]
        for b in range(NPILES):
            obs[O_PILE_MEAN + b] = cfg[CFG_PILE_MEAN + b]
        obs[O_HAND_LIMIT], obs[O_STACKS_END] = cfg[CFG_HAND_LIMIT], cfg[CFG_STACKS_END]
        obs[O_COIN_TOKEN], obs[O_MARKET_SIZE] = cfg[CFG_COIN_TOKEN], cfg[CFG_MARKET_SIZE]
        obs[O_MIN_EXCHANGE], obs[O_SEALS_TO_WIN] = cfg[CFG_MIN_EXCHANGE], cfg[CFG_SEALS]


@njit(cache=True)
def check_invariants(s, cfg):
    """Debug mode: cards and tokens conserved, hand limit, market size, stacks sorted."""
    for k in range(NK):
        in_deck = 0  # loops, not numpy reductions: those cost seconds of compiling in every run
        for i in range(s[S_DECKPOS], s[S_DECKLEN]):
            in_deck += s[S_DECK + i] == k
        cards = s[S_MARKET + k] + s[S_HAND + k] + s[S_HAND + NK + k] + in_deck + s[S_SOLD + k]
        if cards != cfg[CFG_CARDS + k]:
            raise AssertionError("invariant: cards of a kind not conserved")
        if s[S_MARKET + k] < 0 or s[S_HAND + k] < 0 or s[S_HAND + NK + k] < 0:
            raise AssertionError("invariant: negative card count")
    if max(total(s, S_HAND, NG), total(s, S_HAND + NK, NG)) > cfg[CFG_HAND_LIMIT]:
        raise AssertionError("invariant: hand over the limit")
    if total(s, S_MARKET, NK) > cfg[CFG_MARKET_SIZE]:
        raise AssertionError("invariant: market over its size")
    for g in range(NG):
        nt = cfg[CFG_NTOK + g]
        if s[S_TOKPOS + g] > nt:
            raise AssertionError("invariant: more tokens taken than the stack held")
        for i in range(CFG_TOK + g * MAX_TOK + 1, CFG_TOK + g * MAX_TOK + nt):
            if cfg[i] > cfg[i - 1]:
                raise AssertionError("invariant: stack not sorted high to low")
        if total(cfg, CFG_TOK + g * MAX_TOK, np.int64(s[S_TOKPOS + g])) != s[S_TAKEN + g] + s[S_TAKEN + NG + g]:
            raise AssertionError("invariant: token rupees not conserved")
    if total(s, S_TOKPOS, NG) != s[S_GCNT] + s[S_GCNT + 1]:
        raise AssertionError("invariant: goods token count not conserved")
    if total(s, S_BPOS, NPILES) != s[S_BCNT] + s[S_BCNT + 1]:
        raise AssertionError("invariant: bonus token count not conserved")
