"""Skill figures of summary.json: headline rates among heuristic-only and search-only games (`<figure>[heuristic]`,
`<figure>[expert]`) and the skill gap (each search strategy's win rate against each heuristic). The report says
them in analysis.across_skill's section "How the answers move with skill" (on mirror games: the pooled figures
here mix strategies and are not stated as conclusions)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import stats
from analysis.common import rate_table
from sim.registry import registered

HEURISTIC, EXPERT, MIXED = "heuristic", "expert", "mixed"


def search_names(meta) -> set[str]:
    """Names (strategies or presets) in this run whose base strategy searches."""
    try:
        search = {d.name for d in registered(meta["game"]) if d.search}
    except Exception:  # a game without strategies package: no search players
        return set()
    return {s["name"] for s in meta.get("strategies", []) if s.get("base", s["name"]) in search}


def levels(frame: pd.DataFrame, search: set[str], columns: list[str]) -> np.ndarray:
    flags = np.stack([frame[c].isin(search).to_numpy() for c in columns], axis=1)
    return np.where(flags.all(axis=1), EXPERT, np.where(~flags.any(axis=1), HEURISTIC, MIXED))


def gap_table(long: pd.DataFrame, search: set[str]) -> pd.DataFrame:
    """Search strategy (row) against heuristic opponent: win rate with a 95% Wilson interval."""
    return rate_table(long[long["strategy"].isin(search) & ~long["opponent"].isin(search)], ["strategy", "opponent"])


def by_level(rates_of) -> dict:
    """`<figure>[<level>]` for each figure of `rates_of(level)`, heuristic-only games, then search-only ones."""
    return {f"{name}[{level}]": m for level in (HEURISTIC, EXPERT) for name, m in rates_of(level).items()}


def gap_metrics(long: pd.DataFrame, search: set[str]) -> dict:
    """summary.json entries `skill_gap[<search> vs <heuristic>]`."""
    table = gap_table(long, search)
    return {f"skill_gap[{s} vs {o}]": stats.rate(row.wins, row.n) for (s, o), row in table.iterrows()}
