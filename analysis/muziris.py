"""Merchants of Muziris report: metrics for summary.json and the report's panels. Vectorised pandas only."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis.stats import mean, rate, wilson
from analysis.style import ACCENT, NEUTRAL, new_figure, save, strategy_colors

SOURCES = ("coins_characters", "coins_abilities", "coins_setup", "coins_condition")


def _condition_names(meta: dict, n: int) -> list[str]:
    names = list((meta.get("config") or {}).get("conditions", {}))
    return names if len(names) >= n else names + [f"condition {i}" for i in range(len(names), n)]


def summarize(tables: dict[str, pd.DataFrame], meta: dict) -> dict:
    games, players = tables["games"], tables["players"]
    n = len(games)
    out = {}
    first = players[players["first_player"]]
    out["first_player_win_rate"] = rate(first["win_share"].sum(), n)
    seat_wins = players.groupby("seat", observed=True)["win_share"].agg(["sum", "size"])
    for seat, row in seat_wins.iterrows():
        out[f"seat_win_rate[{int(seat)}]"] = rate(row["sum"], row["size"])
    by_strategy = players.groupby("strategy", observed=True)["win_share"].agg(["sum", "size"])
    for name, row in by_strategy.iterrows():
        out[f"win_rate[{name}]"] = rate(row["sum"], row["size"])
    out["rounds_per_game"] = mean(games["rounds"])
    out["tie_rate"] = rate(int((games["n_winners"] > 1).sum()), n)
    out["round_cap_rate"] = rate(int((games["end_reason"] == 2).sum()), n)
    out["coins_short_rate"] = rate(int(games["coins_short"].sum()), n)
    return out


def _err(est, lo, hi):
    est, lo, hi = (np.nan_to_num(np.asarray(a, dtype=float)) for a in (est, lo, hi))
    return np.clip([est - lo, hi - est], 0, None)


def _bars(ax, labels, est, lo, hi, colors=ACCENT):
    x = np.arange(len(labels))
    ax.bar(x, est, color=colors, yerr=_err(est, lo, hi), capsize=3, ecolor="#333333")
    ax.set_xticks(x, labels, rotation=20 if len(labels) > 5 else 0, ha="right" if len(labels) > 5 else "center")


def sections(tables, meta, summary, outdir: Path) -> list[dict]:
    outdir = Path(outdir)
    games, players = tables["games"], tables["players"]
    P = int(meta.get("players") or players["seat"].max() + 1)
    n = len(games)
    out = []

    # 1. first player and seats
    pos = (players["seat"].astype(int) - np.repeat(games["first_player"].to_numpy().astype(int), P)) % P
    g = players.groupby(pos.to_numpy())["win_share"].agg(["sum", "size"])
    lo, hi = wilson(g["sum"], g["size"])
    fig, ax = new_figure()
    _bars(ax, ["first player"] + [f"+{i} (clockwise)" for i in range(1, P)], g["sum"] / g["size"], lo, hi)
    ax.axhline(1 / P, color=NEUTRAL, ls="--", label=f"fair share 1/{P}")
    ax.set_ylabel("win rate (shared wins split)")
    ax.set_title("Win rate by position relative to the round-1 first player (95% intervals)")
    ax.legend()
    save(fig, outdir / "muziris_first_player.png")
    s = players.groupby("seat", observed=True)["win_share"].agg(["sum", "size"])
    lo, hi = wilson(s["sum"], s["size"])
    fig, ax = new_figure()
    _bars(ax, [f"seat {i}" for i in s.index], s["sum"] / s["size"], lo, hi)
    ax.axhline(1 / P, color=NEUTRAL, ls="--", label=f"fair share 1/{P}")
    ax.set_ylabel("win rate")
    ax.set_title("Win rate by seat (seats rotate between strategies; 95% intervals)")
    ax.legend()
    save(fig, outdir / "muziris_seats.png")
    fp = summary["first_player_win_rate"]
    out.append({"title": "First-player advantage and seats",
                "text": (f"The round-1 first player acts twice in every round they lead and the marker passes "
                         f"left each round. Over {n:,} games the round-1 first player won "
                         f"{fp['estimate']:.1%} (95% interval {fp['ci_low']:.1%} to {fp['ci_high']:.1%}) "
                         f"against a fair share of {1 / P:.1%}."),
                "figures": [{"file": "muziris_first_player.png",
                             "reading": "Each bar is how often the player sitting that many seats after the "
                                        "round-1 first player wins; the dashed line is an even share."},
                            {"file": "muziris_seats.png",
                             "reading": "Each bar is how often a fixed seat wins; bars near the dashed line "
                                        "mean seating does not matter."}]})

    # 2. strategies and market conditions
    names = sorted(players["strategy"].astype(str).unique())
    colors = strategy_colors(names)
    st = players.groupby(players["strategy"].astype(str))["win_share"].agg(["sum", "size"]).reindex(names)
    lo, hi = wilson(st["sum"], st["size"])
    fig, ax = new_figure()
    _bars(ax, names, st["sum"] / st["size"], lo, hi, [colors[k] for k in names])
    ax.axhline(1 / P, color=NEUTRAL, ls="--", label=f"fair share 1/{P}")
    ax.set_ylabel("win rate")
    ax.set_title("Win rate by strategy (95% intervals)")
    ax.legend()
    save(fig, outdir / "muziris_strategies.png")
    conds = _condition_names(meta, int(games["condition"].max()) + 1)
    cond = np.repeat(games["condition"].to_numpy(), P)
    tab = players.assign(cond=cond, strat=players["strategy"].astype(str)).groupby(
        ["cond", "strat"])["win_share"].agg(["sum", "size"]).reset_index()
    fig, ax = new_figure(8.5, 4.5)
    ncond = int(games["condition"].max()) + 1
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        part = tab[tab["strat"] == name].set_index("cond").reindex(range(ncond))
        est = (part["sum"] / part["size"]).to_numpy()
        lo, hi = wilson(part["sum"].to_numpy(), part["size"].to_numpy())
        ax.bar(np.arange(ncond) + i * width - 0.4 + width / 2, est, width, color=colors[name], label=name,
               yerr=_err(est, lo, hi), capsize=2, ecolor="#333333")
    ax.set_xticks(np.arange(ncond), conds[:ncond])
    ax.axhline(1 / P, color=NEUTRAL, ls="--")
    ax.set_ylabel("win rate")
    ax.set_title("Win rate by strategy under each market condition (95% intervals)")
    ax.legend(fontsize=8, ncol=3)
    save(fig, outdir / "muziris_conditions.png")
    out.append({"title": "Strategies and market conditions",
                "text": "Shared victories are credited 1/k to each of k winners. The market condition is drawn "
                        "once per game, so each group holds about a quarter of the games.",
                "figures": [{"file": "muziris_strategies.png",
                             "reading": "How often each strategy wins over all its games, seats rotated."},
                            {"file": "muziris_conditions.png",
                             "reading": "The same win rates split by the market condition drawn for the game."}]})

    # 3. length and end
    fig, ax = new_figure()
    top = int(games["rounds"].max())
    for c in range(ncond):
        r = games.loc[games["condition"] == c, "rounds"]
        counts = np.bincount(r, minlength=top + 1)[1:] / max(1, len(r))
        ax.plot(np.arange(1, top + 1), counts, marker="o", ms=3, label=conds[c])
    ax.set_xlabel("rounds in the game")
    ax.set_ylabel("share of games")
    ax.set_title("Game length by market condition")
    ax.legend()
    save(fig, outdir / "muziris_rounds.png")
    rpg = summary["rounds_per_game"]
    cap = int((games["end_reason"] == 2).sum())
    out.append({"title": "Rounds per game and what ended it",
                "text": (f"Games last {rpg['estimate']:.2f} rounds on average. {n - cap:,} games ended by the "
                         f"market condition's trigger and {cap:,} by the simulator's round cap "
                         f"({cap / max(1, n):.2%})."),
                "figures": [{"file": "muziris_rounds.png",
                             "reading": "For each market condition, the share of games lasting each number "
                                        "of rounds."}]})

    # 4. characters
    if "characters" in tables and "picks" in tables:
        ch = tables["characters"].groupby("name", sort=False)[["rounds_in_play", "picks"]].sum()
        ch = ch[ch["rounds_in_play"] > 0]
        pr = ch["picks"] / ch["rounds_in_play"]
        pk = tables["picks"].assign(total=lambda d: d["coins"].astype(float) * d["count"])
        mc = pk.groupby("name", sort=False)[["total", "count"]].sum()
        fig, ax = new_figure()
        x = np.arange(len(ch))
        ax.bar(x, pr.to_numpy(), color=ACCENT)
        ax.set_xticks(x, ch.index)
        ax.set_ylabel("uses per round in play")
        ax.set_title("Character pick rate (final rounds may use a character more than once)")
        save(fig, outdir / "muziris_picks.png")
        fig, ax = new_figure()
        coins_mean = (mc["total"] / mc["count"]).reindex(ch.index)
        ax.bar(x, coins_mean.to_numpy(), color=ACCENT)
        ax.set_xticks(x, ch.index)
        ax.set_ylabel("coins on the character when taken (mean)")
        ax.set_title("Coins waiting on a character when it is used")
        save(fig, outdir / "muziris_pick_coins.png")
        out.append({"title": "Characters",
                    "text": "Each round one character goes unused and gains a coin. A character's pick rate is "
                            "its uses divided by the rounds it was in play; coins on a character are counted "
                            "up to 40 (40 or more count as 40).",
                    "figures": [{"file": "muziris_picks.png",
                                 "reading": "How often each character is used in a round it is in play."},
                                {"file": "muziris_pick_coins.png",
                                 "reading": "How many coins, on average, lay on a character when a player "
                                            "chose it."}]})

    # 5. coins by source
    order_cols = [c for c in players.columns if c.startswith("coins_order_")]
    cols = order_cols + list(SOURCES)
    means = players.groupby(players["strategy"].astype(str))[cols].mean().reindex(names)
    fig, ax = new_figure(8.5, 4.5)
    bottom = np.zeros(len(names))
    cmap = __import__("matplotlib").colormaps["tab20"]
    for i, c in enumerate(cols):
        label = c.replace("coins_order_", "orders: ").replace("coins_", "")
        ax.bar(names, means[c].to_numpy(), bottom=bottom, color=cmap(i % 20), label=label)
        bottom += means[c].to_numpy()
    ax.set_ylabel("coins per game (mean)")
    ax.set_title("Where each strategy's coins come from")
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, outdir / "muziris_sources.png")
    out.append({"title": "Coins by source",
                "text": "Orders are split by produce; the rest are coins lying on characters, produce and "
                        "character abilities (gain, per-order, the Broker's extra coin), setup coins and the "
                        "market condition's end-of-game coins.",
                "figures": [{"file": "muziris_sources.png",
                             "reading": "Stacked mean coins per game for each strategy, by where they came "
                                        "from."}]})

    # 6. order sizes
    if "orders" in tables:
        od = tables["orders"].groupby(["name", "size"], sort=False)["count"].sum().unstack("size").fillna(0)
        share = od.div(od.sum(axis=1).replace(0, 1), axis=0)
        fig, ax = new_figure()
        bottom = np.zeros(len(share))
        for size in share.columns:
            ax.bar(share.index, share[size].to_numpy(), bottom=bottom, label=f"{size} card(s)")
            bottom += share[size].to_numpy()
        ax.set_ylabel("share of orders")
        ax.set_title("Order sizes by produce")
        ax.legend()
        save(fig, outdir / "muziris_order_sizes.png")
        out.append({"title": "Order sizes by produce",
                    "text": f"{int(od.to_numpy().sum()):,} orders in all.",
                    "figures": [{"file": "muziris_order_sizes.png",
                                 "reading": "For each produce, the share of its orders made of 1, 2 or 3 "
                                            "cards."}]})

    # 7. coin supply
    boxed = int((meta.get("config") or {}).get("rules", {}).get("boxed_coins", 205))
    short = summary["coins_short_rate"]
    fig, ax = new_figure()
    ax.hist(games["peak_coins"], bins=50, color=ACCENT)
    ax.axvline(boxed, color="#c0392b", ls="--", label=f"boxed coins ({boxed})")
    ax.set_xlabel("coins out of the supply at the end (players + characters)")
    ax.set_ylabel("games")
    ax.set_title("Coins a game needs from the supply")
    ax.legend()
    save(fig, outdir / "muziris_coins.png")
    out.append({"title": "Is the boxed coin supply enough?",
                "text": (f"The simulator's supply is unlimited. {short['estimate']:.2%} of games (95% interval "
                         f"{short['ci_low']:.2%} to {short['ci_high']:.2%}) would have needed more than the "
                         f"{boxed} coins in the box at some moment."),
                "figures": [{"file": "muziris_coins.png",
                             "reading": "How many coins each game took from the supply; games right of the "
                                        "red line would have run out of boxed coins."}]})
    return out
