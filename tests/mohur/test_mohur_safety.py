"""Safety rules of the simulator (stall, turn cap) and the debug-mode invariants."""
import itertools

import numpy as np
import pytest

from mohur_helpers import COIN, CLOTH, E, build_state, make_cfg, play_batch, reach_state
from sim.registry import registered

DEFAULT = make_cfg()
V = DEFAULT.vector
STRATEGIES = [d.name for d in registered("mohur")]
# search players (e.g. ismcts) are orders of magnitude slower: the big batches use the others
FAST = [d.name for d in registered("mohur") if not getattr(d, "search", False)]

# Only diamonds (unsellable: min sale 50) and the 3 setup coins; hands and market of 1 and 3. The starter's only
# legal action is to take the coins; then the market is 3 diamonds, both hands hold 1 diamond at the limit of
# 1, and nobody can pay for an exchange without breaking the limit: pass, pass.
STALL = ("cards.gold=0", "cards.silver=0", "cards.cloth=0", "cards.spice=0", "cards.leather=0",
         "cards.diamond=20", "cards.coin=3", "rules.market_size=3", "rules.hand_size=1", "rules.hand_limit=1",
         "min_sale.diamond=50")


def test_pass_and_stall_on_hand_built_state():
    s = build_state(V, market_cards=(0, 0, 0, 5, 0, 0, 0), hands=((0, 0, 0, 0, 0, 0, 0), (0,) * 7), deck=[3] * 5)
    v = make_cfg("rules.hand_limit=1", "rules.hand_size=1").vector
    s[E.S_HAND + 0] = 1  # a single diamond: not sellable, the hand is at the limit, no coins anywhere
    s[E.S_HAND + 7 + 0] = 1
    assert E.enumerate_actions(s, v, 0, np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)) == 0
    E.pass_turn(s, v)
    assert not E.round_over(s) and s[E.S_CUR] == 1 and s[E.S_TURN] == 1
    E.pass_turn(s, v)
    assert s[E.S_END] == E.END_STALLED


def test_an_action_resets_the_pass_count():
    s = build_state(V, market_cards=(0, 0, 0, 5, 0, 0, 0), hands=((0, 0, 0, 1, 0, 0, 0), (0,) * 7), deck=[3] * 5)
    E.pass_turn(s, V)
    buf = np.zeros((E.MAX_ACTIONS, E.ACOLS), np.int32)
    E.enumerate_actions(s, V, 1, buf)
    E.play_row(s, V, 1, buf, 0)
    assert s[E.S_PASSES] == 0
    E.pass_turn(s, V)
    assert not E.round_over(s), "passes must be consecutive to stall the round"


@pytest.mark.parametrize("passes", [2, 3])
def test_stalled_rounds_in_kernel(passes):
    cfg = make_cfg(*STALL, f"rules.stall_passes={passes}")
    _, games, rounds = play_batch(cfg, ["greedy", "random"], 40, 3, debug=True)
    assert (rounds["end_reason"] == E.END_STALLED).all()
    assert (rounds["turns"] == 1 + passes).all()
    # the coin token decides each round for the trader who took the coins: the starter
    assert np.array_equal(rounds["winner"], rounds["starter"])
    assert (rounds["coin_token"] == rounds["starter"]).all()
    assert (games["winner"] >= 0).all()


def test_turn_cap_in_kernel():
    cfg = make_cfg("rules.turn_cap=7")
    _, games, rounds = play_batch(cfg, ["random", "random"], 100, 4, debug=True)
    assert (rounds["turns"] <= 7).all()
    capped = rounds["end_reason"] == E.END_TURN_CAP
    assert capped.mean() > 0.9
    assert (rounds["turns"][capped] == 7).all()
    assert (games["winner"] >= -1).all() and len(games["winner"]) == 100


def test_no_safety_endings_on_defaults():
    n = len(FAST) * (len(FAST) + 1) // 2 * 20
    _, _, rounds = play_batch(DEFAULT, FAST, n, 8)
    assert set(np.unique(rounds["end_reason"])) <= {E.END_STACKS, E.END_DECK}
    assert (rounds["turns"] < int(V[E.CFG_TURN_CAP])).all()


# ------------------------------------------------------------------ invariants


VARIANT = ("rules.market_size=6", "rules.market_coins=2", "rules.hand_limit=5", "rules.min_exchange=3",
           "rules.empty_stacks_to_end=2", "rules.seals_to_win=3", "tokens.cloth=[9, 2]", "bonus.4=[]")


@pytest.mark.parametrize("sets,seed", [((), 1), (VARIANT, 7), (VARIANT, 8)])  # defaults: tests/test_every_game.py
def test_debug_batches_over_all_pairings(sets, seed):
    cfg = make_cfg(*sets)
    n = len(list(itertools.combinations_with_replacement(FAST, 2))) * 2 * 8  # every pairing, both ways
    lu, games, rounds = play_batch(cfg, FAST, n, seed, debug=True)
    pairs = {tuple(x) for x in lu}
    assert pairs == set(itertools.product(range(len(FAST)), repeat=2))
    assert len(games["match"]) == n and (games["rounds"] >= 1).all()


@pytest.mark.parametrize("sets", [(), VARIANT])
def test_debug_batch_with_every_registered_strategy(sets):
    """Search players too (one match per ordered pairing: they are slow)."""
    cfg = make_cfg(*sets)
    n = len(list(itertools.combinations_with_replacement(STRATEGIES, 2))) * 2
    lu, games, rounds = play_batch(cfg, STRATEGIES, n, 99, debug=True)
    assert {tuple(x) for x in lu} == set(itertools.product(range(len(STRATEGIES)), repeat=2))
    assert (games["rounds"] >= 1).all()


def corruptions():
    def extra_card(s, v):
        s[E.S_HAND + CLOTH] += 1

    def lost_market_card(s, v):
        s[E.S_MARKET + COIN] -= 1

    def over_limit(s, v):
        v[E.CFG_HAND_LIMIT] = 0

    def token_rupees(s, v):
        s[E.S_TOKPOS + CLOTH] += 1
        s[E.S_GCNT] += 1  # the count is right, the rupees are missing

    def token_count(s, v):
        s[E.S_GCNT + 1] += 1

    def bonus_count(s, v):
        s[E.S_BPOS + 2] += 1

    def market_overfull(s, v):
        s[E.S_MARKET + COIN] += 1
        v[E.CFG_CARDS + COIN] += 1  # cards still conserved: only the market size is broken

    def unsorted_stack(s, v):
        v[E.CFG_TOK + CLOTH * E.MAX_TOK + 1] = 9

    def overdrawn_stack(s, v):
        s[E.S_TOKPOS + CLOTH] = int(v[E.CFG_NTOK + CLOTH]) + 1

    return [extra_card, lost_market_card, over_limit, token_rupees, token_count, bonus_count, market_overfull,
            unsorted_stack, overdrawn_stack]


@pytest.mark.parametrize("corrupt", corruptions(), ids=lambda f: f.__name__)
def test_check_invariants_raises_on_corrupted_state(corrupt):
    s, _ = reach_state(V, 17, 25)
    v = V.copy()
    E.check_invariants(s, v)  # the uncorrupted state passes
    corrupt(s, v)
    with pytest.raises(AssertionError, match="invariant"):
        E.check_invariants(s, v)


def test_check_invariants_passes_along_random_play():
    for seed in range(20):
        for steps in (0, 10, 40, 200):
            s, _ = reach_state(V, seed, steps, 0.5)
            E.check_invariants(s, V)
