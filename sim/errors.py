"""Errors meant for people: one line naming what is wrong and what is allowed."""
from __future__ import annotations

import errno

# Errors of the machine rather than of the program (a full disk, a quota, a read-only or vanished drive, no
# permission): said in one line, like a bad flag, with what was saved kept.
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS, errno.EIO,
                          errno.EFBIG})


class UserError(Exception):
    """A mistake in a flag or configuration. The CLI prints it as one line and exits with code 2."""


class ConfigError(UserError):
    def __init__(self, key: str, value, allowed: str):
        self.key, self.value, self.allowed = key, value, allowed
        super().__init__(f"config key '{key}': got {value!r}; {allowed}")
