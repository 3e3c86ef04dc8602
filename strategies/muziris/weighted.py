from sim.jit import njit

from sim.muziris import engine as E
from sim.registry import strategy
from strategies.muziris._weights import FEATURES, best_character, best_option


@strategy("muziris", "weighted", params={name: weight for name, weight, _ in FEATURES},
          bounds={name: (lo, hi, False) for name, _, (lo, hi) in FEATURES}, round_robin=False)
@njit(cache=True, _nrt=False, inline="always")  # allocates nothing; inlined (see _features)
def weighted(obs, actions, n_actions, params, cfg):
    """Scores every option by a weighted sum of named features of the table after it (strategies/muziris/
    _weights.py; one weight per feature, the parameters): coins by source, the hand's order value, full orders,
    the hand limit, orders and produce in play, the market condition's coins and its end race, and what the
    next player can still take. A character counts as its coins plus each step at its best option. Ties broken
    at random."""
    if obs[E.O_DKIND] != E.D_CHAR:
        return best_option(obs, actions, n_actions, params, cfg)
    return best_character(obs, actions, n_actions, params, cfg)
