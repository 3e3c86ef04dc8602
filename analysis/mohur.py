"""Mohur report: who wins, first-player advantage, round length, tokens and scores, what decides matches."""
from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from analysis import across_skill, common, conclusions as C, decisive, edges, skill, stats, percent, strata
from analysis.findings import assumed_pace
from analysis.style import ACCENT, NEUTRAL, clip_upper, new_figure, new_panels, overflow_note, save
from sim.mohur.engine import END, GOODS, TIE
from analysis.formatting import fmt_metric, mirror_names, plain_name, table as html_table
HEADLINES = ("first_player_round_win_rate", "first_player_match_win_rate", "seat0_match_win_rate",
             "drawn_round_rate", "turns_per_round", "rounds_per_match", "coin_token_rate", "minutes_per_match",
             "close_round_rate", "decision_move_rate")  # `balance` stays in summary.json: seat 0 alone, it hides
# the starter's edge (seats alternate starting), so the report leads with `largest_edge` instead


def _rounds_long(rounds: pd.DataFrame, coin_token: int) -> pd.DataFrame:
    """One row per round and seat: strategy and score parts."""
    pair = common.categorical_pair(rounds["strategy_0"], rounds["strategy_1"])
    return pd.concat([pd.DataFrame({
        "strategy": pair[seat], "goods": rounds[f"goods_rupees_{seat}"].to_numpy(),
        "bonus": rounds[f"bonus_rupees_{seat}"].to_numpy(),
        "coin_token": np.where(rounds["coin_token"].to_numpy() == seat, coin_token, 0)}) for seat in (0, 1)],
        ignore_index=True)


def finding_context(meta, tables=None) -> dict:
    """What analysis.findings needs beyond the summary: the decisive sources' names, the unit, the pace."""
    seconds = ((meta.get("config") or {}).get("report") or {}).get("seconds_per_turn")
    pace = assumed_pace(seconds, "a turn", "report.seconds_per_turn",
                        "the rulebook gives 10 to 15 minutes a match, not a pace per turn")
    return {"labels": decisive_labels(), "unit": "matches", "seconds_per_turn": seconds, "pace": pace}


def summarize(tables, meta) -> dict:
    games, rounds = tables["games"], tables["rounds"]
    out = first_player_metrics(games, rounds)
    out["drawn_round_rate"] = stats.rate((rounds["winner"] < 0).sum(), len(rounds))
    out["turns_per_round"] = stats.mean(rounds["turns"])
    out["rounds_per_match"] = stats.mean(games["rounds"])
    out["coin_token_rate"] = stats.rate((rounds["coin_token"] >= 0).sum(), len(rounds))
    seconds = float(meta["config"].get("report", {}).get("seconds_per_turn", 8.0))
    out["minutes_per_match"] = stats.mean(games["turns"] * seconds / 60.0)
    margin = (rounds["rupees_0"] - rounds["rupees_1"]).abs()
    out["score_margin"] = stats.mean(margin)
    out["close_round_rate"] = stats.rate((margin <= 3).sum(), len(rounds))
    out["decision_move_rate"] = stats.rate(rounds["decisions"].sum(), rounds["turns"].sum())
    out["stacks_end_rate"] = stats.rate((rounds["end_reason"] == END["stacks"]).sum(), len(rounds))
    safety = rounds["end_reason"].isin([END["stalled"], END["turn_cap"]])
    out["safety_end_rate"] = stats.rate(safety.sum(), len(rounds))
    for name in ("bonus_tokens", "goods_tokens"):
        out[f"tie_break_rate[{name}]"] = stats.rate((rounds["tie_break"] == TIE[name]).sum(), len(rounds))
    long = common.two_player_long(games, "match")
    out.update(common.win_rate_metrics(long))
    out.update(common.win_rate_vs_field_metrics(long, "game"))
    out.update(common.meta_game_metrics(*common.two_seat_arrays(long)))
    out["balance"] = edges.balance(out.get("seat0_match_win_rate"))
    out.update(_skill_metrics(games, rounds, long, meta))
    out.update(decisive_metrics(games, rounds, meta["config"]))
    out.update(_across_skill_metrics(games, rounds, long, meta))
    return out


def strata_frames(tables: dict, meta: dict) -> list[strata.Frame]:
    """The variables a Mohur starter or seat edge is split by (analysis.strata), on decided rounds and decided
    matches: drawn before play, the round number and the seat that starts the match; taken in play, the coin
    token (a round's)."""
    games, rounds = tables["games"], tables["rounds"]
    seat = np.arange(2)[None, :]
    r = rounds[rounds["winner"] >= 0]
    match_starter = games.set_index("match")["first_starter"].reindex(r["match"].to_numpy()).to_numpy()
    g = games[games["winner"] >= 0]
    starts = np.array([f"seat {s}" for s in g["first_starter"].to_numpy()])
    return [
        strata.Frame("rounds", (r["winner"].to_numpy()[:, None] == seat).astype(float),
                     (r["strategy_0"].astype(str) == r["strategy_1"].astype(str)).to_numpy(),
                     [strata.Edge("first_player_round_win_rate", "the round starter's edge",
                                  ("first_player_round_win_rate",), ("round starter", "other trader"),
                                  (seat != r["starter"].to_numpy()[:, None]).astype(np.int64))],
                     [strata.Setup("round", "round", r["round"].to_numpy(), "round {}"),
                      strata.Setup("match_starter", "match starter", np.array([f"seat {s}" for s in match_starter]),
                                   "{} starting the match")],
                     [strata.Event("coin_token", "the coin token", r["coin_token"].to_numpy()[:, None] == seat,
                                   "trader who takes the coin token")]),
        strata.Frame("matches", (g["winner"].to_numpy()[:, None] == seat).astype(float),
                     (g["strategy_0"].astype(str) == g["strategy_1"].astype(str)).to_numpy(),
                     [strata.Edge("first_player_match_win_rate", "the match starter's edge",
                                  ("first_player_match_win_rate",), ("match starter", "other trader"),
                                  (seat != g["first_starter"].to_numpy()[:, None]).astype(np.int64)),
                      strata.Edge("seat0_match_win_rate", "seat 0's edge", ("seat0_match_win_rate",),
                                  ("seat 0", "seat 1"), np.tile(seat, (len(g), 1)))],
                     [strata.Setup("match_starter", "match starter", starts, "{} starting the match")])]


def _across_skill_metrics(games, rounds, long, meta) -> dict:
    """The round starter's edge, the equilibrium mix and the decisive sources per level of skill
    (`analysis.across_skill`); masks are over matches, a match's rounds follow it."""
    strategy, win, names = common.two_seat_arrays(long)  # one row per match, in the games table's order
    round_match = pd.Index(games["match"].to_numpy()).get_indexer(rounds["match"].to_numpy())

    def edge(mask):
        part = rounds[mask[round_match]]
        found = edges.two_seat_edges(part, part["starter"])
        return None if found["rates"] is None else found["rates"][:1]

    def decided(mask):
        return decisive_metrics(games[mask], rounds[mask[round_match]], meta["config"])

    return across_skill.summary_metrics(strategy, names, across_skill.kinds(meta), edge, decided, [win],
                                        lambda k: C.TWO_SEAT["first_player_round_win_rate"], 0.5)  # as the seat finding


def first_player_metrics(games: pd.DataFrame, rounds: pd.DataFrame) -> dict:
    """The starter's and seat 0's edges at equal skill (`analysis.edges.put`'s keys); round 1 (random starter) and
    later rounds (the previous round's loser starts) also apart."""
    out = {}
    r = rounds[["winner", "starter", "round", "strategy_0", "strategy_1"]]
    edges.put(out, "first_player_round_win_rate", edges.two_seat_edges(r, r["starter"]))
    subsets = [(f"round={rnd}", r["round"] == rnd) for rnd in np.sort(r["round"].unique())[:5]]
    for name, rows in subsets + [("later_rounds", r["round"] > 1)]:
        part = r[rows]
        e = edges.two_seat_edges(part, part["starter"])
        if e["rates"] is not None and len(part):
            out[f"first_player_round_win_rate[{name}]"] = e["rates"][0]
    g = games[["winner", "first_starter", "strategy_0", "strategy_1"]]
    edges.put(out, "first_player_match_win_rate", edges.two_seat_edges(g, g["first_starter"]))
    edges.put(out, "seat0_match_win_rate", edges.two_seat_edges(g, np.zeros(len(g), dtype=np.int64)))
    return out


def _level_rates(games: pd.DataFrame, rounds: pd.DataFrame, mask_games, mask_rounds) -> dict:
    """First-player and seat figures over a subset of matches (and their rounds)."""
    g = games[["winner", "first_starter"]][mask_games]
    r = rounds[["winner", "starter"]][mask_rounds]
    decided = r[r["winner"] >= 0]
    won = g[g["winner"] >= 0]
    return {"first_player_round_win_rate": stats.rate((decided["winner"] == decided["starter"]).sum(), len(decided)),
            "first_player_match_win_rate": stats.rate((won["winner"] == won["first_starter"]).sum(), len(won)),
            "seat0_match_win_rate": stats.rate((won["winner"] == 0).sum(), len(won)),
            "drawn_round_rate": stats.rate((r["winner"] < 0).sum(), len(r))}


def _skill_metrics(games, rounds, long, meta) -> dict:
    """Only when a search strategy played: headline rates among heuristic-only and search-only matches, and
    the skill gap (each search strategy's win rate against each heuristic)."""
    search = skill.search_names(meta)
    cols = ["strategy_0", "strategy_1"]
    if not search or not any(games[c].isin(search).any() for c in cols):
        return {}
    g_level, r_level = skill.levels(games, search, cols), skill.levels(rounds, search, cols)
    return {**skill.by_level(lambda level: _level_rates(games, rounds, g_level == level, r_level == level)),
            **skill.gap_metrics(long, search)}


def sections(tables, meta, summary, outdir) -> list[dict]:
    games, rounds = tables["games"], tables["rounds"]
    cfg = meta["config"]
    long = common.two_player_long(games, "match")
    out = common.strategy_sections(long, outdir, two_player=True, summary=summary)
    out.append(_first_player(rounds, summary, outdir))
    out.append(_length(games, rounds, summary, cfg, outdir))
    out.append(_tokens(rounds, cfg, outdir))
    out.append(_scores(rounds, cfg, outdir))
    labels = decisive_labels()
    return out + across_skill.closing_sections(
        summary, labels, decisive.section(summary, labels, outdir, unit="matches", with_rounds=True),
        unit="matches", gap_note="its share of matches: 50% is even")


def _first_player(rounds, summary, outdir) -> dict:
    overall = summary.get("first_player_round_win_rate")
    r1, later = summary.get("first_player_round_win_rate[round=1]"), summary.get(
        "first_player_round_win_rate[later_rounds]")
    need = stats.games_to_detect(0.01)
    seat = C.conclusion_of(summary, "seat_edge") or {}
    text = (seat.get("text") or "") + " "
    if seat.get("figure") != "first_player_round_win_rate":
        text += C.render_figure(seat, "first_player_round_win_rate") + " "
    text += edges.source_sentence(overall or {}, "matches", "decided rounds") + " "
    if r1 and later:
        text += (f"Round 1 (random starter): {r1['estimate']:.1%} (95% CI {r1['ci_low']:.1%}-{r1['ci_high']:.1%}); "
                 f"later rounds, started by the previous round's loser: {later['estimate']:.1%} "
                 f"({later['ci_low']:.1%}-{later['ci_high']:.1%}). ")
    text += " ".join(C.render_figure(seat, key) for key in ("first_player_match_win_rate", "seat0_match_win_rate")
                     if key != seat.get("figure"))
    naive = summary.get("first_player_round_win_rate[all_games]")
    if naive and naive.get("n") and overall and overall.get("population") == edges.MIRROR:
        text += (f" Over every match, mixed pairings included, the starter wins {percent.pct(naive['estimate'])} "
                 "of rounds: "
                 "that raw figure is confounded, because the loser of a round starts the next and in a mixed "
                 "pairing the loser is usually the weaker strategy.")
    text += f" Telling a 1-point edge (51% against 50%) from none takes about {need:,} rounds."
    balance, largest = summary.get("balance") or {}, summary.get("largest_edge")
    if balance.get("estimate") is not None and largest:
        text += (f" Balance (the Ludii game system's metric: 1 minus the gap between seat 0's and seat 1's match "
                 f"win rates at equal skill) is {percent.with_ci(balance)}, but it reads the seats alone, and seats "
                 f"take turns to start, so it stays near 100% whatever the starter's edge; the largest edge is "
                 f"{plain_name(largest['figure']).lower()}: {percent.with_ci(largest)} against a fair "
                 f"{percent.pct(largest['fair'])}.")
    # by round number, from the headline population
    labels = [k for k in summary if k.startswith("first_player_round_win_rate[round=")]
    too_few = [k.split("=")[1].rstrip("]") for k in labels if edges.too_few(summary[k])]
    labels = [k for k in labels if not edges.too_few(summary[k])]  # a bar would claim what a handful can't
    table = pd.DataFrame({"rate": [summary[k]["estimate"] for k in labels],
                          "ci_low": [summary[k]["ci_low"] for k in labels],
                          "ci_high": [summary[k]["ci_high"] for k in labels]},
                         index=pd.Index([k.split("=")[1].rstrip("]") for k in labels], name="round"))
    source = "mirror matches" if (overall or {}).get("population") == edges.MIRROR else "model at equal skill"
    figures = []
    if len(table):
        common.plot_rates(table, outdir / "first_player_by_round.png",
                          f"Round starter's win rate by round number ({source})", "round (round 1: random starter; "
                          "later: the previous round's loser starts)", None)
        figures.append({"file": "first_player_by_round.png",
                        "reading": "Each bar is how often the round's starter wins that round, at equal skill; "
                                   "the dashed line is no edge."
                                   + (f" Round {', '.join(too_few)} left out: too few games (a model figure needs "
                                      f"{edges.MIN_MODEL_GAMES:,})." if too_few else "")})
    mirror = {name: summary[f"first_player_round_win_rate[mirror={name}]"]
              for name in mirror_names(summary, "first_player_round_win_rate")}
    rows = [[name, fmt_metric("rate", m), fmt_metric("rate", summary.get(f"first_player_match_win_rate[mirror={name}]")),
             f"{m['n']:,}"] for name, m in sorted(mirror.items(), key=lambda kv: -kv[1]["estimate"])]
    out = {"title": "First-player advantage", "text": text, "figures": figures}
    if rows:
        out["html"] = html_table(["mirror matches of", "round starter wins the round", "match starter wins the match",
                             "decided rounds"], rows)
    return out


def _length(games, rounds, summary, cfg, outdir) -> dict:
    fig, ax = new_figure()
    turns = rounds["turns"].to_numpy()
    shown, cap, left_off, longest = clip_upper(turns)
    bins = np.arange(shown.min(), shown.max() + 2) - 0.5 if shown.max() - shown.min() < 120 else 60
    ax.hist(shown, bins=bins, color=ACCENT, alpha=0.85)
    ax.axvline(turns.mean(), color="black", ls="--", lw=1, label=f"mean {turns.mean():.1f}")
    ax.set(xlabel="turns in a round (both traders)", ylabel="rounds", title="Round length")
    ax.legend(frameon=False, loc="upper right")
    save(fig, outdir / "turns_per_round.png")

    fig, (ax1, ax2) = new_panels(9, 3.6, 1, 2)
    counts = games["rounds"].value_counts().sort_index()
    ax1.bar(counts.index.astype(str), counts.to_numpy() / len(games) * 100, color=ACCENT)
    ax1.set(xlabel="rounds in the match", ylabel="matches (%)", title="Rounds per match")
    ended = [code for name, code in END.items() if name != "running"]
    reasons = rounds["end_reason"].value_counts().reindex(ended, fill_value=0)
    labels = {code: name.replace("_", " ") for name, code in END.items()}
    ax2.bar([labels[i] for i in reasons.index], reasons.to_numpy() / len(rounds) * 100, color=NEUTRAL)
    ax2.set(ylabel="rounds (%)", title="Why rounds end")
    save(fig, outdir / "rounds_and_endings.png")
    stacks = summary["stacks_end_rate"]["estimate"]
    # how long a match lasts and the safety rules' rate: their conclusions' sentences (analysis.conclusions)
    text = C.said(summary, "length")
    return common.section(
        "Round length", text, ("turns_per_round.png", f"Most rounds last between {np.percentile(turns, 10):.0f} and "
                               f"{np.percentile(turns, 90):.0f} turns (10th to 90th percentile)."
                               + overflow_note(left_off, len(turns), cap, longest, "rounds")),
        ("rounds_and_endings.png", f"{stacks:.0%} of rounds end on empty goods stacks, the rest mostly on an empty "
         "deck. Stalled and turn-cap endings are safety rules that should stay at zero: "
         + (C.said(summary, "safety_end_rate") or "this run does not count them.")))


def _tokens(rounds, cfg, outdir) -> dict:
    first = np.array([rounds[f"first_sale_{g}"].clip(lower=0).mean() for g in GOODS])
    taken = np.array([(rounds[f"taken_{g}_0"] + rounds[f"taken_{g}_1"]).mean() for g in GOODS])
    left = np.array([rounds[f"left_{g}"].mean() for g in GOODS])
    fig, ax = new_figure()
    x = np.arange(len(GOODS))
    ax.bar(x, first, color=ACCENT, label="first sale of the good")
    ax.bar(x, taken - first, bottom=first, color="#e07b39", label="later sales")
    ax.bar(x, left, bottom=taken, color=NEUTRAL, label="left untaken")
    ax.set_xticks(x, GOODS)
    ax.set(ylabel="rupees per round (mean)", title="Where each stack's rupees go")
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, outdir / "stack_split.png")
    share_first = first.sum() / max(taken.sum(), 1e-9)

    fig, (ax1, ax2) = new_panels(9, 3.6, 1, 2)
    sizes = np.array([rounds[f"sales_size_{k}"].sum() for k in range(1, 6)], dtype=float)
    ax1.bar(["1", "2", "3", "4", "5+"], sizes / max(sizes.sum(), 1) * 100, color=ACCENT)
    ax1.set(xlabel="cards in the sale", ylabel="sales (%)", title="Sale sizes")
    piles = ["3", "4", "5"]
    drawn = np.array([rounds[f"bonus_pile{p}_count"].mean() for p in piles])
    value = np.array([rounds[f"bonus_pile{p}_rupees"].sum() / max(rounds[f"bonus_pile{p}_count"].sum(), 1)
                      for p in piles])
    sizes_cfg = np.array([len(cfg["bonus"][p]) for p in piles])
    ax2.bar(["3-card", "4-card", "5+-card"], drawn, color="#3a9d5d", label="drawn per round")
    ax2.bar(["3-card", "4-card", "5+-card"], sizes_cfg - drawn, bottom=drawn, color=NEUTRAL, alpha=0.5,
            label="left in pile")
    for i, v in enumerate(value):
        ax2.text(i, drawn[i] + 0.1, f"{v:.1f} Rs", ha="center", va="bottom", color="black", fontsize=9)
    ax2.set(ylabel="bonus tokens per round", title="Bonus piles (label: mean value drawn)")
    ax2.legend(frameon=False, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)  # under the bars
    save(fig, outdir / "sales_and_bonus.png")
    most_left = GOODS[int(np.argmax(left / np.array([sum(cfg["tokens"][g]) for g in GOODS])))]
    return common.section(
        "Tokens", None, ("stack_split.png", f"The first sale of a good takes {share_first:.0%} of the rupees taken "
                         f"from its stack; {most_left} leaves the largest share of its stack untaken."),
        ("sales_and_bonus.png", f"{sizes[2:].sum() / max(sizes.sum(), 1):.0%} of sales hold 3 or more cards and earn "
         f"a bonus token; the 5+-card pile is drawn {drawn[2]:.2f} times a round."))


def _scores(rounds, cfg, outdir) -> dict:
    coin = int(cfg["rules"]["coin_token"])
    long = _rounds_long(rounds, coin)
    parts = long.groupby("strategy")[["goods", "bonus", "coin_token"]].mean()
    colors = {"goods": ACCENT, "bonus": "#3a9d5d", "coin_token": "#e07b39"}
    fig, ax = new_figure()
    bottom = np.zeros(len(parts))
    for col in parts.columns:
        ax.bar(parts.index, parts[col], bottom=bottom, color=colors[col], label=col.replace("_", " "))
        bottom += parts[col].to_numpy()
    ax.set(ylabel="rupees per round (mean)", title="Score composition by strategy")
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, outdir / "score_composition.png")

    margin = (rounds["rupees_0"] - rounds["rupees_1"]).abs()
    fig, ax = new_figure()
    shown, cap, left_off, widest = clip_upper(margin.to_numpy())
    ax.hist(shown, bins=np.arange(0, shown.max() + 2) - 0.5, color=ACCENT, alpha=0.85)
    ax.axvspan(-0.5, 3.5, color="#e07b39", alpha=0.15, label="decided by 3 rupees or fewer")
    ax.set(xlabel="score margin of a round (rupees)", ylabel="rounds", title="How close rounds are")
    ax.legend(frameon=False)
    save(fig, outdir / "score_margin.png")

    ties = rounds["tie_break"].value_counts().reindex(list(TIE.values()), fill_value=0)
    bonus_share = parts["bonus"].sum() / parts.sum().sum()
    text = (f"Ties on rupees are settled by bonus-token count in {ties[TIE['bonus_tokens']]:,} rounds, by "
            f"goods-token count in {ties[TIE['goods_tokens']]:,}, and {ties[TIE['drawn']]:,} rounds tie on all "
            "three (drawn).")
    return common.section(
        "Scores", text, ("score_composition.png", f"Bonus tokens make up {bonus_share:.0%} of the rupees scored; the "
                         "coin token is the orange slice."),
        ("score_margin.png", f"The average round is won by {margin.mean():.1f} rupees; {(margin <= 3).mean():.0%} are "
         "decided by 3 or fewer." + overflow_note(left_off, len(margin), cap, widest, "rounds")))


# ---- what decides matches (analysis.decisive): Mohur's sources, by round and by match -------------------
def _pair(rounds: pd.DataFrame, fmt: str) -> np.ndarray:
    """Columns `fmt.format(0)` and `fmt.format(1)` as one [round, seat] array."""
    return np.stack([rounds[fmt.format(p)].to_numpy(np.int64) for p in (0, 1)], axis=1)


def decisive_sources(rounds: pd.DataFrame, coin_token: int) -> dict:
    """source -> (rupees taken away [n, 2], bonus tokens taken away [n, 2], goods tokens taken away [n, 2])."""
    pair = partial(_pair, rounds)
    zero = np.zeros((len(rounds), 2), dtype=np.int64)
    holder = rounds["coin_token"].to_numpy()
    coin = np.stack([np.where(holder == p, coin_token, 0) for p in (0, 1)], axis=1)
    out = {"coin_token": (coin, zero, zero),
           "bonus_tokens": (pair("bonus_rupees_{}"), pair("bonus_tokens_{}"), zero)}
    for g in GOODS:
        out[f"goods_{g}"] = (pair(f"taken_{g}_{{}}"), zero, pair(f"tokens_{g}_{{}}"))
    return out


def round_winners_without(rounds: pd.DataFrame, coin_token: int) -> tuple[np.ndarray, dict]:
    """Each round's winner as played (-1 drawn) and without each source."""
    pair = partial(_pair, rounds)
    rupees, bonus, goods = pair("rupees_{}"), pair("bonus_tokens_{}"), pair("goods_tokens_{}")
    actual = decisive.sole_winner(decisive.winner_mask([rupees, bonus, goods]))
    without = {source: decisive.sole_winner(decisive.winner_mask([rupees - r, bonus - b, goods - g]))
               for source, (r, b, g) in decisive_sources(rounds, coin_token).items()}
    return actual, without


def match_winners(match_row: np.ndarray, position: np.ndarray, round_winner: np.ndarray, n_matches: int,
                  seals: int) -> np.ndarray:
    """The match winner from its rounds in order: the first seat to win `seals` of them (-1: nobody does)."""
    width = int(position.max()) + 1 if len(position) else 1
    grid = np.full((n_matches, width), -1, dtype=np.int64)
    grid[match_row, position] = round_winner
    first = []
    for seat in (0, 1):
        done = np.cumsum(grid == seat, axis=1) >= seals
        first.append(np.where(done.any(axis=1), done.argmax(axis=1), width))
    return np.where(first[0] < first[1], 0, np.where(first[1] < first[0], 1, -1))


def decisive_metrics(games: pd.DataFrame, rounds: pd.DataFrame, cfg: dict) -> dict:
    """decisive_round_rate and decisive_rate (matches) per source; {} for results written before the rounds
    table had its goods tokens per good (`tokens_<good>_<seat>`), which the tie-break on token counts needs."""
    if any(f"tokens_{g}_{p}" not in rounds for g in GOODS for p in (0, 1)):
        return {}
    rules = cfg["rules"]
    actual, without = round_winners_without(rounds, int(rules["coin_token"]))
    out = decisive.rates({s: w != actual for s, w in without.items()}, "decisive_round_rate")
    match_row = pd.Index(games["match"].to_numpy()).get_indexer(rounds["match"].to_numpy())
    position = rounds["round"].to_numpy(np.int64) - 1
    seals = int(rules["seals_to_win"])
    played = match_winners(match_row, position, actual, len(games), seals)
    changes = {s: match_change(played, match_winners(match_row, position, w, len(games), seals))
               for s, w in without.items()}
    out.update(decisive.rates(changes))
    # its two parts: the matches that surely change, and those left unfinished (between 0 and 1 change each)
    for source, change in changes.items():
        out[f"decisive_rate[{source}][certain]"] = stats.rate(float(np.sum(change == 1.0)), len(change))
        out[f"decisive_rate[{source}][ambiguous]"] = stats.rate(float(np.sum(change == 0.5)), len(change))
    return out


def match_change(played: np.ndarray, without: np.ndarray) -> np.ndarray:
    """1 where the match winner changes, 1/2 where the rounds as played no longer finish a match that had a
    winner (its deciding round was never played: a toss-up), 0 where it stays."""
    unfinished = (without < 0) & (played >= 0)
    return np.where(unfinished, 0.5, (without != played).astype(float))


def decisive_labels() -> dict:
    labels = {"coin_token": "coin token", "bonus_tokens": "bonus tokens"}
    labels.update({f"goods_{g}": f"{g} tokens" for g in GOODS})
    return labels
