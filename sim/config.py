"""Configuration: TOML defaults shipped in each game package, a designer's file, and `--set` overrides. Merging
refuses unknown keys (naming the closest); each game then validates values and turns them into arrays."""
from __future__ import annotations

import copy
import difflib
import errno
import math
import stat
import tomllib
from importlib import resources
from pathlib import Path

from sim.errors import ConfigError, UserError
from sim.game import game_names, get_game

OPEN_TABLES = {"strategies"}  # tables whose keys a designer may add (named presets)


def default_text(package: str) -> str:
    return resources.files(package).joinpath("defaults.toml").read_text()


def load_defaults(package: str) -> dict:
    return tomllib.loads(default_text(package))


def _suggest(key: str, options) -> str:
    close = difflib.get_close_matches(key, list(options), n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return f"{hint}valid keys here: {', '.join(sorted(map(str, options)))}"


def _not_a_table(dotted: str, value, table: dict) -> ConfigError:
    """A value given where the defaults hold a table (`cards = 5`, `--set rules=7`)."""
    keys = sorted(map(str, table))
    example = f"{dotted}.{keys[0]}" if keys else f"{dotted}.NAME"
    return ConfigError(dotted, value, f"this key is a table, not a value: set its keys one by one (e.g. {example}); "
                                      f"its keys: {', '.join(keys) or 'preset names'}")


def merge(base: dict, override: dict, path: str = "") -> dict:
    """Deep-merge `override` into a copy of `base`, refusing keys `base` lacks and values over its tables."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        dotted = f"{path}{key}"
        if key not in out:
            if path.rstrip(".") in OPEN_TABLES:
                out[key] = value
                continue
            raise ConfigError(dotted, value, "unknown key; " + _suggest(key, out))
        if isinstance(out[key], dict) and not isinstance(value, dict):
            raise _not_a_table(dotted, value, out[key])
        # an open table (presets) adds the names it lacks in the recursion
        out[key] = merge(out[key], value, dotted + ".") if isinstance(out[key], dict) else value
    return out


MAX_NESTING = 32  # tables and lists in one another (the defaults: 4); deeper would end in a RecursionError


def check_nesting(value, where: str):
    """Refuse a value of tables and lists nested more than MAX_NESTING deep (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > MAX_NESTING:
                raise UserError(f"{where}: tables and lists nested more than {MAX_NESTING} deep; no balance-sim "
                                "setting is nested like that")
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return value


def _toml(text: str, where: str) -> dict:
    try:
        return check_nesting(tomllib.loads(text), where)
    except RecursionError:
        raise UserError(f"{where}: tables and lists nested more than {MAX_NESTING} deep; no balance-sim setting "
                        "is nested like that") from None


def parse_value(text: str, where: str | None = None):
    """A TOML value (`[8,7,5]`, `9`, `true`, `"x"`); a bare word is taken as a string."""
    try:
        return _toml(f"v = {text}", where or f"value {text[:40]!r}{'...' if len(text) > 40 else ''}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_set(cfg: dict, assignment: str) -> dict:
    """Apply one `dotted.key=value` override. Numeric parts index lists from 1 (emperors.1 = the first); a list of
    named tables takes a name too (emperors.Jahan.bonus)."""
    if "=" not in assignment:
        raise UserError(f"--set {assignment!r}: expected KEY=VALUE, e.g. --set hand_limit=8")
    dotted, _, text = assignment.partition("=")
    return set_value(cfg, dotted, parse_value(text, f"--set {dotted}"))


def list_index(node: list, part: str, here: str) -> int:
    """The 0-based index a key part names in a list: its position from 1, or, in a list of named tables
    (emperors), a table's `name` (any case) or its name's first word where no other shares it: `emperors.Jahan`."""
    if part.isdigit() and 1 <= int(part) <= len(node):
        return int(part) - 1
    names = [row.get("name") if isinstance(row, dict) else None for row in node]
    names = [n if isinstance(n, str) else None for n in names]
    wanted = part.strip().casefold()
    exact = [i for i, n in enumerate(names) if n is not None and n.casefold() == wanted]
    first = [i for i, n in enumerate(names) if n is not None and n.split()[:1] and n.split()[0].casefold() == wanted]
    if len(exact) == 1 or (not exact and len(first) == 1):
        return (exact or first)[0]
    allowed = f"an index from 1 to {len(node)}"
    if any(names):
        allowed += " or a name: " + ", ".join(n for n in names if n)
    raise ConfigError(here, part, f"expected {allowed}")


def set_value(cfg: dict, dotted: str, value) -> dict:
    """`apply_set` with the value already parsed (a sweep's values are set as they are, not through TOML text)."""
    parts, node = dotted.strip().split("."), cfg
    for depth, part in enumerate(parts):
        here = ".".join(parts[: depth + 1])
        last = depth == len(parts) - 1
        if isinstance(node, list):
            index = list_index(node, part, here)
            if last:
                node[index] = value
            node = node[index]
            continue
        if not isinstance(node, dict):
            raise ConfigError(here, part, "this key holds a value, not a table")
        if part not in node:
            if depth >= 1 and parts[0] in OPEN_TABLES:  # a new preset, or a parameter of one
                node[part] = {} if not last else value
            else:
                raise ConfigError(here, value if last else part, "unknown key; " + _suggest(part, node))
        if last:
            if isinstance(node[part], dict):  # an inline table merges into the table; a plain value is refused
                if not isinstance(value, dict):
                    raise _not_a_table(here, value, node[part])
                prefix = ".".join(parts[:depth])
                node[part] = merge(node, {part: value}, prefix + "." if prefix else "")[part]
            else:
                node[part] = value
        else:
            node = node[part]
    return cfg


def build(package: str, config_file: str | None = None, sets: tuple[str, ...] = ()) -> dict:
    """Defaults, then the designer's file, then each --set, in that order."""
    cfg = load_defaults(package)
    if config_file:
        data = read_toml(config_file)
        try:
            cfg = merge(cfg, data)
        except ConfigError:
            other = _other_game_of(data, package)
            if other:
                raise UserError(f"--config {config_file}: this is a {other} configuration (keys "
                                f"{', '.join(sorted(set(data) - set(cfg)))}), not a {package.rsplit('.', 1)[-1]} "
                                f"one; use it with 'balance-sim run {other} --config {config_file}'") from None
            raise
    for assignment in sets:
        cfg = apply_set(cfg, assignment)
    return check_nesting(cfg, "the configuration")  # dotted keys of new presets nest without a nested value


def _other_game_of(data: dict, package: str) -> str | None:
    """The game whose defaults hold every top-level table of `data` when this game's do not, else None."""
    mine = set(load_defaults(package))
    if not isinstance(data, dict) or set(data) <= mine:
        return None
    for name in game_names():
        other = get_game(name).package
        if other != package and set(data) <= set(load_defaults(other)):
            return name
    return None


def read_toml(config_file: str) -> dict:
    """A designer's TOML file; a missing, unreadable, non-UTF-8 or malformed one is one line naming it."""
    path = Path(config_file)
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise UserError(f"--config {config_file}: " + ("no such file" if exc.errno == errno.ENOENT else
                                                      f"cannot read it ({exc.strerror})")) from None
    if not stat.S_ISREG(mode):  # checked before reading: a FIFO would wait for a writer, /dev/zero never ends
        raise UserError(f"--config {config_file}: is {_file_kind(mode)}, not a regular file; give a TOML file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"--config {config_file}: cannot read it ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"--config {config_file}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                        f"{exc.start}); TOML files are UTF-8: save it as UTF-8") from None
    try:
        return _toml(text, f"--config {config_file}")
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"--config {config_file}: not valid TOML ({exc})") from None


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "a special file")


# Small validators shared by the games; each raises ConfigError naming the key.
def need_int(cfg: dict, key: str, lo: int | None = None, hi: int | None = None) -> int:
    value = lookup(cfg, key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, value, "expected a whole number")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(key, value, f"allowed: {lo if lo is not None else '-inf'} to {hi if hi is not None else 'inf'}")
    return value


def need_number(cfg: dict, key: str, lo: float | None = None, hi: float | None = None) -> float:
    value = lookup(cfg, key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(key, value, "expected a (finite) number")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(key, value, f"allowed: {lo} to {hi}")
    return float(value)


def need_choice(cfg: dict, key: str, allowed) -> str:
    value = lookup(cfg, key)
    if value not in allowed:
        raise ConfigError(key, value, f"allowed: {', '.join(map(str, allowed))}")
    return value


def need_int_list(cfg: dict, key: str, lo: int = 0, max_len: int | None = None, descending: bool = False,
                  hi: int | None = None) -> list:
    value = lookup(cfg, key)
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise ConfigError(key, value, "expected a list of whole numbers, e.g. [5, 3, 1]")
    if any(v < lo for v in value):
        raise ConfigError(key, value, f"every value must be >= {lo}")
    if hi is not None and any(v > hi for v in value):
        raise ConfigError(key, value, f"every value must be <= {hi}")
    if max_len is not None and len(value) > max_len:
        raise ConfigError(key, value, f"at most {max_len} values")
    if descending and value != sorted(value, reverse=True):
        raise ConfigError(key, value, "must be sorted from highest to lowest (top of the stack first), "
                                      f"e.g. {sorted(value, reverse=True)}")
    return value


def lookup(cfg: dict, key: str):
    node = cfg
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ConfigError(key, None, "missing key")
        node = node[part]
    return node
