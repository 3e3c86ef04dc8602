"""One writer per output folder: a run, a resume, a sweep or a tune takes an exclusive lock on its output path
(which covers `<out>` and `<out>.partial`) for as long as it writes, and a second one is refused at once.

The lock is an advisory `flock` on a hidden sibling file, `.<name>.lock`: the kernel drops it when the process
ends however it ends (SIGKILL included), so a killed run never leaves a folder locked. The file is not
inherited by workers (Python opens it non-inheritable), so a worker that outlives its parent cannot hold it.
"""
from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from sim.errors import UserError


@contextlib.contextmanager
def exclusive(out: Path, what: str = "-o"):
    """Hold the output lock of `out` (a results folder or its `.partial`) for the block, or refuse."""
    import fcntl

    name = Path(out).name[: -len(".partial")] if Path(out).name.endswith(".partial") else Path(out).name
    path = Path(out).with_name(f".{name}.lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{what} {out}: cannot create its folder ({exc.strerror or exc})") from None
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise UserError(f"{what} {out}: cannot write there ({exc.strerror or exc})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            pid = ""
            with contextlib.suppress(OSError):  # the holder's pid only helps the message
                pid = os.pread(fd, 32, 0).decode().strip()
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise UserError(f"{what} {out}: cannot lock it ({exc.strerror or exc})") from None
            holder = f" (process {pid})" if pid.isdigit() else ""
            raise UserError(f"{what} {out}: another balance-sim{holder} is writing there; wait for it to finish "
                            "or choose another folder") from None
        # the holder before us may have removed the file after we opened it: then our lock guards nothing
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        with contextlib.suppress(OSError):  # the pid only helps the message of a refused second writer
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()  # while still locked, so nobody can be holding it
        os.close(fd)
