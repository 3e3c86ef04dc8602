"""`ismcts`, Mughal's search player: the shared information-set MCTS (strategies/_search.py) over Mughal's engine.

Mughal supplies its determinization (sim.mughal.determinize: the hands this seat has not seen drawn from the
unseen cards, the deck shuffled; the seats choosing before it in this simultaneous round choose by the rollout
policy), stopped at the end of the turn being played (a turn's tables are scored and cleared at its end, so the
search values this turn). The value of a sampled turn, per seat: (1 - `versus_best`) x (its VT this turn minus
the other seats' mean) + `versus_best` x (its VT lead over the best other seat after the turn); a rollout cut
after `rollout_depth` actions is scored the same way, the tables as they stand. Choices that put the same suits
and level on the table in the same suit are one candidate (`candidate_key`). Presets search flat
(`tree_depth` 1), candidates in rounds (`exploration` 0): every candidate played out in the same sampled world.
A sampled world ends with its turn, and a turn's play never touches the card piles (deck, discard, removed cards:
dealt at the turn's start, filled at its end), the state's back 3/4, so a playout copies only the state before
them (`world_size`).
"""
from sim.jit import njit

from sim.mughal import engine as E
from sim.mughal.determinize import determinize
from strategies._search import registered_player


@njit(cache=True)
def determinize_turn(obs, cfg, s):
    """A sampled world that ends with the turn being played."""
    determinize(obs, cfg, s)
    s[E.S_STOP_AT_TURN_END] = 1


@njit(cache=True)
def turn_value(s, cfg, params, out):
    """Each seat's value of the turn, scored as its tables stand (see the module's doc)."""
    P = s[E.S_NP]
    vb = params[P_VERSUS_BEST]  # noqa: F821 - set by the registry
    E._score(s, cfg, s, E.S_SCORE)  # adds the turn's VT to s[S_VT], its detail to s[S_SCORE:]: s is a sampled world
    total = 0.0
    for p in range(P):
        sc = E.S_SCORE + p
        out[p] = s[sc + E.SC_MAJ] + s[sc + E.SC_ALL] + s[sc + E.SC_EMP] + s[sc + E.SC_DIS]  # gained this turn
        total += out[p]
    for p in range(P):
        top = -1e300
        for q in range(P):
            if q != p:
                top = max(top, s[E.S_VT + q])
        out[p] = (1.0 - vb) * (out[p] - (total - out[p]) / (P - 1)) + vb * (s[E.S_VT + p] - top)


@njit(cache=True)
def candidate_key(actions, a):
    """Choices that put the same suits and level on the table in the same suit play alike."""
    return ((actions[a, E.A_TYPE] * 64 + actions[a, E.A_MASK]) * 8 + actions[a, E.A_SUIT] + 2) * 4096 \
        + actions[a, E.A_LEVEL]


ismcts, search = registered_player("mughal", E, determinize_turn, E.MAX_PLAYERS, __name__, evaluate=turn_value,
                                   value=turn_value, action_key=candidate_key,
                                   defaults={"iterations": 32.0, "exploration": 0.0, "tree_depth": 1.0},
                                   extra={"versus_best": 0.5}, world_size=E.S_DECK)
