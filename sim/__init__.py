"""balance-sim: Monte Carlo balance simulator for tabletop card games.

Importing this package points numba's on-disk cache at a folder keyed by a hash of every source file of
the project. numba does not invalidate a cached kernel when a function it calls changes (another module, a
new strategy), so a key over all sources is what keeps `cache=True` both fast and correct.
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"

_ROOT = Path(__file__).resolve().parent.parent


def _source_hash() -> str:
    digest = hashlib.sha256(__version__.encode())
    for package in ("sim", "strategies"):
        base = _ROOT / package
        for path in sorted(base.rglob("*.py")):
            digest.update(str(path.relative_to(_ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    root = os.environ.get("BALANCE_SIM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "balance-sim")
    return Path(root)


SOURCE_HASH = _source_hash()
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(cache_root() / "numba" / SOURCE_HASH)
    if "numba" in sys.modules:  # numba read its configuration at import: tell it too, or it would use (and
        from numba.core import config as _numba_config  # trust) stale caches beside the sources

        _numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
