"""First-player and seat edges at equal skill: from mirror games when the run has them, else from a Luce model
with position and strategy terms (`models.fit_luce`); a raw rate mixes the position with who holds it (in Mohur
a round's loser starts the next). Each metric's `population` says which ("mirror" or "model").
"""
from __future__ import annotations

import numpy as np

from analysis import conclusions, models, stats
from analysis.common import categorical_pair

MIRROR, MODEL = "mirror", "model"
MIN_MODEL_GAMES = models.MIN_MODEL_GAMES  # a model figure on fewer decided games: "too few games"


def too_few(m: dict | None) -> bool:
    """A model estimate on fewer than MIN_MODEL_GAMES games: reported as "too few games", never plotted."""
    return bool(m) and m.get("population") == MODEL and (m.get("n") or 0) < MIN_MODEL_GAMES


def balance(seat_rate: dict | None) -> dict:
    """Ludii-style balance, 1 - |2 r - 1|, from r = seat 0's pooled win rate at equal skill (the interval is r's,
    folded at 1/2): a worst per-strategy gap would drift with the run's size, a pooled figure does not."""
    if not seat_rate or seat_rate.get("estimate") is None or not seat_rate.get("n"):
        return {"estimate": None, "ci_low": None, "ci_high": None, "n": 0}
    r, lo, hi = seat_rate["estimate"], seat_rate["ci_low"], seat_rate["ci_high"]
    ends = sorted((abs(2 * lo - 1), abs(2 * hi - 1)))
    if lo <= 0.5 <= hi:
        ends[0] = 0.0
    out = {"estimate": 1 - abs(2 * r - 1), "ci_low": 1 - ends[1], "ci_high": 1 - ends[0], "n": int(seat_rate["n"])}
    if seat_rate.get("population"):
        out["population"] = seat_rate["population"]
    return out


TWO_SEAT_EDGES = ("first_player_round_win_rate", "first_player_match_win_rate", "seat0_match_win_rate")
FAMILIES = ("position_win_rate", "seat_win_rate")  # `<family>[k]`, one per seat or position: fair 1/count


def largest_edge(summary: dict) -> dict | None:
    """`largest_edge`: of every seat, position and starter figure, the one furthest from its fair share, as that
    figure (estimate, interval, n, population) with `figure` (its key) and `fair`; None without one. A designer's
    headline in place of `balance`, which reads seat 0 alone (Mohur alternates starters between seats, so
    seat 0 sits near 50% while the round starter has a real edge)."""
    def usable(m):
        return isinstance(m, dict) and all(isinstance(m.get(k), (int, float))
                                           for k in ("estimate", "ci_low", "ci_high"))

    candidates = [(key, summary[key], 0.5) for key in TWO_SEAT_EDGES if usable(summary.get(key))]
    for family in FAMILIES:
        rows = {k: m for k, m in summary.items() if k.startswith(family + "[") and k.count("[") == 1
                and k[len(family) + 1:-1].isdigit() and usable(m)}
        candidates += [(k, m, 1 / len(rows)) for k, m in rows.items() if len(rows) >= 2]
    candidates = [c for c in candidates if not too_few(c[1])]
    if not candidates:
        return None
    key, m, fair = max(candidates, key=lambda c: abs(c[1]["estimate"] - c[2]))
    out = {k: m[k] for k in ("estimate", "ci_low", "ci_high", "n") if k in m}
    if m.get("population"):
        out["population"] = m["population"]
    family = conclusions.tested_families(summary).get(key)  # its seat family's verdict, as the seat section says
    if family is not None:
        out["verdict"] = (conclusions.REAL if family["real"] else conclusions.TOO_FEW if family["too_few"]
                          else conclusions.NOISE)
        out["seats"] = len(family["rows"])  # the verdict is the family's: with 3+ seats, not this seat's own
    return {**out, "figure": key, "fair": fair}


def is_mirror(strategy: np.ndarray) -> np.ndarray:
    return (strategy == strategy[:, :1]).all(axis=1)


def _mirror_rates(position, win_share, positions) -> list[dict]:
    n = len(position)
    return [{**stats.rate(float(win_share[position == k].sum()), n), "population": MIRROR}
            for k in range(positions)]


def position_edges(strategy: np.ndarray, position: np.ndarray, win_share: np.ndarray, names,
                   positions: int) -> dict:
    """Equal-skill win rate per position from (games, seats) arrays: {"population", "rates", "by_strategy" (mirror
    games), "naive" (every game)}, each a metric per position."""
    strategy = np.asarray(strategy, dtype=np.int64)
    position = np.asarray(position, dtype=np.int64)
    win_share = np.asarray(win_share, dtype=float)
    naive = [stats.rate(float(win_share[position == k].sum()), len(position)) for k in range(positions)]
    mirror = is_mirror(strategy) if len(strategy) else np.zeros(0, dtype=bool)
    out = {"naive": naive, "by_strategy": {}, "population": None, "rates": None}
    if mirror.any():
        out["population"] = MIRROR
        out["rates"] = _mirror_rates(position[mirror], win_share[mirror], positions)
        for code in np.unique(strategy[mirror, 0]):
            part = mirror & (strategy[:, 0] == code)
            out["by_strategy"][names[code]] = _mirror_rates(position[part], win_share[part], positions)
    elif len(strategy) and stats.is_aggregating():  # --summary-only: the model's sufficient statistics, fitted at the end
        cells = models.cells(strategy, position, win_share, names)
        out["population"] = MODEL
        out["rates"] = [{"estimate": None, "ci_low": None, "ci_high": None, "n": len(strategy), "_kind": "luce",
                         "_cells": cells, "_position": k, "_positions": positions, "_s": 0.0, "_ss": 0.0,
                         "_n": len(strategy)} for k in range(positions)]
    elif len(strategy):
        fit = models.fit_luce(strategy, win_share, names, position, positions)
        table = models.position_rates(fit)
        out["population"] = MODEL
        out["rates"] = [models.model_rate(table, k, len(strategy)) for k in range(positions)]
    return out


def put(out: dict, key: str, edges: dict, k: int = 0) -> None:
    """Write position k's figures into a summary: `key` (the headline), `key[mirror=<strategy>]`, and the
    raw rate over every game as `key[all_games]`."""
    if edges["rates"] is not None:
        out[key] = edges["rates"][k]
    for name, rates in edges["by_strategy"].items():
        out[f"{key}[mirror={name}]"] = rates[k]
    out[f"{key}[all_games]"] = edges["naive"][k]


def source_sentence(m: dict, games: str, counted: str | None = None) -> str:
    """Which estimate a headline figure is, and why, in a designer's words. games: "matches" or "games";
    counted: what the figure's n counts (default: `games`)."""
    counted = counted or games
    if m.get("population") == MIRROR:
        return (f"Measured on mirror {games} (every seat the same strategy; {m['n']:,} {counted}), so strategy "
                "strength cannot leak into it.")
    if m.get("population") == MODEL:
        return (f"This run has no mirror {games} (every seat the same strategy), so the figure comes from a model "
                f"of {m['n']:,} {counted} with a strength per strategy and an effect per position "
                "(Bradley-Terry/Luce): the position's edge at equal skill.")
    return ""


def p_text(p: float) -> str:
    """p-values as a designer should read them: never 'p = 0'."""
    if p != p:
        return "p n/a"
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.2g}"


def two_seat_edges(frame, lead) -> dict:
    """`position_edges` for a two-seat table (columns winner, strategy_0, strategy_1; winner -1 = undecided,
    left out): position 0 is the seat given per row by `lead` (the starter, or 0 for seat effects)."""
    decided = frame["winner"].to_numpy() >= 0
    s0, s1 = categorical_pair(frame["strategy_0"], frame["strategy_1"])
    strategy = np.stack([np.asarray(s0.codes), np.asarray(s1.codes)], axis=1)[decided]
    lead = np.asarray(lead)[decided]
    position = np.stack([lead != 0, lead != 1], axis=1).astype(np.int64)
    winner = frame["winner"].to_numpy()[decided]
    win = np.stack([winner == 0, winner == 1], axis=1).astype(float)
    return position_edges(strategy, position, win, list(s0.categories), 2)


def p_half(m: dict) -> float:
    """Two-sided p-value that a headline rate is 1/2: the binomial test for a plain rate, the model's Wald test
    (on the log-odds scale, from its interval) for a model estimate."""
    if m.get("population") == MODEL:
        from scipy.special import logit, ndtr  # not scipy.stats: importing it costs about 1 CPU-s
        se = (logit(m["ci_high"]) - logit(m["ci_low"])) / (2 * stats.Z95)
        return float(2 * ndtr(-(abs(logit(m["estimate"])) / se))) if se > 0 else float("nan")  # 2 * norm.sf
    return stats.binomial_test_half(m["estimate"] * m["n"], m["n"])
