"""Merchants of Muziris forward model: a resumable state machine over one flat int32 vector (numba only).

The game waits at one *decision* at a time (choose a character, a card to take, an order to fulfil, a card
to discard...). `legal_actions` lists the options of the pending decision as rows [decision, x, y];
`apply_action(s, cfg, d, x, y)` applies one and runs every automatic step up to the next decision (draws,
coins, end of turn, end of round, end of game). The kernel, the trace and the tests all drive the game
through these two functions, so they play the very same game.

Abilities and characters are *steps* (effect kind + two numeric arguments) read from the configuration
vector; a character or produce ability is up to MAX_STEPS steps resolved in order. Configuration arrives as
one int64 vector `cfg` (CFG_* offsets, built by sim.muziris.config).
"""
import numpy as np
from numba import njit

MAX_T = 12       # produce types
MAX_P = 4        # players
MAX_C = 16       # characters in the configuration (standard + special)
MAX_COND = 8     # market conditions
MAX_ORD = 5      # largest order size
MAX_STEPS = 3    # steps per ability / character action
MAX_DECK = 512
MAX_ACTIONS = MAX_T * MAX_ORD + MAX_C + 2
ACOLS = 3

# --- effect kinds (step = kind, a0, a1) ---
K_NONE, K_DRAW, K_TAKE, K_TAKE_TYPE, K_GAIN, K_FULFIL, K_CYCLE, K_PER_ORDER, K_HAND_AB, K_MARKET_AB = range(10)
KIND_NAMES = ("none", "draw", "take", "take_type", "gain", "fulfil", "cycle", "coins_per_order",
              "hand_ability", "market_ability")

# --- market condition kinds ---
TR_ORDERS, TR_RESHUFFLES, TR_COINS, TR_ROUNDS, TR_NEVER = range(5)
TRIGGER_NAMES = ("orders_at_least", "reshuffles_at_least", "coins_at_least", "rounds_ended", "never")
SC_NONE, SC_PER_TYPE, SC_PER_HAND, SC_MOST_ORDERS, SC_MOST_EACH = range(5)
SCORING_NAMES = ("none", "per_distinct_type", "per_hand_card", "most_orders", "most_of_each_type")

# --- decisions (column 0 of an action row) ---
D_CHAR, D_TAKE, D_TAKE_TYPE, D_FULFIL, D_CYCLE, D_HAND_AB, D_MARKET_AB, D_DISCARD = range(8)
DECISION_NAMES = ("character", "take", "take_type", "fulfil", "cycle", "hand_ability", "market_ability",
                  "discard")

PH_CHAR, PH_STEP, PH_DISCARD, PH_OVER = range(4)
END_RUNNING, END_TRIGGER, END_ROUND_CAP = 0, 1, 2
END_NAMES = ("running", "trigger", "round_cap")
SRC_CHAR, SRC_PRODUCE = 0, 1

# --- configuration vector offsets ---
CFG_NT = 0
CFG_NC = 1
CFG_NCOND = 2
CFG_MAXORD = 3
CFG_HAND_LIMIT = 4
CFG_START_HAND = 5
CFG_MARKET_SIZE = 6
CFG_SETUP_COINS = 7
CFG_UNUSED_COINS = 8
CFG_ROUND_CAP = 9
CFG_FIRST = 10            # -1 random, else seat
CFG_FIRST_MARKERS = 11
CFG_OTHER_MARKERS = 12
CFG_SPECIALS_FEWER = 13   # specials in play = players - this
CFG_REUSE = 14            # final round: marked characters may be chosen again
CFG_COND_FIXED = 15       # -1 random, else condition index
CFG_BOXED = 16
CFG_RESHUFFLE_NOW = 17    # 1: the discard is reshuffled the moment the last card leaves the deck; 0: at the next draw
CFG_TAKE_CHOICE = 18      # 1: "take up to N of one type" lets the player choose how many (1..N); 0: always the most
CFG_BONUS_NO_ORDER = 19   # 1: a fulfil step's extra coins are gained even when no order can be fulfilled
CFG_COUNT = 20                                  # MAX_T
CFG_VAL = CFG_COUNT + MAX_T                     # MAX_T x MAX_ORD
CFG_PSTEP = CFG_VAL + MAX_T * MAX_ORD           # MAX_T x MAX_STEPS x 3
CFG_CSTD = CFG_PSTEP + MAX_T * MAX_STEPS * 3    # MAX_C
CFG_CSTEP = CFG_CSTD + MAX_C                    # MAX_C x MAX_STEPS x 3
CFG_TRIG = CFG_CSTEP + MAX_C * MAX_STEPS * 3    # MAX_COND each
CFG_THR = CFG_TRIG + MAX_COND
CFG_SCORE = CFG_THR + MAX_COND
CFG_AMT = CFG_SCORE + MAX_COND
CFG_ATLEAST = CFG_AMT + MAX_COND
CFG_SIZE = CFG_ATLEAST + MAX_COND

# --- state vector offsets ---
S_NP = 0
S_ROUND = 1
S_FP = 2            # first player of this round
S_FP0 = 3           # first player of round 1
S_COND = 4
S_PHASE = 5
S_CUR = 6
S_TURN_IDX = 7      # position of the current player in this round's order (0 = first player)
S_MARKERS = 8       # markers the current player still has to place this turn
S_FINAL = 9         # 1 once the market condition is triggered: this is the final round
S_TRIG_SEAT = 10
S_END = 11
S_RESHUF = 12
S_DECKPOS = 13
S_DECKLEN = 14
S_NCH = 15          # characters in play
S_ISSUED = 16       # coins taken from the supply so far (debug invariant)
S_PLACED = 17       # coins put on characters so far (debug invariant)
S_DEPTH = 18        # effect frames open
S_DECISIONS = 19
S_MARKS_USED = 20   # markers placed this round (debug invariant)
S_LAST_CH = 21      # last character used (slot) and the coins that were on it
S_LAST_COINS = 22
S_NUSES = 23        # character uses this game
S_FRAME = 24                     # 2 frames x F_SIZE
F_SRC, F_ID, F_STEP, F_COUNT = 0, 1, 2, 3
F_SIZE = 4
S_CH_ID = S_FRAME + 2 * F_SIZE  # MAX_C: config index of the character in slot k
S_CH_COINS = S_CH_ID + MAX_C
S_CH_MARK = S_CH_COINS + MAX_C
S_MARKET = S_CH_MARK + MAX_C     # MAX_T
S_DISCARD = S_MARKET + MAX_T     # MAX_T
S_HAND = S_DISCARD + MAX_T       # MAX_P x MAX_T
S_PLAY = S_HAND + MAX_P * MAX_T  # MAX_P x MAX_T: one card per order fulfilled
S_COINS = S_PLAY + MAX_P * MAX_T  # MAX_P
S_C_ORD = S_COINS + MAX_P        # MAX_P x MAX_T: coins from orders by produce
S_C_CHAR = S_C_ORD + MAX_P * MAX_T  # MAX_P: coins taken from characters
S_C_ABIL = S_C_CHAR + MAX_P      # MAX_P: coins from abilities (gain, per-order, fulfil bonus)
S_C_SETUP = S_C_ABIL + MAX_P     # MAX_P
S_C_COND = S_C_SETUP + MAX_P     # MAX_P
S_ORDSIZE = S_C_COND + MAX_P     # MAX_T x MAX_ORD: orders fulfilled by produce and size
S_DECK = S_ORDSIZE + MAX_T * MAX_ORD
# MAX_P x (MAX_C + MAX_T): ability coins split by what gave them, a character's action (by configuration index)
# or a produce ability (MAX_C + type); results only (what decides a game), S_C_ABIL stays the total
S_C_ABIL_BY = S_DECK + MAX_DECK
ABIL_BY = MAX_C + MAX_T
STATE_SIZE = S_C_ABIL_BY + MAX_P * ABIL_BY

# --- observation offsets: the static part is written once per game, the rest at every decision ---
O_NT = 0
O_NP = 1
O_NCH = 2
O_MAXORD = 3
O_HAND_LIMIT = 4
O_MARKET_SIZE = 5
O_TRIG = 6
O_THR = 7
O_SCORE = 8
O_AMT = 9
O_ATLEAST = 10
O_ROUND_CAP = 11
O_VAL = 12                                 # MAX_T x MAX_ORD
O_COUNT = O_VAL + MAX_T * MAX_ORD          # MAX_T: cards of each produce in the game
O_PSTEP = O_COUNT + MAX_T                  # MAX_T x MAX_STEPS x 3
O_CSTEP = O_PSTEP + MAX_T * MAX_STEPS * 3  # MAX_C slots x MAX_STEPS x 3 (characters in play, by slot)
O_CID = O_CSTEP + MAX_C * MAX_STEPS * 3    # MAX_C
O_DYN = O_CID + MAX_C
O_SEAT = O_DYN
O_ROUND = O_DYN + 1
O_FP = O_DYN + 2
O_TURN_IDX = O_DYN + 3
O_MARKERS = O_DYN + 4
O_FINAL = O_DYN + 5
O_DECK = O_DYN + 6
O_DISCARD_N = O_DYN + 7
O_RESHUF = O_DYN + 8
O_DKIND = O_DYN + 9       # pending decision
O_SKIND = O_DYN + 10      # the step being resolved (kind, a0, a1) and its progress
O_SA0 = O_DYN + 11
O_SA1 = O_DYN + 12
O_SCOUNT = O_DYN + 13
O_HAND = O_DYN + 16                # MAX_T: own hand
O_MARKET = O_HAND + MAX_T          # MAX_T
O_PLAY = O_MARKET + MAX_T          # MAX_P x MAX_T (by seat)
O_COINS = O_PLAY + MAX_P * MAX_T   # MAX_P
O_HANDN = O_COINS + MAX_P          # MAX_P
O_CH_COINS = O_HANDN + MAX_P       # MAX_C (by slot)
O_CH_MARK = O_CH_COINS + MAX_C     # MAX_C
# appended for search players (existing offsets unchanged); all public: which market condition was drawn,
# the round-1 first player, who triggered the end, the coins each player took from characters, and the open
# effect frames (which character or card ability is being resolved, and where)
O_COND = O_CH_MARK + MAX_C
O_FP0 = O_COND + 1
O_TRIG_SEAT = O_COND + 2
O_DEPTH = O_COND + 3
O_FRAME = O_COND + 4               # 2 frames x F_SIZE, as S_FRAME
O_C_CHAR = O_FRAME + 2 * F_SIZE    # MAX_P (by seat)
OBS_SIZE = O_C_CHAR + MAX_P


@njit(cache=True)
def seed_rng(seed):
    """Seed numba's generator (separate from numpy's): the trace calls this to replay a kernel batch."""
    np.random.seed(seed)


@njit(cache=True)
def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int32)


@njit(cache=True)
def hand_size(s, p):
    n = 0
    for t in range(MAX_T):
        n += s[S_HAND + p * MAX_T + t]
    return n


@njit(cache=True)
def orders_of(s, p):
    n = 0
    for t in range(MAX_T):
        n += s[S_PLAY + p * MAX_T + t]
    return n


@njit(cache=True)
def market_total(s):
    n = 0
    for t in range(MAX_T):
        n += s[S_MARKET + t]
    return n


@njit(cache=True)
def deck_left(s):
    return s[S_DECKLEN] - s[S_DECKPOS]


@njit(cache=True)
def discard_total(s):
    n = 0
    for t in range(MAX_T):
        n += s[S_DISCARD + t]
    return n


@njit(cache=True)
def _shuffle_deck(s, n):
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = np.random.randint(0, i + 1)
        s[S_DECK + i], s[S_DECK + j] = s[S_DECK + j], s[S_DECK + i]
    s[S_DECKPOS] = 0
    s[S_DECKLEN] = n


@njit(cache=True)
def _reshuffle(s):
    """The discard pile shuffled into a new deck (a "reshuffle"); False, and nothing counted, when it is empty."""
    n = 0
    for t in range(MAX_T):
        for _ in range(s[S_DISCARD + t]):
            s[S_DECK + n] = t
            n += 1
        s[S_DISCARD + t] = 0
    if n == 0:
        s[S_DECKPOS] = 0
        s[S_DECKLEN] = 0
        return False
    _shuffle_deck(s, n)
    s[S_RESHUF] += 1
    return True


@njit(cache=True)
def draw_card(s, cfg):
    """Top card of the deck (its produce type); -1 when deck and discard are both empty (rules page: the draw
    does nothing). Rulebook: "If during a turn the produce card deck is exhausted, shuffle all cards in the
    discard pile together to form a new deck": by default (rules.reshuffle = "when_empty") that happens the
    moment the last card leaves the deck; "at_next_draw" waits for a draw to meet the empty deck. Under both,
    a draw that meets an empty deck reshuffles first (the deck ran out while the discard was empty)."""
    if s[S_DECKPOS] >= s[S_DECKLEN] and not _reshuffle(s):
        return -1
    t = s[S_DECK + s[S_DECKPOS]]
    s[S_DECKPOS] += 1
    if cfg[CFG_RESHUFFLE_NOW] == 1 and s[S_DECKPOS] >= s[S_DECKLEN]:
        _reshuffle(s)
    return t


@njit(cache=True)
def draw_to_hand(s, cfg, p, n):
    for _ in range(n):
        t = draw_card(s, cfg)
        if t < 0:
            return
        s[S_HAND + p * MAX_T + t] += 1


@njit(cache=True)
def refill_market(s, cfg):
    while market_total(s) < cfg[CFG_MARKET_SIZE]:
        t = draw_card(s, cfg)
        if t < 0:
            return
        s[S_MARKET + t] += 1


@njit(cache=True)
def _gain(s, p, coins, source):
    s[S_COINS + p] += coins
    s[S_ISSUED] += coins
    s[source + p] += coins
    if source == S_C_ABIL and s[S_DEPTH] > 0:  # the innermost open effect gave them (a Scholar's coconut: coconut)
        o = S_FRAME + (s[S_DEPTH] - 1) * F_SIZE
        by = s[o + F_ID] + (MAX_C if s[o + F_SRC] == SRC_PRODUCE else 0)
        s[S_C_ABIL_BY + p * ABIL_BY + by] += coins


@njit(cache=True)
def new_game(s, cfg, players):
    """Setup in the rulebook's order: characters, produce, hands, market, condition, first player, coins."""
    s[:] = 0
    s[S_NP] = players
    nc = cfg[CFG_NC]
    k = 0
    for c in range(nc):  # standard characters, in configuration order
        if cfg[CFG_CSTD + c] == 1:
            s[S_CH_ID + k] = c
            k += 1
    specials = np.empty(nc, dtype=np.int64)
    ns = 0
    for c in range(nc):
        if cfg[CFG_CSTD + c] == 0:
            specials[ns] = c
            ns += 1
    for i in range(ns - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        specials[i], specials[j] = specials[j], specials[i]
    for i in range(max(0, players - cfg[CFG_SPECIALS_FEWER])):
        s[S_CH_ID + k] = specials[i]
        k += 1
    s[S_NCH] = k
    n = 0
    for t in range(cfg[CFG_NT]):
        for _ in range(cfg[CFG_COUNT + t]):
            s[S_DECK + n] = t
            n += 1
    _shuffle_deck(s, n)
    for p in range(players):
        draw_to_hand(s, cfg, p, cfg[CFG_START_HAND])
    refill_market(s, cfg)
    fixed = cfg[CFG_COND_FIXED]
    s[S_COND] = np.random.randint(0, cfg[CFG_NCOND]) if fixed < 0 else fixed
    fp = np.random.randint(0, players) if cfg[CFG_FIRST] < 0 else cfg[CFG_FIRST]
    s[S_FP] = fp
    s[S_FP0] = fp
    for p in range(players):
        if p != fp:
            _gain(s, p, cfg[CFG_SETUP_COINS], S_C_SETUP)
    s[S_ROUND] = 1
    s[S_TRIG_SEAT] = -1
    s[S_LAST_CH] = -1
    _start_turn(s, cfg, 0)


@njit(cache=True)
def _start_turn(s, cfg, idx):
    s[S_TURN_IDX] = idx
    s[S_CUR] = (s[S_FP] + idx) % s[S_NP]
    s[S_MARKERS] = cfg[CFG_FIRST_MARKERS] if idx == 0 else cfg[CFG_OTHER_MARKERS]
    s[S_PHASE] = PH_CHAR if s[S_MARKERS] > 0 else PH_DISCARD


@njit(cache=True)
def char_available(s, cfg, slot):
    return s[S_CH_MARK + slot] == 0 or (s[S_FINAL] == 1 and cfg[CFG_REUSE] == 1)


@njit(cache=True)
def _step_of(s, cfg, f):
    """(kind, a0, a1) of the step frame f is at; kind K_NONE past the last step."""
    i = s[S_FRAME + f * F_SIZE + F_STEP]
    if i >= MAX_STEPS:
        return K_NONE, 0, 0
    base = CFG_CSTEP if s[S_FRAME + f * F_SIZE + F_SRC] == SRC_CHAR else CFG_PSTEP
    o = base + (s[S_FRAME + f * F_SIZE + F_ID] * MAX_STEPS + i) * 3
    return cfg[o], cfg[o + 1], cfg[o + 2]


@njit(cache=True)
def _push(s, src, ident):
    f = s[S_DEPTH]
    if f >= 2:
        raise ValueError("effect nesting deeper than 2 (config should have refused it)")
    o = S_FRAME + f * F_SIZE
    s[o + F_SRC], s[o + F_ID], s[o + F_STEP], s[o + F_COUNT] = src, ident, 0, 0
    s[S_DEPTH] = f + 1


@njit(cache=True)
def _next_step(s):
    o = S_FRAME + (s[S_DEPTH] - 1) * F_SIZE
    s[o + F_STEP] += 1
    s[o + F_COUNT] = 0


@njit(cache=True)
def has_order(s, cfg, p):
    for t in range(cfg[CFG_NT]):
        if s[S_HAND + p * MAX_T + t] > 0:
            return True
    return False


@njit(cache=True)
def fulfil(s, cfg, p, t, size, bonus):
    """An order of `size` cards of produce t: its value (plus a character's bonus) from the supply; one card
    to the play area, the rest to the discard pile."""
    coins = cfg[CFG_VAL + t * MAX_ORD + size - 1]
    s[S_HAND + p * MAX_T + t] -= size
    s[S_PLAY + p * MAX_T + t] += 1
    s[S_DISCARD + t] += size - 1
    s[S_COINS + p] += coins
    s[S_ISSUED] += coins
    s[S_C_ORD + p * MAX_T + t] += coins
    s[S_ORDSIZE + t * MAX_ORD + size - 1] += 1
    if bonus > 0:
        _gain(s, p, bonus, S_C_ABIL)


@njit(cache=True)
def _cycle_draw(s, cfg, p):
    f = s[S_DEPTH] - 1
    draw_to_hand(s, cfg, p, s[S_FRAME + f * F_SIZE + F_COUNT])
    _next_step(s)


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def advance(s, cfg):
    """Run automatic steps until a decision is pending or the game is over."""
    while True:
        ph = s[S_PHASE]
        if ph == PH_STEP:
            if s[S_DEPTH] == 0:
                s[S_MARKERS] -= 1
                s[S_PHASE] = PH_CHAR if s[S_MARKERS] > 0 else PH_DISCARD
                continue
            f = s[S_DEPTH] - 1
            kind, a0, a1 = _step_of(s, cfg, f)
            p = s[S_CUR]
            if kind == K_NONE:
                s[S_DEPTH] = f  # pop: the parent already points past the step that opened this frame
                continue
            count = s[S_FRAME + f * F_SIZE + F_COUNT]
            if kind == K_DRAW:
                draw_to_hand(s, cfg, p, a0)
                _next_step(s)
            elif kind == K_GAIN:
                _gain(s, p, a0, S_C_ABIL)
                _next_step(s)
            elif kind == K_PER_ORDER:
                _gain(s, p, min(a0 * orders_of(s, p), a1), S_C_ABIL)
                _next_step(s)
            elif kind == K_TAKE:
                if count >= a0 or market_total(s) == 0:
                    _next_step(s)
                else:
                    return
            elif kind == K_TAKE_TYPE or kind == K_MARKET_AB:
                if market_total(s) == 0:
                    _next_step(s)
                else:
                    return
            elif kind == K_FULFIL or kind == K_HAND_AB:
                if hand_size(s, p) == 0:
                    if kind == K_FULFIL and cfg[CFG_BONUS_NO_ORDER] == 1 and a0 > 0:
                        _gain(s, p, a0, S_C_ABIL)  # no order to fulfil: the extra coins still come (rules page)
                    _next_step(s)
                else:
                    return
            elif kind == K_CYCLE:
                if count >= a0 or hand_size(s, p) == 0:
                    _cycle_draw(s, cfg, p)
                else:
                    return
            else:
                raise ValueError("unknown effect kind")
        elif ph == PH_DISCARD:
            if hand_size(s, s[S_CUR]) > cfg[CFG_HAND_LIMIT]:
                return
            _end_turn(s, cfg)
        else:
            return  # PH_CHAR always has an option; PH_OVER is final


@njit(cache=True)
def trigger_met(s, cfg):
    """The market condition's end trigger as checked when a turn ends (round triggers: end of round)."""
    c = s[S_COND]
    kind, thr = cfg[CFG_TRIG + c], cfg[CFG_THR + c]
    if kind == TR_ORDERS:
        for p in range(s[S_NP]):
            if orders_of(s, p) >= thr:
                return True
    elif kind == TR_COINS:
        for p in range(s[S_NP]):
            if s[S_COINS + p] >= thr:
                return True
    elif kind == TR_RESHUFFLES:
        return s[S_RESHUF] >= thr
    return False


@njit(cache=True)
def _end_turn(s, cfg):
    if s[S_FINAL] == 0 and trigger_met(s, cfg):
        s[S_FINAL] = 1
        s[S_TRIG_SEAT] = s[S_CUR]  # takes the market condition card
    idx = s[S_TURN_IDX] + 1
    if idx < s[S_NP]:
        _start_turn(s, cfg, idx)
    else:
        end_round(s, cfg)


@njit(cache=True)
def end_round(s, cfg):
    c = s[S_COND]
    if cfg[CFG_TRIG + c] == TR_ROUNDS and s[S_FINAL] == 0 and s[S_ROUND] >= cfg[CFG_THR + c]:
        s[S_FINAL] = 1
    if s[S_FINAL] == 1:
        end_game(s, cfg, END_TRIGGER)
        return
    if s[S_ROUND] >= cfg[CFG_ROUND_CAP]:
        end_game(s, cfg, END_ROUND_CAP)
        return
    for k in range(s[S_NCH]):
        if s[S_CH_MARK + k] == 0:
            s[S_CH_COINS + k] += cfg[CFG_UNUSED_COINS]
            s[S_PLACED] += cfg[CFG_UNUSED_COINS]
            s[S_ISSUED] += cfg[CFG_UNUSED_COINS]
        s[S_CH_MARK + k] = 0
    s[S_MARKS_USED] = 0
    s[S_FP] = (s[S_FP] + 1) % s[S_NP]  # to the left = next clockwise
    refill_market(s, cfg)
    s[S_ROUND] += 1
    _start_turn(s, cfg, 0)


@njit(cache=True)
def condition_coins_of(s, cfg, p):
    """End-of-game coins of the market condition for seat p."""
    c = s[S_COND]
    kind, amt, least = cfg[CFG_SCORE + c], cfg[CFG_AMT + c], cfg[CFG_ATLEAST + c]
    np_ = s[S_NP]
    nt = cfg[CFG_NT]
    coins = 0
    if kind == SC_PER_TYPE:
        for t in range(nt):
            if s[S_PLAY + p * MAX_T + t] > 0:
                coins += amt
    elif kind == SC_PER_HAND:
        coins = amt * hand_size(s, p)
    elif kind == SC_MOST_ORDERS:
        best = 0
        for q in range(np_):
            best = max(best, orders_of(s, q))
        if best >= least and orders_of(s, p) == best:
            coins = amt
    elif kind == SC_MOST_EACH:
        for t in range(nt):
            best = 0
            for q in range(np_):
                best = max(best, s[S_PLAY + q * MAX_T + t])
            if best >= least and s[S_PLAY + p * MAX_T + t] == best:
                coins += amt
    return coins


@njit(cache=True)
def condition_coins(s, cfg, out):
    """End-of-game coins of the market condition for every seat into out[:players]."""
    for p in range(s[S_NP]):
        out[p] = condition_coins_of(s, cfg, p)


@njit(cache=True)
def end_game(s, cfg, reason):
    # condition_coins_of reads plays, hands and the condition, never coins, so paying seat by seat is the same
    # as scoring everyone first; and no array here lets advance/apply_action compile without reference counting
    for p in range(s[S_NP]):
        _gain(s, p, condition_coins_of(s, cfg, p), S_C_COND)
    s[S_END] = reason
    s[S_PHASE] = PH_OVER


@njit(cache=True)
def winners(s, share):
    """share[p] = 1/k for each of k winners (most coins, then most condition coins), else 0. Returns k."""
    np_ = s[S_NP]
    best_c, best_m = -1, -1
    for p in range(np_):
        c, m = s[S_COINS + p], s[S_C_COND + p]
        if c > best_c or (c == best_c and m > best_m):
            best_c, best_m = c, m
    k = 0
    for p in range(np_):
        if s[S_COINS + p] == best_c and s[S_C_COND + p] == best_m:
            k += 1
    for p in range(np_):
        share[p] = 1.0 / k if (s[S_COINS + p] == best_c and s[S_C_COND + p] == best_m) else 0.0
    return k


@njit(cache=True)
def is_over(s):
    return s[S_PHASE] == PH_OVER


@njit(cache=True)
def _emit(actions, n, d, x, y):
    actions[n, 0] = d
    actions[n, 1] = x
    actions[n, 2] = y
    return n + 1


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def legal_actions(s, cfg, actions):
    """Options of the pending decision as rows [decision, x, y]; returns how many (0 when over)."""
    ph = s[S_PHASE]
    p = s[S_CUR]
    nt = cfg[CFG_NT]
    h = S_HAND + p * MAX_T
    n = 0
    if ph == PH_CHAR:
        for k in range(s[S_NCH]):
            if char_available(s, cfg, k):
                n = _emit(actions, n, D_CHAR, k, 0)
    elif ph == PH_DISCARD:
        for t in range(nt):
            if s[h + t] > 0:
                n = _emit(actions, n, D_DISCARD, t, 0)
    elif ph == PH_STEP:
        kind, a0, a1 = _step_of(s, cfg, s[S_DEPTH] - 1)
        if kind == K_TAKE_TYPE:  # y: how many cards of type x, or 0 when the count is not a choice
            choice = a0 > 0 and cfg[CFG_TAKE_CHOICE] == 1
            for t in range(nt):
                m = s[S_MARKET + t]
                if m > 0:
                    if choice:
                        for c in range(1, min(a0, m) + 1):
                            n = _emit(actions, n, D_TAKE_TYPE, t, c)
                    else:
                        n = _emit(actions, n, D_TAKE_TYPE, t, 0)
        elif kind == K_TAKE or kind == K_MARKET_AB:
            d = D_TAKE if kind == K_TAKE else D_MARKET_AB
            for t in range(nt):
                if s[S_MARKET + t] > 0:
                    n = _emit(actions, n, d, t, 0)
        elif kind == K_FULFIL:
            for t in range(nt):
                for size in range(1, min(s[h + t], cfg[CFG_MAXORD]) + 1):
                    n = _emit(actions, n, D_FULFIL, t, size)
        elif kind == K_HAND_AB or kind == K_CYCLE:
            d = D_HAND_AB if kind == K_HAND_AB else D_CYCLE
            for t in range(nt):
                if s[h + t] > 0:
                    n = _emit(actions, n, d, t, 0)
            if kind == K_CYCLE:
                n = _emit(actions, n, D_CYCLE, -1, 0)  # stop discarding ("up to")
    return n


@njit(cache=True)
def pending_decision(s, cfg):
    """The decision kind now pending (-1 when the game is over)."""
    ph = s[S_PHASE]
    if ph == PH_CHAR:
        return D_CHAR
    if ph == PH_DISCARD:
        return D_DISCARD
    if ph == PH_OVER:
        return -1
    kind, a0, a1 = _step_of(s, cfg, s[S_DEPTH] - 1)
    if kind == K_TAKE:
        return D_TAKE
    if kind == K_TAKE_TYPE:
        return D_TAKE_TYPE
    if kind == K_MARKET_AB:
        return D_MARKET_AB
    if kind == K_FULFIL:
        return D_FULFIL
    if kind == K_HAND_AB:
        return D_HAND_AB
    return D_CYCLE


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def apply_action(s, cfg, d, x, y):
    """Apply option (d, x, y) of the pending decision, then run on to the next decision."""
    p = s[S_CUR]
    h = S_HAND + p * MAX_T
    if d == D_CHAR:
        coins = s[S_CH_COINS + x]
        s[S_LAST_CH] = x
        s[S_LAST_COINS] = coins
        s[S_COINS + p] += coins
        s[S_C_CHAR + p] += coins
        s[S_CH_COINS + x] = 0
        s[S_CH_MARK + x] += 1
        s[S_MARKS_USED] += 1
        s[S_NUSES] += 1
        _push(s, SRC_CHAR, s[S_CH_ID + x])
        s[S_PHASE] = PH_STEP
    elif d == D_DISCARD:
        s[h + x] -= 1
        s[S_DISCARD + x] += 1
    else:
        f = s[S_DEPTH] - 1
        kind, a0, a1 = _step_of(s, cfg, f)
        if d == D_TAKE:
            s[S_MARKET + x] -= 1
            s[h + x] += 1
            s[S_FRAME + f * F_SIZE + F_COUNT] += 1
        elif d == D_TAKE_TYPE:  # y cards as chosen; y = 0: every card of the type (a0 = 0) or up to a0
            m = y
            if y <= 0:
                m = s[S_MARKET + x] if a0 <= 0 else min(a0, s[S_MARKET + x])
            s[S_MARKET + x] -= m
            s[h + x] += m
            _next_step(s)
        elif d == D_FULFIL:
            fulfil(s, cfg, p, x, y, a0)
            _next_step(s)
        elif d == D_CYCLE:
            if x < 0:
                _cycle_draw(s, cfg, p)
            else:
                s[h + x] -= 1
                s[S_DISCARD + x] += 1
                s[S_FRAME + f * F_SIZE + F_COUNT] += 1
        elif d == D_HAND_AB:
            s[h + x] -= 1
            s[S_DISCARD + x] += 1
            _next_step(s)
            _push(s, SRC_PRODUCE, x)
        elif d == D_MARKET_AB:
            s[S_MARKET + x] -= 1
            s[S_DISCARD + x] += 1
            _next_step(s)
            _push(s, SRC_PRODUCE, x)
    s[S_DECISIONS] += 1
    advance(s, cfg)


@njit(cache=True)
def observe_static(s, cfg, obs):
    """The parts of the observation fixed for a whole game: card values, abilities, characters in play,
    the market condition (all public)."""
    obs[:] = 0
    obs[O_NT] = cfg[CFG_NT]
    obs[O_NP] = s[S_NP]
    obs[O_NCH] = s[S_NCH]
    obs[O_MAXORD] = cfg[CFG_MAXORD]
    obs[O_HAND_LIMIT] = cfg[CFG_HAND_LIMIT]
    obs[O_MARKET_SIZE] = cfg[CFG_MARKET_SIZE]
    c = s[S_COND]
    obs[O_TRIG], obs[O_THR] = cfg[CFG_TRIG + c], cfg[CFG_THR + c]
    obs[O_SCORE], obs[O_AMT], obs[O_ATLEAST] = cfg[CFG_SCORE + c], cfg[CFG_AMT + c], cfg[CFG_ATLEAST + c]
    obs[O_ROUND_CAP] = cfg[CFG_ROUND_CAP]
    for i in range(MAX_T * MAX_ORD):
        obs[O_VAL + i] = cfg[CFG_VAL + i]
    for t in range(MAX_T):
        obs[O_COUNT + t] = cfg[CFG_COUNT + t]
    for i in range(MAX_T * MAX_STEPS * 3):
        obs[O_PSTEP + i] = cfg[CFG_PSTEP + i]
    for k in range(s[S_NCH]):
        cid = s[S_CH_ID + k]
        obs[O_CID + k] = cid
        for i in range(MAX_STEPS * 3):
            obs[O_CSTEP + k * MAX_STEPS * 3 + i] = cfg[CFG_CSTEP + cid * MAX_STEPS * 3 + i]


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def observe(s, cfg, obs):
    """What the player to act may know (rules page, Information): the public table and their own hand."""
    p = s[S_CUR]
    obs[O_SEAT] = p
    obs[O_ROUND] = s[S_ROUND]
    obs[O_FP] = s[S_FP]
    obs[O_TURN_IDX] = s[S_TURN_IDX]
    obs[O_MARKERS] = s[S_MARKERS]
    obs[O_FINAL] = s[S_FINAL]
    obs[O_DECK] = deck_left(s)
    obs[O_DISCARD_N] = discard_total(s)
    obs[O_RESHUF] = s[S_RESHUF]
    obs[O_DKIND] = pending_decision(s, cfg)
    if s[S_PHASE] == PH_STEP:
        f = s[S_DEPTH] - 1
        kind, a0, a1 = _step_of(s, cfg, f)
        obs[O_SKIND], obs[O_SA0], obs[O_SA1] = kind, a0, a1
        obs[O_SCOUNT] = s[S_FRAME + f * F_SIZE + F_COUNT]
    else:
        obs[O_SKIND], obs[O_SA0], obs[O_SA1], obs[O_SCOUNT] = K_NONE, 0, 0, 0
    for t in range(MAX_T):
        obs[O_HAND + t] = s[S_HAND + p * MAX_T + t]
        obs[O_MARKET + t] = s[S_MARKET + t]
    np_ = s[S_NP]
    for q in range(np_):
        for t in range(MAX_T):
            obs[O_PLAY + q * MAX_T + t] = s[S_PLAY + q * MAX_T + t]
        obs[O_COINS + q] = s[S_COINS + q]
        obs[O_HANDN + q] = hand_size(s, q)
    for k in range(s[S_NCH]):
        obs[O_CH_COINS + k] = s[S_CH_COINS + k]
        obs[O_CH_MARK + k] = s[S_CH_MARK + k]
    obs[O_COND] = s[S_COND]
    obs[O_FP0] = s[S_FP0]
    obs[O_TRIG_SEAT] = s[S_TRIG_SEAT]
    obs[O_DEPTH] = s[S_DEPTH]
    for i in range(2 * F_SIZE):
        obs[O_FRAME + i] = s[S_FRAME + i]
    for q in range(np_):
        obs[O_C_CHAR + q] = s[S_C_CHAR + q]


@njit(cache=True)
def total_coins(s):
    """Coins out of the supply now: held by players plus lying on characters."""
    n = 0
    for p in range(s[S_NP]):
        n += s[S_COINS + p]
    for k in range(s[S_NCH]):
        n += s[S_CH_COINS + k]
    return n


@njit(cache=True)
def check_invariants(s, cfg):
    """Debug mode: cards conserved per produce; coins only from the supply, characters and rules."""
    np_ = s[S_NP]
    nt = cfg[CFG_NT]
    in_deck = np.zeros(MAX_T, dtype=np.int64)
    for i in range(s[S_DECKPOS], s[S_DECKLEN]):
        in_deck[s[S_DECK + i]] += 1
    for t in range(MAX_T):
        total = in_deck[t] + s[S_MARKET + t] + s[S_DISCARD + t]
        for p in range(MAX_P):
            total += s[S_HAND + p * MAX_T + t] + s[S_PLAY + p * MAX_T + t]
            if s[S_HAND + p * MAX_T + t] < 0:
                raise AssertionError("invariant: negative hand count")
        expect = cfg[CFG_COUNT + t] if t < nt else 0
        if total != expect:
            raise AssertionError("invariant: produce cards not conserved")
        if s[S_MARKET + t] < 0 or s[S_DISCARD + t] < 0:
            raise AssertionError("invariant: negative market or discard count")
    if market_total(s) > cfg[CFG_MARKET_SIZE]:
        raise AssertionError("invariant: market over its size")
    held = 0
    taken = 0
    for p in range(np_):
        src = s[S_C_CHAR + p] + s[S_C_ABIL + p] + s[S_C_SETUP + p] + s[S_C_COND + p]
        for t in range(MAX_T):
            src += s[S_C_ORD + p * MAX_T + t]
        if src != s[S_COINS + p]:
            raise AssertionError("invariant: a player's coins do not add up by source")
        held += s[S_COINS + p]
        taken += s[S_C_CHAR + p]
    on_chars = 0
    for k in range(s[S_NCH]):
        on_chars += s[S_CH_COINS + k]
        if s[S_CH_COINS + k] < 0:
            raise AssertionError("invariant: negative coins on a character")
    if on_chars + taken != s[S_PLACED]:
        raise AssertionError("invariant: coins on characters not conserved")
    if held + on_chars != s[S_ISSUED]:
        raise AssertionError("invariant: coins not from the supply")
    marks = 0
    for k in range(s[S_NCH]):
        marks += s[S_CH_MARK + k]
        if s[S_CH_MARK + k] > 1 and s[S_FINAL] == 0:
            raise AssertionError("invariant: two markers on one character before the final round")
    if marks != s[S_MARKS_USED]:
        raise AssertionError("invariant: markers not conserved")
    if s[S_PHASE] == PH_CHAR:
        for p in range(np_):
            if p != s[S_CUR] and hand_size(s, p) > cfg[CFG_HAND_LIMIT]:
                raise AssertionError("invariant: a hand over the limit between turns")
