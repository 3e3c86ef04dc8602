"""Results folders: staged in `<out>.partial/` and renamed into place when complete, resumable, read back as
DataFrames. Every `-o` follows one rule: an existing folder is replaced only if balance-sim wrote it, and then only
the entries it can show it wrote (a name of `OUR_NAMES`, not a link, listed where it lists); a user's files stay."""
from __future__ import annotations

import fnmatch
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError
from sim.inputs import is_regular, read_regular
from sim.batches import load_batch, sound_batches
from sim.meta import KINDS, MAX_META_BYTES, check_run, kind_of, read
from sim.runner import assemble, batch_context, batch_seed, plan_of, strategy_codes

META = "meta.json"
BATCHES = "batches"
FORMAT = "balance-sim-results"  # written into every meta.json we write: how we know a folder is ours
FORMAT_VERSION = 1
# every name balance-sim writes into a folder (runs, reports, sweeps, tunes, sensitivity screenings, comparisons)
OUR_NAMES = ("meta.json", ".meta.json.tmp", "summary.json", "report.html", "*.parquet", "*.png", "replays", BATCHES,
             "sweep.csv", "sweep_report.html", "tune.json", "history.csv", "variant-[0-9][0-9][0-9]",
             "candidate-[0-9][0-9][0-9]", "compare.json", "compare.html", "sensitivity.html", "sensitivity.csv",
             "points.csv", "base_summary.json", "tune.html", "evolve.json", "evolve.html", "evolve-state.json", "preset.toml",
             "exploit.json", "exploit.html")
COMPARE_NAMES = ("compare.json", "compare.html", "compare.png")  # a comparison folder from before its meta.json


def partial_path(out: Path) -> Path:
    out = Path(out)
    return out if out.name.endswith(".partial") else out.with_name(out.name + ".partial")


def final_path(folder: Path) -> Path:
    folder = Path(folder)
    return folder.with_name(folder.name[: -len(".partial")]) if folder.name.endswith(".partial") else folder


def _meta_of(folder: Path) -> dict | None:
    path = Path(folder) / META
    try:
        meta = json.loads(read_regular(path, MAX_META_BYTES))  # a link, a FIFO, a folder: not ours
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return meta if isinstance(meta, dict) else None


def is_ours(folder: Path) -> bool:
    """A folder balance-sim wrote: our format marker in its meta.json (or the fields of earlier versions)."""
    meta = _meta_of(folder)
    if meta is None:
        names = {p.name for p in Path(folder).iterdir()} if Path(folder).is_dir() else set()
        return "compare.json" in names and names <= set(COMPARE_NAMES)
    if meta.get("format") == FORMAT:
        return True
    versions = meta.get("versions")
    return ("partial" in meta and "game" in meta and
            ((isinstance(versions, dict) and "balance-sim" in versions) or "sweep" in meta or "tune" in meta))


def folder_kind(folder: Path) -> str:
    meta = _meta_of(folder)
    return "compare" if meta is None else kind_of(meta)


def plain_name(name) -> bool:
    """A name of an entry inside a folder: not a path, not `..`, not absolute."""
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name
            and "\x00" not in name)


def _listed(folder: Path, meta: dict) -> set[str] | None:
    """The folder's own list of what we wrote (None if none); one naming anything but plain names is refused."""
    files = meta.get("files")
    if files is None:
        return None
    bad = next((f for f in files if not plain_name(f)), None) if isinstance(files, list) else files
    if bad is not None or not isinstance(files, list):
        raise UserError(f"{Path(folder) / META}: its 'files' list names {str(bad)[:80]!r}, not a name inside the "
                        "folder, so balance-sim did not write it; move the folder away or choose another path")
    return set(files)


def _ours(folder: Path) -> set[str]:
    """Names in `folder` that we can show we wrote (see the module's docstring); anything else is the user's."""
    folder = Path(folder)
    listed = _listed(folder, _meta_of(folder) or {})
    return {p.name for p in folder.iterdir() if any(fnmatch.fnmatchcase(p.name, pattern) for pattern in OUR_NAMES)
            and not p.is_symlink() and (listed is None or p.name in listed or p.name == META)}


def check_output(out: Path, kind: str, option: str = "-o") -> None:
    """Refuse, before anything is played, an `-o` that is not ours to write (a link, a file, a user's folder)."""
    out = Path(out)
    if out.name.endswith(".partial"):
        raise UserError(f"{option} {out}: names ending in .partial are where balance-sim keeps runs in progress; "
                        f"choose another name (or finish that run with 'balance-sim run --resume {final_path(out)}')")
    for path in (out, partial_path(out)):
        if path.is_symlink():
            raise UserError(f"{option} {out}: {path} is a symbolic link; give the folder it points to "
                            f"({os.path.realpath(path)}) or another path")
    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(f"{option} {out}: exists and is not a folder; choose another path")
    if not any(out.iterdir()):
        return
    if not is_ours(out):
        noun = {"run": "results", "compare": "comparison"}.get(kind, kind)
        raise UserError(f"{option} {out}: exists and is not a balance-sim {noun} folder (its files were not "
                        "written by balance-sim); choose another path")
    _listed(out, _meta_of(out) or {})
    if folder_kind(out) != kind:
        raise UserError(f"{option} {out}: holds {KINDS[folder_kind(out)]}, not {KINDS[kind]}; choose another path "
                        "(or delete it)")
    # a user's file under a name the new results may take (a --no-report folder's summary.json, replays/): left in
    # place, not swapped out into a hidden .old folder
    ours, fixed = _ours(out), [n for n in OUR_NAMES if not any(c in n for c in "*?[")]
    theirs = sorted(n for n in fixed if n != META and os.path.lexists(out / n) and n not in ours)
    if theirs:
        raise UserError(f"{option} {out}: {theirs[0]} there is not balance-sim's (not among the files it wrote) and "
                        "the new results may take that name; move it away or choose another path")


def check_output_file(out: Path, what: str, ours, option: str = "-o") -> None:
    """The `-o` rule for a file (a replay page): absent, or a regular file `ours(path)` recognises."""
    import stat
    out = Path(out)
    try:
        mode = os.lstat(out).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UserError(f"{option} {out}: cannot look at it ({exc.strerror or exc})") from None
    if stat.S_ISLNK(mode):
        raise UserError(f"{option} {out}: is a symbolic link; give the file it points to "
                        f"({os.path.realpath(out)}) or another path")
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a device, a pipe or a socket)"
        raise UserError(f"{option} {out}: is {kind}; give the path of {what} to write")
    if not ours(out):
        raise UserError(f"{option} {out}: exists and is not {what} balance-sim wrote; writing there would replace "
                        "it: delete it first or choose another path")


def identity(fields: dict) -> str:
    """A digest of what decides a run's results: only a run of the same one may continue it."""
    import hashlib
    return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str).encode()).hexdigest()[:32]


def begin(out: Path, meta: dict, quiet: bool = False, keeps_parts: bool = True) -> Path:
    """The staging folder for `out`, continuing an interrupted one of the same `identity` and no other."""
    staging = partial_path(out)
    if staging.is_symlink():
        raise UserError(f"-o {out}: {staging} is a symbolic link; move it away or choose another path")
    if staging.is_dir() and any(staging.iterdir()):
        old = _meta_of(staging) if is_ours(staging) else None
        if old is None:
            raise UserError(f"-o {out}: {staging} exists and is not a balance-sim run in progress; move it away "
                            "or choose another path")
        saved = sum(1 for _ in staging.rglob("batch-*")) + sum(1 for _ in staging.glob("variant-*/" + META)) + \
            _saved_generations(staging)
        kind, wanted = kind_of(old), kind_of(meta)
        if not old.get("partial", True) or old.get("identity") != meta.get("identity") or "identity" not in meta:
            what = "with other settings" if kind == wanted else f"(not a {wanted})"
            hint = (f"finish it with 'balance-sim run --resume {out}'" if kind == "run" else
                    f"run the same 'balance-sim {kind}' command again to continue it")
            raise UserError(f"-o {out}: {staging} holds an interrupted {kind} {what} ({saved} saved parts); "
                            f"{hint}, or delete {staging} to start again")
        if keeps_parts and (not quiet or saved):
            print(f"balance-sim: continuing the interrupted run in {staging} with the same settings "
                  f"({saved} saved parts kept)", file=sys.stderr)
        elif not keeps_parts and not quiet:
            print(f"balance-sim: starting the interrupted {kind} in {staging} again with the same settings",
                  file=sys.stderr)
        write_meta(staging, {**old, **meta, "partial": True})
        return staging
    if staging.exists() and not staging.is_dir():
        raise UserError(f"-o {out}: {staging} exists and is a file; move it away or choose another path")
    staging.mkdir(parents=True, exist_ok=True)
    write_meta(staging, {**meta, "partial": True})
    return staging


def _saved_generations(staging: Path) -> int:
    """The generations an interrupted evolve or exploit saved (sim.evolve's state file), 0 if none can be read."""
    try:
        state = json.loads(read_regular(Path(staging) / "evolve-state.json", MAX_META_BYTES))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return 0
    history = state.get("history") if isinstance(state, dict) else None
    return len(history) if isinstance(history, list) else 0


def write_meta(folder: Path, meta: dict) -> None:
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, **meta}
    tmp = Path(folder) / f".{META}.tmp"
    tmp.write_text(json.dumps(meta, indent=2, default=str) + "\n")
    os.replace(tmp, Path(folder) / META)


def table_rows(folder: Path) -> dict[str, int]:
    """Rows of each Parquet table in `folder` (from the footers), recorded in meta.json against tables cut short."""
    import pyarrow.parquet as pq
    return {path.stem: pq.read_metadata(path).num_rows for path in regular_tables(folder)}


class ParquetSink:
    """A run's batches appended to a Parquet file per table in row groups: flat memory at any size."""

    def __init__(self, folder: Path, spec, plan, rows: int = 250_000):
        self.folder, self.spec, self.plan, self.rows = Path(folder), spec, plan, rows
        self.buffers: dict[str, list] = {}
        self.writers: dict = {}

    def __call__(self, b: int, tables: dict) -> None:
        # columns kept as they come: a frame per batch cost the parent more CPU than writing the Parquet
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
            # the schema of `assemble`'s frame, from one row: the file pandas would write, built as Arrow arrays
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
    return {path.stem: pd.read_parquet(path) for path in regular_tables(folder)}


def regular_tables(folder: Path) -> list[Path]:
    """The folder's Parquet tables, each a regular file (a FIFO would block Arrow's read): else one line."""
    paths = sorted(Path(folder).glob("*.parquet"))
    odd = next((p for p in paths if not is_regular(p)), None)
    if odd is not None:
        raise UserError(f"{odd}: not a regular file (a link, a named pipe or a folder), so not a table balance-sim "
                        "wrote; it was not read. Move it away, or make the folder again with 'balance-sim run'")
    return paths


def finish(staging: Path, out: Path) -> None:
    """Swap the finished staging folder into place by renames; a user's files in an earlier `out` move across."""
    staging, out = Path(staging), Path(out)
    if out.is_symlink():  # checked before anything was played; a link made since is not followed either
        raise UserError(f"-o {out}: is a symbolic link (made while this ran?); the results are kept in {staging}")
    shutil.rmtree(staging / BATCHES, ignore_errors=True)
    meta = _meta_of(staging)
    if meta is not None:  # the list of what we wrote, so a later run replaces only that
        names = {p.name for p in staging.iterdir() if not p.name.startswith(".")} | {META}
        write_meta(staging, {**meta, "files": sorted(names)})
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        ours = _ours(out)
        os.replace(out, old)
        for entry in old.iterdir():
            if entry.name not in ours and not (staging / entry.name).exists():
                os.replace(entry, staging / entry.name)
    os.replace(staging, out)
    if old is not None:
        if any(p.name not in ours for p in old.iterdir()):
            print(f"balance-sim: warning: kept {old}: it holds files that are not balance-sim's and share a name "
                  f"with the new results", file=sys.stderr)
            return  # something of the user's could not be moved: keep the old folder rather than lose it
        shutil.rmtree(old, ignore_errors=True)


def check_installable(target: Path, names) -> None:
    """Refuse, naming it, an entry of `target` among `names` that balance-sim did not write (a user's file)."""
    ours = _ours(target)
    theirs = [n for n in names if os.path.lexists(Path(target) / n) and n not in ours]
    if theirs:
        raise UserError(f"{target}: {theirs[0]} there is not balance-sim's (not among the files it wrote); move it "
                        "away, or write the report elsewhere with -o")


def install(staging: Path, target: Path) -> list[str]:
    """Move every entry of `staging` into the folder `target`, none unless every name there is ours."""
    staging, target = Path(staging), Path(target)
    names = sorted(p.name for p in staging.iterdir())
    check_installable(target, names)
    trash = staging.with_name(staging.name + ".old")
    trash.mkdir()
    try:
        for name in names:
            if os.path.lexists(target / name):
                os.replace(target / name, trash / name)  # a folder (replays/) cannot be renamed onto
            os.replace(staging / name, target / name)
    finally:
        shutil.rmtree(trash, ignore_errors=True)
    meta = _meta_of(target)
    if meta is not None and isinstance(meta.get("files"), list):
        write_meta(target, {**meta, "files": sorted(set(meta["files"]) | set(names))})
    return names


def load(folder: Path, run: dict | None = None, summariser=None) -> tuple[dict[str, pd.DataFrame], dict]:
    """Tables and meta of a results folder; of a `.partial` one, its sound batches (or merged summary)."""
    folder = Path(folder)
    meta = read(folder)
    if not meta.get("partial"):
        return read_tables(folder), meta
    run = run or check_run(folder, meta)
    spec, plan = run["spec"], plan_of(run)
    summary_only = run["summary_only"]
    context = batch_context(spec, run["config"], plan, summary_only, "run")
    done, bad = sound_batches(folder / BATCHES, plan, lambda b: batch_seed(plan.seed, b), spec.id_column,
                              summary_only, context)
    if bad:
        print(f"balance-sim: warning: left out {len(bad)} damaged batch file(s): {', '.join(bad[:5])}",
              file=sys.stderr)
    if not done:
        raise UserError(f"{folder}: this interrupted run finished no batch yet; nothing to report")
    games = sum(plan.batch_games(b) for b in done)
    meta = {**meta, "games": games, "planned_games": meta["games"], "partial": True}
    if summary_only:
        merged: dict = {}
        for b in done:
            summariser.merge(merged, load_batch(folder / BATCHES, b, True))
        return {"summary": summariser.finalize(merged)}, meta
    return assemble(spec, plan, [load_batch(folder / BATCHES, b) for b in done]), meta
