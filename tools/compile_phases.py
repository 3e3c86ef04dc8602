"""Where a cold compile of `main`'s kernel for GAME goes: process CPU-s per numba pass and LLVM phase (exclusive),
then the trace. A developer's measuring tool (not part of the package); run it with an empty cache:

    BALANCE_SIM_CACHE=$(mktemp -d) .venv/bin/python tools/compile_phases.py mohur

With FUNCTIONS=N set, it also lists the N functions that cost most to compile, each exclusive of the callees it
compiles (`_Lean`: a twin's overload, compiled for jitted callers; `_Func`/`_Call`: one Python calls, or numba's).

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
# per function compiled: its own compile, exclusive of the callees it compiles (by a second stack)
by_func, func_calls, func_stack = defaultdict(float), defaultdict(int), []


def _compiled(self, *args, **kwargs):
    start = time.process_time()
    func_stack.append(0.0)
    try:
        return _compile(self, *args, **kwargs)
    finally:
        took, inner = time.process_time() - start, func_stack.pop()
        label = f"{type(self).__name__[:5]} {self.py_func.__qualname__}"
        by_func[label] += took - inner
        func_calls[label] += 1
        if func_stack:
            func_stack[-1] += took


import numba.core.dispatcher as nd  # noqa: E402
_compile = nd._FunctionCompiler.compile
nd._FunctionCompiler.compile = _compiled
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
top = int(os.environ.get("FUNCTIONS", "0"))
if top:
    print(f"by function compiled ({len(by_func)}, {sum(by_func.values()):.1f} CPU-s), exclusive of the callees it compiles:")
    for label, seconds in sorted(by_func.items(), key=lambda x: -x[1])[:top]:
        print(f"  {seconds:6.2f}  x{func_calls[label]:<4d} {label}")
