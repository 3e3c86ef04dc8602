"""Features of Muziris's `weighted` strategy (the table: docs/strategies.md), read from the observation alone.

An option scores sum_i weight_i x (feature_i after - feature_i before), from what it changes, without copying the
observation; a character's own decisions count at the best option each would offer now, a card drawn as the
game's average card. `*_late` features scale by the game's progress (0 to 1, `progress`); `end_race_*` count
steps towards the end trigger, positive while leading.
"""
from sim.jit import njit

from sim.muziris import engine as E
from strategies._choice import consider
from strategies.muziris._features import held, in_market, keep, potential, public_char_value, val

# name, default weight, (lowest, highest): the strategy's parameters in this order (W_<NAME> = position)
FEATURES = (
    ("order_coins", 1.0, (0.0, 3.0)),                 # coins from an order fulfilled
    ("ability_coins", 0.75, (0.0, 3.0)),              # coins from abilities and actions: gain, per order, bonus
    ("character_coins", 1.0, (0.0, 3.0)),             # coins lying on the character taken
    ("hand_order_value", 0.5, (-2.0, 3.0)),           # coins the hand could make as orders (a drawn card: average)
    ("hand_order_value_late", -0.25, (-3.0, 3.0)),    # the same, times the game's progress
    ("full_orders_in_hand", -0.15, (-5.0, 5.0)),      # complete max-size orders in hand
    ("hand_cards", 0.125, (-3.0, 3.0)),               # cards in hand
    ("hand_over_limit", -1.0, (-5.0, 5.0)),           # cards beyond the hand limit (discarded at end of turn)
    ("hand_ability_coins", 0.0, (-3.0, 3.0)),         # coins hand cards' abilities give (a Scholar in play)
    ("orders_in_play", -0.2, (-5.0, 5.0)),            # orders in the play area
    ("produce_types_in_play", 0.0, (-5.0, 5.0)),      # distinct produce in the play area
    ("condition_coins", 0.15, (-3.0, 3.0)),           # the market condition's coins if the game ended now
    ("condition_coins_late", 0.6, (-3.0, 3.0)),       # the same, times the game's progress
    ("end_race_orders", 0.5, (-10.0, 10.0)),          # orders-trigger: the most orders raised (sign: leading)
    ("end_race_cards_drawn", 0.0, (-10.0, 10.0)),     # reshuffle-trigger: cards drawn from the deck (sign: leading)
    ("end_race_coins", 0.1, (-10.0, 10.0)),           # coins-trigger: the most coins raised (sign: leading)
    ("next_player_best_character", -0.2, (-5.0, 5.0)),  # coins the next player can get from the best character left
)
NAMES = tuple(name for name, _, _ in FEATURES)
(W_ORDER_COINS, W_ABILITY_COINS, W_CHARACTER_COINS, W_HAND_ORDER_VALUE, W_HAND_ORDER_VALUE_LATE,
 W_FULL_ORDERS_IN_HAND, W_HAND_CARDS, W_HAND_OVER_LIMIT, W_HAND_ABILITY_COINS, W_ORDERS_IN_PLAY,
 W_PRODUCE_TYPES_IN_PLAY, W_CONDITION_COINS, W_CONDITION_COINS_LATE, W_END_RACE_ORDERS, W_END_RACE_CARDS_DRAWN,
 W_END_RACE_COINS, W_NEXT_PLAYER_BEST_CHARACTER) = range(len(FEATURES))

# The decision's context, one tuple of floats computed once per decision (X_<name> = position)
(X_POT, X_CARD, X_COND, X_HAC, X_HAND_N, X_MY_COINS, X_RIVAL_COINS, X_RACE_COINS, X_MY_ORDERS, X_RIVAL_ORDERS,
 X_RACE_ORDERS, X_RACE_CARDS, X_AD) = range(13)


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def condition_coins_seen(obs, q):
    """The market condition's end-of-game coins for seat q as the table stands (engine.condition_coins_of on
    the observation: play areas and hand sizes are public)."""
    kind, amt, least = obs[E.O_SCORE], obs[E.O_AMT], obs[E.O_ATLEAST]
    coins = 0
    if kind == E.SC_PER_TYPE:
        for t in range(obs[E.O_NT]):
            if obs[E.O_PLAY + q * E.MAX_T + t] > 0:
                coins += amt
    elif kind == E.SC_PER_HAND:
        coins = amt * obs[E.O_HANDN + q]
    elif kind == E.SC_MOST_ORDERS:
        best = 0
        for r in range(obs[E.O_NP]):
            best = max(best, E.cards(obs, E.O_PLAY + r * E.MAX_T))
        if best >= least and E.cards(obs, E.O_PLAY + q * E.MAX_T) == best:
            coins = amt
    elif kind == E.SC_MOST_EACH:
        for t in range(obs[E.O_NT]):
            best = 0
            for r in range(obs[E.O_NP]):
                best = max(best, obs[E.O_PLAY + r * E.MAX_T + t])
            if best >= least and obs[E.O_PLAY + q * E.MAX_T + t] == best:
                coins += amt
    return coins


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def progress(obs):
    """How far the game is towards its end, 0..1 (1 in the final round): towards the market condition's trigger,
    or with none, rounds against the round cap."""
    if obs[E.O_FINAL] == 1:
        return 1.0
    trig, thr, np_ = obs[E.O_TRIG], obs[E.O_THR], obs[E.O_NP]
    if trig == E.TR_NEVER or thr <= 0:
        f = obs[E.O_ROUND] / max(1, obs[E.O_ROUND_CAP])
    elif trig == E.TR_ROUNDS:
        f = (obs[E.O_ROUND] - 1 + obs[E.O_TURN_IDX] / np_) / thr
    elif trig == E.TR_RESHUFFLES:
        total = E.cards(obs, E.O_COUNT)
        f = (obs[E.O_RESHUF] + 1.0 - obs[E.O_DECK] / max(1, total)) / thr
    else:
        most = 0
        for q in range(np_):
            most = max(most, E.cards(obs, E.O_PLAY + q * E.MAX_T) if trig == E.TR_ORDERS else obs[E.O_COINS + q])
        f = most / thr
    return min(1.0, max(0.0, f))


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def avg_draw_value(obs, hm):
    """What a random card adds to the hand's order value on average (the game's card counts as the prior),
    with one card of produce hm out of the hand (-1: none)."""
    total = 0
    v = 0.0
    for t in range(obs[E.O_NT]):
        total += obs[E.O_COUNT + t]
        v += obs[E.O_COUNT + t] * keep(obs, t, held(obs, t, hm) + 1)
    return v / total if total > 0 else 0.0


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def hand_ability_in_play(obs):
    """A character in play resolves a hand card's ability (the Scholar): hand_ability_coins counts only then."""
    for k in range(obs[E.O_NCH]):
        for i in range(E.MAX_STEPS):
            if obs[E.O_CSTEP + (k * E.MAX_STEPS + i) * E.STEP_W] == E.K_HAND_AB:
                return True
    return False


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def seen_score(obs, q, best_orders):
    """Seat q's coins plus the market condition's coins as the table stands (condition_coins_seen, with the
    common scorings counted in one pass; best_orders: the most orders any seat has)."""
    kind, amt = obs[E.O_SCORE], obs[E.O_AMT]
    v = obs[E.O_COINS + q]
    if kind == E.SC_PER_TYPE:
        for t in range(obs[E.O_NT]):
            if obs[E.O_PLAY + q * E.MAX_T + t] > 0:
                v += amt
    elif kind == E.SC_MOST_ORDERS:
        if best_orders >= obs[E.O_ATLEAST] and E.cards(obs, E.O_PLAY + q * E.MAX_T) == best_orders:
            v += amt
    elif kind != E.SC_NONE:
        v += condition_coins_seen(obs, q)
    return v


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def leading(obs):
    """1 when no rival has as many coins plus market condition coins (as the table stands) as the player, else
    -1: the sign of the end_race features."""
    me, np_ = obs[E.O_SEAT], obs[E.O_NP]
    best = 0
    if obs[E.O_SCORE] == E.SC_MOST_ORDERS:
        for q in range(np_):
            best = max(best, E.cards(obs, E.O_PLAY + q * E.MAX_T))
    mine = seen_score(obs, me, best)
    for q in range(np_):
        if q != me and seen_score(obs, q, best) >= mine:
            return -1.0
    return 1.0


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def context(obs, w):
    """The per-decision constants the option scores share (weights folded with the progress and the condition,
    the races, the hand size, the average draw), only those the pending decision can change."""
    me, np_ = obs[E.O_SEAT], obs[E.O_NP]
    dk = obs[E.O_DKIND]
    p = progress(obs)
    cond = w[W_CONDITION_COINS] + w[W_CONDITION_COINS_LATE] * p
    card = w[W_HAND_CARDS] + (cond * obs[E.O_AMT] if obs[E.O_SCORE] == E.SC_PER_HAND else 0.0)
    trig = obs[E.O_TRIG]
    race = 0.0  # the drawn trigger's end_race weight, when this decision can move it
    if dk != E.D_TAKE and dk != E.D_TAKE_TYPE and dk != E.D_DISCARD:
        if trig == E.TR_COINS:
            race = w[W_END_RACE_COINS]
        elif trig == E.TR_ORDERS:
            race = w[W_END_RACE_ORDERS]
        elif trig == E.TR_RESHUFFLES and dk != E.D_FULFIL:
            race = w[W_END_RACE_CARDS_DRAWN]
    rival_coins = rival_orders = 0
    if race != 0.0:
        race *= leading(obs)
        for q in range(np_):
            if q != me:
                rival_coins = max(rival_coins, obs[E.O_COINS + q])
                rival_orders = max(rival_orders, E.cards(obs, E.O_PLAY + q * E.MAX_T))
    ad = avg_draw_value(obs, -1) if dk == E.D_CHAR or dk == E.D_HAND_AB or dk == E.D_MARKET_AB else 0.0
    hac = w[W_HAND_ABILITY_COINS]
    if hac != 0.0 and not hand_ability_in_play(obs):
        hac = 0.0
    return (w[W_HAND_ORDER_VALUE] + w[W_HAND_ORDER_VALUE_LATE] * p, card, cond, hac, float(obs[E.O_HANDN + me]),
            float(obs[E.O_COINS + me]), float(rival_coins), race if trig == E.TR_COINS else 0.0,
            float(E.cards(obs, E.O_PLAY + me * E.MAX_T)), float(rival_orders),
            race if trig == E.TR_ORDERS else 0.0, race if trig == E.TR_RESHUFFLES else 0.0, ad)


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def ability_coins_of(obs, t, orders):
    """Coins produce t's ability gives by itself (gain, coins per order) with `orders` in the play area."""
    c = 0
    for i in range(E.MAX_STEPS):
        o = E.O_PSTEP + (t * E.MAX_STEPS + i) * E.STEP_W
        if obs[o] == E.K_GAIN:
            c += obs[o + 1]
        elif obs[o] == E.K_PER_ORDER:
            c += min(obs[o + 1] * orders, obs[o + 2])
    return c


@njit(cache=True, _nrt=False, inline="always")
def over_limit(obs, x, hm, dk):
    """Weighted change of hand_over_limit when the hand (one card out when hm >= 0) grows by dk."""
    n = x[X_HAND_N] - (1 if hm >= 0 else 0)
    lim = obs[E.O_HAND_LIMIT]
    return max(0.0, n + dk - lim) - max(0.0, n - lim)


@njit(cache=True, _nrt=False, inline="always")
def hand_core(obs, w, x, t, hm, dk):
    """Weighted change of the hand features but the limit when the hand's count of t changes by dk."""
    k = held(obs, t, hm)
    m = obs[E.O_MAXORD]
    v = x[X_POT] * (potential(obs, t, k + dk) - potential(obs, t, k))
    if w[W_FULL_ORDERS_IN_HAND] != 0.0:
        v += w[W_FULL_ORDERS_IN_HAND] * ((k + dk) // m - k // m)
    v += x[X_CARD] * dk
    if x[X_HAC] != 0.0:
        v += x[X_HAC] * dk * ability_coins_of(obs, t, int(x[X_MY_ORDERS]))
    return v


@njit(cache=True, _nrt=False, inline="always")
def hand_score(obs, w, x, t, hm, dk):
    return hand_core(obs, w, x, t, hm, dk) + w[W_HAND_OVER_LIMIT] * over_limit(obs, x, hm, dk)


@njit(cache=True, _nrt=False, inline="always")
def draw_score(obs, w, x, hm, k):
    """Expected weighted change of k cards drawn from the deck."""
    return (k * (x[X_POT] * x[X_AD] + x[X_CARD] + x[X_RACE_CARDS])
            + w[W_HAND_OVER_LIMIT] * over_limit(obs, x, hm, k))


@njit(cache=True, _nrt=False, inline="always")
def coin_race(x, g):
    """end_race_coins: how much g coins more raise the most coins held (coins trigger only, signed)."""
    if x[X_RACE_COINS] == 0.0:
        return 0.0
    return x[X_RACE_COINS] * (max(x[X_MY_COINS] + g, x[X_RIVAL_COINS]) - max(x[X_MY_COINS], x[X_RIVAL_COINS]))


@njit(cache=True, _nrt=False, inline="always")
def coins_score(w, x, g):
    return w[W_ABILITY_COINS] * g + coin_race(x, g)


@njit(cache=True, _nrt=False, inline="always")
def order_score(obs, w, x, t, size, bonus, hm):
    """An order of `size` cards of t (plus a character's bonus coins): its coins, the hand it leaves, the play
    area it grows, the market condition's coins and the orders race."""
    me = obs[E.O_SEAT]
    coins = val(obs, t, size)
    v = w[W_ORDER_COINS] * coins + w[W_ABILITY_COINS] * bonus + coin_race(x, coins + bonus)
    v += hand_score(obs, w, x, t, hm, -size)
    mine_t = obs[E.O_PLAY + me * E.MAX_T + t]
    v += w[W_ORDERS_IN_PLAY] + (w[W_PRODUCE_TYPES_IN_PLAY] if mine_t == 0 else 0.0)
    o, ro = x[X_MY_ORDERS], x[X_RIVAL_ORDERS]
    if x[X_RACE_ORDERS] != 0.0:
        v += x[X_RACE_ORDERS] * (max(o + 1, ro) - max(o, ro))
    kind, amt, least = obs[E.O_SCORE], obs[E.O_AMT], obs[E.O_ATLEAST]
    gain = 0.0
    if kind == E.SC_PER_TYPE:
        gain = amt if mine_t == 0 else 0.0
    elif kind == E.SC_MOST_ORDERS:
        gain = (amt if o + 1 >= ro and o + 1 >= least else 0.0) - (amt if o >= ro and o >= least else 0.0)
    elif kind == E.SC_MOST_EACH:
        r = 0
        for q in range(obs[E.O_NP]):
            if q != me:
                r = max(r, obs[E.O_PLAY + q * E.MAX_T + t])
        gain = ((amt if mine_t + 1 >= r and mine_t + 1 >= least else 0.0)
                - (amt if mine_t >= r and mine_t >= least else 0.0))
    return v + x[X_COND] * gain


@njit(cache=True, _nrt=False, inline="always")
def take_score(obs, w, x, t, a0, mm, hm, choice):
    """The best way to take cards of t from the Market (up to a0; a0 <= 0: every card of t; `choice`: the
    count is the player's, 1..a0), with one card of the Market (mm) and hand (hm) already used."""
    m = in_market(obs, t, mm)
    if a0 > 0:
        m = min(m, a0)
    if not choice:
        return hand_score(obs, w, x, t, hm, m)
    best = -1e300
    for c in range(1, m + 1):
        best = max(best, hand_score(obs, w, x, t, hm, c))
    return best


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def basic_step_score(obs, w, cfg, x, kind, a0, a1, hm, mm):
    """A step that resolves no other card's ability: the best option it offers now (0 when it can do nothing)."""
    nt = obs[E.O_NT]
    if kind == E.K_GAIN:
        return coins_score(w, x, a0)
    if kind == E.K_PER_ORDER:
        return coins_score(w, x, min(a0 * x[X_MY_ORDERS], a1))
    if kind == E.K_DRAW:
        return draw_score(obs, w, x, hm, a0)
    if kind == E.K_TAKE or kind == E.K_TAKE_TYPE:
        choice = kind == E.K_TAKE_TYPE and a0 > 0 and cfg[E.CFG_TAKE_UP_TO] == 1
        best = -1e300
        for t in range(nt):
            if in_market(obs, t, mm) > 0:
                best = max(best, take_score(obs, w, x, t, 1 if kind == E.K_TAKE else a0, mm, hm, choice))
        if best == -1e300:
            return 0.0
        return best * (a0 if kind == E.K_TAKE else 1)  # take N: N cards like the best one
    if kind == E.K_FULFIL:
        best = -1e300
        for t in range(nt):
            for size in range(1, min(held(obs, t, hm), obs[E.O_MAXORD]) + 1):
                best = max(best, order_score(obs, w, x, t, size, a0, hm))
        if best > -1e300:
            return best
        return coins_score(w, x, a0) if cfg[E.CFG_BONUS_WITHOUT_ORDER] == 1 else 0.0
    if kind == E.K_CYCLE:
        gain = 0.0
        for t in range(nt):
            if held(obs, t, hm) > 0:  # one card swapped for a drawn one: the hand size stays
                gain = max(gain, hand_core(obs, w, x, t, hm, -1) + x[X_POT] * x[X_AD] + x[X_CARD] + x[X_RACE_CARDS])
        return gain * a0
    return 0.0


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def ability_score(obs, w, cfg, x, t, hm, mm):
    """Produce t's ability resolved now (its card already out of hand, hm, or Market, mm)."""
    v = 0.0
    for i in range(E.MAX_STEPS):
        o = E.O_PSTEP + (t * E.MAX_STEPS + i) * E.STEP_W
        if obs[o] != E.K_NONE:
            v += basic_step_score(obs, w, cfg, x, obs[o], obs[o + 1], obs[o + 2], hm, mm)
    return v


@njit(cache=True, _nrt=False, inline="always")
def hand_ability_score(obs, w, cfg, x, t):
    return hand_score(obs, w, x, t, -1, -1) + ability_score(obs, w, cfg, x, t, t, -1)


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def step_score(obs, w, cfg, x, kind, a0, a1):
    """A character's step now: the best option it offers."""
    if kind == E.K_HAND_AB or kind == E.K_MARKET_AB:
        best = -1e300
        for t in range(obs[E.O_NT]):
            if kind == E.K_HAND_AB and obs[E.O_HAND + t] > 0:
                best = max(best, hand_ability_score(obs, w, cfg, x, t))
            elif kind == E.K_MARKET_AB and obs[E.O_MARKET + t] > 0:
                best = max(best, ability_score(obs, w, cfg, x, t, -1, t))
        return best if best > -1e300 else 0.0
    return basic_step_score(obs, w, cfg, x, kind, a0, a1, -1, -1)


@njit(cache=True, _nrt=False, inline="always")
def character_score(obs, w, cfg, x, slot):
    """The character in `slot` taken: the coins on it, then each step of its action at its best option."""
    coins = obs[E.O_CH_COINS + slot]
    v = w[W_CHARACTER_COINS] * coins + coin_race(x, coins)
    for i in range(E.MAX_STEPS):
        o = E.O_CSTEP + (slot * E.MAX_STEPS + i) * E.STEP_W
        if obs[o] != E.K_NONE:
            v += step_score(obs, w, cfg, x, obs[o], obs[o + 1], obs[o + 2])
    return v


@njit(cache=True, _nrt=False, inline="always")
def option_score(obs, w, cfg, x, actions, i):
    """Option i of any decision but the character choice."""
    d, t, y = actions[i, E.A_DECISION], actions[i, E.A_X], actions[i, E.A_Y]
    a0 = obs[E.O_SA0]
    if d == E.D_TAKE:
        return hand_score(obs, w, x, t, -1, 1)
    if d == E.D_TAKE_TYPE:  # y: the cards this option takes; 0: every card of t (a0 <= 0) or up to a0
        return hand_score(obs, w, x, t, -1, y if y > 0 else (min(a0, obs[E.O_MARKET + t]) if a0 > 0
                                                           else obs[E.O_MARKET + t]))
    if d == E.D_FULFIL:
        return order_score(obs, w, x, t, y, a0, -1)
    if d == E.D_CYCLE:  # discard t for a drawn card, or stop (nothing changes)
        if t < 0:
            return 0.0
        return hand_core(obs, w, x, t, -1, -1) + x[X_POT] * avg_draw_value(obs, t) + x[X_CARD] + x[X_RACE_CARDS]
    if d == E.D_HAND_AB:
        return hand_ability_score(obs, w, cfg, x, t)
    if d == E.D_MARKET_AB:
        return ability_score(obs, w, cfg, x, t, -1, t)
    if d == E.D_DISCARD:
        return hand_core(obs, w, x, t, -1, -1)  # every discard lowers the excess alike
    return 0.0


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def denial(obs, cfg):
    """Seat q of the next player still to act this round, or -1 (none, or characters may be chosen again)."""
    if obs[E.O_TURN_IDX] + 1 >= obs[E.O_NP] or (obs[E.O_FINAL] == 1 and cfg[E.CFG_FINAL_ROUND_REUSE] == 1):
        return -1
    return (obs[E.O_SEAT] + 1) % obs[E.O_NP]


# The two choosers are compiled apart (not inlined into the strategy, like _features' choose_option and
# choose_character): one function holding both paths ran the option path three times slower (measured).
@njit(cache=True, _nrt=False, int64=True, readonly=True)
def best_option(obs, actions, n, w, cfg):
    """The best-scoring option of a decision other than the character choice (ties: consider's draws)."""
    x = context(obs, w)
    best, ties, choice = -1e18, 0, 0
    for i in range(n):
        take, best, ties = consider(option_score(obs, w, cfg, x, actions, i), best, ties)
        if take:
            choice = i
    return choice


@njit(cache=True, _nrt=False, int64=True, readonly=True)
def best_character(obs, actions, n, w, cfg):
    """The best-scoring character on offer. next_player_best_character: taking the character the next player
    to act values most (public_char_value: coins only) leaves them the second best."""
    x = context(obs, w)
    q = denial(obs, cfg)
    wn = w[W_NEXT_PLAYER_BEST_CHARACTER]
    top, b1, b2 = -1, 0.0, 0.0
    if q >= 0 and wn != 0.0:
        for i in range(n):
            v = public_char_value(obs, actions[i, E.A_X], q, 0.0)
            if v > b1:
                top, b1, b2 = i, v, b1
            elif v > b2:
                b2 = v
    best, ties, choice = -1e18, 0, 0
    for i in range(n):
        score = character_score(obs, w, cfg, x, actions[i, E.A_X])
        if i == top:
            score += wn * (b2 - b1)
        take, best, ties = consider(score, best, ties)
        if take:
            choice = i
    return choice
