"""Results folders: written whole or not at all, resumable when interrupted, read back as DataFrames.

A run works in `<out>.partial/` (meta.json marked partial, one file per finished batch) and renames it to
`<out>` only when everything, report included, is written. An interrupted run leaves the `.partial` folder:
`balance-sim run --resume <out>` completes it, and `balance-sim report <out>.partial` reports what finished.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd

from sim.errors import UserError

META = "meta.json"
BATCHES = "batches"


def partial_path(out: Path) -> Path:
    out = Path(out)
    return out if out.name.endswith(".partial") else out.with_name(out.name + ".partial")


def final_path(folder: Path) -> Path:
    folder = Path(folder)
    return folder.with_name(folder.name[: -len(".partial")]) if folder.name.endswith(".partial") else folder


def check_output(out: Path) -> None:
    """Refuse before any game is played: an existing folder is replaced only if it holds earlier results."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / META).exists())):
        raise UserError(f"-o {out}: exists and is not a balance-sim results folder; choose another path")


def begin(out: Path, meta: dict) -> Path:
    """A fresh staging folder for `out` (a stale one from an earlier interrupted run is discarded)."""
    staging = partial_path(out)
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    write_meta(staging, {**meta, "partial": True})
    return staging


def write_meta(folder: Path, meta: dict) -> None:
    tmp = Path(folder) / f".{META}.tmp"
    tmp.write_text(json.dumps(meta, indent=2, default=str) + "\n")
    os.replace(tmp, Path(folder) / META)


def read_meta(folder: Path) -> dict:
    folder = Path(folder)
    if not (folder / META).is_file():
        raise UserError(f"{folder}: not a results folder (no {META}); make one with 'balance-sim run'")
    return json.loads((folder / META).read_text())


def write_tables(folder: Path, tables: dict[str, pd.DataFrame]) -> None:
    for name, frame in tables.items():
        frame.to_parquet(Path(folder) / f"{name}.parquet", index=False)


class ParquetSink:
    """Receives a run's batches in order and appends them to one Parquet file per table, in row groups of
    about `rows` rows, so a run of any size holds only a few batches in memory."""

    def __init__(self, folder: Path, spec, plan, rows: int = 250_000):
        self.folder, self.spec, self.plan, self.rows = Path(folder), spec, plan, rows
        self.buffers: dict[str, list] = {}
        self.writers: dict = {}

    def __call__(self, b: int, tables: dict) -> None:
        from sim.runner import assemble
        for name, frame in assemble(self.spec, self.plan, [tables]).items():
            self.buffers.setdefault(name, []).append(frame)
            if sum(len(f) for f in self.buffers[name]) >= self.rows:
                self._write(name)

    def _write(self, name: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq
        parts = self.buffers.pop(name, [])
        if not parts:
            return
        table = pa.Table.from_pandas(pd.concat(parts, ignore_index=True), preserve_index=False)
        if name not in self.writers:
            self.writers[name] = pq.ParquetWriter(self.folder / f"{name}.parquet", table.schema)
        self.writers[name].write_table(table)

    def close(self) -> None:
        for name in list(self.buffers):
            self._write(name)
        for writer in self.writers.values():
            writer.close()


def read_tables(folder: Path) -> dict[str, pd.DataFrame]:
    return {path.stem: pd.read_parquet(path) for path in sorted(Path(folder).glob("*.parquet"))}


def finish(staging: Path, out: Path) -> None:
    """Swap the finished staging folder into place: two renames, never a half-written `out`."""
    shutil.rmtree(Path(staging) / BATCHES, ignore_errors=True)
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
    os.replace(staging, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def load(folder: Path) -> tuple[dict[str, pd.DataFrame], dict]:
    """Tables and meta of a results folder; a `.partial` folder gives the finished batches, marked partial."""
    folder = Path(folder)
    meta = read_meta(folder)
    if not meta.get("partial"):
        return read_tables(folder), meta
    from sim.game import get_game
    from sim.runner import assemble, finished_batches, load_batch, plan_from_meta
    spec = get_game(meta["game"])
    plan = plan_from_meta(meta)
    done = finished_batches(folder / BATCHES)
    if not done:
        raise UserError(f"{folder}: this interrupted run finished no batch yet; nothing to report")
    tables = assemble(spec, plan, [load_batch(folder / BATCHES, b) for b in done])
    games = sum(plan.batch_bounds(b)[1] - plan.batch_bounds(b)[0] for b in done)
    return tables, {**meta, "games": games, "planned_games": meta["games"], "partial": True}
