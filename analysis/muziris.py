"""Merchants of Muziris report: metrics for summary.json and the report's panels. Vectorised pandas only."""
from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from analysis import across_skill, common, conclusions as C, decisive, edges, skill, percent, strata
from analysis.findings import assumed_pace
from analysis.common import section
from analysis.decisive import changed, rates, seat_grid, seat_order, slug, winner_mask
from analysis.stats import mean, rate, wilson
from analysis.style import ACCENT, NEUTRAL, clip_upper, new_figure, overflow_note, save, strategy_colors
from matplotlib import colormaps

from sim.muziris.config import parse_steps
from sim.muziris.engine import END, K_FULFIL, K_GAIN, K_PER_ORDER
from analysis.formatting import Markup, fmt_metric, mirror_table, tag, table as html_table

HEADLINES = ("first_player_win_rate", "rounds_per_game", "minutes_per_game", "tie_rate", "round_cap_rate",
             "coins_short_rate")
SOURCES = ("coins_characters", "coins_abilities", "coins_setup", "coins_condition")


def condition_label(name: str) -> str:
    """A market condition's key in a designer's words: `royal_treasury` reads "Royal Treasury"."""
    return str(name).replace("_", " ").strip().title() if "_" in str(name) or str(name).islower() else str(name)


def _condition_names(meta: dict, n: int) -> list[str]:
    names = list((meta.get("config") or {}).get("conditions", {}))
    return names if len(names) >= n else names + [f"condition {i}" for i in range(len(names), n)]


def finding_context(meta, tables=None) -> dict:
    """The decisive sources' names for analysis.findings (a summary-only run has no players table: key names)."""
    pace = assumed_pace(_seconds_per_action(meta), "a character action", "report.seconds_per_action")
    if not tables or "players" not in tables:
        return {"pace": pace}
    return {"pace": pace, "labels": {key: label for key, (label, _) in
                                     decisive_columns(meta.get("config") or {}, tables["players"]).items()}}


def _seconds_per_action(meta: dict):
    return ((meta.get("config") or {}).get("report") or {}).get("seconds_per_action")


def _minutes_metrics(games: pd.DataFrame, meta: dict) -> dict:
    """Playing time at `report.seconds_per_action` (an assumption the configuration states) for every character
    use of a game (the games table counts them: `uses`)."""
    seconds = _seconds_per_action(meta)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or "uses" not in games or not len(games):
        return {}
    return {"minutes_per_game": mean(games["uses"].astype(float) * float(seconds) / 60.0)}


def summarize(tables: dict[str, pd.DataFrame], meta: dict) -> dict:
    games, players = tables["games"], tables["players"]
    n = len(games)
    out = position_metrics(games, players)
    out.update(common.win_rate_metrics(players))
    out.update(common.win_rate_vs_field_metrics(players, "game"))
    out["rounds_per_game"] = mean(games["rounds"])
    out.update(_minutes_metrics(games, meta))
    out["tie_rate"] = rate(int((games["n_winners"] > 1).sum()), n)
    out["round_cap_rate"] = rate(int((games["end_reason"] == END["round_cap"]).sum()), n)
    out["coins_short_rate"] = rate(int(games["coins_short"].sum()), n)
    ids, strategy, win, names, extra = common.wide_players(players, ["coins", "coins_condition"])
    out.update(common.meta_game_metrics(strategy, win, names, common.head_to_head(
        strategy, [extra["coins"], extra["coins_condition"]], names)))
    out.update(_skill_metrics(games, players, meta))
    out.update(decisive_metrics(players, meta.get("config") or {},
                                int(meta.get("players") or players["seat"].max() + 1),
                                games, _condition_names(meta, int(games["condition"].max()) + 1 if n else 0)))
    p = strategy.shape[1]
    first = games.set_index("game")["first_player"].reindex(ids).to_numpy().astype(np.int64)
    out.update(across_skill.players_metrics(
        players, meta, ids, strategy, win, names, [extra["coins"], extra["coins_condition"]],
        (np.tile(np.arange(p), (len(strategy), 1)) - first[:, None]) % p,
        lambda k: C.position_words("position_win_rate", k) + " wins", decisive_metrics))  # as the seat finding
    return out


def strata_frames(tables: dict, meta: dict) -> list[strata.Frame]:
    """The variables a Muziris edge is split by (analysis.strata): drawn before play, the market condition and the
    round-1 first player's seat; taken in play, ending the game (the trigger) and the market condition's end
    scoring (the most condition coins, shared when level)."""
    games, players = tables["games"], tables["players"]
    ids, strategy, win, _, extra = common.wide_players(players, ["coins_condition"])
    p = strategy.shape[1]
    by_game = games.set_index("game").reindex(ids)
    first = by_game["first_player"].to_numpy().astype(np.int64)
    seat = np.tile(np.arange(p), (len(ids), 1))
    position = (seat - first[:, None]) % p
    labels = ("first player",) + tuple(f"+{k}" for k in range(1, p))
    conds = np.array([c.replace("_", " ") for c in _condition_names(meta, int(by_game["condition"].max()) + 1)])
    cc = extra["coins_condition"]
    most = (cc == cc.max(axis=1, keepdims=True)) & (cc > 0)
    trigger = by_game["trigger_seat"].to_numpy()[:, None] == seat
    return [strata.Frame("games", win, edges.is_mirror(strategy), [
        strata.Edge("position_win_rate", "the first-player edge", tuple(f"position_win_rate[{k}]" for k in range(p)),
                    labels, position),
        strata.Edge("seat_win_rate", "the fixed-seat edge", tuple(f"seat_win_rate[{k}]" for k in range(p)),
                    tuple(f"seat {k}" for k in range(p)), seat)],
        [strata.Setup("condition", "market condition", conds[by_game["condition"].to_numpy()],
                      "the {} market condition"),
         strata.Setup("first_player", "starting seat", np.array([f"seat {s}" for s in first]), "{} starting")],
        [strata.Event("trigger", "the end trigger", trigger, "player who triggers the end"),
         strata.Event("condition_most", "the market condition's end scoring", most,
                     "player who scores the most at the market condition's end scoring (shared when level)")],
        {"player count": f"{p} players"})]


def position_metrics(games: pd.DataFrame, players: pd.DataFrame) -> dict:
    """Equal-skill win rate (`analysis.edges`) by position after the round-1 first player (`position_win_rate[k]`,
    k = 0 also `first_player_win_rate`) and by fixed seat (`seat_win_rate[s]`), with `[mirror=...]`, `[all_games]`."""
    ids, strategy, win, names, _ = common.wide_players(players)
    p = strategy.shape[1]
    first = games.set_index("game")["first_player"].reindex(ids).to_numpy().astype(np.int64)
    seat = np.tile(np.arange(p), (len(strategy), 1))
    out = {}
    by_position = edges.position_edges(strategy, (seat - first[:, None]) % p, win, names, p)
    edges.put(out, "first_player_win_rate", by_position, 0)
    for k in range(p):
        edges.put(out, f"position_win_rate[{k}]", by_position, k)
    by_seat = edges.position_edges(strategy, seat, win, names, p)
    for k in range(p):
        edges.put(out, f"seat_win_rate[{k}]", by_seat, k)
    return out


def _coin_steps(steps) -> bool:
    """Whether an ability or character action can give coins by itself (gain, per order, a fulfil bonus)."""
    parsed = parse_steps("", steps, True)  # the run validated this configuration: it parses
    return any((k in (K_GAIN, K_FULFIL) and a0 > 0) or (k == K_PER_ORDER and a0 > 0 and a1 > 0)
               for k, a0, a1 in parsed)


def decisive_columns(cfg: dict, players: pd.DataFrame) -> dict:
    """Source key (analysis.decisive) -> (label, players-table column). Abilities and character actions are listed
    only when the configuration lets them give coins (so sweeps see the same keys in every variant)."""
    out = {f"orders_{slug(p)}": (f"{p} orders", f"coins_order_{p}") for p in cfg.get("produce", {})
           if f"coins_order_{p}" in players}
    out["character_coins"] = ("coins on characters", "coins_characters")
    for name, entry in cfg.get("characters", {}).items():
        if f"coins_action_{name}" in players and _coin_steps(entry.get("action")):
            out[f"action_{slug(name)}"] = (f"{name[:1].upper()}{name[1:]}'s action", f"coins_action_{name}")
    for name, entry in cfg.get("produce", {}).items():
        if f"coins_ability_{name}" in players and _coin_steps(entry.get("ability")):
            out[f"ability_{slug(name)}"] = (f"{name}'s ability", f"coins_ability_{name}")
    out["setup_coins"] = ("setup coins", "coins_setup")
    out["condition"] = ("market condition", "coins_condition")
    return out


def decisive_metrics(players: pd.DataFrame, cfg: dict, n_seats: int, games: pd.DataFrame | None = None,
                     conditions: list[str] = ()) -> dict:
    """decisive_rate per source (analysis.decisive): the winner without its coins; with `games`, also per market
    condition drawn, `decisive_rate[<source>][condition=<name>]` (a source can matter under one condition only)."""
    order = seat_order(players)
    grid = partial(seat_grid, players, n_seats, order=order)
    coins, condition = grid("coins"), grid("coins_condition")
    actual = winner_mask([coins, condition])  # most coins, then most condition coins, then shared
    flags = {}
    for key, (_, column) in decisive_columns(cfg, players).items():
        part = grid(column)
        flags[key] = changed(actual, winner_mask([coins - part, condition - (part if key == "condition" else 0)]))
    out = rates(flags)
    if games is not None and len(games) and "condition" in games:
        ids = players["game"].to_numpy()[order][::n_seats]  # the grid's rows, in order
        drawn = games.set_index("game")["condition"].reindex(ids).to_numpy()
        for c, name in enumerate(conditions):
            under = drawn == c
            if under.any():
                for key, f in flags.items():
                    out[f"decisive_rate[{key}][condition={name}]"] = rate(float(f[under].sum()), int(under.sum()))
    return out


def _decisive_by_condition(summary: dict, labels: dict, conditions: list[str]) -> Markup:
    """The decisive rates split by the market condition drawn: a table, sources by overall rate."""
    sources = sorted((k[len("decisive_rate["):-1] for k in summary
                      if k.startswith("decisive_rate[") and k.count("[") == 1),
                     key=lambda s: -(summary[f"decisive_rate[{s}]"] or {}).get("estimate", 0) or 0)
    present = [c for c in conditions if any(f"decisive_rate[{s}][condition={c}]" in summary for s in sources)]
    if not sources or not present:
        return Markup("")
    rows = [[labels.get(s, s)] + [fmt_metric("rate", summary.get(f"decisive_rate[{s}][condition={c}]")) for c in present]
            for s in sources]
    return Markup(tag("p", "The same, under each market condition drawn (a source may decide games under one "
                           "condition only):") + html_table(["source", *[condition_label(c) for c in present]], rows))


def _level_rates(games: pd.DataFrame, players: pd.DataFrame, mask) -> dict:
    """Headline rates over a subset of games (a boolean mask over `games`)."""
    g = games[mask]
    ids = set(g["game"].to_numpy().tolist())
    fp = players[players["first_player"] & players["game"].isin(ids)]
    trig = g[g["trigger_seat"] >= 0]
    return {"first_player_win_rate": rate(fp["win_share"].sum(), len(g)),
            "trigger_seat_win_rate": rate(int(((trig["winner"] == trig["trigger_seat"])).sum()), len(trig)),
            "tie_rate": rate(int((g["n_winners"] > 1).sum()), len(g)),
            "round_cap_rate": rate(int((g["end_reason"] == END["round_cap"]).sum()), len(g))}


def _pairs(players: pd.DataFrame) -> pd.DataFrame:
    """Every ordered pair of seats in a game: (strategy, opponent, win_share), 1 when the first finished ahead
    (coins, then market-condition coins), 0.5 when level, else 0: a head-to-head record whose fair value is 50%."""
    cols = ["game", "seat", "strategy", "coins", "coins_condition"]
    p = players[cols].assign(strategy=players["strategy"].astype(str))
    m = p.merge(p, on="game", suffixes=("", "_o"))
    m = m[m["seat"] != m["seat_o"]]
    ahead = (m["coins"] > m["coins_o"]) | ((m["coins"] == m["coins_o"])
                                          & (m["coins_condition"] > m["coins_condition_o"]))
    level = (m["coins"] == m["coins_o"]) & (m["coins_condition"] == m["coins_condition_o"])
    return pd.DataFrame({"strategy": m["strategy"].to_numpy(), "opponent": m["strategy_o"].to_numpy(),
                         "win_share": np.where(ahead, 1.0, np.where(level, 0.5, 0.0))})


def _skill_metrics(games: pd.DataFrame, players: pd.DataFrame, meta: dict) -> dict:
    """Only when a search strategy played: headline rates among heuristic-only and search-only games, and
    the skill gap (each search strategy's head-to-head record against each heuristic, see `_pairs`)."""
    search = skill.search_names(meta)
    cols = sorted((c for c in games.columns if c.startswith("strategy_")), key=lambda c: int(c.split("_")[1]))
    if not search or not cols or not games[cols].astype(str).isin(search).any().any():
        return {}
    level = skill.levels(games, search, cols)
    return {**skill.by_level(lambda name: _level_rates(games, players, level == name)),
            **skill.gap_metrics(_pairs(players), search)}


def _err(est, lo, hi):
    est, lo, hi = (np.nan_to_num(np.asarray(a, dtype=float)) for a in (est, lo, hi))
    return np.clip([est - lo, hi - est], 0, None)


def _bars(ax, labels, est, lo, hi, colors=ACCENT):
    x = np.arange(len(labels))
    ax.bar(x, est, color=colors, yerr=_err(est, lo, hi), capsize=3, ecolor="#333333")
    ax.set_xticks(x, labels, rotation=20 if len(labels) > 5 else 0, ha="right" if len(labels) > 5 else "center")


def sections(tables, meta, summary, outdir: Path) -> list[dict]:
    """The report's Muziris sections, in page order."""
    outdir = Path(outdir)
    games, players = tables["games"], tables["players"]
    P = int(meta.get("players") or players["seat"].max() + 1)
    ncond = int(games["condition"].max()) + 1
    conds = _condition_names(meta, ncond)[:ncond]  # the conditions this run drew, by index
    strategy = common.names_of(players["strategy"])  # once: the sections below group and select by it
    out = [_seats_section(summary, P, outdir)]
    strength_figures, meta_sections = common.meta_game_section(summary, outdir, strategy_colors(strategy.unique()), P)
    out.append(_strategies_section(games, players, strategy, conds, P, outdir))
    out[-1]["figures"] += strength_figures
    out += meta_sections
    out.append(_length_section(games, summary, meta, conds, outdir))
    if "characters" in tables and "picks" in tables:
        out.append(_characters_section(tables["characters"], tables["picks"], outdir))
    out.append(_sources_section(players, strategy, outdir))
    if "orders" in tables:
        out.append(_order_sizes_section(tables["orders"], outdir))
    out.append(_coin_supply_section(games, summary, meta, outdir))
    labels = {key: label for key, (label, _) in decisive_columns(meta.get("config") or {}, players).items()}
    what_decides = decisive.section(summary, labels, outdir)
    if what_decides is not None:
        what_decides["html"] = _decisive_by_condition(summary, labels, conds)
    return out + across_skill.closing_sections(summary, labels, what_decides,
                                               gap_note="a head-to-head record in the same game: 50% is even")


def _seats_section(summary: dict, P: int, outdir: Path) -> dict:
    """How often each position after the round-1 first player and each fixed seat wins at equal skill."""
    source = summary.get("first_player_win_rate") or {}
    pool = "mirror games" if source.get("population") == edges.MIRROR else "model at equal skill"
    _position_bars(summary, "position_win_rate", ["first player"] + [f"+{i} (clockwise)" for i in range(1, P)], P,
                   outdir / "muziris_first_player.png", f"Win rate by position after the round-1 first player ({pool})")
    _position_bars(summary, "seat_win_rate", [f"seat {i}" for i in range(P)], P, outdir / "muziris_seats.png",
                   f"Win rate by seat ({pool}; 95% intervals)")
    return section(
        "First-player advantage and seats", _first_player_text(summary, P),
        ("muziris_first_player.png", "Each bar is how often the player sitting that many seats after the round-1 "
         "first player wins, at equal skill; the dashed line is an even share."),
        ("muziris_seats.png", "Each bar is how often a fixed seat wins at equal skill; bars near the dashed line "
         "mean seating does not matter."),
        html=mirror_table(summary, [f"position_win_rate[{k}]" for k in range(P)],
                          ["first player wins"] + [f"+{k} (clockwise) wins" for k in range(1, P)]))


def _position_bars(summary: dict, prefix: str, labels: list[str], P: int, path: Path, title: str) -> None:
    """Win rate of each position (or seat) with its 95% interval against the fair share; no bar for too few games."""
    ms = [{} if edges.too_few(m) else m for m in (summary.get(f"{prefix}[{k}]") or {} for k in range(P))]
    est, lo, hi = (np.array([m.get(f, np.nan) for m in ms], dtype=float) for f in ("estimate", "ci_low", "ci_high"))
    fig, ax = new_figure()
    _bars(ax, labels, est * 100, lo * 100, hi * 100)
    ax.axhline(100 / P, color=NEUTRAL, ls="--", label=f"fair share {100 / P:.1f}%")
    ax.set(ylabel="win rate (%), shared wins split", title=title)
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # beside the bars, not on them
    save(fig, path)


def _first_player_text(summary: dict, P: int) -> str:
    """The round-1 first player's win rate at equal skill, its test against a fair share, and over every game."""
    fp = summary.get("first_player_win_rate")
    naive = summary.get("first_player_win_rate[all_games]")
    text = C.said(summary, "seat_edge") + (" The round-1 first player acts twice in every round they lead and the "
                                            "marker passes left each round. ")
    if fp:  # its figure is the table's and the chart's; whether seating matters, the conclusion above says
        text += edges.source_sentence(fp, "games")
    if naive and naive.get("n"):
        text += f" Over every game, mixed lineups included, the figure is {percent.pct(naive['estimate'])}."
    return text


def _strategies_section(games, players, strategy: pd.Series, conds: list[str], P: int, outdir: Path) -> dict:
    """Each strategy's win rate over all its games and under each market condition drawn."""
    names = sorted(strategy.unique())
    colors = strategy_colors(names)
    st = players.groupby(strategy)["win_share"].agg(["sum", "size"]).reindex(names)
    lo, hi = wilson(st["sum"], st["size"])
    fig, ax = new_figure()
    _bars(ax, names, st["sum"] / st["size"] * 100, lo * 100, hi * 100, [colors[k] for k in names])
    ax.axhline(100 / P, color=NEUTRAL, ls="--", label=f"fair share {100 / P:.1f}%")
    ax.set(ylabel="win rate (%)", title="Win rate by strategy (95% intervals)")
    ax.legend()
    save(fig, outdir / "muziris_strategies.png")
    _condition_bars(games, players, strategy, names, colors, conds, P, outdir / "muziris_conditions.png")
    return section("Strategies and market conditions", "Shared victories are credited 1/k to each of k winners. The "
                    "market condition is drawn once per game, so each group holds about a quarter of the games.",
                    ("muziris_strategies.png", "How often each strategy wins over all its games, seats rotated."),
                    ("muziris_conditions.png", "The same win rates split by the market condition drawn for the game."))


def _condition_bars(games, players, strategy, names, colors, conds: list[str], P: int, path: Path) -> None:
    """Win rate of each strategy (bars side by side) under each market condition, with 95% intervals."""
    tab = players.assign(cond=np.repeat(games["condition"].to_numpy(), P), strat=strategy).groupby(
        ["cond", "strat"])["win_share"].agg(["sum", "size"]).reset_index()
    fig, ax = new_figure(8.5, 4.5)
    x, width = np.arange(len(conds)), 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        part = tab[tab["strat"] == name].set_index("cond").reindex(range(len(conds)))
        est = (part["sum"] / part["size"]).to_numpy()
        lo, hi = wilson(part["sum"].to_numpy(), part["size"].to_numpy())
        ax.bar(x + i * width - 0.4 + width / 2, est * 100, width, color=colors[name], label=name,
               yerr=_err(est * 100, lo * 100, hi * 100), capsize=2, ecolor="#333333")
    ax.set_xticks(x, [condition_label(c) for c in conds])
    ax.axhline(100 / P, color=NEUTRAL, ls="--")
    ax.set(ylabel="win rate (%)", title="Win rate by strategy under each market condition (95% intervals)")
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # beside the bars, not on them
    save(fig, path)


def _length_section(games, summary: dict, meta: dict, conds: list[str], outdir: Path) -> dict:
    """How many rounds games last under each market condition, and how many the round cap ended."""
    fig, ax = new_figure()
    top = int(games["rounds"].max())
    for c, name in enumerate(conds):
        r = games.loc[games["condition"] == c, "rounds"]
        counts = np.bincount(r, minlength=top + 1)[1:] / max(1, len(r))
        ax.plot(np.arange(1, top + 1), counts * 100, marker="o", ms=3, label=condition_label(name))
    ax.set(xlabel="rounds in the game", ylabel="games (%)", title="Game length by market condition")
    ax.legend()
    save(fig, outdir / "muziris_rounds.png")
    n, cap = len(games), int((games["end_reason"] == END["round_cap"]).sum())
    return section(
        "Rounds per game and what ended it", " ".join(x for x in (
            C.said(summary, "length"), f"{n - cap:,} games ended by the market condition's trigger.",
            C.said(summary, "round_cap_rate")) if x),
        ("muziris_rounds.png", "For each market condition, the share of games lasting each number of rounds."))


def _characters_section(characters: pd.DataFrame, picks: pd.DataFrame, outdir: Path) -> dict:
    """How often each character is used per round in play, and the coins waiting on it when it is used."""
    ch = characters.groupby("name", sort=False)[["rounds_in_play", "picks"]].sum()
    ch = ch[ch["rounds_in_play"] > 0]
    mc = picks.assign(total=lambda d: d["coins"].astype(float) * d["count"]).groupby(
        "name", sort=False)[["total", "count"]].sum()
    _character_bars(ch.index, (ch["picks"] / ch["rounds_in_play"]).to_numpy(), "uses per round in play",
                    "Character pick rate (final rounds may use a character more than once)",
                    outdir / "muziris_picks.png")
    _character_bars(ch.index, (mc["total"] / mc["count"]).reindex(ch.index).to_numpy(),
                    "coins on the character when taken (mean)", "Coins waiting on a character when it is used",
                    outdir / "muziris_pick_coins.png")
    return section(
        "Characters", "Each round one character goes unused and gains a coin. A character's pick rate is its uses "
        "divided by the rounds it was in play; coins on a character are counted up to 40 (40 or more count as 40).",
        ("muziris_picks.png", "How often each character is used in a round it is in play."),
        ("muziris_pick_coins.png", "How many coins, on average, lay on a character when a player chose it."))


def _character_bars(names, values, ylabel: str, title: str, path: Path) -> None:
    """One bar per character (its pick rate, or the coins waiting on it)."""
    fig, ax = new_figure()
    x = np.arange(len(names))
    ax.bar(x, values, color=ACCENT)
    ax.set_xticks(x, names)
    ax.set(ylabel=ylabel, title=title)
    save(fig, path)


def _sources_section(players, strategy: pd.Series, outdir: Path) -> dict:
    """Where each strategy's coins come from: orders by produce, characters, abilities, setup, condition."""
    names = sorted(strategy.unique())
    cols = [c for c in players.columns if c.startswith("coins_order_")] + list(SOURCES)
    means = players.groupby(strategy)[cols].mean().reindex(names)
    fig, ax = new_figure(8.5, 4.5)
    bottom = np.zeros(len(names))
    for i, c in enumerate(cols):
        label = c.replace("coins_order_", "orders: ").replace("coins_", "")
        ax.bar(names, means[c].to_numpy(), bottom=bottom, color=colormaps["tab20"](i % 20), label=label)
        bottom += means[c].to_numpy()
    ax.set(ylabel="coins per game (mean)", title="Where each strategy's coins come from")
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, outdir / "muziris_sources.png")
    return section("Coins by source", "Orders are split by produce; the rest are coins lying on characters, produce "
                    "and character abilities (gain, per-order, the Broker's extra coin), setup coins and the market "
                    "condition's end-of-game coins.",
                    ("muziris_sources.png", "Stacked mean coins per game for each strategy, by where they came from."))


def _order_sizes_section(orders: pd.DataFrame, outdir: Path) -> dict:
    """For each produce, the share of its orders made of 1, 2 or 3 cards."""
    od = orders.groupby(["name", "size"], sort=False)["count"].sum().unstack("size").fillna(0)
    share = od.div(od.sum(axis=1).replace(0, 1), axis=0)
    fig, ax = new_figure()
    bottom = np.zeros(len(share))
    for size in share.columns:
        ax.bar(share.index, share[size].to_numpy() * 100, bottom=bottom, label=f"{size} card(s)")
        bottom += share[size].to_numpy() * 100
    ax.set(ylabel="orders (%)", title="Order sizes by produce")
    ax.legend()
    save(fig, outdir / "muziris_order_sizes.png")
    return section("Order sizes by produce", f"{int(od.to_numpy().sum()):,} orders in all.",
                    ("muziris_order_sizes.png", "For each produce, the share of its orders made of 1, 2 or 3 cards."))


def _coin_supply_section(games, summary: dict, meta: dict, outdir: Path) -> dict:
    """Whether the boxed coins suffice: the coins each game took from the (unlimited) supply against the box."""
    boxed = int((meta.get("config") or {}).get("rules", {}).get("boxed_coins", 205))
    peak = games["peak_coins"].to_numpy()
    _, cap, _, largest = clip_upper(peak)
    cap = max(cap, boxed + 10)  # keep the games that would run out of boxed coins in view
    fig, ax = new_figure()
    ax.hist(peak[peak <= cap], bins=50, color=ACCENT)
    ax.axvline(boxed, color="#c0392b", ls="--", label=f"boxed coins ({boxed})")
    ax.set(xlabel="coins out of the supply at the end (players + characters)", ylabel="games",
           title="Coins a game needs from the supply")
    ax.legend()
    save(fig, outdir / "muziris_coins.png")
    reading = ("How many coins each game took from the supply; games right of the red line would have run out of "
               "boxed coins." + overflow_note(int((peak > cap).sum()), len(peak), cap, largest, "games"))
    return section("Is the boxed coin supply enough?", f"The simulator's supply is unlimited; the box holds {boxed} "
                   "coins. " + C.said(summary, "coins_short_rate"), ("muziris_coins.png", reading))
