"""The shared engine-interface tools: declared layouts, named codes, and per-game specialisation."""
import types

import numpy as np
import pytest
from numba import njit

from sim.interface import Layout, bind, codes


def test_layout_offsets_follow_declared_sizes_and_view_names_fields():
    lay = Layout("demo", [("market", 7), ("hand", (2, 7)), ("cur", 1)])
    assert (lay.offset("market"), lay.offset("hand"), lay.offset("cur"), lay.size) == (0, 7, 21, 22)
    vec = np.arange(22, dtype=np.int32)
    view = lay.view(vec)
    assert view["hand"].shape == (2, 7) and view["hand"][1, 0] == 14 and view["cur"] == 21
    view["hand"][0, 0] = -1  # a view, not a copy
    assert vec[7] == -1
    with pytest.raises(ValueError):
        Layout("demo", [("a", 1), ("a", 2)])
    with pytest.raises(ValueError):
        lay.view(np.zeros(3))


def test_codes_number_names_in_order_and_refuse_repeats():
    assert codes("running", "stacks", "deck") == {"running": 0, "stacks": 1, "deck": 2}
    with pytest.raises(ValueError):
        codes("a", "a")


@njit(cache=True)
def _plus_one(x):
    return x + 1


@njit(cache=True)
def _times_ten(x):
    return x * 10


def _engine(name, step):
    """A stand-in engine module: numba resolves `G.step` on modules (as on `sim.<game>.engine`)."""
    module = types.ModuleType(name)
    module.step = step
    return module


_GameA = _engine("game_a", _plus_one)
_GameB = _engine("game_b", _times_ten)


def _three_steps(x):
    for _ in range(3):
        x = G.step(x)  # noqa: F821 - bound per game by `bind`
    return x


def test_bind_compiles_one_copy_per_game():
    a = bind(_three_steps, "a", G=_GameA)
    b = bind(_three_steps, "b", G=_GameB)
    assert a(1) == 4 and b(1) == 1000
    assert a.__qualname__ != b.__qualname__


def test_project_njit_compiles_one_overload_for_literal_arguments():
    """sim.jit.njit: calls from jitted code with different literal ints share one overload (numba's own njit
    compiles one per literal value); the callee still computes with the values passed."""
    from sim.jit import njit as project_njit

    source = "def add(a, b):\n    return a + b\n\ndef caller(x):\n    return add(x, 1) + add(x, 2) + add(x, 3)\n"
    for jit, overloads in ((project_njit(cache=False), 1), (njit, 3)):
        space = {}
        exec(source, space)
        space["add"] = jit(space["add"])
        caller = jit(space["caller"])
        assert caller(10) == 36
        # 3 with numba's njit is what sim.jit avoids (if numba stops doing it, sim/jit.py can go)
        assert len(getattr(space["add"], "twin", space["add"]).signatures) == overloads


def test_jitted_callers_call_a_twin_compiled_only_into_them():
    """sim.jit: a function that jitted code calls is compiled there by its twin, whose code is never optimised,
    emitted or wrapped on its own (it has no entry point for Python), only linked into its caller; a Python call
    compiles a full overload of its own; `inline="always"` is LLVM's inlining, not numba's."""
    from sim.jit import njit as project_njit

    space = {"njit": project_njit}
    exec("@njit(cache=False)\ndef leaf(x):\n    if x < 0:\n        raise ValueError('leaf: negative')\n"
         "    return 2 * x\n\n@njit(cache=False, inline='always')\ndef middle(x):\n    return leaf(x) + 1\n\n"
         "@njit(cache=False)\ndef top(x):\n    return middle(x) + middle(x + 1)\n", space)
    leaf, middle, top = space["leaf"], space["middle"], space["top"]
    assert top(3) == 7 + 9
    assert not leaf.signatures and not middle.signatures  # Python called neither
    for fn in (leaf, middle):
        (cres,) = fn.twin.overloads.values()
        assert not cres.library._finalized and not cres.fndesc.llvm_cpython_wrapper_name in \
            [f.name for f in cres.library._final_module.functions if not f.is_declaration]
        assert fn.targetoptions["inline"] == "never"
    assert middle.twin.targetoptions["forceinline"] and not leaf.twin.targetoptions["forceinline"]
    with pytest.raises(ValueError, match="leaf: negative"):  # raised in a twin, through its callers
        top(-5)
    assert leaf(4) == 8 and len(leaf.signatures) == 1  # its own overload, called from Python



def test_code_linked_into_a_function_python_calls_is_internal_to_it(monkeypatch):
    """LLVM infers no attribute (nocapture, readonly, ...) of a `linkonce_odr` function, which another module's
    copy could replace, and the JIT linker binds such a function to the first copy of its name already loaded:
    every function linked into the module of a function Python calls, twins' and plain numba libraries' alike
    (a plain `numba.njit` chooser calling a search player crashed when only twins' were), is internal to it when
    LLVM optimises it; only CPython and C wrappers, which numba finds by name, stay visible."""
    from llvmlite.binding import Linkage  # deferred: only this test looks inside numba's code libraries
    from numba.core.codegen import CPUCodeLibrary  # deferred: as above

    from sim.jit import njit as project_njit  # deferred: as above

    linkage = {}
    optimise = CPUCodeLibrary._optimize_final_module

    def record(self):
        linkage.update({f.name: f.linkage for f in self._final_module.functions if not f.is_declaration})
        optimise(self)

    monkeypatch.setattr(CPUCodeLibrary, "_optimize_final_module", record)
    space = {"njit": project_njit, "plain": njit}
    exec("@njit(cache=False)\ndef leaf(a):\n    return a.sum()\n\n"
         "@plain(cache=False)\ndef mid(a):\n    return leaf(a) + 1.0\n\n"
         "@njit(cache=False)\ndef top(a):\n    return leaf(a) + mid(a[1:])\n", space)
    assert space["top"](np.arange(4.0)) == 13.0
    (leaf,) = space["leaf"].twin.overloads.values()
    (mid,) = space["mid"].overloads.values()
    linked = [f.name for lib in (leaf.library, mid.library) for f in lib._get_module_for_linking().functions
              if not f.is_declaration and not f.name.startswith(("_ZN7cpython", "cfunc.", "NRT_"))]
    assert any("mid" in name for name in linked) and any("leaf" in name for name in linked)
    visible = [name for name in linked if linkage[name] != Linkage.internal]
    assert not visible, visible
