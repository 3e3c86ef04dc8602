"""A folder's meta.json, untrusted input (folders are shared): checked with the command line's own rules by
`check_run` before any field is used; its kind (`kind_of`) decides which command may read or continue it."""
from __future__ import annotations

import json
import os
from pathlib import Path

from sim.errors import ConfigError, UserError
from sim import inputs
from sim.config import load_defaults, merge
from sim.game import game_names, get_game
from sim.registry import saved_choice

META = "meta.json"
REMAKE = "make it again with 'balance-sim run'"
MAX_META_BYTES = 64 * 2**20  # a meta.json is a few kB; a larger one is not ours (and not read into memory)
# the command that writes (and continues) each kind of folder, and what that folder holds for a reader
KINDS = {"run": "results of 'balance-sim run'", "sweep": "a sweep ('balance-sim sweep')",
         "tune": "a tune ('balance-sim tune')", "sensitivity": "a sensitivity screening ('balance-sim sensitivity')",
         "compare": "a comparison ('balance-sim compare')", "report": "a report written by 'balance-sim report -o'",
         "evolve": "an evolved strategy ('balance-sim evolve')", "exploit": "an exploit search ('balance-sim exploit')"}


def kind_of(meta: dict) -> str:
    """run, sweep, tune, sensitivity, evolve, exploit, compare or report (folders from before the `kind` field by their fields)."""
    if "sweep" in meta:  # the markers first: a folder that carries one is never read as a run's
        return "sweep"
    if "tune" in meta:
        return "tune"
    if meta.get("sensitivity"):
        return "sensitivity"
    if "evolve" in meta:
        return "exploit" if meta.get("command") == "exploit" else "evolve"
    return meta["kind"] if meta.get("kind") in KINDS else "run"


def read(folder: Path) -> dict:
    """The JSON object in `folder`/meta.json, or one line saying why there is none."""
    folder = Path(folder)
    path = folder / META
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder")
    if not os.path.lexists(path):
        raise UserError(f"{folder}: not a results folder (no {META}); make one with 'balance-sim run'")
    try:
        meta = json.loads(inputs.read_regular(path, MAX_META_BYTES).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: not valid JSON ({exc}); this folder's {META} is damaged, {REMAKE}") from None
    except RecursionError:
        raise UserError(f"{path}: nested too deep to be a meta.json balance-sim wrote; {REMAKE}") from None
    except inputs.NotAFile as exc:  # a FIFO would block the read, a link may point anywhere
        raise UserError(f"{path}: {exc.strerror}, not a {META} balance-sim wrote; {REMAKE}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror})") from None
    if not isinstance(meta, dict):
        raise UserError(f"{path}: expected a JSON object of run settings, got {type(meta).__name__}; {REMAKE}")
    return meta


def require_kind(folder: Path, meta: dict, wanted: str, doing: str) -> None:
    """Refuse a folder of another kind than `wanted`, naming what it is and the command that reads it."""
    kind = kind_of(meta)
    if kind == wanted:
        return
    folder = Path(folder)
    where = {"sweep": f"; its report is {folder / 'sweep_report.html'}, and 'balance-sim report "
                      f"{folder / 'variant-000'}' reports one variant",
             "tune": "; its results are tune.json and history.csv, with no game tables",
             "sensitivity": f"; its report is {folder / 'sensitivity.html'}",
             "compare": f"; its report is {folder / 'compare.html'}",
             "report": "; report the results folder it was made from instead"}.get(kind, "")
    if folder.name.endswith(".partial") and kind in ("sweep", "tune", "sensitivity"):
        where = f"; run the same 'balance-sim {kind}' command again to continue it"
    raise UserError(f"{doing} {folder}: this folder holds {KINDS[kind]}, not {KINDS[wanted]}{where}")


def _field(path: Path, meta: dict, key: str, check, required: bool = True):
    """meta[key] through a command-line validator (whose message names the option: here, the field)."""
    if key not in meta:
        if required:
            raise UserError(f"{path}: no '{key}'; this is not a complete results folder, {REMAKE}")
        return None
    value, option = meta[key], f"{path}: '{key}'"
    try:
        return check(value, option)
    except UserError as exc:  # the validator's reason, after its "OPTION VALUE: "
        reason = next((str(exc).partition(f"{option} {shown}: ")[2] for shown in (value, repr(value))
                       if f"{option} {shown}: " in str(exc)), str(exc))  # said once, whichever way it quoted it
        raise UserError(f"{option} is {value!r}: {reason}; {REMAKE}") from None


def _flag(value, option: str):
    if not isinstance(value, bool):
        raise UserError(f"{option} {value!r}: expected true or false")
    return value


def check_run(folder: Path, meta: dict, doing: str = "") -> dict:
    """The checked settings of a run's meta.json: {"spec", "players", "config" (validated), "choices", "games",
    "seed", "batch_size" (None in an old finished folder), "round_robin", "summary_only", "partial"}."""
    folder = Path(folder)
    path = folder / META
    require_kind(folder, meta, "run", doing or "")
    game = meta.get("game")
    if not isinstance(game, str) or game not in game_names():
        raise UserError(f"{path}: 'game' is {game!r}; allowed: {', '.join(game_names())}; {REMAKE}")
    spec = get_game(game)
    players = _field(path, meta, "players", lambda v, o: inputs.whole(o, v, spec.min_players, spec.max_players,
                                                                       f"a number of {spec.name} players"))
    games = _field(path, meta, "games", inputs.games)
    seed = _field(path, meta, "seed", inputs.seed)
    partial = bool(_field(path, meta, "partial", _flag, required=False))
    batch_size = _field(path, meta, "batch_size", inputs.batch_size, required=partial)
    round_robin = bool(_field(path, meta, "round_robin", _flag, required=False))
    summary_only = bool(_field(path, meta, "summary_only", _flag, required=False))
    _field(path, meta, "debug", _flag, required=False)
    _field(path, meta, "no_report", _flag, required=False)
    strategies = meta.get("strategies")
    if not isinstance(strategies, list) or not strategies:
        raise UserError(f"{path}: 'strategies' is {strategies!r}, expected a list of strategies; {REMAKE}")
    choices = tuple(saved_choice(game, s, f"{path}: 'strategies' {i}") for i, s in enumerate(strategies))
    config = meta.get("config")
    if not isinstance(config, dict):
        raise UserError(f"{path}: 'config' is {config!r}, expected the configuration table; {REMAKE}")
    try:  # as a --config file is: over the defaults, unknown keys refused, then the game's validation
        cfg = spec.validate(merge(load_defaults(spec.package), config), players)
    except ConfigError as exc:
        raise UserError(f"{path}: 'config': {exc}; {REMAKE}") from None
    return {"spec": spec, "players": players, "config": cfg, "choices": choices, "games": games, "seed": seed,
            "batch_size": batch_size, "round_robin": round_robin, "summary_only": summary_only, "partial": partial}
