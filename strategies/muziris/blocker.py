import numpy as np
from sim.jit import njit

from sim.muziris import engine as E
from sim.registry import strategy
from strategies.muziris._features import NO_BONUS, choose_character, choose_option, public_char_value


@strategy("muziris", "blocker", params={"card_weight": 0.3, "block_weight": 0.6, "card_value": 0.5})
@njit(cache=True, inline="always")  # into the registry's dispatcher (see _features)
def blocker(obs, actions, n_actions, params, cfg):
    """Takes the character the next player most needs: its own greedy value plus block_weight x what the
    character is worth to the next player still to act this round (estimated from public information:
    coins on it, their hand size and play area; a card counts card_value coins to them)."""
    if obs[E.O_DKIND] != E.D_CHAR:
        return choose_option(obs, actions, n_actions, params[P_CARD_WEIGHT], NO_BONUS, 0.0)
    extra = np.zeros(E.MAX_C)
    if obs[E.O_TURN_IDX] + 1 < obs[E.O_NP]:  # the next player is still to act this round
        q = (obs[E.O_SEAT] + 1) % obs[E.O_NP]
        for k in range(obs[E.O_NCH]):
            extra[k] = params[P_BLOCK_WEIGHT] * public_char_value(obs, k, q, params[P_CARD_VALUE])
    return choose_character(obs, actions, n_actions, params[P_CARD_WEIGHT], NO_BONUS, 0.0, extra)
