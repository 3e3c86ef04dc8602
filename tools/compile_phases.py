"""Where a cold compile of `main`'s kernel for GAME goes: process CPU-s per numba pass and LLVM phase (exclusive),
then the trace. A developer's measuring tool (not part of the package); run it with an empty cache:

    BALANCE_SIM_CACHE=$(mktemp -d) .venv/bin/python tools/compile_phases.py mohur

It wraps numba's pass manager and code library methods (numba 0.68) to time them; nothing it changes is kept.
"""
import os
import sys
import time
from collections import defaultdict

import numba.core.codegen as cg
import numba.core.compiler_machinery as cm

spent, calls, stack = defaultdict(float), defaultdict(int), []


def timed(label, func, *args, **kwargs):
    start = time.process_time()
    stack.append(0.0)
    try:
        return func(*args, **kwargs)
    finally:
        took, inner = time.process_time() - start, stack.pop()
        spent[label] += took - inner
        calls[label] += 1
        if stack:
            stack[-1] += took


def wrap(owner, attr, label):
    func = getattr(owner, attr)
    setattr(owner, attr, lambda *a, **k: timed(label(a) if callable(label) else label, func, *a, **k))


wrap(cm.PassManager, "_runPass", lambda a: "numba pass " + a[2].name())
for attr in ("_optimize_functions", "_optimize_final_module", "_finalize_final_module", "serialize_using_object_code"):
    wrap(cg.CPUCodeLibrary, attr, "llvm " + attr)


def cpu():
    t = os.times()
    return t.user + t.system


game = sys.argv[1]
from sim.setup import main_jobs, main_setups  # noqa: E402 - after the wrappers, before numba compiles anything
from sim.warmup import play_one, trace_one  # noqa: E402

job = {j[0]: j for j in main_jobs(main_setups())}[game]
t0 = cpu()
play_one(*job)
t1 = cpu()
trace_one(*job)
t2 = cpu()
print(f"{game}: kernel {t1 - t0:.1f} CPU-s, then its trace {t2 - t1:.1f} CPU-s; by phase:")
for label, seconds in sorted(spent.items(), key=lambda x: -x[1])[:14]:
    print(f"  {seconds:6.2f}  x{calls[label]:<4d} {label}")
