"""The one search player: information-set Monte Carlo tree search over the engine interface (sim.interface).

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012), a template specialised per game with `bind`: each
iteration samples a world consistent with the observation (the game's `determinize`), walks one shared tree of
action histories (UCB with availability counts below the root), adds one node, plays on with a rollout policy for
the searching seat and an opponent model for the others (each a heuristic or a preset of one, its vector carried
in the search player's: sim.registry.POLICY_AT, MODEL_AT; played through the registry's rollout dispatcher, so
numba never sees a strategy calling itself), and backs each
seat's value up to the nodes where it chose: the game's `value` of a finished world, else its `evaluate`. The
root's most visited candidate is played (ties: the higher mean). Rows with equal action keys are one candidate.
What a game supplies (`bind_search`) and the parameters (`PARAMS`) are in docs/architecture.md and
docs/strategies.md (rounds of common worlds: sequential halving was tried and lost strength in Mughal). No tree is
kept between decisions: a strategy is a pure function of its observation, not state shared across games and seats.
"""
import math
import sys

import numpy as np
from sim.jit import njit

from sim.interface import bind
from sim.playout import play
from sim.registry import MAX_DETERMINIZATIONS, MAX_ITERATIONS, MAX_PARAMS, MODEL_AT, POLICY_AT, SEARCH_WIDTH
from sim.registry import registered, rollout_defaults, rollout_dispatcher, strategy

PARAMS = {"iterations": 16.0, "rollout": "greedy", "exploration": 0.7, "determinizations": 0.0,
          "tree_depth": 0.0, "rollout_depth": 0.0, "widening": 0.0, "race": 0.0, "race_rounds": 4.0,
          "tolerance": 0.0, "opponent_model": "rollout"}
(P_ITERATIONS, P_ROLLOUT, P_EXPLORATION, P_DETERMINIZATIONS, P_TREE_DEPTH, P_ROLLOUT_DEPTH,
 P_WIDENING, P_RACE, P_RACE_ROUNDS, P_TOLERANCE, P_OPPONENT_MODEL) = range(len(PARAMS))
# A mixed model of the other seats, registered after each game's own parameters (so vectors saved before it read
# the same: zeros there, no mixing): with probability `alt_share` a sampled world's other seats play `opponent_alt`
# (a heuristic at its declared defaults; "none": never) instead of `opponent_model`, drawn once per sampled world.
MIX_PARAMS = {"opponent_alt": "none", "alt_share": 0.0}


def bounds():
    """Each parameter's (lowest, highest, whole number?) for the registry, which refuses presets outside."""
    return {"iterations": (1, MAX_ITERATIONS, True), "determinizations": (0, MAX_DETERMINIZATIONS, True),
            "exploration": (0, 1000, False), "tree_depth": (0, 1000, True), "rollout_depth": (0, 1_000_000, True),
            "widening": (0, 1000, False), "race": (0, 1000, False), "race_rounds": (2, 1000, True),
            "tolerance": (0, 1e9, False), "alt_share": (0, 1, False)}


@njit(cache=True)
def row_key(actions, a):
    """An action row's values as one integer (a 64-bit mix of every column): the default action key."""
    k = np.uint64(0x9E3779B97F4A7C15)
    for j in range(actions.shape[1]):
        k = (k ^ np.uint64(actions[a, j] & 0xFFFFFFFF)) * np.uint64(0xBF58476D1CE4E5B9)
        k ^= k >> np.uint64(31)
    return np.int64(k >> np.uint64(1))


@njit(cache=True)
def never_dominated(obs, actions, a, b):
    """The default DOMINATED: no candidate is dropped unplayed."""
    return False


@njit(cache=True)
def no_evaluate(s, cfg, params, out):
    raise ValueError("search: this game supplies no evaluate(), so rollout_depth must be 0 (play to the end)")


@njit(cache=True)
def ucb_root(visits, total, n_actions, it, c):
    """UCB1 over the root's children 1..n_actions: an unvisited child first, uniformly among them; else the best
    mean reward plus c * sqrt(log(it + 1) / visits)."""
    pick, nun, best = -1, 0, -1e300
    logn = math.log(it + 1.0)
    for i in range(n_actions):
        ch = 1 + i
        if visits[ch] == 0:
            nun += 1
            if np.random.randint(0, nun) == 0:
                pick = i
        elif nun == 0:
            v = total[ch] / visits[ch] + c * math.sqrt(logn / visits[ch])
            if v > best:
                best, pick = v, i
    return pick


@njit(cache=True)
def mean_of(total, visits, i):
    """Root child i's mean value (-inf-like when unvisited)."""
    return total[1 + i] / visits[1 + i] if visits[1 + i] > 0 else -1e300


@njit(cache=True)
def most_visited(visits, total, n_actions):
    """The root child (children stored at 1..n_actions) visited most; ties go to the higher mean reward."""
    choice, most, mean = 0, -1.0, -1e300
    for i in range(n_actions):
        v, m = visits[1 + i], mean_of(total, visits, i)
        if v > most or (v == most and m > mean):
            choice, most, mean = i, v, m
    return choice


@njit(cache=True)
def widen_limit(widening, visits, n):
    """How many children a node with `visits` visits may have (of `n` possible)."""
    if widening <= 0.0:
        return n
    return min(n, 1 + int(widening * math.sqrt(visits)))


@njit(cache=True, _nrt=False)  # once a round, allocates nothing: no reference counts on its arrays
def race(vals, rounds, alive, active, total, visits, z, min_rounds, tolerance, pairs, sums):
    """Drop the candidates (of the first `active`) that trail the leader by z standard errors of the paired
    difference (Maron & Moore's Hoeffding races, a paired t-test) or whose expected gain over it is below
    tolerance / active (Chick & Inoue's expected opportunity cost), and all but the leader when those gains add
    up to less than `tolerance`; returns how many are left. `vals[round, candidate]`: the searching seat's
    values (NaN: not played); `pairs`, `sums`: each pair's sums so far, carried between calls in round order."""
    b, gains = -1, 0.0
    for i in range(active):
        if alive[i] and (b < 0 or mean_of(total, visits, i) > mean_of(total, visits, b)):
            b = i
    for i in range(active):
        if not alive[i] or i == b:
            continue
        k, sd, sd2 = sums[b, i, 0], sums[b, i, 1], sums[b, i, 2]
        for r in range(pairs[b, i], rounds):
            d = vals[r, b] - vals[r, i]
            if d == d:  # both played round r
                k, sd, sd2 = k + 1, sd + d, sd2 + d * d
        pairs[b, i] = rounds
        sums[b, i, 0], sums[b, i, 1], sums[b, i, 2] = k, sd, sd2
        if k < min_rounds:
            continue
        d, se = sd / k, math.sqrt(max(0.0, sd2 - sd * sd / k) / (k - 1) / k)
        if sd > 0.0 and d >= z * se:
            alive[i] = False
        elif tolerance > 0.0:  # E[max(0, -D)], D ~ N(d, se^2): what playing the leader may lose against i
            gain = max(0.0, -d)
            if se > 0.0:
                u = d / se
                gain = se * math.exp(-0.5 * u * u) / math.sqrt(2.0 * math.pi) - d * 0.5 * math.erfc(u / math.sqrt(2.0))
            gains += gain
            if gain < tolerance / active:
                alive[i] = False
    if tolerance > 0.0 and rounds >= min_rounds and gains < tolerance:
        for i in range(active):
            alive[i] = i == b
    return alive.sum()


@njit(cache=True, _nrt=False)
def copy_into(dst, src, n):
    """dst[:n] <- src[:n] element by element: numba's `dst[:] = src` goes through a temporary (7x slower)."""
    for i in range(n):
        dst[i] = src[i]


def copy_world(dst, src):
    """The default `restore`: dst <- the first WORLD numbers of the sampled world src."""
    copy_into(dst, src, WORLD)  # noqa: F821


@njit(cache=True)
def search_tree(cap):
    """A tree of `cap` nodes (0: the root): key, first child, next sibling, chooser, visits, total value,
    availability, children, the iteration last seen in, one path."""
    return (np.zeros(cap, dtype=np.int64), np.full(cap, -1, dtype=np.int32), np.full(cap, -1, dtype=np.int32),
            np.zeros(cap, dtype=np.int32), np.zeros(cap, dtype=np.float64), np.zeros(cap, dtype=np.float64),
            np.ones(cap, dtype=np.float64), np.zeros(cap, dtype=np.int32), np.full(cap, -1, dtype=np.int64),
            np.zeros(cap, dtype=np.int32))


@njit(cache=True)
def draw_model(sids, rparams, me, oid, aid, share, params, defaults):
    """The other seats' rows of (sids, rparams) <- `opponent_alt` at its defaults with probability `share`, else
    `opponent_model`'s vector: one draw for all of them (one sampled world's rival); `defaults`: a row per
    strategy id."""
    alt = np.random.random() < share
    for p in range(sids.shape[0]):
        if p == me:
            continue
        sids[p] = aid if alt else oid
        for j in range(MAX_PARAMS):
            rparams[p, j] = defaults[aid, j] if alt else params[MODEL_AT + j]


def sample_world(obs, cfg, w, me, sids, rparams, robs, buf, one, nolog):
    """w <- a world the observation allows (the game's DETERMINIZE), played on by the rollout policy through the
    seats that choose before `me` (Mughal's simultaneous picks), so that `me` is to move."""
    DETERMINIZE(obs, cfg, w)  # noqa: F821
    while G.current_player(w) != me and not G.is_over(w):  # noqa: F821
        ROLLOUT(w, cfg, sids, rparams, robs, buf, one, 0, False, 1, nolog, nolog)  # noqa: F821


def search(obs, actions, n_actions, params, cfg):
    """The search (its upper-case globals bound per game: `bind_search`, `connect_rollouts`). Returns (row to
    play, nodes used, visits, total value, first child): the tree's arrays for tests."""
    iters = max(1, int(params[P_ITERATIONS]))
    if params.shape[0] < SEARCH_WIDTH:
        raise ValueError("search: a search player's vector holds its own parameters, its rollout policy's and its "
                         "opponent model's (sim.registry.SEARCH_WIDTH numbers)")
    rid = int(params[P_ROLLOUT])  # the registry's id of the rollout policy (the searching seat's later choices)
    oid = int(params[P_OPPONENT_MODEL])  # and of the policy the other seats play in rollouts
    if not (0 <= rid < ROLLOUT_PARAMS.shape[0] and 0 <= oid < ROLLOUT_PARAMS.shape[0]):  # noqa: F821 - bound per game
        raise ValueError("search: rollout strategy id out of range")
    c = params[P_EXPLORATION]
    ndet = int(params[P_DETERMINIZATIONS])
    max_depth = int(params[P_TREE_DEPTH]) if params[P_TREE_DEPTH] >= 1.0 else 1 << 30
    rollout_steps = int(params[P_ROLLOUT_DEPTH]) if params[P_ROLLOUT_DEPTH] >= 1.0 else -1  # play's "no limit"
    widening = params[P_WIDENING]
    z = params[P_RACE]
    me = obs[G.O_SEAT]  # noqa: F821
    row_params = params[POLICY_AT:POLICY_AT + MAX_PARAMS].copy()
    rparams = np.empty((SEATS, MAX_PARAMS))  # noqa: F821
    sids = np.empty(SEATS, dtype=np.int64)  # noqa: F821
    for p in range(SEATS):  # noqa: F821
        at = POLICY_AT if p == me else MODEL_AT
        for j in range(MAX_PARAMS):
            rparams[p, j] = params[at + j]
        sids[p] = rid if p == me else oid
    aid, share = -1, 0.0  # the other seats' alternative model and how often a sampled world uses it
    if MIX_AT >= 0:  # noqa: F821 - bound per game (-1: a binding without the mixed model)
        aid, share = int(params[MIX_AT]), params[MIX_AT + 1]  # noqa: F821
        if aid >= ROLLOUT_PARAMS.shape[0] or share < 0.0 or share > 1.0:  # noqa: F821
            raise ValueError("search: opponent_alt id or alt_share out of range")
    mixing = aid >= 0 and share > 0.0

    # root candidates: one per distinct action key, the rollout policy's choice first when widening
    keys = np.empty(n_actions, dtype=np.int64)
    rep = np.empty(n_actions, dtype=np.int64)
    nc = 0
    for a in range(n_actions):
        keys[a] = ACTION_KEY(actions, a)  # noqa: F821
        if not (keys[rep[:nc]] == keys[a]).any():
            rep[nc] = a
            nc += 1
    if nc > 1:  # candidates another one dominates (the game's DOMINATED) are not played out
        kept = 0
        for i in range(nc):
            beaten = False
            for j in range(nc):
                if j != i and DOMINATED(obs, actions, rep[i], rep[j]):  # noqa: F821 - bound per game
                    beaten = True
                    break
            if not beaten:
                rep[kept] = rep[i]
                kept += 1
        if kept == 1:  # one candidate left: nothing to search (no world sampled, no draw)
            visits, total, first = np.zeros(2), np.zeros(2), np.full(2, -1, dtype=np.int32)
            return rep[0], 1, visits, total, first
        nc = kept
    if widening > 0.0:
        np.random.shuffle(rep[:nc])  # a random order, then the policy's candidate in front
        first_row = CHOOSE(0, rid, obs, actions, n_actions, row_params, cfg)  # noqa: F821
        for i in range(nc):
            if keys[rep[i]] == keys[first_row]:
                rep[0], rep[i] = rep[i], rep[0]
                break

    rounds = c <= 0.0
    cap = 1 + 2 * nc + iters  # whole rounds: up to nc more rollouts than `iterations`
    key, first, sib, mover, visits, total, avail, kids, seen, path = search_tree(cap)
    nn = 1 + nc

    s = np.zeros(G.STATE_SIZE, dtype=np.int32)  # noqa: F821
    world = np.zeros(G.STATE_SIZE, dtype=np.int32)  # noqa: F821
    buf = np.empty((G.MAX_ACTIONS, G.ACOLS), dtype=np.int32)  # noqa: F821
    robs = np.zeros(ROLLOUT_OBS, dtype=np.int32)  # noqa: F821 - the rollout policy's observations
    one = np.zeros(rparams.shape[1])
    nolog = np.zeros((0, 1), dtype=np.int32)
    value = np.zeros(SEATS)  # noqa: F821
    worlds = np.zeros((max(ndet, 0), G.STATE_SIZE), dtype=np.int32)  # noqa: F821
    if mixing:
        draw_model(sids, rparams, me, oid, aid, share, params, ROLLOUT_PARAMS)  # noqa: F821
    for d in range(ndet + 1):
        SAMPLE(obs, cfg, worlds[d] if d < ndet else world, me, sids, rparams, robs, buf, one, nolog)  # noqa: F821
    for i in range(nc):
        mover[1 + i] = me
        key[1 + i] = keys[rep[i]]

    alive = np.ones(nc, dtype=np.bool_)
    nalive = nc
    racing = rounds and z > 0.0
    vals = np.full((iters + 1 if racing else 1, nc), np.nan)  # race: values by round and candidate
    pairs = np.zeros((nc if racing else 0, nc), dtype=np.int64)  # race: each pair's paired sums so far
    sums = np.zeros((nc if racing else 0, nc, 3))
    it, slot, active, nround, pick = 0, 0, 1, 0, 0
    while True:
        if slot == 0:  # a new world: every iteration, or in rounds every round (`nround` counts the worlds)
            if racing and nround > 0:
                nalive = race(vals, nround, alive, active, total, visits, z, int(params[P_RACE_ROUNDS]),
                              params[P_TOLERANCE], pairs, sums)
            if it >= iters or (racing and nalive <= 1):
                break
            active = widen_limit(widening, visits[0], nc)
            if not rounds:
                pick = ucb_root(visits, total, active, it, c)
            if mixing:  # the other seats' policy in this world (and every candidate's playout of it)
                draw_model(sids, rparams, me, oid, aid, share, params, ROLLOUT_PARAMS)  # noqa: F821
            w = world if rounds else s  # rounds: the round's world, copied for each candidate; else played in
            if ndet > 0:
                RESTORE(w, worlds[nround % ndet])  # noqa: F821
            elif nround > 0:
                SAMPLE(obs, cfg, w, me, sids, rparams, robs, buf, one, nolog)  # noqa: F821
            elif not rounds:
                RESTORE(s, world)  # noqa: F821
            nround += 1
        if rounds:  # every active (and alive) candidate once per round, all in the round's world
            while not alive[slot]:
                slot += 1
            pick = slot
            slot += 1
            while slot < active and not alive[slot]:
                slot += 1
            slot %= active
            RESTORE(s, world)  # noqa: F821 - the part of the state a playout reads
        G.apply_action(s, cfg, actions, rep[pick])  # noqa: F821
        node = 1 + pick
        path[0] = 0
        path[1] = node
        plen = 2
        expanded = visits[node] == 0
        while not expanded and plen - 1 < max_depth and not G.is_over(s):  # noqa: F821
            n = G.legal_actions(s, cfg, buf)  # noqa: F821
            if n == 1:  # forced: not a decision, no node
                G.apply_action(s, cfg, buf, 0)  # noqa: F821
                continue
            p = G.current_player(s)  # noqa: F821
            nun, new_a, best, best_ch, best_a = 0, -1, -1e300, -1, -1
            for a in range(n):
                k = ACTION_KEY(buf, a)  # noqa: F821
                ch = first[node]
                while ch >= 0 and (key[ch] != k or mover[ch] != p):
                    ch = sib[ch]
                if ch < 0:
                    nun += 1
                    if np.random.randint(0, nun) == 0:
                        new_a = a
                elif seen[ch] != it:  # rows with one key: one candidate
                    seen[ch] = it
                    avail[ch] += 1.0
                    v = total[ch] / visits[ch] + c * math.sqrt(math.log(avail[ch]) / visits[ch])
                    if v > best:
                        best, best_ch, best_a = v, ch, a
            if nun > 0 and nn < cap and kids[node] < widen_limit(widening, visits[node], n):
                if widening > 0.0 and kids[node] == 0:  # the policy's choice first
                    G.observe(s, cfg, p, robs)  # noqa: F821
                    new_a = CHOOSE(0, rid, robs, buf, n, row_params, cfg)  # noqa: F821
                ch = nn
                nn += 1
                key[ch] = ACTION_KEY(buf, new_a)  # noqa: F821
                mover[ch] = p
                sib[ch] = first[node]
                first[node] = ch
                kids[node] += 1
                seen[ch] = it
                G.apply_action(s, cfg, buf, new_a)  # noqa: F821
                expanded = True
            elif best_ch >= 0:
                ch = best_ch
                G.apply_action(s, cfg, buf, best_a)  # noqa: F821
            else:
                break  # no child may be added here: play out from here
            node = ch
            path[plen] = node
            plen += 1
        ROLLOUT(s, cfg, sids, rparams, robs, buf, one, 0, False, rollout_steps, nolog, nolog)  # noqa: F821
        if G.is_over(s):  # noqa: F821
            VALUE(s, cfg, params, value)  # noqa: F821
        else:
            EVALUATE(s, cfg, params, value)  # noqa: F821
        if vals.shape[0] > 1:
            vals[nround - 1, pick] = value[me]
        visits[0] += 1.0
        for i in range(1, plen):
            nd = path[i]
            visits[nd] += 1.0
            total[nd] += value[mover[nd]]
        it += 1
    # UCB: the most visited; rounds: the best mean of the candidates left (widening: unequal visits)
    choice = most_visited(visits, total, active if rounds else nc)
    if rounds:
        for i in range(active):
            if alive[i] and (not alive[choice] or mean_of(total, visits, i) > mean_of(total, visits, choice)):
                choice = i
    return rep[choice], nn, visits, total, first


def ismcts(obs, actions, n_actions, params, cfg):
    """Information-set MCTS over sampled worlds, one shared tree, rollouts by a heuristic policy."""
    if n_actions <= 1:
        return 0
    return SEARCH(obs, actions, n_actions, params, cfg)[0]  # noqa: F821 - bound per game


def rollout_choose(mode, sid, obs, actions, n_actions, params, cfg):
    """The play loop's chooser over the heuristics (HEURISTIC: the registry's rollout dispatcher)."""
    return HEURISTIC(sid, obs, actions, n_actions, params, cfg)  # noqa: F821 - bound per game


def engine_returns(s, cfg, params, out):
    """The default value of a finished world: the engine's win shares."""
    G.returns(s, cfg, out)  # noqa: F821 - bound per game


def bind_search(name, engine, determinize, seats, evaluate=None, value=None, action_key=None, module=None,
                world_size=None, restore=None, dominated=None, mix_at=-1):
    """(player, search) for one game, compiled over `engine`, the player claiming `module`. `seats`: the most
    seats; `world_size`: the prefix of the state a playout reads or writes (copied per playout), or `restore(dst,
    src)` the game's own copy of it; `dominated(obs, actions, a, b)`: row a's candidate need not be played out
    beside row b's (a strict partial order); `mix_at`: where `opponent_alt` and `alt_share` sit in the vector (-1:
    no mixed model). Give it its rollout policies with `connect_rollouts` first."""
    world = engine.STATE_SIZE if world_size is None else int(world_size)
    if not 0 < world <= engine.STATE_SIZE:
        raise ValueError(f"{name} search: world_size {world} must be 1 to the state's {engine.STATE_SIZE}")
    # per playout, allocating nothing: compiled without reference counting (`bind`'s nrt)
    found = bind(search, name, G=engine, SAMPLE=bind(sample_world, name, G=engine, DETERMINIZE=determinize),
                 EVALUATE=evaluate or no_evaluate, VALUE=value or bind(engine_returns, name, nrt=False, G=engine),
                 ACTION_KEY=action_key or row_key, DOMINATED=dominated or never_dominated, SEATS=seats, WORLD=world,
                 RESTORE=restore or bind(copy_world, name, nrt=False, WORLD=world),
                 ROLLOUT_OBS=getattr(engine, "OBS_TALLIES", engine.OBS_SIZE), MIX_AT=int(mix_at))
    return bind(ismcts, name, module=module, SEARCH=found), found


def own_or_play(s, cfg, sids, params, obs, actions, mover, mode, debug, max_steps, log, states):
    """The play loop's signature: the game's own rollout (OWN) where every seat plays its policy (OWN_ID) and
    nothing is recorded, else the play loop (PLAY)."""
    mine = not debug and log.shape[0] == 0 and states.shape[0] == 0
    for p in range(sids.shape[0]):
        mine &= sids[p] == OWN_ID  # noqa: F821
        for j in range(params.shape[1]):  # OWN plays every seat with seat 0's parameters
            mine &= params[p, j] == params[0, j]
    if not mine:
        return PLAY(s, cfg, sids, params, obs, actions, mover, mode, debug, max_steps, log, states)  # noqa: F821
    return OWN(s, cfg, params, max_steps, obs, actions)  # noqa: F821


def connect_rollouts(found, name, engine, choose, rollout_params, own=None):
    """Give the bound `search` its rollout chooser and `rollout_params` (a row per strategy id): apart from binding,
    as the dispatcher can be generated only once the player is registered. `own`: (strategy id, `rollout(s, cfg,
    params, max_steps, obs, actions)`), the game's own rollout of that policy (the play loop's choices and draws)."""
    rollout = bind(play, f"{name}_rollout", G=engine, CHOOSE=choose)
    if own is not None:
        rollout = bind(own_or_play, f"{name}_rollout", nrt=False, PLAY=rollout, OWN_ID=own[0], OWN=own[1])
    found.py_func.__globals__.update(CHOOSE=choose, ROLLOUT=rollout, ROLLOUT_PARAMS=rollout_params)
    found.py_func.__globals__["SAMPLE"].py_func.__globals__.update(ROLLOUT=rollout)


def registered_player(game, engine, determinize, seats, module, evaluate=None, value=None, action_key=None,
                      defaults=None, extra=None, world_size=None, own_rollout=None, restore=None, dominated=None):
    """The game's `ismcts` strategy, registered with `defaults` over `PARAMS` and its own parameters `extra` after
    them (for its `evaluate` / `value`), importable from `module`, its heuristics as rollout policies;
    `own_rollout`: (a heuristic's name, the game's own rollout of it). Returns (player, search)."""
    defaults, extra = dict(defaults or {}), dict(extra or {})
    if set(defaults) - set(PARAMS) or set(extra) & (set(PARAMS) | set(MIX_PARAMS)):
        raise ValueError(f"{game} ismcts: defaults {sorted(defaults)} must be among {list(PARAMS)}, "
                         f"extra {sorted(extra)} must not")
    params = dict(PARAMS, **defaults, **extra, **MIX_PARAMS)
    player, found = bind_search(game, engine, determinize, seats, evaluate, value, action_key, module,
                                 world_size, restore, dominated, mix_at=list(params).index("opponent_alt"))
    strategy(game, "ismcts", params=params, search=True, bounds=bounds())(player)
    setattr(sys.modules[module], player.py_func.__name__, player)  # before the dispatcher imports it
    chooser = bind(rollout_choose, game, HEURISTIC=rollout_dispatcher(game))
    own = None
    if own_rollout is not None:
        own = ([d.name for d in registered(game)].index(own_rollout[0]), own_rollout[1])
    connect_rollouts(found, game, engine, chooser, rollout_defaults(game)[0], own)
    return player, found
