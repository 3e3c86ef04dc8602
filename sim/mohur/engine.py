"""Mohur forward model behind the engine interface (sim.interface): a whole match (best of `seals_to_win` rounds)
is one int32 state, and `apply_action` takes every automatic step (refill, scoring, the next deal, the end).

A trader's hand row holds the goods and the coffer (COIN), so dealing a coin "moves it straight to the coffer".
Chance: numba's generator is seeded once per match (the first starter, then the strategies' tie-breaks); every
round is dealt from its own splitmix stream seeded from (batch seed, match, round), whatever happened before it.
"""
import numpy as np
from sim.jit import njit

from sim.mohur.layout import *  # noqa: F401,F403 (every constant and offset, as before the split)
from sim.mohur.layout import free_row_chosen, simple_row, too_many, total
from sim.mohur.exchanges import *  # noqa: F401,F403 (the enumeration, read through the engine by strategies and tests)
from sim.mohur.exchanges import _exchanges
from sim.rng import below, deal_seed, game_seed


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
    """Reset the round (seals and round number are kept) and deal it from the stream at `seed`: rulebook setup."""
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
    s[S_FIRST_SALE:S_FIRST_SALE + NG] = -1
    s[S_STARTER] = starter
    s[S_CUR] = starter


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def legal_actions(s, cfg, actions):
    """`enumerate_actions` of the trader to move, or one pass row (rules page safety rule); remembers how many."""
    p = s[S_CUR]
    s[S_COUNTED] = 0
    n = enumerate_actions(s, cfg, p, actions, s[S_ON_DEMAND + p])
    if n == 0:
        n = simple_row(actions, 0, T_PASS, -1, 0)
    s[S_NLEGAL] = n
    return n


@njit(cache=True, _nrt=False, inline="always")  # see HOT_NO_NRT
def enumerate_actions(s, cfg, p, actions, on_demand=EX_LISTED):
    """Fill `actions` with every legal action of seat p; return how many (0: p must pass). Order: sells, takes,
    coins, exchanges; the last two rows stay free. `on_demand`: how the exchanges are listed (LISTINGS; listing
    up to 160 a turn was most of a heuristic match). Where the row would hide that there is no choice (no sell or
    take), every exchange is listed."""
    n = 0
    h = S_HAND + NK * p
    hand_goods = total(s, h, NG)
    limit = cfg[CFG_HAND_LIMIT]
    if hand_goods + NG + 1 >= MAX_ACTIONS - 2:
        too_many()
    for g in range(NG):  # at most hand_goods sells, NG takes and one coin take: within the check above
        for c in range(max(1, cfg[CFG_MIN_SALE + g]), s[h + g] + 1):
            n = simple_row(actions, n, T_SELL, g, c)
    if hand_goods < limit:
        for g in range(NG):
            if s[S_MARKET + g] > 0:
                n = simple_row(actions, n, T_TAKE_GOOD, g, 1)
                actions[n - 1, A_TAKE + g] = 1
    coins = np.int64(s[S_MARKET + COIN])
    if coins > 0:
        n = simple_row(actions, n, T_TAKE_COINS, COIN, coins)
        actions[n - 1, A_TAKE + COIN] = coins
    return _exchanges(s, cfg, S_MARKET, h, coin_bound(s, h, limit), actions, n,
                      on_demand if n > 0 or on_demand == EX_COUNTED else EX_LISTED)


@njit(cache=True)
def empty_stacks(s, cfg):
    e = 0
    for g in range(NG):
        if s[S_TOKPOS + g] >= cfg[CFG_NTOK + g]:
            e += 1
    return e


@njit(cache=True, _nrt=False)  # see HOT_NO_NRT
def apply_action(s, cfg, actions, a):
    """Row `a` for the trader to move (`step`), then, if that ended the round, `finish_round`."""
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
        free_row_chosen()
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
        if s[S_FIRST_SALE + g] < 0:
            s[S_FIRST_SALE + g] = gained
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
    """Score the ended round into the history and award its seal, then end the match or deal the next round."""
    if s[S_ROUND_ONLY] != 0:
        s[S_OVER] = 1  # a search player's world: the round's value is read from the final state
        return
    r0, r1, holder, winner, tie = round_score(s, cfg)
    rnd = s[S_ROUND]
    h = S_HISTORY + (rnd - 1) * HIST_SIZE
    s[h + H_ROUND], s[h + H_STARTER], s[h + H_WINNER], s[h + H_END_REASON] = rnd, s[S_STARTER], winner, s[S_END]
    s[h + H_TURNS], s[h + H_DECISIONS], s[h + H_COIN_TOKEN], s[h + H_TIE_BREAK] = s[S_TURN], s[S_DECISIONS], holder, tie
    s[h + H_RUPEES], s[h + H_RUPEES + 1] = r0, r1
    for p in range(2):
        s[h + H_GOODS_TOKENS + p] = s[S_GCNT + p]
        s[h + H_GOODS_RUPEES + p] = s[S_GSUM + p]
        s[h + H_BONUS_TOKENS + p] = s[S_BCNT + p]
        s[h + H_BONUS_RUPEES + p] = s[S_BSUM + p]
        s[h + H_COINS + p] = s[S_HAND + NK * p + COIN]
        for g in range(NG):
            s[h + H_TAKEN + 2 * g + p] = s[S_TAKEN + NG * p + g]
            s[h + H_TOKENS + 2 * g + p] = s[S_TCNT + NG * p + g]
    for g in range(NG):
        s[h + H_FIRST_SALE + g] = s[S_FIRST_SALE + g]
        pos = s[S_TOKPOS + g]
        s[h + H_LEFT + g] = total(cfg, CFG_TOK + g * MAX_TOK + pos, cfg[CFG_NTOK + g] - pos)
    for i in range(NSIZES):  # loops, not slice copies: those need NRT, which apply_action runs without
        s[h + H_SALES_SIZE + i] = s[S_SALES + i]
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
    """What seat p may know: own hand, the public table, counts, and tracked knowledge of the rival. `obs` is
    zeroed or filled before for the same `cfg`: unchanged stacks and the rules' figures are not rewritten (half a
    call's cost), so strategies must not write to it."""
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
        # values left, top first, then zeros to the stack's full length (entries past it stay 0 from np.zeros)
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
            obs[O_MIN_SALE + g] = cfg[CFG_MIN_SALE + g]
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
