"""`balance-sim ladder GAME`: every player against every other on fresh deals, each pair on its own seed stream,
then one strength each (the Luce / Bradley-Terry model of the report, `analysis.models`, on the Elo scale with
95% intervals) and each pair's win share with its Wilson interval: each rung's place measured, not assumed."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from analysis.markup import markup, table, tag
from analysis import models
from sim.runner import Plan, execute
from sim.rng import DEFAULT_BATCH

LADDER_STREAM = 5  # the ladder's seed stream, apart from every other command's


def pair_seed(root: int, i: int, j: int) -> int:
    words = np.random.SeedSequence(root, spawn_key=(LADDER_STREAM, i, j)).generate_state(2, dtype=np.uint32)
    return int((int(words[0]) << 31) ^ int(words[1])) & (2**63 - 1)


def lineups_of(a, b, players: int) -> list[tuple]:
    """Two players: a against b, seats alternating. More: one a against the others all b, and one b against a's,
    each rotated through every seat by the runner."""
    if players == 2:
        return [(a, b)]
    return [(a,) + (b,) * (players - 1), (b,) + (a,) * (players - 1)]


def play(spec, cfg, players: int, chosen: list, games: int, seed: int, jobs: int = 1, backend: str = "loky",
         scheduler=None, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """(strategy index into `chosen` per game and seat, win share per game and seat) of every pair's games."""
    names = [c.name for c in chosen]
    codes, wins = [], []
    for i, j in itertools.combinations(range(len(chosen)), 2):
        lineups = lineups_of(chosen[i], chosen[j], players)
        for k, lineup in enumerate(lineups):
            n = games // len(lineups) + (k < games % len(lineups))
            n = max(players, -(-n // players) * players)  # whole seat rotations
            plan = Plan(spec.name, players, n, pair_seed(seed, i, j * 2 + k), tuple(lineup), min(DEFAULT_BATCH, n))
            tables, _ = execute(spec, cfg, plan, jobs=jobs, backend=backend, scheduler=scheduler, progress=False)
            main = tables["games"]
            codes.append(np.stack([main[f"strategy_{p}"].astype(str).map(names.index).to_numpy()
                                   for p in range(players)], axis=1))
            wins.append(np.stack([main[f"win_share_{p}"].to_numpy(dtype=float) for p in range(players)], axis=1))
        if progress is not None:
            progress(f"{names[i]} against {names[j]}: {games:,} games")
    return np.concatenate(codes), np.concatenate(wins)


def pair_table(codes: np.ndarray, wins: np.ndarray, names: list) -> pd.DataFrame:
    """Per ordered pair (a, b): a's mean win share in the games of one a against b (both lineups: a's seats'
    share per game), games, Wilson 95% interval (a share counted as fractional successes)."""
    rows = []
    for a, b in itertools.permutations(range(len(names)), 2):
        both = np.isin(codes, [a, b]).all(axis=1) & (codes == a).any(axis=1) & (codes == b).any(axis=1)
        if not both.any():
            continue
        mine = np.where(codes[both] == a, wins[both], 0.0).sum(axis=1) / (codes[both] == a).sum(axis=1)
        lo, hi = proportion_confint(mine.sum(), len(mine), method="wilson")
        rows.append({"player": names[a], "against": names[b], "share": float(mine.mean()), "games": int(len(mine)),
                     "low": float(lo), "high": float(hi)})
    return pd.DataFrame(rows)


def strengths(codes: np.ndarray, wins: np.ndarray, names: list, players: int) -> pd.DataFrame:
    """Elo strength per player with its 95% interval (seat terms fitted alongside), strongest first."""
    fit = models.fit_luce(codes, wins, names, None, players)
    table = models.strengths(fit)
    return table.sort_values("elo", ascending=False)


def ladder_json(setup: dict, table: pd.DataFrame, pairs: pd.DataFrame) -> dict:
    return {"setup": setup, "population": "fresh deals of the ladder's own seed stream, every pair "
                                          f"{setup['games']:,} games",
            "elo": [{"player": str(name), **{k: _number(row[k]) for k in ("elo", "ci_low", "ci_high")},
                     "games": int(row["n"])} for name, row in table.iterrows()],
            "pairs": pairs.to_dict(orient="records")}


def _number(x):
    """A figure for JSON: None where the model gives no end (an all-or-nothing record's open side)."""
    return None if x is None or not np.isfinite(float(x)) else float(x)


def _end(x) -> str:
    return "open" if x is None else f"{x:+.0f}"


def page(result: dict) -> str:
    """The ladder as HTML, built through analysis.markup (every string from the setup or the configuration
    escaped, as on every other page)."""
    s = result["setup"]
    ranks = [[k + 1, r["player"], f"{r['elo']:+.0f}", f"{_end(r['ci_low'])} to {_end(r['ci_high'])}"]
             for k, r in enumerate(result["elo"])]
    order = [r["player"] for r in result["elo"]]
    cell = {(p["player"], p["against"]): p for p in result["pairs"]}
    grid = [tag("tr", tag("th", a), *(tag("td", "-" if a == b or (a, b) not in cell else
                                              f"{100 * cell[a, b]['share']:.1f}% ({100 * cell[a, b]['low']:.1f}-"
                                              f"{100 * cell[a, b]['high']:.1f})") for b in order))
            for a in order]
    body = markup(
        tag("h1", f"Ladder: {s['game']}, {s['players']} players"),
        tag("p", f"{result['population']}; seed {s['seed']}. Command: ", tag("code", s["command"])),
        tag("h2", "Strength (Elo, 95% interval; 0 is the information-weighted average player)"),
        table(["rank", "player", "Elo", "95% interval"], ranks),
        tag("h2", "Win share of the row's seat(s) against the column (Wilson 95% interval)"),
        tag("table", tag("tr", tag("th", ""), *(tag("th", n) for n in order)), *grid),
        tag("p", f"Fair share: {100 / s['players']:.1f}%."))
    return ("<!doctype html><html><head><meta charset='utf-8'><title>Ladder</title></head><body>\n"
            + body + "</body></html>")


def markdown(result: dict) -> str:
    """The Elo table as Markdown (docs/strategies.md)."""
    lines = ["| rank | player | Elo | 95% interval |", "|---|---|---|---|"]
    lines += [f"| {k + 1} | `{r['player']}` | {r['elo']:+.0f} | {_end(r['ci_low'])} to {_end(r['ci_high'])} |"
              for k, r in enumerate(result["elo"])]
    return "\n".join(lines)


def write(out, result: dict) -> None:
    (out / "ladder.json").write_text(json.dumps(result, indent=1))
    (out / "ladder.html").write_text(page(result))
    (out / "ladder.md").write_text(markdown(result) + "\n")
