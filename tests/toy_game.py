"""Hidden Nim: a toy game that speaks the whole engine interface (sim.interface), for tests and docs/new-game.md.

Two players share a pile of tokens and a deck of cards worth 1, 2 or 3 (`copies` of each). Each holds a hidden
hand; on a turn a player plays a card no larger than the pile, takes that many tokens and draws a card. Who
takes the last token wins; a player who cannot play passes, and two passes in a row end the game drawn. The
hands are hidden (only their sizes and the cards played are public): the search player must sample them.
"""
import numpy as np
from numba import njit

from sim.interface import Layout

V = 4  # card values 1..3 (index 0 unused: value 0 is the pass)
MAX_DECK = 3 * 8
RUNNING, DRAW = -1, 2
CFG = Layout("toy cfg", [("pile", 1), ("copies", 1), ("hand", 1)])
STATE = Layout("toy state", [("pile", 1), ("cur", 1), ("passes", 1), ("winner", 1), ("deck_pos", 1),
                             ("deck_len", 1), ("deck", MAX_DECK), ("hand", (2, V)), ("played", V)])
OBS = Layout("toy observation", [("seat", 1), ("cur", 1), ("pile", 1), ("passes", 1), ("hand", V),
                                 ("played", V), ("rival_hand", 1), ("deck_left", 1)])
C_PILE, C_COPIES, C_HAND = (CFG.offset(f) for f in ("pile", "copies", "hand"))
S_PILE, S_CUR, S_PASSES, S_WINNER, S_DECK_POS, S_DECK_LEN, S_DECK, S_HAND, S_PLAYED = (
    STATE.offset(f) for f in STATE.fields)
O_SEAT, O_CUR, O_PILE, O_PASSES, O_HAND, O_PLAYED, O_RIVAL_HAND, O_DECK_LEFT = (OBS.offset(f) for f in OBS.fields)
STATE_SIZE, OBS_SIZE, MAX_ACTIONS, ACOLS = STATE.size, OBS.size, 3, 1


def config(pile=13, copies=5, hand=4):
    return np.array([pile, copies, hand], dtype=np.int64)


@njit(cache=True)
def draw(s, p):
    if s[S_DECK_POS] < s[S_DECK_LEN]:
        s[S_HAND + V * p + s[S_DECK + s[S_DECK_POS]]] += 1
        s[S_DECK_POS] += 1


@njit(cache=True)
def new_game(s, cfg, players, seed, game):
    s[:] = 0
    s[S_PILE], s[S_WINNER], s[S_DECK_LEN] = cfg[C_PILE], RUNNING, 3 * cfg[C_COPIES]
    for i in range(s[S_DECK_LEN]):
        s[S_DECK + i] = 1 + i % 3
    x = np.uint64(seed) * np.uint64(6364136223846793005) + np.uint64(game) + np.uint64(1442695040888963407)
    for i in range(s[S_DECK_LEN] - 1, 0, -1):  # the game's own seeded stream: an LCG shuffle
        x = x * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        j = S_DECK + int((x >> np.uint64(33)) % np.uint64(i + 1))
        s[S_DECK + i], s[j] = s[j], s[S_DECK + i]
    for _ in range(cfg[C_HAND]):
        draw(s, 0)
        draw(s, 1)


@njit(cache=True)
def current_player(s):
    return s[S_CUR]


@njit(cache=True)
def legal_actions(s, cfg, actions):
    n, p = 0, s[S_CUR]
    for v in range(1, V):
        if s[S_HAND + V * p + v] > 0 and v <= s[S_PILE]:
            actions[n, 0] = v
            n += 1
    if n == 0:
        actions[0, 0] = 0  # the pass
        n = 1
    return n


@njit(cache=True)
def apply_action(s, cfg, actions, a):
    v, p = actions[a, 0], s[S_CUR]
    if v == 0:
        s[S_PASSES] += 1
        if s[S_PASSES] >= 2:
            s[S_WINNER] = DRAW
    else:
        s[S_PASSES] = 0
        s[S_PILE] -= v
        s[S_HAND + V * p + v] -= 1
        s[S_PLAYED + v] += 1
        draw(s, p)
        if s[S_PILE] == 0:
            s[S_WINNER] = p
    s[S_CUR] = 1 - p


@njit(cache=True)
def is_over(s):
    return s[S_WINNER] != RUNNING


@njit(cache=True)
def returns(s, cfg, out):
    for p in range(2):
        out[p] = 0.5 if s[S_WINNER] == DRAW else (1.0 if s[S_WINNER] == p else 0.0)


@njit(cache=True)
def observe(s, cfg, seat, obs):
    obs[O_SEAT], obs[O_CUR], obs[O_PILE], obs[O_PASSES] = seat, s[S_CUR], s[S_PILE], s[S_PASSES]
    for v in range(V):
        obs[O_HAND + v] = s[S_HAND + V * seat + v]
        obs[O_PLAYED + v] = s[S_PLAYED + v]
    obs[O_RIVAL_HAND] = s[S_HAND + V * (1 - seat): S_HAND + V * (2 - seat)].sum()
    obs[O_DECK_LEFT] = s[S_DECK_LEN] - s[S_DECK_POS]


@njit(cache=True)
def check_invariants(s, cfg):
    for v in range(1, V):
        left = 0
        for i in range(s[S_DECK_POS], s[S_DECK_LEN]):
            left += s[S_DECK + i] == v
        if s[S_HAND + v] + s[S_HAND + V + v] + s[S_PLAYED + v] + left != cfg[C_COPIES]:
            raise ValueError("toy: cards not conserved")


@njit(cache=True)
def determinize(obs, cfg, s):
    """A state the observer could be in: the rival's hand and the deck order dealt from the unseen cards."""
    me = obs[O_SEAT]
    s[:] = 0
    s[S_PILE], s[S_CUR], s[S_PASSES], s[S_WINNER] = obs[O_PILE], obs[O_CUR], obs[O_PASSES], RUNNING
    unseen = np.empty(MAX_DECK, dtype=np.int64)
    n = 0
    for v in range(1, V):
        s[S_HAND + V * me + v] = obs[O_HAND + v]
        s[S_PLAYED + v] = obs[O_PLAYED + v]
        for _ in range(cfg[C_COPIES] - obs[O_HAND + v] - obs[O_PLAYED + v]):
            unseen[n] = v
            n += 1
    np.random.shuffle(unseen[:n])
    for i in range(obs[O_RIVAL_HAND]):
        s[S_HAND + V * (1 - me) + unseen[i]] += 1
    s[S_DECK_LEN] = n - obs[O_RIVAL_HAND]
    for i in range(s[S_DECK_LEN]):
        s[S_DECK + i] = unseen[obs[O_RIVAL_HAND] + i]


P_QUARTER = 11  # the toy's own search parameter, after the shared search's 11 (sim.registry.MAX_PARAMS holds at least 12)


@njit(cache=True)
def evaluate(s, cfg, params, out):
    """A live state's value per seat: in plain Nim (take 1 to 3) the player to move loses when the pile is a
    multiple of 4; the hands make it a likelihood. With `params[P_QUARTER]` > 0, 1/4 for every seat: exact ties
    for the search's tests (a parameter, not a second binding, which would compile the whole search again)."""
    if params[P_QUARTER] > 0:
        for seat in range(out.shape[0]):
            out[seat] = 0.25
        return
    p = s[S_CUR]
    out[p] = 0.3 if s[S_PILE] % 4 == 0 else 0.7
    out[1 - p] = 1.0 - out[p]
