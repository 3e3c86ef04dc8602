"""Mohur's numbers and layouts (CFG, HIST, STATE, ACTION, OBS), their codes, and helpers that read and write them;
offsets exported as constants (`S_HAND`). The rules are in sim/mohur/engine.py, the exchanges in exchanges.py.
"""
import itertools

from sim.jit import njit

from sim.interface import Layout, codes

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
CFG.export(globals(), "CFG_")
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


HIST.export(globals(), "H_", {"bonus_pile{}_count": "PCNT", "bonus_pile{}_rupees": "PSUM"})
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
STATE.export(globals(), "S_")
ROUND_PART = S_SEALS
STATE_SIZE = STATE.size

END = codes("running", "stacks", "deck", "stalled", "turn_cap")
TIE = codes("rupees", "bonus_tokens", "goods_tokens", "drawn")  # what settled a round (the rounds' tie_break)
END_NAMES = tuple(END)
END_RUNNING, END_STACKS, END_DECK, END_STALLED, END_TURN_CAP = (END[k] for k in END_NAMES)
TIE_RUPEES, TIE_BONUS, TIE_GOODS, TIE_DRAWN = (TIE[k] for k in TIE)

# --- actions: one row of ACOLS int32 ---
ACTION = Layout("mohur action", [("type", 1), ("good", 1), ("count", 1), ("take", NK), ("give", NK)])
ACTION.export(globals(), "A_")
ACOLS = ACTION.size
# pass: no other action is legal; exchanges: the strategy writes the exchange it chooses into this row
TYPE = codes("take_good", "take_coins", "exchange", "sell", "pass", "exchanges")
TYPE_NAMES = tuple(TYPE)
T_TAKE_GOOD, T_TAKE_COINS, T_EXCHANGE, T_SELL, T_PASS, T_EXCHANGES = (TYPE[k] for k in TYPE_NAMES)
# how a seat's exchanges are listed (`@strategy(listing=...)`): every one; one T_EXCHANGES row; or only counted
# (apply_action writes the one chosen)
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
OBS.export(globals(), "O_")
OBS_SIZE = OBS.size


# HOT_NO_NRT: functions called every turn that take arrays and allocate none are compiled with `_nrt=False`: numba's
# reference counts cost 6 atomic operations a call, 7% of a greedy match (docs/numba.md). A function with one
# jitted caller is inlined into it (inline="always"): each compiled function costs ~0.1-0.3 s of cold compile.


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def total(v, lo, n):
    """v[lo] + ... + v[lo + n - 1] (a hand's goods, the market's cards) without a slice."""
    t = 0
    for i in range(lo, lo + n):
        t += v[i]
    return t


@njit(cache=True)
def too_many():
    raise ValueError("more legal actions than MAX_ACTIONS; lower market_size or hand_limit")


@njit(cache=True)
def free_row_chosen():
    raise ValueError("the exchanges row is not an action: write the chosen exchange into it (write_exchange)")


@njit(cache=True)
def simple_row(actions, n, typ, good, count):
    # no capacity check (the caller checks once): one that can raise keeps numba from pruning reference counts
    actions[n, A_TYPE] = typ
    actions[n, A_GOOD] = good
    actions[n, A_COUNT] = count
    for c in range(A_TAKE, ACOLS):
        actions[n, c] = 0
    return n + 1
