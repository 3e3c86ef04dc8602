"""Whole rounds as traced event streams: the rules hold action after action, and strategies play well."""
import numpy as np
import pytest

from mohur_helpers import make_cfg, play_batch
from sim.mohur.config import GOODS
from sim.mohur.trace import trace
from sim.registry import choices

DEFAULT = make_cfg()
PAIRS = [("greedy", "random", 1), ("random", "random", 2), ("hoarder", "setbuilder", 3), ("racer", "greedy", 4),
         ("random", "hoarder", 5), ("setbuilder-patient", "racer-precious", 6)]


def events(a, b, seed, cfg=DEFAULT):
    return list(trace(cfg, 2, choices("mohur", cfg.presets, [a, b]), seed))


@pytest.mark.parametrize("a,b,seed", PAIRS)
def test_rules_hold_along_traced_matches(a, b, seed):
    evs = events(a, b, seed)
    limit, size = DEFAULT.raw["rules"]["hand_limit"], DEFAULT.raw["rules"]["market_size"]
    for i, e in enumerate(evs):
        if e["event"] == "round_start":
            assert sum(e["market"].values()) == size and e["market"]["coin"] >= 3
            assert e["deck"] == 40
        if e["event"] != "action":
            continue
        st = e["state"]
        empty = sum(1 for g in GOODS if not st["tokens"][g])
        ends = evs[i + 1]["event"] == "round_end"
        # the round ends exactly when 3 stacks are empty or the deck is out, right after that action
        assert ends == (empty >= 3 or st["deck"] == 0), f"event {i}: empty={empty} deck={st['deck']} ends={ends}"
        if ends:
            assert evs[i + 1]["reason"] == ("stacks" if empty >= 3 else "deck")
        # the market is refilled to 5 whenever the deck has cards
        if st["deck"] > 0:
            assert sum(st["market"].values()) == size
        for p in (0, 1):
            assert sum(st["hands"][p].values()) <= limit
        act = e["action"]
        assert act["type"] != "pass", "with the default components a trader always has a legal action"
        if act["type"] == "sell":
            assert act["count"] >= (2 if act["good"] in ("diamond", "gold", "silver") else 1)
            assert act["gained"]["tokens"] == sorted(act["gained"]["tokens"], reverse=True)
            assert (act["gained"]["bonus"] is not None) <= (act["count"] >= 3)
        if act["type"] == "exchange":
            assert "coin" not in act["take"]
            assert sum(act["take"].values()) == sum(act["give"].values()) >= 2
            assert not set(act["take"]) & set(act["give"])
    # seats alternate and turns count up within a round
    last = None
    for e in evs:
        if e["event"] == "round_start":
            last = (e["starter"], 0)
            assert e["round"] == 1 or e["starter"] == (1 - prev_winner if prev_winner is not None else 1 - prev_start)
            prev_start = e["starter"]
        elif e["event"] == "action":
            exp_seat = last[0] if last[1] == 0 else 1 - last[0]
            assert e["seat"] == exp_seat and e["turn"] == last[1] + 1
            last = (e["seat"], e["turn"])
        elif e["event"] == "round_end":
            prev_winner = e["winner"]


@pytest.mark.parametrize("strategy", ["greedy", "setbuilder", "racer", "hoarder"])
def test_strategy_beats_random(strategy):
    lu, games, _ = play_batch(DEFAULT, [strategy, "random"], 300, 2024)
    seat = np.where(lu[:, 0] == 0, 0, 1)  # the seat the strategy sits in
    rate = float(np.mean(games["winner"] == seat))
    assert rate > 0.7, f"{strategy} wins only {rate:.2f} of matches against random"
