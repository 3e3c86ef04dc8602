import numpy as np
from sim.jit import njit

from sim.muziris import engine as E
from sim.registry import strategy
from strategies.muziris._features import NO_BONUS, choose_character, choose_option, held, val


@njit(cache=True, inline="always")
def _has_full_order(obs, min_value):
    """A full-size order in hand of a produce worth at least min_value coins (and more than none)."""
    m = obs[E.O_MAXORD]
    for t in range(obs[E.O_NT]):
        if held(obs, t, -1) >= m and val(obs, t, m) >= min_value and val(obs, t, m) > 0:
            return True
    return False


@strategy("muziris", "collector", params={"card_weight": 0.5, "min_value": 5.0, "wait_penalty": 2.0, "slack": 3.0})
@njit(cache=True, inline="always")  # into the registry's dispatcher (see _features)
def collector(obs, actions, n_actions, params, cfg):
    """Holds cards for full-size (3-card) orders of valuable produce: cards weigh card_weight (high), and a
    character that fulfils is only worth taking with a full order worth min_value or more in hand
    (otherwise its value drops by wait_penalty), unless the hand is within `slack` cards of the hand limit
    or it is the final round, when anything goes."""
    w = params[P_CARD_WEIGHT]
    if obs[E.O_DKIND] != E.D_CHAR:
        return choose_option(obs, actions, n_actions, w, NO_BONUS, 0.0)
    extra = np.zeros(E.MAX_C)
    full_hand = obs[E.O_HANDN + obs[E.O_SEAT]] >= obs[E.O_HAND_LIMIT] - params[P_SLACK]
    ready = _has_full_order(obs, params[P_MIN_VALUE]) or obs[E.O_FINAL] == 1 or full_hand
    if not ready:  # a character that fulfils waits
        for k in range(obs[E.O_NCH]):
            for i in range(E.MAX_STEPS):
                if obs[E.O_CSTEP + (k * E.MAX_STEPS + i) * E.STEP_W] == E.K_FULFIL:
                    extra[k] = -params[P_WAIT_PENALTY]
    return choose_character(obs, actions, n_actions, w, NO_BONUS, 0.0, extra)
