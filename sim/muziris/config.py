"""Validate Muziris' configuration and pack it into the kernels' int64 vector (offsets in engine.CFG_*)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim import config as C
from sim.errors import ConfigError
from sim.registry import check_presets
from sim.muziris import engine as E

# [rules] keys by type; each is stored in the engine's CFG field of the same name
INT_RULES = {"max_order": (1, E.MAX_ORD), "starting_hand": (0, 50), "market_size": (0, 50), "hand_limit": (0, 200),
             "first_player_markers": (0, 10), "other_player_markers": (0, 10), "setup_coins": (0, 1000),
             "unused_character_coins": (0, 1000), "specials_fewer_than_players": (-E.MAX_C, E.MAX_P),
             "round_cap": (1, 100_000), "boxed_coins": (0, 10**9)}
BOOL_RULES = ("final_round_reuse", "bonus_without_order")
CHOICE_RULES = {"reshuffle": ("at_next_draw", "when_empty"),  # stored as the index of the choice
                "take_up_to": ("most", "choose")}
RULE_KEYS = (*INT_RULES, *BOOL_RULES, *CHOICE_RULES, "first_player", "condition")
# kind -> (number of arguments, their defaults, lowest allowed value of each)
STEP_ARGS = {
    "draw": ((1,), (1,)), "take": ((1,), (1,)), "take_type": ((0,), (0,)), "gain": ((0,), (0,)),
    "fulfil": ((0,), (0,)), "cycle": ((1,), (1,)), "coins_per_order": ((1, 4), (0, 0)),
    "hand_ability": ((), ()), "market_ability": ((), ()),
}
NESTING = ("hand_ability", "market_ability")


@dataclass(frozen=True)
class MuzirisConfig:
    raw: dict
    vector: np.ndarray   # int64[CFG_SIZE]
    produce: tuple       # names, in type order
    characters: tuple    # names, in configuration order
    conditions: tuple    # names
    presets: dict


def _table(raw: dict, key: str, most: int) -> dict:
    value = raw.get(key)
    if not isinstance(value, dict) or not value:
        raise ConfigError(key, value, "expected a table of named entries, e.g. [" + key + ".name]")
    if len(value) > most:
        raise ConfigError(key, len(value), f"at most {most} entries")
    for name, entry in value.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"{key}.{name}", entry, "expected a table")
    return value


def _only(raw: dict, key: str, allowed) -> None:
    extra = set(C.lookup(raw, key)) - set(allowed)
    if extra:
        bad = sorted(extra)[0]
        raise ConfigError(f"{key}.{bad}", C.lookup(raw, key)[bad], f"unknown key; allowed: {', '.join(allowed)}")


def parse_steps(key: str, value, nesting_ok: bool) -> list[tuple[int, int, int]]:
    """["draw 1", "gain 1"] -> [(kind, a0, a1), ...]; every mistake names the key."""
    if not isinstance(value, list) or not 1 <= len(value) <= E.MAX_STEPS or \
            not all(isinstance(v, str) for v in value):
        raise ConfigError(key, value, f"expected a list of 1 to {E.MAX_STEPS} steps like [\"draw 2\", \"gain 1\"]")
    steps = []
    for text in value:
        words = text.split()
        kind = words[0] if words else ""
        if kind not in STEP_ARGS:
            raise ConfigError(key, text, f"unknown effect kind; allowed: {', '.join(STEP_ARGS)}")
        if kind in NESTING and not nesting_ok:
            raise ConfigError(key, text, "a produce ability may not use another card's ability "
                                         f"({', '.join(NESTING)} are for characters only)")
        defaults, lows = STEP_ARGS[kind]
        args = words[1:]
        if len(args) > len(defaults) or not all(a.isdigit() for a in args):
            raise ConfigError(key, text, f"'{kind}' takes {len(defaults)} whole number(s) >= 0"
                                         + (f", e.g. \"{kind} {' '.join(map(str, defaults))}\"" if defaults else ""))
        nums = [int(a) for a in args] + list(defaults[len(args):])
        for n, lo in zip(nums, lows):
            if not lo <= n <= 99:
                raise ConfigError(key, text, f"arguments of '{kind}' must be from {lo} to 99")
        nums += [0] * (2 - len(nums))
        steps.append((E.KIND[kind], nums[0], nums[1]))
    return steps


def validate(raw: dict, players: int = 3) -> MuzirisConfig:
    v = np.zeros(E.CFG_SIZE, dtype=np.int64)
    _only(raw, "rules", RULE_KEYS)
    if "report" in raw:  # read by the report only: minutes per game
        C.need_number(raw, "report.seconds_per_action", 0.1, 600)
    cv = E.CFG.view(v)  # named views into v for the per-entry arrays
    r = "rules."
    for key, (lo, hi) in INT_RULES.items():
        v[E.CFG.offset(key)] = C.need_int(raw, r + key, lo, hi)
    for key in BOOL_RULES:
        value = C.lookup(raw, r + key)
        if not isinstance(value, bool):
            raise ConfigError(r + key, value, "expected true or false")
        v[E.CFG.offset(key)] = int(value)
    for key, allowed in CHOICE_RULES.items():
        v[E.CFG.offset(key)] = allowed.index(C.need_choice(raw, r + key, allowed))
    max_order = int(v[E.CFG_MAX_ORDER])
    first = C.lookup(raw, r + "first_player")
    if first == "random":
        v[E.CFG_FIRST_PLAYER] = -1
    elif isinstance(first, int) and not isinstance(first, bool) and 0 <= first < players:
        v[E.CFG_FIRST_PLAYER] = first
    else:
        raise ConfigError(r + "first_player", first, f"allowed: \"random\" or a seat from 0 to {players - 1}")

    produce = _table(raw, "produce", E.MAX_T)
    v[E.CFG_NT] = len(produce)
    for t, (name, entry) in enumerate(produce.items()):
        key = f"produce.{name}"
        _only(raw, key, ("cards", "values", "ability"))
        cv["count"][t] = C.need_int(raw, key + ".cards", 0, E.MAX_DECK)
        values = C.need_int_list(raw, key + ".values", 0, hi=10**6)  # tabulated up to POT_K copies in int32
        if len(values) != max_order:
            raise ConfigError(key + ".values", values, f"expected {max_order} values (rules.max_order): coins "
                                                        f"for an order of 1 to {max_order} copies")
        cv["val"][t, :max_order] = values
        for i, step in enumerate(parse_steps(key + ".ability", entry.get("ability"), False)):
            cv["pstep"][t, i] = step
    deck = int(cv["count"].sum())
    if deck > E.MAX_DECK:
        raise ConfigError("produce", deck, f"at most {E.MAX_DECK} produce cards in all")
    need = E.MAX_P * v[E.CFG_STARTING_HAND] + v[E.CFG_MARKET_SIZE]
    if deck < need:
        raise ConfigError("produce", deck, f"the deck must hold at least {E.MAX_P} x rules.starting_hand + "
                                           f"rules.market_size = {need} cards to set up the largest game")

    characters = _table(raw, "characters", E.MAX_C)
    v[E.CFG_NC] = len(characters)
    for c, (name, entry) in enumerate(characters.items()):
        key = f"characters.{name}"
        _only(raw, key, ("standard", "action"))
        std = entry.get("standard")
        if not isinstance(std, bool):
            raise ConfigError(key + ".standard", std, "expected true (always in play) or false (special)")
        cv["cstd"][c] = int(std)
        for i, step in enumerate(parse_steps(key + ".action", entry.get("action"), True)):
            cv["cstep"][c, i] = step
    n_std = int(cv["cstd"].sum())
    n_special = len(characters) - n_std
    # checked for the player count played (a 2-player design may lack specials)
    drawn = players - int(v[E.CFG_SPECIALS_FEWER_THAN_PLAYERS])
    markers = int(v[E.CFG_FIRST_PLAYER_MARKERS] + (players - 1) * v[E.CFG_OTHER_PLAYER_MARKERS])
    if drawn > n_special:
        raise ConfigError("characters", n_special, f"{players} players draw {drawn} special characters "
                                                   "(rules.specials_fewer_than_players); add specials")
    if n_std + max(0, drawn) < markers:
        raise ConfigError("characters", n_std + max(0, drawn),
                          f"{players} players place {markers} markers a round, so at least {markers} characters "
                          "must be in play")

    conditions = _table(raw, "conditions", E.MAX_COND)
    v[E.CFG_NCOND] = len(conditions)
    for i, (name, entry) in enumerate(conditions.items()):
        key = f"conditions.{name}"
        _only(raw, key, ("trigger", "threshold", "scoring", "amount", "at_least"))
        cv["trig"][i] = E.TRIGGER[C.need_choice(raw, key + ".trigger", E.TRIGGER)]
        cv["thr"][i] = C.need_int(raw, key + ".threshold", 0, 10**6)
        cv["score"][i] = E.SCORING[C.need_choice(raw, key + ".scoring", E.SCORING)]
        cv["amt"][i] = C.need_int(raw, key + ".amount", 0, 10**4)
        cv["atleast"][i] = C.need_int(raw, key + ".at_least", 0, 10**4)
    cond = C.lookup(raw, r + "condition")
    if cond == "random":
        v[E.CFG_CONDITION] = -1
    elif cond in conditions:
        v[E.CFG_CONDITION] = list(conditions).index(cond)
    else:
        raise ConfigError(r + "condition", cond, f"allowed: \"random\" or one of {', '.join(conditions)}")

    presets = check_presets("muziris", raw.get("strategies", {}), players)
    return MuzirisConfig(raw, v, tuple(produce), tuple(characters), tuple(conditions), presets)
