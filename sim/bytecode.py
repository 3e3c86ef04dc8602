"""Write the bytecode of the modules a run imports, once, at install (`make install`: python -m sim.bytecode):
pip installs with --no-compile, and where PYTHONDONTWRITEBYTECODE is set every process would otherwise compile its
~1,000 modules at every start (1.9 CPU-s a run, 1.2 a worker: docs/architecture.md)."""
from __future__ import annotations

import importlib
import importlib.util
import py_compile
import sys
import time
from pathlib import Path


def import_what_a_run_imports() -> None:
    import joblib.externals.loky.backend.popen_loky_posix  # noqa: F401  a loky worker's own start
    import joblib.externals.loky.process_executor  # noqa: F401
    import pyarrow.parquet  # noqa: F401
    import tqdm  # noqa: F401

    import analysis.report  # noqa: F401  deferred: importing them (after bytecode is switched on) is the job
    import sim.cli  # noqa: F401  deferred, as above
    import sim.commands.main_cmd  # noqa: F401  deferred, as above (imports run_cmd: `main` and `run`)
    import sim.results  # noqa: F401  deferred, as above
    import sim.runner  # noqa: F401  deferred, as above
    from sim.game import game_names, get_game  # deferred, as above
    for game in game_names():
        spec = get_game(game)
        for room, where in spec.rooms().items():
            name = where.partition(":")[0]
            if room != "docs" and importlib.util.find_spec(name) is not None:  # rooms a game may leave out
                importlib.import_module(name)
    from numba import njit
    njit(lambda x: x + 1)(1)  # numba imports its registries (and scipy's BLAS) on the first compile


def main() -> None:
    started = time.process_time()
    sys.dont_write_bytecode = False  # writing it is this step's job: imports from here on write their own
    import_what_a_run_imports()
    missing = 0
    for module in list(sys.modules.values()):  # and those imported before (Python's start, this package)
        source = getattr(module, "__file__", None) or ""
        if source.endswith(".py") and not Path(importlib.util.cache_from_source(source)).exists():
            try:
                py_compile.compile(source, cfile=importlib.util.cache_from_source(source), doraise=True)
            except (py_compile.PyCompileError, OSError) as exc:  # read-only: that module compiles at import
                print(f"balance-sim: bytecode of {source} not written ({exc})", file=sys.stderr)
                missing += 1
    modules = sum(1 for m in sys.modules.values() if (getattr(m, "__file__", None) or "").endswith(".py"))
    print(f"balance-sim: bytecode of the {modules - missing} modules a run imports is written "
          f"({time.process_time() - started:.1f} CPU-s)", file=sys.stderr)


if __name__ == "__main__":
    main()
