"""numba's cache folder is keyed by a hash of every source file, however the package is imported."""
import os
import subprocess
import sys

import sim


def _cache_dir_after(imports: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    code = f"{imports}\nfrom numba.core import config\nprint(config.CACHE_DIR)"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_cache_folder_is_keyed_by_the_source_hash():
    assert _cache_dir_after("import sim").endswith(os.path.join("numba", sim.SOURCE_HASH))


def test_numba_imported_first_still_uses_the_keyed_folder():
    # numba reads its configuration at import; without the fix it would use stale caches beside the sources
    assert _cache_dir_after("import numba\nimport sim").endswith(os.path.join("numba", sim.SOURCE_HASH))
