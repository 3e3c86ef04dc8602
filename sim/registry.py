"""Strategy registry and the integer dispatcher numba compiles once per game.

The dispatcher is generated as a source file (so numba can cache it), one branch per strategy: jitted functions
passed as arguments would compile the whole match loop once per pairing; an integer switch compiles once.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
from dataclasses import dataclass, field

import numpy as np

from sim import SOURCE_HASH, cache_root
from sim.errors import ConfigError, UserError
from sim.interface import STRATEGY_ARGS
from sim.game import get_game

MAX_PARAMS = 32  # a strategy's own parameters: a `weighted` strategy has one weight per feature (10-30)
# A search player's vector is wider: its own parameters, then its rollout policy's vector, then its model of the
# other seats' vector (POLICY_AT, MODEL_AT), so any preset can be a policy. Only runs that play a search player
# carry the width (`param_table`): heuristic play keeps copying MAX_PARAMS numbers a decision.
POLICY_AT, MODEL_AT, SEARCH_WIDTH = MAX_PARAMS, 2 * MAX_PARAMS, 3 * MAX_PARAMS
POLICY_KEYS = ("rollout", "opponent_model")  # a search player's parameters that name a policy
SAME_AS_ROLLOUT = "rollout"  # `opponent_model`'s value for "the other seats play the rollout policy"
ALT_KEY, NO_ALT = "opponent_alt", "none"  # a search player's alternative model of the other seats (a heuristic at
# its defaults, stored as its id; "none", -1: no alternative), drawn per sampled world with probability alt_share
MAX_ITERATIONS = 100_000      # a search player's iterations per decision: its tree is allocated per decision
MAX_DETERMINIZATIONS = 10_000  # worlds sampled up front per decision


@dataclass(frozen=True)
class StrategyDef:
    game: str
    name: str
    module: str
    function: str
    params: dict  # name -> default value, in vector order (a search player's `rollout`: a strategy name)
    doc: str = ""
    search: bool = False  # plays the game forward itself: left out of the rollout dispatcher
    bounds: dict = field(default_factory=dict)  # name -> (lowest, highest, whole number?) where it matters
    observes: bool = True  # reads its observation; the play loop skips `observe` for one that does not
    listing: str = ""  # how it needs its legal actions listed: one of its engine's LISTINGS ("": the first)
    round_robin: bool = True  # plays in `-s all`; False: only when named (search players never play there)
    aliases: tuple = ()  # its old names, still accepted (the CLI says the new one)


@dataclass(frozen=True)
class StrategyChoice:
    """A playable strategy: a registered base plus a full parameter vector (a preset or the defaults)."""
    name: str
    base: str
    base_id: int
    params: tuple = field(default_factory=tuple)

    def vector(self, width: int = MAX_PARAMS) -> np.ndarray:
        vec = np.zeros(max(width, len(self.params)), dtype=np.float64)
        vec[: len(self.params)] = self.params
        return vec


def param_table(chosen) -> np.ndarray:
    """The kernels' parameter rows of `chosen`, as wide as the widest (a search player's SEARCH_WIDTH)."""
    width = max([MAX_PARAMS, *(len(c.params) for c in chosen)])
    return np.stack([c.vector(width) for c in chosen]) if chosen else np.zeros((0, width))


_REGISTRY: dict[str, dict[str, StrategyDef]] = {}


def strategy(game: str, name: str, params: dict | None = None, search: bool = False, bounds: dict | None = None,
             observes: bool = True, listing: str = "", round_robin: bool = True, aliases: tuple = ()):
    """Register a numba strategy function (the fields: StrategyDef). Parameters are floats in a vector; the
    module gets an index constant per parameter, `P_<NAME>`, which numba compiles as a constant. A `search`
    strategy is left out of the rollout dispatcher (numba cannot compile a strategy that calls itself); its
    `rollout` parameter names a heuristic, stored as its id. `observes=False` spares the play loop `observe` (a
    fifth of a random game). An alias that sorts where the new name does keeps every strategy id."""
    params = dict(params or {})
    bounds = dict(bounds or {})
    if len(params) > MAX_PARAMS:
        raise ValueError(f"strategy {name}: at most {MAX_PARAMS} parameters")
    if set(bounds) - set(params):
        raise ValueError(f"strategy {name}: bounds for unknown parameters {sorted(set(bounds) - set(params))}")
    if listing and listing not in _listings(game):
        raise ValueError(f"strategy {name}: listing={listing!r} is not one {game}'s engine declares in LISTINGS "
                         f"({', '.join(_listings(game)) or 'none'})")

    def decorate(func):
        py_func = getattr(func, "py_func", func)
        module = sys.modules[py_func.__module__]
        for i, param in enumerate(params):
            constant = f"P_{param.upper()}"
            if getattr(module, constant, i) != i:
                raise ValueError(f"strategy {name}: {module.__name__}.{constant} is already "
                                 f"{getattr(module, constant)}")
            setattr(module, constant, i)
        _REGISTRY.setdefault(game, {})[name] = StrategyDef(
            game, name, py_func.__module__, py_func.__name__, params, (py_func.__doc__ or "").strip(), search,
            bounds, observes, listing, round_robin, tuple(aliases))
        return func

    return decorate


def registered(game: str) -> list[StrategyDef]:
    """Registered strategies of a game, in id order (sorted by name, so ids are stable)."""
    package = get_game(game).module("strategies")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{info.name}")
    return [d for _, d in sorted(_REGISTRY.get(game, {}).items())]


# Kernels pass one of these as their `mode`: its numba *type* (not its value) picks the dispatcher at compile
# time, so a kernel that never plays a search strategy never compiles one (they dominate compile time).
HEURISTIC_ONLY = ()
WITH_SEARCH = (1,)


def _branches(subset, call: str, indent: str) -> list[str]:
    """`if sid == i: return _si(...)` for each (id, definition) in subset, then `return -1`."""
    return [f"{indent}{'if' if k == 0 else 'elif'} sid == {i}:  # {d.name}\n{indent}    return _s{i}({call})"
            for k, (i, d) in enumerate(subset)] + [f"{indent}return -1"]


def _dispatch_source(game: str, args: tuple[str, ...] = STRATEGY_ARGS) -> str:
    """The generated module: `choose_heuristic(sid, *args)` (search players' playouts) and `choose(mode, sid,
    *args)`, which compiles to the heuristic branches or to every strategy's by the type of `mode`."""
    defs = list(enumerate(registered(game)))
    heuristic = [x for x in defs if not x[1].search]
    arglist = ", ".join(args)
    lines = ["# Generated by sim.registry: one branch per registered strategy. Do not edit.",
             "from sim.jit import njit", "from numba.extending import overload", "", f"ARGS = {tuple(args)!r}"]
    lines += [f"from {d.module} import {d.function} as _s{i}" for i, d in defs]
    # No reference counting (8 atomic operations a decision, 8% of a Mughal game) where every heuristic is compiled
    # without it: a caller without it cannot call a strategy that allocates, so the search branch keeps it.
    lean = all(getattr(importlib.import_module(d.module), d.function).targetoptions.get("_nrt", True) is False
               for _, d in heuristic)
    lines += ["", "", f"@njit(cache=True, _nrt={not lean})", f"def choose_heuristic(sid, {arglist}):"]
    lines += _branches(heuristic, arglist, "    ")
    lines += ["", "", "@njit(cache=True)", "def observes(sid):"]
    lines += [f"    if sid == {i}:  # {d.name}\n        return False" for i, d in defs if not d.observes]
    lines.append("    return True")
    lines += ["", "", f"def choose(mode, sid, {arglist}):",
              "    raise TypeError('choose() is called from numba kernels only')"]
    # the branches are repeated here rather than calling choose_heuristic: one call level less per decision
    for name, guard, subset, nrt in (("search", "> 0", defs, True), ("heuristic", "== 0", heuristic, not lean)):
        options = f"{{'cache': True, 'no_cfunc_wrapper': True, '_nrt': {nrt}}}"  # as sim.jit.njit's
        lines += ["", "", f"@overload(choose, jit_options={options})",
                  f"def _choose_{name}(mode, sid, {arglist}):", f"    if len(mode) {guard}:",
                  f"        def impl(mode, sid, {arglist}):"]
        lines += _branches(subset, arglist, "            ") + ["        return impl"]
    return "\n".join(lines) + "\n"


def rollout_dispatcher(game: str, args: tuple[str, ...] = STRATEGY_ARGS):
    """`choose_heuristic(sid, *args)`: the non-search strategies of a game, for a search strategy's playouts."""
    return _generated(game, args).choose_heuristic


def mode_dispatcher(game: str, args: tuple[str, ...] = STRATEGY_ARGS):
    """`choose(mode, sid, *args)` for batch kernels: with `HEURISTIC_ONLY` it compiles only the heuristic
    strategies, with `WITH_SEARCH` every strategy."""
    return _generated(game, args).choose


def observer(game: str):
    """`observes(sid)`: whether strategy `sid` reads its observation (see `strategy`), for the play loop."""
    return _generated(game).observes


def _listings(game: str) -> dict:
    return getattr(get_game(game).module("engine"), "LISTINGS", {})


def listings(game: str) -> np.ndarray:
    """int32 per registered strategy (id order): the engine's code of the listing it declared (0 if none)."""
    return np.array([_listings(game)[d.listing] if d.listing else 0 for d in registered(game)], dtype=np.int32)


def kernel_mode(game: str, base_ids) -> tuple:
    """The mode a batch kernel needs for these strategy ids."""
    defs = registered(game)
    return WITH_SEARCH if any(defs[int(i)].search for i in base_ids) else HEURISTIC_ONLY


def _generated(game: str, args: tuple[str, ...] = STRATEGY_ARGS):
    module_name = f"_balance_sim_dispatch_{game}"
    if module_name not in sys.modules:
        registered(game)  # imports the strategies; a search strategy's module may generate this module itself
    if module_name in sys.modules:
        module = sys.modules[module_name]
        if module.ARGS != args:
            raise ValueError(f"{game}: every dispatcher of a game takes the same arguments, {module.ARGS}")
        return module
    source = _dispatch_source(game, args)
    folder = cache_root() / "generated" / SOURCE_HASH
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{module_name}.py"
    if not path.exists() or path.read_text() != source:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(source)
        os.replace(tmp, path)  # atomic: parallel workers may race to write the same file
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def alias_of(game: str, name: str) -> str | None:
    """The current name of an old strategy name (a registered strategy's `aliases`), or None."""
    return next((d.name for d in registered(game) if name in d.aliases), None)


def choices(game: str, presets: dict, names: list[str]) -> list[StrategyChoice]:
    """Strategy or preset names as playable choices; `presets`: the [strategies] table `check_presets` passed."""
    defs = {d.name: (i, d) for i, d in enumerate(registered(game))}
    out = []
    for name in names:
        if name not in presets and alias_of(game, name):
            name = alias_of(game, name)
        if name not in presets and name not in defs:
            raise UserError(f"unknown strategy '{name}' for {game}; allowed: {', '.join(sorted({*defs, *presets}))}")
        preset = dict(presets.get(name, {"base": name}))
        base = preset.pop("base")
        preset.pop(ROUND_ROBIN, None)
        base_id, d = defs[base]
        out.append(StrategyChoice(name, base, base_id, param_vector(game, d, preset, presets)))
    return out


def check_presets(game: str, presets, players: int) -> dict:
    """Check every preset of a [strategies] table, used or not (a registered base, known parameters within
    bounds, no built-in's name: tables would say greedy for a preset called greedy); returns them as played with
    `players`, their `[strategies.<name>.players.<n>]` values over their own."""
    _check_presets(game, presets)
    return {name: {**{k: v for k, v in preset.items() if k != PER_PLAYERS},
                   **preset.get(PER_PLAYERS, {}).get(str(players), {})} for name, preset in presets.items()}


PER_PLAYERS = "players"  # a preset's sub-table of values for some player counts
ROUND_ROBIN = "round_robin"  # a preset's flag: true plays it in `-s all` (a preset plays only when named otherwise)


def round_robin_names(game: str, presets: dict) -> list[str]:
    """What `-s all` plays: the registered strategies with round_robin (never a search player), then the presets
    declaring `round_robin = true` (e.g. the evolved `tuned`)."""
    names = [d.name for d in registered(game) if not d.search and d.round_robin]
    return names + sorted(name for name, preset in presets.items() if preset.get(ROUND_ROBIN) is True)


def _check_presets(game: str, presets) -> None:
    if not isinstance(presets, dict):
        raise ConfigError("strategies", presets, "expected a table of presets, e.g. [strategies.my-variant] "
                                                 "with base = \"greedy\"")
    defs = {d.name: d for d in registered(game)}
    for name, preset in presets.items():
        key = f"strategies.{name}"
        if name in defs or name == SAME_AS_ROLLOUT:
            what = "a built-in strategy" if name in defs else "opponent_model's word for the rollout policy"
            raise ConfigError(key, preset, f"'{name}' is {what} and cannot be redefined; give the "
                                           f"preset another name, e.g. strategies.{name}-custom")
        if not isinstance(preset, dict) or "base" not in preset:
            raise ConfigError(key, preset, "a preset is a table with base = \"<strategy>\" and parameter values")
        base = preset["base"]
        if isinstance(base, str) and alias_of(game, base):
            preset["base"] = base = alias_of(game, base)
        if not isinstance(base, str) or base not in defs:
            raise ConfigError(key + ".base", base, f"allowed: {', '.join(defs)}")
        for param, value in preset.items():
            if param == PER_PLAYERS:
                _check_per_players(game, defs[base], f"{key}.{param}", value, presets)
            elif param == ROUND_ROBIN:
                if not isinstance(value, bool):
                    raise ConfigError(f"{key}.{param}", value, "allowed: true (the preset plays in -s all) or false")
                if value and defs[base].search:
                    raise ConfigError(f"{key}.{param}", value, "allowed: false for a search player's preset "
                                                               "(search players play only when named)")
            elif param != "base":
                _check_param(game, defs[base], f"{key}.{param}", param, value, presets)


def _check_per_players(game: str, d: StrategyDef, key: str, table, presets: dict) -> None:
    if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
        raise ConfigError(key, table, "expected tables of values by player count, e.g. [" + key + ".2] with "
                                      "iterations = 400")
    for count, values in table.items():
        if not count.isdigit():
            raise ConfigError(f"{key}.{count}", values, "expected a player count, e.g. " + key + ".2")
        for param, value in values.items():
            if param in ("base", PER_PLAYERS, ROUND_ROBIN):
                raise ConfigError(f"{key}.{count}.{param}", value, "allowed: the base strategy's parameters")
            _check_param(game, d, f"{key}.{count}.{param}", param, value, presets)


def param_vector(game: str, d: StrategyDef, given: dict, presets: dict | None = None) -> tuple:
    """`d`'s parameter vector: `given` values over the declared defaults. A search player's (SEARCH_WIDTH
    numbers): its own parameters, a policy's name as its strategy id (ids follow the registry, so a name keeps its
    meaning when a strategy is added), padded to MAX_PARAMS, then the rollout policy's vector and the model of the
    other seats' vector; `presets` (as `check_presets` returns them) lets a policy be a preset."""
    values = {**d.params, **given}
    if not d.search:
        return tuple(float(v) for v in values.values())
    own, policy = [0.0] * MAX_PARAMS, {}
    for i, (param, value) in enumerate(values.items()):
        if param == ALT_KEY:
            own[i] = -1.0 if value == NO_ALT else float([x.name for x in registered(game)].index(value))
        elif param in POLICY_KEYS:
            if param == "opponent_model" and value == SAME_AS_ROLLOUT:
                value = values["rollout"]
            own[i], policy[param] = policy_vector(game, value, presets or {})
        else:
            own[i] = float(value)
    return tuple(own) + policy["rollout"] + policy.get("opponent_model", policy["rollout"])


def policy_vector(game: str, name: str, presets: dict) -> tuple[int, tuple]:
    """(strategy id, MAX_PARAMS numbers) of a policy a search player plays out with: a heuristic at its defaults
    or a preset of one (checked before: `_check_policy`)."""
    defs = registered(game)
    ids = {x.name: i for i, x in enumerate(defs)}
    preset = dict(presets.get(name, {"base": alias_of(game, name) or name}))
    base = preset.pop("base")
    for key in (ROUND_ROBIN, PER_PLAYERS):
        preset.pop(key, None)
    if base not in ids or defs[ids[base]].search:
        raise UserError(f"policy '{name}' for {game}: allowed: {', '.join(policy_names(game, presets))}")
    vec = param_vector(game, defs[ids[base]], preset)
    return ids[base], vec + (0.0,) * (MAX_PARAMS - len(vec))


def policy_names(game: str, presets: dict) -> list[str]:
    """What a search player's `rollout` or `opponent_model` may name: every heuristic and every preset of one."""
    defs = {d.name: d for d in registered(game)}
    heuristic = [n for n, d in defs.items() if not d.search]
    return heuristic + sorted(n for n, p in presets.items() if isinstance(p, dict)
                              and (alias_of(game, p.get("base")) or p.get("base")) in heuristic)


def saved_choice(game: str, entry, where: str) -> StrategyChoice:
    """A strategy as meta.json records it (`{"name", "base", "params": [the vector]}`), checked as a preset is
    (a search player's policies: a heuristic's id and a vector within that heuristic's bounds); a UserError naming
    `where` otherwise."""
    defs = {d.name: (i, d) for i, d in enumerate(registered(game))}
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
        raise UserError(f"{where}: expected {{\"name\": ..., \"base\": ..., \"params\": [...]}}, got {entry!r}")
    base, params = entry.get("base"), entry.get("params")
    if not isinstance(base, str) or base not in defs:
        raise UserError(f"{where}: base {base!r} is not a {game} strategy of this balance-sim; allowed: "
                        f"{', '.join(defs)}")
    base_id, d = defs[base]
    if d.search and isinstance(params, list) and len(params) in (len(d.params) - 1, len(d.params) - 3):
        params = _before_policies(game, d, params, where)
    width = SEARCH_WIDTH if d.search else len(d.params)
    if not isinstance(params, list) or len(params) != width:
        raise UserError(f"{where}: params {params!r}; {game}'s '{base}' takes {width} numbers "
                        f"({', '.join(d.params) or 'none'}{' padded to 32, then two policy vectors' if d.search else ''})")
    for param, value in zip(d.params, params):
        if d.search and param in POLICY_KEYS:
            continue
        if d.search and param == ALT_KEY:
            if value != -1:
                _check_saved_policy(game, value, [], f"{where}: {param}")
            continue
        try:
            _check_param(game, d, f"{where} params.{param}", param, value)
        except ConfigError as exc:
            raise UserError(f"{where}: params.{param} is {value!r}; {exc.allowed}") from None
    if d.search:
        if any(v != 0 for v in params[len(d.params):POLICY_AT]):
            raise UserError(f"{where}: params {len(d.params)} to {POLICY_AT - 1} must be 0 (padding)")
        for param, at in zip(POLICY_KEYS, (POLICY_AT, MODEL_AT)):
            _check_saved_policy(game, params[list(d.params).index(param)], params[at:at + MAX_PARAMS],
                                f"{where}: {param}")
    return StrategyChoice(entry["name"], base, base_id, tuple(float(v) for v in params))


def _before_policies(game: str, d: StrategyDef, params: list, where: str) -> list:
    """A search player's vector as saved before policies were vectors (no `opponent_model`, the rollout at its
    defaults for every seat): the same player in today's layout."""
    at = list(d.params).index("opponent_model")
    rid = params[list(d.params).index("rollout")]
    defs = registered(game)
    if isinstance(rid, bool) or not isinstance(rid, (int, float)) or rid not in range(len(defs)) or defs[int(rid)].search:
        raise UserError(f"{where}: rollout {rid!r} is not the id of a heuristic strategy")
    own = list(params[:at]) + [rid] + list(params[at:])
    own += [-1.0, 0.0][: len(d.params) - len(own)]  # saved before opponent_alt and alt_share: no alternative
    policy = list(policy_vector(game, defs[int(rid)].name, {})[1])
    return own + [0.0] * (MAX_PARAMS - len(own)) + policy + policy


def _check_saved_policy(game: str, sid, vec: list, where: str) -> None:
    defs = registered(game)
    if isinstance(sid, bool) or not isinstance(sid, (int, float)) or sid not in range(len(defs)) \
            or defs[int(sid)].search:
        raise UserError(f"{where} {sid!r} is not the id of a heuristic strategy")
    d = defs[int(sid)]
    for param, value in zip(d.params, vec):
        try:
            _check_param(game, d, f"{where}.{param}", param, value)
        except ConfigError as exc:
            raise UserError(f"{where}.{param} is {value!r}; {exc.allowed}") from None
    if any(v != 0 for v in vec[len(d.params):]):
        raise UserError(f"{where}: numbers after '{d.name}'s {len(d.params)} parameters must be 0 (padding)")


def _check_param(game: str, d: StrategyDef, key: str, param: str, value, presets: dict | None = None) -> None:
    if param not in d.params:
        raise ConfigError(key, value, f"unknown parameter of '{d.name}'; allowed: {', '.join(d.params) or 'none'}")
    if d.search and param == ALT_KEY:  # a heuristic's name: its defaults are what the search plays
        names = [x.name for x in registered(game) if not x.search]
        if not isinstance(value, str) or value not in [NO_ALT, *names]:
            raise ConfigError(key, value, f"allowed: {NO_ALT}, {', '.join(names)} (a heuristic, played at its "
                                          f"defaults)")
        return
    if d.search and param in POLICY_KEYS:  # names a policy: a numeric id would change meaning with the registry
        names = policy_names(game, presets or {})
        same = [SAME_AS_ROLLOUT] if param == "opponent_model" else []
        if not isinstance(value, str) or value not in names + same:
            raise ConfigError(key, value, f"allowed: {', '.join(same + names)} (a heuristic or a preset of one"
                                          + (", or 'rollout': the rollout policy" if same else "") + ")")
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            (isinstance(value, float) and not np.isfinite(value)):
        raise ConfigError(key, value, "expected a (finite) number")
    if param in d.bounds:  # the range first: a whole number of any size compares exactly (2**64 has no float64)
        lo, hi, whole = d.bounds[param]
        if not lo <= value <= hi:
            raise ConfigError(key, value, f"allowed: {lo:,} to {hi:,}")
        if whole and float(value) != int(value):
            raise ConfigError(key, value, f"expected a whole number from {lo:,} to {hi:,}")
    elif abs(value) > np.finfo(np.float64).max:  # kept as a float64: a whole number beyond it has none
        raise ConfigError(key, value, f"allowed: a number from {-np.finfo(np.float64).max:,.0e} to "
                                      f"{np.finfo(np.float64).max:,.0e}")


def all_names(game: str, presets: dict) -> list[str]:
    return [d.name for d in registered(game)] + sorted(presets)


def rollout_defaults(game: str, default: str = "greedy") -> tuple[np.ndarray, int]:
    """Every registered strategy's default parameter vector (row = strategy id), and the default rollout's id."""
    defs = registered(game)
    table = np.zeros((len(defs), MAX_PARAMS), dtype=np.float64)
    for i, d in enumerate(defs):
        vec = param_vector(game, d, {})[:MAX_PARAMS]  # a search player's own part
        table[i, : len(vec)] = vec
    return table, [d.name for d in defs].index(default)
