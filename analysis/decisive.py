"""What decides games: for each scoring source, how often taking its points away changes who wins (the results
tables rescored with the game's own tie-breaks; each game's sources are in its `analysis/<game>.py`)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from analysis import stats
from analysis.conclusions import said
from analysis.percent import ci, pct
from analysis.style import ACCENT, NEUTRAL, new_figure, save

def slug(name: str) -> str:
    """A source key usable in `--target METRIC=...`: lower case, words joined by underscores."""
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


def winner_mask(keys: list[np.ndarray], tie: str = "share") -> np.ndarray:
    """Winners of each game (rows) among its seats (columns): the seats with the lexicographically largest
    (keys[0], keys[1], ...). tie "share": every seat still level wins; "none": a game still level has none."""
    mask = np.ones(np.shape(keys[0]), dtype=bool)
    for key in keys:
        key = np.asarray(key, dtype=np.int64)
        still = np.where(mask, key, np.iinfo(np.int64).min)
        # the row maximum a column at a time: numpy's max over a short row axis is several times slower
        top = still[:, 0].copy() if still.shape[1] else np.full(len(still), np.iinfo(np.int64).min)
        for seat in range(1, still.shape[1]):
            np.maximum(top, still[:, seat], out=top)
        mask &= key == top[:, None]
    if tie == "none":
        mask &= mask.sum(axis=1, keepdims=True) == 1
    return mask


def sole_winner(mask: np.ndarray) -> np.ndarray:
    """Seat of the only winner, -1 when there is none or several."""
    return np.where(mask.sum(axis=1) == 1, mask.argmax(axis=1), -1)


def changed(actual: np.ndarray, other: np.ndarray) -> np.ndarray:
    return (actual != other).any(axis=1)


def rates(flags: dict[str, np.ndarray], name: str = "decisive_rate") -> dict:
    """Share of games changed; `flags` are booleans or weights in [0, 1] (Mohur's unfinished matches: 1/2). With
    the default name, also `decisive_lead` (`lead`)."""
    out = {f"{name}[{source}]": stats.rate(float(np.sum(f)), len(f)) for source, f in flags.items()}
    if name == "decisive_rate":
        out.update(lead(flags))
    return out


def lead(flags: dict[str, np.ndarray], name: str = "decisive_lead") -> dict:
    """`decisive_lead`: how many more games (a share) the top source surely decides than the next one may, on
    the same games: the mean over games of (first surely changes) - (second changes or may), with a normal
    interval; `first` and `second` name them, ranked as analysis.conclusions.lever_order ranks them (games
    surely changed, then the rate). A paired difference: far narrower than the two rates' own intervals when
    the sources decide the same games. Left out of --summary-only runs (the top two can differ by batch) and
    with fewer than two sources."""
    if stats.is_aggregating() or len(flags) < 2:
        return {}
    values = {s: np.asarray(f, dtype=float) for s, f in flags.items()}
    certain = {s: v >= 1.0 for s, v in values.items()}
    order = sorted(values, key=lambda s: (-int(certain[s].sum()), -float(values[s].sum())))
    first, second = order[0], order[1]
    return {name: {**stats.mean(certain[first].astype(float) - (values[second] > 0)), "first": first,
                   "second": second}}


# ---- seat-per-row games (each game's sources are in its own analysis/<game>.py) ---------------------------
def seat_grid(players: pd.DataFrame, n_seats: int, column: str, order: np.ndarray | None = None) -> np.ndarray:
    """A players-table column as [game, seat] (rows in game order, then seat order); `order` is seat_order's
    result, to sort a large table once for many columns."""
    order = seat_order(players) if order is None else order
    return players[column].to_numpy(np.int64)[order].reshape(-1, n_seats)


def seat_order(players: pd.DataFrame) -> np.ndarray:
    return np.lexsort((players["seat"].to_numpy(), players["game"].to_numpy()))


# ---- report ---------------------------------------------------------------------------------------------------
def _table(summary: dict, name: str, labels: dict) -> pd.DataFrame:
    rows = []
    for key, m in summary.items():
        if key.startswith(f"{name}[") and key.count("[") == 1 and isinstance(m, dict) and m.get("n"):
            source = key[len(name) + 1:-1]
            certain, ambiguous = (summary.get(f"{key}[{part}]") or {} for part in ("certain", "ambiguous"))
            rows.append({"source": source, "label": labels.get(source, source), "rate": m["estimate"],
                         "ci_low": m["ci_low"], "ci_high": m["ci_high"], "n": m["n"],
                         "certain": certain.get("estimate", m["estimate"]),
                         "certain_low": certain.get("ci_low", m["ci_low"]),
                         "ambiguous": ambiguous.get("estimate", 0.0),
                         "ambiguous_high": ambiguous.get("ci_high", 0.0)})
    return pd.DataFrame(rows, columns=["source", "label", "rate", "ci_low", "ci_high", "n", "certain",
                                       "certain_low", "ambiguous", "ambiguous_high"])


def _plot(table: pd.DataFrame, path, title: str, unit: str, rounds: pd.DataFrame | None = None) -> None:
    fig, ax = new_figure(7.5, max(2.6, 0.42 * len(table) + 1.2))
    y = np.arange(len(table))[::-1]
    height = 0.4 if rounds is not None else 0.7
    series = [(table, 0.0, ACCENT, unit)]
    if rounds is not None:
        series = [(table, height / 2, ACCENT, unit),
                  (rounds.set_index("source").reindex(table["source"]).reset_index(), -height / 2, NEUTRAL,
                   "rounds")]
    for frame, shift, color, label in series:
        rate = frame["rate"].to_numpy(float) * 100
        if frame is table and (table["ambiguous"] > 0).any():  # the certain part solid, the unfinished pale
            certain, ambiguous = (table[c].to_numpy(float) * 100 for c in ("certain", "ambiguous"))
            ax.barh(y + shift, certain, height=height, color=color, label=f"{label}: winner surely changes")
            ax.barh(y + shift, ambiguous, left=certain, height=height, color=color, alpha=0.3,
                    label=f"{label}: left unfinished (counted as half)")
        else:
            ax.barh(y + shift, rate, height=height, color=color, label=label)
        low = np.clip(rate - frame["ci_low"].to_numpy(float) * 100, 0, None)  # Wilson at 0/n: rounding
        high = np.clip(frame["ci_high"].to_numpy(float) * 100 - rate, 0, None)
        ax.errorbar(rate, y + shift, xerr=[low, high], fmt="none", ecolor="black", capsize=3, lw=1)
    ax.set_yticks(y, table["label"])
    ax.set(xlabel=f"{unit} whose winner changes without the source (%); bars: 95% interval", title=title)
    ax.grid(axis="x", alpha=0.3)
    ax.grid(axis="y", visible=False)
    if rounds is not None or (table["ambiguous"] > 0).any():
        # under the axis, not on the bars
        ax.legend(frameon=False, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)
    save(fig, path)


def ranked(table: pd.DataFrame) -> pd.DataFrame:
    """Sources in an order the data support: by the games they surely decide (the certain part), the counted
    half of the unfinished ones breaking no ties. Sources without an ambiguous part keep their plain rate."""
    return table.sort_values(["certain", "rate"], ascending=False, kind="stable")


def overlapping(table: pd.DataFrame) -> list[tuple[str, str]]:
    """Neighbouring sources (in `ranked` order) whose possible rates overlap: the certain part's interval low
    end against the other's certain plus every ambiguous game (interval high end): their order is not known."""
    rows = list(table.itertuples())
    return [(a.label, b.label) for a, b in zip(rows, rows[1:]) if b.ambiguous > 0 or a.ambiguous > 0
            if b.certain + b.ambiguous_high >= a.certain_low]


def _reading(table: pd.DataFrame, unit: str) -> str:
    """"Babur's bonus decides 9.1% of games (95% CI 8.7%-9.5%); Akbar's 5.0%; ..." in the chart's order."""
    top = table.iloc[0]
    lead = f"{top['label'][:1].upper()}{top['label'][1:]} decides {pct(top['rate'])} of {unit} "
    if (table["ambiguous"] > 0).any():  # Mohur: certain and ambiguous parts, ranked on the certain one
        parts = [f"{row.label} {pct(row.rate)} ({pct(row.certain)} certain + {pct(row.ambiguous)} unfinished)"
                 for row in table.itertuples()]
        ties = overlapping(table)
        parts[0] = lead + f"({pct(top['certain'])} surely, {pct(top['ambiguous'])} left unfinished, counted as half)"
        tail = (" Ranked by the certain part; the data cannot order " + "; ".join(f"{a} and {b}" for a, b in ties)
                + " (each could lie anywhere from its certain part to that plus every unfinished match)."
                if ties else " Ranked by the certain part.")
        return "; ".join(parts) + "." + tail
    parts = [f"{row.label} {pct(row.rate)}" for row in table.itertuples()]
    parts[0] = lead + f"({ci({'estimate': top['rate'], 'ci_low': top['ci_low'], 'ci_high': top['ci_high']})})"
    never = table[table["ci_high"] < 0.001]
    tail = (f" {len(never)} source(s) practically never decide one (below 0.1%)." if len(never) else "")
    return "; ".join(parts) + "." + tail


def section(summary: dict, labels: dict, outdir, unit: str = "games", with_rounds: bool = False) -> dict | None:
    """The report's "What decides games" section from the summary's decisive rates (None when it has none)."""
    table = ranked(_table(summary, "decisive_rate", labels))
    if table.empty:
        return None
    rounds = _table(summary, "decisive_round_rate", labels) if with_rounds else None
    _plot(table, outdir / "decisive.png", "What decides games: winner changes without the source", unit,
          rounds if rounds is not None and len(rounds) else None)
    lead = said(summary, "top_lever")
    text = ((lead + " " if lead else "") + "For each source of points, the share of " + unit + " whose winner would change if that source's "
            "points were taken away from every player, with every card played as it was (players might have "
            "played differently without it). A source that decides few games can be retuned with little effect "
            "on who wins; one that decides many is where a change will be felt.")
    if with_rounds:
        text += (" A Mohur match is won by rounds: a source that swings a round need not swing the match, so "
                 "both are shown (grey: rounds). A match whose rounds, rescored, no longer finish it (2-0 becomes "
                 "1-1) counts as half a change: its deciding round was never played.")
    return {"title": "What decides games", "text": text,
            "figures": [{"file": "decisive.png", "reading": _reading(table, unit)}]}
