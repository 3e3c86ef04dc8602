"""Analyses every game shares: win rates by strategy and seat, matchups, a Bradley-Terry strength ranking.

They work on a long "player results" frame: one row per player-game with columns
`game`, `seat`, `strategy`, `win_share` (1 for a win, 1/k for a win shared by k, 0 otherwise).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import stats
from analysis.style import NEUTRAL, new_figure, save, strategy_colors


def categorical_pair(a: pd.Series, b: pd.Series) -> tuple[pd.Categorical, pd.Categorical]:
    """Two strategy columns as categoricals over one shared set of names: comparisons and grouping then work
    on small integer codes (turning a million names into Python strings costs seconds)."""
    a = a if isinstance(a.dtype, pd.CategoricalDtype) else a.astype("category")
    b = b if isinstance(b.dtype, pd.CategoricalDtype) else b.astype("category")
    names = sorted(set(a.cat.categories) | set(b.cat.categories))
    return (pd.Categorical(a, categories=names), pd.Categorical(b, categories=names))


def two_player_long(games: pd.DataFrame, id_column: str) -> pd.DataFrame:
    """Long frame from a two-seat games table (winner: seat, or -1 for no winner = half a win each)."""
    s0, s1 = categorical_pair(games["strategy_0"], games["strategy_1"])
    winner = games["winner"].to_numpy()
    ids = games[id_column].to_numpy()
    frames = []
    for seat, mine, theirs in ((0, s0, s1), (1, s1, s0)):
        share = np.where(winner == seat, 1.0, np.where(winner < 0, 0.5, 0.0))
        frames.append(pd.DataFrame({"game": ids, "seat": seat, "strategy": mine, "opponent": theirs,
                                    "win_share": share}))
    return pd.concat(frames, ignore_index=True)


def rate_table(long: pd.DataFrame, by: str) -> pd.DataFrame:
    """Win rate per value of `by` with 95% Wilson intervals."""
    grouped = long.groupby(by, observed=True)["win_share"].agg(["sum", "count"])
    lo, hi = stats.wilson(grouped["sum"], grouped["count"])
    return pd.DataFrame({"wins": grouped["sum"], "n": grouped["count"], "rate": grouped["sum"] / grouped["count"],
                         "ci_low": lo, "ci_high": hi})


def win_rate_metrics(long: pd.DataFrame, prefix: str = "win_rate") -> dict:
    table = rate_table(long, "strategy")
    return {f"{prefix}[{name}]": stats.rate(row.wins, row.n) for name, row in table.iterrows()}


def matchup_matrix(long: pd.DataFrame) -> pd.DataFrame:
    """Row strategy's win rate against column strategy (two-player games)."""
    grouped = long.groupby(["strategy", "opponent"], observed=True)["win_share"].mean()
    return grouped.unstack("opponent")


def bradley_terry(long: pd.DataFrame, iterations: int = 500) -> pd.DataFrame:
    """Bradley-Terry strengths from two-player results, on the Elo scale (mean 0), with 95% intervals
    from the observed information matrix. Mirror matches carry no information and are left out."""
    seat0 = long[long["seat"] == 0]
    s, o = categorical_pair(seat0["strategy"], seat0["opponent"])
    i, j = s.codes.astype(np.int64), o.codes.astype(np.int64)
    keep = i != j  # mirror matches carry no information about relative strength
    i, j, w = i[keep], j[keep], seat0["win_share"].to_numpy()[keep]
    present = np.unique(np.concatenate([i, j]))
    if len(present) < 2:
        return pd.DataFrame(columns=["elo", "ci_low", "ci_high"])
    names = [s.categories[c] for c in present]
    remap = np.full(len(s.categories), -1)
    remap[present] = np.arange(len(present))
    i, j, k = remap[i], remap[j], len(present)
    wins = np.zeros((k, k))
    np.add.at(wins, (i, j), w)
    np.add.at(wins, (j, i), 1 - w)
    games = wins + wins.T
    strength = np.ones(k)
    total_wins = wins.sum(axis=1) + 0.5  # a half-win prior keeps an unbeaten strategy finite
    for _ in range(iterations):  # Zermelo/MM updates
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1) + 1.0 / (2 * strength)
        new = total_wins / denom
        new /= np.exp(np.log(new).mean())
        if np.allclose(new, strength, rtol=1e-10):
            strength = new
            break
        strength = new
    beta = np.log(strength)
    p = strength[:, None] / (strength[:, None] + strength[None, :])
    info = -(games * p * p.T)
    np.fill_diagonal(info, 0.0)
    np.fill_diagonal(info, -info.sum(axis=1))
    cov = np.linalg.pinv(info)  # the sum-zero constraint leaves one direction free
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    scale = 400 / np.log(10)
    elo = (beta - beta.mean()) * scale
    return pd.DataFrame({"elo": elo, "ci_low": elo - stats.Z95 * se * scale, "ci_high": elo + stats.Z95 * se * scale},
                        index=pd.Index(names, name="strategy")).sort_values("elo", ascending=False)


# ---- figures shared by the games ----
def plot_rates(table: pd.DataFrame, path, title: str, xlabel: str, colors: dict | None = None,
               reference: float | None = 0.5) -> None:
    fig, ax = new_figure()
    labels = [str(x) for x in table.index]
    x = np.arange(len(labels))
    col = [colors.get(l, NEUTRAL) for l in labels] if colors else NEUTRAL
    ax.bar(x, table["rate"] * 100, color=col, alpha=0.9)
    # clipped at 0: at a rate of exactly 0 or 1 the interval's end can differ from the rate by a rounding error
    ax.errorbar(x, table["rate"] * 100, yerr=[((table["rate"] - table["ci_low"]) * 100).clip(lower=0),
                                              ((table["ci_high"] - table["rate"]) * 100).clip(lower=0)],
                fmt="none", ecolor="black", capsize=4, lw=1)
    if reference is not None:
        ax.axhline(reference * 100, color="black", ls="--", lw=0.8, label=f"{reference:.0%} (no edge)")
        ax.legend(loc="upper right", frameon=False)
    ax.set_xticks(x, labels, rotation=20 if len(labels) > 5 else 0)
    ax.set_ylabel("win rate (%), bars: 95% interval")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    save(fig, path)


def plot_matchups(matrix: pd.DataFrame, path, title: str) -> None:
    fig, ax = new_figure(6.5, 5.2)
    ax.grid(False)
    values = matrix.to_numpy() * 100
    im = ax.imshow(values, cmap="RdBu", vmin=0, vmax=100)
    ax.set_xticks(range(len(matrix.columns)), matrix.columns, rotation=30, ha="right")
    ax.set_yticks(range(len(matrix.index)), matrix.index)
    for (r, c), v in np.ndenumerate(values):
        if not np.isnan(v):
            ax.text(c, r, f"{v:.0f}", ha="center", va="center", fontsize=9,
                    color="white" if abs(v - 50) > 30 else "black")
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label="row's win rate (%)")
    save(fig, path)


def plot_strength(bt: pd.DataFrame, path, title: str, colors: dict) -> None:
    fig, ax = new_figure()
    y = np.arange(len(bt))[::-1]
    ax.barh(y, bt["elo"], color=[colors.get(n, NEUTRAL) for n in bt.index], alpha=0.9)
    ax.errorbar(bt["elo"], y, xerr=[bt["elo"] - bt["ci_low"], bt["ci_high"] - bt["elo"]], fmt="none",
                ecolor="black", capsize=4, lw=1)
    ax.set_yticks(y, bt.index)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("strength (Elo points, mean 0); bars: 95% interval")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    save(fig, path)


def strategy_sections(long: pd.DataFrame, outdir, two_player: bool) -> tuple[list[dict], dict]:
    """Win rate by strategy and seat, matchups and strength: the panels every game's report opens with."""
    colors = strategy_colors(long["strategy"].unique())
    figures = []
    by_strategy = rate_table(long, "strategy").sort_values("rate", ascending=False)
    plot_rates(by_strategy, outdir / "win_rate_by_strategy.png", "Win rate by strategy", "strategy", colors,
               reference=None if not two_player else 0.5)
    best = by_strategy.index[0]
    figures.append({"file": "win_rate_by_strategy.png",
                    "reading": f"{best} wins most often ({by_strategy.iloc[0]['rate']:.1%} of its games); "
                               "bars that do not overlap are real differences."})
    by_seat = rate_table(long, "seat")
    plot_rates(by_seat, outdir / "win_rate_by_seat.png", "Win rate by seat (strategies rotated through seats)",
               "seat", None, reference=1 / long["seat"].nunique())
    spread = by_seat["rate"].max() - by_seat["rate"].min()
    figures.append({"file": "win_rate_by_seat.png",
                    "reading": f"Seats differ by at most {spread:.1%} in win rate; the dashed line is what a "
                               "perfectly fair seat would win."})
    extra = {}
    if two_player and long["strategy"].nunique() > 1:
        matrix = matchup_matrix(long)
        plot_matchups(matrix, outdir / "matchups.png", "Matchups: row strategy's win rate against column")
        figures.append({"file": "matchups.png",
                        "reading": "Each cell is how often the row strategy beats the column strategy; blue "
                                   "favours the row, red the column, 50 is an even matchup."})
        bt = bradley_terry(long)
        if len(bt):
            plot_strength(bt, outdir / "strength.png", "Strength ranking (Bradley-Terry, Elo scale)", colors)
            figures.append({"file": "strength.png",
                            "reading": f"Fitted to every match: {bt.index[0]} is strongest; 100 Elo points "
                                       "means winning about 64% of games against the other."})
            extra["bradley_terry"] = bt
    return [{"title": "Who wins", "figures": figures}], extra
