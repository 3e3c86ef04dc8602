"""Mughal forward model behind the engine interface (sim.interface), over an int32 state (STATE) and the
configuration vector (CONFIG). A card's suits are a bit mask (1 << suit), 0 = Disaster.

A turn: begin_turn (open a new age, deal destiny then fate), declaration rounds (two-suit destiny cards), then
hand_size action steps (all picks applied at once, then hands pass), score_turn, end_turn. Rounds are
simultaneous: each seat is asked in turn and its pick kept pending until the last seat has chosen.
"""
import numpy as np
from sim.jit import njit

from sim.interface import Layout, codes
from sim.rng import reseed

SUITS = ("military", "building", "culture", "wealth")   # bit k of a card's mask; the one list of suits
AGES = ("early", "middle", "late")
NSUITS = len(SUITS)
MAX_PLAYERS = 8
MAX_TURNS = 16
MAX_CARDS = 1024
MAX_HAND = 16
MAX_DESTINY = 8
MAX_TABLE = MAX_HAND + MAX_DESTINY
MAX_ACTIONS = MAX_HAND * NSUITS
UNDECLARED = -2   # table suit of a multi-suit destiny card before its owner declares it
DISASTER = -1     # table suit of a Disaster

# rule choices as the configuration stores them (index = the TOML value's position)
PASS_MODE = codes("alternate", "left", "right")   # alternate: odd turns left (seat + 1), even right
EMP_TIE = codes("half_floor", "full", "none")
FINAL_TIE = codes("share", "none")
SKIPPED_AGES = codes("left_out", "shuffled_in")
EMP_TIE_HALF, EMP_TIE_FULL, EMP_TIE_NONE = EMP_TIE["half_floor"], EMP_TIE["full"], EMP_TIE["none"]
PASS_LEFT, PASS_RIGHT = PASS_MODE["left"], PASS_MODE["right"]   # module-level ints: numba reads no dicts
FINAL_TIE_SHARE = FINAL_TIE["share"]
SKIPPED_IN = SKIPPED_AGES["shuffled_in"]

# --- configuration vector ---
CONFIG = Layout("mughal config", [
    ("max_players", 1),   # largest table the configuration must deal (rules.max_players)
    ("destiny", 1), ("hand", 1), ("maj_vt", 1), ("maj_tie_vt", 1),
    ("zero_scores", 1),   # 1: a suit total of 0 can win if the player has a card of that suit
    ("all_vt", 1),
    ("dis_vt", 1),        # VT per Disaster on the table (negative = penalty)
    ("emp_tie", 1),       # EMP_TIE
    ("emp_zero", 1),      # 1: a favoured total of 0 can win (with a card of a favoured suit)
    ("final_tie", 1),     # FINAL_TIE
    ("pass_mode", 1),     # PASS_MODE
    ("reshuffle", 1),     # 1: an empty deck while dealing takes the shuffled discard
    ("nturns", 1), ("ncards", 1), ("nkinds", 1),
    ("skipped_ages", 1),  # SKIPPED_AGES: an age the emperor track skips stays out or comes in with the next
    ("emp_bonus", MAX_TURNS), ("emp_mask", MAX_TURNS), ("emp_age", MAX_TURNS),   # the emperor track, by turn - 1
    ("card_mask", MAX_CARDS), ("card_level", MAX_CARDS), ("card_age", MAX_CARDS), ("card_unique", MAX_CARDS),
    ("card_kind", MAX_CARDS),   # the deck row the card comes from
])
CONFIG.export(globals(), "CFG_")
CFG_SIZE = CONFIG.size

# --- one turn's scoring detail (score_turn) ---
SCORE = Layout("mughal turn score", [
    ("maj", MAX_PLAYERS), ("all", MAX_PLAYERS), ("emp", MAX_PLAYERS), ("dis", MAX_PLAYERS),   # VT by source
    ("maj_sole", MAX_PLAYERS),   # majorities won alone this turn
    ("maj_tied", MAX_PLAYERS),   # majorities shared this turn
    ("margin", NSUITS),          # top total minus the second (-1: nobody scored the suit)
    ("topn", NSUITS),            # players tied at the top
    ("emp_winners", 1),          # players who took (a share of) the emperor contest; 0 none
    ("fav", MAX_PLAYERS),        # working space: each seat's favoured total
])
SCORE.export(globals(), "SC_")
SC_SIZE = SCORE.size

# --- state vector ---
GONE_BITS = 30                                       # card ids per word of a "gone" bit set
GONE_WORDS = (MAX_CARDS + GONE_BITS - 1) // GONE_BITS
OVER = codes("live", "game_over", "turn_end")   # S_OVER; turn_end: stopped before scoring (S_STOP_AT_TURN_END)
STATE = Layout("mughal state", [
    ("np", 1),
    ("turn", 1),          # 1-based; 0 before the first turn
    ("step", 1),          # 0 declarations, 1..hand_size action steps
    ("opened", 1),        # highest age in play (-1 none yet)
    ("decklen", 1), ("disclen", 1), ("remlen", 1),
    ("reshuffles", 1),    # discard reshuffles forced by an empty deck while dealing
    ("cur", 1),           # the seat choosing now
    ("nlegal", 1),        # legal actions of the last legal_actions call (a decision when > 1)
    ("over", 1),          # OVER
    ("stop_at_turn_end", 1),   # 1: stop before scoring the turn (search players' one-turn look-ahead)
    ("decisions", 1),     # choices strategies made this game (more than one option)
    ("pend_slot", MAX_PLAYERS),   # this round's pending pick per seat: hand or table slot (-1 none)
    ("pend_suit", MAX_PLAYERS),   # and its suit
    ("vt", MAX_PLAYERS),          # VT so far, and its parts
    ("vt_maj", MAX_PLAYERS), ("vt_all", MAX_PLAYERS), ("vt_emp", MAX_PLAYERS), ("vt_dis", MAX_PLAYERS),
    ("dis_destiny", MAX_PLAYERS),  # Disasters dealt face up, whole game
    ("dis_picked", MAX_PLAYERS),   # Disasters placed from a hand, whole game
    ("maj_sole", MAX_PLAYERS), ("maj_tied", MAX_PLAYERS),   # majorities won alone / shared, whole game
    ("all_suits_turns", MAX_PLAYERS), ("emp_wins", MAX_PLAYERS),   # turns with the bonus / an emperor share
    ("hist_emp_winners", MAX_TURNS),          # per turn: SC emp_winners
    ("hist_margin", (MAX_TURNS, NSUITS)),     # per turn: SC margin
    ("hist_emp_vt", (MAX_TURNS, MAX_PLAYERS)),   # per turn: each seat's emperor VT
    ("score", SC_SIZE),                       # the last scored turn's detail (SCORE)
    ("tot", (MAX_PLAYERS, NSUITS)),   # suit totals on the table now
    ("cnt", (MAX_PLAYERS, NSUITS)),   # cards per suit on the table now
    ("tdis", MAX_PLAYERS),            # Disasters on the table now
    ("undecl", MAX_PLAYERS),          # undeclared destiny cards now
    ("tlen", MAX_PLAYERS),
    ("table", (MAX_PLAYERS, MAX_TABLE)),   # card ids
    ("tsuit", (MAX_PLAYERS, MAX_TABLE)),   # declared suits
    ("hlen", MAX_PLAYERS),
    ("hand", (MAX_PLAYERS, MAX_HAND)),     # card ids
    ("horig", MAX_PLAYERS),   # seat that was dealt the hand this seat holds
    ("seen", MAX_PLAYERS),    # bit mask of hands (by origin) this seat has held this turn
    ("deck", MAX_CARDS),      # top = last
    ("disc", MAX_CARDS),
    ("rem", MAX_CARDS),       # unique cards removed from the game
    ("gone", GONE_WORDS),     # bit set of the cards in disc and rem, kept as they move (observe copies it)
    ("scratch", MAX_HAND),    # working space for passing hands
])
STATE.export(globals(), "S_")
STATE_SIZE = STATE.size
OVER_LIVE, OVER_GAME, OVER_TURN_END = OVER["live"], OVER["game_over"], OVER["turn_end"]

# --- actions: one row each ---
ACTION = Layout("mughal action", [
    ("type", 1),
    ("slot", 1),    # hand slot (place) or table slot (declare)
    ("card", 1),
    ("suit", 1),    # -1: a Disaster
    ("level", 1), ("mask", 1)])
ACTION.export(globals(), "A_")
ACOLS = ACTION.size
ACTION_TYPE = codes("place", "declare")
T_PLACE, T_DECLARE = ACTION_TYPE["place"], ACTION_TYPE["declare"]

# --- observation (what one seat may know) ---
SEAT = Layout("mughal observed seat", [
    ("undecl", 1),        # undeclared destiny cards (not in the totals yet)
    ("vt", 1),
    ("hlen", 1),          # cards in the hand this seat holds
    ("known", 1),         # 1: the observer knows that hand (its own, or one it held earlier this turn)
    ("hmask", MAX_HAND),  # suit masks of that hand (when known)
    ("hlevel", MAX_HAND),
])
SEAT.export(globals(), "B_")
SB = SEAT.size
OBS = Layout("mughal observation", [
    ("seat", 1), ("np", 1), ("turn", 1), ("step", 1),
    ("dir", 1),           # +1 hands go to seat+1 this turn, -1 to seat-1
    ("next", 1),          # seat that receives this seat's hand
    ("deck", 1), ("disc", 1),
    # the tables' tallies, laid out as in the state (one copy each): all that the heuristic strategies read
    ("tot", (MAX_PLAYERS, NSUITS)),   # suit totals on the table of seat q
    ("cnt", (MAX_PLAYERS, NSUITS)),   # cards per suit on it
    ("dis", MAX_PLAYERS),             # Disasters on it
    ("seats", (MAX_PLAYERS, SB)),   # SEAT blocks, absolute seat order
    # public history a search player rebuilds a consistent world from
    ("table_card", (MAX_PLAYERS, MAX_TABLE)),   # table card of seat q, slot i; -1 for an empty slot
    ("table_suit", (MAX_PLAYERS, MAX_TABLE)),   # and its declared suit (UNDECLARED, DISASTER or a suit)
    ("gone", GONE_WORDS),   # bit set of card ids in the discard or removed
])
OBS.export(globals(), "O_")
OBS_SIZE = OBS.size
OBS_TALLIES = O_SEATS   # the observation's header and the tables' tallies only (observe)


@njit(cache=True)
def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int32)


@njit(cache=True)
def seed(value):
    """Seed numba's generator (shared by every jitted function of this thread)."""
    np.random.seed(value)


@njit(cache=True, _nrt=False)
def _shuffle_in_discard(s):
    """The discard onto the deck, then the whole deck shuffled."""
    n = s[S_DECKLEN]
    for i in range(s[S_DISCLEN]):
        c = s[S_DISC + i]
        s[S_DECK + n] = c
        s[S_GONE + c // GONE_BITS] &= ~(1 << (c % GONE_BITS))
        n += 1
    s[S_DECKLEN] = n
    s[S_DISCLEN] = 0
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = np.random.randint(0, i + 1)
        s[S_DECK + i], s[S_DECK + j] = s[S_DECK + j], s[S_DECK + i]


@njit(cache=True, _nrt=False)
def age_in_play(s, cfg, a):
    """Whether the cards of age a are in the game: Early's, then each emperor's so far (a skipped age's only
    with rules.skipped_ages = "shuffled_in")."""
    if a > s[S_OPENED]:
        return False
    if a == 0 or cfg[CFG_SKIPPED_AGES] == SKIPPED_IN:
        return True
    for i in range(s[S_TURN]):
        if cfg[CFG_EMP_AGE + i] == a:
            return True
    return False


@njit(cache=True, _nrt=False)
def open_ages(s, cfg, upto):
    """Open age `upto` (the Early cards too at the start): its cards and the discard shuffled into the deck."""
    n = s[S_DECKLEN]
    for c in range(cfg[CFG_NCARDS]):
        a = cfg[CFG_CARD_AGE + c]
        if s[S_OPENED] < a <= upto and (a == 0 or a == upto or cfg[CFG_SKIPPED_AGES] == SKIPPED_IN):
            s[S_DECK + n] = c
            n += 1
    s[S_DECKLEN] = n
    _shuffle_in_discard(s)
    s[S_OPENED] = upto


@njit(cache=True, _nrt=False)  # per turn or card: no atomic reference counts (HOT_NO_NRT)
def draw(s, cfg):
    if s[S_DECKLEN] == 0:
        if cfg[CFG_RESHUFFLE] == 1 and s[S_DISCLEN] > 0:
            _shuffle_in_discard(s)
            s[S_RESHUFFLES] += 1
        else:
            raise ValueError("deck and discard are empty while dealing (validation should have refused this)")
    s[S_DECKLEN] -= 1
    return s[S_DECK + s[S_DECKLEN]]


@njit(cache=True)
def reset(s, players):
    """An empty table of `players` seats before the first turn (no cards anywhere)."""
    s[:S_DECK] = 0   # the card piles (deck, discard, removed) are empty by their lengths
    s[S_GONE:] = 0
    s[S_NP] = players
    s[S_OPENED] = -1
    for p in range(MAX_PLAYERS):
        s[S_PEND_SLOT + p] = -1


@njit(cache=True)
def new_game(s, cfg, players, seed, game):
    """Game `game` of a batch seeded `seed`: numba's generator re-seeded from (seed, game) (sim.rng), so sweep
    variants share their random numbers game by game; then the first turn's deal."""
    reset(s, players)
    reseed(seed, game, 0)
    start_turn(s, cfg)


@njit(cache=True, _nrt=False)
def current_player(s):
    return s[S_CUR]


@njit(cache=True, _nrt=False)
def is_over(s):
    return s[S_OVER] != OVER_LIVE


@njit(cache=True, _nrt=False)
def only_suit(mask):
    for k in range(NSUITS):
        if mask & (1 << k):
            return k
    return DISASTER


@njit(cache=True, _nrt=False)
def _count_card(s, cfg, p, c, suit, sign):
    if suit == DISASTER:
        s[S_TDIS + p] += sign
    elif suit == UNDECLARED:
        s[S_UNDECL + p] += sign
    else:
        s[S_TOT + NSUITS * p + suit] += sign * cfg[CFG_CARD_LEVEL + c]
        s[S_CNT + NSUITS * p + suit] += sign


@njit(cache=True, _nrt=False)
def to_table(s, cfg, p, c, suit):
    i = s[S_TLEN + p]
    s[S_TABLE + MAX_TABLE * p + i] = c
    s[S_TSUIT + MAX_TABLE * p + i] = suit
    s[S_TLEN + p] = i + 1
    _count_card(s, cfg, p, c, suit, 1)


@njit(cache=True, _nrt=False)
def direction(s, cfg):
    mode = cfg[CFG_PASS_MODE]
    if mode == PASS_LEFT:
        return 1
    if mode == PASS_RIGHT:
        return -1
    return 1 if s[S_TURN] % 2 == 1 else -1  # rulebook: odd turns to the left (seat + 1), even to the right


@njit(cache=True, _nrt=False)
def begin_turn(s, cfg):
    """Start the next turn: open a new age (its cards and the discard shuffled in), Destiny, then Fate."""
    t = s[S_TURN] + 1
    s[S_TURN] = t
    s[S_STEP] = 0
    age = cfg[CFG_EMP_AGE + t - 1]
    if age > s[S_OPENED]:
        open_ages(s, cfg, age)
    P = s[S_NP]
    for p in range(P):  # Destiny: face up, straight to the table (empty since reset or the last end phase)
        for _ in range(cfg[CFG_DESTINY]):
            c = draw(s, cfg)
            mask = cfg[CFG_CARD_MASK + c]
            if mask == 0:
                s[S_DIS_DESTINY + p] += 1
            to_table(s, cfg, p, c, UNDECLARED if mask & (mask - 1) else only_suit(mask))  # two suits: declared later
    for p in range(P):  # Fate: a hidden hand
        for i in range(cfg[CFG_HAND]):
            s[S_HAND + MAX_HAND * p + i] = draw(s, cfg)
        s[S_HLEN + p] = cfg[CFG_HAND]
        s[S_HORIG + p] = p
        s[S_SEEN + p] = 1 << p


@njit(cache=True, _nrt=False)
def undeclared_total(s):
    n = 0
    for p in range(s[S_NP]):
        n += s[S_UNDECL + p]
    return n


@njit(cache=True, _nrt=False)
def next_chooser(s, q):
    """The first seat from q on that chooses in this round (declarations: seats with an undeclared card; an
    action step: every seat); the number of players when none is left."""
    P = s[S_NP]
    if s[S_STEP] == 0:
        while q < P and s[S_UNDECL + q] == 0:
            q += 1
        return q
    return q if q < P else P


@njit(cache=True, _nrt=False)
def start_round(s):
    """Ask the round's first chooser (its picks are pending until the last one)."""
    s[S_CUR] = next_chooser(s, 0)


@njit(cache=True, _nrt=False)
def start_turn(s, cfg):
    """begin_turn, then the declaration rounds, or the first action step when nothing is to declare."""
    begin_turn(s, cfg)
    if undeclared_total(s) == 0:
        s[S_STEP] = 1
    start_round(s)


@njit(cache=True, _nrt=False)
def _card_rows(cfg, actions, n, kind, slot, c):
    """Rows n.. get card c in each of its suits, lowest first (a Disaster: suit DISASTER); returns the next row.
    Walks the mask's set bits: a test per suit would be a branch the predictor cannot learn."""
    mask = cfg[CFG_CARD_MASK + c]
    rest = mask
    while True:
        low = rest & -rest   # the lowest suit left (0: a Disaster)
        actions[n, A_TYPE] = kind
        actions[n, A_SLOT] = slot
        actions[n, A_CARD] = c
        actions[n, A_SUIT] = (low > 1) + (low > 2) + (low > 4) - (low == 0)   # its index; DISASTER for 0
        actions[n, A_LEVEL] = cfg[CFG_CARD_LEVEL + c]
        actions[n, A_MASK] = mask
        n += 1
        rest ^= low
        if rest == 0:
            return n


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def legal_actions(s, cfg, actions):
    """The current seat's choices. Declarations: the suits for its first undeclared destiny card. An action
    step: every (hand card, suit) pair; a Disaster is one choice with suit -1."""
    p = s[S_CUR]
    n = 0
    if s[S_STEP] == 0:
        for i in range(s[S_TLEN + p]):
            if s[S_TSUIT + MAX_TABLE * p + i] == UNDECLARED:
                n = _card_rows(cfg, actions, 0, T_DECLARE, i, s[S_TABLE + MAX_TABLE * p + i])
                break
    else:
        for i in range(s[S_HLEN + p]):
            n = _card_rows(cfg, actions, n, T_PLACE, i, s[S_HAND + MAX_HAND * p + i])
    s[S_NLEGAL] = n
    return n


@njit(cache=True, _nrt=False)
def declare(s, cfg, p, i, suit):
    """Seat p declares the destiny card in its table slot i as `suit`."""
    c = s[S_TABLE + MAX_TABLE * p + i]
    _count_card(s, cfg, p, c, UNDECLARED, -1)
    s[S_TSUIT + MAX_TABLE * p + i] = suit
    _count_card(s, cfg, p, c, suit, 1)


@njit(cache=True, _nrt=False, inline="always")  # per pick, inlined into its one call site (resolve_round)
def place(s, cfg, p, i, suit):
    """Seat p places the card in its hand slot i on its table in `suit` (DISASTER for a Disaster)."""
    h = S_HAND + MAX_HAND * p
    c = s[h + i]
    n = s[S_HLEN + p]
    for j in range(i, n - 1):  # keep the hand's order
        s[h + j] = s[h + j + 1]
    s[S_HLEN + p] = n - 1
    if suit == DISASTER:
        s[S_DIS_PICKED + p] += 1
    to_table(s, cfg, p, c, suit)


@njit(cache=True, _nrt=False)
def resolve_round(s, cfg):
    """Every pending pick of the round applied in seat order; after an action step but the last, hands pass."""
    P = s[S_NP]
    step = s[S_STEP]
    for p in range(P):
        i = s[S_PEND_SLOT + p]
        if i >= 0:
            if step == 0:
                declare(s, cfg, p, i, s[S_PEND_SUIT + p])
            else:
                place(s, cfg, p, i, s[S_PEND_SUIT + p])
            s[S_PEND_SLOT + p] = -1
    if step > 0 and step < cfg[CFG_HAND]:
        pass_hands(s, cfg)


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def apply_action(s, cfg, actions, a):
    """The current seat's pick (row `a`) waits for the round's last seat; then the round is resolved and the game
    runs on to the next choice (or the end)."""
    p = s[S_CUR]
    if s[S_NLEGAL] > 1:
        s[S_DECISIONS] += 1
    s[S_NLEGAL] = 0
    s[S_PEND_SLOT + p] = actions[a, A_SLOT]
    s[S_PEND_SUIT + p] = actions[a, A_SUIT]
    q = next_chooser(s, p + 1)
    if q < s[S_NP]:
        s[S_CUR] = q
        return
    resolve_round(s, cfg)
    step = s[S_STEP]
    if step == 0 and undeclared_total(s) > 0:
        start_round(s)
        return
    if step < cfg[CFG_HAND]:
        s[S_STEP] = step + 1
        start_round(s)
        return
    if s[S_STOP_AT_TURN_END] == 1:
        s[S_OVER] = OVER_TURN_END
        return
    close_turn(s, cfg)
    if s[S_TURN] < cfg[CFG_NTURNS]:
        start_turn(s, cfg)
    else:
        s[S_OVER] = OVER_GAME


@njit(cache=True, _nrt=False, inline="always")  # per round, no reference counting; inlined: one call site
def pass_hands(s, cfg):
    """Every hand goes to the next seat in this turn's direction; the receiver remembers having seen it."""
    P = s[S_NP]
    d = direction(s, cfg)
    n = s[S_HLEN]  # every hand has the same size
    # rotate in place: save the hand that wraps around, shift the others one seat along
    last = P - 1 if d == 1 else 0
    orig = s[S_HORIG + last]
    for i in range(n):
        s[S_SCRATCH + i] = s[S_HAND + MAX_HAND * last + i]
    for j in range(P - 1):
        q = last - j if d == 1 else last + j       # receiver
        p = q - 1 if d == 1 else q + 1             # giver
        s[S_HORIG + q] = s[S_HORIG + p]
        for i in range(n):
            s[S_HAND + MAX_HAND * q + i] = s[S_HAND + MAX_HAND * p + i]
    first = 0 if d == 1 else P - 1
    s[S_HORIG + first] = orig
    for i in range(n):
        s[S_HAND + MAX_HAND * first + i] = s[S_SCRATCH + i]
    for q in range(P):
        s[S_SEEN + q] |= 1 << s[S_HORIG + q]


@njit(cache=True, _nrt=False)
def eligible(total, count, zero_scores):
    return (total > 0) | ((zero_scores == 1) & (count > 0))   # no short cut: no branch for the strategies


@njit(cache=True, _nrt=False)
def emperor_share(cfg, t, winners):
    """The VT each of `winners` seats (> 0) with the top favoured total takes from emperor t (0-based)."""
    bonus = cfg[CFG_EMP_BONUS + t]
    tie = cfg[CFG_EMP_TIE]
    return bonus if winners == 1 or tie == EMP_TIE_FULL else (bonus // 2 if tie == EMP_TIE_HALF else 0)


@njit(cache=True)
def score_turn(s, cfg, sc):
    """Scoring phase (majorities, all suits, emperor, Disasters): adds to the VT, the detail into sc (SCORE)."""
    _score(s, cfg, sc, 0)


@njit(cache=True, _nrt=False)
def _score(s, cfg, sc, o):
    """score_turn with the detail at sc[o:] (o = S_SCORE when sc is the state itself)."""
    P = s[S_NP]
    t = s[S_TURN]
    zero = cfg[CFG_ZERO_SCORES]
    for i in range(SC_SIZE):
        sc[o + i] = 0
    for k in range(NSUITS):
        top = -1
        second = -1
        n_top = 0
        for p in range(P):
            tot = s[S_TOT + NSUITS * p + k]
            if not eligible(tot, s[S_CNT + NSUITS * p + k], zero):
                continue
            if tot > top:
                second = top
                top = tot
                n_top = 1
            elif tot == top:
                second = top
                n_top += 1
            elif tot > second:
                second = tot
        sc[o + SC_TOPN + k] = n_top
        sc[o + SC_MARGIN + k] = -1 if n_top == 0 else top - max(second, 0)
        if n_top == 0:
            continue
        for p in range(P):
            tot = s[S_TOT + NSUITS * p + k]
            if tot == top and eligible(tot, s[S_CNT + NSUITS * p + k], zero):
                if n_top == 1:
                    sc[o + SC_MAJ + p] += cfg[CFG_MAJ_VT]
                    sc[o + SC_MAJ_SOLE + p] += 1
                else:
                    sc[o + SC_MAJ + p] += cfg[CFG_MAJ_TIE_VT]
                    sc[o + SC_MAJ_TIED + p] += 1
    # emperor: favoured total = the highest total among the favoured suits
    mask = cfg[CFG_EMP_MASK + t - 1]
    fav = o + SC_FAV
    top = -1
    for p in range(P):
        sc[fav + p] = -1
        for k in range(NSUITS):
            if mask & (1 << k):
                tot = s[S_TOT + NSUITS * p + k]
                if eligible(tot, s[S_CNT + NSUITS * p + k], cfg[CFG_EMP_ZERO]) and tot > sc[fav + p]:
                    sc[fav + p] = tot
        if sc[fav + p] > top:
            top = sc[fav + p]
    n_top = 0
    if top >= 0:
        for p in range(P):
            if sc[fav + p] == top:
                n_top += 1
    sc[o + SC_EMP_WINNERS] = n_top
    if n_top > 0:
        share = emperor_share(cfg, t - 1, n_top)
        for p in range(P):
            if sc[fav + p] == top:
                sc[o + SC_EMP + p] = share
    for p in range(P):
        allsuits = True
        for k in range(NSUITS):
            if s[S_CNT + NSUITS * p + k] == 0:
                allsuits = False
        if allsuits:
            sc[o + SC_ALL + p] = cfg[CFG_ALL_VT]
        sc[o + SC_DIS + p] = cfg[CFG_DIS_VT] * s[S_TDIS + p]
        s[S_VT_MAJ + p] += sc[o + SC_MAJ + p]
        s[S_VT_ALL + p] += sc[o + SC_ALL + p]
        s[S_VT_EMP + p] += sc[o + SC_EMP + p]
        s[S_VT_DIS + p] += sc[o + SC_DIS + p]
        s[S_VT + p] += sc[o + SC_MAJ + p] + sc[o + SC_ALL + p] + sc[o + SC_EMP + p] + sc[o + SC_DIS + p]


@njit(cache=True, _nrt=False)
def close_turn(s, cfg):
    """Score the turn into the state (S_SCORE, the whole-game tallies, the turn's history), then the end phase."""
    _score(s, cfg, s, S_SCORE)
    t = s[S_TURN] - 1
    ew = s[S_SCORE + SC_EMP_WINNERS]
    s[S_HIST_EMP_WINNERS + t] = ew
    for k in range(NSUITS):
        s[S_HIST_MARGIN + NSUITS * t + k] = s[S_SCORE + SC_MARGIN + k]
    for p in range(s[S_NP]):
        s[S_MAJ_SOLE + p] += s[S_SCORE + SC_MAJ_SOLE + p]
        s[S_MAJ_TIED + p] += s[S_SCORE + SC_MAJ_TIED + p]
        if s[S_SCORE + SC_ALL + p] != 0:
            s[S_ALL_SUITS_TURNS + p] += 1
        emp = s[S_SCORE + SC_EMP + p]
        if ew > 0 and emp > 0:
            s[S_EMP_WINS + p] += 1
        s[S_HIST_EMP_VT + MAX_PLAYERS * t + p] = emp
    end_turn(s, cfg)


@njit(cache=True, _nrt=False)
def put_gone(s, cfg, c):
    """Card c leaves a table: to the discard, or out of the game when it is unique."""
    if cfg[CFG_CARD_UNIQUE + c] == 1:
        s[S_REM + s[S_REMLEN]] = c
        s[S_REMLEN] += 1
    else:
        s[S_DISC + s[S_DISCLEN]] = c
        s[S_DISCLEN] += 1
    s[S_GONE + c // GONE_BITS] |= 1 << (c % GONE_BITS)


@njit(cache=True, _nrt=False)
def end_turn(s, cfg):
    """End phase: table cards go to the discard; unique cards leave the game instead."""
    for p in range(s[S_NP]):
        for i in range(s[S_TLEN + p]):
            c = s[S_TABLE + MAX_TABLE * p + i]
            put_gone(s, cfg, c)
        s[S_TLEN + p] = 0
        s[S_UNDECL + p] = 0
        s[S_TDIS + p] = 0
        for k in range(NSUITS):
            s[S_TOT + NSUITS * p + k] = 0
            s[S_CNT + NSUITS * p + k] = 0


@njit(cache=True, _nrt=False)
def winners(s):
    """(the winner seat, or -1 when several seats share the most VT; how many seats have the most VT)."""
    P = s[S_NP]
    top = s[S_VT]
    for p in range(1, P):
        top = max(top, s[S_VT + p])
    k = 0
    winner = -1
    for p in range(P):
        if s[S_VT + p] == top:
            k += 1
            winner = p
    return (winner if k == 1 else -1), k


@njit(cache=True, _nrt=False)
def returns(s, cfg, out):
    """Most VT wins; ties share the win (1/k each) or, by configuration, nobody wins."""
    P = s[S_NP]
    _, k = winners(s)
    top = s[S_VT]
    for p in range(1, P):
        top = max(top, s[S_VT + p])
    for p in range(P):
        out[p] = 0.0
        if s[S_VT + p] == top and (k == 1 or cfg[CFG_FINAL_TIE] == FINAL_TIE_SHARE):
            out[p] = 1.0 / k


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def observe(s, cfg, p, obs):
    """What seat p may know beyond the public rules: every table, VT, pile sizes, its own hand and the hands it
    held earlier this turn, and the public history (table cards, O_GONE). An `obs` of OBS_TALLIES entries gets
    only the header and the tallies, all that heuristics read (the rest is most of a full observation's cost)."""
    P = s[S_NP]
    obs[O_SEAT] = p
    obs[O_NP] = P
    obs[O_TURN] = s[S_TURN]
    obs[O_STEP] = s[S_STEP]
    d = direction(s, cfg)
    obs[O_DIR] = d
    nxt = p + d   # no modulo: a division per decision
    obs[O_NEXT] = 0 if nxt == P else (P - 1 if nxt < 0 else nxt)
    obs[O_DECK] = s[S_DECKLEN]
    obs[O_DISC] = s[S_DISCLEN]
    for i in range(NSUITS * P):
        obs[O_TOT + i] = s[S_TOT + i]
        obs[O_CNT + i] = s[S_CNT + i]
    for q in range(P):
        obs[O_DIS + q] = s[S_TDIS + q]
    if obs.shape[0] < OBS_SIZE:
        return
    seen = s[S_SEEN + p]
    hand = cfg[CFG_HAND]   # a hand never holds more; later entries stay 0
    table = cfg[CFG_DESTINY] + hand   # a table never holds more
    for q in range(P):
        b = O_SEATS + SB * q
        obs[b + B_UNDECL] = s[S_UNDECL + q]
        obs[b + B_VT] = s[S_VT + q]
        obs[b + B_HLEN] = s[S_HLEN + q]
        known = q == p or (seen >> s[S_HORIG + q]) & 1 == 1
        obs[b + B_KNOWN] = 1 if known else 0
        shown = s[S_HLEN + q] if known else 0
        for i in range(shown):
            c = s[S_HAND + MAX_HAND * q + i]
            obs[b + B_HMASK + i] = cfg[CFG_CARD_MASK + c]
            obs[b + B_HLEVEL + i] = cfg[CFG_CARD_LEVEL + c]
        for i in range(shown, hand):
            obs[b + B_HMASK + i] = 0
            obs[b + B_HLEVEL + i] = 0
        tl = s[S_TLEN + q]
        for i in range(tl):
            obs[O_TABLE_CARD + MAX_TABLE * q + i] = s[S_TABLE + MAX_TABLE * q + i]
            obs[O_TABLE_SUIT + MAX_TABLE * q + i] = s[S_TSUIT + MAX_TABLE * q + i]
        for i in range(tl, table):
            obs[O_TABLE_CARD + MAX_TABLE * q + i] = -1
            obs[O_TABLE_SUIT + MAX_TABLE * q + i] = 0
    for w in range((cfg[CFG_NCARDS] + GONE_BITS - 1) // GONE_BITS):
        obs[O_GONE + w] = s[S_GONE + w]


@njit(cache=True)
def check_invariants(s, cfg):
    """Debug mode: every card in play in exactly one place, unopened ages' nowhere, totals matching the tables."""
    nc = cfg[CFG_NCARDS]
    seen = np.zeros(nc, dtype=np.int64)
    for i in range(s[S_DECKLEN]):
        seen[s[S_DECK + i]] += 1
    gone = np.zeros(GONE_WORDS, dtype=np.int64)
    for pile, n in ((S_DISC, s[S_DISCLEN]), (S_REM, s[S_REMLEN])):
        for i in range(n):
            c = s[pile + i]
            seen[c] += 1
            gone[c // GONE_BITS] |= 1 << (c % GONE_BITS)
            if pile == S_REM and cfg[CFG_CARD_UNIQUE + c] != 1:
                raise AssertionError("invariant: a card that is not unique left the game")
    for w in range(GONE_WORDS):
        if gone[w] != s[S_GONE + w]:
            raise AssertionError("invariant: the gone bit set is not the discard and the removed cards")
    P = s[S_NP]
    hl = s[S_HLEN]
    for p in range(P):
        if s[S_HLEN + p] != hl:
            raise AssertionError("invariant: hands of different sizes")
        for i in range(s[S_HLEN + p]):
            seen[s[S_HAND + MAX_HAND * p + i]] += 1
        tot = np.zeros(NSUITS, dtype=np.int64)
        cnt = np.zeros(NSUITS, dtype=np.int64)
        dis = 0
        und = 0
        for i in range(s[S_TLEN + p]):
            c = s[S_TABLE + MAX_TABLE * p + i]
            seen[c] += 1
            k = s[S_TSUIT + MAX_TABLE * p + i]
            mask = cfg[CFG_CARD_MASK + c]
            if k == DISASTER:
                dis += 1
                if mask != 0:
                    raise AssertionError("invariant: a suited card placed as a Disaster")
            elif k == UNDECLARED:
                und += 1
            else:
                if not mask & (1 << k):
                    raise AssertionError("invariant: a card declared in a suit it does not have")
                tot[k] += cfg[CFG_CARD_LEVEL + c]
                cnt[k] += 1
        for k in range(NSUITS):
            if tot[k] != s[S_TOT + NSUITS * p + k] or cnt[k] != s[S_CNT + NSUITS * p + k]:
                raise AssertionError("invariant: suit totals do not match the table")
        if dis != s[S_TDIS + p] or und != s[S_UNDECL + p]:
            raise AssertionError("invariant: disaster or undeclared count does not match the table")
        if s[S_TLEN + p] + s[S_HLEN + p] != cfg[CFG_DESTINY] + cfg[CFG_HAND] and s[S_TURN] > 0 \
                and s[S_TLEN + p] > 0:
            raise AssertionError("invariant: table + hand is not destiny + hand size")
    for c in range(nc):
        want = 1 if age_in_play(s, cfg, cfg[CFG_CARD_AGE + c]) else 0
        if seen[c] != want:
            raise AssertionError("invariant: a card is missing or in two places")
