"""One test per rule of the rulebook and per DEFAULT of the rules page, set up through the engine."""
import numpy as np
import pytest

from sim.mughal import engine as E, kernel as K
from sim.mughal.config import SUITS
from sim.registry import HEURISTIC_ONLY
from mughal_helpers import bare_state, card, lineup_args, make_cfg, play_until

M, B, C_, W = 1, 2, 4, 8


def score(cfg, s):
    sc = np.zeros(E.SC_SIZE, dtype=np.int32)
    E.score_turn(s, cfg.vector, sc)
    return sc


def test_pass_direction_alternates(cfg4):
    s = bare_state(cfg4, 4, turn=0)
    for turn, shift in ((1, 1), (2, -1), (3, 1)):
        E.begin_turn(s, cfg4.vector)
        assert s[E.S_TURN] == turn
        before = [tuple(s[E.S_HAND + E.MAX_HAND * p: E.S_HAND + E.MAX_HAND * p + 5]) for p in range(4)]
        E.pass_hands(s, cfg4.vector)
        for p in range(4):
            q = (p + shift) % 4
            assert tuple(s[E.S_HAND + E.MAX_HAND * q: E.S_HAND + E.MAX_HAND * q + 5]) == before[p]
            assert s[E.S_HORIG + q] == p and (s[E.S_SEEN + q] >> p) & 1
        E.end_turn(s, cfg4.vector)
        s[E.S_HLEN: E.S_HLEN + 4] = 0


def test_pass_direction_config():
    cfg = make_cfg(4, ("rules.pass_direction=\"right\"",))
    s = bare_state(cfg, 4, turn=1)
    assert E.direction(s, cfg.vector) == -1


def _play_turns(cfg, s, n, players):
    for _ in range(n):
        E.begin_turn(s, cfg.vector)
        for p in range(players):  # place every hand card as-is, to reach the end phase
            while s[E.S_HLEN + p] > 0:
                c = s[E.S_HAND + E.MAX_HAND * p]
                mask = cfg.vector[E.CFG_CARD_MASK + c]
                E.place(s, cfg.vector, p, 0, E.only_suit(mask))
        for p in range(players):
            for i in range(s[E.S_TLEN + p]):
                if s[E.S_TSUIT + E.MAX_TABLE * p + i] == E.UNDECLARED:
                    c = s[E.S_TABLE + E.MAX_TABLE * p + i]
                    E.declare(s, cfg.vector, p, i, E.only_suit(cfg.vector[E.CFG_CARD_MASK + c]))
        E.check_invariants(s, cfg.vector)
        E.end_turn(s, cfg.vector)


def test_ages_open_with_the_discard(cfg4):
    v = cfg4.vector
    s = bare_state(cfg4, 4, turn=0, seed=3)
    _play_turns(cfg4, s, 2, 4)
    assert s[E.S_OPENED] == 0
    in_deck = {int(s[E.S_DECK + i]) for i in range(s[E.S_DECKLEN])}
    assert all(v[E.CFG_CARD_AGE + c] == 0 for c in in_deck)          # turns 1-2: Early cards only
    assert s[E.S_DISCLEN] == 56 - s[E.S_DECKLEN]
    E.begin_turn(s, v)                                             # turn 3 opens Middle
    assert s[E.S_OPENED] == 1 and s[E.S_DISCLEN] == 0
    assert s[E.S_DECKLEN] + 28 == 56 + 28                          # discard + Middle shuffled in, 28 dealt
    E.check_invariants(s, v)
    E.end_turn(s, v)
    s[E.S_HLEN: E.S_HLEN + 4] = 0
    _play_turns(cfg4, s, 0, 4)
    E.begin_turn(s, v)                                             # turn 4: still Middle
    assert s[E.S_OPENED] == 1
    E.end_turn(s, v)
    s[E.S_HLEN: E.S_HLEN + 4] = 0
    E.begin_turn(s, v)                                             # turn 5 opens Late
    assert s[E.S_OPENED] == 2 and s[E.S_DISCLEN] == 0


@pytest.mark.parametrize("skipped", ["default", "shuffled_in"])
def test_a_track_that_skips_an_age_brings_only_that_ages_cards(skipped):
    # rules page: "When a turn that opens an age starts ..., that age's cards and the whole discard pile are
    # shuffled into the deck" (DEFAULT rules.skipped_ages = "left_out"); "shuffled_in" brings the skipped ones too
    sets = ('emperors.3.age="late"', 'emperors.4.age="late"')
    if skipped != "default":
        sets += (f'rules.skipped_ages="{skipped}"',)
    cfg = make_cfg(4, sets)
    v = cfg.vector
    s = bare_state(cfg, 4, turn=0, seed=3)
    _play_turns(cfg, s, 2, 4)
    E.begin_turn(s, v)                                             # turn 3 opens Late
    ages = [int(v[E.CFG_CARD_AGE + c]) for c in range(v[E.CFG_NCARDS])]
    dealt = {int(s[E.S_DECK + i]) for i in range(s[E.S_DECKLEN])}
    dealt |= {int(s[E.S_TABLE + E.MAX_TABLE * p + i]) for p in range(4) for i in range(s[E.S_TLEN + p])}
    dealt |= {int(s[E.S_HAND + E.MAX_HAND * p + i]) for p in range(4) for i in range(s[E.S_HLEN + p])}
    middle = {c for c in range(len(ages)) if ages[c] == 1}
    late = {c for c in range(len(ages)) if ages[c] == 2}
    assert late <= dealt
    assert (middle & dealt) == (middle if skipped == "shuffled_in" else set())
    assert len(dealt) == 56 + 28 + (28 if skipped == "shuffled_in" else 0)
    E.check_invariants(s, v)


def test_eight_players_reshuffle_the_discard_when_the_deck_runs_out():
    cfg = make_cfg(8)
    s = bare_state(cfg, 8, turn=0, seed=1)
    _play_turns(cfg, s, 1, 8)      # turn 1 deals all 56 Early cards
    assert s[E.S_DECKLEN] == 0 and s[E.S_RESHUFFLES] == 0
    E.begin_turn(s, cfg.vector)   # turn 2: the discard becomes the deck
    assert s[E.S_RESHUFFLES] == 1
    E.check_invariants(s, cfg.vector)


@pytest.mark.parametrize("players", [2, 8])
def test_deal_destiny_face_up_and_a_hand_of_five(players):
    cfg = make_cfg(players)
    s = bare_state(cfg, players, turn=0, seed=2)
    E.begin_turn(s, cfg.vector)
    E.check_invariants(s, cfg.vector)
    for p in range(players):
        assert s[E.S_TLEN + p] == 2 and s[E.S_HLEN + p] == 5
    assert s[E.S_DECKLEN] == 56 - 7 * players


def test_two_suit_destiny_card_waits_for_its_owner_to_declare(cfg4):
    v = cfg4.vector
    s = bare_state(cfg4, 4)
    mb = card(cfg4, M | B, 2)
    E.to_table(s, cfg4.vector, 0, mb, E.UNDECLARED)
    assert s[E.S_TOT] == 0 and s[E.S_UNDECL] == 1
    s[E.S_STEP] = 0
    E.start_round(s)
    assert E.current_player(s) == 0
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    n = E.legal_actions(s, v, actions)
    assert n == 2 and set(actions[:n, E.A_SUIT]) == {0, 1}
    E.apply_action(s, v, actions, 1)   # the only declaration of the round: resolved at once
    assert s[E.S_TOT + 1] == 2 and s[E.S_UNDECL] == 0
    assert s[E.S_STEP] == 1   # nothing left to declare: the first action step


def test_two_suit_hand_card_declared_when_placed(cfg4):
    v = cfg4.vector
    s = bare_state(cfg4, 4)
    s[E.S_HAND] = card(cfg4, C_ | W, 2)
    s[E.S_HAND + 1] = card(cfg4, 0)
    s[E.S_HLEN] = 2
    s[E.S_STEP] = 1
    E.start_round(s)
    actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
    n = E.legal_actions(s, v, actions)
    assert sorted(actions[:n, E.A_SUIT].tolist()) == [-1, 2, 3]
    E.apply_action(s, v, actions, 1)   # wealth, pending until the round's last seat has chosen
    assert s[E.S_TOT + 3] == 0 and s[E.S_HLEN] == 2 and E.current_player(s) == 1
    E.resolve_round(s, v)
    assert s[E.S_TOT + 3] == 2 and s[E.S_HLEN] == 1


def test_majority_two_vt_and_ties_one_each(cfg4):
    s = bare_state(cfg4, 4)
    E.to_table(s, cfg4.vector, 0, card(cfg4, M, 3), 0)
    E.to_table(s, cfg4.vector, 1, card(cfg4, M, 2), 0)
    b2 = card(cfg4, B, 2)
    E.to_table(s, cfg4.vector, 1, b2, 1)
    E.to_table(s, cfg4.vector, 2, card(cfg4, B, 2, skip=(b2,)), 1)
    sc = score(cfg4, s)
    assert sc[E.SC_MAJ + 0] == 2 and sc[E.SC_MAJ + 1] == 1 and sc[E.SC_MAJ + 2] == 1 and sc[E.SC_MAJ + 3] == 0
    assert sc[E.SC_MARGIN + 0] == 1 and sc[E.SC_MARGIN + 1] == 0 and sc[E.SC_TOPN + 1] == 2
    assert sc[E.SC_MARGIN + 2] == -1   # nobody holds culture


def test_majority_vt_values_are_configuration():
    cfg = make_cfg(4, ("rules.majority_vt=5", "rules.majority_tie_vt=3"))
    s = bare_state(cfg, 4)
    E.to_table(s, cfg.vector, 0, card(cfg, M, 3), 0)
    w1 = card(cfg, W, 1)
    E.to_table(s, cfg.vector, 1, w1, 3)
    E.to_table(s, cfg.vector, 2, card(cfg, W, 1, skip=(w1,)), 3)
    sc = score(cfg, s)
    assert sc[E.SC_MAJ + 0] == 5 and sc[E.SC_MAJ + 1] == 3 and sc[E.SC_MAJ + 2] == 3


def test_a_total_of_zero_never_scores():
    cfg = make_cfg(4, ("deck.1.level=0",))  # M level-0 cards
    s = bare_state(cfg, 4)
    E.to_table(s, cfg.vector, 0, card(cfg, M, 0), 0)
    sc = score(cfg, s)
    assert sc[E.SC_MAJ + 0] == 0 and sc[E.SC_MARGIN] == -1
    cfg2 = make_cfg(4, ("deck.1.level=0", "rules.zero_total_scores=true"))
    s = bare_state(cfg2, 4)
    E.to_table(s, cfg2.vector, 0, card(cfg2, M, 0), 0)
    assert score(cfg2, s)[E.SC_MAJ + 0] == 2


def test_all_four_suits_bonus(cfg4):
    s = bare_state(cfg4, 4)
    for k in range(4):
        E.to_table(s, cfg4.vector, 0, card(cfg4, 1 << k, 1), k)
    for k in range(3):
        E.to_table(s, cfg4.vector, 1, card(cfg4, 1 << k, 1, skip=(card(cfg4, 1 << k, 1),)), k)
    sc = score(cfg4, s)
    assert sc[E.SC_ALL + 0] == 2 and sc[E.SC_ALL + 1] == 0


def test_emperors_favoured_suits_bonus_and_ages(cfg4):
    masks = [m for _, _, m, _ in cfg4.emperors]
    assert masks == [M, 15, B | M, 15, B, C_ | M, 15]
    assert [b for _, b, _, _ in cfg4.emperors] == [7, 3, 5, 3, 7, 5, 3]
    assert [a for _, _, _, a in cfg4.emperors] == [0, 0, 1, 1, 2, 2, 2]
    for turn, mask in enumerate(masks, 1):
        bonus = cfg4.emperors[turn - 1][1]
        for k in range(4):
            s = bare_state(cfg4, 4, turn)
            E.to_table(s, cfg4.vector, 0, card(cfg4, 1 << k, 3), k)    # seat 0: level 3 in suit k
            E.to_table(s, cfg4.vector, 1, card(cfg4, 1 << ((k + 1) % 4), 1), (k + 1) % 4)
            assert score(cfg4, s)[E.SC_EMP + 0] == (bonus if mask & (1 << k) else 0), (turn, SUITS[k])


@pytest.mark.parametrize("rule,expected", [("half_floor", 3), ("full", 7), ("none", 0)])
def test_emperor_tie_rule(rule, expected):
    cfg = make_cfg(4, (f"rules.emperor_tie=\"{rule}\"",))
    s = bare_state(cfg, 4, turn=1)   # Babur: 7 for Military
    m2 = card(cfg, M, 2)
    E.to_table(s, cfg.vector, 0, m2, 0)
    E.to_table(s, cfg.vector, 1, card(cfg, M, 2, skip=(m2,)), 0)
    sc = score(cfg, s)
    assert sc[E.SC_EMP + 0] == expected and sc[E.SC_EMP + 1] == expected and sc[E.SC_EMP_WINNERS] == 2


def test_emperor_favoured_total_of_zero_never_wins(cfg4):
    s = bare_state(cfg4, 4, turn=5)   # Jahan: Building only
    E.to_table(s, cfg4.vector, 0, card(cfg4, M, 3), 0)
    sc = score(cfg4, s)
    assert sc[E.SC_EMP_WINNERS] == 0 and sc[E.SC_EMP + 0] == 0


def test_disaster_penalty_can_go_below_zero(cfg4):
    s = bare_state(cfg4, 4)
    d = card(cfg4, 0)
    E.to_table(s, cfg4.vector, 0, d, E.DISASTER)
    E.to_table(s, cfg4.vector, 0, card(cfg4, 0, skip=(d,)), E.DISASTER)
    sc = score(cfg4, s)
    assert sc[E.SC_DIS + 0] == -2 and s[E.S_VT] == -2
    cfg = make_cfg(4, ("rules.disaster_vt=-3",))
    s = bare_state(cfg, 4)
    E.to_table(s, cfg.vector, 0, card(cfg, 0), E.DISASTER)
    assert score(cfg, s)[E.SC_DIS] == -3


def test_end_phase_discards_and_removes_uniques(cfg4):
    s = bare_state(cfg4, 4, turn=3)
    u = card(cfg4, M, 6, unique=1)
    n = card(cfg4, M, 3)
    E.to_table(s, cfg4.vector, 0, u, 0)
    E.to_table(s, cfg4.vector, 1, n, 0)
    E.end_turn(s, cfg4.vector)
    assert s[E.S_REMLEN] == 1 and s[E.S_REM] == u
    assert s[E.S_DISCLEN] == 1 and s[E.S_DISC] == n
    assert s[E.S_TLEN] == 0 and s[E.S_TOT] == 0


def test_most_vt_wins_and_ties_share(cfg4):
    share = np.zeros(8)
    s = bare_state(cfg4, 4)
    s[E.S_VT: E.S_VT + 4] = [5, 9, 9, 1]
    E.returns(s, cfg4.vector, share)
    assert E.winners(s) == (-1, 2) and share[1] == share[2] == 0.5 and share[0] == 0
    s[E.S_VT: E.S_VT + 4] = [5, 9, 8, 1]
    E.returns(s, cfg4.vector, share)
    assert E.winners(s) == (1, 1) and share[1] == 1.0
    cfg = make_cfg(4, ("rules.final_tie=\"none\"",))
    s[E.S_VT: E.S_VT + 4] = [5, 9, 9, 1]
    E.returns(s, cfg.vector, share)
    assert share[:4].sum() == 0


def test_memory_of_passed_hands_and_hidden_hands(cfg4):
    v = cfg4.vector
    s = bare_state(cfg4, 4, turn=0, seed=4)
    E.begin_turn(s, v)
    obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
    E.observe(s, v, 0, obs)
    known = [obs[E.O_SEATS + E.SB * q + E.B_KNOWN] for q in range(4)]
    assert known == [1, 0, 0, 0]
    assert obs[E.O_SEATS + E.SB * 1 + E.B_HMASK: E.O_SEATS + E.SB * 1 + E.B_HLEVEL].sum() == 0
    E.pass_hands(s, v)   # turn 1: seat 0's hand goes to seat 1
    E.observe(s, v, 0, obs)
    known = [obs[E.O_SEATS + E.SB * q + E.B_KNOWN] for q in range(4)]
    assert known == [1, 1, 0, 0]
    c = s[E.S_HAND + E.MAX_HAND * 1]
    assert obs[E.O_SEATS + E.SB * 1 + E.B_HMASK] == v[E.CFG_CARD_MASK + c]


def test_choices_are_simultaneous(cfg4):
    """Each seat's greedy pick is a best pick against the tables as they stood before the step."""
    from strategies.mughal._features import greedy_score, seat_now
    v = cfg4.vector
    lin, base, params = lineup_args(cfg4, ["greedy"], 4, 1)
    params[:, 0] = 0.0
    sids, params = base[lin[0]], params[lin[0]]
    for seed in range(6):
        s = E.new_state()
        E.new_game(s, v, 4, seed, 0)
        play_until(cfg4, s, sids, params, lambda s: s[E.S_STEP] == 1)   # the declarations
        obs = np.zeros(E.OBS_SIZE, dtype=np.int32)
        actions = np.zeros((E.MAX_ACTIONS, E.ACOLS), dtype=np.int32)
        best = []
        for p in range(4):
            t = s.copy()
            t[E.S_CUR] = p
            n = E.legal_actions(t, v, actions)
            E.observe(t, v, p, obs)
            seat = seat_now(obs, v, p)
            sc = np.array([greedy_score(obs, v, actions, a, seat, 0.0) for a in range(n)])
            best.append({(int(actions[a, E.A_SUIT]), int(actions[a, E.A_LEVEL]))
                         for a in range(n) if sc[a] >= sc.max() - 1e-9})
        log = np.zeros((4, K.LOG_ACTION + E.ACOLS), dtype=np.int32)
        K.play(s, v, sids, params, obs, actions, np.zeros(params.shape[1]), HEURISTIC_ONLY, True, 4, log,
               np.zeros((0, E.STATE_SIZE), dtype=np.int32))
        assert s[E.S_STEP] == 2 and log[:, K.LOG_PLAYER].tolist() == [0, 1, 2, 3]
        for p in range(4):
            row = log[p, K.LOG_ACTION:]
            assert (int(row[E.A_SUIT]), int(row[E.A_LEVEL])) in best[p]
