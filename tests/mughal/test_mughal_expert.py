"""Mughal search player (`ismcts`, presets expert-fast / expert): determinization, information hygiene,
strength with lenient bounds, and the runner + report path. Small budgets and few games keep this fast."""
import random

import numpy as np
import pytest
from numba import njit

from mughal_helpers import make_cfg, observe, plant, play_until, round_start
from sim.mughal import engine as E, kernel as K
from sim.mughal.determinize import determinize, sample_state
from sim.registry import HEURISTIC_ONLY, registered
from strategies.mughal._features import NEVER, T_GAIN, others_best, pick_terms, pick_vt, seat_now, vt_now
from strategies.mughal.expert import ismcts  # called directly: the kernels' own compiled copy
from search_checks import check_hidden_state_is_ignored, ismcts_params, sampled_worlds
from strategy_params import lone_seat, preset_vector

pytestmark = pytest.mark.slow  # `make test-fast` leaves these out


CFG4 = make_cfg(4)
V4 = CFG4.vector
NAMES = [d.name for d in registered("mughal")]
RANDOM_ID = NAMES.index("random")


def reach(cfg, players, seed, turn, step):
    """A game played by random seats up to the start of the round of `step` (0: declarations, or the turn's
    start when nothing is to declare) of `turn`."""
    s = E.new_state()
    E.new_game(s, cfg.vector, players, np.uint32(seed), 0)
    return play_until(cfg, s, np.full(players, RANDOM_ID, np.int64), np.zeros((players, 8)),
                      lambda s: s[E.S_TURN] == turn and (step == 0 or s[E.S_STEP] == step) and round_start(s))


def vector(name, cfg=CFG4, **overrides):
    return preset_vector("mughal", cfg.presets, name, **overrides)


@pytest.mark.parametrize("players,seed,turn,step", [
    (4, 1, 1, 0), (4, 2, 1, 3), (4, 3, 2, 2), (4, 4, 3, 1), (4, 5, 4, 4), (4, 6, 5, 0), (4, 7, 6, 5),
    (4, 8, 7, 2), (2, 9, 3, 3), (3, 10, 5, 2), (6, 11, 6, 3), (8, 12, 7, 4)])
def test_determinized_world_is_consistent_with_the_observation(players, seed, turn, step):
    cfg = CFG4 if players == 4 else make_cfg(players)
    v = cfg.vector
    s = reach(cfg, players, seed, turn, step)
    E.check_invariants(s, v)
    E.seed(np.uint32(seed))
    for p in range(players):
        obs = observe(cfg, s, p)
        hidden = [q for q in range(players) if obs[E.O_SEATS + E.SB * q + E.B_KNOWN] == 0]
        hands = set()
        for w in sampled_worlds(E, determinize, obs, v, lambda w: observe(cfg, w, p), 8):
            for q in range(players):  # tables are public: the same cards in the same suits
                n = int(s[E.S_TLEN + q])
                assert n == w[E.S_TLEN + q]
                assert np.array_equal(s[E.S_TABLE + E.MAX_TABLE * q: E.S_TABLE + E.MAX_TABLE * q + n],
                                      w[E.S_TABLE + E.MAX_TABLE * q: E.S_TABLE + E.MAX_TABLE * q + n])
            assert w[E.S_REMLEN] == s[E.S_REMLEN] and w[E.S_DISCLEN] == s[E.S_DISCLEN]
            if hidden:
                q = hidden[0]
                hands.add(tuple(sorted(w[E.S_HAND + E.MAX_HAND * q: E.S_HAND + E.MAX_HAND * q + w[E.S_HLEN + q]])))
        if hidden and s[E.S_HLEN] >= 2:
            assert len(hands) > 1, "hands the seat has not seen are sampled, not copied"
        turn = E.new_state()   # the turn only (search worlds): the same but for the empty card piles
        sample_state(obs, v, turn, False)
        seen = observe(cfg, turn, p)
        piles = np.r_[E.O_DECK, E.O_DISC, E.O_GONE:E.O_GONE + E.GONE_WORDS]
        seen[piles] = obs[piles]
        assert np.array_equal(seen, obs)
        cards = [turn[E.S_HAND + E.MAX_HAND * q + i] for q in range(players) for i in range(turn[E.S_HLEN + q])]
        cards += [turn[E.S_TABLE + E.MAX_TABLE * q + i] for q in range(players) for i in range(turn[E.S_TLEN + q])]
        gone = {c for c in range(v[E.CFG_NCARDS]) if (obs[E.O_GONE + c // E.GONE_BITS] >> (c % E.GONE_BITS)) & 1}
        assert len(set(cards)) == len(cards) and not set(cards) & gone


@pytest.mark.parametrize("players, seed, turn, step", [(4, 3, 2, 1), (4, 5, 5, 2), (3, 6, 3, 1)])
def test_turn_worlds_deal_hidden_hands_as_whole_worlds_do(players, seed, turn, step):
    """The turn-only sampler's hidden hands follow the whole sampler's law: the suits and levels of a hidden hand
    agree in distribution (a chi-square test on their counts over many samples; a sampler that dealt from the
    wrong cards, or not uniformly, fails it)."""
    from scipy.stats import chi2_contingency
    cfg = make_cfg(players)
    v = cfg.vector
    s = reach(cfg, players, seed, turn, step)
    obs = observe(cfg, s, 0)
    q = [q for q in range(players) if obs[E.O_SEATS + E.SB * q + E.B_KNOWN] == 0][0]
    kinds = {}
    counts = np.zeros((2, 64), np.int64)
    E.seed(np.uint32(seed))
    w = E.new_state()
    for row, whole in enumerate((True, False)):
        for _ in range(1500):
            sample_state(obs, v, w, whole)
            for c in w[E.S_HAND + E.MAX_HAND * q: E.S_HAND + E.MAX_HAND * q + w[E.S_HLEN + q]]:
                key = (v[E.CFG_CARD_MASK + c], v[E.CFG_CARD_LEVEL + c])
                counts[row, kinds.setdefault(key, len(kinds))] += 1
    counts = counts[:, :len(kinds)]
    assert len(kinds) >= 5
    assert chi2_contingency(counts)[1] > 1e-3


def test_hidden_state_does_not_change_the_choice():
    rng = random.Random(5)
    params = ismcts_params("mughal", CFG4.presets, ismcts, iterations=60)
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)

    def planted(s, seed):
        t = plant(CFG4, s, seed % 4, rng)
        if t is not None:
            E.check_invariants(t, V4)
        return t

    def choose(state, seed):
        state = state.copy()
        state[E.S_CUR] = seed % 4   # the seat the change is hidden from chooses
        n = E.legal_actions(state, V4, buf)
        if n < 2:
            return None
        obs = observe(CFG4, state, seed % 4)
        E.seed(np.uint32(1000 + seed))
        return int(ismcts(obs, buf, n, params, V4))

    check_hidden_state_is_ignored(((seed, reach(CFG4, 4, seed, 1 + seed % 7, 1 + seed % 4)) for seed in range(30)),
                                  planted, lambda s, seed: observe(CFG4, s, seed % 4), choose, 8, 5)


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_a_sampled_turn_is_played_from_the_front_of_the_state(seed):
    """The search copies only the state before the card piles (`world_size`) into each playout: a sampled
    world played to its turn's end from that front alone (the rest garbage) ends as from the whole state."""
    from strategies.mughal.expert import determinize_turn, search
    g = search.py_func.__globals__
    rollout, rparams, world = g["ROLLOUT"], g["ROLLOUT_PARAMS"], g["WORLD"]
    assert world == E.S_DECK < E.STATE_SIZE
    gid = NAMES.index("greedy")
    s = reach(CFG4, 4, seed, 2 + seed % 5, 1 + seed % 3)
    played = 0
    for p in range(4):
        w = np.zeros(E.STATE_SIZE, np.int32)
        E.seed(np.uint32(seed))
        determinize_turn(observe(CFG4, s, p), V4, w)
        ends = []
        for front_only in (False, True):
            t = np.full(E.STATE_SIZE, -7, np.int32) if front_only else w.copy()
            t[:world] = w[:world]
            E.seed(np.uint32(100 + p))
            played += rollout(t, V4, np.full(4, gid, np.int64), np.repeat(rparams[gid:gid + 1], 4, 0),
                              np.zeros(E.OBS_TALLIES, np.int32), np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32),
                              np.zeros(rparams.shape[1]), 0, False, -1, np.zeros((0, 1), np.int32),
                              np.zeros((0, 1), np.int32))
            assert t[E.S_OVER] == E.OVER_TURN_END
            ends.append(t[:world].copy())
        assert np.array_equal(ends[0], ends[1])
    assert played > 0


def play(cfg, players, names, n, seed, **overrides):
    """n games, the first name rotating through the seats against the second name in every other seat;
    returns the first name's total win share."""
    return float(lone_seat("mughal", cfg, players, names, n, seed, **overrides)["win_share"].sum())


def test_small_budget_beats_random_and_greedy():
    # lenient: random-like play wins about 0% against three greedy players and half of 2-player games
    # against random; the search wins about half of the former and nearly all of the latter
    assert play(make_cfg(2), 2, ["ismcts", "random"], 10, 3, iterations=24) >= 9
    assert play(CFG4, 4, ["expert-fast", "greedy"], 40, 4) >= 14  # a fair share would be 10
    assert play(make_cfg(2), 2, ["expert-fast", "greedy"], 20, 5) >= 14


def test_rollout_policy_and_options_are_parameters():
    assert play(CFG4, 4, ["ismcts", "greedy"], 2, 5, iterations=16, rollout=RANDOM_ID) >= 0
    assert play(CFG4, 4, ["ismcts", "greedy"], 2, 6, iterations=16, exploration=3.0, determinizations=4) >= 0
    assert play(CFG4, 4, ["ismcts", "greedy"], 1, 7, iterations=8, tree_depth=3, rollout_depth=6, widening=1) >= 0
    with pytest.raises(Exception):
        play(CFG4, 4, ["ismcts", "greedy"], 2, 5, iterations=8, rollout=NAMES.index("ismcts"))


@njit(cache=True)
def numba_draw():
    return np.random.randint(0, 1 << 30)


@pytest.mark.parametrize("players", [2, 4, 8])
def test_own_greedy_rollout_plays_as_the_play_loop(players):
    """The search's own `greedy_rollout` (no action rows) makes the registered greedy's choices with the same draws:
    from sampled turn worlds (mid-round too) and whole games, to the end or cut short, the states end equal."""
    from strategies.mughal.expert import determinize_turn, greedy_rollout, search
    cfg = make_cfg(players)
    v = cfg.vector
    gid = NAMES.index("greedy")
    own_or_play = search.py_func.__globals__["ROLLOUT"]
    play = own_or_play.py_func.__globals__["PLAY"]
    rp = search.py_func.__globals__["ROLLOUT_PARAMS"]
    sids, params = np.full(players, gid, np.int64), np.repeat(rp[gid:gid + 1], players, 0)
    params[:, 0] = 0.3   # a level weight other than greedy's default: read from the parameters
    nolog = np.zeros((0, 1), np.int32)
    compared = ties = 0
    for seed in range(12):
        s = reach(cfg, players, seed, 1 + seed % 7, seed % 4)
        for p in range(players) if seed % 3 else [None]:   # None: the real state, played across turns
            w = s.copy()
            if p is not None:
                E.seed(np.uint32(seed))
                determinize_turn(observe(cfg, s, p), v, w)
                play(w, v, sids, params, np.zeros(E.OBS_TALLIES, np.int32), np.zeros((E.MAX_ACTIONS, E.ACOLS),
                     np.int32), np.zeros(rp.shape[1]), 0, False, p, nolog, nolog)   # some picks pending
            for limit in (-1, 3):
                ends = []
                for rollout in ("play", "own"):
                    t = w.copy()
                    E.seed(np.uint32(1000 + seed))
                    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
                    obs = np.zeros(E.OBS_TALLIES, np.int32)
                    if rollout == "play":
                        n = play(t, v, sids, params, obs, buf, np.zeros(rp.shape[1]), 0, False, limit, nolog, nolog)
                    else:
                        n = greedy_rollout(t, v, params, limit, obs, buf)
                    ends.append((n, t, numba_draw()))   # the generator's next draw: as many draws used
                assert ends[0][0] == ends[1][0] > 0
                assert np.array_equal(ends[0][1], ends[1][1]) and ends[0][2] == ends[1][2]
                compared += 1
                ties += ends[0][1][E.S_DECISIONS] - w[E.S_DECISIONS]
    assert compared >= 40 and ties > 0
    # the search's rollout takes this path only where every seat plays greedy and nothing is recorded
    assert own_or_play.py_func.__globals__["OWN"] is greedy_rollout


@pytest.mark.parametrize("players", [2, 4, 8])
def test_turn_gains_are_what_scoring_adds(players):
    """The search's value scores a sampled turn without the engine's scoring detail (`turn_gains`): every seat's
    gain equals what `engine._score` adds to its VT, on turns played to their end and cut short, under every
    emperor tie rule and either zero-total rule; `turn_value` leaves the state as it was."""
    from strategies.mughal.expert import turn_gains, turn_value
    cfg = make_cfg(players)
    pv = vector("expert", cfg)[1]
    gains = np.zeros(players)
    compared = 0
    for seed in range(10):
        s = reach(cfg, players, seed, 1 + seed % 7, seed % 4)
        s[E.S_STOP_AT_TURN_END] = 1
        for cut in (3, -1):
            t = s.copy()
            K.play(t, cfg.vector, np.full(players, RANDOM_ID, np.int64), np.zeros((players, 8)),
                   np.zeros(E.OBS_SIZE, np.int32), np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32), np.zeros(8),
                   HEURISTIC_ONLY, True, cut, np.zeros((0, 0), np.int32), np.zeros((0, E.STATE_SIZE), np.int32))
            for tie in (E.EMP_TIE_HALF, E.EMP_TIE_FULL, E.EMP_TIE_NONE):
                for zero in (0, 1):
                    v = cfg.vector.copy()
                    v[E.CFG_EMP_TIE], v[E.CFG_ZERO_SCORES], v[E.CFG_EMP_ZERO] = tie, zero, zero
                    scored = t.copy()
                    E._score(scored, v, scored, E.S_SCORE)
                    turn_gains(t, v, gains)
                    assert np.array_equal(gains, (scored[E.S_VT:E.S_VT + players] - t[E.S_VT:E.S_VT + players]))
                    before = t.copy()
                    turn_value(t, v, pv, gains)
                    assert np.array_equal(t, before)
                    # the value as it was computed from the scored state: margin over the others' mean, lead
                    vb = pv[list(registered("mughal")[NAMES.index("ismcts")].params).index("versus_best")]
                    after = scored[E.S_VT:E.S_VT + players].astype(float)
                    gain = after - t[E.S_VT:E.S_VT + players]
                    want = [(1.0 - vb) * (gain[p] - (gain.sum() - gain[p]) / (players - 1))
                            + vb * (after[p] - max(after[q] for q in range(players) if q != p))
                            for p in range(players)]
                    assert list(gains[:players]) == want
                    compared += 1
    assert compared == 10 * 2 * 6


@pytest.mark.parametrize("seed", [31, 32, 33, 34])
def test_a_playout_reads_only_what_restore_turn_copies(seed):
    """Each candidate of sampled worlds (mid-round too), played to the turn's end from `restore_turn` over garbage,
    ends with the same value, tables, hands, VT and random draws as from a whole copy of the world."""
    from strategies.mughal.expert import restore_turn, search, turn_value
    g = search.py_func.__globals__
    sample, rollout, rparams = g["SAMPLE"], g["ROLLOUT"], g["ROLLOUT_PARAMS"]
    gid = NAMES.index("greedy")
    sids, params = np.full(E.MAX_PLAYERS, gid, np.int64), np.repeat(rparams[gid:gid + 1], E.MAX_PLAYERS, 0)
    pv = vector("expert")[1]
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    robs, nolog = np.zeros(E.OBS_TALLIES, np.int32), np.zeros((0, 1), np.int32)
    s = reach(CFG4, 4, seed, 1 + seed % 7, seed % 4)
    compared = 0
    for p in range(4):
        obs = observe(CFG4, s, p)
        t = s.copy()
        t[E.S_CUR] = p
        n = E.legal_actions(t, V4, buf)
        if n < 2:  # p does not choose in this round (a declaration round without its card) or has no choice
            continue
        actions = buf.copy()
        world = np.zeros(E.STATE_SIZE, np.int32)
        E.seed(np.uint32(seed + p))
        sample(obs, V4, world, p, sids, params, robs, buf, np.zeros(rparams.shape[1]), nolog)
        assert E.current_player(world) == p
        for a in range(n):
            ends = []
            for restored in (False, True):
                w = np.full(E.STATE_SIZE, -7, np.int32) if restored else world.copy()
                if restored:
                    restore_turn(w, world)
                E.apply_action(w, V4, actions, a)
                E.seed(np.uint32(500 + a))
                rollout(w, V4, sids, params, robs, buf, np.zeros(rparams.shape[1]), 0, False, -1, nolog, nolog)
                value = np.zeros(E.MAX_PLAYERS)
                turn_value(w, V4, pv, value)
                assert w[E.S_OVER] == E.OVER_TURN_END
                ends.append((value, w[E.S_VT:E.S_VT + 4].copy(), w[E.S_TOT:E.S_TOT + E.NSUITS * 4].copy(),
                             w[E.S_CNT:E.S_CNT + E.NSUITS * 4].copy(), w[E.S_TDIS:E.S_TDIS + 4].copy(), w[E.S_HLEN:E.S_HLEN + 4].copy(), numba_draw()))
            for x, y in zip(*ends):
                assert np.array_equal(x, y)
            compared += 1
    assert compared >= 4


@njit(cache=True)
def _fast_and_plain_vt(obs, cfg, p, rows, out):
    """out[i] <- (vt_now, pick_vt) for suit DISASTER, 0..3 (i // 12 - 1) and level i % 12 of seat p."""
    omax, ofav = others_best(obs, cfg, p)
    t = obs[E.O_TURN] - 1
    seat = pick_terms(obs, cfg, p, omax, ofav, E.emperor_share(cfg, t, 1), E.emperor_share(cfg, t, 2),
                      cfg[E.CFG_EMP_MASK + t], rows)
    plain = seat_now(obs, cfg, p)
    for i in range(out.shape[0]):
        k, level = i // 12 - 1, i % 12
        out[i, 0] = vt_now(obs, cfg, plain, k, level)
        out[i, 1] = pick_vt(cfg, seat, rows, k, level)


@pytest.mark.parametrize("players", [2, 4, 8])
def test_fast_pick_scoring_is_vt_now(players):
    """`pick_terms`/`pick_vt` give `vt_now`'s VT for every seat, suit (a Disaster too) and level, on observed tables
    and random tallies (ties, empty suits, one suit short of four), under every emperor tie and zero-total rule."""
    cfg = make_cfg(players)
    rng = np.random.default_rng(players)
    rows = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    out = np.zeros((5 * 12, 2), np.int64)
    compared = differ = 0
    for seed in range(12):
        obs = observe(cfg, reach(cfg, players, seed, 1 + seed % 7, seed % 4), seed % players)
        for variant in range(4):
            if variant:   # random tallies: small totals so that they tie, some suits empty
                cnt = rng.integers(0, 3, E.NSUITS * players)
                obs[E.O_CNT:E.O_CNT + cnt.size] = cnt
                obs[E.O_TOT:E.O_TOT + cnt.size] = np.where(cnt > 0, rng.integers(0, 6, cnt.size), 0)
                obs[E.O_DIS:E.O_DIS + players] = rng.integers(0, 2, players)
            for tie in (E.EMP_TIE_HALF, E.EMP_TIE_FULL, E.EMP_TIE_NONE):
                for zero, ezero in ((0, 0), (1, 1), (0, 1), (1, 0)):
                    v = cfg.vector.copy()
                    v[E.CFG_EMP_TIE], v[E.CFG_ZERO_SCORES], v[E.CFG_EMP_ZERO] = tie, zero, ezero
                    for p in range(players):
                        rows[1:5] = NEVER   # garbage: pick_terms writes every term it reads
                        _fast_and_plain_vt(obs, v, p, rows, out)
                        assert np.array_equal(out[:, 0], out[:, 1]), (seed, variant, tie, zero, ezero, p)
                        compared += out.shape[0]
                        differ += len(set(out[:, 0]))
    assert compared == 12 * 4 * 3 * 4 * players * 60 and differ > compared / 60 * 3   # VTs of many kinds
    assert T_GAIN < E.ACOLS


def test_dominated_placements():
    """`dominated(obs, actions, a, b)`: a placement in the same suit of a card no higher and playable in no more
    suits is not played out where the hand cannot come back with a choice (hand length - players <= 1);
    declarations, Disasters, other suits and the same kind of card are kept."""
    from strategies.mughal.expert import dominated
    obs = np.zeros(E.OBS_SIZE, np.int32)
    obs[E.O_SEAT], obs[E.O_NP] = 1, 4
    obs[E.O_SEATS + E.SB * 1 + E.B_HLEN] = 5
    rows = np.zeros((6, E.ACOLS), np.int32)
    M, B = 1, 2   # masks of a Military and a Building card

    def row(i, kind, mask, suit, level):
        rows[i, E.A_TYPE], rows[i, E.A_MASK], rows[i, E.A_SUIT], rows[i, E.A_LEVEL] = kind, mask, suit, level
    row(0, E.T_PLACE, M, 0, 2)          # Military 2
    row(1, E.T_PLACE, M, 0, 4)          # Military 4
    row(2, E.T_PLACE, M | B, 0, 2)      # Military/Building 2, as Military
    row(3, E.T_PLACE, M | B, 1, 4)      # Military/Building 4, as Building
    row(4, E.T_PLACE, 0, E.DISASTER, 0)
    row(5, E.T_DECLARE, M | B, 0, 4)
    assert dominated(obs, rows, 0, 1) and dominated(obs, rows, 0, 2), "a lower level; a card with more suits"
    assert not dominated(obs, rows, 1, 0) and not dominated(obs, rows, 2, 0) and not dominated(obs, rows, 0, 0)
    assert not dominated(obs, rows, 2, 1), "neither: M/B 2 has more suits, Military 4 the higher level"
    assert not dominated(obs, rows, 0, 3) and not dominated(obs, rows, 3, 1), "other suits"
    assert not any(dominated(obs, rows, 4, b) or dominated(obs, rows, b, 4) for b in range(6)), "Disasters"
    row(4, E.T_DECLARE, M | B, 0, 2)
    assert not dominated(obs, rows, 4, 5), "declarations"
    obs[E.O_NP] = 2   # two seats: a hand of 5 comes back with 3 cards, of 3 with one
    assert not dominated(obs, rows, 0, 1)
    obs[E.O_SEATS + E.SB * 1 + E.B_HLEN] = 3
    assert dominated(obs, rows, 0, 1)


def test_the_expert_plays_no_dominated_placement():
    """On decision points of greedy games, `expert` never picks a row that another row dominates, and where one
    row dominates every other candidate it plays that row without drawing a random number."""
    from strategies.mughal.expert import candidate_key, dominated
    _, params = vector("expert")
    gid = NAMES.index("greedy")
    sids = np.full(4, gid, np.int64)
    gparams = np.stack([vector("greedy")[1]] * 4)
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    args = (np.zeros(E.OBS_SIZE, np.int32), np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32), np.zeros(gparams.shape[1]),
            HEURISTIC_ONLY, False, 1, np.zeros((0, 0), np.int32), np.zeros((0, E.STATE_SIZE), np.int32))
    # the play loop first, as in the other tests that call `ismcts` (via `reach`): on an empty numba cache, the
    # search called from Python before the kernels' play loop was compiled fails to type (seen on main too)
    reach(CFG4, 4, 0, 1, 1)
    pruned = alone = 0
    for seed in range(3):
        s = E.new_state()
        E.new_game(s, V4, 4, np.uint32(40 + seed), 0)
        while not E.is_over(s):
            p = E.current_player(s)
            n = E.legal_actions(s, V4, buf)
            if n > 1:
                obs = observe(CFG4, s, p)
                E.seed(np.uint32(seed))
                row = int(ismcts(obs, buf, n, params, V4))
                beaten = [any(dominated(obs, buf, a, b) for b in range(n)) for a in range(n)]
                top = {candidate_key(buf, a) for a in range(n) if not beaten[a]}
                assert not beaten[row]
                pruned += any(beaten)
                if len(top) == 1 and len({candidate_key(buf, a) for a in range(n)}) > 1:
                    assert row == min(a for a in range(n) if not beaten[a])
                    E.seed(np.uint32(seed))
                    expected = numba_draw()
                    E.seed(np.uint32(seed))
                    ismcts(obs, buf, n, params, V4)
                    assert numba_draw() == expected, "one candidate left: no world sampled"
                    alone += 1
            K.play(s, V4, sids, gparams, *args)
    assert pruned >= 50 and alone >= 3

