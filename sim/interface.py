"""The one engine interface every game speaks, and the two tools that let shared code run over it.

Every game's `sim/<game>/engine.py` exposes the `@njit(cache=True)` functions of ENGINE_FUNCTIONS over its flat
int32 state `s` and configuration vector `cfg` (docs/new-game.md says what each does), and the constants of
ENGINE_CONSTANTS, declared with `Layout`; `check_engine` checks a game's engine module against them. Every
strategy is an `@njit` function of STRATEGY_ARGS returning a row, registered with `sim.registry.strategy`.
Shared algorithms (the play-out, the search player) are plain Python functions over a global `G` (the engine
module), specialised per game with `bind`; numba compiles and caches one copy per game.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import types

import numpy as np
from sim.jit import njit


STRATEGY_ARGS = ("obs", "actions", "n_actions", "params", "cfg")  # every strategy's arguments, in order

# Every engine function, with its arguments in order (an engine may name them its own way, not count them so).
ENGINE_FUNCTIONS = {
    "new_state": (),                                       # -> a zeroed state of STATE_SIZE
    "new_game": ("s", "cfg", "players", "seed", "game"),   # chance draws from streams seeded from (seed, game, ...)
    "current_player": ("s",),                              # simultaneous moves: each seat asked in turn
    "legal_actions": ("s", "cfg", "actions"),              # -> n rows; never 0 in a live game (a pass is an action)
    "apply_action": ("s", "cfg", "actions", "a"),          # row a, then every automatic step to the next decision
    "is_over": ("s",),
    "returns": ("s", "cfg", "out"),                        # out[seat] = win share; returns nothing
    "observe": ("s", "cfg", "seat", "obs"),                # what `seat` may know: all that strategies see
    "check_invariants": ("s", "cfg"),                      # raises if cards or tokens are not conserved
}
ENGINE_CONSTANTS = {"MAX_ACTIONS": None, "ACOLS": "ACTION", "STATE_SIZE": "STATE", "OBS_SIZE": "OBS"}  # -> layout


class EngineError(Exception):
    """A game's engine module does not speak the engine interface (a programming error, not a user's)."""


def check_engine(engine: types.ModuleType, game: str) -> None:
    """Raise EngineError naming every way `engine` departs from the interface above."""
    problems = []
    for name, args in ENGINE_FUNCTIONS.items():
        fn = getattr(engine, name, None)
        if fn is None:
            problems.append(f"no {name}")
            continue
        py = getattr(fn, "py_func", None)
        if py is None:
            problems.append(f"{name} is not numba-compiled (@njit)")
            continue
        given = list(inspect.signature(py).parameters)
        if len(given) != len(args):
            problems.append(f"{name}({', '.join(given)}): expected {len(args)} arguments ({', '.join(args)})")
    returns = getattr(getattr(engine, "returns", None), "py_func", None)
    if returns is not None:
        tree = ast.parse(textwrap.dedent(inspect.getsource(returns)))
        if any(isinstance(node, ast.Return) and node.value is not None for node in ast.walk(tree)):
            problems.append("returns gives back a value: it fills `out` and returns nothing")
    for name, layout in ENGINE_CONSTANTS.items():
        value = getattr(engine, name, None)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
            problems.append(f"{name} is {value!r}, expected a positive whole number")
        elif layout and isinstance(getattr(engine, layout, None), Layout) and getattr(engine, layout).size != value:
            problems.append(f"{name} is {value} but {layout}.size is {getattr(engine, layout).size}")
    if problems:
        raise EngineError(f"{game}'s engine ({engine.__name__}): " + "; ".join(problems))


class Layout:
    """Named fields of a flat vector, declared once as (name, size) or (name, (rows, cols)), offsets in order:
    `export` makes them module-level ints (numba constants), `view` gives named access for traces and tests."""

    def __init__(self, name: str, fields):
        self.name = name
        self.fields: dict[str, tuple[int, tuple[int, ...]]] = {}
        at = 0
        for field, shape in fields:
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            if field in self.fields:
                raise ValueError(f"{name}: field {field!r} declared twice")
            if any(int(d) < 0 for d in shape):
                raise ValueError(f"{name}: field {field!r} has a negative size")
            self.fields[field] = (at, shape)
            at += int(np.prod(shape, dtype=np.int64))
        self.size = at

    def offset(self, field: str) -> int:
        return self.fields[field][0]

    def export(self, namespace: dict, prefix: str, short: dict | None = None) -> None:
        """Define `prefix + FIELD` = each field's offset in `namespace` (a module's globals()); `short` names a
        field whose name is no identifier (`{"bonus_pile{}_count": "PCNT"}`)."""
        for field, (at, _) in self.fields.items():
            name = prefix + (short or {}).get(field, field.upper())
            if not name.isidentifier():
                raise ValueError(f"{self.name}: field {field!r} needs a short name to be exported")
            namespace[name] = at

    def view(self, vec) -> dict:
        """{field: the field's values as an array of its declared shape} (views, not copies)."""
        if len(vec) < self.size:
            raise ValueError(f"{self.name}: a vector of {len(vec)} values holds {self.size}")
        out = {}
        for field, (at, shape) in self.fields.items():
            part = vec[at: at + int(np.prod(shape, dtype=np.int64))]
            out[field] = part[0] if shape == (1,) else part.reshape(shape)
        return out


def codes(*names: str) -> dict[str, int]:
    """Named integer codes (end reasons, action types) numbered in the order given: one list, two directions
    (`CODES["stacks"]` in the engine, `names[code]` in traces and analysis)."""
    if len(set(names)) != len(names):
        raise ValueError(f"codes named twice in {names}")
    return {name: i for i, name in enumerate(names)}


def bind(template, name: str, module: str | None = None, inline: bool = False, nrt: bool = True, **globals_):
    """`template` (a plain function) compiled with `njit(cache=True)` as `<template>_<name>`, its globals extended
    by `globals_` (typically `G=<engine module>`): numba keys its cache by module and qualified name, so each copy
    has its own entry. `module`: the `__module__` it claims (where the registry's dispatcher imports it from).
    `inline`: inlined into jitted callers (2 s less of Mohur's cold compile). `nrt=False`: no reference counting,
    for a function called per step that allocates nothing (numba counts every array argument otherwise)."""
    func = types.FunctionType(template.__code__, dict(template.__globals__, **globals_),
                              f"{template.__name__}_{name}", template.__defaults__, template.__closure__)
    func.__qualname__ = f"{template.__qualname__}_{name}"
    func.__module__ = module or template.__module__
    func.__doc__ = template.__doc__
    options = {} if nrt else {"_nrt": False}
    return njit(cache=True, inline="always" if inline else "never", **options)(func)
