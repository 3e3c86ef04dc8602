"""A run's headline summary, and the mergeable form of it that `run --summary-only` ships from its workers
(`SUMMARISER`, passed to the simulation core so that the layers point one way only)."""
from __future__ import annotations

import contextlib
import json
import math
import warnings

import numpy as np

from analysis import stats
from analysis.edges import largest_edge
from analysis.models import rate_from_cells
from sim.game import get_game


@contextlib.contextmanager
def quiet_numpy():
    """Figures over no rows (a degenerate configuration, an empty subset) are NaN and reported as n/a; numpy's
    RuntimeWarnings about them (empty means, 0/0) would only add noise to the terminal."""
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def players_of(meta) -> int:
    """The run's player count (meta.json's, else the game's default: older folders of two-player Mohur)."""
    players = meta.get("players")
    return int(players) if isinstance(players, int) and not isinstance(players, bool) else \
        int(get_game(meta["game"]).default_players)


def summary_for(tables, meta) -> dict:
    module = get_game(meta["game"]).module("analysis")
    summary = {"game": meta["game"], "games": int(meta["games"]), "players": players_of(meta)}
    with quiet_numpy():
        summary.update(module.summarize(tables, meta))
    edge = None if stats.is_aggregating() else largest_edge(summary)  # a choice among figures: not a sum to merge
    if edge:
        summary["largest_edge"] = edge
    if meta.get("partial"):
        summary["partial"] = True
    return summary


def merge(total: dict, part: dict) -> dict:
    """Add one batch's aggregated summary into `total` (metrics without sufficient statistics are dropped)."""
    for name, m in part.items():
        if not isinstance(m, dict) or "_kind" not in m:
            continue
        if name in total and total[name]["_kind"] != m["_kind"]:
            # an equal-skill figure is a mirror-game rate where a batch has mirror games and a model's cells
            # where it has none; the mirror games of the whole run decide, as in a full run
            if m["_kind"] == "luce":
                continue
            del total[name]
        if name not in total:
            total[name] = {"_kind": m["_kind"], "_s": 0.0, "_ss": 0.0, "_n": 0}
            if "population" in m:
                total[name]["population"] = m["population"]
        for key in ("_s", "_ss", "_n"):
            total[name][key] += m.get(key, 0)
        if m["_kind"] == "luce":  # a model estimate: its lineup cells add up, the fit waits for finalize
            total[name].setdefault("_cells", []).extend(m["_cells"])
            total[name]["_position"], total[name]["_positions"] = m["_position"], m["_positions"]
    return total


def finalize(total: dict) -> dict:
    """Merged sufficient statistics back into metric objects with intervals."""
    out = {}
    for name, m in sorted(total.items()):
        n = int(m["_n"])
        if m["_kind"] == "rate":
            out[name] = stats.rate(m["_s"], n)
            if "population" in m:
                out[name]["population"] = m["population"]
        elif m["_kind"] == "luce":
            out[name] = rate_from_cells(m["_cells"], m["_position"], m["_positions"])
        elif n == 0:
            out[name] = {"estimate": None, "ci_low": None, "ci_high": None, "n": 0}
        else:
            est = m["_s"] / n
            var = max(m["_ss"] - n * est * est, 0.0) / (n - 1) if n > 1 else float("nan")
            half = stats.Z95 * math.sqrt(var / n) if n > 1 else float("nan")
            out[name] = {"estimate": est, "ci_low": est - half, "ci_high": est + half, "n": n}
    return out


class Summariser:
    """--summary-only's three steps: a batch's tables to counts and sums, sums added, sums to figures."""
    merge = staticmethod(merge)  # the module's functions, as the core calls them
    finalize = staticmethod(finalize)

    def batch(self, tables, meta) -> dict:
        with stats.aggregating():
            summary = summary_for(tables, meta)
        return json.loads(json.dumps(merge({}, summary)))  # plain floats: small to ship back and to save


SUMMARISER = Summariser()
