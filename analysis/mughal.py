"""Mughal report: seats and alternating passing, strategies, VT and its parts, the emperors' bonuses,
suit majority margins, Disasters, and the order cards are drafted in."""
from __future__ import annotations

import re
from functools import partial

import numpy as np
import pandas as pd

from analysis import across_skill, common, conclusions as C, decisive, edges, skill, stats, strata
from analysis.findings import assumed_pace
from analysis.style import (ACCENT, NEUTRAL, PALETTE, clip_upper, new_figure, new_panels, overflow_note, save,
                            strategy_colors)
from sim.mughal.engine import SUITS
from analysis.formatting import mirror_table
from sim.registry import registered
PARTS = ("vt_majority", "vt_all_suits", "vt_emperor", "vt_disaster")
HEADLINES = ("tie_rate", "vt_total", "minutes_per_game")


def _n_turns(games: pd.DataFrame) -> int:
    return sum(1 for c in games.columns if re.fullmatch(r"emp_winners_\d+", c))


def _players_count(tables, meta) -> int:
    return int(meta.get("players") or tables["players"]["seat"].max() + 1)


def finding_context(meta, tables=None) -> dict:
    """The decisive sources' names for analysis.findings (emperors by their configured names)."""
    labels = {"majorities": "suit majorities", "all_suits": "the all-suits award", "disasters": "Disasters"}
    for emperor in (meta.get("config") or {}).get("emperors", []):
        labels[f"emperor_{decisive.slug(emperor.get('name', ''))}"] = f"{emperor.get('name')}'s bonus"
    seconds = ((meta.get("config") or {}).get("report") or {}).get("seconds_per_pick")
    return {"labels": labels, "pace": assumed_pace(seconds, "an action step", "report.seconds_per_pick")}


def summarize(tables, meta) -> dict:
    games, players = tables["games"], tables["players"]
    out = {}
    ids, strategy, win, names, extra = common.wide_players(players, ["vt_total"])
    p = strategy.shape[1]
    seat_edges = edges.position_edges(strategy, np.tile(np.arange(p), (len(strategy), 1)), win, names, p)
    for seat in range(p):
        edges.put(out, f"seat_win_rate[{seat}]", seat_edges, seat)
    out.update(common.win_rate_metrics(players))
    out.update(common.win_rate_vs_field_metrics(players, "game"))
    out.update(common.meta_game_metrics(strategy, win, names,
                                        common.head_to_head(strategy, [extra["vt_total"], win], names)))
    out["vt_total"] = stats.mean(players["vt_total"])
    out["tie_rate"] = stats.rate(int((games["n_winners"] > 1).sum()), len(games))
    for part in PARTS:
        out[part] = stats.mean(players[part])
    out["disasters_per_player"] = stats.mean(players["disasters"])
    out.update(_length_metrics(games, meta))
    out["winning_margin"] = stats.mean(games["vt_margin"])
    out.update(_skill_metrics(tables, meta))
    out.update(decisive_metrics(players, meta.get("config") or {}, _players_count(tables, meta)))
    out.update(across_skill.players_metrics(players, meta, ids, strategy, win, names, [extra["vt_total"], win],
                                            np.tile(np.arange(p), (len(strategy), 1)),
                                            lambda k: C.position_words("seat_win_rate", k) + " wins",  # as Findings
                                            decisive_metrics))
    return out


def strata_frames(tables: dict, meta: dict) -> list[strata.Frame]:
    """The variables a Mughal seat edge is set against (analysis.strata): each emperor's bonus, taken by every
    player who gained VT from it (the players table's emp_vt_<turn>; a tie the rules give nothing is no take).
    The player count is fixed for a run: compare runs to split by it."""
    players = tables["players"]
    turns = sorted(int(c.rsplit("_", 1)[1]) for c in players.columns if re.fullmatch(r"emp_vt_\d+", c))
    ids, strategy, win, _, extra = common.wide_players(players, [f"emp_vt_{t}" for t in turns])
    p = strategy.shape[1]
    emperors = (meta.get("config") or {}).get("emperors") or []
    name = {t: (emperors[t - 1].get("name") if t <= len(emperors) else None) or f"turn {t}'s emperor" for t in turns}
    twice = {n for n in name.values() if list(name.values()).count(n) > 1}  # one emperor reigning twice: per turn
    events = [strata.Event(f"emperor_{decisive.slug(name[t])}" + (f"_turn{t}" if name[t] in twice else ""),
                           f"{name[t]}'s bonus" + (f" (turn {t})" if name[t] in twice else ""),
                           extra[f"emp_vt_{t}"] > 0) for t in turns]
    seat = np.tile(np.arange(p), (len(ids), 1))
    return [strata.Frame("games", win, edges.is_mirror(strategy), [
        strata.Edge("seat_win_rate", "the seat edge", tuple(f"seat_win_rate[{k}]" for k in range(p)),
                    tuple(f"seat {k}" for k in range(p)), seat)], [], events, {"player count": f"{p} players"})]


def _length_metrics(games: pd.DataFrame, meta: dict) -> dict:
    """Action steps per game (every player places one card a step, all at once: turns x hand size) and the
    playing time they make at `report.seconds_per_pick` (an assumption the configuration states)."""
    cfg = meta.get("config") or {}
    hand = (cfg.get("rules") or {}).get("hand_size")
    seconds = (cfg.get("report") or {}).get("seconds_per_pick")
    if not isinstance(hand, int) or not len(games):
        return {}
    steps = pd.Series(np.full(len(games), _n_turns(games) * hand, dtype=float))
    out = {"picks_per_game": stats.mean(steps)}
    if isinstance(seconds, (int, float)):
        out["minutes_per_game"] = stats.mean(steps * float(seconds) / 60.0)
    return out


def _lineups(tables) -> pd.DataFrame:
    """One row per game (same order as the games table): strategy_<seat> columns, from the players table."""
    players = tables["players"]
    wide = players.assign(strategy=players["strategy"].astype(str)).pivot(index="game", columns="seat",
                                                                          values="strategy")
    wide.columns = [f"strategy_{s}" for s in wide.columns]
    return wide.loc[tables["games"]["game"].to_numpy()].reset_index()


def _skill_long(tables, search: set[str]) -> pd.DataFrame:
    """Player rows with an `opponent` column for skill.gap_table: the heuristic every other seat played, or
    "mixed heuristics" (rows of search players facing another search player are labelled with it)."""
    players = tables["players"]
    lineups = _lineups(tables)
    cols = [c for c in lineups.columns if c.startswith("strategy_")]
    others = lineups.set_index("game")[cols]
    rows = players[["game", "seat", "strategy", "win_share"]].copy()
    rows["strategy"] = rows["strategy"].astype(str)
    table = others.loc[rows["game"].to_numpy()].to_numpy()
    opp = []
    for seat, line in zip(rows["seat"].to_numpy(), table):
        rest = [x for i, x in enumerate(line) if i != seat]
        srch = [x for x in rest if x in search]
        opp.append(srch[0] if srch else rest[0] if len(set(rest)) == 1 else "mixed heuristics")
    rows["opponent"] = opp
    return rows


def _level_rates(tables, mask) -> dict:
    """Headline rates over a subset of games (a boolean mask over the games table)."""
    games, players = tables["games"], tables["players"]
    ids = games.loc[mask, "game"]
    out = {"tie_rate": stats.rate(int((games.loc[mask, "n_winners"] > 1).sum()), int(mask.sum()))}
    part = players[players["game"].isin(ids)]
    for seat, row in common.rate_table(part, "seat").iterrows():
        out[f"seat_win_rate[{seat}]"] = stats.rate(row.wins, row.n)
    return out


def _skill_metrics(tables, meta) -> dict:
    """Only when a search strategy played: headline rates among heuristic-only and search-only games, and the
    skill gap (each search strategy's win rate against each heuristic; a fair share is 1 / players)."""
    games = tables["games"]
    search = skill.search_names(meta)
    if not search or not tables["players"]["strategy"].astype(str).isin(search).any():
        return {}
    lineups = _lineups(tables)
    level = skill.levels(lineups, search, [c for c in lineups.columns if c.startswith("strategy_")])

    def rates(lv):  # seat_win_rate[0] is stored as seat_win_rate_0[<level>]
        mask = pd.Series(level == lv, index=games.index)
        return {k.replace("[", "_").rstrip("]"): m for k, m in _level_rates(tables, mask).items()} if mask.any() else {}
    return {**skill.by_level(rates), **skill.gap_metrics(_skill_long(tables, search), search)}


def sections(tables, meta, summary, outdir) -> list[dict]:
    games, players = tables["games"], tables["players"]
    cfg = meta.get("config") or {}
    out = common.strategy_sections(players, outdir, two_player=False, summary=summary,
                                   players=_players_count(tables, meta))
    out.append(_seats(tables, meta, summary, outdir))
    strategy = common.names_of(players["strategy"])  # once: _vt and _disasters group and select by it
    out.append(_vt(players, strategy, outdir))
    out.append(_length(games, summary, cfg))
    out.append(_emperors(games, players, cfg, meta, outdir))
    out.append(_margins(games, outdir))
    out.append(_disasters(players, strategy, outdir))
    if "picks" in tables and len(tables["picks"]):
        out.append(_picks(tables["picks"], outdir))
    labels = decisive_labels(cfg, players)
    p = _players_count(tables, meta)
    return out + across_skill.closing_sections(summary, labels, decisive.section(summary, labels, outdir),
                                               gap_note=f"its share of the games it played, a fair share {1 / p:.0%}")


def _seats(tables, meta, summary, outdir) -> dict:
    p = _players_count(tables, meta)
    keys = [f"seat_win_rate[{seat}]" for seat in range(p)]
    head = [summary.get(k) for k in keys]
    if any(m is None or edges.too_few(m) for m in head):
        return {"title": "Does the seat matter?", "text": "Too few games to measure seat effects."}
    table = pd.DataFrame({"rate": [m["estimate"] for m in head], "ci_low": [m["ci_low"] for m in head],
                          "ci_high": [m["ci_high"] for m in head]}, index=pd.Index(range(p), name="seat"))
    mirror = head[0].get("population") == edges.MIRROR
    common.plot_rates(table, outdir / "mughal_seat_equal.png",
                      f"Win rate by seat, {p} players, at equal skill ("
                      + ("mirror games" if mirror else "model") + ")",
                      "seat (hands pass to seat + 1 on odd turns, seat - 1 on even turns)", None, reference=1 / p)
    text = (C.said(summary, "seat_edge") + " With the passing direction alternating every turn, every seat has a "
            "neighbour on each side feeding it "
            "hands in turn. " + edges.source_sentence(head[0], "games") + " Ties share the win (1/k each).")
    out = common.section("Does the seat matter?", text, ("mughal_seat_equal.png", "Each bar is a seat's win rate at "
                                                         f"equal skill, with its 95% interval; the dashed line is a "
                                                         f"fair share of 1/{p}. Whether the seats differ by more "
                                                         "than chance is the test in the text above."))
    mirrors = mirror_table(summary, keys, [f"seat {s} wins" for s in range(p)], class_="wide")
    if mirrors:
        out["html"] = mirrors
    return out


def _vt(players, strategy: pd.Series, outdir) -> dict:
    """strategy: players["strategy"] as strings (common.names_of)."""
    names = sorted(strategy.unique())
    colors = strategy_colors(names)
    fig, ax = new_figure()
    vt = players["vt_total"].to_numpy()
    _, cap, left_off, largest = clip_upper(vt)
    bins = np.arange(int(vt.min()), int(cap) + 2) - 0.5
    for name in names:
        v = players.loc[strategy == name, "vt_total"].to_numpy()
        ax.hist(v[v <= cap], bins=bins, histtype="step", lw=1.5, color=colors[name], density=True,
                label=f"{name} (mean {v.mean():.1f})")
    ax.set(xlabel="VT at the end of the game", ylabel="share of player-games", title="Final VT by strategy")
    ax.legend(frameon=False, fontsize=8)
    save(fig, outdir / "mughal_vt_hist.png")

    means = players.groupby(strategy)[list(PARTS)].mean().loc[names]
    fig, ax = new_figure()
    x = np.arange(len(names))
    pos, neg = np.zeros(len(names)), np.zeros(len(names))
    labels = {"vt_majority": "suit majorities", "vt_all_suits": "all four suits", "vt_emperor": "emperor bonus",
              "vt_disaster": "Disasters"}
    for i, part in enumerate(PARTS):
        v = means[part].to_numpy()
        bottom = np.where(v >= 0, pos, neg)
        ax.bar(x, v, bottom=bottom, color=PALETTE[i], label=labels[part])
        pos += np.where(v >= 0, v, 0)
        neg += np.where(v < 0, v, 0)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(x, names, rotation=20 if len(names) > 4 else 0)
    ax.set(ylabel="mean VT per game", title="Where the VT comes from")
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # beside the bars, not on them
    save(fig, outdir / "mughal_vt_parts.png")
    top = means.sum(axis=1).idxmax()
    return common.section(
        "Victory tokens", None, ("mughal_vt_hist.png", "Each line is the spread of final VT for one strategy."
                                 + overflow_note(left_off, len(vt), cap, largest, "player-games")),
        ("mughal_vt_parts.png", f"Stacked mean VT per game by source; {top} collects the most, Disasters pull below "
         "zero."))


def specialist_suits(meta: dict) -> dict[str, int]:
    """Strategy name -> the suit index a `specialist` (any preset of it) builds, read from the run's parameter
    vectors (meta.json), so the base strategy, which builds military by default, counts too."""
    defs = {d.name: list(d.params) for d in registered("mughal")}
    out = {}
    for s in meta.get("strategies", []):
        order = defs.get(s.get("base"), [])
        if s.get("base") == "specialist" and "suit" in order and len(s.get("params", ())) == len(order):
            suit = int(s["params"][order.index("suit")])
            if 0 <= suit < len(SUITS):
                out[s["name"]] = suit
    return out


def _emperors(games, players, cfg, meta, outdir) -> dict:
    nt = _n_turns(games)
    emperors = cfg.get("emperors") or [{"name": f"turn {t}", "favoured": ["any"]} for t in range(1, nt + 1)]
    # each strategy's specialist suit, looked up once per name rather than once per player-game
    column = players["strategy"]
    column = column if isinstance(column.dtype, pd.CategoricalDtype) else column.astype("category")
    suits = specialist_suits(meta)
    spec = np.array([suits.get(str(n), -1) for n in column.cat.categories],
                    dtype=np.int64)[column.cat.codes.to_numpy()]
    labels, to_spec, shares = [], [], []
    for t in range(1, nt + 1):
        emp = emperors[t - 1] if t - 1 < len(emperors) else {"name": f"turn {t}", "favoured": ["any"]}
        fav = set(range(4)) if "any" in emp["favoured"] else {SUITS.index(f) for f in emp["favoured"]}
        vt = players[f"emp_vt_{t}"].to_numpy().astype(float)
        total = vt.sum()
        to_spec.append(vt[np.isin(spec, list(fav))].sum() / total if total else np.nan)
        w = games[f"emp_winners_{t}"].to_numpy()
        shares.append([(w == 0).mean(), (w == 1).mean(), (w == 2).mean(), (w >= 3).mean()])
        labels.append(f"{t}. {emp['name']}\n({'/'.join(s[:4] for s in emp['favoured'])})")
    shares = np.array(shares)
    fig, ax = new_figure(8.5, 4.4)
    x = np.arange(nt)
    bottom = np.zeros(nt)
    for i, lab in enumerate(("nobody", "one player", "two tied", "three or more tied")):
        ax.bar(x, shares[:, i] * 100, bottom=bottom, color=[NEUTRAL, ACCENT, PALETTE[1], PALETTE[3]][i], label=lab)
        bottom += shares[:, i] * 100
    ax.set_xticks(x, labels, fontsize=7)
    ax.set(ylabel="share of games (%)", title="Who takes each emperor's bonus: alone, tied, or nobody")
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, outdir / "mughal_emperor_ties.png")
    figures = [("mughal_emperor_ties.png", "Each bar splits the games by how many players had the highest favoured "
                "total for that emperor (tied players each take half the bonus, rounded down, by default; none of "
                "them under rules.emperor_tie = \"none\").")]
    text = "The emperor bonus goes to the highest total among the favoured suits."
    if (spec >= 0).any():
        fig, ax = new_figure(8.5, 4.0)
        ax.bar(x, np.array(to_spec) * 100, color=ACCENT)
        ax.set_xticks(x, labels, fontsize=7)
        ax.set(ylabel="share of the bonus VT (%)", title="Emperor bonus VT taken by a specialist of a favoured suit")
        save(fig, outdir / "mughal_emperor_specialists.png")
        built = ", ".join(f"{name} builds {SUITS[suit]}" for name, suit in sorted(suits.items()))
        figures.append(("mughal_emperor_specialists.png", "How much of each emperor's bonus VT went to a suit "
                        f"specialist whose suit the emperor favours (for 'any', every specialist counts; {built})."))
    else:
        text += " No suit specialist played in this run, so the share taken by specialists is not shown."
    return common.section("The emperors' bonuses", text, *figures)


def _margins(games, outdir) -> dict:
    nt = _n_turns(games)
    # one small panel per suit on shared axes: the four distributions are nearly the same, and drawn as lines on
    # one plot they hid each other
    fig, axes = new_panels(9.0, 4.6, 2, 2, sharex=True, sharey=True)
    ties = {}
    for k, suit in enumerate(SUITS):
        ax = axes[k]
        ax.grid(axis="y", alpha=0.3)
        m = np.concatenate([games[f"margin_{suit}_{t}"].to_numpy() for t in range(1, nt + 1)]).astype(int)
        m = m[m >= 0]
        ax.set_title(suit, fontsize=9)
        if not len(m):
            continue
        counts = np.bincount(np.minimum(m, 15), minlength=16) / len(m) * 100
        ax.bar(np.arange(16), counts, color=PALETTE[k])
        ties[suit] = (m == 0).mean()
    for ax in axes[2:]:
        ax.set_xlabel("margin: top total minus the second (15 = 15 or more)", fontsize=8)
    for ax in axes[::2]:
        ax.set_ylabel("contests (%)", fontsize=8)
    fig.suptitle("How close suit majorities are", fontsize=10)
    save(fig, outdir / "mughal_margins.png")
    tie_text = ", ".join(f"{s} {v:.0%}" for s, v in ties.items())
    return common.section("Suit majority contests", f"A margin of 0 is a tie (1 VT each). Ties per suit: {tie_text}.",
                          ("mughal_margins.png", "Distribution of the winning margin of each suit majority, all turns "
                           "together."))


def _disasters(players, strategy: pd.Series, outdir) -> dict:
    """strategy: players["strategy"] as strings (common.names_of)."""
    names = sorted(strategy.unique())
    g = players.groupby(strategy)
    fig, ax = new_figure()
    x = np.arange(len(names))
    dest = g["disasters_destiny"].mean().loc[names]
    pick = g["disasters_picked"].mean().loc[names]
    err = [stats.Z95 * g["disasters"].std().loc[n] / np.sqrt(g["disasters"].count().loc[n]) for n in names]
    ax.bar(x, dest, color=NEUTRAL, label="dealt face up (destiny)")
    ax.bar(x, pick, bottom=dest, color=PALETTE[3], label="placed from a hand")
    ax.errorbar(x, dest + pick, yerr=err, fmt="none", ecolor="black", capsize=4, lw=1)
    ax.set_xticks(x, names, rotation=20 if len(names) > 4 else 0)
    ax.set(ylabel="Disasters per player per game", title="Disasters held (bars: 95% interval of the total)")
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # beside the bars, not on them
    save(fig, outdir / "mughal_disasters.png")
    return common.section("Disasters", None, ("mughal_disasters.png", "Mean Disasters per player-game, split into "
                                              "those dealt face up and those taken from a hand (mostly a hand's "
                                              "forced last card)."))


CARD_CODES = ("Card codes: the letter is the suit (M military, B building, C culture, W wealth; M/B a card of two "
              "suits), the number its level, then the age it comes in with (early, middle, late); 'unique' marks a "
              "card with one copy in the deck; D is a Disaster.")


def _length(games, summary, cfg) -> dict:
    nt, hand = _n_turns(games), (cfg.get("rules") or {}).get("hand_size")
    text = (f"A game is {nt} turns; in each every player places the {hand} cards of a hand one action step at a "
            "time, all players at once. " + C.said(summary, "length"))  # its length: the conclusion's sentence
    return {"title": "Game length", "text": text.strip()}


def _picks(picks, outdir) -> dict:
    agg = picks.groupby(["kind", "label", "step"], observed=True)[["offered", "picked"]].sum().reset_index()
    last = agg["step"].max()
    free = agg[agg["step"] < last]   # the last card of a hand is placed without choice
    by = free.groupby(["kind", "label"], observed=True)
    rate = (by["picked"].sum() / by["offered"].sum()).rename("rate")
    step = (free["step"] * free["picked"]).groupby([free["kind"], free["label"]]).sum() / by["picked"].sum()
    table = pd.DataFrame({"rate": rate, "step": step}).reset_index().sort_values("rate")
    fig, ax = new_figure(7.5, max(4.0, 0.18 * len(table) + 1))
    y = np.arange(len(table))
    ax.barh(y, table["rate"] * 100, color=ACCENT)
    ax.set_yticks(y, table["label"], fontsize=7)
    ax.set_xlabel(f"chance a card is taken when it is in a hand (%), steps 1-{last - 1}")
    ax.set_title("Card pick order (most wanted at the top)")
    ax.grid(axis="x", alpha=0.3)
    save(fig, outdir / "mughal_picks.png")
    worst, best = table.iloc[0], table.iloc[-1]
    return common.section("Card pick order", f"{best['label']} is taken {best['rate']:.0%} of the times it is "
                          f"offered (on average at step {best['step']:.1f}); {worst['label']} only "
                          f"{worst['rate']:.0%}. " + CARD_CODES,
                          ("mughal_picks.png", "Each bar is how often a card kind is chosen when it sits in the hand "
                           "being picked from (forced last picks left out); longer bars are drafted earlier."))


# ---- what decides games (analysis.decisive): Mughal's sources --------------------------------------------
def emperor_columns(cfg: dict, players: pd.DataFrame) -> dict:
    """Emperor source key -> (display name, the per-turn `emp_vt_<t>` columns it scored in)."""
    out: dict = {}
    for t, emperor in enumerate(cfg.get("emperors", []), start=1):
        column = f"emp_vt_{t}"
        if column in players:
            key = f"emperor_{decisive.slug(emperor['name'])}"
            out.setdefault(key, (emperor["name"], []))[1].append(column)
    return out


def decisive_metrics(players: pd.DataFrame, cfg: dict, n_seats: int) -> dict:
    tie = "none" if cfg.get("rules", {}).get("final_tie") == "none" else "share"
    grid = partial(decisive.seat_grid, players, n_seats, order=decisive.seat_order(players))
    total = grid("vt_total")
    actual = decisive.winner_mask([total], tie)
    parts = {key: sum(grid(c) for c in cols) for key, (_, cols) in emperor_columns(cfg, players).items()}
    parts.update({"majorities": grid("vt_majority"), "all_suits": grid("vt_all_suits"),
                  "disasters": grid("vt_disaster")})
    return decisive.rates({key: decisive.changed(actual, decisive.winner_mask([total - part], tie)) for key, part in parts.items()})


def decisive_labels(cfg: dict, players: pd.DataFrame) -> dict:
    labels = {key: f"{name}'s bonus" for key, (name, _) in emperor_columns(cfg, players).items()}
    labels.update({"majorities": "suit majorities", "all_suits": "all-suits award", "disasters": "Disasters"})
    return labels
