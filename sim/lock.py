"""Readers and writers of a folder: a writer holds an exclusive lock, a reader a shared one, so a report never
reads a folder half replaced by a run; refusals are immediate. The lock is a `flock` on `.<name>.lock` beside it:
dropped however the process ends, not inherited by workers, its file removed by the last holder. A folder is
locked by its real path (a link `alias.partial -> rc2.partial` takes rc2's lock), and a folder inside one a writer
holds (`X.partial/variant-000` during a sweep) is refused as X is: each enclosing folder's lock, where it has one,
is held shared for as long as ours."""
from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from sim.errors import UserError

BUSY = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)
READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)


def real_path(out: Path) -> Path:
    """`out` with every link resolved (what the file system writes through it); a run's final name `rc2`, absent
    while `rc2.partial` (or a link by that name) exists, follows the partial's real name."""
    out = Path(out)
    try:
        if not out.name.endswith(".partial") and not os.path.lexists(out):
            partial = out.with_name(out.name + ".partial")
            if os.path.lexists(partial):
                real = partial.resolve()
                return real.with_name(real.name[: -len(".partial")]) if real.name.endswith(".partial") else real
        return out.resolve()
    except (OSError, RuntimeError):  # a link loop or an unreadable parent: lock the name as given
        return out.absolute()


def lock_path(out: Path) -> Path:
    out = real_path(out)
    name = out.name[: -len(".partial")] if out.name.endswith(".partial") else out.name
    return out.with_name(f".{name}.lock")


@contextlib.contextmanager
def _enclosing(out: Path, what: str):
    """Hold, shared, the lock of every folder around `out` that has a lock file (a writer's there now), or refuse:
    a sweep's variant folder inside its `.partial` is the sweep's while the sweep writes."""
    import fcntl
    held = []
    try:
        for folder in real_path(out).parents:
            path = lock_path(folder) if folder.name else None
            if path is None or not path.is_file():
                continue
            try:
                fd = _open_locked(path, fcntl.LOCK_SH)
            except OSError:
                continue  # a lock file we cannot open (read-only share): nobody we could exclude writes there
            if fd is None:
                raise UserError(f"{what} {out}: it is inside {folder}, which another balance-sim{_holder(path)} is "
                                "writing; wait for it to finish, then try again")
            held.append((fd, path))
        yield
    finally:
        for fd, path in reversed(held):
            _release(fd, path)


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
    with _enclosing(out, what):
        with _exclusive(out, what):
            yield


@contextlib.contextmanager
def _exclusive(out: Path, what: str):
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
    with _enclosing(folder, what):
        with _shared(folder, what):
            yield


@contextlib.contextmanager
def _shared(folder: Path, what: str):
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
