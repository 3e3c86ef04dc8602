"""`python signal_driver.py TARGET N MODE MARKER -- ARGS...`: runs `balance-sim ARGS` as the installed program
(sim.cli.main on sys.argv: its own signal handlers) with TARGET (`module:attr` or `module:Class.method`) wrapped, so
that a test can send a signal at a known moment: the N-th call writes this process's id to MARKER, then
- raise:   waits there until a signal's KeyboardInterrupt ends the wait (it propagates);
- swallow: the same, but catches the KeyboardInterrupt (as a plotting library may) and goes on with the call;
- go:      waits until MARKER.go exists (the test made it after its signal), then goes on with the call;
- forever: TARGET is replaced by a function that, wherever it runs (a worker process), writes its process id to
           MARKER and never returns: what a search player's batch of minutes looks like to its caller.
No test waits a fixed time: each waits for MARKER."""
import importlib
import os
import sys
import time
from pathlib import Path

PATIENCE_S = 600  # a wait no signal ends: the test failed to send one


def _wait(marker: str) -> None:
    Path(marker).write_text(str(os.getpid()))
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        time.sleep(0.02)
    raise SystemExit("signal_driver: no signal came")


def forever(*args, **kwargs):
    """Stands in for a call shipped to a worker (pickled by value from __main__): never returns."""
    Path(os.environ["SIGNAL_DRIVER_MARKER"]).write_text(str(os.getpid()))
    while True:
        time.sleep(0.05)


def main() -> None:
    target, nth, mode, marker, dashes, *args = sys.argv[1:]
    assert dashes == "--", sys.argv
    module, _, path = target.partition(":")
    owner = importlib.import_module(module)
    *parents, name = path.split(".")
    for part in parents:
        owner = getattr(owner, part)
    real, calls = getattr(owner, name), []
    os.environ["SIGNAL_DRIVER_MARKER"] = marker

    def wrapper(*a, **k):
        calls.append(1)
        if len(calls) == int(nth):
            if mode == "raise":
                _wait(marker)
            elif mode == "swallow":
                try:
                    _wait(marker)
                except KeyboardInterrupt:
                    pass
            elif mode == "go":
                Path(marker).write_text(str(os.getpid()))
                while not Path(marker + ".go").exists():
                    time.sleep(0.02)
        return real(*a, **k)

    setattr(owner, name, forever if mode == "forever" else wrapper)
    sys.argv = ["balance-sim", *args]
    from sim.cli import main as cli
    cli()


if __name__ == "__main__":
    main()
