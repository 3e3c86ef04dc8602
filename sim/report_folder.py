"""What `balance-sim report` accepts, checked before anything is read in earnest: a results folder whose meta.json
and tables belong together. Sweep and tune folders, damaged files and tables of another game are one line each
(a UserError); a --summary-only folder is rebuilt from its summary.json."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

from sim.errors import UserError
from sim.game import MAIN_TABLE

META = "meta.json"
# key -> (type, description) every finished results folder's meta.json holds
REQUIRED = {"game": (str, "a game name"), "players": (int, "a number of players"), "games": (int, "a number of games"),
            "seed": (int, "the root seed"), "strategies": (list, "a list of strategies"),
            "config": (dict, "the configuration table")}
REMAKE = "make it again with 'balance-sim run'"


def read_meta(folder: Path) -> dict:
    folder = Path(folder)
    path = folder / META
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder")
    if not path.is_file():
        raise UserError(f"{folder}: not a results folder (no {META}); make one with 'balance-sim run'")
    try:
        meta = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: not valid JSON ({exc}); this folder's {META} is damaged, {REMAKE}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror})") from None
    if not isinstance(meta, dict):
        raise UserError(f"{path}: expected a JSON object of run settings, got {type(meta).__name__}; {REMAKE}")
    return meta


def check_meta(folder: Path, meta: dict):
    from sim.game import game_names, get_game
    path = folder / META
    for key, (kind, what) in REQUIRED.items():
        if key not in meta:
            raise UserError(f"{path}: no '{key}' ({what}); this is not a complete results folder, {REMAKE}")
        value = meta[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            raise UserError(f"{path}: '{key}' is {value!r}, expected {what}; {REMAKE}")
    if meta["game"] not in game_names():
        raise UserError(f"{path}: game '{meta['game']}' is not a game of this balance-sim; allowed: "
                        f"{', '.join(game_names())}")
    if meta["games"] < 0 or not all(isinstance(s, dict) and isinstance(s.get("name"), str)
                                    for s in meta["strategies"]):
        raise UserError(f"{path}: 'games' or 'strategies' is damaged; {REMAKE}")
    return get_game(meta["game"])


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


def _read_table(path: Path):
    import pandas as pd
    import pyarrow as pa
    try:
        return pd.read_parquet(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UserError(f"{path}: not a readable Parquet table ({reason}); {REMAKE}") from None


def load(folder: Path):
    """("tables", tables, meta) for a results folder, ("summary", summary, meta) for a --summary-only one."""
    folder = Path(folder)
    meta = read_meta(folder)
    if "sweep" in meta:
        raise UserError(f"{folder} is a sweep folder: its report is {folder / 'sweep_report.html'}; report one "
                        f"variant with 'balance-sim report {folder / 'variant-000'}'")
    if "tune" in meta:
        raise UserError(f"{folder} is a tune folder: its results are tune.html, tune.json and history.csv, with "
                        "no game tables to report")
    if "sensitivity" in meta:
        raise UserError(f"{folder} is a sensitivity folder, not a run's results folder: its report is "
                        f"{folder / 'sensitivity.html'}, written by 'balance-sim sensitivity' (run that again to "
                        "remake it); 'balance-sim report' rebuilds a 'balance-sim run' folder's report")
    spec = check_meta(folder, meta)
    if meta.get("partial"):
        from sim import results
        if not isinstance(meta.get("batch_size"), int) or meta["batch_size"] < 1:
            raise UserError(f"{folder / META}: no valid 'batch_size'; {REMAKE}")
        try:
            return "tables", *results.load(folder)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise UserError(f"{folder}: a saved batch cannot be read ({type(exc).__name__}: {exc}); "
                            f"finish the run with 'balance-sim run --resume {folder}' instead") from None
    if meta.get("summary_only"):
        path = folder / "summary.json"
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise UserError(f"{path}: a --summary-only run keeps only this file, and it cannot be read "
                            f"({exc}); {REMAKE}") from None
        check_summary(path, summary)
        return "summary", {k: v for k, v in summary.items() if k not in ("game", "games", "partial")}, meta
    missing = [name for name in spec.tables if not (folder / f"{name}.parquet").is_file()]
    if missing:
        raise UserError(f"{folder}: no {missing[0]}.parquet (a {spec.name} results folder holds "
                        f"{', '.join(t + '.parquet' for t in spec.tables)}); {REMAKE}")
    tables = {path.stem: _read_table(path) for path in sorted(folder.glob("*.parquet"))}
    main = tables[MAIN_TABLE]
    if spec.id_column not in main:
        raise UserError(f"{folder / (MAIN_TABLE + '.parquet')}: no '{spec.id_column}' column, so not a "
                        f"{spec.name} table (from another game?); {REMAKE}")
    if len(main) != meta["games"]:
        raise UserError(f"{folder / (MAIN_TABLE + '.parquet')}: holds {len(main):,} games but {META} says "
                        f"{meta['games']:,}; the folder is damaged, {REMAKE}")
    return "tables", tables, meta
