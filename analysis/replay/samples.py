"""Sample games for the report (closest, longest, an upset, a safety rule hit), each with the command that
replays it (a game's index in the tables is its index in the run) and, heuristic players only, its replay page.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.config import load_defaults
from sim.errors import UserError
from sim.game import get_game
from analysis.markup import Markup, tag
from analysis.models import unique_rows
from analysis.common import names_of
from analysis.replay import write_replay
from sim.registry import registered

REPLAY_DIR = "replays"


@dataclass(frozen=True)
class Sample:
    key: str      # file name stem
    title: str    # "The closest game"
    game: int     # index in the run
    why: str      # what makes it the one


def games_frame(tables: dict, meta: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(games: game, margin, closeness, decided, length, length_words, safety, optional safety_rank; seats: game,
    strategy, share), from the game's replay module."""
    return get_game(meta["game"]).module("replay").games_frame(tables, meta)


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def formatted(fmt, *columns) -> pd.Categorical:
    """`[fmt(*values) for values in zip(*columns)]` (None: missing) as a categorical, `fmt` called once per
    distinct combination of integer columns, not per game (a quarter of a second of a report otherwise)."""
    values = [np.asarray(c) for c in columns]
    # integers int64 holds exactly (a uint64 may not) and booleans; anything else is formatted row by row
    if not all(v.dtype == bool or v.dtype == np.int64 or (np.issubdtype(v.dtype, np.integer) and v.dtype.itemsize < 8)
               for v in values):
        return pd.Categorical([fmt(*row) for row in zip(*columns)])
    rows, inverse = unique_rows(np.stack(values, axis=1).astype(np.int64))
    kinds = [v.dtype.type for v in values]  # fmt sees values of the column's own type, as zip would give it
    words = [fmt(*(kind(x) for kind, x in zip(kinds, row))) for row in rows.tolist()]
    names = sorted({w for w in words if w is not None})
    code = {w: i for i, w in enumerate(names)}
    lookup = np.array([-1 if w is None else code[w] for w in words], dtype=np.int64)
    return pd.Categorical.from_codes(lookup[inverse], categories=names)


def margins(players: pd.DataFrame, score: str) -> pd.Series:
    """Top score minus the next, per game."""
    ordered = players.sort_values(["game", score], ascending=[True, False], kind="stable")
    rank = ordered.groupby("game").cumcount().to_numpy()
    top = ordered[rank == 0].set_index("game")[score].astype(int)
    second = ordered[rank == 1].set_index("game")[score].astype(int).reindex(top.index, fill_value=0)
    return top - second


def seats_frame(players: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"game": players["game"].astype(int).to_numpy(),
                         "strategy": names_of(players["strategy"]).to_numpy(),
                         "share": players["win_share"].astype(float).to_numpy()})


def pick(frame: pd.DataFrame, seats: pd.DataFrame) -> list[Sample]:
    """The sample games of a run (those that exist): ties go to the lowest game index."""
    samples = []
    decided = frame[frame["decided"]]
    if len(decided):
        row = decided.sort_values(["margin", "game"], kind="stable").iloc[0]
        samples.append(Sample("closest", "The closest game", int(row["game"]), str(row["closeness"])))
    row = frame.sort_values(["length", "game"], ascending=[False, True], kind="stable").iloc[0]
    samples.append(Sample("longest", "The longest game", int(row["game"]), str(row["length_words"])))
    rate = seats.groupby("strategy", sort=True)["share"].mean()  # per seat played; the lowest is the weakest
    weak = None if len(rate) < 2 else str(rate.idxmin())
    if weak is not None:
        won = seats.loc[(seats["strategy"] == weak) & (seats["share"] == 1), "game"]
        against = seats.loc[seats["strategy"] != weak, "game"]
        upsets = frame[frame["game"].isin(won) & frame["game"].isin(against)]
        if len(upsets):
            row = upsets.sort_values(["margin", "game"], ascending=[False, True], kind="stable").iloc[0]
            rivals = sorted(set(seats.loc[(seats["game"] == row["game"]) & (seats["strategy"] != weak), "strategy"]))
            samples.append(Sample("upset", f"A win for the weaker strategy ({weak})", int(row["game"]),
                                  f"{weak} wins against {', '.join(rivals)}: {row['closeness']}"))
    safe = frame[frame["safety"].notna()]
    if len(safe):
        safe = safe.sort_values(["safety_rank", "game"] if "safety_rank" in safe else "game", kind="stable")
        row = safe.iloc[0]
        samples.append(Sample("safety", "A game that hit a safety rule", int(row["game"]),
                              f"{row['safety']} ({len(safe):,} of {len(frame):,} games did)"))
    return samples


def _set_flags(meta: dict) -> list[str] | None:
    """--set flags that rebuild the run's configuration from the defaults; None if some change cannot be
    written as one (then the command names the results folder instead)."""
    try:
        defaults = load_defaults(get_game(meta["game"]).package)
    except (FileNotFoundError, ModuleNotFoundError, UserError):
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
    if meta.get("round_robin"):  # -s all: every pairing (two players) or mirror blocks (more players)
        parts.append("--round-robin")
    for flag in flags or []:
        parts += ["--set", flag]
    return " ".join(shlex.quote(p) for p in parts)


def section(tables: dict, meta: dict, outdir: Path, write_pages: bool = True, game_of_run=None) -> dict:
    """The report section; writes `replays/<key>.html` beside it (not for search players, seconds a move) for the
    games `game_of_run(meta, index)` gives (`sim.setup.from_meta`); without it only the commands are listed."""
    outdir = Path(outdir)
    samples = pick(*games_frame(tables, meta))
    searching = {d.name for d in registered(meta["game"]) if d.search}  # their games get no replay page
    search = {s["name"] for s in meta.get("strategies", []) if s.get("base") in searching}
    results_dir = Path(str(outdir)[: -len(".partial")]) if str(outdir).endswith(".partial") else outdir
    items = []
    for sample in samples:
        cmd = command(meta, sample.game, results_dir)
        link = Markup("")
        try:
            chosen = game_of_run(meta, sample.game) if game_of_run is not None else None
        except UserError:
            chosen = None
        if write_pages and chosen is not None and not any(c.name in search for c in chosen.seats):
            target = outdir / REPLAY_DIR / f"{sample.key}.html"
            write_replay(target, list(chosen.events()), game_index=sample.game, batch_size=chosen.batch_size)
            link = Markup(" " + tag("a", "open the replay", href=f"{REPLAY_DIR}/{sample.key}.html"))
        items.append(tag("li", tag("b", sample.title), f": game {sample.game}, {sample.why}.", link, Markup("<br>"),
                         tag("code", cmd)))
    if not any(s.key == "safety" for s in samples):
        items.append(tag("li", tag("b", "Safety rules"), ": no game of this run hit one."))
    text = ("Games worth watching, chosen from this run's tables. Each link opens a page that steps through the "
            "game turn by turn; the command under it writes the same page (replay.html) from the run's seed.")
    return {"title": "Sample games", "text": text, "html": tag("ul", *items, class_="samples")}
