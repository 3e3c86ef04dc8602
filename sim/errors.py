"""Errors meant for people: one line naming what is wrong and what is allowed."""
from __future__ import annotations

import contextlib
import errno

# the machine's errors, not the program's (a full disk, no permission): one line, like a bad flag, what is saved kept
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS, errno.EIO,
                          errno.EFBIG})


class UserError(Exception):
    """A mistake in a flag or configuration. The CLI prints it as one line and exits with code 2."""


class RunInterrupted(Exception):
    """Ctrl-C: the batches finished so far are saved (with a batch folder) and the run can be resumed."""


class WorkersFailed(Exception):
    """Worker processes kept dying on the same batch (out of memory, killed): the batches before it are saved."""


class ConfigError(UserError):
    def __init__(self, key: str, value, allowed: str):
        self.key, self.value, self.allowed = key, value, allowed
        super().__init__(f"config key '{key}': got {value!r}; {allowed}")


@contextlib.contextmanager
def machine_errors(say):
    """An OSError of the machine (WRITE_ERRNOS) as the one line `say(exc)`; any other is a bug, raised."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in WRITE_ERRNOS:
            raise
        raise UserError(say(exc)) from None


@contextlib.contextmanager
def stopped_part_way(kept, go_on: str, or_else: str = "", workers_sep: str = ";"):
    """A run stopped part-way as one line: what is kept (`kept()`) and how to go on (`go_on`, `or_else`)."""
    def full(exc: OSError) -> str:  # a full disk, a quota, a read-only or vanished drive: what is saved stays saved
        where = f" ({exc.filename})" if exc.filename else ""
        return f"cannot write{where}: {exc.strerror or exc}; {kept()}; make room and {go_on}"

    try:
        with machine_errors(full):
            yield
    except (RunInterrupted, KeyboardInterrupt):
        raise UserError(f"interrupted: {kept()}; {go_on}{or_else}") from None
    except WorkersFailed as exc:
        raise UserError(f"{exc}{workers_sep} {kept()}; {go_on}") from None
