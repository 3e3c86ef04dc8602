"""The shared search player (strategies/search.py) bound to the toy game (tests/toy_game.py): it finds a
winning move, beats random play, repeats for a seed, keeps to its node budget, and its levers (flat search,
rounds, progressive widening, truncated rollouts with `evaluate`) do what they say."""
import numpy as np
import pytest
from numba import njit

import toy_game as T
from sim.interface import bind
from sim.playout import play
from sim.registry import MAX_PARAMS, MODEL_AT, POLICY_AT, SEARCH_WIDTH
from strategies import search as S

CFG = T.config()
RANDOM, LARGEST, SEARCHER, FIXED = 0, 1, 2, 3
SEEN = len(CFG)  # a test's cfg may be longer: FIXED counts its choices there, by seat, and the row it took


@njit(cache=True)
def toy_choose(mode, sid, obs, actions, n_actions, params, cfg):
    """The toy's rollout strategies: 0 random, 1 the largest card (rows come in increasing value); 3 (FIXED) the
    row `params[0]` (the last when fewer), counted in cfg[SEEN + seat] and cfg[SEEN + 2 + row] when cfg has room."""
    if sid == RANDOM:
        return np.random.randint(0, n_actions)
    if sid == FIXED:
        row = min(int(params[0]), n_actions - 1)
        if cfg.shape[0] > SEEN + 2 + row:
            cfg[SEEN + obs[T.O_SEAT]] += 1
            cfg[SEEN + 2 + row] += 1
        return row
    return n_actions - 1


ROLLOUT_PARAMS = np.zeros((4, MAX_PARAMS))
PLAYER, SEARCH = S.bind_search("toy", T, T.determinize, 2, evaluate=T.evaluate)
S.connect_rollouts(SEARCH, "toy", T, toy_choose, ROLLOUT_PARAMS)


@njit(cache=True)
def ones_lose_to_threes(obs, actions, a, b):
    """A game's `dominated` for the tests: taking 1 is never better than taking 3."""
    return actions[a, 0] == 1 and actions[b, 0] == 3


@njit(cache=True)
def smaller_loses(obs, actions, a, b):
    return actions[a, 0] < actions[b, 0]


_, SEARCH_PRUNED = S.bind_search("toy_pruned", T, T.determinize, 2, evaluate=T.evaluate, dominated=ones_lose_to_threes)
S.connect_rollouts(SEARCH_PRUNED, "toy_pruned", T, toy_choose, ROLLOUT_PARAMS)
_, SEARCH_ONE_LEFT = S.bind_search("toy_one_left", T, T.determinize, 2, evaluate=T.evaluate, dominated=smaller_loses)
S.connect_rollouts(SEARCH_ONE_LEFT, "toy_one_left", T, toy_choose, ROLLOUT_PARAMS)


@njit(cache=True)
def next_draw():
    return np.random.randint(0, 1 << 30)


_, SEARCH_NO_EVALUATE = S.bind_search("toy_no_evaluate", T, T.determinize, 2)
S.connect_rollouts(SEARCH_NO_EVALUATE, "toy_no_evaluate", T, toy_choose, ROLLOUT_PARAMS)


@njit(cache=True)
def match_choose(mode, sid, obs, actions, n_actions, params, cfg):
    if sid == SEARCHER:
        return PLAYER(obs, actions, n_actions, params, cfg)
    return toy_choose(mode, sid, obs, actions, n_actions, params, cfg)


MATCH = bind(play, "toy_match", G=T, CHOOSE=match_choose)


@njit(cache=True)
def seed(x):
    np.random.seed(x)


def params(quarter=False, **given):
    """The search's parameter vector; `quarter`: the toy's evaluate scores every cut rollout 1/4 for every seat."""
    rollout = given.pop("rollout", RANDOM)
    rollout_row, model_row = given.pop("rollout_row", None), given.pop("model_row", None)
    values = dict(S.PARAMS, **dict(dict(rollout=rollout, opponent_model=rollout), **given))
    assert len(values) == len(S.PARAMS) <= T.P_QUARTER < MAX_PARAMS
    vec = np.zeros(SEARCH_WIDTH)
    vec[: len(values)] = list(values.values())
    vec[T.P_QUARTER] = float(quarter)
    for at, row in ((POLICY_AT, rollout_row), (MODEL_AT, model_row)):
        if row is not None:
            vec[at: at + len(row)] = row
    return vec


def position(pile, hand, played=(0, 0, 0, 0), rival_hand=2, seed_=0):
    """(observation, a full state consistent with it, its legal rows, how many) for seat 0 to move."""
    obs = np.zeros(T.OBS_SIZE, np.int32)
    obs[T.O_PILE], obs[T.O_RIVAL_HAND] = pile, rival_hand
    obs[T.O_HAND: T.O_HAND + T.V] = hand
    obs[T.O_PLAYED: T.O_PLAYED + T.V] = played
    obs[T.O_DECK_LEFT] = 3 * CFG[T.C_COPIES] - sum(hand) - sum(played) - rival_hand
    s = np.zeros(T.STATE_SIZE, np.int32)
    seed(seed_)
    T.determinize(obs, CFG, s)
    actions = np.zeros((T.MAX_ACTIONS, T.ACOLS), np.int32)
    return obs, s, actions, T.legal_actions(s, CFG, actions)


def search(obs, actions, n, vec, seed_=0):
    """SEARCH from a seeded generator (the seed decides the sampled worlds)."""
    seed(seed_)
    return SEARCH(obs, actions, n, vec, CFG)


def test_determinized_worlds_look_the_same_to_the_observer_and_vary_where_hidden():
    obs, _, _, _ = position(7, (0, 1, 0, 1), played=(0, 1, 2, 0))
    seen, hands = np.zeros(T.OBS_SIZE, np.int32), set()
    for k in range(20):
        s = np.zeros(T.STATE_SIZE, np.int32)
        seed(k)
        T.determinize(obs, CFG, s)
        T.check_invariants(s, CFG)
        T.observe(s, CFG, 0, seen)
        assert np.array_equal(seen, obs)
        hands.add(tuple(s[T.S_HAND + T.V: T.S_HAND + 2 * T.V]))
    assert len(hands) > 1


@pytest.mark.parametrize("given", [dict(), dict(exploration=0.0), dict(tree_depth=1.0), dict(widening=1.0),
                                   dict(determinizations=4.0), dict(rollout_depth=2.0),
                                   dict(exploration=0.0, race=2.0, race_rounds=3.0)])
@pytest.mark.parametrize("pile,hand", [(1, (0, 1, 1, 0)), (2, (0, 1, 1, 0)), (3, (0, 1, 1, 1)), (3, (0, 0, 1, 1))])
def test_finds_the_winning_move(given, pile, hand):
    obs, _, actions, n = position(pile, hand)
    seed(1)
    row = PLAYER(obs, actions, n, params(iterations=48.0, **given), CFG)
    assert actions[row, 0] == pile, "taking the last token wins at once"


def win_share(sids, n_games, row, seed_=3):
    """Seat-alternating games of the toy; the win share of the player listed first in `sids`."""
    s = np.zeros(T.STATE_SIZE, np.int32)
    obs = np.zeros(T.OBS_SIZE, np.int32)
    actions = np.zeros((T.MAX_ACTIONS, T.ACOLS), np.int32)
    out, mover, nolog = np.zeros(2), np.zeros(SEARCH_WIDTH), np.zeros((0, 1), np.int32)
    won = 0.0
    seed(seed_)
    for g in range(n_games):
        first = g % 2
        seats = np.array(sids if first == 0 else sids[::-1], np.int64)
        rows = np.stack([row if sid == SEARCHER else np.zeros(SEARCH_WIDTH) for sid in seats])
        T.new_game(s, CFG, 2, seed_, g)
        MATCH(s, CFG, seats, rows, obs, actions, mover, 0, True, -1, nolog, nolog)
        T.returns(s, CFG, out)
        won += out[first]
    return won / n_games


def test_beats_random_clearly():
    baseline = win_share([RANDOM, RANDOM], 200, None)
    share = win_share([SEARCHER, RANDOM], 100, params(iterations=48.0))
    assert 0.4 < baseline < 0.6 and share >= 0.7, (baseline, share)


def test_flat_cheap_search_still_beats_random():
    share = win_share([SEARCHER, RANDOM], 100, params(iterations=24.0, tree_depth=1.0, rollout_depth=2.0,
                                                      widening=1.0, rollout=LARGEST))
    assert share >= 0.65, share


def test_deterministic_for_a_seed():
    obs, _, actions, n = position(9, (0, 1, 1, 0))
    trees = []
    for k in (5, 5, 6):
        _, nodes, visits, total, _ = search(obs, actions, n, params(iterations=64.0), k)
        trees.append((nodes, visits[:nodes].tolist(), total[:nodes].tolist()))
    assert trees[0] == trees[1]
    assert trees[0] != trees[2], "the seed decides the sampled worlds"


@pytest.mark.parametrize("iterations", [1, 7, 64])
def test_node_budget_and_visit_counts(iterations):
    obs, _, actions, n = position(9, (0, 1, 1, 1))
    row, nodes, visits, total, first = search(obs, actions, n, params(iterations=float(iterations)))
    assert 0 <= row < n and nodes <= 1 + n + iterations
    assert visits[0] == iterations == visits[1: 1 + n].sum()
    assert np.all(visits[:nodes] >= 1) or iterations < n
    _, nodes, visits, _, first = search(obs, actions, n, params(iterations=float(iterations), tree_depth=1.0))
    assert nodes == 1 + n and np.all(first[1: 1 + n] == -1), "flat search: no node below the root's"


def test_rounds_play_every_candidate_equally_in_whole_rounds():
    obs, _, actions, n = position(9, (0, 1, 1, 1))
    row, nodes, visits, total, _ = search(obs, actions, n, params(iterations=10.0, exploration=0.0, tree_depth=1.0))
    assert n == 3 and visits[1: 1 + n].tolist() == [4, 4, 4]
    assert total[1 + row] == total[1: 1 + n].max(), "equal visits: the best mean is played"


def test_a_race_drops_clear_losers_and_stops_when_one_is_left():
    obs, _, actions, n = position(3, (0, 1, 1, 1))  # taking all 3 tokens wins at once; 1 or 2 often loses
    flat = dict(iterations=300.0, exploration=0.0, tree_depth=1.0)
    row, _, visits, total, _ = search(obs, actions, n, params(**flat, race=2.0, race_rounds=5.0))
    played = visits[1: 1 + n]
    assert n == 3 and actions[row, 0] == 3 and visits[1 + row] == played.max()
    assert played.min() >= 5 and visits[0] == played.sum() < 300, "losers dropped after 5 rounds or more, then it stops"
    _, _, visits, _, _ = search(obs, actions, n, params(**flat))
    assert visits[0] == 300, "race 0: the whole budget"


def test_a_race_keeps_candidates_it_cannot_tell_apart():
    obs, _, actions, n = position(9, (0, 1, 1, 1))
    # every rollout cut at once and scored 1/4: no candidate trails, none is dropped
    _, _, visits, _, _ = search(obs, actions, n, params(iterations=30.0, exploration=0.0, tree_depth=1.0,
                                                        rollout_depth=1.0, race=1.0, quarter=True))
    assert visits[1: 1 + n].tolist() == [10, 10, 10]


def test_tolerance_stops_once_the_choice_cannot_matter():
    obs, _, actions, n = position(9, (0, 1, 1, 1))
    cut = dict(iterations=30.0, exploration=0.0, tree_depth=1.0, rollout_depth=1.0, race=1.0, race_rounds=3.0)
    # every rollout scored 1/4: an exact tie, nothing to lose by stopping after `race_rounds` rounds
    _, _, visits, _, _ = search(obs, actions, n, params(**cut, tolerance=0.01, quarter=True))
    assert visits[1: 1 + n].tolist() == [3, 3, 3]
    obs, _, actions, n = position(3, (0, 1, 1, 1))  # taking all 3 tokens wins at once
    flat = dict(iterations=300.0, exploration=0.0, tree_depth=1.0, race=2.0, race_rounds=5.0)
    row, _, visits, _, _ = search(obs, actions, n, params(**flat, tolerance=0.01))
    assert actions[row, 0] == 3 and visits[1 + row] == visits[1: 1 + n].max() and visits[0] < 300
    _, _, visits, _, _ = search(obs, actions, n, params(**flat, tolerance=1000.0))
    assert visits[1: 1 + n].tolist() == [5, 5, 5], "any loss tolerated: it stops as soon as it may"


def test_progressive_widening_starts_from_the_policy_choice():
    obs, _, actions, n = position(9, (0, 1, 1, 1))
    vec = params(iterations=16.0, widening=0.25, rollout=LARGEST)
    _, nodes, visits, _, _ = search(obs, actions, n, vec)
    order = [i for i in range(1, 1 + n) if visits[i] > 0]
    assert len(order) == 1, "1 + floor(0.25 sqrt(v)) is 1 for v < 16: one candidate"
    assert visits[1] == 16  # root child 1 is the policy's (largest card) candidate
    assert PLAYER(obs, actions, n, vec, CFG) == n - 1


def test_rows_with_one_key_are_one_candidate():
    obs, _, _, _ = position(9, (0, 2, 1, 0))
    actions = np.array([[1], [1], [2]], np.int32)  # the same card twice: one candidate
    row, nodes, visits, _, _ = search(obs, actions, 3, params(iterations=8.0, tree_depth=1.0))
    assert nodes == 3 and visits[1] + visits[2] == 8 and row in (0, 2)


def test_truncated_rollouts_are_scored_by_evaluate():
    obs, _, actions, n = position(9, (0, 1, 1, 1))
    flat_cut = params(iterations=30.0, tree_depth=1.0, rollout_depth=1.0, quarter=True)
    _, nodes, visits, total, _ = search(obs, actions, n, flat_cut)
    # no two actions empty a pile of 9: every rollout is cut and scored 1/4 for every seat
    assert np.allclose(total[1:nodes], 0.25 * visits[1:nodes])
    _, nodes, visits, total, _ = search(obs, actions, n, params(iterations=30.0, tree_depth=1.0, quarter=True))
    assert not np.allclose(total[1:nodes], 0.25 * visits[1:nodes]), "full rollouts are scored by returns"
    with pytest.raises(ValueError, match="evaluate"):
        SEARCH_NO_EVALUATE(obs, actions, n, params(iterations=4.0, rollout_depth=1.0), CFG)


def test_dominated_candidates_are_not_played_out():
    obs, _, actions, n = position(9, (0, 1, 1, 1))
    assert n == 3 and actions[:n, 0].tolist() == [1, 2, 3]
    flat = params(iterations=30.0, exploration=0.0, tree_depth=1.0)
    seed(0)
    row, nodes, visits, _, _ = SEARCH_PRUNED(obs, actions, n, flat, CFG)
    assert nodes == 3 and visits[0] == 30 and visits[1:3].tolist() == [15, 15], "two candidates: take 2, take 3"
    assert actions[row, 0] in (2, 3)
    _, nodes, visits, _, _ = search(obs, actions, n, flat)
    assert nodes == 4 and visits[1:4].tolist() == [10, 10, 10], "no `dominated`: every candidate is played"


def test_one_undominated_candidate_is_played_without_a_search():
    obs, _, actions, n = position(9, (0, 1, 1, 1))
    seed(0)
    expected = next_draw()
    seed(0)
    row, nodes, visits, _, _ = SEARCH_ONE_LEFT(obs, actions, n, params(iterations=30.0, exploration=0.0,
                                                                       tree_depth=1.0), CFG)
    assert actions[row, 0] == 3 and nodes == 1 and visits.sum() == 0
    assert next_draw() == expected, "no world sampled, no random draw"


@pytest.mark.parametrize("policy_seat", ["rollout", "opponent_model"])
def test_a_planted_policy_plays_the_rollouts_of_its_seats_with_its_own_parameters(policy_seat):
    """FIXED (always row params[0]) as the rollout policy plays only the searching seat's rollout choices, as the
    opponent model only the other seat's, and with the numbers of its vector in the search player's (a preset's
    parameters, not its defaults): every rollout choice it makes is the planted row."""
    obs, _, actions, n = position(13, (0, 2, 1, 1), rival_hand=4)
    other = {"rollout": "opponent_model", "opponent_model": "rollout"}[policy_seat]
    planted = np.zeros(MAX_PARAMS)
    planted[0] = 1.0  # row 1: the second smallest card held
    row = params(iterations=30.0, **{"rollout": RANDOM}, **({"rollout_row": planted} if policy_seat == "rollout"
                                                             else {"model_row": planted}))
    row[S.P_ROLLOUT if policy_seat == "rollout" else S.P_OPPONENT_MODEL] = FIXED
    row[S.P_ROLLOUT if other == "rollout" else S.P_OPPONENT_MODEL] = RANDOM
    cfg = np.concatenate([CFG, np.zeros(2 + T.MAX_ACTIONS, CFG.dtype)])
    seed(4)
    SEARCH(obs, actions, n, row, cfg)
    by_seat, by_row = cfg[SEEN: SEEN + 2], cfg[SEEN + 2:]
    mine = policy_seat == "rollout"
    assert by_seat[0 if mine else 1] > 30 and by_seat[1 if mine else 0] == 0, by_seat
    assert by_row[1] == by_seat.sum() and by_row[0] == by_row[2] == 0, by_row
    cfg[SEEN:] = 0
    row[POLICY_AT if mine else MODEL_AT] = 0.0  # the same policy with another parameter: row 0
    seed(4)
    SEARCH(obs, actions, n, row, cfg)
    assert cfg[SEEN + 2] == cfg[SEEN: SEEN + 2].sum() > 30 and cfg[SEEN + 3] == 0


def test_a_vector_narrower_than_a_search_players_is_refused():
    obs, _, actions, n = position(9, (0, 1, 1, 0))
    with pytest.raises(ValueError, match="SEARCH_WIDTH"):
        search(obs, actions, n, params(iterations=8.0)[:MAX_PARAMS])


MIX_AT = T.P_QUARTER + 1  # the toy's vector: opponent_alt and alt_share after its own parameter
_, SEARCH_MIXED = S.bind_search("toy_mixed", T, T.determinize, 2, evaluate=T.evaluate, mix_at=MIX_AT)
S.connect_rollouts(SEARCH_MIXED, "toy_mixed", T, toy_choose, ROLLOUT_PARAMS)


def test_the_alternative_model_plays_the_other_seat_in_the_share_of_worlds_it_is_given():
    """FIXED (at its default row, ROLLOUT_PARAMS' zeros: row 0) as `opponent_alt`, the model RANDOM: with share 1
    every rollout choice of the other seat is FIXED's and none of the searching seat's; with share 0 none; with
    0.5 some, fewer than with 1 (one draw per sampled world, the same worlds from the same seed)."""
    obs, _, actions, n = position(13, (0, 2, 1, 1), rival_hand=4)
    counts = {}
    for share in (0.0, 0.5, 1.0):
        row = params(iterations=40.0)
        row[MIX_AT], row[MIX_AT + 1] = FIXED, share
        cfg = np.concatenate([CFG, np.zeros(2 + T.MAX_ACTIONS, CFG.dtype)])
        seed(4)
        SEARCH_MIXED(obs, actions, n, row, cfg)
        by_seat, by_row = cfg[SEEN: SEEN + 2], cfg[SEEN + 2:]
        assert by_seat[0] == 0 and by_row[0] == by_seat[1] == by_row.sum(), (share, by_seat, by_row)
        counts[share] = by_seat[1]
    assert counts[0.0] == 0 and 0 < counts[0.5] < counts[1.0] and counts[1.0] > 40, counts
    row = params(iterations=8.0)
    row[MIX_AT], row[MIX_AT + 1] = FIXED, 1.5
    with pytest.raises(ValueError, match="alt_share"):
        SEARCH_MIXED(obs, actions, n, row, CFG)
