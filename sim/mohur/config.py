"""Validate Mohur's configuration and pack it into the kernels' int64 vector."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim import config as C
from sim.errors import ConfigError
from sim.registry import check_presets
from sim.mohur import engine as E
from sim.mohur.engine import GOODS, KINDS, PILES  # noqa: F401 - declared once in the engine, re-exported
MAX_RUPEES = 100  # per token: keeps every rupee total of a round within the results' 16-bit columns


@dataclass(frozen=True)
class MohurConfig:
    raw: dict
    vector: np.ndarray   # int64[CFG_SIZE]
    presets: dict
    warnings: tuple = ()  # legal but degenerate settings, one line each (the CLI prints them)


# the integer rules: key -> (cfg offset, lowest, highest)
INT_RULES = {
    "hand_limit": (E.CFG_HAND_LIMIT, 1, 30), "market_size": (E.CFG_MARKET_SIZE, 1, 7),
    "hand_size": (E.CFG_HAND_SIZE, 0, 30), "market_coins": (E.CFG_MARKET_COINS, 0, 7),
    "coin_token": (E.CFG_COIN_TOKEN, 0, 1000),  # 16 x 6 x 100 + 48 x 100 + 1000 < 2**15
    "seals_to_win": (E.CFG_SEALS, 1, 20), "empty_stacks_to_end": (E.CFG_STACKS_END, 1, len(GOODS)),
    "min_exchange": (E.CFG_MIN_EXCHANGE, 2, 7), "turn_cap": (E.CFG_TURN_CAP, 1, 100_000),
    "stall_passes": (E.CFG_STALL, 1, 100),
    "round_cap": (E.CFG_ROUND_CAP, 1, E.MAX_ROUNDS),  # the state's history
}


def validate(raw: dict, players: int = 2) -> MohurConfig:
    v = np.zeros(E.CFG_SIZE, dtype=np.int64)
    for table in ("cards", "tokens", "min_sale"):
        extra = set(raw[table]) - set(KINDS if table == "cards" else GOODS)
        if extra:
            key = sorted(extra)[0]
            raise ConfigError(f"{table}.{key}", raw[table][key],
                              f"unknown kind; allowed: {', '.join(KINDS if table == 'cards' else GOODS)}")
    for k, kind in enumerate(KINDS):
        v[E.CFG_CARDS + k] = C.need_int(raw, f"cards.{kind}", 0, 200)
    for g, good in enumerate(GOODS):
        stack = C.need_int_list(raw, f"tokens.{good}", 0, E.MAX_TOK, descending=True, hi=MAX_RUPEES)
        v[E.CFG_NTOK + g] = len(stack)
        v[E.CFG_TOK + g * E.MAX_TOK: E.CFG_TOK + g * E.MAX_TOK + len(stack)] = stack
        v[E.CFG_MIN_SALE + g] = C.need_int(raw, f"min_sale.{good}", 1, 50)
    extra = set(raw["bonus"]) - set(PILES)
    if extra:
        raise ConfigError(f"bonus.{sorted(extra)[0]}", None, "unknown pile; allowed: \"3\", \"4\", \"5\"")
    for b, pile in enumerate(PILES):
        values = C.need_int_list(raw, f"bonus.{pile}", 0, E.MAX_BONUS, hi=MAX_RUPEES)
        v[E.CFG_NBONUS + b] = len(values)
        v[E.CFG_BONUS + b * E.MAX_BONUS: E.CFG_BONUS + b * E.MAX_BONUS + len(values)] = values
        v[E.CFG_PILE_MEAN + b] = (100 * sum(values)) // len(values) if values else 0
    for key, (at, lo, hi) in INT_RULES.items():
        v[at] = C.need_int(raw, "rules." + key, lo, hi)
    first = C.need_choice(raw, "rules.first_starter", ("random", "seat0", "seat1"))
    v[E.CFG_FIRST_STARTER] = {"random": -1, "seat0": 0, "seat1": 1}[first]
    v[E.CFG_DRAWN_OTHER] = C.need_choice(raw, "rules.drawn_round_starter", ("other", "same")) == "other"
    extra = set(raw["rules"]) - set(INT_RULES) - {"first_starter", "drawn_round_starter"}
    if extra:
        raise ConfigError(f"rules.{sorted(extra)[0]}", None, "unknown key")

    if v[E.CFG_MARKET_COINS] > v[E.CFG_MARKET_SIZE]:
        raise ConfigError("rules.market_coins", int(v[E.CFG_MARKET_COINS]),
                          f"cannot exceed rules.market_size ({v[E.CFG_MARKET_SIZE]})")
    if v[E.CFG_MARKET_COINS] > v[E.CFG_CARDS + E.COIN]:
        raise ConfigError("rules.market_coins", int(v[E.CFG_MARKET_COINS]),
                          f"cannot exceed cards.coin ({v[E.CFG_CARDS + E.COIN]})")
    if v[E.CFG_HAND_SIZE] > v[E.CFG_HAND_LIMIT]:
        raise ConfigError("rules.hand_size", int(v[E.CFG_HAND_SIZE]),
                          f"cannot exceed rules.hand_limit ({v[E.CFG_HAND_LIMIT]}): a dealt hand of goods "
                          "would already break the limit")
    deck = int(v[E.CFG_CARDS: E.CFG_CARDS + E.NK].sum())
    need = 2 * v[E.CFG_HAND_SIZE] + v[E.CFG_MARKET_SIZE]
    if deck < need:
        raise ConfigError("cards", deck, f"the deck must hold at least 2 x rules.hand_size + rules.market_size "
                                         f"= {need} cards to deal a round")
    if deck > E.MAX_DECK:
        raise ConfigError("cards", deck, f"at most {E.MAX_DECK} cards in all")
    C.need_number(raw, "report.seconds_per_turn", 0.1, 600)
    presets = check_presets("mohur", raw.get("strategies", {}), players)
    return MohurConfig(raw, v, presets, _degenerate(v, deck, need))


def _degenerate(v, deck: int, need: int) -> tuple:
    """Settings that play but whose results say little: warned about, not refused (a designer may mean them)."""
    out = []
    empty = [g for k, g in enumerate(GOODS) if v[E.CFG_NTOK + k] == 0]
    if len(empty) >= v[E.CFG_STACKS_END]:
        out.append(f"tokens: {len(empty)} goods start with no tokens ({', '.join(empty)}) and "
                   f"rules.empty_stacks_to_end = {v[E.CFG_STACKS_END]}: every round ends after its first turn, "
                   "so the first player wins almost every round")
    if deck == need:
        out.append(f"cards: the deck holds exactly the deal ({deck} cards = 2 x rules.hand_size + "
                   "rules.market_size): no card is left to draw, so rounds end as soon as the market needs one")
    return tuple(out)
