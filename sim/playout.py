"""The one play loop: a game played forward over the engine interface (sim.interface), written once.

Each game binds it with `sim.interface.bind` to its engine (G) and a dispatcher (CHOOSE(mode, sid, *STRATEGY_ARGS)
-> row), and OBSERVES=observer(game) to skip `observe` for a strategy that never reads it. Strategies are asked
only when there is a choice, in the engine's order of players, so their tie-break draws come in a fixed order.
"""
import numpy as np  # in the globals every binding extends

from sim.jit import njit
from sim.registry import kernel_mode, param_table
from sim.rng import game_origin


@njit(cache=True)
def OBSERVES(sid):
    """The default for a binding without the registry's `observer(game)`: every strategy reads its observation."""
    return True


def play(s, cfg, sids, params, obs, actions, mover, mode, debug, max_steps, log, states):
    """Play `s` until the game is over or `max_steps` actions were applied (negative: no limit); returns the
    actions applied. `mover`: a buffer for the mover's parameter row (a row view would cost two atomic reference
    counts a decision). Where they have room, `log[k]` = (player, legal actions, row chosen, the action's ACOLS
    values) and `states[k]` = the state before action k (after the last: `states[steps]`)."""
    steps = 0
    while not G.is_over(s) and steps != max_steps:  # noqa: F821 - G, CHOOSE: bound per game
        p = G.current_player(s)  # noqa: F821
        n = G.legal_actions(s, cfg, actions)  # noqa: F821
        if n <= 0:
            raise ValueError("play: no legal action in a live game (a pass must be an action)")
        a = 0
        if n > 1:
            if OBSERVES(sids[p]):  # noqa: F821
                G.observe(s, cfg, p, obs)  # noqa: F821
            for j in range(params.shape[1]):
                mover[j] = params[p, j]
            a = CHOOSE(mode, sids[p], obs, actions, n, mover, cfg)  # noqa: F821
            if a < 0 or a >= n:
                raise ValueError("play: a strategy chose a row outside the legal actions")
        if steps < log.shape[0]:
            log[steps, 0] = p
            log[steps, 1] = n
            log[steps, 2] = a
            for j in range(min(actions.shape[1], log.shape[1] - 3)):
                log[steps, 3 + j] = actions[a, j]
        if steps < states.shape[0]:
            for j in range(states.shape[1]):
                states[steps, j] = s[j]
        G.apply_action(s, cfg, actions, a)  # noqa: F821
        if debug:
            G.check_invariants(s, cfg)  # noqa: F821
        steps += 1
    if 0 < steps < states.shape[0]:
        for j in range(states.shape[1]):
            states[steps, j] = s[j]
    return steps


@njit(cache=True, inline="always")
def seat_lineup(lineups, g, choice_base, choice_params, sids, params):
    """Game g's seats: each one's strategy id and parameter row (element loop: a slice copy costs seconds of
    compile)."""
    for p in range(sids.shape[0]):
        c = lineups[g, p]
        sids[p] = choice_base[c]
        for j in range(choice_params.shape[1]):
            params[p, j] = choice_params[c, j]


def start_game(G, cfg, players, seed, game, batch_size):
    """The state after setup of game `game` of `run --seed S --batch-size B` (game 0: `run -n 1`): the trace
    drivers replay a run's game from here."""
    root, local = game_origin(seed, game, batch_size)
    s = G.new_state()
    G.new_game(s, cfg, players, np.uint32(root), local)
    return s


def recorded(G, play, name, s, cfg, choices, chunk, debug=False):
    """Play `s` to its end with game `name`'s bound play loop, `chunk` actions a call; yields each call's records
    (steps, log, states) as `play` fills them, states[steps] the state after the call's last action."""
    sids = np.array([c.base_id for c in choices], dtype=np.int64)
    params = param_table(choices)
    mover = np.empty(params.shape[1], dtype=np.float64)
    obs = np.zeros(G.OBS_SIZE, dtype=np.int32)
    actions = np.zeros((G.MAX_ACTIONS, G.ACOLS), dtype=np.int32)
    mode = kernel_mode(name, sids)
    while not G.is_over(s):
        log = np.zeros((chunk, 3 + G.ACOLS), dtype=np.int32)
        states = np.zeros((chunk + 1, G.STATE_SIZE), dtype=np.int32)
        steps = play(s, cfg, sids, params, obs, actions, mover, mode, debug, chunk, log, states)
        yield steps, log, states

