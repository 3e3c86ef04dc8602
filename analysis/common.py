"""Analyses every game shares: win rates by strategy and seat, matchups, a Bradley-Terry strength ranking, on a
long frame of one row per player-game (`game`, `seat`, `strategy`, `win_share`: 1, 1/k of a shared win, or 0)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import models, stats
from analysis.conclusions import field_toss_up, said
from analysis.markup import Markup, table, tag
from analysis.style import NEUTRAL, new_figure, save, strategy_colors


def categorical_pair(a: pd.Series, b: pd.Series) -> tuple[pd.Categorical, pd.Categorical]:
    """Two strategy columns as categoricals over one shared set of names: comparisons and grouping then work
    on small integer codes (turning a million names into Python strings costs seconds)."""
    a = a if isinstance(a.dtype, pd.CategoricalDtype) else a.astype("category")
    b = b if isinstance(b.dtype, pd.CategoricalDtype) else b.astype("category")
    names = sorted(set(a.cat.categories) | set(b.cat.categories))
    return (pd.Categorical(a, categories=names), pd.Categorical(b, categories=names))


def names_of(column: pd.Series) -> pd.Series:
    """`column.astype(str)`, from a categorical's few categories and its codes when it is one: pandas converts
    it row by row (0.1 s per 400,000 rows, asked a dozen times a report)."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        return column.astype(str)
    codes = column.cat.codes.to_numpy()
    if (codes < 0).any():  # a missing value: pandas' own conversion decides what it becomes
        return column.astype(str)
    return pd.Series(column.cat.categories.astype(str).take(codes), index=column.index, name=column.name)


def two_player_long(games: pd.DataFrame, id_column: str) -> pd.DataFrame:
    """Long frame from a two-seat games table (winner: seat, or -1 for no winner = half a win each)."""
    s0, s1 = categorical_pair(games["strategy_0"], games["strategy_1"])
    winner = games["winner"].to_numpy()
    ids = games[id_column].to_numpy()
    return pd.concat([pd.DataFrame({"game": ids, "seat": seat, "strategy": mine, "opponent": theirs,
                                    "win_share": np.where(winner == seat, 1.0, np.where(winner < 0, 0.5, 0.0))})
                      for seat, mine, theirs in ((0, s0, s1), (1, s1, s0))], ignore_index=True)


def rate_table(long: pd.DataFrame, by: str) -> pd.DataFrame:
    """Win rate per value of `by` with 95% Wilson intervals."""
    grouped = long.groupby(by, observed=True)["win_share"].agg(["sum", "count"])
    lo, hi = stats.wilson(grouped["sum"], grouped["count"])
    return pd.DataFrame({"wins": grouped["sum"], "n": grouped["count"], "rate": grouped["sum"] / grouped["count"],
                         "ci_low": lo, "ci_high": hi})


def win_rate_metrics(long: pd.DataFrame, prefix: str = "win_rate") -> dict:
    table = rate_table(long, "strategy")
    return {f"{prefix}[{name}]": stats.rate(row.wins, row.n) for name, row in table.iterrows()}


def mirror_rows(frame: pd.DataFrame, game_column: str) -> np.ndarray:
    """Rows (one per seat of a game) of games where every seat plays the same strategy."""
    codes = pd.Series(np.asarray(frame["strategy"].astype("category").cat.codes), index=frame.index)
    by_game = codes.groupby(frame[game_column].to_numpy())
    return (by_game.transform("min") == by_game.transform("max")).to_numpy()


def win_rate_vs_field_metrics(frame: pd.DataFrame, game_column: str) -> dict:
    """`win_rate_vs_field[<strategy>]`: its win rate with its own mirror games (1/p whatever it does) left out;
    only for runs that have mirror games (without them it is `win_rate` itself)."""
    mirror = mirror_rows(frame, game_column)
    if not mirror.any():
        return {}
    return win_rate_metrics(frame[~mirror], "win_rate_vs_field")


def two_seat_arrays(long: pd.DataFrame):
    """(strategy codes (games, 2), win shares (games, 2), names) from a two-player long frame."""
    seat0 = long[long["seat"] == 0]
    s, o = categorical_pair(seat0["strategy"], seat0["opponent"])
    w = seat0["win_share"].to_numpy(dtype=float)
    return (np.stack([np.asarray(s.codes), np.asarray(o.codes)], axis=1), np.stack([w, 1 - w], axis=1),
            list(s.categories))


def bradley_terry(long: pd.DataFrame) -> pd.DataFrame:
    """Bradley-Terry strengths from two-player results on the Elo scale, with 95% intervals and a seat term
    (`analysis.models`). Mirror matches carry no information about relative strength and drop out."""
    strategy, win, names = two_seat_arrays(long)
    if len(np.unique(strategy)) < 2:
        return pd.DataFrame(columns=["elo", "ci_low", "ci_high", "n"])
    return models.strengths(models.fit_luce(strategy, win, names, None, 2))


def head_to_head(strategy: np.ndarray, keys: list[np.ndarray], names) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(wins, meetings) of row strategy against column strategy over every pair of seats of different strategies
    in a game: a win when the row's seat finishes ahead on `keys` in order (VT, then the tie-break), half if level."""
    k, p = len(names), strategy.shape[1]
    wins, meet = np.zeros((k, k)), np.zeros((k, k))
    for a in range(p):
        for b in range(p):
            if a == b:
                continue
            share = np.full(len(strategy), 0.5)
            undecided = np.ones(len(strategy), dtype=bool)
            for key in keys:
                ahead, behind = key[:, a] > key[:, b], key[:, a] < key[:, b]
                share[undecided & ahead], share[undecided & behind] = 1.0, 0.0
                undecided &= ~(ahead | behind)
            np.add.at(wins, (strategy[:, a], strategy[:, b]), share)
            np.add.at(meet, (strategy[:, a], strategy[:, b]), 1.0)
    return pd.DataFrame(wins, index=names, columns=names), pd.DataFrame(meet, index=names, columns=names)


def meta_game_metrics(strategy: np.ndarray, win: np.ndarray, names, h2h=None) -> dict:
    """`strength[<strategy>]` (Elo), `nash_weight[<strategy>]` (the mix of `h2h` = (wins, meetings), default
    the games' results) and `head_to_head[<a> vs <b>]` (a's share of the meetings of an a seat with a b seat in
    one game, counted per pair of seats: in a game of four, two a seats and two b seats meet four times); left out of --summary-only runs, as neither is a sum that merges across batches."""
    if stats.is_aggregating() or len(np.unique(strategy)) < 2:
        return {}
    p = strategy.shape[1]
    out = models.strength_metrics(models.strengths(models.fit_luce(strategy, win, names, None, p)))
    wins, meet = h2h if h2h is not None else head_to_head(strategy, [win], names)
    played = [n for n in names if meet.loc[n].sum() > 0]
    if len(played) >= 2:
        missing = models.unmeasured_pairs(meet.loc[played, played])
        for i, a in enumerate(played):  # what a toss-up between two styles is said with (analysis.conclusions)
            for b in played[i + 1:]:
                if meet.loc[a, b] > 0:
                    out[f"head_to_head[{a} vs {b}]"] = {**stats.rate(wins.loc[a, b], meet.loc[a, b]),
                                                        "counts": "seat pairs"}
        if missing:  # an unknown cell is not an even one: no equilibrium rests on a guess
            out["nash_unmeasured"] = [f"{a} vs {b}" for a, b in missing]
        else:
            out.update(models.nash_metrics(models.nash_table(wins.loc[played, played], meet.loc[played, played]),
                                           len(strategy)))
    return out


def table_from_summary(summary: dict, prefix: str, column: str) -> pd.DataFrame:
    """`prefix[<strategy>]` metrics back into a table (estimate in `column`), largest first."""
    rows = {k[len(prefix) + 1:-1]: m for k, m in summary.items() if k.startswith(prefix + "[") and isinstance(m, dict)}
    table = pd.DataFrame({column: [m["estimate"] for m in rows.values()],
                          "ci_low": [np.nan if m["ci_low"] is None else m["ci_low"] for m in rows.values()],
                          "ci_high": [np.nan if m["ci_high"] is None else m["ci_high"] for m in rows.values()],
                          "bound": [m.get("bound") for m in rows.values()],
                          "range_low": [m.get("range_low", m["estimate"]) for m in rows.values()],
                          "range_high": [m.get("range_high", m["estimate"]) for m in rows.values()]},
                         index=pd.Index(list(rows), name="strategy"))
    return table.sort_values(column, ascending=False)


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
        ax.axhline(reference * 100, color="black", ls="--", lw=0.8)
        # named beside the axes, not in a legend box: a tall interval (a rare round, a small group) never hides
        ax.text(1.01, reference * 100, f"{reference:.0%}\n(no edge)", transform=ax.get_yaxis_transform(),
                va="center", ha="left", fontsize=8)
    ax.set_xticks(x, labels, rotation=20 if len(labels) > 5 else 0)
    ax.set(ylabel="win rate (%), bars: 95% interval", xlabel=xlabel, title=title)
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
    ax.set(xlabel="opponent", ylabel="strategy", title=title)
    fig.colorbar(im, ax=ax, label="row's win rate (%)")
    save(fig, path)


def strength_limits(bt: pd.DataFrame, two_sided) -> tuple[float, float]:
    """The strength chart's x range: the two-sided intervals and 0, with room for the labels; a one-sided bound
    beyond it (random's "below -1781") is cut at the edge, an arrow and its label saying so."""
    rows = bt[two_sided] if np.asarray(two_sided).any() else bt
    low = min(0.0, float(rows["ci_low"].min() if np.asarray(two_sided).any() else rows["elo"].min()))
    high = max(0.0, float(rows["ci_high"].max() if np.asarray(two_sided).any() else rows["elo"].max()))
    span = max(high - low, 100.0)
    return low - 0.45 * span, high + 0.45 * span  # room for a label beside a bar near the edge


def plot_strength(bt: pd.DataFrame, path, title: str, colors: dict) -> None:
    fig, ax = new_figure()
    y = np.arange(len(bt))[::-1]
    bounded = bt["bound"].isin(["upper", "lower"]) if "bound" in bt else pd.Series(False, index=bt.index)
    two_sided = ~bounded.to_numpy()
    left, right = strength_limits(bt, two_sided)
    shown = bt["elo"].clip(left, right)  # a far one-sided bound (random's) would squash every other bar
    bars = ax.barh(y, shown, color=[colors.get(n, NEUTRAL) for n in bt.index], alpha=0.9)
    for bar, one_sided in zip(bars, bounded):
        if one_sided:  # the bar ends at a bound, not at an estimate
            bar.set_hatch("//")
    cut = (bt["elo"] != shown).to_numpy()
    if cut.any():  # an arrow at the axis' edge: the bar goes on beyond it (its label gives the bound)
        inward = 0.02 * (right - left) * np.where(bt["elo"][cut] < 0, 1, -1)
        ax.scatter(shown[cut] + inward, y[cut], marker="<" if (bt["elo"][cut] < 0).all() else ">", s=70,
                   color="white", edgecolors="black", zorder=3)
    ax.set_xlim(left, right)
    ax.errorbar(bt["elo"][two_sided], y[two_sided], xerr=[(bt["elo"] - bt["ci_low"])[two_sided],
                                                           (bt["ci_high"] - bt["elo"])[two_sided]], fmt="none",
                ecolor="black", capsize=4, lw=1)
    for yy, (name, r), one_sided in zip(y, bt.iterrows(), bounded):  # intervals of a few Elo vanish at this scale
        text = (f"{'below' if r.bound == 'upper' else 'above'} {r.elo:+.0f} (data bound it on one side"
                + ("; bar cut at the axis" if not left <= r.elo <= right else "") + ")"
                if one_sided else f"{r.elo:+.0f} ({r.ci_low:+.0f} to {r.ci_high:+.0f})")
        ax.annotate(text, (0, yy), xytext=(4, 0), textcoords="offset points", va="center",
                    ha="left" if r.elo < 0 else "right", fontsize=8)
    ax.set_yticks(y, bt.index)
    ax.axvline(0, color="black", lw=0.8)
    ax.set(xlabel="strength (Elo points; 0 = the average strategy); bars: 95% interval", title=title)
    ax.grid(axis="x", alpha=0.3)
    save(fig, path)


def plot_nash(table: pd.DataFrame, path, colors: dict) -> None:
    fig, ax = new_figure()
    x = np.arange(len(table))
    ax.bar(x, table["weight"] * 100, color=[colors.get(n, NEUTRAL) for n in table.index], alpha=0.9)
    spread = (table["range_high"] - table["range_low"]) > 1e-6
    if spread.any():  # several equilibria: each weight's range over them, beside the solver's pick
        ax.vlines(x[spread.to_numpy()], table["range_low"][spread] * 100, table["range_high"][spread] * 100,
                  colors="#e07b39", lw=6, alpha=0.6, label="range over the equilibria (not unique)")
        ax.legend(frameon=False, fontsize=8)
    ax.errorbar(x, table["weight"] * 100, yerr=[np.clip(table["weight"] - table["ci_low"], 0, None) * 100,
                                                np.clip(table["ci_high"] - table["weight"], 0, None) * 100],
                fmt="none", ecolor="black", capsize=4, lw=1)
    ax.set_xticks(x, table.index, rotation=20 if len(table) > 5 else 0)
    ax.set(ylim=(0, 105), ylabel="weight in the equilibrium mix (%)",
           title="The mix no strategy can exploit (bars: 95% bootstrap interval)")
    save(fig, path)


NASH_WHY = ("If players chose strategies knowing the whole field, this is the mix none could beat by switching "
            "(symmetric Nash equilibrium of the matchup matrix, scipy linear program).")


def meta_game_section(summary: dict, outdir, colors: dict, players: int) -> tuple[list[dict], list[dict]]:
    """Strength ranking and equilibrium mix, read back from summary.json's strength[...] / nash_weight[...]."""
    out = []
    bt = table_from_summary(summary, "strength", "elo")
    if len(bt):
        plot_strength(bt, outdir / "strength.png", "Which strategy is strongest (Elo; Bradley-Terry model)", colors)
        bounded = bt["bound"].isin(["upper", "lower"])
        half = ((bt["ci_high"] - bt["ci_low"]) / 2)[~bounded]
        loose = half > 5 * half.median()  # strategies that rarely win: their few wins fix them loosely
        # which style is strongest is the play-style conclusion's to say (Findings, the meta-game): not here
        ours = sorted(n for n, k in (summary.get("strategy_kinds") or {}).items() if k != "hand-written" and n in bt.index)
        who = "is our evolved or search player" if len(ours) == 1 else "are our evolved and search players"
        reading = ("Each bar is a strategy's strength on the Elo scale (0 = the average strategy), with its 95% "
                   "interval; 100 Elo points means winning about 64% of two-player games against the other"
                   + (f". {', '.join(ours)} {who}, drawn as the skill reference, not a play style to rebalance"
                      if ours else "") + ". Fitted to every game with a weak prior")
        if len(half):
            reading += f"; intervals are +/-{half[~loose].min():.0f} to +/-{half[~loose].max():.0f} Elo"
        if loose.any():
            reading += (f", except {', '.join(half[loose].index)} (+/-{half[loose].max():.0f}): it rarely "
                        "beats the others, and its few wins place it less precisely")
        for name, r in bt[bounded].iterrows():
            never = r.bound == "upper"
            reading += (f". {name} {'never beat' if never else 'beat every time'} another strategy, so its games "
                        f"bound its strength on one side only: {'below' if never else 'above'} {r.elo:+.0f} Elo "
                        f"(one-sided 95%, from its record, not the prior: each doubling of the games tightens it "
                        f"by about {models.ELO * np.log(2):.0f} Elo while it keeps {'losing' if never else 'winning'})")
        out.append({"file": "strength.png", "reading": reading + "."})
    nash = table_from_summary(summary, "nash_weight", "weight")
    sections = []
    if summary.get("nash_unmeasured"):
        sections.append({"title": "The meta-game", "text": (
            "No equilibrium mix: these pairs of strategies never met, so their matchups are unknown (not even): "
            + "; ".join(summary["nash_unmeasured"]) + ". A run where every pair meets (-s all) measures them.")})
    if len(nash):
        lead = said(summary, "play_style")
        section = {"title": "The meta-game",
                   "text": (lead + " " if lead else "") + models.nash_reading(
                       nash, players, summary.get("nash_unique", True), field_toss_up(summary))}
        if nash["weight"].max() >= 0.99:  # one strategy takes all: a bar and empty slots say less
            rows = [[name, f"{r.weight:.0%}", f"{r.ci_low:.0%} to {r.ci_high:.0%}"] for name, r in nash.iterrows()]
            section["html"] = Markup(table(["strategy", "weight in the equilibrium mix", "95% bootstrap interval"], rows)
                                     + tag("p", NASH_WHY, class_="reading"))
        else:
            plot_nash(nash, outdir / "nash.png", colors)
            section["figures"] = [{"file": "nash.png", "reading": NASH_WHY + " A strategy with weight 0 is never worth "
                                                                         "playing against this field."}]
        sections.append(section)
    return out, sections


def section(title: str, text: str | None, *figures: tuple[str, str], **extra) -> dict:
    """A report section: its title, its text, any `html`, and its figures as (file, reading) pairs."""
    return {"title": title, "text": text, **extra, "figures": [{"file": f, "reading": r} for f, r in figures]}


def strategy_sections(long: pd.DataFrame, outdir, two_player: bool, summary: dict | None = None,
                      players: int = 2) -> list[dict]:
    """Win rate by strategy and seat, matchups, strength and the meta-game: the panels every game's report
    opens with."""
    colors = strategy_colors(long["strategy"].unique())
    figures = []
    by_strategy = rate_table(long, "strategy").sort_values("rate", ascending=False)
    mirrors = "game" in long and long["strategy"].nunique() > 1 and mirror_rows(long, "game").any()
    which = " (every game, its own mirror games included: win_rate)" if mirrors else ""
    plot_rates(by_strategy, outdir / "win_rate_by_strategy.png", "Win rate by strategy" + which, "strategy", colors,
               reference=None if not two_player else 0.5)
    figures.append({"file": "win_rate_by_strategy.png",  # which style leads: the play-style conclusion says
                    "reading": "Each bar is the share of its games a strategy wins, with its 95% interval; bars "
                               "that do not overlap are real differences."
                               + (" These rates include each strategy's mirror games, which it wins a fair share "
                                  "of whatever it does; win_rate_vs_field in summary.json leaves them out."
                                  if mirrors else "")})
    by_seat = rate_table(long, "seat")
    plot_rates(by_seat, outdir / "win_rate_by_seat.png", "Win rate by seat, every game (strategies rotated "
               "through seats)", "seat", None, reference=1 / long["seat"].nunique())
    figures.append({"file": "win_rate_by_seat.png",  # whether seating matters: the seat conclusion, at equal skill
                    "reading": "Each bar is a seat's win rate over every game, mixed lineups included (strategies "
                               "rotated through seats); the dashed line is what a perfectly fair seat would win. "
                               "Whether seating matters is judged at equal skill, in the seat section."})
    if two_player and long["strategy"].nunique() > 1:
        # row strategy's win rate against column strategy
        matrix = long.groupby(["strategy", "opponent"], observed=True)["win_share"].mean().unstack("opponent")
        plot_matchups(matrix, outdir / "matchups.png", "Matchups: row strategy's win rate against column")
        figures.append({"file": "matchups.png",
                        "reading": "Each cell is how often the row strategy beats the column strategy; blue "
                                   "favours the row, red the column, 50 is an even matchup."})
    more = []
    if summary is not None:
        strength_figures, more = meta_game_section(summary, outdir, colors, players)
        figures += strength_figures
    return [{"title": "Who wins", "figures": figures}] + more


def wide_players(players: pd.DataFrame, columns=()) -> tuple[np.ndarray, np.ndarray, np.ndarray, list, dict]:
    """A players table (one row per player-game) as per-game arrays, games in increasing id order:
    (game ids, strategy codes (games, seats), win shares (games, seats), strategy names, {column: array})."""
    p = int(players["seat"].max()) + 1
    ordered = players.sort_values(["game", "seat"], kind="stable")
    strategy = ordered["strategy"]
    strategy = strategy if isinstance(strategy.dtype, pd.CategoricalDtype) else strategy.astype("category")
    codes = np.asarray(strategy.cat.codes, dtype=np.int64).reshape(-1, p)
    win = ordered["win_share"].to_numpy(dtype=float).reshape(-1, p)
    extra = {c: ordered[c].to_numpy(dtype=float).reshape(-1, p) for c in columns}
    return (ordered["game"].to_numpy()[::p], codes, win, [str(c) for c in strategy.cat.categories], extra)
