import numpy as np
from sim.jit import njit

from sim.mughal import engine as E
from sim.registry import strategy


@strategy("mughal", "random", observes=False)
@njit(cache=True, _nrt=False)  # allocates nothing: the dispatcher can skip reference counting
def random_choice(obs, actions, n_actions, params, cfg):
    """Uniform over the cards on offer, then uniform over that card's suits (so a two-suit card is not
    twice as likely as a one-suit card). legal_actions lists a card's rows together, the cards by consecutive
    slots (one slot for a declaration)."""
    first_slot = actions[0, E.A_SLOT]
    slot = first_slot + np.random.randint(0, actions[n_actions - 1, E.A_SLOT] - first_slot + 1)
    first = 0
    while actions[first, E.A_SLOT] != slot:
        first += 1
    count = 1
    while first + count < n_actions and actions[first + count, E.A_SLOT] == slot:
        count += 1
    return first + np.random.randint(0, count)
