"""`weighted`: plays the action with the highest weighted sum of features of the observation after it (the
features: _weights.py and docs/strategies.md; the weights are parameters for `balance-sim evolve` to tune).

Only differences matter, so an action scores sum of weight x (feature after - feature now). The exchanges row gets
one candidate, built from each card's steps taken one at a time (`card_steps`), then scored exactly; only the
candidate is approximate (a second card of a kind may move set_bonus_held, hand_value or hand_full otherwise).
"""
import numpy as np
from sim.jit import njit

from sim.mohur import engine as E
from sim.registry import strategy
from strategies.mohur._features import card_worth, consider
from strategies.mohur._weights import (bonus_token_mean, coin_token_share, ending_soon, held_change, round_end_sign,
                                       sale_bonus, tokens_from)

# name: (default weight, lowest, highest). Units: rupees for the rupee features, cards or coins for the counts.
FEATURES = {
    "rupees_gained": (1.0, -10.0, 10.0),       # goods-token rupees the sale takes now
    "bonus_expected": (1.0, -10.0, 10.0),      # the sale's bonus token, at its pile's mean (3+ cards, pile not empty)
    "small_sale": (-1.0, -20.0, 20.0),         # 1 for a sale of fewer than 3 cards (no bonus token)
    "hand_value": (0.5, -5.0, 5.0),            # tokens the hand's goods would take, sold now from the stacks' tops
    "set_bonus_held": (0.5, -5.0, 5.0),        # expected bonus token of selling each good held 3+ at once
    "precious_held": (0.3, -5.0, 5.0),         # cards held of goods with a minimum sale of 2+ (diamond, gold, silver)
    "kinds_held": (-0.3, -5.0, 5.0),           # different goods in hand
    "hand_cards": (0.0, -5.0, 5.0),            # goods in hand
    "hand_full": (-2.0, -20.0, 20.0),          # 1 when the hand is at its limit (no single take possible)
    "coins_held": (0.5, -5.0, 5.0),            # coins in the coffer
    "coin_token_race": (0.4, -5.0, 5.0),       # expected coin token: all ahead on coins, half tied, none behind
    "market_gift": (-0.3, -5.0, 5.0),          # goods left in the market, each at the token the rival's next card takes
    "market_coins_left": (-0.3, -5.0, 5.0),    # coins left in the market for the rival
    "rival_known_value": (-0.3, -5.0, 5.0),    # tokens the rival's known cards would take from the stacks left
    "deck_drawn": (0.0, -5.0, 5.0),            # cards the refill draws from the deck (brings its end closer)
    "empty_stacks": (0.0, -20.0, 20.0),        # empty goods stacks (the round ends at rules.empty_stacks_to_end)
    "ends_round_ahead": (8.0, -50.0, 50.0),    # ends the round: +1 ahead on the estimated score, -1 behind, 0 level
    "unsold_value_late": (-0.5, -5.0, 5.0),    # hand_value while the round is about to end (lost if unsold)
    "exchange_size": (0.0, -5.0, 5.0),         # cards taken by an exchange
}


@strategy("mohur", "weighted", listing="row", round_robin=False,
          params={name: w for name, (w, _, _) in FEATURES.items()},
          bounds={name: (lo, hi, False) for name, (_, lo, hi) in FEATURES.items()})
@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def weighted(obs, actions, n_actions, params, cfg):
    """The highest weighted sum of features of the observation after the action (see the module's table)."""
    if n_actions == 1:
        return 0
    late = ending_soon(obs[E.O_EMPTY], obs[E.O_DECK], obs[E.O_STACKS_END])
    hw = params[P_HAND_VALUE] + (params[P_UNSOLD_VALUE_LATE] if late else 0.0)  # noqa: F821
    # per good: (taking one card, giving one) -> their weighted feature changes, hand_value's at weight hw
    t0, g0 = card_steps(obs, params, 0, hw)
    t1, g1 = card_steps(obs, params, 1, hw)
    t2, g2 = card_steps(obs, params, 2, hw)
    t3, g3 = card_steps(obs, params, 3, hw)
    t4, g4 = card_steps(obs, params, 4, hw)
    t5, g5 = card_steps(obs, params, 5, hw)
    steps = (t0, t1, t2, t3, t4, t5, g0, g1, g2, g3, g4, g5)
    goods0, hv = now_terms(obs)
    best, ties, choice = -1e18, 0, 0
    for a in range(n_actions):
        typ = actions[a, E.A_TYPE]
        if typ == E.T_TAKE_GOOD and not late:  # one card: its step (at hw = hand_value's weight), a card drawn
            g = actions[a, E.A_GOOD]
            dhv = card_worth(obs, g, obs[E.O_HAND + g])
            v = steps[g] - params[P_EXCHANGE_SIZE] - params[P_HAND_CARDS] - hw * dhv  # noqa: F821
            v += after_rest(obs, params, 1, 0, 0, 1, 0, dhv, 0.0, 0.0, goods0, hv)
        else:  # _row_score's one call site in the strategy (it is inlined)
            if typ == E.T_EXCHANGES and (exchange_reach(obs, params, steps) < best - 1e-6
                                         or not candidate_exchange(obs, actions, a, params, steps)):
                continue
            v = _row_score(obs, actions, a, params, goods0, hv)
        take, best, ties = consider(v, best, ties)
        if take:
            choice = a
    return choice


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def good_change(obs, params, g, held, after, market_gain):
    """Good g from `held` to `after` cards in hand, the market gaining `market_gain`: the weighted change of the
    per-good features, and hand_value's unweighted (unsold_value_late reads it too)."""
    dhv, dsb, dpr, dk = held_change(obs, g, held, after)
    gift = market_gain * card_worth(obs, g, obs[E.O_OPP_KNOWN + g])
    v = (params[P_SET_BONUS_HELD] * dsb + params[P_PRECIOUS_HELD] * dpr + params[P_KINDS_HELD] * dk  # noqa: F821
         + params[P_MARKET_GIFT] * gift)  # noqa: F821 - P_* set by the registry
    return v, dhv


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def sale_change(obs, params, g, c):
    """A sale of c cards of good g: (weighted change of the per-good features but hand_value, which loses exactly
    the rupees gained; rupees gained; expected bonus)."""
    held, left, known = obs[E.O_HAND + g], obs[E.O_TOKREM + g], obs[E.O_OPP_KNOWN + g]
    skip = min(c, left)
    gained = tokens_from(obs, g, 0, c)
    bonus = sale_bonus(obs, c)
    _, dsb, dpr, dk = held_change(obs, g, held, held - c)
    v = (params[P_RUPEES_GAINED] * gained + params[P_BONUS_EXPECTED] * bonus  # noqa: F821
         + params[P_SET_BONUS_HELD] * dsb + params[P_PRECIOUS_HELD] * dpr + params[P_KINDS_HELD] * dk)  # noqa: F821
    if known > 0 or obs[E.O_MARKET + g] > 0:
        gift = obs[E.O_MARKET + g] * (card_worth(obs, g, skip + known) - card_worth(obs, g, known))
        rival = tokens_from(obs, g, skip, known) - tokens_from(obs, g, 0, known)
        v += params[P_MARKET_GIFT] * gift + params[P_RIVAL_KNOWN_VALUE] * rival  # noqa: F821
    if c < 3:
        v += params[P_SMALL_SALE]  # noqa: F821
    return v, gained, bonus


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def row_score(obs, actions, a, params):
    """Sum of weight x (feature after row a - feature now) over every feature (the refill unseen)."""
    goods0, hv = now_terms(obs)
    return _row_score(obs, actions, a, params, goods0, hv)


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def now_terms(obs):
    """What every row's after_rest reads of the observation now, once a decision (the rows' scores call the
    generator between them, so the compiler cannot hoist these loads): the goods in hand, and hand_value where
    some row may leave the round about to end (NaN where none can: never read)."""
    goods0 = E.total(obs, E.O_HAND, E.NG)
    deck0, empty0, ends_at = obs[E.O_DECK], obs[E.O_EMPTY], obs[E.O_STACKS_END]
    # a row empties at most one stack and draws at most the market's cards
    if ending_soon(empty0 + 1, deck0 - E.total(obs, E.O_MARKET, E.NK), ends_at):
        return goods0, hand_value(obs)
    return goods0, np.nan


@njit(cache=True, _nrt=False, inline="always")  # HOT_NO_NRT; inlined: a call per row (~7% of a match)
def _row_score(obs, actions, a, params, goods0, hv):
    """row_score, given now_terms."""
    typ = actions[a, E.A_TYPE]
    if typ == E.T_PASS:
        return 0.0
    if typ == E.T_SELL:
        g, c = actions[a, E.A_GOOD], actions[a, E.A_COUNT]
        v, gained, bonus = sale_change(obs, params, g, c)
        left = obs[E.O_TOKREM + g]
        goods, coins, market_coins, net_taken = -c, 0, 0, 0
        emptied, dhv = 1 if 0 < left <= c else 0, -gained
    else:
        v, dhv, goods = 0.0, 0.0, 0
        for g in range(E.NG):
            t, given = actions[a, E.A_TAKE + g], actions[a, E.A_GIVE + g]
            if t != 0 or given != 0:
                held = obs[E.O_HAND + g]
                dv, dh = good_change(obs, params, g, held, held + t - given, given - t)
                v += dv
                dhv += dh
                goods += t - given
        coins = actions[a, E.A_TAKE + E.COIN] - actions[a, E.A_GIVE + E.COIN]
        if typ == E.T_EXCHANGE:
            v += params[P_EXCHANGE_SIZE] * actions[a, E.A_COUNT]  # noqa: F821
        # the refill replaces the cards taken less those given
        market_coins, net_taken, emptied, gained, bonus = -coins, max(0, goods + coins), 0, 0.0, 0.0
    return v + after_rest(obs, params, goods, coins, market_coins, net_taken, emptied, dhv, gained, bonus, goods0,
                          hv)  # one call


@njit(cache=True, _nrt=False, inline="always")  # HOT_NO_NRT; inlined: a call per row (~7% of a match)
def after_rest(obs, params, goods, coins, market_coins, net_taken, emptied, dhv, gained, bonus, goods0, hv):
    """The features that are not per good, for an action with these changes (`net_taken`: cards the refill draws,
    `dhv`: hand_value's change, `gained` rupees and a `bonus` token taken), given now_terms (goods0, hv)."""
    limit = obs[E.O_HAND_LIMIT]
    deck0, empty0, ends_at = obs[E.O_DECK], obs[E.O_EMPTY], obs[E.O_STACKS_END]
    drawn = min(deck0, net_taken)
    deck, empty = deck0 - drawn, empty0 + emptied
    v = params[P_HAND_VALUE] * dhv + params[P_HAND_CARDS] * goods + params[P_DECK_DRAWN] * drawn  # noqa: F821
    v += params[P_EMPTY_STACKS] * emptied  # noqa: F821
    if (goods0 + goods >= limit) != (goods0 >= limit):
        v += params[P_HAND_FULL] * (1.0 if goods > 0 else -1.0)  # noqa: F821
    if coins != 0 or market_coins != 0:
        mine, theirs, token = obs[E.O_HAND + E.COIN], obs[E.O_OPP_COINS], obs[E.O_COIN_TOKEN]
        v += params[P_COINS_HELD] * coins + params[P_MARKET_COINS_LEFT] * market_coins  # noqa: F821
        v += params[P_COIN_TOKEN_RACE] * (coin_token_share(mine + coins, theirs, token)  # noqa: F821
                                          - coin_token_share(mine, theirs, token))
    if empty >= ends_at or deck <= 0:
        v += params[P_ENDS_ROUND_AHEAD] * round_end_sign(  # noqa: F821
            obs, gained, bonus, obs[E.O_HAND + E.COIN] + coins, bonus_token_mean(obs))
    late0, late = ending_soon(empty0, deck0, ends_at), ending_soon(empty, deck, ends_at)
    if late or late0:  # hand_value counted while the round is about to end (now_terms computed hv)
        v += params[P_UNSOLD_VALUE_LATE] * ((hv + dhv if late else 0.0) - (hv if late0 else 0.0))  # noqa: F821
    return v


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def hand_value(obs):
    """The hand_value feature now."""
    hv = 0.0
    for g in range(E.NG):
        hv += tokens_from(obs, g, 0, obs[E.O_HAND + g])
    return hv


@njit(cache=True, _nrt=False)  # HOT_NO_NRT; not inlined: six inlined copies cost ~3 CPU-s of cold compile
def card_steps(obs, params, g, hand_weight):
    """good_change of taking one card of g (hand_cards, exchange_size included) and of giving one (as a loss),
    hand_value's at `hand_weight`, written out for the hot path: exchanges value cards by these. Straight-line
    (every helper a select): a step is read only for a good the market holds (taking) or the hand holds (giving),
    so what it is worth otherwise does not matter."""
    held = obs[E.O_HAND + g]
    bonus = sale_bonus(obs, held)
    precious = params[P_PRECIOUS_HELD] if obs[E.O_MIN_SALE + g] >= 2 else 0.0  # noqa: F821
    gift = params[P_MARKET_GIFT] * card_worth(obs, g, obs[E.O_OPP_KNOWN + g])  # noqa: F821
    per_card = params[P_HAND_CARDS] + precious - gift  # noqa: F821
    gain = (per_card + params[P_EXCHANGE_SIZE] + hand_weight * card_worth(obs, g, held)  # noqa: F821
            + params[P_SET_BONUS_HELD] * (sale_bonus(obs, held + 1) - bonus))  # noqa: F821
    loss = (per_card + hand_weight * card_worth(obs, g, max(held - 1, 0))  # held 0: never read
            + params[P_SET_BONUS_HELD] * (bonus - sale_bonus(obs, held - 1)))  # noqa: F821
    return (gain + params[P_KINDS_HELD] if held == 0 else gain,  # noqa: F821
            loss + params[P_KINDS_HELD] if held == 1 else loss)  # noqa: F821


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def coin_step(obs, params):
    """Giving one coin in an exchange: its weighted feature changes, as a loss."""
    coins, theirs, token = obs[E.O_HAND + E.COIN], obs[E.O_OPP_COINS], obs[E.O_COIN_TOKEN]
    race = coin_token_share(coins - 1, theirs, token) - coin_token_share(coins, theirs, token)
    return params[P_COINS_HELD] - params[P_COIN_TOKEN_RACE] * race - params[P_MARKET_COINS_LEFT]  # noqa: F821


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def exchange_reach(obs, params, steps):
    """A bound on any exchange's steps: each card taken gives back one, which loses at least the cheapest give.
    The exchanges row is skipped when this falls short of the best score (a gate by the steps, not exact scores)."""
    cheapest = coin_step(obs, params) if E.coin_bound(obs, E.O_HAND, obs[E.O_HAND_LIMIT]) > 0 else np.inf
    for g in range(E.NG):
        if obs[E.O_HAND + g] > 0:
            cheapest = min(cheapest, steps[E.NG + g])
    reach = 0.0
    for g in range(E.NG):
        if obs[E.O_MARKET + g] > 0 and steps[g] > cheapest:
            reach += obs[E.O_MARKET + g] * (steps[g] - cheapest)
    return reach


@njit(cache=True, _nrt=False)  # sim.mohur.engine's HOT_NO_NRT
def candidate_exchange(obs, actions, a, params, steps):
    """Write into row a the exchange built from the cards' steps: for each size k, the k best market goods for the
    k cards of other kinds that lose least; the size adding up highest (the first on a tie). False if none."""
    coin_loss = coin_step(obs, params)
    coins_given = E.coin_bound(obs, E.O_HAND, obs[E.O_HAND_LIMIT])
    # the kinds the hand can give, least loss first (KIND_BITS each): insertion sort, as choose_exchange's
    order, kinds = np.int64(0), 0
    for g in range(E.NK):
        if (coins_given if g == E.COIN else obs[E.O_HAND + g]) > 0:
            cost = coin_loss if g == E.COIN else steps[E.NG + g]
            at = 0
            while at < kinds:
                other = (order >> (E.KIND_BITS * at)) & E.KMASK
                if (coin_loss if other == E.COIN else steps[E.NG + other]) > cost:
                    break
                at += 1
            low = order & ((np.int64(1) << (E.KIND_BITS * at)) - 1)
            order = low | (np.int64(g) << (E.KIND_BITS * at)) | ((order ^ low) << E.KIND_BITS)
            kinds += 1
    # the market's goods, highest step first (the lower good first on a tie): the order the cards are taken in
    picks, goods = np.int64(0), 0
    for g in range(E.NG):
        if obs[E.O_MARKET + g] > 0:
            at = 0
            while at < goods and steps[(picks >> (E.KIND_BITS * at)) & E.KMASK] >= steps[g]:
                at += 1
            low = picks & ((np.int64(1) << (E.KIND_BITS * at)) - 1)
            picks = low | (np.int64(g) << (E.KIND_BITS * at)) | ((picks ^ low) << E.KIND_BITS)
            goods += 1
    take, gained, k = np.int64(0), 0.0, 0
    best, best_take, best_give, best_k = -np.inf, np.int64(0), np.int64(0), 0
    for i in range(goods):  # one card a pass: every card of the best good, then of the next
        tg = (picks >> (E.KIND_BITS * i)) & E.KMASK
        for _ in range(obs[E.O_MARKET + tg]):
            take += np.int64(1) << (E.FIELD * tg)
            gained += steps[tg]
            k += 1
            if k < obs[E.O_MIN_EXCHANGE]:
                continue
            give, v, left = np.int64(0), gained, k
            for j in range(kinds):
                g = (order >> (E.KIND_BITS * j)) & E.KMASK
                if g != E.COIN and (take >> (E.FIELD * g)) & E.FMASK:
                    continue  # a kind taken is not given back
                w = min(coins_given if g == E.COIN else obs[E.O_HAND + g], left)
                give += np.int64(w) << (E.FIELD * g)
                v -= w * (coin_loss if g == E.COIN else steps[E.NG + g])
                left -= w
                if left == 0:
                    break
            if left == 0 and v > best:
                best, best_take, best_give, best_k = v, take, give, k
    if best_k == 0:
        return False
    E.write_exchange(actions, a, best_k, best_take, best_give)
    return True
