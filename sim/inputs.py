"""Checks of what a user hands the command line, before any game: a UserError naming option, value and rule."""
from __future__ import annotations

import asyncio
import contextlib
import errno
import math
import os
import socket
import stat
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from sim.errors import UserError

MAX_GAMES = 10**12          # games of one run (or one sweep variant); days of computing at the fastest
MAX_BATCH = 1_000_000       # games per batch: a batch's tables live in one worker's memory
MAX_SEED = 2**63 - 1
MAX_LABEL = 200             # characters of a strategy or preset name (a table's labels are read back bounded)
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
    name_fits(path, option)
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


# what we add to a folder's name for the files beside it (`.NAME.report-PID.tmp` the longest: 20 with a 7-digit
# PID; `.NAME.old-PID`, `.NAME.lock`, `NAME.partial`), and the longest path we write inside a results folder
ADDED_TO_NAME = len(".") + len(".report-") + 7 + len(".tmp")
INSIDE = 96


def name_fits(path, option: str) -> None:
    """Refuse up front a folder whose name, with what we add beside it, or whose path, with what we write inside
    it, is longer than the file system takes (ENAMETOOLONG half-way would leave a `.partial` nothing can finish)."""
    absolute = os.path.abspath(path)
    name = os.path.basename(absolute)
    above = next((p for p in [Path(absolute).parent, *Path(absolute).parents] if p.exists()), Path("/"))
    try:
        name_max, path_max = os.pathconf(above, "PC_NAME_MAX"), os.pathconf(above, "PC_PATH_MAX")
    except (OSError, ValueError):
        name_max, path_max = 255, 4096
    longest, who = name_max - ADDED_TO_NAME, f"{option} {path}".strip()
    if len(os.fsencode(name)) > longest:
        raise UserError(f"{who}: its name is {len(os.fsencode(name)):,} bytes; at most {longest:,} "
                        f"(balance-sim adds up to {ADDED_TO_NAME} for its working files beside it, and names "
                        f"here take {name_max:,}); choose a shorter name")
    if len(os.fsencode(absolute)) > path_max - INSIDE:
        raise UserError(f"{who}: its full path is {len(os.fsencode(absolute)):,} bytes; at most "
                        f"{path_max - INSIDE:,} (balance-sim writes files up to {INSIDE} bytes deeper, and paths "
                        f"here take {path_max:,}); choose a shorter path")


def by_name(value) -> Path:
    """`value` as a path, '.' or '..' (or 'a/..') made absolute so that it has the name it stands for."""
    path = Path(value)
    return Path(os.path.abspath(path)) if path.name in ("", ".", "..") and str(value).strip() else path


def existing_folder(ctx, param, value):
    """A folder argument (`report DIR`, `--run DIR`, `--resume DIR`): '.' or '..' by the name it stands for, since a
    folder's lock, staging and messages go by its name; a path too long to use refused."""
    if value is None:
        return None
    path = by_name(value)
    option = param.opts[0] if param is not None and param.opts and param.opts[0].startswith("-") else ""
    if path.name:
        name_fits(path, option)
    return str(path)


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
    try:
        parts = urlsplit(scheduler if "://" in scheduler else f"tcp://{scheduler}")
        host, port = parts.hostname, parts.port
    except ValueError:  # 'tcp://[::1': an unclosed IPv6 bracket, or a port out of range
        raise UserError(f"--scheduler {scheduler}: expected an address like tcp://HOST:8786") from None
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


# ---- the environment, checked before numba reads it at import (its own errors are tracebacks) ----
NUMBA_WHOLE = ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK", "NUMBA_DEBUG", "NUMBA_FULL_TRACEBACKS",
               "NUMBA_DEVELOPER_MODE", "NUMBA_DEBUGINFO", "NUMBA_DISABLE_PERFORMANCE_WARNINGS", "NUMBA_WARNINGS",
               "NUMBA_LOOP_VECTORIZE", "NUMBA_SLP_VECTORIZE", "NUMBA_ENABLE_AVX", "NUMBA_DEBUG_CACHE")


def environment_problem(environ=None) -> str | None:
    """One line naming the variable that cannot work and what it allows, or None: BALANCE_SIM_CACHE (a folder we
    can write), NUMBA_OPT, NUMBA_NUM_THREADS and numba's whole-number switches."""
    env = os.environ if environ is None else environ
    cache = env.get("BALANCE_SIM_CACHE")
    if cache:
        why = writable_folder(Path(cache))
        if why:
            return (f"BALANCE_SIM_CACHE={cache}: {why}; it must name a folder balance-sim can create and write "
                    "(or leave it unset for ~/.cache/balance-sim)")
    opt = env.get("NUMBA_OPT")
    if opt is not None and opt.strip() not in ("0", "1", "2", "3", "max"):
        return f"NUMBA_OPT={opt}: allowed: 0, 1, 2, 3 or max (numba's optimisation level), or unset"
    threads = env.get("NUMBA_NUM_THREADS")
    if threads is not None and not (threads.strip().isdigit() and int(threads) >= 1):
        return f"NUMBA_NUM_THREADS={threads}: allowed: a whole number of threads of at least 1, or unset"
    for name in NUMBA_WHOLE:
        value = env.get(name)
        if value is not None and value.strip() and not value.strip().lstrip("-").isdigit():
            return f"{name}={value}: allowed: a whole number (0 = off, 1 = on), or unset"
    return None


def writable_folder(folder: Path) -> str | None:
    """None if `folder` is (or can be made) a folder we can write in, else why not."""
    try:
        mode = os.stat(folder).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    if mode is not None and not stat.S_ISDIR(mode):
        return "exists and is not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"cannot write there ({exc.strerror or type(exc).__name__})"
    return None


# ---- untrusted files: regular files only (a FIFO or a device would block a read, or never end) ----
class NotAFile(OSError):
    """A path that is not a regular file (a FIFO, a socket, a device, a folder, a link): never opened to read."""


def _kind(mode: int) -> str:
    return ("a folder" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else
            "a link" if stat.S_ISLNK(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device")


@contextlib.contextmanager
def open_regular(path, limit: int | None = None):
    """A binary file object of `path`, a regular file that is not a link: opened without blocking (a FIFO opens at
    once and is refused), checked with fstat on what was opened; NotAFile (an OSError) for anything else, and for
    a file over `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotAFile(errno.ELOOP, "a link", str(path)) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAFile(errno.EINVAL, _kind(info.st_mode), str(path))
        if limit is not None and info.st_size > limit:
            raise NotAFile(errno.EFBIG, f"{info.st_size:,} bytes, more than balance-sim writes there", str(path))
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def read_regular(path, limit: int | None = None) -> bytes:
    """The bytes of a regular file (`open_regular`), at most `limit` of them."""
    with open_regular(path, limit) as handle:
        return handle.read() if limit is None else handle.read(limit + 1)[: limit + 1]


def is_regular(path) -> bool:
    """A regular file, not a link (lstat: nothing is opened)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
