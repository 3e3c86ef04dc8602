"""Mughal forward model as pure numba functions over small integer arrays.

Suits: 0 Military, 1 Building, 2 Culture, 3 Wealth; a card's suits are a bit mask (1 << suit), 0 = Disaster.
Cards are numbered 0..n-1 in the order of the configuration's deck rows; their suit mask, level, age, unique
flag and row ("kind") live in the int64 configuration vector `cfg` (CFG_* offsets, built by
sim.mughal.config). The whole game state is one int32 vector `s` (S_* offsets), so a copy is one `s.copy()`.

A turn: begin_turn (open an age if the emperor's age is new, deal destiny then fate), declaration steps
(owners declare their two-suit destiny cards), hand_size action steps (every seat picks, then all picks are
applied at once, then hands pass), score_turn, end_turn.
"""
import numpy as np
from numba import njit

NSUITS = 4
MAX_PLAYERS = 8
MAX_TURNS = 16
MAX_CARDS = 1024
MAX_HAND = 16
MAX_DESTINY = 8
MAX_TABLE = MAX_HAND + MAX_DESTINY
MAX_ACTIONS = MAX_HAND * NSUITS
UNDECLARED = -2   # table suit of a multi-suit destiny card before its owner declares it
DISASTER = -1     # table suit of a Disaster

# --- configuration vector ---
CFG_MAX_PLAYERS = 0   # largest table the configuration must deal (rules.max_players)
CFG_DESTINY = 1
CFG_HAND = 2
CFG_MAJ_VT = 3
CFG_MAJ_TIE_VT = 4
CFG_ZERO_SCORES = 5   # 1: a suit total of 0 can win if the player has a card of that suit
CFG_ALL_VT = 6
CFG_DIS_VT = 7        # VT per Disaster on the table (negative = penalty)
CFG_EMP_TIE = 8       # EMP_TIE_* below
CFG_EMP_ZERO = 9      # 1: a favoured total of 0 can win (with a card of a favoured suit)
CFG_FINAL_TIE = 10    # 0 share the win, 1 nobody wins a tied game
CFG_PASS_MODE = 11    # 0 alternate (odd turns left, even right), 1 always left, 2 always right
CFG_RESHUFFLE = 12    # 1: an empty deck while dealing takes the shuffled discard
CFG_NTURNS = 13
CFG_NCARDS = 14
CFG_NKINDS = 15
CFG_SKIPPED_AGES = 16  # 1: an age the emperor track skips comes in with the next age opened; 0: it stays out
CFG_EMP_BONUS = 17
CFG_EMP_MASK = CFG_EMP_BONUS + MAX_TURNS
CFG_EMP_AGE = CFG_EMP_MASK + MAX_TURNS
CFG_CMASK = CFG_EMP_AGE + MAX_TURNS
CFG_CLEVEL = CFG_CMASK + MAX_CARDS
CFG_CAGE = CFG_CLEVEL + MAX_CARDS
CFG_CUNIQUE = CFG_CAGE + MAX_CARDS
CFG_CKIND = CFG_CUNIQUE + MAX_CARDS
CFG_SIZE = CFG_CKIND + MAX_CARDS

EMP_TIE_HALF, EMP_TIE_FULL, EMP_TIE_NONE = 0, 1, 2

# --- state vector ---
S_NP = 0
S_TURN = 1          # 1-based; 0 before the first turn
S_STEP = 2          # 0 declarations, 1..hand_size action steps
S_OPENED = 3        # highest age in play (-1 none yet)
S_DECKLEN = 4
S_DISCLEN = 5
S_REMLEN = 6
S_RESHUFFLES = 7    # discard reshuffles forced by an empty deck while dealing
S_VT = 8                          # 8: VT so far
S_VT_MAJ = S_VT + MAX_PLAYERS     # 8: parts of the VT
S_VT_ALL = S_VT_MAJ + MAX_PLAYERS
S_VT_EMP = S_VT_ALL + MAX_PLAYERS
S_VT_DIS = S_VT_EMP + MAX_PLAYERS
S_DIS_DESTINY = S_VT_DIS + MAX_PLAYERS   # 8: Disasters dealt face up, whole game
S_DIS_PICKED = S_DIS_DESTINY + MAX_PLAYERS  # 8: Disasters placed from a hand, whole game
S_TOT = S_DIS_PICKED + MAX_PLAYERS       # 8 x 4: suit totals on the table now
S_CNT = S_TOT + MAX_PLAYERS * NSUITS     # 8 x 4: cards per suit on the table now
S_TDIS = S_CNT + MAX_PLAYERS * NSUITS    # 8: Disasters on the table now
S_UNDECL = S_TDIS + MAX_PLAYERS          # 8: undeclared destiny cards now
S_TLEN = S_UNDECL + MAX_PLAYERS          # 8
S_TABLE = S_TLEN + MAX_PLAYERS           # 8 x MAX_TABLE card ids
S_TSUIT = S_TABLE + MAX_PLAYERS * MAX_TABLE  # 8 x MAX_TABLE declared suits
S_HLEN = S_TSUIT + MAX_PLAYERS * MAX_TABLE   # 8
S_HAND = S_HLEN + MAX_PLAYERS                # 8 x MAX_HAND card ids
S_HORIG = S_HAND + MAX_PLAYERS * MAX_HAND    # 8: seat that was dealt the hand this seat holds
S_SEEN = S_HORIG + MAX_PLAYERS               # 8: bit mask of hands (by origin) this seat has held this turn
S_DECK = S_SEEN + MAX_PLAYERS                # deck, top = last
S_DISC = S_DECK + MAX_CARDS
S_REM = S_DISC + MAX_CARDS                   # unique cards removed from the game
S_SCRATCH = S_REM + MAX_CARDS             # MAX_HAND: working space for passing hands
S_DECISIONS = S_SCRATCH + MAX_HAND          # choices strategies made this game (more than one option)
STATE_SIZE = S_DECISIONS + 1

# --- actions: one row each ---
A_TYPE, A_SLOT, A_CARD, A_SUIT, A_LEVEL, A_MASK = 0, 1, 2, 3, 4, 5
ACOLS = 6
T_PLACE, T_DECLARE = 0, 1

# --- observation (what one seat may know) ---
O_SEAT = 0
O_NP = 1
O_TURN = 2
O_NTURNS = 3
O_STEP = 4
O_HAND_SIZE = 5
O_DIR = 6           # +1 hands go to seat+1 this turn, -1 to seat-1
O_NEXT = 7          # seat that receives this seat's hand
O_DECK = 8
O_DISC = 9
O_MAJ_VT = 10
O_MAJ_TIE_VT = 11
O_ZERO_SCORES = 12
O_ALL_VT = 13
O_DIS_VT = 14
O_EMP_TIE = 15
O_EMP_ZERO = 16
O_EMP_BONUS = 17                 # MAX_TURNS: the emperor track (public), by turn - 1
O_EMP_MASK = O_EMP_BONUS + MAX_TURNS
O_SEATS = O_EMP_MASK + MAX_TURNS  # per seat block, absolute seat order
B_TOT = 0           # 4 suit totals on the table
B_CNT = 4           # 4 cards per suit on the table
B_DIS = 8           # Disasters on the table
B_UNDECL = 9        # undeclared destiny cards (not in the totals yet)
B_VT = 10
B_HLEN = 11         # cards in the hand this seat holds
B_KNOWN = 12        # 1: the observer knows that hand (its own, or one it held earlier this turn)
B_HMASK = 13        # MAX_HAND suit masks of that hand (when known)
B_HLEVEL = B_HMASK + MAX_HAND
SB = B_HLEVEL + MAX_HAND
# appended for search players (public history a seat can rebuild a consistent world from; offsets above unchanged)
O_TABLES = O_SEATS + MAX_PLAYERS * SB   # MAX_PLAYERS x MAX_TABLE: table card of seat q, slot i, as
                                        # card id * 8 + (declared suit + 2); -1 for an empty slot
GONE_BITS = 30                          # card ids per word of O_GONE
O_GONE = O_TABLES + MAX_PLAYERS * MAX_TABLE  # bit set of card ids in the discard or removed from the game
OBS_SIZE = O_GONE + (MAX_CARDS + GONE_BITS - 1) // GONE_BITS


@njit(cache=True)
def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int32)


@njit(cache=True)
def seed(value):
    """Seed numba's generator (shared by every jitted function of this thread)."""
    np.random.seed(value)


@njit(cache=True)
def _shuffle(s, off, n):
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = np.random.randint(0, i + 1)
        s[off + i], s[off + j] = s[off + j], s[off + i]


@njit(cache=True)
def _discard_into_deck(s):
    n = s[S_DECKLEN]
    for i in range(s[S_DISCLEN]):
        s[S_DECK + n] = s[S_DISC + i]
        n += 1
    s[S_DECKLEN] = n
    s[S_DISCLEN] = 0


@njit(cache=True)
def age_in_play(s, cfg, a):
    """Whether the cards of age a are in the game: the Early cards from the start, then the age of each emperor
    so far ("that age's cards"); an age the track skips stays out unless rules.skipped_ages = "shuffled_in"."""
    if a > s[S_OPENED]:
        return False
    if a == 0 or cfg[CFG_SKIPPED_AGES] == 1:
        return True
    for i in range(s[S_TURN]):
        if cfg[CFG_EMP_AGE + i] == a:
            return True
    return False


@njit(cache=True)
def open_ages(s, cfg, upto):
    """Open age `upto` (the Early cards too at the start): its cards and the discard shuffled into the deck."""
    n = s[S_DECKLEN]
    for c in range(cfg[CFG_NCARDS]):
        a = cfg[CFG_CAGE + c]
        if s[S_OPENED] < a <= upto and (a == 0 or a == upto or cfg[CFG_SKIPPED_AGES] == 1):
            s[S_DECK + n] = c
            n += 1
    s[S_DECKLEN] = n
    _discard_into_deck(s)
    _shuffle(s, S_DECK, s[S_DECKLEN])
    s[S_OPENED] = upto


@njit(cache=True)
def draw(s, cfg):
    if s[S_DECKLEN] == 0:
        if cfg[CFG_RESHUFFLE] == 1 and s[S_DISCLEN] > 0:
            _discard_into_deck(s)
            _shuffle(s, S_DECK, s[S_DECKLEN])
            s[S_RESHUFFLES] += 1
        else:
            raise ValueError("deck and discard are empty while dealing (validation should have refused this)")
    s[S_DECKLEN] -= 1
    return s[S_DECK + s[S_DECKLEN]]


@njit(cache=True)
def new_game(s, players):
    s[:] = 0
    s[S_NP] = players
    s[S_OPENED] = -1


@njit(cache=True)
def n_suits(mask):
    n = 0
    for k in range(NSUITS):
        if mask & (1 << k):
            n += 1
    return n


@njit(cache=True)
def only_suit(mask):
    for k in range(NSUITS):
        if mask & (1 << k):
            return k
    return DISASTER


@njit(cache=True)
def _count_card(s, cfg, p, c, suit, sign):
    if suit == DISASTER:
        s[S_TDIS + p] += sign
    elif suit == UNDECLARED:
        s[S_UNDECL + p] += sign
    else:
        s[S_TOT + NSUITS * p + suit] += sign * cfg[CFG_CLEVEL + c]
        s[S_CNT + NSUITS * p + suit] += sign


@njit(cache=True)
def _to_table(s, cfg, p, c, suit):
    i = s[S_TLEN + p]
    s[S_TABLE + MAX_TABLE * p + i] = c
    s[S_TSUIT + MAX_TABLE * p + i] = suit
    s[S_TLEN + p] = i + 1
    _count_card(s, cfg, p, c, suit, 1)


@njit(cache=True)
def direction(s, cfg):
    mode = cfg[CFG_PASS_MODE]
    if mode == 1:
        return 1
    if mode == 2:
        return -1
    return 1 if s[S_TURN] % 2 == 1 else -1  # rulebook: odd turns to the left (seat + 1), even to the right


@njit(cache=True)
def begin_turn(s, cfg):
    """Start the next turn: open a new age (its cards and the discard shuffled in), Destiny, then Fate."""
    t = s[S_TURN] + 1
    s[S_TURN] = t
    s[S_STEP] = 0
    age = cfg[CFG_EMP_AGE + t - 1]
    if age > s[S_OPENED]:
        open_ages(s, cfg, age)
    P = s[S_NP]
    for p in range(P):
        for k in range(NSUITS):
            s[S_TOT + NSUITS * p + k] = 0
            s[S_CNT + NSUITS * p + k] = 0
        s[S_TDIS + p] = 0
        s[S_UNDECL + p] = 0
        s[S_TLEN + p] = 0
    for p in range(P):  # Destiny: face up, straight to the table
        for _ in range(cfg[CFG_DESTINY]):
            c = draw(s, cfg)
            mask = cfg[CFG_CMASK + c]
            if mask == 0:
                s[S_DIS_DESTINY + p] += 1
            _to_table(s, cfg, p, c, UNDECLARED if n_suits(mask) > 1 else only_suit(mask))
    for p in range(P):  # Fate: a hidden hand
        for i in range(cfg[CFG_HAND]):
            s[S_HAND + MAX_HAND * p + i] = draw(s, cfg)
        s[S_HLEN + p] = cfg[CFG_HAND]
        s[S_HORIG + p] = p
        s[S_SEEN + p] = 1 << p


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def legal_actions(s, cfg, p, actions, declare):
    """Seat p's choices. declare=True: the suits for its first undeclared destiny card (none if it has none).
    Otherwise: every (hand card, suit) pair; a Disaster is one choice with suit -1."""
    n = 0
    if declare:
        for i in range(s[S_TLEN + p]):
            if s[S_TSUIT + MAX_TABLE * p + i] == UNDECLARED:
                c = s[S_TABLE + MAX_TABLE * p + i]
                mask = cfg[CFG_CMASK + c]
                for k in range(NSUITS):
                    if mask & (1 << k):
                        actions[n, A_TYPE] = T_DECLARE
                        actions[n, A_SLOT] = i
                        actions[n, A_CARD] = c
                        actions[n, A_SUIT] = k
                        actions[n, A_LEVEL] = cfg[CFG_CLEVEL + c]
                        actions[n, A_MASK] = mask
                        n += 1
                return n
        return 0
    for i in range(s[S_HLEN + p]):
        c = s[S_HAND + MAX_HAND * p + i]
        mask = cfg[CFG_CMASK + c]
        for k in range(-1, NSUITS):
            if (k == -1 and mask == 0) or (k >= 0 and mask & (1 << k)):
                actions[n, A_TYPE] = T_PLACE
                actions[n, A_SLOT] = i
                actions[n, A_CARD] = c
                actions[n, A_SUIT] = k
                actions[n, A_LEVEL] = cfg[CFG_CLEVEL + c]
                actions[n, A_MASK] = mask
                n += 1
    return n


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def apply_action(s, cfg, p, row):
    """Apply one chosen action row for seat p: declare a destiny card's suit, or place a hand card."""
    if row[A_TYPE] == T_DECLARE:
        i = row[A_SLOT]
        c = s[S_TABLE + MAX_TABLE * p + i]
        _count_card(s, cfg, p, c, UNDECLARED, -1)
        s[S_TSUIT + MAX_TABLE * p + i] = row[A_SUIT]
        _count_card(s, cfg, p, c, row[A_SUIT], 1)
        return
    h = S_HAND + MAX_HAND * p
    i = row[A_SLOT]
    c = s[h + i]
    n = s[S_HLEN + p]
    for j in range(i, n - 1):  # keep the hand's order
        s[h + j] = s[h + j + 1]
    s[S_HLEN + p] = n - 1
    if row[A_SUIT] == DISASTER:
        s[S_DIS_PICKED + p] += 1
    _to_table(s, cfg, p, c, row[A_SUIT])


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
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


@njit(cache=True)
def undeclared_total(s):
    n = 0
    for p in range(s[S_NP]):
        n += s[S_UNDECL + p]
    return n


# scoring detail written by score_turn (per turn, for the results tables)
SC_MAJ = 0                          # 8: majority VT this turn
SC_ALL = SC_MAJ + MAX_PLAYERS       # 8
SC_EMP = SC_ALL + MAX_PLAYERS       # 8
SC_DIS = SC_EMP + MAX_PLAYERS       # 8
SC_MAJ_SOLE = SC_DIS + MAX_PLAYERS  # 8: majorities won alone this turn
SC_MAJ_TIED = SC_MAJ_SOLE + MAX_PLAYERS  # 8: majorities shared this turn
SC_MARGIN = SC_MAJ_TIED + MAX_PLAYERS    # 4: top total minus the second (-1: nobody scored the suit)
SC_TOPN = SC_MARGIN + NSUITS             # 4: players tied at the top
SC_EMP_WINNERS = SC_TOPN + NSUITS        # players who took (a share of) the emperor contest; 0 none
SC_SIZE = SC_EMP_WINNERS + 1


@njit(cache=True)
def _eligible(total, count, zero_scores):
    return total > 0 or (zero_scores == 1 and count > 0)


@njit(cache=True)
def score_turn(s, cfg, sc):
    """Scoring phase: suit majorities, all-suits bonus, emperor bonus, Disaster penalty. Adds to the VT."""
    P = s[S_NP]
    t = s[S_TURN]
    zero = cfg[CFG_ZERO_SCORES]
    for i in range(SC_SIZE):
        sc[i] = 0
    for k in range(NSUITS):
        top = -1
        second = -1
        n_top = 0
        for p in range(P):
            tot = s[S_TOT + NSUITS * p + k]
            if not _eligible(tot, s[S_CNT + NSUITS * p + k], zero):
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
        sc[SC_TOPN + k] = n_top
        sc[SC_MARGIN + k] = -1 if n_top == 0 else top - max(second, 0)
        if n_top == 0:
            continue
        for p in range(P):
            tot = s[S_TOT + NSUITS * p + k]
            if tot == top and _eligible(tot, s[S_CNT + NSUITS * p + k], zero):
                if n_top == 1:
                    sc[SC_MAJ + p] += cfg[CFG_MAJ_VT]
                    sc[SC_MAJ_SOLE + p] += 1
                else:
                    sc[SC_MAJ + p] += cfg[CFG_MAJ_TIE_VT]
                    sc[SC_MAJ_TIED + p] += 1
    # emperor: favoured total = the highest total among the favoured suits
    mask = cfg[CFG_EMP_MASK + t - 1]
    bonus = cfg[CFG_EMP_BONUS + t - 1]
    fav = np.full(P, -1, dtype=np.int64)
    top = -1
    for p in range(P):
        for k in range(NSUITS):
            if mask & (1 << k):
                tot = s[S_TOT + NSUITS * p + k]
                if _eligible(tot, s[S_CNT + NSUITS * p + k], cfg[CFG_EMP_ZERO]) and tot > fav[p]:
                    fav[p] = tot
        if fav[p] > top:
            top = fav[p]
    n_top = 0
    if top >= 0:
        for p in range(P):
            if fav[p] == top:
                n_top += 1
    sc[SC_EMP_WINNERS] = n_top
    if n_top > 0:
        if n_top == 1:
            share = bonus
        elif cfg[CFG_EMP_TIE] == EMP_TIE_HALF:
            share = bonus // 2
        elif cfg[CFG_EMP_TIE] == EMP_TIE_FULL:
            share = bonus
        else:
            share = 0
        for p in range(P):
            if fav[p] == top:
                sc[SC_EMP + p] = share
    for p in range(P):
        allsuits = True
        for k in range(NSUITS):
            if s[S_CNT + NSUITS * p + k] == 0:
                allsuits = False
        if allsuits:
            sc[SC_ALL + p] = cfg[CFG_ALL_VT]
        sc[SC_DIS + p] = cfg[CFG_DIS_VT] * s[S_TDIS + p]
        s[S_VT_MAJ + p] += sc[SC_MAJ + p]
        s[S_VT_ALL + p] += sc[SC_ALL + p]
        s[S_VT_EMP + p] += sc[SC_EMP + p]
        s[S_VT_DIS + p] += sc[SC_DIS + p]
        s[S_VT + p] += sc[SC_MAJ + p] + sc[SC_ALL + p] + sc[SC_EMP + p] + sc[SC_DIS + p]


@njit(cache=True)
def end_turn(s, cfg):
    """End phase: table cards go to the discard; unique cards leave the game instead."""
    for p in range(s[S_NP]):
        for i in range(s[S_TLEN + p]):
            c = s[S_TABLE + MAX_TABLE * p + i]
            if cfg[CFG_CUNIQUE + c] == 1:
                s[S_REM + s[S_REMLEN]] = c
                s[S_REMLEN] += 1
            else:
                s[S_DISC + s[S_DISCLEN]] = c
                s[S_DISCLEN] += 1
        s[S_TLEN + p] = 0
        s[S_UNDECL + p] = 0
        s[S_TDIS + p] = 0
        for k in range(NSUITS):
            s[S_TOT + NSUITS * p + k] = 0
            s[S_CNT + NSUITS * p + k] = 0


@njit(cache=True)
def final_result(s, cfg, share):
    """Most VT wins; ties share the win (1/k each) or, by configuration, nobody wins. Returns the winner seat,
    -1 for a shared (or void) win, and writes each seat's win share."""
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
    for p in range(P):
        share[p] = 0.0
        if s[S_VT + p] == top and (k == 1 or cfg[CFG_FINAL_TIE] == 0):
            share[p] = 1.0 / k
    return (winner if k == 1 else -1), k


@njit(cache=True, _nrt=False)  # per-step, allocates nothing: no reference counting (see sim/mohur/engine.py, HOT_NO_NRT)
def observe(s, cfg, p, obs):
    """What seat p may know: every table, VT, the emperor track, deck and discard sizes, its own hand, and
    the hands it held earlier this turn (their later picks are public, so it knows them exactly). Appended
    public history: every table card by id and declared suit (O_TABLES) and which cards are in the discard or
    removed from the game (O_GONE: every card played in an earlier turn was face up on a table)."""
    P = s[S_NP]
    obs[O_SEAT] = p
    obs[O_NP] = P
    obs[O_TURN] = s[S_TURN]
    obs[O_NTURNS] = cfg[CFG_NTURNS]
    obs[O_STEP] = s[S_STEP]
    obs[O_HAND_SIZE] = cfg[CFG_HAND]
    d = direction(s, cfg)
    obs[O_DIR] = d
    obs[O_NEXT] = (p + d) % P
    obs[O_DECK] = s[S_DECKLEN]
    obs[O_DISC] = s[S_DISCLEN]
    obs[O_MAJ_VT] = cfg[CFG_MAJ_VT]
    obs[O_MAJ_TIE_VT] = cfg[CFG_MAJ_TIE_VT]
    obs[O_ZERO_SCORES] = cfg[CFG_ZERO_SCORES]
    obs[O_ALL_VT] = cfg[CFG_ALL_VT]
    obs[O_DIS_VT] = cfg[CFG_DIS_VT]
    obs[O_EMP_TIE] = cfg[CFG_EMP_TIE]
    obs[O_EMP_ZERO] = cfg[CFG_EMP_ZERO]
    for t in range(cfg[CFG_NTURNS]):  # later entries stay 0 in both
        obs[O_EMP_BONUS + t] = cfg[CFG_EMP_BONUS + t]
        obs[O_EMP_MASK + t] = cfg[CFG_EMP_MASK + t]
    seen = s[S_SEEN + p]
    for q in range(P):
        b = O_SEATS + SB * q
        for k in range(NSUITS):
            obs[b + B_TOT + k] = s[S_TOT + NSUITS * q + k]
            obs[b + B_CNT + k] = s[S_CNT + NSUITS * q + k]
        obs[b + B_DIS] = s[S_TDIS + q]
        obs[b + B_UNDECL] = s[S_UNDECL + q]
        obs[b + B_VT] = s[S_VT + q]
        n = s[S_HLEN + q]
        obs[b + B_HLEN] = n
        known = q == p or (seen >> s[S_HORIG + q]) & 1 == 1
        obs[b + B_KNOWN] = 1 if known else 0
        for i in range(cfg[CFG_HAND]):  # a hand never holds more; later entries stay 0
            if known and i < n:
                c = s[S_HAND + MAX_HAND * q + i]
                obs[b + B_HMASK + i] = cfg[CFG_CMASK + c]
                obs[b + B_HLEVEL + i] = cfg[CFG_CLEVEL + c]
            else:
                obs[b + B_HMASK + i] = 0
                obs[b + B_HLEVEL + i] = 0
        tl = s[S_TLEN + q]
        for i in range(cfg[CFG_DESTINY] + cfg[CFG_HAND]):  # a table never holds more
            if i < tl:
                obs[O_TABLES + MAX_TABLE * q + i] = s[S_TABLE + MAX_TABLE * q + i] * 8 \
                    + s[S_TSUIT + MAX_TABLE * q + i] + 2
            else:
                obs[O_TABLES + MAX_TABLE * q + i] = -1
    for w in range((cfg[CFG_NCARDS] + GONE_BITS - 1) // GONE_BITS):
        obs[O_GONE + w] = 0
    for i in range(s[S_DISCLEN]):
        c = s[S_DISC + i]
        obs[O_GONE + c // GONE_BITS] |= 1 << (c % GONE_BITS)
    for i in range(s[S_REMLEN]):
        c = s[S_REM + i]
        obs[O_GONE + c // GONE_BITS] |= 1 << (c % GONE_BITS)


@njit(cache=True)
def check_invariants(s, cfg):
    """Debug mode: every card in play is in exactly one place (deck, hands, tables, discard, removed) and
    cards of unopened ages nowhere; table totals match the table; only unique cards are removed."""
    nc = cfg[CFG_NCARDS]
    seen = np.zeros(nc, dtype=np.int64)
    for i in range(s[S_DECKLEN]):
        seen[s[S_DECK + i]] += 1
    for i in range(s[S_DISCLEN]):
        seen[s[S_DISC + i]] += 1
    for i in range(s[S_REMLEN]):
        c = s[S_REM + i]
        seen[c] += 1
        if cfg[CFG_CUNIQUE + c] != 1:
            raise AssertionError("invariant: a card that is not unique left the game")
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
            mask = cfg[CFG_CMASK + c]
            if k == DISASTER:
                dis += 1
                if mask != 0:
                    raise AssertionError("invariant: a suited card placed as a Disaster")
            elif k == UNDECLARED:
                und += 1
            else:
                if not mask & (1 << k):
                    raise AssertionError("invariant: a card declared in a suit it does not have")
                tot[k] += cfg[CFG_CLEVEL + c]
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
        want = 1 if age_in_play(s, cfg, cfg[CFG_CAGE + c]) else 0
        if seen[c] != want:
            raise AssertionError("invariant: a card is missing or in two places")
