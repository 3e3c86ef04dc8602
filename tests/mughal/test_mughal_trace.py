import json

import numpy as np

from sim.game import get_game
from sim.mughal import kernel as K
from sim.registry import choices
from sim.rng import batch_seeds
from mughal_helpers import make_cfg
from strategy_params import strategy_arrays


def test_trace_replays_the_kernel_game():
    cfg = make_cfg(3)
    chosen = choices("mughal", cfg.presets, ["greedy", "denier", "random"])
    events = [json.loads(json.dumps(e)) for e in get_game("mughal").trace(cfg, 3, chosen, 42)]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "game_start" and kinds[-1] == "game_end"
    assert events[0]["config"]["rules"]["hand_size"] == 5 and events[0]["strategies"] == ["greedy", "denier", "random"]
    assert kinds.count("scoring") == 7 and kinds.count("step") == 35
    step = next(e for e in events if e["event"] == "step")
    assert len(step["choices"]) == 3 and all("suit" in c for c in step["choices"])
    assert len(step["state"]["seats"][0]["table"]) >= 3
    base, params = strategy_arrays("mughal", cfg.presets, ["greedy", "denier", "random"])
    # the trace of seed S is game 0 of `run -n 1 --seed S`, whose one batch has seed batch_seeds(S, 1)[0]
    out = K.run_batch(cfg, 3, np.array([[0, 1, 2]], dtype=np.int64), base, params, batch_seeds(42, 1)[0], False)
    assert events[-1]["vt"] == out["players"]["vt_total"].tolist()
    assert events[-1]["winner"] == int(out["games"]["winner"][0])
    parts = [e["seats"] for e in events if e["event"] == "scoring"]
    assert [sum(s[p]["emperor"] for s in parts) for p in range(3)] == out["players"]["vt_emperor"].tolist()
