"""One line per slow phase of building a page, for the terminal: the commands send the lines (`with
reporting(say):`), `phase("...")` marks them; outside such a block phases say nothing (tests, library use)."""
from __future__ import annotations

import contextlib
import contextvars
import threading
import time

_SAY = contextvars.ContextVar("balance_sim_progress", default=None)
QUIET_BELOW = 0.5  # seconds: a phase that ends sooner says nothing, so a refusal stays the one line on stderr


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
    """Say `text...` once a phase has run QUIET_BELOW seconds, and how long it took when it ends (only then)."""
    say = _SAY.get()
    if not say:
        yield
        return
    start = time.perf_counter()
    lock, said = threading.Lock(), []

    def announce():
        with lock:
            if said == []:
                said.append(True)
                say(f"{text}...")

    timer = threading.Timer(QUIET_BELOW, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            spoke = bool(said)
            said.append(False)  # the timer, if it fires now, says nothing
    if spoke:  # not reached when the phase failed: its error, not "done", follows the announcement
        say(f"{text}: done in {time.perf_counter() - start:.1f} s")
