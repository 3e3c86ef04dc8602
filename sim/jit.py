"""`njit`: the project's numba decorator (numba's `njit(cache=True)`, compiling one overload per argument types
rather than one per literal value).

Numba types a module-level int constant or a literal number passed from jitted code as `Literal[int](k)`, and
compiles a separate overload of the callee for every combination of such values it is called with: measured on
27ee6d3, Mohur's `engine._simple_row` 8 times, Muziris' `_emit` 14, `playout.play_<game>` twice (literal -1 vs
int64 max_steps); ~331 overloads for ~205 functions in all. Our functions never
branch on a literal argument at compile time (no `numba.literally`, no overload keyed on a literal value), so
calls from jitted code are typed with the arguments' base types (`types.unliteral`): one overload per function
for them. LLVM still sees the constants where it inlines the callee into the caller. Calls from Python are typed
by value already (`int` -> int64). Overloads that differ in real types (int32 vs int64) stay separate.
Two options make more calls share one overload (measured: Muziris' helpers had compiled two to six times each):
`njit(int64=True)`: calls from jitted code pass signed integer arguments as int64 (numba's `range` over an int32
bound counts in int32, a loop over an int64 one in int64; numba computes with int64 either way).
`njit(readonly=True)`: calls from jitted code pass array arguments as read-only (numba types a global array
constant read-only and an allocated one writable); typing fails if the function writes one.
"""

from numba.core import types
from numba.core.registry import CPUDispatcher


class _UnliteralDispatcher(CPUDispatcher):
    """A CPU dispatcher whose calls from jitted code see unliteral argument types (see the module docstring)."""
    int64 = readonly = False  # see the module docstring

    def _arg(self, a):
        a = types.unliteral(a)
        if self.int64 and isinstance(a, types.Integer) and a.signed:
            return types.int64
        return a.copy(readonly=True) if self.readonly and isinstance(a, types.Array) else a

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(self._arg(a) for a in args), {k: self._arg(v) for k, v in kws.items()})


def njit(func=None, *, cache: bool = True, int64: bool = False, readonly: bool = False, **options):
    """`numba.njit(cache=True, **options)` with `_UnliteralDispatcher`; usable as `@njit` or `@njit(...)`.
    Builds the dispatcher as `numba.core.decorators._jit` does for njit (nopython, default boundscheck)."""

    def wrap(py_func):
        disp = _UnliteralDispatcher(py_func=py_func, locals={},
                                    targetoptions={"nopython": True, "boundscheck": None, **options})
        disp.int64, disp.readonly = int64, readonly
        if cache:
            disp.enable_caching()
        return disp

    return wrap if func is None else wrap(func)
