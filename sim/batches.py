"""Saved batches of a run in progress (`<out>.partial/batches/`): written atomically, checked before trusted
(batch, seed, games, SHA-256 and settings, so a damaged or misplaced one is played again, not merged in). Untrusted:
read with pickling off, anything balance-sim would not write refused as `ForeignBatch`. Columns are saved as one
buffer and its layout (an npz entry per column cost 4 ms a batch)."""
from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from pathlib import Path

import numpy as np

from sim.errors import UserError
from sim.inputs import NotAFile, open_regular

CHECK = "__batch__"  # the npz "table" holding a batch's identity, checksum and columns; never a real table
ALIGN = 8  # each column starts at a multiple of this in the buffer, so the arrays read back are aligned
CHECK_ENTRIES = {"identity": ("<i8", (4,)), "digest": ("|u1", (32,)), "layout": ("|u1", None),
                 "data": ("|u1", None), "context": ("|u1", (32,))}
NUMERIC = re.compile(r"^[<>|=]?(b1|[iu][1248]|f[48])$")  # the dtypes a batch's columns have
TEXT = re.compile(r"^[<>|=]?U\d{1,6}$")                   # a text column, saved as fixed-width Unicode
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")       # a table's or a column's name
MAX_MEMBER_BYTES = 2**34  # no entry of ours is this large; a zip claiming so is not read into memory


class ForeignBatch(UserError):
    """A saved batch file that balance-sim did not write: refused, not read."""


def context_digest(fields: dict) -> str:
    """What a batch's games were played under, as the 32-byte digest saved in its file."""
    return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str).encode()).hexdigest()


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
               bounds: tuple[int, int] = (0, 0), context: str = "0" * 64) -> None:
    batch_dir = Path(batch_dir)
    batch_dir.mkdir(parents=True, exist_ok=True)
    final = batch_path(batch_dir, b, summary_only)
    tmp = batch_dir / f".tmp-{final.name}"
    identity = {"batch": int(b), "seed": int(seed), "bounds": [int(bounds[0]), int(bounds[1])]}
    try:
        if summary_only:
            tmp.write_text(json.dumps({**identity, "digest": _digest_json(tables), "context": context,
                                       "summary": tables}))
        else:
            write_tables(tmp, tables, [identity["batch"], identity["seed"], *identity["bounds"]],
                         _digest_tables(tables), context)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk must not leave a half-written file behind
        raise


def write_tables(path: Path, tables: dict, identity: list[int], digest: str, context: str = "0" * 64) -> None:
    """Write a batch's tables to `path` as the .npz described above, with its identity, checksum and context."""
    layout, parts, arrays, offset = [], [], {}, 0
    for table, cols in tables.items():
        for col, arr in cols.items():
            arr = np.ascontiguousarray(arr)
            if arr.dtype == object:  # labels: text, saved without pickling
                if not all(isinstance(v, str) for v in arr.ravel()):
                    raise TypeError(f"{table}/{col}: a batch's object columns hold text only")
                arrays[f"{table}/{col}"] = arr.astype(str) if arr.size else np.zeros(arr.shape, dtype="<U1")
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
    arrays[f"{CHECK}/context"] = np.frombuffer(bytes.fromhex(context), dtype=np.uint8)
    arrays[f"{CHECK}/data"] = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def load_batch(batch_dir: Path, b: int, summary_only: bool = False) -> dict:
    return _read(batch_path(batch_dir, b, summary_only), summary_only)[0]


def _read(path: Path, summary_only: bool) -> tuple[dict, dict]:
    """(tables or summary, its identity, digest and context) of one saved batch; ForeignBatch if not ours."""
    try:
        with open_regular(path) as handle:  # a link, a FIFO (which would block), a folder: not ours
            return _read_open(path, handle, summary_only)
    except NotAFile as exc:
        raise _foreign(path, exc.strerror) from None


def _read_open(path: Path, handle, summary_only: bool) -> tuple[dict, dict]:
    if summary_only:
        data = json.loads(handle.read())
        return data["summary"], {"identity": [data["batch"], data["seed"], *data["bounds"]],
                                 "digest": data["digest"], "context": data.get("context")}
    with zipfile.ZipFile(handle) as archive:  # the sizes the zip claims, before numpy reads anything
        names = archive.namelist()
        if any(info.file_size > MAX_MEMBER_BYTES for info in archive.infolist()):
            raise _foreign(path, "an entry larger than any balance-sim writes")
    if len(set(names)) != len(names):
        raise _foreign(path, "repeated entries")
    entries: dict[str, dict] = {}
    handle.seek(0)
    with np.load(handle, allow_pickle=False) as data:  # never unpickle: a results folder may come from anyone
        for key in data.files:
            table, _, col = key.partition("/")
            if not (NAME.match(table) or table == CHECK) or not NAME.match(col):
                raise _foreign(path, f"an entry named {key[:60]!r}")
            try:
                entries.setdefault(table, {})[col] = data[key]
            except ValueError as exc:  # "Object arrays cannot be loaded when allow_pickle=False"
                if "pickle" in str(exc):
                    raise _foreign(path, f"{key} holds a pickled Python object") from None
                raise
    check = entries.pop(CHECK, None)
    if check is None or "identity" not in check or "digest" not in check:
        raise _foreign(path, f"no {CHECK} identity and checksum")
    for name, arr in check.items():
        dtype, shape = CHECK_ENTRIES.get(name, (None, None))
        if dtype is None or arr.dtype.str != dtype or arr.ndim != 1 or (shape is not None and arr.shape != shape):
            raise _foreign(path, f"{CHECK}/{name} is {arr.dtype.str}{list(arr.shape)}")
    for table, cols in entries.items():
        for col, arr in cols.items():
            if not (NUMERIC.match(arr.dtype.str) or TEXT.match(arr.dtype.str)):
                raise _foreign(path, f"{table}/{col} has dtype {arr.dtype.str}")
    if "layout" not in check:  # a file with an entry per column
        tables = {t: {c: _labels(a) for c, a in cols.items()} for t, cols in entries.items()}
    else:  # the columns in their order, as views of the buffer (no copy)
        tables, buffer = {}, check.get("data", np.zeros(0, dtype=np.uint8))
        for table, col, dtype, shape, offset in _layout(path, check["layout"], len(buffer), entries):
            if dtype is None:
                column = _labels(entries[table][col])
                if list(column.shape) != shape:
                    raise _foreign(path, f"{table}/{col} is not of the shape its layout says")
            else:
                count = int(np.prod(shape, dtype=np.int64))
                column = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).reshape(shape)
            tables.setdefault(table, {})[col] = column
    context = check["context"].tobytes().hex() if "context" in check else None
    return tables, {"identity": check["identity"].tolist(), "digest": check["digest"].tobytes().hex(),
                    "context": context}


def _foreign(path: Path, what: str) -> ForeignBatch:
    return ForeignBatch(f"{path}: not a batch file balance-sim wrote ({what}); it was not read. Delete it (its "
                        "batch is then played again) and ask whoever shared this folder")


def _labels(arr: np.ndarray) -> np.ndarray:
    """A text column back as the object array of str it was saved from."""
    return arr.astype(object) if arr.dtype.kind == "U" else arr


def _layout(path: Path, raw: np.ndarray, size: int, entries: dict) -> list:
    """The layout's entries, each checked: names, a numeric dtype, a shape, and bytes inside the buffer."""
    try:
        layout = json.loads(raw.tobytes())
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _foreign(path, "its layout is not JSON") from None
    if not isinstance(layout, list):
        raise _foreign(path, "its layout is not a list")
    out = []
    for item in layout:
        if not (isinstance(item, list) and len(item) == 5 and all(isinstance(x, str) and NAME.match(x)
                                                                  for x in item[:2])
                and isinstance(item[3], list)
                and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2**40 for n in item[3])):
            raise _foreign(path, f"a layout entry {str(item)[:80]}")
        table, col, dtype, shape, offset = item
        if dtype is None:
            if offset is not None or col not in entries.get(table, {}):
                raise _foreign(path, f"a layout entry {str(item)[:80]}")
            out.append((table, col, None, shape, None))
            continue
        if not isinstance(dtype, str) or not NUMERIC.match(dtype):
            raise _foreign(path, f"{table}/{col} has dtype {str(dtype)[:40]!r}")
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        if (isinstance(offset, bool) or not isinstance(offset, int) or offset < 0 or offset % ALIGN
                or offset + count * dtype.itemsize > size):
            raise _foreign(path, f"{table}/{col} lies outside its buffer")
        out.append((table, col, dtype, shape, offset))
    return out


def problem(batch_dir: Path, b: int, seed: int, bounds: tuple[int, int], id_column: str,
            summary_only: bool = False, context: str | None = None) -> str | None:
    """Why saved batch `b` cannot be trusted, or None; a file balance-sim did not write raises ForeignBatch."""
    path = batch_path(batch_dir, b, summary_only)
    try:
        content, check = _read(path, summary_only)
    except ForeignBatch:
        raise
    except Exception as exc:  # truncated, not a zip, not JSON, missing fields: all mean "replay it"
        return f"unreadable ({type(exc).__name__})"
    batch, batch_seed, start, stop = (list(check["identity"]) + [None] * 4)[:4]
    if batch != b:
        return f"holds batch {batch}"
    if batch_seed != seed or [start, stop] != list(bounds):
        return "comes from another run (seed or games differ)"
    if context is not None and check["context"] != context:
        return ("played under other settings (configuration, strategies, batch size or command differ)"
                if check["context"] else "saved without the settings it was played under (an earlier version)")
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


def sound_batches(batch_dir: Path | None, plan, seed_of, id_column: str, summary_only: bool = False,
                  context: str | None = None) -> tuple[list[int], list[str]]:
    """(batches that can be trusted, descriptions of those that cannot); files beyond the plan are ignored."""
    good, bad = [], []
    for b in saved_batches(batch_dir, summary_only):
        if b >= plan.n_batches:
            continue
        why = problem(batch_dir, b, seed_of(b), plan.batch_bounds(b), id_column, summary_only, context)
        if why is None:
            good.append(b)
        else:
            bad.append(f"{batch_path(batch_dir, b, summary_only).name} ({why})")
    return good, bad
