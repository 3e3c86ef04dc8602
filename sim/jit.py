"""`njit`: the project's numba decorator (numba's `njit(cache=True)`, compiling one overload per argument types
rather than one per literal value; docs/numba.md).

numba compiles a separate overload of a callee for every literal int it is passed from jitted code (~331
overloads for ~205 functions). None of ours branches on a literal at compile time, so calls from jitted code are
typed with `types.unliteral` arguments: one overload per function; LLVM still sees constants where it inlines.
`njit(int64=True)` passes signed integers as int64 and `njit(readonly=True)` arrays read-only (typing fails if
the function writes one), so that more calls share one overload.

Every function is compiled without numba's C-callable wrapper (`no_cfunc_wrapper`): it serves only first-class
function pointers (`cfunc`, `types.FunctionType`), which nothing here uses, and built, optimised and emitted for
each of a kernel's ~100 functions it was ~5% of a cold compile (docs/performance.md). Python calls go through the
CPython wrapper, which stays.
"""

from numba.core import types
from numba.core.registry import CPUDispatcher


class _UnliteralDispatcher(CPUDispatcher):
    """A CPU dispatcher whose calls from jitted code see unliteral argument types (see the module docstring)."""
    int64 = readonly = False

    def _arg(self, a):
        a = types.unliteral(a)
        if self.int64 and isinstance(a, types.Integer) and a.signed:
            return types.int64
        return a.copy(readonly=True) if self.readonly and isinstance(a, types.Array) else a

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(self._arg(a) for a in args), {k: self._arg(v) for k, v in kws.items()})


def njit(func=None, *, cache: bool = True, int64: bool = False, readonly: bool = False, **options):
    """`numba.njit(cache=True, **options)` with `_UnliteralDispatcher`; usable as `@njit` or `@njit(...)`.
    Builds the dispatcher as `numba.core.decorators._jit` does for njit (nopython, default boundscheck), without
    the C-callable wrapper (module docstring)."""

    def wrap(py_func):
        disp = _UnliteralDispatcher(py_func=py_func, locals={}, targetoptions={
            "nopython": True, "boundscheck": None, "no_cfunc_wrapper": True, **options})
        disp.int64, disp.readonly = int64, readonly
        if cache:
            disp.enable_caching()
        return disp

    return wrap if func is None else wrap(func)
