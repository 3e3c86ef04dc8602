import numpy as np
from sim.jit import njit

from sim.mughal import engine as E
from sim.registry import strategy


@strategy("mughal", "random")
@njit(cache=True)
def random_choice(obs, actions, n_actions, params, cfg):
    """Uniform over the cards on offer, then uniform over that card's suits (so a two-suit card is not
    twice as likely as a one-suit card)."""
    n_cards = 0
    last = -1
    for a in range(n_actions):
        if actions[a, E.A_SLOT] != last:
            n_cards += 1
            last = actions[a, E.A_SLOT]
    pick = np.random.randint(0, n_cards)
    last = -1
    seen = -1
    first = 0
    for a in range(n_actions):
        if actions[a, E.A_SLOT] != last:
            seen += 1
            last = actions[a, E.A_SLOT]
            if seen == pick:
                first = a
                break
    count = 0
    while first + count < n_actions and actions[first + count, E.A_SLOT] == actions[first, E.A_SLOT]:
        count += 1
    return first + np.random.randint(0, count)
