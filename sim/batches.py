"""Saved batches of a run in progress (`<out>.partial/batches/`): written atomically, and checked before a resume
or a partial report trusts them.

Each file carries what it claims to be (batch index, batch seed, first and last game) and a SHA-256 of its
contents, so a file that was truncated, corrupted, copied over another batch or left by another run is
recognised and played again instead of being merged in (which would duplicate some games and lose others).

A file is an .npz holding the batch's numeric columns as one byte buffer (`__batch__/data`) and where each lies in
it (`__batch__/layout`): a run saves every batch, and an entry per column (70-odd) cost the main process 4 ms a
batch in zip bookkeeping, more than the data itself. Object columns (labels) keep their own pickled entries, and
files with an entry per column (saved before) are still read.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

CHECK = "__batch__"  # the npz "table" holding a batch's identity, checksum and columns; never a real table
ALIGN = 8  # each column starts at a multiple of this in the buffer, so the arrays read back are aligned


def batch_path(batch_dir: Path, b: int, summary_only: bool = False) -> Path:
    return Path(batch_dir) / f"batch-{b:07d}.{'json' if summary_only else 'npz'}"


def _digest_tables(tables: dict) -> str:
    h = hashlib.sha256()
    for table in sorted(tables):
        for col in sorted(tables[table]):
            arr = np.ascontiguousarray(tables[table][col])
            h.update(f"{table}/{col}:{arr.dtype.str}:{arr.shape}".encode())
            if arr.dtype == object:  # labels: their text, not the addresses of the Python objects
                h.update("\x00".join(map(str, arr.ravel())).encode())
            else:
                h.update(arr.reshape(-1).view(np.uint8))  # its bytes, without copying them
    return h.hexdigest()


def _digest_json(summary: dict) -> str:
    return hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()


def save_batch(batch_dir: Path, b: int, tables: dict, summary_only: bool = False, *, seed: int = 0,
               bounds: tuple[int, int] = (0, 0)) -> None:
    batch_dir = Path(batch_dir)
    batch_dir.mkdir(parents=True, exist_ok=True)
    final = batch_path(batch_dir, b, summary_only)
    tmp = batch_dir / f".tmp-{final.name}"
    identity = {"batch": int(b), "seed": int(seed), "bounds": [int(bounds[0]), int(bounds[1])]}
    try:
        if summary_only:
            tmp.write_text(json.dumps({**identity, "digest": _digest_json(tables), "summary": tables}))
        else:
            write_tables(tmp, tables, [identity["batch"], identity["seed"], *identity["bounds"]],
                         _digest_tables(tables))
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk must not leave a half-written file behind
        raise


def write_tables(path: Path, tables: dict, identity: list[int], digest: str) -> None:
    """Write a batch's tables to `path` as the .npz described above, with its identity and checksum."""
    layout, parts, arrays, offset = [], [], {}, 0
    for table, cols in tables.items():
        for col, arr in cols.items():
            arr = np.ascontiguousarray(arr)
            if arr.dtype == object:
                arrays[f"{table}/{col}"] = arr
                layout.append([table, col, None, list(arr.shape), None])
                continue
            layout.append([table, col, arr.dtype.str, list(arr.shape), offset])
            parts.append(arr.reshape(-1).view(np.uint8))
            pad = -arr.nbytes % ALIGN
            if pad:
                parts.append(np.zeros(pad, dtype=np.uint8))
            offset += arr.nbytes + pad
    arrays[f"{CHECK}/identity"] = np.array(identity, dtype=np.int64)
    arrays[f"{CHECK}/digest"] = np.frombuffer(bytes.fromhex(digest), dtype=np.uint8)
    arrays[f"{CHECK}/layout"] = np.frombuffer(json.dumps(layout).encode(), dtype=np.uint8)
    arrays[f"{CHECK}/data"] = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def load_batch(batch_dir: Path, b: int, summary_only: bool = False) -> dict:
    return _read(batch_path(batch_dir, b, summary_only), summary_only)[0]


def _read(path: Path, summary_only: bool) -> tuple[dict, dict]:
    """(tables or summary, {"identity": [...], "digest": ...}) of one saved batch; raises if unreadable."""
    if summary_only:
        data = json.loads(path.read_text())
        return data["summary"], {"identity": [data["batch"], data["seed"], *data["bounds"]],
                                 "digest": data["digest"]}
    entries: dict[str, dict] = {}
    with np.load(path, allow_pickle=True) as data:  # label columns are object arrays; the files are ours
        for key in data.files:
            table, _, col = key.partition("/")
            entries.setdefault(table, {})[col] = data[key]
    check = entries.pop(CHECK)
    if "layout" not in check:  # a file with an entry per column
        tables = entries
    else:  # the columns in their order, as views of the buffer (no copy)
        tables, buffer = {}, check["data"]
        for table, col, dtype, shape, offset in json.loads(check["layout"].tobytes()):
            if dtype is None:
                column = entries[table][col]
            else:
                dtype = np.dtype(dtype)
                count = int(np.prod(shape, dtype=np.int64))
                column = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).reshape(shape)
            tables.setdefault(table, {})[col] = column
    return tables, {"identity": check["identity"].tolist(), "digest": check["digest"].tobytes().hex()}


def problem(batch_dir: Path, b: int, seed: int, bounds: tuple[int, int], id_column: str,
            summary_only: bool = False) -> str | None:
    """Why saved batch `b` cannot be trusted, or None when it is the batch this run would play."""
    path = batch_path(batch_dir, b, summary_only)
    try:
        content, check = _read(path, summary_only)
    except Exception as exc:  # truncated, not a zip, not JSON, missing fields: all mean "replay it"
        return f"unreadable ({type(exc).__name__})"
    batch, batch_seed, start, stop = (list(check["identity"]) + [None] * 4)[:4]
    if batch != b:
        return f"holds batch {batch}"
    if batch_seed != seed or [start, stop] != list(bounds):
        return "comes from another run (seed or games differ)"
    digest = _digest_json(content) if summary_only else _digest_tables(content)
    if digest != check["digest"]:
        return "checksum mismatch"
    if not summary_only:
        # every row belongs to one of the batch's games, and some table (the games table) has every one of them
        expected = np.arange(bounds[0], bounds[1], dtype=np.int64)
        covered = False
        for name, cols in content.items():
            if id_column not in cols:
                continue
            ids = np.unique(cols[id_column])
            if len(ids) and (ids[0] < bounds[0] or ids[-1] >= bounds[1]):
                return f"{name} table holds games outside {bounds[0]}-{bounds[1] - 1}"
            covered = covered or np.array_equal(ids, expected)
        if not covered:
            return f"no table holds every game {bounds[0]}-{bounds[1] - 1}"
    return None


def saved_batches(batch_dir: Path | None, summary_only: bool = False) -> list[int]:
    """Indices of the batch files present (not yet checked)."""
    if batch_dir is None or not Path(batch_dir).is_dir():
        return []
    ext = "json" if summary_only else "npz"
    digits = (p.name[len("batch-"):-len(ext) - 1] for p in Path(batch_dir).glob(f"batch-*.{ext}"))
    return sorted(int(d) for d in digits if d.isdigit())


def sound_batches(batch_dir: Path | None, plan, seed_of, id_column: str, summary_only: bool = False
                  ) -> tuple[list[int], list[str]]:
    """(batches that can be trusted, descriptions of those that cannot); files beyond the plan are ignored."""
    good, bad = [], []
    for b in saved_batches(batch_dir, summary_only):
        if b >= plan.n_batches:
            continue
        why = problem(batch_dir, b, seed_of(b), plan.batch_bounds(b), id_column, summary_only)
        if why is None:
            good.append(b)
        else:
            bad.append(f"{batch_path(batch_dir, b, summary_only).name} ({why})")
    return good, bad
