"""Per-core speed against the reference engine, by process CPU time, alternated in one process (a loaded machine
skews wall-clock rates; CPU time much less): the reference's greedy mirrors (`jaipur_nb.play_many`, as its
rate.py), then each game's greedy and weighted mirrors through bench's own timing (`_timed`), then the reference
again. A developer's measuring tool (not part of the package):

    .venv/bin/python tools/per_core.py ../shared/reference 2
"""
import sys
import time

import numpy as np

sys.path.insert(0, sys.argv[1])
import jaipur_nb  # noqa: E402 - the reference engine, from the folder given

from sim.commands.bench_cmd import _timed  # noqa: E402
from sim.config import build  # noqa: E402
from sim.game import game_names, get_game  # noqa: E402
from sim.registry import choices  # noqa: E402

N_REFERENCE, N_GAMES = 30_000, 20_000


def reference_rate(seed):
    start = time.process_time()
    jaipur_nb.play_many(N_REFERENCE, 1, 1, seed)
    return N_REFERENCE / (time.process_time() - start)


def game_rate(name, strategy):
    spec = get_game(name)
    cfg = spec.validate(build(spec.package), spec.default_players)
    chosen = choices(name, {}, [strategy] * spec.default_players)
    lineup = np.tile(np.arange(len(chosen), dtype=np.int64), (N_GAMES, 1))
    seconds, _ = _timed(spec.function("kernel"), cfg, spec.default_players, chosen, lineup, 50, time.process_time)
    return N_GAMES / seconds


jaipur_nb.play_many(10, 1, 1, 1)
for p in range(int(sys.argv[2])):
    before = reference_rate(100 + p)
    rates = {(g, s): game_rate(g, s) for g in game_names() for s in ("greedy", "weighted")}
    ref = (before + reference_rate(200 + p)) / 2
    print(f"pass {p}: reference {ref:,.0f}/CPU-s; " + "; ".join(
        f"{g} greedy {rates[g, 'greedy']:,.0f} ({rates[g, 'greedy'] / ref:.2f}x), weighted "
        f"{rates[g, 'weighted'] / rates[g, 'greedy']:.0%} of greedy" for g in game_names()), flush=True)
