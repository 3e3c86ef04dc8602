"""What `report` and `compare` accept: a results folder whose meta.json (`sim.meta.check_run`) and tables belong
together; anything else (another kind, damaged, cut short, another game's) is one line, a UserError."""
from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

from sim.errors import UserError
from sim.game import MAIN_TABLE
from sim.meta import MAX_META_BYTES, META, REMAKE, check_run, read
from sim import inputs, results

DAMAGED = f"the folder is damaged (or its files come from another run); {REMAKE}"


FIGURE_NUMBERS = ("estimate", "ci_low", "ci_high")  # each a number or null in every figure of summary.json


MAX_FIGURE = 1e12  # no figure balance-sim writes comes near (a count of games is at most inputs.MAX_GAMES)


def check_summary(path: Path, summary) -> dict:
    """A summary.json as balance-sim writes it: an object whose figures are objects of numbers (or null), each
    finite and in range: a rate (and its interval) within 0-1, a count of games not negative."""
    if not isinstance(summary, dict):
        raise UserError(f"{path}: expected a JSON object of figures; {REMAKE}")
    for name, figure in summary.items():
        if not isinstance(figure, dict):
            continue  # "game", "games": not figures
        bad = next((k for k in FIGURE_NUMBERS if figure.get(k) is not None and
                    (isinstance(figure[k], bool) or not isinstance(figure[k], (int, float)))), None)
        if bad or (figure.get("n") is not None and (isinstance(figure["n"], bool) or not isinstance(figure["n"], int))):
            key = bad or "n"
            raise UserError(f"{path}: figure '{name}' has {key} = {figure[key]!r}, not a number; the file is "
                            f"damaged, {REMAKE}")
        rate = "rate" in name or name == "balance"
        for key in (*FIGURE_NUMBERS, "n"):
            value = figure.get(key)
            if value is None:
                continue
            low, high = (0, 1) if rate and key != "n" else (0, MAX_FIGURE) if key == "n" else (-MAX_FIGURE, MAX_FIGURE)
            if not (math.isfinite(value) and low - 1e-9 <= value <= high + 1e-9):  # rounding: -8.7e-19 for a 0
                raise UserError(f"{path}: figure '{name}' has {key} = {value!r}, outside {low:g} to {high:g}; the file "
                                f"is damaged, {REMAKE}")
    return summary


def check_labels(folder: Path, tables: dict) -> None:
    """Strategy labels of at most inputs.MAX_LABEL characters (a 1 MB one would slow every table of a report to a
    crawl): a longer one is not a name balance-sim wrote."""
    for name, frame in tables.items():
        for column in frame.columns:
            if not (column == "strategy" or str(column).startswith("strategy_")):
                continue
            values = frame[column].cat.categories if hasattr(frame[column], "cat") else frame[column].unique()
            long = next((v for v in values if isinstance(v, str) and len(v) > inputs.MAX_LABEL), None)
            if long is not None:
                raise UserError(f"{folder / (name + '.parquet')}: column '{column}' holds a strategy name of "
                                f"{len(long):,} characters; balance-sim's are at most {inputs.MAX_LABEL}; {DAMAGED}")


def _read_table(path: Path):
    import pandas as pd
    import pyarrow as pa
    if not inputs.is_regular(path):  # a FIFO would block Arrow's read, a link may point anywhere
        raise UserError(f"{path}: a link, a named pipe or a folder, not a table balance-sim wrote; {REMAKE}")
    try:
        return pd.read_parquet(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UserError(f"{path}: not a readable Parquet table ({reason}); {REMAKE}") from None


def _check_tables(folder: Path, spec, meta: dict, tables: dict) -> None:
    """The tables agree with meta.json: rows recorded, and every game 0..games-1 and none outside."""
    recorded = meta.get("tables")
    if recorded is not None:
        if not isinstance(recorded, dict) or set(recorded) != set(tables):
            raise UserError(f"{folder}: holds the tables {', '.join(sorted(tables))} but {META} recorded "
                            f"{', '.join(sorted(recorded)) if isinstance(recorded, dict) else recorded!r}; {DAMAGED}")
        for name, frame in tables.items():
            if recorded[name] != len(frame):
                raise UserError(f"{folder / (name + '.parquet')}: holds {len(frame):,} rows but {META} recorded "
                                f"{recorded[name]!r}; {DAMAGED}")
    main = tables[MAIN_TABLE]
    if spec.id_column not in main:
        raise UserError(f"{folder / (MAIN_TABLE + '.parquet')}: no '{spec.id_column}' column, so not a "
                        f"{spec.name} table (from another game?); {REMAKE}")
    games = meta["games"]
    if len(main) != games or (games and (main[spec.id_column].min() != 0 or main[spec.id_column].max() != games - 1
                                         or not main[spec.id_column].is_unique)):
        raise UserError(f"{folder / (MAIN_TABLE + '.parquet')}: holds {len(main):,} games but {META} says "
                        f"{games:,}; {DAMAGED}")
    for name, frame in tables.items():
        if spec.id_column in frame and len(frame) and (frame[spec.id_column].min() < 0
                                                       or frame[spec.id_column].max() >= games):
            raise UserError(f"{folder / (name + '.parquet')}: holds games outside 0-{games - 1}; {DAMAGED}")


# Value ranges every game's tables keep (docs/<game>.md): a column of these names outside its range was not
# written by balance-sim, whatever its shape. `players` stands for the run's player count.
SEATS = ("seat", "starter", "first_starter", "first_player")  # a seat: 0 .. players-1
SEAT_OR_NONE = ("winner", "trigger_seat")  # a seat, or -1: nobody (a shared win, a drawn round, none yet)
COUNTS = ("turns", "rounds", "decisions", "reshuffles", "picks", "count", "uses", "n_winners", "games_in_play",
          "rounds_in_play")  # how many: never negative
MAX_LABEL = 200  # characters of a strategy name in a table (a preset's name is a config key)


def _refuse(folder: Path, table: str, column: str, what: str) -> UserError:
    return UserError(f"{folder / (table + '.parquet')}: column '{column}' {what}; {DAMAGED}")


def check_values(folder: Path, spec, meta: dict, tables: dict, players: int) -> None:
    """Every value within what the game can write: numbers finite, seats and winners among the seats (or -1),
    counts not negative, win shares within 0-1, strategy names those of meta.json, and a game's rounds as many
    as its games row says (`rounds.match` consistent)."""
    import numpy as np
    from pandas.api.types import is_bool_dtype, is_numeric_dtype
    names = {s.get("name") for s in meta.get("strategies", []) if isinstance(s, dict)}
    for table, frame in tables.items():
        for column in frame.columns:
            values = frame[column]
            if column == "strategy" or column.startswith("strategy_"):
                found = set(values.astype(object).dropna().unique()) if len(values) else set()
                if values.isna().any() or not found <= names:
                    odd = sorted(map(str, found - names))[:1] or ["a missing name"]
                    raise _refuse(folder, table, column, f"names {odd[0][:MAX_LABEL]!r}, not a strategy meta.json "
                                                         f"lists ({', '.join(sorted(names))[:300]})")
                continue
            if is_bool_dtype(values.dtype) or not is_numeric_dtype(values.dtype):
                continue
            array = values.to_numpy()
            if array.dtype.kind == "f" and not np.isfinite(array).all():
                raise _refuse(folder, table, column, "holds a value that is not a finite number (NaN or infinite)")
            if not len(array):
                continue
            low, high = array.min(), array.max()
            limits = ((0, players - 1) if column in SEATS else (-1, players - 1) if column in SEAT_OR_NONE
                      else (0, 1) if column == "win_share" or column.startswith("win_share_")
                      else (1, None) if column == "round" else (0, None) if column in COUNTS else None)
            if limits is not None and (low < limits[0] or (limits[1] is not None and high > limits[1])):
                allowed = f"{limits[0]} to {limits[1]}" if limits[1] is not None else f"{limits[0]} or more"
                raise _refuse(folder, table, column, f"holds {low if low < limits[0] else high} (allowed: {allowed})")
    main = tables[MAIN_TABLE]
    for table, frame in tables.items():  # a per-round table has as many rows per game as the game had rounds
        if table != MAIN_TABLE and "round" in frame and spec.id_column in frame and "rounds" in main:
            per_game = frame.groupby(spec.id_column).size().reindex(main[spec.id_column], fill_value=0).to_numpy()
            if not (per_game == main["rounds"].to_numpy()).all():
                raise _refuse(folder, table, spec.id_column, f"does not give each game the rounds "
                                                             f"{MAIN_TABLE}.parquet says it had")


def load(folder: Path, doing: str = "report", summariser=None):
    """("tables", tables, meta) for a results folder, ("summary", summary, meta) for a --summary-only one."""
    folder = Path(folder)
    meta = read(folder)
    run = check_run(folder, meta, doing)
    spec = run["spec"]
    if run["partial"]:
        try:
            tables, partial_meta = results.load(folder, run, summariser)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise UserError(f"{folder}: a saved batch cannot be read ({type(exc).__name__}: {exc}); "
                            f"finish the run with 'balance-sim run --resume {folder}' instead") from None
        if MAIN_TABLE in tables:
            check_values(folder, spec, partial_meta, tables, run["players"])
        return "tables", tables, partial_meta
    if run["summary_only"]:
        path = folder / "summary.json"
        try:
            summary = json.loads(inputs.read_regular(path, MAX_META_BYTES).decode("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise UserError(f"{path}: a --summary-only run keeps only this file, and it cannot be read "
                            f"({exc}); {REMAKE}") from None
        check_summary(path, summary)
        return "summary", {k: v for k, v in summary.items() if k not in ("game", "games", "partial")}, meta
    missing = [name for name in spec.tables if not (folder / f"{name}.parquet").is_file()]
    if missing:
        raise UserError(f"{folder}: no {missing[0]}.parquet (a {spec.name} results folder holds "
                        f"{', '.join(t + '.parquet' for t in spec.tables)}); {REMAKE}")
    tables = {path.stem: _read_table(path) for path in sorted(folder.glob("*.parquet"))}
    check_labels(folder, tables)
    _check_tables(folder, spec, meta, tables)
    check_values(folder, spec, meta, tables, run["players"])
    return "tables", tables, meta
