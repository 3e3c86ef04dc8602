"""What `report` and `compare` accept: a results folder whose meta.json (`sim.meta.check_run`) and tables belong
together; anything else (another kind, damaged, cut short, another game's) is one line, a UserError."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

from sim.errors import UserError
from sim.game import MAIN_TABLE
from sim.meta import MAX_META_BYTES, META, REMAKE, check_run, read
from sim import inputs, results

DAMAGED = f"the folder is damaged (or its files come from another run); {REMAKE}"


FIGURE_NUMBERS = ("estimate", "ci_low", "ci_high")  # each a number or null in every figure of summary.json


def check_summary(path: Path, summary) -> dict:
    """A summary.json as balance-sim writes it: an object whose figures are objects of numbers (or null)."""
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


def load(folder: Path, doing: str = "report", summariser=None):
    """("tables", tables, meta) for a results folder, ("summary", summary, meta) for a --summary-only one."""
    folder = Path(folder)
    meta = read(folder)
    run = check_run(folder, meta, doing)
    spec = run["spec"]
    if run["partial"]:
        try:
            return "tables", *results.load(folder, run, summariser)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise UserError(f"{folder}: a saved batch cannot be read ({type(exc).__name__}: {exc}); "
                            f"finish the run with 'balance-sim run --resume {folder}' instead") from None
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
    return "tables", tables, meta
