"""Merchants of Muziris forward model behind the engine interface (sim.interface): a resumable state machine over
one int32 vector that waits at one *decision* at a time, its options listed as rows [decision, x, y].

Abilities and characters are up to MAX_STEPS *steps* (effect kind + two arguments) from the configuration vector,
resolved in order. Chance: numba's generator, re-seeded per game; strategies' tie-breaks draw from it in play order.
"""
import numpy as np
from sim.jit import njit

from sim.interface import Layout, codes
from sim.rng import game_seed, reseed

MAX_T = 12       # produce types
MAX_P = 4        # players
MAX_C = 16       # characters in the configuration (standard + special)
MAX_COND = 8     # market conditions
MAX_ORD = 5      # largest order size
MAX_STEPS = 3    # steps per ability / character action
MAX_DECK = 512
PICK_COINS = 40  # character picks counted by coins on the character 0..40; the last bucket holds 40 or more
POT_K = 32       # copies of a produce whose order coins the observation tabulates (strategies' hot lookup)

def _offsets(layout):
    """Every field's offset in declaration order, for module-level ints numba compiles as constants."""
    return (layout.offset(f) for f in layout.fields)


# --- an action row: the decision it answers, and two numbers (a character slot or produce type; a count) ---
ACTION = Layout("muziris action", [("decision", 1), ("x", 1), ("y", 1)])
ACTION.export(globals(), "A_")
ACOLS = ACTION.size
MAX_ACTIONS = MAX_T * MAX_ORD + MAX_C + 2

# --- an effect step (kind, a0, a1), MAX_STEPS per ability or character action ---
STEP = Layout("muziris step", [("kind", 1), ("a0", 1), ("a1", 1)])
STEP_W = STEP.size
KIND = codes("none", "draw", "take", "take_type", "gain", "fulfil", "cycle", "coins_per_order", "hand_ability",
             "market_ability")
K_NONE, K_DRAW, K_TAKE, K_TAKE_TYPE, K_GAIN, K_FULFIL, K_CYCLE, K_PER_ORDER, K_HAND_AB, K_MARKET_AB = KIND.values()

# --- market conditions: what ends the game, what it scores ---
TRIGGER = codes("orders_at_least", "reshuffles_at_least", "coins_at_least", "rounds_ended", "never")
TR_ORDERS, TR_RESHUFFLES, TR_COINS, TR_ROUNDS, TR_NEVER = TRIGGER.values()
SCORING = codes("none", "per_distinct_type", "per_hand_card", "most_orders", "most_of_each_type")
SC_NONE, SC_PER_TYPE, SC_PER_HAND, SC_MOST_ORDERS, SC_MOST_EACH = SCORING.values()

# --- decisions (column A_DECISION of an action row) ---
DECISION = codes("character", "take", "take_type", "fulfil", "cycle", "hand_ability", "market_ability",
                 "discard")
DECISION_NAMES = tuple(DECISION)
D_CHAR, D_TAKE, D_TAKE_TYPE, D_FULFIL, D_CYCLE, D_HAND_AB, D_MARKET_AB, D_DISCARD = DECISION.values()
DECISION_OF = tuple(DECISION.get(kind, -1) for kind in KIND)  # the decision a step asks: named like its kind

PH_CHAR, PH_STEP, PH_DISCARD, PH_OVER = codes("character", "step", "discard", "over").values()
END = codes("running", "trigger", "round_cap")
END_NAMES = tuple(END)
END_RUNNING, END_TRIGGER, END_ROUND_CAP = END.values()
SRC_CHAR, SRC_PRODUCE = codes("character", "produce").values()  # what opened an effect frame

# --- configuration vector (int64) ---
CFG = Layout("muziris cfg", [  # a rule's field is named by its key in [rules] (sim.muziris.config)
    ("nt", 1), ("nc", 1), ("ncond", 1),  # produce types, characters, conditions declared
    ("max_order", 1), ("hand_limit", 1), ("starting_hand", 1), ("market_size", 1), ("setup_coins", 1),
    ("unused_character_coins", 1), ("round_cap", 1),
    ("first_player", 1),                 # -1 random, else seat
    ("first_player_markers", 1), ("other_player_markers", 1),
    ("specials_fewer_than_players", 1),  # specials in play = players - this
    ("final_round_reuse", 1),            # final round: marked characters may be chosen again
    ("condition", 1),                    # -1 random, else condition index
    ("boxed_coins", 1),
    ("reshuffle", 1),            # 1: the discard is reshuffled the moment the last card leaves the deck; 0: next draw
    ("take_up_to", 1),           # 1: "take up to N of one type" lets the player choose how many (1..N); 0: the most
    ("bonus_without_order", 1),  # 1: a fulfil step's extra coins are gained even when no order can be fulfilled
    ("count", MAX_T), ("val", (MAX_T, MAX_ORD)), ("pstep", (MAX_T, MAX_STEPS, STEP_W)),
    ("cstd", MAX_C), ("cstep", (MAX_C, MAX_STEPS, STEP_W)),
    ("trig", MAX_COND), ("thr", MAX_COND), ("score", MAX_COND), ("amt", MAX_COND), ("atleast", MAX_COND),
])
CFG.export(globals(), "CFG_")
CFG_SIZE = CFG.size

# --- an open effect frame: which character or produce ability, at which step, how far into it ---
FRAME = Layout("muziris frame", [("src", 1), ("id", 1), ("step", 1), ("count", 1)])
FRAME.export(globals(), "F_")
F_SIZE = FRAME.size
MAX_DEPTH = 2    # effect frames open at once (a character using a card's ability)
ABIL_BY = MAX_C + MAX_T  # ability coins by what gave them: a character's action (config index), or MAX_C + type

# --- state vector (int32) ---
STATE = Layout("muziris state", [
    ("np", 1), ("round", 1),
    ("fp", 1),               # first player of this round
    ("fp0", 1),              # first player of round 1
    ("cond", 1), ("phase", 1), ("cur", 1),
    ("turn_idx", 1),         # position of the current player in this round's order (0 = first player)
    ("markers", 1),          # markers the current player still has to place this turn
    ("final", 1),            # 1 once the market condition is triggered: this is the final round
    ("trig_seat", 1), ("end", 1), ("reshuf", 1), ("deckpos", 1), ("decklen", 1),
    ("nch", 1),              # characters in play
    ("issued", 1),           # coins taken from the supply so far: held by players or lying on characters
    ("placed", 1),           # coins put on characters so far (debug invariant)
    ("depth", 1),            # effect frames open
    ("decisions", 1),        # actions applied
    ("marks_used", 1),       # markers placed this round (debug invariant)
    ("nuses", 1),            # character uses this game
    ("frame", (MAX_DEPTH, F_SIZE)),
    ("ch_id", MAX_C),        # configuration index of the character in slot k
    ("ch_coins", MAX_C), ("ch_mark", MAX_C),
    ("market", MAX_T), ("discard", MAX_T),
    ("hand", (MAX_P, MAX_T)),
    ("play", (MAX_P, MAX_T)),  # one card per order fulfilled
    ("coins", MAX_P),
    ("c_ord", (MAX_P, MAX_T)),  # coins from orders by produce
    ("c_char", MAX_P),       # coins taken from characters
    ("c_abil", MAX_P),       # coins from abilities (gain, per-order, fulfil bonus)
    ("c_setup", MAX_P), ("c_cond", MAX_P),
    ("ordsize", (MAX_T, MAX_ORD)),  # orders fulfilled by produce and size
    ("deck", MAX_DECK),
    # results only: ability coins by what gave them (S_C_ABIL: the total), character picks by index and coins on
    # it, and which game was dealt (its seed, game + 1: `observe` writes the static part once per game)
    ("c_abil_by", (MAX_P, ABIL_BY)),
    ("picks", (MAX_C, PICK_COINS + 1)),
    ("stamp", 2),
])
STATE.export(globals(), "S_")
STATE_SIZE = STATE.size

# --- observation (int32): the static part is written once per game, the rest at every decision ---
OBS = Layout("muziris obs", [
    ("nt", 1), ("np", 1), ("nch", 1), ("maxord", 1), ("hand_limit", 1), ("market_size", 1),
    ("trig", 1), ("thr", 1), ("score", 1), ("amt", 1), ("atleast", 1), ("round_cap", 1),
    ("count", MAX_T),        # cards of each produce in the game; count, val, pstep: the configuration's block
    ("val", (MAX_T, MAX_ORD)),
    ("pstep", (MAX_T, MAX_STEPS, STEP_W)),
    ("cstep", (MAX_C, MAX_STEPS, STEP_W)),  # characters in play, by slot
    ("cid", MAX_C),
    ("pot", (MAX_T, POT_K)),  # pot[t, k]: coins k copies of t make as full orders plus one remainder order
    # the dynamic part
    ("seat", 1), ("round", 1), ("fp", 1), ("turn_idx", 1), ("markers", 1), ("final", 1), ("deck", 1),
    ("discard_n", 1), ("reshuf", 1),
    ("dkind", 1),            # pending decision
    ("step", STEP_W),        # the step being resolved (kind, a0, a1) and its progress
    ("scount", 1),
    ("hand", MAX_T),         # own hand
    ("market", MAX_T),
    ("play", (MAX_P, MAX_T)),  # by seat
    ("coins", MAX_P), ("handn", MAX_P),
    ("ch_coins", MAX_C), ("ch_mark", MAX_C),  # by slot
    # for search players, all public: which market condition was drawn, the round-1 first player, who
    # triggered the end, the open effect frames, the coins each player took from characters
    ("cond", 1), ("fp0", 1), ("trig_seat", 1), ("depth", 1), ("frame", (MAX_DEPTH, F_SIZE)), ("c_char", MAX_P),
    ("stamp", 2),            # the game whose static part this holds (the state's stamp)
])
OBS.export(globals(), "O_")
O_SKIND, O_SA0, O_SA1 = (O_STEP + at for at in _offsets(STEP))
OBS_SIZE = OBS.size


# SINGLE_CALLER: functions with one jitted caller are inlined into it (inline="always"): compiled separately, LLVM
# optimised each one's whole call tree again in every caller above it (cold compile; cf. sim/mohur/layout.py).


@njit(cache=True)
def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int32)


@njit(cache=True, _nrt=False)  # strategies count rows of the observation with it too
def cards(s, at):
    """Cards in a row of counts by produce starting at `at` (S_MARKET, S_DISCARD, a seat's hand or play area)."""
    n = 0
    for t in range(MAX_T):
        n += s[at + t]
    return n


@njit(cache=True, int64=True)  # int64=True (sim.jit): seats come as int32 and int64, one overload
def hand_size(s, p):
    return cards(s, S_HAND + p * MAX_T)


@njit(cache=True, int64=True)
def orders_of(s, p):
    return cards(s, S_PLAY + p * MAX_T)  # one card in the play area per order fulfilled


@njit(cache=True)
def deck_left(s):
    return s[S_DECKLEN] - s[S_DECKPOS]


@njit(cache=True)
def _shuffle(s, at, n):
    for i in range(n - 1, 0, -1):  # Fisher-Yates over s[at:at + n]
        j = np.random.randint(0, i + 1)
        s[at + i], s[at + j] = s[at + j], s[at + i]


@njit(cache=True)
def _reshuffle(s):
    """The discard pile shuffled into a new deck (a "reshuffle"); False, and nothing counted, when it is empty."""
    n = 0
    for t in range(MAX_T):
        for _ in range(s[S_DISCARD + t]):
            s[S_DECK + n] = t
            n += 1
        s[S_DISCARD + t] = 0
    s[S_DECKPOS] = 0
    s[S_DECKLEN] = n
    if n == 0:
        return False
    _shuffle(s, S_DECK, n)
    s[S_RESHUF] += 1
    return True


@njit(cache=True, inline="always")  # SINGLE_CALLER: draw_to
def draw_card(s, cfg):
    """Top card of the deck (its produce type); -1 when deck and discard are both empty (the draw does nothing).
    The discard is reshuffled as the last card leaves the deck (rules.reshuffle = "when_empty") or at the next
    draw; a draw that meets an empty deck reshuffles first either way."""
    if s[S_DECKPOS] >= s[S_DECKLEN] and not _reshuffle(s):
        return -1
    t = s[S_DECK + s[S_DECKPOS]]
    s[S_DECKPOS] += 1
    if cfg[CFG_RESHUFFLE] == 1 and s[S_DECKPOS] >= s[S_DECKLEN]:
        _reshuffle(s)
    return t


@njit(cache=True, int64=True)
def draw_to(s, cfg, at, n):
    """n cards drawn into the row of counts at `at` (a hand, the market); fewer when deck and discard run dry."""
    for _ in range(n):
        t = draw_card(s, cfg)
        if t < 0:
            return
        s[at + t] += 1


@njit(cache=True)
def refill_market(s, cfg):
    draw_to(s, cfg, S_MARKET, cfg[CFG_MARKET_SIZE] - cards(s, S_MARKET))


@njit(cache=True, int64=True)
def _gain(s, p, coins, source):
    s[S_COINS + p] += coins
    s[S_ISSUED] += coins
    s[source + p] += coins
    if source == S_C_ABIL and s[S_DEPTH] > 0:  # the innermost open effect gave them (a Scholar's coconut: coconut)
        o = S_FRAME + (s[S_DEPTH] - 1) * F_SIZE
        by = s[o + F_ID] + (MAX_C if s[o + F_SRC] == SRC_PRODUCE else 0)
        s[S_C_ABIL_BY + p * ABIL_BY + by] += coins


@njit(cache=True)
def new_game(s, cfg, players, seed, game):
    """Game `game` of a batch seeded `seed`, set up in the rulebook's order, numba's generator seeded from it."""
    reseed(seed, game, 0)
    for i in range(STATE_SIZE):  # loops, not slices or reductions: those cost seconds of compiling (Mohur, 0b2a3af)
        s[i] = 0
    s[S_NP] = players
    s[S_STAMP] = np.int32(game_seed(seed, game, 0) >> np.uint32(1))
    s[S_STAMP + 1] = game + 1
    k = n_std = 0
    for std in (1, 0):  # standard characters in play, in configuration order, then the specials
        for c in range(cfg[CFG_NC]):
            if cfg[CFG_CSTD + c] == std:
                s[S_CH_ID + k] = c
                k += 1
                n_std += std
    _shuffle(s, S_CH_ID + n_std, k - n_std)  # the first (players - specials_fewer_than_players) stay in play
    s[S_NCH] = n_std + max(0, players - cfg[CFG_SPECIALS_FEWER_THAN_PLAYERS])
    for i in range(S_CH_ID + s[S_NCH], S_CH_ID + MAX_C):
        s[i] = 0
    for t in range(cfg[CFG_NT]):  # every card starts in the discard pile, whose first shuffle is the deck's
        s[S_DISCARD + t] = cfg[CFG_COUNT + t]
    _reshuffle(s)
    s[S_RESHUF] = 0
    for p in range(players):
        draw_to(s, cfg, S_HAND + p * MAX_T, cfg[CFG_STARTING_HAND])
    refill_market(s, cfg)
    fixed = cfg[CFG_CONDITION]
    s[S_COND] = np.random.randint(0, cfg[CFG_NCOND]) if fixed < 0 else fixed
    fp = np.random.randint(0, players) if cfg[CFG_FIRST_PLAYER] < 0 else cfg[CFG_FIRST_PLAYER]
    s[S_FP] = fp
    s[S_FP0] = fp
    for p in range(players):
        if p != fp:
            _gain(s, p, cfg[CFG_SETUP_COINS], S_C_SETUP)
    s[S_ROUND] = 1
    s[S_TRIG_SEAT] = -1
    _start_turn(s, cfg, 0)


@njit(cache=True)
def _start_turn(s, cfg, idx):
    s[S_TURN_IDX] = idx
    s[S_CUR] = (s[S_FP] + idx) % s[S_NP]
    s[S_MARKERS] = cfg[CFG_FIRST_PLAYER_MARKERS] if idx == 0 else cfg[CFG_OTHER_PLAYER_MARKERS]
    s[S_PHASE] = PH_CHAR if s[S_MARKERS] > 0 else PH_DISCARD


@njit(cache=True)
def _step_of(s, cfg, f):
    """(kind, a0, a1) of the step frame f is at; kind K_NONE past the last step."""
    i = s[S_FRAME + f * F_SIZE + F_STEP]
    if i >= MAX_STEPS:
        return K_NONE, 0, 0
    base = CFG_CSTEP if s[S_FRAME + f * F_SIZE + F_SRC] == SRC_CHAR else CFG_PSTEP
    o = base + (s[S_FRAME + f * F_SIZE + F_ID] * MAX_STEPS + i) * STEP_W
    return cfg[o], cfg[o + 1], cfg[o + 2]


@njit(cache=True)
def _push(s, src, ident):
    f = s[S_DEPTH]
    if f >= MAX_DEPTH:
        raise ValueError("effect nesting deeper than MAX_DEPTH (config should have refused it)")
    o = S_FRAME + f * F_SIZE
    s[o + F_SRC], s[o + F_ID], s[o + F_STEP], s[o + F_COUNT] = src, ident, 0, 0
    s[S_DEPTH] = f + 1


@njit(cache=True)
def _next_step(s):
    o = S_FRAME + (s[S_DEPTH] - 1) * F_SIZE
    s[o + F_STEP] += 1
    s[o + F_COUNT] = 0


@njit(cache=True, inline="always")  # one caller each, from here to end_game: see SINGLE_CALLER above
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


@njit(cache=True, _nrt=False, inline="always")  # no reference counting: as apply_action, its one caller
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
                draw_to(s, cfg, S_HAND + p * MAX_T, a0)
            elif kind == K_GAIN:
                _gain(s, p, a0, S_C_ABIL)
            elif kind == K_PER_ORDER:
                _gain(s, p, min(a0 * orders_of(s, p), a1), S_C_ABIL)
            elif kind == K_TAKE or kind == K_TAKE_TYPE or kind == K_MARKET_AB:
                if cards(s, S_MARKET) > 0 and (kind != K_TAKE or count < a0):
                    return  # the player chooses a card of the market
            elif kind == K_FULFIL or kind == K_HAND_AB or kind == K_CYCLE:
                if hand_size(s, p) > 0 and (kind != K_CYCLE or count < a0):
                    return  # the player chooses a card of their hand
                if kind == K_FULFIL and cfg[CFG_BONUS_WITHOUT_ORDER] == 1 and a0 > 0:
                    _gain(s, p, a0, S_C_ABIL)  # no order to fulfil: the extra coins still come (rules page)
                elif kind == K_CYCLE:
                    draw_to(s, cfg, S_HAND + p * MAX_T, count)  # as many as were discarded
            else:
                raise ValueError("unknown effect kind")
            _next_step(s)
        elif ph == PH_DISCARD:
            if hand_size(s, s[S_CUR]) > cfg[CFG_HAND_LIMIT]:
                return
            _end_turn(s, cfg)
        else:
            return  # PH_CHAR always has an option; PH_OVER is final


@njit(cache=True, inline="always")
def trigger_met(s, cfg):
    """The market condition's end trigger as checked when a turn ends (round triggers: end of round)."""
    c = s[S_COND]
    kind, thr = cfg[CFG_TRIG + c], cfg[CFG_THR + c]
    if kind == TR_RESHUFFLES:
        return s[S_RESHUF] >= thr
    for p in range(s[S_NP]):
        if (kind == TR_ORDERS and orders_of(s, p) >= thr) or (kind == TR_COINS and s[S_COINS + p] >= thr):
            return True
    return False


@njit(cache=True, inline="always")
def _end_turn(s, cfg):
    if s[S_FINAL] == 0 and trigger_met(s, cfg):
        s[S_FINAL] = 1
        s[S_TRIG_SEAT] = s[S_CUR]  # takes the market condition card
    idx = s[S_TURN_IDX] + 1
    if idx < s[S_NP]:
        _start_turn(s, cfg, idx)
    else:
        end_round(s, cfg)


@njit(cache=True, inline="always")
def end_round(s, cfg):
    c = s[S_COND]
    if cfg[CFG_TRIG + c] == TR_ROUNDS and s[S_FINAL] == 0 and s[S_ROUND] >= cfg[CFG_THR + c]:
        s[S_FINAL] = 1
    if s[S_FINAL] == 1 or s[S_ROUND] >= cfg[CFG_ROUND_CAP]:
        end_game(s, cfg, END_TRIGGER if s[S_FINAL] == 1 else END_ROUND_CAP)
        return
    for k in range(s[S_NCH]):
        if s[S_CH_MARK + k] == 0:
            s[S_CH_COINS + k] += cfg[CFG_UNUSED_CHARACTER_COINS]
            s[S_PLACED] += cfg[CFG_UNUSED_CHARACTER_COINS]
            s[S_ISSUED] += cfg[CFG_UNUSED_CHARACTER_COINS]
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


@njit(cache=True, inline="always")
def end_game(s, cfg, reason):
    # condition_coins_of never reads coins, so paying seat by seat is scoring everyone first, with no array (no NRT)
    for p in range(s[S_NP]):
        _gain(s, p, condition_coins_of(s, cfg, p), S_C_COND)
    s[S_END] = reason
    s[S_PHASE] = PH_OVER


@njit(cache=True)
def returns(s, cfg, out):
    """out[p] = 1/k for each of k winners (most coins, then most condition coins), else 0."""
    np_ = s[S_NP]
    best_c, best_m, k = -1, -1, 0
    for p in range(np_):
        c, m = s[S_COINS + p], s[S_C_COND + p]
        if c > best_c or (c == best_c and m > best_m):
            best_c, best_m, k = c, m, 1
        elif c == best_c and m == best_m:
            k += 1
    for p in range(np_):
        out[p] = 1.0 / k if (s[S_COINS + p] == best_c and s[S_C_COND + p] == best_m) else 0.0


@njit(cache=True)
def is_over(s):
    return s[S_PHASE] == PH_OVER


@njit(cache=True)
def current_player(s):
    return s[S_CUR]


@njit(cache=True, int64=True)
def _emit(actions, n, d, x, y):
    actions[n, A_DECISION] = d
    actions[n, A_X] = x
    actions[n, A_Y] = y
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
        reuse = s[S_FINAL] == 1 and cfg[CFG_FINAL_ROUND_REUSE] == 1  # final round: marked characters may be chosen again
        for k in range(s[S_NCH]):
            if s[S_CH_MARK + k] == 0 or reuse:
                n = _emit(actions, n, D_CHAR, k, 0)
    elif ph == PH_DISCARD:
        for t in range(nt):
            if s[h + t] > 0:
                n = _emit(actions, n, D_DISCARD, t, 0)
    elif ph == PH_STEP:
        kind, a0, a1 = _step_of(s, cfg, s[S_DEPTH] - 1)
        if kind == K_TAKE_TYPE:  # y: how many cards of type x, or 0 when the count is not a choice
            choice = a0 > 0 and cfg[CFG_TAKE_UP_TO] == 1
            for t in range(nt):
                m = s[S_MARKET + t]
                if m > 0 and choice:
                    for c in range(1, min(a0, m) + 1):
                        n = _emit(actions, n, D_TAKE_TYPE, t, c)
                elif m > 0:
                    n = _emit(actions, n, D_TAKE_TYPE, t, 0)
        elif kind == K_TAKE or kind == K_MARKET_AB:
            for t in range(nt):
                if s[S_MARKET + t] > 0:
                    n = _emit(actions, n, DECISION_OF[kind], t, 0)
        elif kind == K_FULFIL:
            for t in range(nt):
                for size in range(1, min(s[h + t], cfg[CFG_MAX_ORDER]) + 1):
                    n = _emit(actions, n, D_FULFIL, t, size)
        elif kind == K_HAND_AB or kind == K_CYCLE:
            for t in range(nt):
                if s[h + t] > 0:
                    n = _emit(actions, n, DECISION_OF[kind], t, 0)
            if kind == K_CYCLE:
                n = _emit(actions, n, D_CYCLE, -1, 0)  # stop discarding ("up to")
    return n


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def apply_action(s, cfg, actions, a):
    """Apply row `a` of the pending decision's options, then run on to the next decision."""
    d, x, y = actions[a, A_DECISION], actions[a, A_X], actions[a, A_Y]
    p = s[S_CUR]
    h = S_HAND + p * MAX_T
    if d == D_CHAR:
        coins = s[S_CH_COINS + x]
        s[S_PICKS + s[S_CH_ID + x] * (PICK_COINS + 1) + min(coins, PICK_COINS)] += 1
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
            if x < 0:  # stop: draw as many as were discarded
                draw_to(s, cfg, h, s[S_FRAME + f * F_SIZE + F_COUNT])
                _next_step(s)
            else:
                s[h + x] -= 1
                s[S_DISCARD + x] += 1
                s[S_FRAME + f * F_SIZE + F_COUNT] += 1
        elif d == D_HAND_AB or d == D_MARKET_AB:  # the card is discarded and its ability resolved
            s[(h if d == D_HAND_AB else S_MARKET) + x] -= 1
            s[S_DISCARD + x] += 1
            _next_step(s)
            _push(s, SRC_PRODUCE, x)
    s[S_DECISIONS] += 1
    advance(s, cfg)


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def observe(s, cfg, seat, obs):
    """What `seat` may know (rules page, Information): the public table and their own hand; the part fixed for the
    whole game is rewritten only when `obs` holds another game's (its stamp differs)."""
    if obs[O_STAMP] != s[S_STAMP] or obs[O_STAMP + 1] != s[S_STAMP + 1]:
        for i in range(OBS_SIZE):
            obs[i] = 0
        obs[O_NT] = cfg[CFG_NT]
        obs[O_NP] = s[S_NP]
        obs[O_NCH] = s[S_NCH]
        obs[O_MAXORD] = cfg[CFG_MAX_ORDER]
        obs[O_HAND_LIMIT] = cfg[CFG_HAND_LIMIT]
        obs[O_MARKET_SIZE] = cfg[CFG_MARKET_SIZE]
        c = s[S_COND]
        obs[O_TRIG], obs[O_THR] = cfg[CFG_TRIG + c], cfg[CFG_THR + c]
        obs[O_SCORE], obs[O_AMT], obs[O_ATLEAST] = cfg[CFG_SCORE + c], cfg[CFG_AMT + c], cfg[CFG_ATLEAST + c]
        obs[O_ROUND_CAP] = cfg[CFG_ROUND_CAP]
        for i in range(CFG_CSTD - CFG_COUNT):  # count, val, pstep: one block, in the same order
            obs[O_COUNT + i] = cfg[CFG_COUNT + i]
        for k in range(s[S_NCH]):
            cid = s[S_CH_ID + k]
            obs[O_CID + k] = cid
            for i in range(MAX_STEPS * STEP_W):
                obs[O_CSTEP + k * MAX_STEPS * STEP_W + i] = cfg[CFG_CSTEP + cid * MAX_STEPS * STEP_W + i]
        m = cfg[CFG_MAX_ORDER]
        for t in range(cfg[CFG_NT]):  # counted up without a division: q full orders and r copies left
            q = r = 0
            for k in range(1, POT_K):
                r += 1
                if r == m:
                    q, r = q + 1, 0
                obs[O_POT + t * POT_K + k] = q * cfg[CFG_VAL + t * MAX_ORD + m - 1] + (
                    cfg[CFG_VAL + t * MAX_ORD + r - 1] if r > 0 else 0)
        obs[O_STAMP] = s[S_STAMP]
        obs[O_STAMP + 1] = s[S_STAMP + 1]
    obs[O_SEAT] = seat
    obs[O_ROUND] = s[S_ROUND]
    obs[O_FP] = s[S_FP]
    obs[O_TURN_IDX] = s[S_TURN_IDX]
    obs[O_MARKERS] = s[S_MARKERS]
    obs[O_FINAL] = s[S_FINAL]
    obs[O_DECK] = deck_left(s)
    obs[O_DISCARD_N] = cards(s, S_DISCARD)
    obs[O_RESHUF] = s[S_RESHUF]
    ph = s[S_PHASE]  # the pending decision (-1 when the game is over) and the step it resolves
    obs[O_DKIND] = D_CHAR if ph == PH_CHAR else D_DISCARD if ph == PH_DISCARD else -1
    obs[O_SKIND], obs[O_SA0], obs[O_SA1], obs[O_SCOUNT] = K_NONE, 0, 0, 0
    if ph == PH_STEP:
        f = s[S_DEPTH] - 1
        obs[O_SKIND], obs[O_SA0], obs[O_SA1] = _step_of(s, cfg, f)
        obs[O_DKIND] = DECISION_OF[obs[O_SKIND]]
        obs[O_SCOUNT] = s[S_FRAME + f * F_SIZE + F_COUNT]
    for t in range(MAX_T):
        obs[O_HAND + t] = s[S_HAND + seat * MAX_T + t]
        obs[O_MARKET + t] = s[S_MARKET + t]
    for q in range(s[S_NP]):
        for t in range(MAX_T):
            obs[O_PLAY + q * MAX_T + t] = s[S_PLAY + q * MAX_T + t]
        obs[O_COINS + q] = s[S_COINS + q]
        obs[O_HANDN + q] = hand_size(s, q)
        obs[O_C_CHAR + q] = s[S_C_CHAR + q]
    for k in range(s[S_NCH]):
        obs[O_CH_COINS + k] = s[S_CH_COINS + k]
        obs[O_CH_MARK + k] = s[S_CH_MARK + k]
    obs[O_COND] = s[S_COND]
    obs[O_FP0] = s[S_FP0]
    obs[O_TRIG_SEAT] = s[S_TRIG_SEAT]
    obs[O_DEPTH] = s[S_DEPTH]
    for i in range(MAX_DEPTH * F_SIZE):
        obs[O_FRAME + i] = s[S_FRAME + i]


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
    if cards(s, S_MARKET) > cfg[CFG_MARKET_SIZE]:
        raise AssertionError("invariant: market over its size")
    held = taken = 0
    for p in range(np_):
        src = s[S_C_CHAR + p] + s[S_C_ABIL + p] + s[S_C_SETUP + p] + s[S_C_COND + p] + cards(s, S_C_ORD + p * MAX_T)
        if src != s[S_COINS + p]:
            raise AssertionError("invariant: a player's coins do not add up by source")
        held += s[S_COINS + p]
        taken += s[S_C_CHAR + p]
    on_chars = marks = 0
    for k in range(s[S_NCH]):
        on_chars += s[S_CH_COINS + k]
        if s[S_CH_COINS + k] < 0:
            raise AssertionError("invariant: negative coins on a character")
        marks += s[S_CH_MARK + k]
        if s[S_CH_MARK + k] > 1 and s[S_FINAL] == 0:
            raise AssertionError("invariant: two markers on one character before the final round")
    if on_chars + taken != s[S_PLACED]:
        raise AssertionError("invariant: coins on characters not conserved")
    if held + on_chars != s[S_ISSUED]:
        raise AssertionError("invariant: coins not from the supply")
    if marks != s[S_MARKS_USED]:
        raise AssertionError("invariant: markers not conserved")
    picks = 0
    for i in range(MAX_C * (PICK_COINS + 1)):
        picks += s[S_PICKS + i]
    if picks != s[S_NUSES]:
        raise AssertionError("invariant: character picks not counted once per use")
    if s[S_PHASE] == PH_CHAR:
        for p in range(np_):
            if p != s[S_CUR] and hand_size(s, p) > cfg[CFG_HAND_LIMIT]:
                raise AssertionError("invariant: a hand over the limit between turns")
