"""Readers and writers of a folder: a writer holds an exclusive lock, a reader a shared one, so a report never
reads a folder half replaced by a run; refusals are immediate. The lock is a `flock` on `.<name>.lock` beside it:
dropped however the process ends, not inherited by workers, its file removed by the last holder."""
from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from sim.errors import UserError

BUSY = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)
READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)


def lock_path(out: Path) -> Path:
    name = Path(out).name[: -len(".partial")] if Path(out).name.endswith(".partial") else Path(out).name
    return Path(out).with_name(f".{name}.lock")


def _open_locked(path: Path, mode: int) -> int | None:
    """An fd holding `mode` on the lock file at `path` (the file still there), or None if someone holds it."""
    import fcntl
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in BUSY:
                return None
            raise
        # the holder before us may have removed the file after we opened it: then our lock guards nothing
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def _holder(path: Path) -> str:
    with contextlib.suppress(OSError, ValueError):  # the holder's pid only helps the message
        pid = path.read_text()[:32].strip()
        if pid.isdigit():
            return f" (process {pid})"
    return ""


def _release(fd: int, path: Path) -> None:
    """Drop our lock; remove the file if nobody else holds it (tried exclusively, so nobody can be)."""
    import fcntl
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                path.unlink()
    finally:
        os.close(fd)


@contextlib.contextmanager
def exclusive(out: Path, what: str = "-o"):
    """Hold the write lock of `out` (a folder, its `.partial`, or a file we write) for the block, or refuse."""
    import fcntl
    path = lock_path(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{what} {out}: cannot create its folder ({exc.strerror or exc})") from None
    try:
        fd = _open_locked(path, fcntl.LOCK_EX)
    except OSError as exc:
        raise UserError(f"{what} {out}: cannot lock it ({exc.strerror or exc})") from None
    if fd is None:
        raise UserError(f"{what} {out}: another balance-sim{_holder(path)} is using it; wait for it to finish "
                        "or choose another folder")
    try:
        with contextlib.suppress(OSError):  # the pid only helps the message of a refused second comer
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        _release(fd, path)


@contextlib.contextmanager
def shared(folder: Path, what: str):
    """Hold the read lock of `folder`, or refuse while a writer holds it; a read-only share goes unlocked."""
    import fcntl
    path = lock_path(folder)
    try:
        fd = _open_locked(path, fcntl.LOCK_SH)
    except OSError as exc:
        if exc.errno in READ_ONLY or exc.errno == errno.ENOENT:
            yield  # no lock file can be made beside it: read-only for everyone we share a lock with
            return
        raise UserError(f"{what} {folder}: cannot lock it for reading ({exc.strerror or exc})") from None
    if fd is None:
        raise UserError(f"{what} {folder}: another balance-sim{_holder(path)} is writing there; wait for it to "
                        "finish, then try again")
    try:
        yield
    finally:
        _release(fd, path)
