"""Results folders: written whole or not at all, resumable when interrupted, read back as DataFrames.

A run works in `<out>.partial/` (meta.json marked partial, one file per finished batch) and renames it to
`<out>` only when everything, report included, is written. An interrupted run leaves the `.partial` folder:
`balance-sim run --resume <out>` completes it, and `balance-sim report <out>.partial` reports what finished.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError
from sim.runner import assemble, batch_seed, plan_from_meta, strategy_codes

META = "meta.json"
BATCHES = "batches"
FORMAT = "balance-sim-results"  # written into every meta.json we write: how we know a folder is ours
FORMAT_VERSION = 1
# what earlier versions (without the marker or the list of files) wrote into a folder, by name
_LEGACY_NAMES = ("meta.json", "summary.json", "report.html", "*.parquet", "*.png", "sweep.csv", "sweep_report.html",
                 "tune.json", "history.csv", "variant-[0-9][0-9][0-9]", "candidate-[0-9][0-9][0-9]", BATCHES,
                 ".meta.json.tmp")


def partial_path(out: Path) -> Path:
    out = Path(out)
    return out if out.name.endswith(".partial") else out.with_name(out.name + ".partial")


def final_path(folder: Path) -> Path:
    folder = Path(folder)
    return folder.with_name(folder.name[: -len(".partial")]) if folder.name.endswith(".partial") else folder


def _meta_of(folder: Path) -> dict | None:
    try:
        meta = json.loads((Path(folder) / META).read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return meta if isinstance(meta, dict) else None


def is_ours(folder: Path) -> bool:
    """A folder balance-sim wrote: its meta.json carries our format marker (or, from before the marker, the
    balance-sim version or the sweep/tune fields we always wrote)."""
    meta = _meta_of(folder) or {}
    if meta.get("format") == FORMAT:
        return True
    versions = meta.get("versions")
    return ("partial" in meta and "game" in meta and
            ((isinstance(versions, dict) and "balance-sim" in versions) or "sweep" in meta or "tune" in meta))


def _ours(folder: Path) -> set[str]:
    """Names in `folder` that we wrote; anything else (a user's notes) is theirs and is kept."""
    import fnmatch
    meta = _meta_of(folder) or {}
    names = {p.name for p in Path(folder).iterdir()}
    if isinstance(meta.get("files"), list):
        return names & {str(f) for f in meta["files"]} | {META}
    return {n for n in names if any(fnmatch.fnmatchcase(n, pat) for pat in _LEGACY_NAMES)}


def check_output(out: Path) -> None:
    """Refuse before any game is played: an existing folder is replaced only if balance-sim wrote it, and then
    only what balance-sim wrote in it."""
    out = Path(out)
    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(f"-o {out}: exists and is not a folder; choose another path")
    if any(out.iterdir()) and not is_ours(out):
        raise UserError(f"-o {out}: exists and is not a balance-sim results folder (its files were not written "
                        "by balance-sim); choose another path")


def identity(fields: dict) -> str:
    """A digest of everything that decides a run's results: an interrupted run with the same one may be
    continued by the same command; any other is left alone."""
    import hashlib
    return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str).encode()).hexdigest()[:32]


def begin(out: Path, meta: dict, quiet: bool = False) -> Path:
    """The staging folder for `out`. A `.partial` left by an interrupted run of the same command (same
    `identity` in its meta) is continued, and said so; one of another run, or not ours, is refused rather than
    discarded with what it holds."""
    staging = partial_path(out)
    if staging.is_dir() and any(staging.iterdir()):
        old = _meta_of(staging) if is_ours(staging) else None
        if old is None:
            raise UserError(f"-o {out}: {staging} exists and is not a balance-sim run in progress; move it away "
                            "or choose another path")
        saved = sum(1 for _ in staging.rglob("batch-*")) + sum(1 for _ in staging.glob("variant-*/" + META))
        if not old.get("partial", True) or old.get("identity") != meta.get("identity") or "identity" not in meta:
            kind = "a sweep" if "sweep" in old else "a tune" if "tune" in old else "a run"
            hint = (f"finish it with 'balance-sim run --resume {out}'" if kind == "a run" else
                    "finish it with the command that started it")
            raise UserError(f"-o {out}: {staging} holds {kind} with other settings that was interrupted "
                            f"({saved} saved parts); {hint}, or delete {staging} to start again")
        if not quiet or saved:
            print(f"balance-sim: continuing the interrupted run in {staging} with the same settings "
                  f"({saved} saved parts kept)", file=sys.stderr)
        write_meta(staging, {**old, **meta, "partial": True})
        return staging
    if staging.exists() and not staging.is_dir():
        raise UserError(f"-o {out}: {staging} exists and is a file; move it away or choose another path")
    staging.mkdir(parents=True, exist_ok=True)
    write_meta(staging, {**meta, "partial": True})
    return staging


def write_meta(folder: Path, meta: dict) -> None:
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, **meta}
    tmp = Path(folder) / f".{META}.tmp"
    tmp.write_text(json.dumps(meta, indent=2, default=str) + "\n")
    os.replace(tmp, Path(folder) / META)


def read_meta(folder: Path) -> dict:
    folder = Path(folder)
    if not (folder / META).is_file():
        raise UserError(f"{folder}: not a results folder (no {META}); make one with 'balance-sim run'")
    return json.loads((folder / META).read_text())


class ParquetSink:
    """Receives a run's batches in order and appends them to one Parquet file per table, in row groups of
    about `rows` rows, so a run of any size holds only a few batches in memory."""

    def __init__(self, folder: Path, spec, plan, rows: int = 250_000):
        self.folder, self.spec, self.plan, self.rows = Path(folder), spec, plan, rows
        self.buffers: dict[str, list] = {}
        self.writers: dict = {}

    def __call__(self, b: int, tables: dict) -> None:
        # the batches' columns are kept as they come and made into one frame per row group: a frame per batch
        # cost the parent more CPU than writing the Parquet (60-odd columns each), taken from the workers
        for name, columns in tables.items():
            self.buffers.setdefault(name, []).append(columns)
            if sum(len(next(iter(c.values()), ())) for c in self.buffers[name]) >= self.rows:
                self._write(name)

    def _write(self, name: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq
        parts = self.buffers.pop(name, [])
        if not parts:
            return
        columns = {k: np.concatenate([p.pop(k) for p in parts]) for k in list(parts[0])}
        if name not in self.writers:
            # the schema of the frame `assemble` makes (pandas' metadata included), from one row: the file is the
            # one pandas would write, while the row groups are built as Arrow arrays (a frame cost more CPU)
            sample = assemble(self.spec, self.plan, [{name: {k: v[:1] for k, v in columns.items()}}])[name]
            self.writers[name] = pq.ParquetWriter(self.folder / f"{name}.parquet",
                                                  pa.Schema.from_pandas(sample, preserve_index=False))
        writer = self.writers[name]
        labels = {}
        if self.spec.id_column in columns:
            categories, codes = strategy_codes(self.plan, columns, self.spec.id_column)
            labels = {k: (code, categories) for k, code in codes.items()}
        arrays = []
        for field in writer.schema:
            if field.name in labels:
                code, categories = labels[field.name]
                arrays.append(pa.DictionaryArray.from_arrays(pa.array(code, type=field.type.index_type),
                                                             pa.array(categories, type=field.type.value_type)))
            else:
                arrays.append(pa.array(columns[field.name], type=field.type))
        writer.write_table(pa.Table.from_arrays(arrays, schema=writer.schema))

    def close(self) -> None:
        for name in list(self.buffers):
            self._write(name)
        for writer in self.writers.values():
            writer.close()


def read_tables(folder: Path) -> dict[str, pd.DataFrame]:
    return {path.stem: pd.read_parquet(path) for path in sorted(Path(folder).glob("*.parquet"))}


def finish(staging: Path, out: Path) -> None:
    """Swap the finished staging folder into place: renames, never a half-written `out`. What we wrote in an
    earlier `out` is replaced; anything else in it (a user's notes) is moved into the new folder."""
    staging, out = Path(staging), Path(out)
    shutil.rmtree(staging / BATCHES, ignore_errors=True)
    meta = _meta_of(staging)
    if meta is not None:  # the list of what we wrote, so a later run replaces only that
        names = {p.name for p in staging.iterdir() if not p.name.startswith(".")} | {META}
        write_meta(staging, {**meta, "files": sorted(names)})
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
        ours = _ours(old)
        for entry in old.iterdir():
            if entry.name not in ours and not (staging / entry.name).exists():
                os.replace(entry, staging / entry.name)
    os.replace(staging, out)
    if old is not None:
        if any(p.name not in _ours(old) for p in old.iterdir()):
            return  # something of the user's could not be moved: keep the old folder rather than lose it
        shutil.rmtree(old, ignore_errors=True)


def load(folder: Path) -> tuple[dict[str, pd.DataFrame], dict]:
    """Tables and meta of a results folder; a `.partial` folder gives the batches that finished (checked; a
    damaged one is left out and named), marked partial. A --summary-only `.partial` gives {"summary": ...}."""
    folder = Path(folder)
    meta = read_meta(folder)
    if not meta.get("partial"):
        return read_tables(folder), meta
    from sim.batches import load_batch, sound_batches
    from sim.game import get_game
    spec = get_game(meta["game"])
    plan = plan_from_meta(meta)
    summary_only = bool(meta.get("summary_only"))
    done, bad = sound_batches(folder / BATCHES, plan, lambda b: batch_seed(plan.seed, b), spec.id_column,
                              summary_only)
    if bad:
        print(f"balance-sim: warning: left out {len(bad)} damaged batch file(s): {', '.join(bad[:5])}",
              file=sys.stderr)
    if not done:
        raise UserError(f"{folder}: this interrupted run finished no batch yet; nothing to report")
    games = sum(plan.batch_games(b) for b in done)
    meta = {**meta, "games": games, "planned_games": meta["games"], "partial": True}
    if summary_only:
        from analysis import stats
        merged: dict = {}
        for b in done:
            stats.merge(merged, load_batch(folder / BATCHES, b, True))
        return {"summary": stats.finalize(merged)}, meta
    return assemble(spec, plan, [load_batch(folder / BATCHES, b) for b in done]), meta
