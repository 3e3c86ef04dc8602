"""`ismcts`, Mughal's search player: the shared information-set MCTS (strategies/search.py; docs/strategies.md).

Sampled worlds end with the turn being played (its tables are scored and cleared at its end), valued per seat as
(1 - `versus_best`) x (its VT this turn less the others' mean) + `versus_best` x (its lead over the best other
seat). A turn never touches the card piles, the state's back 3/4: a playout copies only the seats and slots in use.
"""
from sim.jit import njit

from sim.mughal import engine as E
from sim.mughal.determinize import sample_state
from strategies._choice import consider
from strategies.search import registered_player
from strategies.mughal import greedy
from strategies.mughal._features import masked_claims, pick_terms, pick_vt


@njit(cache=True, _nrt=False)  # once a round: no reference counts
def determinize_turn(obs, cfg, s):
    """A sampled world that ends with the turn being played."""
    sample_state(obs, cfg, s, False)
    s[E.S_STOP_AT_TURN_END] = 1


@njit(cache=True, _nrt=False)
def restore_turn(s, w):
    """s <- what a playout of the sampled turn w reads (the search's `restore`): the header, pending picks, VT, and
    per seat in play its tallies and the slots in use; the rest is not read within a turn or written first."""
    for i in range(E.S_DIS_DESTINY):
        s[i] = w[i]
    P = w[E.S_NP]
    for i in range(E.NSUITS * P):
        s[E.S_TOT + i] = w[E.S_TOT + i]
        s[E.S_CNT + i] = w[E.S_CNT + i]
    for p in range(P):
        s[E.S_DIS_PICKED + p] = w[E.S_DIS_PICKED + p]
        s[E.S_TDIS + p] = w[E.S_TDIS + p]
        s[E.S_UNDECL + p] = w[E.S_UNDECL + p]
        s[E.S_HORIG + p] = w[E.S_HORIG + p]
        s[E.S_SEEN + p] = w[E.S_SEEN + p]
        tl, hl = w[E.S_TLEN + p], w[E.S_HLEN + p]
        s[E.S_TLEN + p] = tl
        s[E.S_HLEN + p] = hl
        b = E.MAX_TABLE * p
        for i in range(tl):
            s[E.S_TABLE + b + i] = w[E.S_TABLE + b + i]
            s[E.S_TSUIT + b + i] = w[E.S_TSUIT + b + i]
        b = E.MAX_HAND * p
        for i in range(hl):
            s[E.S_HAND + b + i] = w[E.S_HAND + b + i]


@njit(cache=True, _nrt=False, inline="always")  # one call site (turn_value), per playout
def turn_gains(s, cfg, out):
    """out[p] <- the VT seat p gains if the turn is scored as its tables stand (`engine._score`'s, a test
    compares), without touching the state: two passes per contest instead of a scratch row."""
    P = s[E.S_NP]
    zero, ezero = cfg[E.CFG_ZERO_SCORES], cfg[E.CFG_EMP_ZERO]
    for p in range(P):
        out[p] = cfg[E.CFG_DIS_VT] * s[E.S_TDIS + p]
        every = True
        for k in range(E.NSUITS):
            every &= s[E.S_CNT + E.NSUITS * p + k] > 0
        if every:
            out[p] += cfg[E.CFG_ALL_VT]
    for k in range(E.NSUITS):  # majorities
        top, n_top = -1, 0
        for p in range(P):
            tot = s[E.S_TOT + E.NSUITS * p + k]
            if E.eligible(tot, s[E.S_CNT + E.NSUITS * p + k], zero):
                if tot > top:
                    top, n_top = tot, 1
                elif tot == top:
                    n_top += 1
        if n_top > 0:
            vt = cfg[E.CFG_MAJ_VT] if n_top == 1 else cfg[E.CFG_MAJ_TIE_VT]
            for p in range(P):
                tot = s[E.S_TOT + E.NSUITS * p + k]
                if tot == top and E.eligible(tot, s[E.S_CNT + E.NSUITS * p + k], zero):
                    out[p] += vt
    t = s[E.S_TURN] - 1  # the emperor: the highest favoured total
    mask = cfg[E.CFG_EMP_MASK + t]
    top, n_top = -1, 0
    for p in range(P):
        fav = _favoured(s, p, mask, ezero)
        if fav > top:
            top, n_top = fav, 1
        elif fav == top:
            n_top += 1
    if top >= 0:
        share = E.emperor_share(cfg, t, n_top)
        for p in range(P):
            if _favoured(s, p, mask, ezero) == top:
                out[p] += share


@njit(cache=True, _nrt=False, inline="always")
def _favoured(s, p, mask, ezero):
    """Seat p's favoured total (-1: none), as `engine._score` takes it."""
    fav = -1
    for k in range(E.NSUITS):
        tot = s[E.S_TOT + E.NSUITS * p + k]
        if (mask >> k) & 1 == 1 and E.eligible(tot, s[E.S_CNT + E.NSUITS * p + k], ezero) and tot > fav:
            fav = tot
    return fav


@njit(cache=True, _nrt=False)  # per playout: no reference counts on its arrays
def turn_value(s, cfg, params, out):
    """Each seat's value of the turn, scored as its tables stand (see the module's doc); the state is left as it is."""
    P = s[E.S_NP]
    vb = params[P_VERSUS_BEST]  # noqa: F821 - set by the registry
    turn_gains(s, cfg, out)
    total, best, at, second = 0.0, -1e300, -1, -1e300   # the most VT after the turn, its first seat, the next
    for p in range(P):
        total += out[p]
        vt = s[E.S_VT + p] + out[p]
        if vt > best:
            best, at, second = vt, p, best
        elif vt > second:
            second = vt
    for p in range(P):  # the lead over the best other seat
        top = second if p == at else best
        out[p] = (1.0 - vb) * (out[p] - (total - out[p]) / (P - 1)) + vb * (s[E.S_VT + p] + out[p] - top)


@njit(cache=True)
def candidate_key(actions, a):
    """Choices that put the same suits and level on the table in the same suit play alike."""
    return ((actions[a, E.A_TYPE] * 64 + actions[a, E.A_MASK]) * 8 + actions[a, E.A_SUIT] + 2) * 4096 \
        + actions[a, E.A_LEVEL]


@njit(cache=True)
def dominated(obs, actions, a, b):
    """Row a's placement is not played out beside row b's: the same suit, b's card at least as high and playable
    in every suit a's is, and the hand cannot come back with a choice this turn (hand length - players <= 1).
    A rule of thumb: the race spent 17% of 4-seat playouts on such near-alike pairs (docs/strategies.md)."""
    k = actions[a, E.A_SUIT]
    ma, mb = actions[a, E.A_MASK], actions[b, E.A_MASK]
    la, lb = actions[a, E.A_LEVEL], actions[b, E.A_LEVEL]
    gone = obs[E.O_SEATS + E.SB * obs[E.O_SEAT] + E.B_HLEN] - obs[E.O_NP] <= 1
    return gone & (actions[a, E.A_TYPE] == E.T_PLACE) & (actions[b, E.A_TYPE] == E.T_PLACE) & (k >= 0) \
        & (actions[b, E.A_SUIT] == k) & (lb >= la) & (mb & ma == ma) & ((mb != ma) | (lb != la))


@njit(cache=True, _nrt=False, inline="always")
def _top(best, at, second, v, q):
    """(best, its first seat, the best of the other seats) after seat q's value v."""
    if v > best:
        return v, q, best
    return best, at, max(second, v)


@njit(cache=True, _nrt=False, inline="always")
def round_best(tallies, players, mask):
    """For each suit, then the favoured suits (`mask`): (best claim, its first seat, the best of the others), -1
    for none: every seat's others_best in one pass. `tallies`: laid out as an observation's (O_TOT, O_CNT, O_DIS)."""
    b0 = a0 = s0 = b1 = a1 = s1 = b2 = a2 = s2 = b3 = a3 = s3 = b4 = a4 = s4 = -1
    for q in range(players):
        v0, v1, v2, v3, v4 = masked_claims(tallies, q, mask)
        b0, a0, s0 = _top(b0, a0, s0, v0, q)
        b1, a1, s1 = _top(b1, a1, s1, v1, q)
        b2, a2, s2 = _top(b2, a2, s2, v2, q)
        b3, a3, s3 = _top(b3, a3, s3, v3, q)
        b4, a4, s4 = _top(b4, a4, s4, v4, q)
    return (b0, b1, b2, b3, b4), (a0, a1, a2, a3, a4), (s0, s1, s2, s3, s4)


@njit(cache=True, _nrt=False, inline="always")
def others_of(tops, p):
    """others_best(obs, cfg, p) from round_best's tops."""
    (b0, b1, b2, b3, b4), (a0, a1, a2, a3, a4), (s0, s1, s2, s3, s4) = tops
    return ((s0 if a0 == p else b0, s1 if a1 == p else b1, s2 if a2 == p else b2, s3 if a3 == p else b3),
            s4 if a4 == p else b4)


@njit(cache=True, _nrt=False)
def greedy_rollout(s, cfg, params, max_steps, obs, actions):
    """`greedy` (`params[0]`) for every seat from `s` until the world ends or `max_steps` actions: the play loop's
    choices and draws (a test checks) without its per-step work: no action rows, no observation (the state's
    tallies have its layout and do not change within a round), sums once a round and once a pick. `actions`: row
    0 carries the pick, rows 1-4 pick_terms' terms; `obs` unused. Returns the actions applied."""
    lw = params[0, GREEDY_LEVEL_WEIGHT]
    tallies = s[TALLIES:]
    steps, last = 0, 1 << 30
    while not E.is_over(s) and steps != max_steps:
        p = s[E.S_CUR]
        if p <= last:  # a new round (its seats choose in increasing order): the tables changed
            t = s[E.S_TURN] - 1   # the emperor's: the same for every pick of the round
            sole, tied, mask = E.emperor_share(cfg, t, 1), E.emperor_share(cfg, t, 2), cfg[E.CFG_EMP_MASK + t]
            tops = round_best(tallies, s[E.S_NP], mask)
        last = p
        if s[E.S_STEP] == 0:  # declaring: the first undeclared destiny card, in each of its suits
            first = E.S_TABLE + E.MAX_TABLE * p
            i = 0
            while s[E.S_TSUIT + E.MAX_TABLE * p + i] != E.UNDECLARED:
                i += 1
            cards, count = first + i, 1
        else:  # placing: every hand card in each of its suits (a Disaster: one choice)
            i, cards, count = 0, E.S_HAND + E.MAX_HAND * p, s[E.S_HLEN + p]
        best, ties, n, slot, suit = -1e18, 0, 0, i, 0
        one = cfg[E.CFG_CARD_MASK + s[cards]]
        if count == 1 and one & (one - 1) == 0:  # one row (a card of one suit, a Disaster): the loop asks nobody
            count, n, suit = 0, 1, (one > 1) + (one > 2) + (one > 4) - (one == 0)
        else:
            omax, ofav = others_of(tops, p)
            seat = pick_terms(tallies, cfg, p, omax, ofav, sole, tied, mask, actions)   # seat_now(obs, cfg, p) and rows
        for j in range(count):  # rows in legal_actions' order: by slot, then suit, lowest first
            c = s[cards + j]
            level = cfg[E.CFG_CARD_LEVEL + c]
            rest = cfg[E.CFG_CARD_MASK + c]
            while True:
                low = rest & -rest
                k = (low > 1) + (low > 2) + (low > 4) - (low == 0)
                take, best, ties = consider(pick_vt(cfg, seat, actions, k, level) + lw * level, best, ties)
                if take:
                    slot, suit = i + j, k
                n += 1
                rest ^= low
                if rest == 0:
                    break
        q = E.next_chooser(s, p + 1)
        if q < s[E.S_NP]:  # the pick waits for the round's last chooser: apply_action's first half, without a call
            if n > 1:
                s[E.S_DECISIONS] += 1
            s[E.S_NLEGAL] = 0
            s[E.S_PEND_SLOT + p] = slot
            s[E.S_PEND_SUIT + p] = suit
            s[E.S_CUR] = q
        else:
            actions[0, E.A_SLOT] = slot
            actions[0, E.A_SUIT] = suit
            s[E.S_NLEGAL] = n
            E.apply_action(s, cfg, actions, 0)
        steps += 1
    return steps


GREEDY_LEVEL_WEIGHT = greedy.P_LEVEL_WEIGHT
TALLIES = E.S_TOT - E.O_TOT   # s[TALLIES:] reads the state's tallies at an observation's offsets
assert E.S_CNT - E.S_TOT == E.O_CNT - E.O_TOT and E.S_TDIS - E.S_TOT == E.O_DIS - E.O_TOT
ismcts, search = registered_player("mughal", E, determinize_turn, E.MAX_PLAYERS, __name__, evaluate=turn_value,
                                   value=turn_value, action_key=candidate_key,
                                   defaults={"iterations": 32.0, "exploration": 0.0, "tree_depth": 1.0},
                                   extra={"versus_best": 0.5}, world_size=E.S_DECK,
                                   own_rollout=("greedy", greedy_rollout), restore=restore_turn, dominated=dominated)
