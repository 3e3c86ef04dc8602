"""Results folders: written whole or not at all, read back as DataFrames."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from sim.errors import UserError

META = "meta.json"


def check_output(out: Path) -> None:
    """Refuse before any game is played: an existing folder is replaced only if it holds earlier results."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / META).exists())):
        raise UserError(f"-o {out}: exists and is not a balance-sim results folder; choose another path")


@contextlib.contextmanager
def staged(out: Path):
    """Yield a temporary sibling folder; on success it replaces `out` in two renames, on failure (or
    Ctrl-C) it is removed, so no half-written folder ever looks complete."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        yield tmp
        old = None
        if out.exists():
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            os.replace(out, old)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_tables(folder: Path, tables: dict[str, pd.DataFrame], meta: dict) -> None:
    for name, frame in tables.items():
        frame.to_parquet(folder / f"{name}.parquet", index=False)
    (folder / META).write_text(json.dumps(meta, indent=2, default=str) + "\n")


def load(folder: Path) -> tuple[dict[str, pd.DataFrame], dict]:
    folder = Path(folder)
    if not (folder / META).is_file():
        raise UserError(f"{folder}: not a results folder (no {META}); make one with 'balance-sim run'")
    meta = json.loads((folder / META).read_text())
    tables = {path.stem: pd.read_parquet(path) for path in sorted(folder.glob("*.parquet"))}
    return tables, meta
