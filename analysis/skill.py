"""Skill: how a game's headline figures move when search players ("experts") replace heuristics, and the skill
gap (each search strategy's win rate against each heuristic): the report's "Skill" section."""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import stats
from analysis.common import rate_table
from analysis.markup import Markup, table as html_table
from analysis.style import ACCENT, new_panels, save
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


def present(summary: dict) -> bool:
    """Whether the summary holds skill figures (a search strategy played): the Skill section is due."""
    return any(k.startswith("skill_gap[") or k.endswith(f"[{EXPERT}]") for k in summary)


def comparisons(summary: dict, labels: dict) -> dict:
    """`section`'s comparisons from the summary: label -> (heuristic-only, search-only) metric per key of `labels`."""
    return {label: (summary.get(f"{key}[{HEURISTIC}]", {}), summary.get(f"{key}[{EXPERT}]", {}))
            for key, label in labels.items()}


def pool_rates(lineups: pd.DataFrame, players: pd.DataFrame, search: set[str]) -> dict:
    """`section`'s pool_rates: level -> {strategy: win rate} inside heuristic-only and search-only games, from one
    row per game (game, strategy_<seat>) and one per player (game, strategy, win_share)."""
    level = levels(lineups, search, [c for c in lineups.columns if c.startswith("strategy_")])
    level = pd.Series(level, index=lineups["game"].to_numpy()).reindex(players["game"].to_numpy()).to_numpy()
    out = {}
    for name in (HEURISTIC, EXPERT):
        part = players[level == name]
        if len(part):
            g = part.groupby(part["strategy"].astype(str))["win_share"].agg(["sum", "size"])
            out[name] = {s: stats.rate(r["sum"], r["size"]) for s, r in g.iterrows()}
    return out


def _fmt(m) -> str:
    if not m or m.get("estimate") is None:
        return "n/a (no such games)"
    return f"{m['estimate']:.1%} ({m['ci_low']:.1%}-{m['ci_high']:.1%}, n={m['n']:,})"


def _err(est, lo, hi):
    """Error-bar lengths, never negative (shared wins can put a Wilson bound a hair past the estimate)."""
    return [np.nan_to_num(np.clip(est - lo, 0, None)), np.nan_to_num(np.clip(hi - est, 0, None))]


def _plot(comparisons: dict, gaps: pd.DataFrame, path) -> None:
    fig, (ax1, ax2) = new_panels(10, 4.0, 1, 2, gridspec_kw={"width_ratios": [max(len(comparisons), 1),
                                                                             max(len(gaps), 1.6)]})
    labels = list(comparisons)
    x = np.arange(len(labels))
    for k, (level, color) in enumerate(((HEURISTIC, "#9aa5b1"), (EXPERT, ACCENT))):
        est, lo, hi = (np.array([np.nan if comparisons[l][k].get(f) is None else comparisons[l][k][f]
                                 for l in labels]) * 100 for f in ("estimate", "ci_low", "ci_high"))
        ax1.bar(x + (k - 0.5) * 0.38, est, width=0.38, color=color, label=f"{level} vs {level}")
        ax1.errorbar(x + (k - 0.5) * 0.38, est, yerr=_err(est, lo, hi), fmt="none", ecolor="black",
                     capsize=3, lw=1)
    ax1.axhline(50, color="black", ls="--", lw=0.8)
    ax1.set_xticks(x, labels, rotation=15, fontsize=8)
    ax1.set(ylabel="rate (%), bars: 95% interval", title="Headline rates by skill")
    ax1.legend(frameon=False, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)  # under the bars
    if len(gaps):
        names = [f"{s}\nvs {o}" for s, o in gaps.index]
        y = np.arange(len(gaps))
        ax2.bar(y, gaps["rate"] * 100, color=ACCENT)
        rate = gaps["rate"].to_numpy() * 100
        ax2.errorbar(y, rate, yerr=_err(rate, gaps["ci_low"].to_numpy() * 100, gaps["ci_high"].to_numpy() * 100),
                     fmt="none", ecolor="black", capsize=3, lw=1)
        ax2.set_xticks(y, names, fontsize=8)
        ax2.axhline(50, color="black", ls="--", lw=0.8)
    ax2.set_ylim(0, 100)
    ax2.set_title("Skill gap\n(search player's win rate)", fontsize=10)
    save(fig, path)


def section(comparisons: dict, gaps: pd.DataFrame, pool_rates: dict, outdir, baseline: str = "greedy",
            unit: str = "match") -> dict:
    """The "Skill" report section. comparisons: label -> (heuristic-only, expert-only metric); gaps: `gap_table`;
    pool_rates: level -> {strategy: win rate metric} inside each pool."""
    units = "matches" if unit == "match" else unit + "s"  # "games", never "gamees"
    _plot(comparisons, gaps, outdir / "skill.png")
    rows = [[label, _fmt(h), _fmt(e)] for label, (h, e) in comparisons.items()]
    for level in (HEURISTIC, EXPERT):
        for name, m in sorted(pool_rates.get(level, {}).items()):
            cells = [_fmt(m), ""] if level == HEURISTIC else ["", _fmt(m)]
            rows.append([f"{name} win rate in {level}-only {units}", *cells])
    gap_rows = [[f"{s} vs {o}", _fmt(stats.rate(r.wins, r.n))] for (s, o), r in gaps.iterrows()]
    table = Markup(html_table(["figure", "heuristic vs heuristic", "expert vs expert"], rows)
                   + html_table(["skill gap (search player's win rate against a heuristic)", "rate"],
                                gap_rows or [["no search-vs-heuristic games", ""]]))
    text = "Balance measured with simple heuristics can mislead; this compares the same figures when both seats search."
    shifts = []
    for label, (h, e) in comparisons.items():
        if h.get("estimate") is not None and e.get("estimate") is not None:
            overlap = not (h["ci_high"] < e["ci_low"] or e["ci_high"] < h["ci_low"])
            shifts.append(f"{label}: {h['estimate']:.1%} with heuristics, {e['estimate']:.1%} with experts"
                          + (" (intervals overlap: no change detected)" if overlap else " (a real change)"))
    if shifts:
        text += " " + "; ".join(shifts) + "."
    base = [(s, r) for (s, o), r in gaps.iterrows() if o == baseline]
    if base:
        s, r = base[0]
        verdict = ("rewards planning strongly" if r.ci_low > 0.7 else "rewards planning" if r.ci_low > 0.5
                   else "punishes this search player" if r.ci_high < 0.5
                   else "shows no reward for planning that these games can detect (the interval holds 50%)")
        text += (f" Skill gap: {s} wins {r.rate:.1%} of its {units} against {baseline} "
                 f"(95% CI {r.ci_low:.1%}-{r.ci_high:.1%}, n={int(r.n):,}): the game {verdict}.")
    reading = ("Left: each pair of bars is one headline rate with heuristics only (grey) and with search players "
               "only (blue); the dashed line is 50%. Right: how often each search player beats each heuristic.")
    return {"title": "Skill: heuristics against search players", "text": text, "html": table,
            "figures": [{"file": "skill.png", "reading": reading}]}
