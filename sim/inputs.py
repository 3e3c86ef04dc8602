"""Checks of what a user hands the command line, before any game: a UserError naming option, value and rule."""
from __future__ import annotations

import asyncio
import math
import os
import socket
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from sim.errors import UserError

MAX_GAMES = 10**12          # games of one run (or one sweep variant); days of computing at the fastest
MAX_BATCH = 1_000_000       # games per batch: a batch's tables live in one worker's memory
MAX_SEED = 2**63 - 1
MAX_BENCH_GAMES = 10_000_000
PSEUDO_FILESYSTEMS = ("/proc", "/sys", "/dev")
SCHEDULER_TIMEOUT_S = 5.0


def preset_names(presets, where: str = "--config") -> None:
    """A preset's name is a strategy's name in every table, page and file: it must say something (not empty or
    blank: meta.json and the readers refuse a nameless strategy) and be one line (no control characters)."""
    for name in presets:
        if not name.strip() or any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise UserError(f"{where}: preset name {name!r} under [strategies] must be a visible name on one line "
                            "(no empty name, no control characters), e.g. [strategies.my-variant]")


def whole(option: str, value, lo: int, hi: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise UserError(f"{option} {value}: must be {what} of at least {lo:,} and at most {hi:,}")
    return value


def games(value, option: str = "--games") -> int:
    return whole(option, value, 1, MAX_GAMES, "a number of games")


def game_index(value, option: str = "--game") -> int:
    """Game K of a run (0-based, as in games.parquet): a run has at most MAX_GAMES games."""
    return whole(option, value, 0, MAX_GAMES - 1, "a game number (0-based)")


def batch_size(value, option: str = "--batch-size") -> int:
    return whole(option, value, 1, MAX_BATCH, "a number of games per batch")


def seed(value, option: str = "--seed") -> int:
    return whole(option, value, 0, MAX_SEED, "a whole number")


def jobs(value, allow_all: bool = True) -> int:
    """Workers: a positive number, or -1 for every core where that is offered."""
    if isinstance(value, int) and (value >= 1 or (allow_all and value == -1)):
        return value
    raise UserError(f"--jobs {value}: must be a positive number of workers"
                    + (", or -1 for all cores" if allow_all else ""))


def positive(option: str, value, hi: int | None = None) -> int:
    return whole(option, value, 1, hi if hi is not None else MAX_GAMES, "a whole number")


def scale(value) -> float:
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise UserError(f"--scale {value}: must be a number above 0 (1 = each game's default count)")
    return float(value)


def output_folder(out, option: str = "-o", staged: bool = True, own_name: bool = True) -> Path:
    """A folder we can create, not the root nor a system folder (`own_name`: not '.' or '..' either)."""
    if out is None or str(out).strip() == "":
        raise UserError(f"{option} '': give a folder path")
    path = Path(out)
    absolute = Path(os.path.abspath(path))
    if absolute == Path(absolute.anchor):
        raise UserError(f"{option} {out}: is the root folder, not a place for results; give a folder path, "
                        f"e.g. {option} results")
    if own_name:
        named_folder(out, option)
    system = [p for p in PSEUDO_FILESYSTEMS if absolute == Path(p) or Path(p) in absolute.parents]
    if system:
        raise UserError(f"{option} {out}: {system[0]} is a system folder, not a place for results; "
                        "choose another path")
    staging = absolute.with_name(absolute.name + ".partial") if not absolute.name.endswith(".partial") else absolute
    if staged and staging.exists() and not staging.is_dir():
        raise UserError(f"{option} {out}: {staging} exists and is not a folder (a run stages its results there); "
                        "move it away or choose another path")
    if absolute.exists() and not absolute.is_dir():
        raise UserError(f"{option} {out}: exists and is a file, not a folder; choose another path")
    above_all = [absolute.parent, *absolute.parent.parents]
    ancestor = next(p for p in above_all if p.exists())
    for above in above_all:
        if above.exists() and not above.is_dir():
            raise UserError(f"{option} {out}: {above} is a file, not a folder")
    try:  # the only reliable test of "can we create a folder here" (permissions, read-only mounts, root)
        os.rmdir(tempfile.mkdtemp(prefix=".balance-sim-check-", dir=ancestor))
    except OSError as exc:
        raise UserError(f"{option} {out}: cannot create a folder in {ancestor} ({exc.strerror})") from None
    return path


def named_folder(folder, option: str = "-o") -> Path:
    """A results folder is staged and renamed by its name: '.', '..' and the root have none."""
    path = Path(folder)
    if path.name in ("", ".", ".."):
        where = "the root folder" if Path(os.path.abspath(path)) == Path(path.anchor or "/") else \
            "the current folder or one above it"
        raise UserError(f"{option} {folder}: names {where}, not a folder of its own (results are written into a "
                        f"folder by name); give a folder path, e.g. {option} results")
    return path


def dask_scheduler(backend: str, scheduler: str | None) -> None:
    """--backend dask: dask.distributed installed, and a named scheduler answering, before any batch is played."""
    if backend != "dask":
        return
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        raise UserError("--backend dask needs dask[distributed]: pip install 'balance-sim[dask]'") from None
    if not scheduler:
        return
    parts = urlsplit(scheduler if "://" in scheduler else f"tcp://{scheduler}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if parts.scheme not in ("tcp", "tls") or not host or not port:
        raise UserError(f"--scheduler {scheduler}: expected an address like tcp://HOST:8786")
    try:
        with socket.create_connection((host, port), timeout=SCHEDULER_TIMEOUT_S):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise UserError(f"--scheduler {scheduler}: no Dask scheduler answers there within "
                        f"{SCHEDULER_TIMEOUT_S:g} s ({reason}); start one with 'dask scheduler'") from None
    # something listens; a scheduler also answers (Dask's own connect would wait for that without end)
    try:
        reply = asyncio.run(asyncio.wait_for(_identity(f"{parts.scheme}://{host}:{port}"), SCHEDULER_TIMEOUT_S))
    except asyncio.TimeoutError:
        raise UserError(f"--scheduler {scheduler}: no Dask scheduler answers there within {SCHEDULER_TIMEOUT_S:g} s "
                        "(it accepts the connection but does not answer); start one with 'dask scheduler'") from None
    except Exception:  # closed on us, or not Dask's protocol: what listens there is something else
        reply = None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise UserError(f"--scheduler {scheduler}: what answers there is not a Dask scheduler; start one with "
                        "'dask scheduler'")


async def _identity(address: str):
    """What the Dask server at `address` says it is (a scheduler says {"type": "Scheduler", ...})."""
    from distributed import Security
    from distributed.comm import connect
    comm = await connect(address, timeout=SCHEDULER_TIMEOUT_S, **Security().get_connection_args("client"))
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()
