"""The features of Mohur's `weighted` strategy, unweighted: the observation as the mover would know it after an
action (the market before the unseen refill, bonus tokens at their pile's mean, the rival's known cards only).
"""
from sim.jit import njit

from sim.mohur import engine as E


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def tokens_from(obs, g, skip, n):
    """The goods tokens n cards of good g would take once `skip` more tokens have left its stack (0 past its end)."""
    v = 0.0
    for i in range(skip, min(skip + n, obs[E.O_TOKREM + g])):
        v += obs[E.O_TOKV + g * E.MAX_TOK + i]
    return v


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def sale_bonus(obs, count):
    """The expected bonus token of a sale of `count` cards: its pile's mean while the pile holds tokens."""
    pile = min(max(count, 3), 5) - 3  # loads made every time: a select, not a branch (as card_worth)
    mean = obs[E.O_PILE_MEAN + pile] * 0.01  # x100 in obs; no division
    return mean if (count >= 3) & (obs[E.O_PILE_LEFT + pile] > 0) else 0.0


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def held_change(obs, g, held, after):
    """Good g going from `held` to `after` cards in hand (stack untouched): the change of (hand_value,
    set_bonus_held, precious_held, kinds_held) it brings."""
    if after >= held:
        hand_value = tokens_from(obs, g, held, after - held)
    else:
        hand_value = -tokens_from(obs, g, after, held - after)
    bonus = sale_bonus(obs, after) - sale_bonus(obs, held)
    precious = float(after - held) if obs[E.O_MIN_SALE + g] >= 2 else 0.0
    kinds = (1.0 if after > 0 else 0.0) - (1.0 if held > 0 else 0.0)
    return hand_value, bonus, precious, kinds


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def ending_soon(empty, deck, stacks_end):
    """_features.round_ending_soon's rule for a round as an action would leave it."""
    return empty >= stacks_end - 1 or deck <= 4


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def coin_token_share(mine, theirs, token):
    """The coin token's expected rupees if the round ended now: all ahead on coins, none behind, half tied (the
    next coin taken decides a tie)."""
    return float(token) if mine > theirs else (0.5 * token if mine == theirs else 0.0)


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def bonus_token_mean(obs):
    """A face-down bonus token's expected value: the mean of the piles' means."""
    return (obs[E.O_PILE_MEAN] + obs[E.O_PILE_MEAN + 1] + obs[E.O_PILE_MEAN + 2]) * (0.01 / E.NPILES)


@njit(cache=True, _nrt=False, inline="always")  # sim.mohur.engine's HOT_NO_NRT
def round_end_sign(obs, gained, bonus, coins, bmean):
    """+1 / -1 / 0: ahead, behind or level on the estimated score if the round ended after an action taking
    `gained` rupees and a `bonus` token, leaving `coins` coins (bonus tokens held at `bmean`, hands worthless)."""
    token = obs[E.O_COIN_TOKEN]
    theirs = obs[E.O_OPP_COINS]
    mine = obs[E.O_MY_GSUM] + gained + bonus + bmean * obs[E.O_MY_BCNT] + (token if coins > theirs else 0)
    rival = obs[E.O_OPP_GSUM] + bmean * obs[E.O_OPP_BCNT] + (token if theirs > coins else 0)
    if mine > rival + 1e-9:
        return 1.0
    if mine < rival - 1e-9:
        return -1.0
    return 0.0
