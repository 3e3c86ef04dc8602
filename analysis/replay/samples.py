"""Sample games for the report: the closest, the longest, one the weaker strategy won, one that hit a safety
rule, each with the command that replays it and (heuristic players only) its replay page beside the report.

Every game's index in the tables is its index in the run, which with the run's seed and batch size is all a
trace needs (`balance-sim replay --game K`, sim.replay_cmd).
"""
from __future__ import annotations

import html
import json
import shlex
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from sim.config import load_defaults

REPLAY_DIR = "replays"


@dataclass(frozen=True)
class Sample:
    key: str      # file name stem
    title: str    # "The closest game"
    game: int     # index in the run
    why: str      # what makes it the one


def games_frame(tables: dict, meta: dict) -> pd.DataFrame:
    """One row per game: `game`, `margin` (how far the winner was ahead; smaller is closer), `closeness` (words),
    `length`, `length_words`, `safety` (words, or None; optional `safety_rank`, lower shown first) and
    `winner_strategies` / `strategies` (tuples)."""
    return {"mohur": _mohur, "mughal": _mughal, "muziris": _muziris}[meta["game"]](tables, meta)


def _mohur(tables, meta) -> pd.DataFrame:
    games, rounds = tables["games"], tables["rounds"]
    last = rounds.sort_values(["match", "round"]).groupby("match").tail(1).set_index("match")
    rupee_gap = (last["rupees_0"].astype(int) - last["rupees_1"].astype(int)).abs()
    seals = (games["seals_0"].astype(int) - games["seals_1"].astype(int)).abs().to_numpy()
    gap = rupee_gap.reindex(games["match"]).to_numpy()
    from sim.mohur.engine import END_NAMES
    unsafe = rounds[rounds["end_reason"].isin([END_NAMES.index("stalled"), END_NAMES.index("turn_cap")])]
    reason = unsafe.groupby("match")["end_reason"].first().map(
        lambda r: f"a round ended by the {END_NAMES[r].replace('_', ' ')} rule")
    safety = [reason.get(m) for m in games["match"]]
    safety = [s if s is not None else ("the round cap ended the match with no winner" if w < 0 else None)
              for s, w in zip(safety, games["winner"])]
    strategies = list(zip(games["strategy_0"].astype(str), games["strategy_1"].astype(str)))
    return pd.DataFrame({
        "game": games["match"].astype(int).to_numpy(),
        "margin": seals * 1000 + gap,
        "closeness": [f"{max(a, b)}-{min(a, b)} on seals, " + (f"the last round by {g} rupee{'s' if g != 1 else ''}"
                      if g else "the last round level on rupees and settled by the tie-break")
                      for a, b, g in zip(games["seals_0"], games["seals_1"], gap)],
        "length": games["turns"].astype(int).to_numpy(),
        "length_words": [f"{t} turns over {r} rounds" for t, r in zip(games["turns"], games["rounds"])],
        "safety": safety,
        "strategies": strategies,
        "winner_strategies": [(s[w],) if w >= 0 else () for s, w in zip(strategies, games["winner"])],
    })


def _per_seat(players: pd.DataFrame, score: str) -> pd.DataFrame:
    """Margin (top score minus the next), strategies and winners per game from a players table."""
    ordered = players.sort_values(["game", "seat"])
    grouped = ordered.groupby("game", sort=True)
    top2 = grouped[score].apply(lambda s: sorted(s.astype(int), reverse=True)[:2])
    margin = top2.map(lambda v: v[0] - v[1] if len(v) > 1 else v[0])
    strategies = grouped["strategy"].apply(lambda s: tuple(s.astype(str)))
    winners = ordered[ordered["win_share"] == 1].groupby("game")["strategy"].apply(lambda s: tuple(s.astype(str)))
    return pd.DataFrame({"margin": margin, "strategies": strategies,
                         "winner_strategies": winners.reindex(margin.index)}).rename_axis("game")


def _mughal(tables, meta) -> pd.DataFrame:
    games = tables["games"].set_index("game")
    seat = _per_seat(tables["players"], "vt_total")
    seat = seat.reindex(games.index)
    resh = games["reshuffles"].astype(int)
    return pd.DataFrame({
        "game": games.index.astype(int),
        "margin": games["vt_margin"].astype(int).to_numpy(),
        "closeness": [f"won by {m} VT" if m else "a shared win" for m in games["vt_margin"]],
        "length": games["decisions"].astype(int).to_numpy(),
        "length_words": [f"{d} decisions (every game has {t} turns)" for d, t in zip(games["decisions"],
                                                                                         games["turns"])],
        "safety": [f"the deck ran out and the discard was shuffled back {r} time{'s' if r != 1 else ''}" if r
                   else None for r in resh],
        "strategies": seat["strategies"].to_numpy(),
        "winner_strategies": [w if isinstance(w, tuple) else () for w in seat["winner_strategies"]],
    })


def _muziris(tables, meta) -> pd.DataFrame:
    games = tables["games"].set_index("game")
    seat = _per_seat(tables["players"], "coins").reindex(games.index)
    capped = games["end_reason"].astype(int) == 2  # sim.muziris.engine.END_NAMES: round_cap
    short = games["coins_short"].astype(bool)
    safety = ["the round cap (a safety rule) ended it" if c else
              "it needed more coins than the box holds (coins_short)" if s else None for c, s in zip(capped, short)]
    return pd.DataFrame({
        "game": games.index.astype(int),
        "margin": seat["margin"].astype(int).to_numpy(),
        "closeness": [f"won by {m} coin{'s' if m != 1 else ''}" if m
                      else "level on coins at the top and settled by the tie-break" for m in seat["margin"]],
        "length": (games["rounds"].astype(int) * 1000 + games["uses"].astype(int)).to_numpy(),
        "length_words": [f"{r} rounds, {u} character uses" for r, u in zip(games["rounds"], games["uses"])],
        "safety": safety,
        "safety_rank": (~capped).astype(int).to_numpy(),  # a round-cap game first, then a coins-short one
        "strategies": seat["strategies"].to_numpy(),
        "winner_strategies": [w if isinstance(w, tuple) else () for w in seat["winner_strategies"]],
    })


def weakest_strategy(frame: pd.DataFrame) -> str | None:
    """The strategy with the lowest share of wins per seat it played; None with a single strategy."""
    seats, wins = {}, {}
    for strategies, winners in zip(frame["strategies"], frame["winner_strategies"]):
        for s in strategies:
            seats[s] = seats.get(s, 0) + 1
        for s in winners:
            wins[s] = wins.get(s, 0) + 1 / len(winners)
    if len(seats) < 2:
        return None
    return min(sorted(seats), key=lambda s: wins.get(s, 0) / seats[s])


def pick(frame: pd.DataFrame) -> list[Sample]:
    """The sample games of a run (those that exist): ties go to the lowest game index."""
    samples = []
    decided = frame[frame["winner_strategies"].map(len) > 0]
    if len(decided):
        row = decided.sort_values(["margin", "game"], kind="stable").iloc[0]
        samples.append(Sample("closest", "The closest game", int(row["game"]), str(row["closeness"])))
    row = frame.sort_values(["length", "game"], ascending=[False, True], kind="stable").iloc[0]
    samples.append(Sample("longest", "The longest game", int(row["game"]), str(row["length_words"])))
    weak = weakest_strategy(frame)
    if weak is not None:
        upsets = frame[frame["winner_strategies"].map(lambda w: w == (weak,))
                       & frame["strategies"].map(lambda s: any(x != weak for x in s))]
        if len(upsets):
            row = upsets.sort_values(["margin", "game"], ascending=[False, True], kind="stable").iloc[0]
            samples.append(Sample("upset", f"A win for the weaker strategy ({weak})", int(row["game"]),
                                  f"{weak} wins against {', '.join(sorted(set(row['strategies']) - {weak}))}: "
                                  f"{row['closeness']}"))
    safe = frame[frame["safety"].notna()]
    safe = safe.sort_values(["safety_rank", "game"] if "safety_rank" in safe else "game", kind="stable")
    if len(safe):
        row = safe.iloc[0]
        samples.append(Sample("safety", "A game that hit a safety rule", int(row["game"]),
                              f"{row['safety']} ({len(safe):,} of {len(frame):,} games did)"))
    return samples


def _set_flags(meta: dict) -> list[str] | None:
    """--set flags that rebuild the run's configuration from the defaults; None if some change cannot be
    written as one (then the command names the results folder instead)."""
    try:
        defaults = load_defaults(f"sim.{meta['game']}")
    except (FileNotFoundError, ModuleNotFoundError):
        return None
    flags: list[str] = []

    def walk(a, b, path) -> bool:
        if isinstance(a, dict) and isinstance(b, dict):
            if set(a) != set(b):
                return False
            return all(walk(a[k], b[k], f"{path}{k}.") for k in sorted(a))
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and any(isinstance(x, dict) for x in a):
            return all(walk(x, y, f"{path}{i}.") for i, (x, y) in enumerate(zip(a, b), start=1))
        if a == b:
            return True
        if isinstance(b, dict) or (isinstance(b, list) and any(isinstance(x, (dict, list)) for x in b)):
            return False
        flags.append(f"{path.rstrip('.')}={json.dumps(b)}")  # JSON scalars and flat lists are TOML values
        return True

    return flags if walk(defaults, meta.get("config", {}), "") else None


def command(meta: dict, game: int, results_dir: Path | None = None) -> str:
    """The command line that replays game `game` of the run."""
    flags = _set_flags(meta)
    if flags is None and results_dir is not None:
        return f"balance-sim replay --run {shlex.quote(str(results_dir))} --game {game}"
    names = ",".join(s["name"] for s in meta["strategies"])
    parts = ["balance-sim", "replay", meta["game"], "--seed", str(meta["seed"]), "-s", names,
             "-p", str(meta["players"]), "--game", str(game), "--batch-size", str(meta["batch_size"])]
    if meta.get("round_robin"):
        parts.append("--round-robin")
    for flag in flags or []:
        parts += ["--set", flag]
    return " ".join(shlex.quote(p) for p in parts)


def section(tables: dict, meta: dict, outdir: Path, write_pages: bool = True) -> dict:
    """The report section; writes `replays/<key>.html` beside the report unless a seat of that game is a search
    player (seconds a move) or `write_pages` is false."""
    from sim.errors import UserError
    from sim.replay_cmd import from_meta

    from analysis.replay import write_replay
    outdir = Path(outdir)
    frame = games_frame(tables, meta)
    samples = pick(frame)
    search = _search_names(meta)
    results_dir = Path(str(outdir)[: -len(".partial")]) if str(outdir).endswith(".partial") else outdir
    items = []
    for sample in samples:
        cmd = command(meta, sample.game, results_dir)
        link = ""
        try:
            chosen = from_meta(meta, sample.game)
        except UserError:
            chosen = None
        if write_pages and chosen is not None and not any(c.name in search for c in chosen.seats):
            target = outdir / REPLAY_DIR / f"{sample.key}.html"
            write_replay(target, list(chosen.events()), game_index=sample.game, batch_size=chosen.batch_size)
            link = f" <a href='{REPLAY_DIR}/{sample.key}.html'>open the replay</a>"
        items.append(f"<li><b>{html.escape(sample.title)}</b>: game {sample.game}, {html.escape(sample.why)}."
                     f"{link}<br><code>{html.escape(cmd)}</code></li>")
    if not any(s.key == "safety" for s in samples):
        items.append("<li><b>Safety rules</b>: no game of this run hit one.</li>")
    text = ("Games worth watching, chosen from this run's tables. Each link opens a page that steps through the "
            "game turn by turn; the command under it writes the same page (replay.html) from the run's seed.")
    return {"title": "Sample games", "text": text, "html": "<ul class='samples'>" + "".join(items) + "</ul>"}


def _search_names(meta: dict) -> set[str]:
    from sim.registry import registered
    search = {d.name for d in registered(meta["game"]) if d.search}
    return {s["name"] for s in meta.get("strategies", []) if s.get("base") in search}
