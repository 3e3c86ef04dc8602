"""Whole games through the kernel: invariants, strategies, configuration, trace, results (determinism and
invariants under random play for every game: tests/test_every_game.py)."""
import json

import numpy as np

from sim.rng import batch_seeds
import pytest

from muziris_helpers import rotating_lineup
from sim.config import build
from sim.errors import ConfigError
from sim.muziris import GAME, engine as E
from sim.muziris.config import validate
from sim.muziris.kernel import run_batch
from sim.registry import choices
from strategy_params import lone_seat, strategy_arrays

NAMES = ["random", "greedy", "collector", "grabber", "endgame", "blocker"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_invariants_debug_all_strategies(players):
    cfg = validate(build("sim.muziris"), players)
    base, params = strategy_arrays("muziris", cfg.presets, NAMES)
    out = run_batch(cfg, players, rotating_lineup(120, players, len(NAMES)), base, params, 11 + players, True)
    g, p = out["games"], out["players"]
    assert len(g["game"]) == 120 and len(p["game"]) == 120 * players
    assert np.allclose(np.bincount(p["game"], weights=p["win_share"]), 1.0)
    total = p["coins_orders"] + p["coins_characters"] + p["coins_abilities"] + p["coins_setup"] + \
        p["coins_condition"]
    assert (total == p["coins"]).all()
    orders = sum(p[f"coins_order_{name}"] for name in cfg.produce)
    assert (orders == p["coins_orders"]).all()
    assert set(np.unique(g["end_reason"])) <= {E.END_TRIGGER, E.END_ROUND_CAP}


@pytest.mark.parametrize("name", NAMES[1:])
def test_heuristics_beat_random(name):
    rate = lone_seat("muziris", validate(build("sim.muziris"), 3), 3, [name, "random"], 300, 5)["win_share"].mean()
    assert rate > 0.6, f"{name} won only {rate:.2f} against two random players"


def test_aggregate_tables_and_coin_flag():
    cfg = validate(build("sim.muziris"), 3)
    base, params = strategy_arrays("muziris", cfg.presets, ["greedy"])
    out = run_batch(cfg, 3, np.zeros((200, 3), dtype=np.int64), base, params, 3, False)
    g = out["games"]
    assert (g["coins_short"] == (g["peak_coins"] > 205)).all()
    ch = out["characters"]
    assert ch["picks"].sum() == g["uses"].sum() == out["picks"]["count"].sum()
    standard = [i for i, n in enumerate(cfg.characters) if n in ("advisor", "customer", "merchant")]
    assert (ch["games_in_play"][standard] == 200).all() and ch["games_in_play"].sum() == 200 * 5
    assert out["orders"]["count"].sum() == out["players"]["orders"].sum()
    raw = build("sim.muziris")
    raw["rules"]["boxed_coins"] = 0
    out0 = run_batch(validate(raw, 3), 3, np.zeros((20, 3), dtype=np.int64), base, params, 3, False)
    assert out0["games"]["coins_short"].all()


def test_designer_can_reassign_abilities():
    raw = build("sim.muziris")
    raw["characters"]["merchant"]["action"] = ["gain 3", "draw 1"]
    raw["produce"]["banana"]["ability"] = ["coins_per_order 2 10"]
    raw["conditions"] = {"only": {"trigger": "never", "threshold": 0, "scoring": "per_hand_card",
                                  "amount": 2, "at_least": 1}}
    raw["rules"]["round_cap"] = 5
    cfg = validate(raw, 3)
    base, params = strategy_arrays("muziris", cfg.presets, ["greedy", "random"])
    out = run_batch(cfg, 3, rotating_lineup(50, 3, 2), base, params, 1, True)
    assert (out["games"]["rounds"] == 5).all() and (out["games"]["end_reason"] == E.END_ROUND_CAP).all()
    assert out["players"]["coins_abilities"].sum() > 0


@pytest.mark.parametrize("key,value,match", [
    ("produce.banana.cards", -1, "produce.banana.cards"),
    ("produce.banana.values", [1, 2], "produce.banana.values"),
    ("produce.banana.values", [1, 2, 1_000_001], "every value must be <= 1000000"),  # the observation's int32 table
    ("produce.banana.ability", ["fly 2"], "unknown effect kind"),
    ("produce.banana.ability", ["market_ability"], "characters only"),
    ("produce.banana.ability", ["draw x"], "produce.banana.ability"),
    ("characters.merchant.standard", "yes", "characters.merchant.standard"),
    ("conditions.monsoon.trigger", "rain", "conditions.monsoon.trigger"),
    ("conditions.monsoon.scoring", "most", "conditions.monsoon.scoring"),
    ("rules.hand_limit", -2, "rules.hand_limit"),
    ("rules.first_player", 7, "rules.first_player"),
    ("rules.condition", "drought", "rules.condition"),
    ("rules.final_round_reuse", 1, "rules.final_round_reuse"),
    ("rules.reshuffle", "later", "rules.reshuffle"),
    ("rules.take_up_to", "all", "rules.take_up_to"),
    ("rules.bonus_without_order", 1, "rules.bonus_without_order"),
])
def test_config_errors(key, value, match):
    raw = build("sim.muziris")
    node = raw
    *path, last = key.split(".")
    for part in path:
        node = node[part]
    node[last] = value
    with pytest.raises(ConfigError, match=match.replace("(", r"\(")):
        validate(raw, 3)


def test_largest_produce_value_is_accepted_and_plays_in_debug_mode():
    raw = build("sim.muziris")
    raw["produce"]["banana"]["values"] = [1, 2, 1_000_000]
    cfg = validate(raw, 3)
    out = run_batch(cfg, 3, rotating_lineup(6, 3, 1), *strategy_arrays("muziris", cfg.presets, ["greedy"]), 1, True)
    assert len(out["games"]["rounds"]) == 6


def test_config_errors_structural():
    raw = build("sim.muziris")
    for name in ("banana", "cucumber", "coconut", "mango", "ginger", "cinnamon"):
        raw["produce"][name]["cards"] = 0
    raw["produce"]["cardamom"]["cards"] = 1
    raw["produce"]["pepper"]["cards"] = 1
    with pytest.raises(ConfigError, match="to set up the largest game"):
        validate(raw, 3)
    raw = build("sim.muziris")
    for name in ("beggar", "farmer", "captain"):
        del raw["characters"][name]
    with pytest.raises(ConfigError, match="special characters"):
        validate(raw, 4)
    validate(raw, 3)  # two specials are enough for three players
    raw = build("sim.muziris")
    raw["rules"]["colour"] = "red"
    with pytest.raises(ConfigError, match="rules.colour"):
        validate(raw, 3)


def test_trace_replays_kernel():
    cfg = validate(build("sim.muziris"), 3)
    ch = choices("muziris", cfg.presets, ["greedy", "random", "blocker"])
    base, params = strategy_arrays("muziris", cfg.presets, ["greedy", "random", "blocker"])
    events = [json.loads(json.dumps(e)) for e in GAME.trace(cfg, 3, ch, 2024)]
    assert events[0]["event"] == "game_start" and events[0]["config"] == cfg.raw
    assert events[-1]["event"] == "game_end"
    kinds = {e["event"] for e in events}
    assert {"use", "end_of_round"} <= kinds
    # the trace of seed S is game 0 of `run -n 1 --seed S`, whose one batch has seed batch_seeds(S, 1)[0]
    out = run_batch(cfg, 3, np.array([[0, 1, 2]]), base, params, batch_seeds(2024, 1)[0], False)
    assert events[-1]["coins"] == [int(c) for c in out["players"]["coins"]]
    assert events[-1]["rounds"] == int(out["games"]["rounds"][0])
    assert sum(e["event"] == "use" for e in events) == int(out["games"]["uses"][0])
    for e in events:
        if e["event"] == "use":
            assert e["character"] in events[0]["characters_in_play"]
            assert e["coins_taken"] >= 0
