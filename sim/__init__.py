"""balance-sim: Monte Carlo balance simulator for tabletop card games.

Importing this package points numba's on-disk cache at a folder keyed by a hash of the sources numba compiles:
numba does not invalidate a cached kernel when a function it calls changes, so that key keeps `cache=True` correct.
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"

_ROOT = Path(__file__).resolve().parent.parent


# Modules above the engines, which no engine imports (the layers' contract), so they do not key the cache
# (tests/test_layers.py checks each is above the engines).
NOT_COMPILED = ("sim/cli.py", "sim/commands/", "sim/bytecode.py", "sim/setup.py", "sim/runner.py", "sim/batches.py",
                "sim/results.py", "sim/report_folder.py", "sim/meta.py", "sim/lock.py", "sim/inputs.py",
                "sim/warmup.py", "sim/variants.py", "sim/sensitivity_design.py", "sim/effects.py", "sim/evolve.py")


def _source_hash() -> str:
    """A hash over the sources of the engines and the foundation (sim/ and strategies/ less NOT_COMPILED)."""
    digest = hashlib.sha256(__version__.encode())
    for package in ("sim", "strategies"):
        for path in sorted((_ROOT / package).rglob("*.py")):
            name = path.relative_to(_ROOT).as_posix()
            if name.startswith(NOT_COMPILED):
                continue
            digest.update(name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _writable(folder: Path) -> str | None:
    """None if we can create files in `folder` (creating it), else why not. Tried, not asked: os.access says yes
    to root on a read-only mount or beneath a file."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def cache_root() -> Path:
    """$BALANCE_SIM_CACHE, else $XDG_CACHE_HOME/balance-sim (~/.cache/balance-sim); if that cannot be written, a
    per-user temporary folder, said once on stderr and passed to child processes in $BALANCE_SIM_CACHE."""
    if os.environ.get("BALANCE_SIM_CACHE"):
        return Path(os.environ["BALANCE_SIM_CACHE"])
    root = Path(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "balance-sim"
    why = _writable(root)
    if why is not None:
        import tempfile
        fallback = Path(tempfile.gettempdir()) / f"balance-sim-cache-{os.getuid() if hasattr(os, 'getuid') else 0}"
        print(f"balance-sim: warning: cache folder {root} cannot be written ({why}); using {fallback} "
              "(set BALANCE_SIM_CACHE to choose another)", file=sys.stderr)
        os.environ["BALANCE_SIM_CACHE"] = str(fallback)
        root = fallback
    return root


SOURCE_HASH = _source_hash()
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(cache_root() / "numba" / SOURCE_HASH)
    if "numba" in sys.modules:  # numba read its configuration at import: tell it too, or it would use (and
        from numba.core import config as _numba_config  # trust) stale caches beside the sources

        _numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
