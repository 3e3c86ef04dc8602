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
        assert len(space["add"].signatures) == overloads
