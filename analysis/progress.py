"""One line per slow phase of building a page (report, compare, a sweep variant's report), for the terminal.

The commands decide where the lines go (stderr) and whether they go at all (`-q`): `with reporting(say):` around
the work, `phase("...")` inside it. Outside such a block phases say nothing (tests, library use).
"""
from __future__ import annotations

import contextlib
import contextvars
import time

_SAY = contextvars.ContextVar("balance_sim_progress", default=None)


@contextlib.contextmanager
def reporting(say):
    """Send phase lines to `say(text)` (None: silence) within this block."""
    token = _SAY.set(say)
    try:
        yield
    finally:
        _SAY.reset(token)


@contextlib.contextmanager
def phase(text: str):
    """Say `text...` when a phase starts, and how long it took when it ends."""
    say = _SAY.get()
    start = time.perf_counter()
    if say:
        say(f"{text}...")
    yield
    if say:
        say(f"{text}: done in {time.perf_counter() - start:.1f} s")
