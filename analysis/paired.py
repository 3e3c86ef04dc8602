"""Differences between two runs, paired game by game when they share their random numbers: per-block ratio
figures, delta-method pseudo-values, a paired t interval (Welch's unpaired). Method and why: docs/compare.md.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

from analysis import stats
from sim.game import get_game
from analysis.summary import summary_for

BLOCKS = 100
MIN_BLOCK_GAMES = 20  # small runs get fewer, larger blocks (at least 2)
ALPHA = 0.05
CORRECTION = "holm"  # statsmodels' multipletests method used wherever a set of changes is called real


def block_edges(n_games: int, blocks: int = BLOCKS) -> np.ndarray:
    """Game-id boundaries of the blocks: a function of the number of games only, so two runs of equal size
    cut identically."""
    count = min(blocks, max(2, n_games // MIN_BLOCK_GAMES), max(n_games, 1))
    return np.linspace(0, n_games, count + 1).round().astype(np.int64)


def _by_block(tables: dict, id_column: str, edges: np.ndarray):
    """Yield each block's tables (row ranges of the tables that carry the game id; the others whole)."""
    sliced = {}
    for name, frame in tables.items():
        if id_column not in frame:
            sliced[name] = (frame, None)
            continue
        ids = frame[id_column].to_numpy()
        if len(ids) > 1 and (np.diff(ids) < 0).any():
            frame = frame.iloc[np.argsort(ids, kind="stable")]
            ids = frame[id_column].to_numpy()
        sliced[name] = (frame, np.searchsorted(ids, edges))
    for b in range(len(edges) - 1):
        yield {name: frame if bounds is None else frame.iloc[bounds[b]:bounds[b + 1]]
               for name, (frame, bounds) in sliced.items()}


def block_statistics(tables: dict, meta: dict, full: dict, summarize=None, id_column: str | None = None,
                     blocks: int = BLOCKS) -> dict[str, np.ndarray]:
    """Per metric, a (G, 2) array of each block's (sum, count); only metrics whose block sums reproduce the run's
    summary `full` (a sum over games), the others being left to the unpaired fallback, not paired wrongly."""
    summarize = summarize or summary_for
    id_column = id_column or get_game(meta["game"]).id_column
    edges = block_edges(int(meta.get("planned_games", meta["games"])), blocks)
    per_block = []
    with stats.aggregating():
        for b, part in enumerate(_by_block(tables, id_column, edges)):
            per_block.append(summarize(part, {**meta, "games": int(edges[b + 1] - edges[b])}))
    names = {k for s in per_block for k, m in s.items() if isinstance(m, dict) and "_kind" in m}
    out = {}
    for name in sorted(names):
        arr = np.array([[s[name]["_s"], s[name]["_n"]] if name in s else [0.0, 0.0] for s in per_block])
        m = full.get(name)
        if not isinstance(m, dict) or m.get("n") is None or int(arr[:, 1].sum()) != int(m["n"]):
            continue
        # float32 columns (win shares) sum with different rounding in blocks: agree to 1e-6, not exactly
        if m["n"] and not math.isclose(arr[:, 0].sum() / arr[:, 1].sum(), m["estimate"], rel_tol=1e-6,
                                       abs_tol=1e-9):
            continue
        out[name] = arr
    return out


def pseudo_values(block: np.ndarray) -> np.ndarray | None:
    """Delta-method pseudo-values of the ratio sum(s) / sum(n) over blocks (None when it is undefined)."""
    s, n = block[:, 0].astype(float), block[:, 1].astype(float)
    total = n.sum()
    if total == 0:
        return None
    ratio = s.sum() / total
    return ratio + len(block) * (s - ratio * n) / total


def _result(a: float, b: float, diff: float, lo: float, hi: float, p: float, paired: bool) -> dict:
    return {"a": a, "b": b, "diff": diff, "ci_low": lo, "ci_high": hi, "paired": paired, "p": p}


def _t_interval(test) -> tuple[float, float, float]:
    ci = test.confidence_interval(1 - ALPHA)
    return float(ci.low), float(ci.high), float(test.pvalue)


def difference(block_a: np.ndarray, block_b: np.ndarray, paired: bool) -> dict | None:
    """B minus A for one metric from the two runs' block statistics: estimate, 95% interval, two-sided p.
    Paired (same blocks, common random numbers) also reports the unpaired interval, to show what pairing gains."""
    pa, pb = pseudo_values(block_a), pseudo_values(block_b)
    if pa is None or pb is None or len(pa) < 2 or len(pb) < 2:
        return None
    a, b = float(pa.mean()), float(pb.mean())
    diff = b - a
    if np.ptp(pa) == 0 and np.ptp(pb) == 0:  # nothing varies: the difference is exact
        unpaired = (diff, diff, 0.0 if diff else 1.0)
    else:
        unpaired = _t_interval(sps.ttest_ind(pb, pa, equal_var=False))
    if not paired:
        return _result(a, b, diff, *unpaired, paired=False)
    if len(pa) != len(pb):
        raise ValueError("paired blocks must have the same length")
    d = pb - pa
    if np.ptp(d) == 0:  # B - A is the same in every block (e.g. identical runs): no sampling error left
        lo, hi, p = diff, diff, (0.0 if diff else 1.0)
    else:
        lo, hi, p = _t_interval(sps.ttest_rel(pb, pa))
    out = _result(a, b, diff, lo, hi, p, paired=True)
    out["unpaired_ci_low"], out["unpaired_ci_high"] = unpaired[0], unpaired[1]
    return out


def difference_from_intervals(ma: dict, mb: dict) -> dict | None:
    """Fallback for figures that are not sums over games: B minus A with the two runs' own 95% intervals
    taken as independent normal errors (half-width / 1.96)."""
    if not (isinstance(ma, dict) and isinstance(mb, dict)) or ma.get("estimate") is None or mb.get("estimate") is None:
        return None
    a, b = float(ma["estimate"]), float(mb["estimate"])
    ses = []
    for m in (ma, mb):
        lo, hi = m.get("ci_low"), m.get("ci_high")
        if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
            return None
        ses.append((hi - lo) / (2 * stats.Z95))
    se = math.hypot(*ses)
    diff = b - a
    if se == 0:
        return _result(a, b, diff, diff, diff, 0.0 if diff else 1.0, paired=False)
    p = float(2 * sps.norm.sf(abs(diff) / se))
    return _result(a, b, diff, diff - stats.Z95 * se, diff + stats.Z95 * se, p, paired=False)


def adjust(pvalues, method: str = CORRECTION) -> tuple[np.ndarray, np.ndarray]:
    """Adjusted p-values and 'real change' flags for a family of comparisons (statsmodels' multipletests at
    5%); missing p-values (None/NaN) stay NaN and are never called real."""
    from statsmodels.stats.multitest import multipletests
    p = np.array([np.nan if v is None else float(v) for v in pvalues], dtype=float)
    adjusted, real = np.full(len(p), np.nan), np.zeros(len(p), dtype=bool)
    ok = ~np.isnan(p)
    if ok.any():
        rej, padj, _, _ = multipletests(p[ok], alpha=ALPHA, method=method)
        adjusted[ok], real[ok] = padj, rej
    return adjusted, real


def headline_names(game: str, summary_a: dict, summary_b: dict) -> list[str]:
    """The figures a comparison shows: the game's HEADLINES (all figures without a bracket when it names
    none), then the win rate of every strategy; only those both runs have."""
    module = get_game(game).module("analysis")
    both = [k for k, m in summary_a.items() if isinstance(m, dict) and "estimate" in m
            and isinstance(summary_b.get(k), dict)]  # figures only, not `strategy_kinds`
    chosen = [m for m in getattr(module, "HEADLINES", ()) if m in both] or [m for m in both if "[" not in m]
    return chosen + [m for m in both if m.startswith("win_rate[") and m not in chosen]
