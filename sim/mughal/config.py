"""Validate Mughal's configuration and pack it into the kernels' int64 vector (sim.mughal.engine CONFIG)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim import config as C
from sim.errors import ConfigError
from sim.registry import check_presets
from sim.mughal import engine as E

from sim.mughal.engine import AGES, SUITS  # noqa: F401 - re-exported: declared once, in the engine

SUIT_LETTERS = "MBCW"
RULE_KEYS = ("max_players", "destiny_cards", "hand_size", "pass_direction", "majority_vt", "majority_tie_vt",
             "zero_total_scores", "all_suits_vt", "disaster_vt", "emperor_tie", "emperor_zero_wins", "final_tie",
             "reshuffle_discard", "skipped_ages")
ROW_KEYS = ("count", "suits", "level", "age", "unique")
EMPEROR_KEYS = ("name", "bonus", "favoured", "age")


@dataclass(frozen=True)
class MughalConfig:
    raw: dict
    vector: np.ndarray   # int64[CFG_SIZE]
    presets: dict
    kinds: tuple         # per deck row: (label, suit mask, level, age index, unique)
    emperors: tuple      # per turn: (name, bonus, favoured mask, age index)

    @property
    def n_turns(self) -> int:
        return len(self.emperors)


def _bool(raw, key):
    value = C.lookup(raw, key)
    if not isinstance(value, bool):
        raise ConfigError(key, value, "expected true or false")
    return value


def _suit_mask(key, text):
    if not isinstance(text, str) or not text:
        raise ConfigError(key, text, 'expected "M", "B", "C", "W", two suits like "M/B", or "D" (Disaster)')
    if text.upper() == "D":
        return 0
    parts = text.upper().split("/")
    if any(len(part) != 1 or part not in SUIT_LETTERS for part in parts):
        raise ConfigError(key, text, 'expected suit letters M, B, C, W separated by "/" (e.g. "M/B"), '
                                     'or "D" for a Disaster')
    if len(set(parts)) != len(parts):
        raise ConfigError(key, text, "a suit is listed twice")
    return sum(1 << SUIT_LETTERS.index(part) for part in set(parts))


def _table_rows(raw, key, fields):
    rows = raw.get(key)
    if not isinstance(rows, list) or not rows:
        raise ConfigError(key, rows, "expected a non-empty list of tables")
    for i, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise ConfigError(f"{key}.{i}", row, f"expected a table with keys {', '.join(fields)}")
        for f in fields:
            if f not in row:
                raise ConfigError(f"{key}.{i}.{f}", None, "missing key")
        extra = sorted(set(row) - set(fields))
        if extra:
            raise ConfigError(f"{key}.{i}.{extra[0]}", row[extra[0]], f"unknown key; allowed: {', '.join(fields)}")
    return rows


def _deck(raw):
    rows = _table_rows(raw, "deck", ROW_KEYS)
    kinds = []
    for i, row in enumerate(rows, 1):
        k = f"deck.{i}."
        count = row["count"]
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ConfigError(k + "count", count, "expected a whole number >= 0")
        mask = _suit_mask(k + "suits", row["suits"])
        level = row["level"]
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 1000:
            raise ConfigError(k + "level", level, "expected a whole number from 0 to 1000")
        if mask == 0 and level != 0:
            raise ConfigError(k + "level", level, "a Disaster has no level: use 0")
        if row["age"] not in AGES:
            raise ConfigError(k + "age", row["age"], f"allowed: {', '.join(AGES)}")
        if not isinstance(row["unique"], bool):
            raise ConfigError(k + "unique", row["unique"], "expected true or false")
        label = ("D" if mask == 0 else f"{row['suits'].upper()}{level}") + \
            f" {row['age']}" + (" unique" if row["unique"] else "")
        kinds.append((label, mask, level, AGES.index(row["age"]), bool(row["unique"]), count))
    total = sum(k[5] for k in kinds)
    if total > E.MAX_CARDS:
        raise ConfigError("deck", total, f"at most {E.MAX_CARDS} cards in all")
    return kinds


def _emperors(raw):
    rows = _table_rows(raw, "emperors", EMPEROR_KEYS)
    if len(rows) > E.MAX_TURNS:
        raise ConfigError("emperors", len(rows), f"at most {E.MAX_TURNS} emperors (turns)")
    out = []
    last_age = 0
    for i, row in enumerate(rows, 1):
        k = f"emperors.{i}."
        if not isinstance(row["name"], str):
            raise ConfigError(k + "name", row["name"], "expected a string")
        bonus = row["bonus"]
        if isinstance(bonus, bool) or not isinstance(bonus, int) or not 0 <= bonus <= 1000:
            raise ConfigError(k + "bonus", bonus, "expected a whole number from 0 to 1000")
        fav = row["favoured"]
        if isinstance(fav, str):
            fav = [fav]
        if not isinstance(fav, list) or not fav:
            raise ConfigError(k + "favoured", row["favoured"], f"a list of suits from {', '.join(SUITS)}, or [\"any\"]")
        mask = 0
        for name in fav:
            if name == "any":
                mask |= 15
            elif name in SUITS:
                mask |= 1 << SUITS.index(name)
            else:
                raise ConfigError(k + "favoured", row["favoured"], f"allowed suits: {', '.join(SUITS)}, any")
        if row["age"] not in AGES:
            raise ConfigError(k + "age", row["age"], f"allowed: {', '.join(AGES)}")
        age = AGES.index(row["age"])
        if age < last_age:
            raise ConfigError(k + "age", row["age"], "ages cannot go backwards along the emperor track")
        last_age = age
        out.append((row["name"], bonus, mask, age))
    return out


def validate(raw: dict, players: int = 4) -> MughalConfig:
    extra = sorted(set(raw) - {"rules", "emperors", "deck", "strategies", "report"})
    if extra:
        raise ConfigError(extra[0], raw[extra[0]], "unknown key; allowed: rules, emperors, deck, strategies, report")
    if "report" in raw:
        C.need_number(raw, "report.seconds_per_pick", 0.1, 600)
    extra = sorted(set(raw["rules"]) - set(RULE_KEYS))
    if extra:
        raise ConfigError(f"rules.{extra[0]}", raw["rules"][extra[0]], f"unknown key; allowed: {', '.join(RULE_KEYS)}")
    v = np.zeros(E.CFG_SIZE, dtype=np.int64)
    r = "rules."
    max_players = C.need_int(raw, r + "max_players", 2, E.MAX_PLAYERS)
    if not 2 <= players <= max_players:
        raise ConfigError(r + "max_players", max_players, f"this configuration allows 2 to {max_players} players; "
                                                          f"got --players {players}")
    v[E.CFG_MAX_PLAYERS] = max_players
    v[E.CFG_DESTINY] = C.need_int(raw, r + "destiny_cards", 0, E.MAX_DESTINY)
    v[E.CFG_HAND] = C.need_int(raw, r + "hand_size", 1, E.MAX_HAND)
    v[E.CFG_PASS_MODE] = E.PASS_MODE[C.need_choice(raw, r + "pass_direction", tuple(E.PASS_MODE))]
    v[E.CFG_MAJ_VT] = C.need_int(raw, r + "majority_vt", -1000, 1000)
    v[E.CFG_MAJ_TIE_VT] = C.need_int(raw, r + "majority_tie_vt", -1000, 1000)
    v[E.CFG_ZERO_SCORES] = _bool(raw, r + "zero_total_scores")
    v[E.CFG_ALL_VT] = C.need_int(raw, r + "all_suits_vt", -1000, 1000)
    v[E.CFG_DIS_VT] = C.need_int(raw, r + "disaster_vt", -1000, 1000)
    v[E.CFG_EMP_TIE] = E.EMP_TIE[C.need_choice(raw, r + "emperor_tie", tuple(E.EMP_TIE))]
    v[E.CFG_EMP_ZERO] = _bool(raw, r + "emperor_zero_wins")
    v[E.CFG_FINAL_TIE] = E.FINAL_TIE[C.need_choice(raw, r + "final_tie", tuple(E.FINAL_TIE))]
    v[E.CFG_RESHUFFLE] = _bool(raw, r + "reshuffle_discard")
    v[E.CFG_SKIPPED_AGES] = E.SKIPPED_AGES[C.need_choice(raw, r + "skipped_ages", tuple(E.SKIPPED_AGES))]

    emperors = _emperors(raw)
    v[E.CFG_NTURNS] = len(emperors)
    for at, column in zip((E.CFG_EMP_BONUS, E.CFG_EMP_MASK, E.CFG_EMP_AGE), list(zip(*emperors))[1:]):
        v[at: at + len(emperors)] = column
    kinds = _deck(raw)
    # one entry per card: (suit mask, level, age, unique, kind index), each field a column of the vector
    cards = [(*k[1:5], kind) for kind, k in enumerate(kinds) for _ in range(k[5])]
    for at, column in zip((E.CFG_CARD_MASK, E.CFG_CARD_LEVEL, E.CFG_CARD_AGE, E.CFG_CARD_UNIQUE, E.CFG_CARD_KIND),
                          zip(*cards)):
        v[at: at + len(cards)] = column
    v[E.CFG_NCARDS] = len(cards)
    v[E.CFG_NKINDS] = len(kinds)
    _check_deck(kinds, emperors, max_players, int(v[E.CFG_DESTINY] + v[E.CFG_HAND]), bool(v[E.CFG_RESHUFFLE]),
                bool(v[E.CFG_SKIPPED_AGES]))

    presets = check_presets("mughal", raw.get("strategies", {}), players)
    return MughalConfig(raw, v, presets, tuple(k[:5] for k in kinds), tuple(emperors))


def _check_deck(kinds, emperors, players, per_seat, reshuffle, skipped_in):
    """Refuse a deck that could fail to deal `players` seats (rules.max_players) on some turn. Worst case:
    every unique card that could have been played already left the game. Ages in play as engine.age_in_play."""
    need = players * per_seat
    opened = -1
    ages = set()      # ages whose cards are in the game
    removed = 0       # most unique cards that can have left the game so far
    deck = 0          # no reshuffle: fewest cards the deck can hold
    discard = 0       # no reshuffle: fewest cards the discard can hold
    for t, (name, _, _, age) in enumerate(emperors, 1):
        if age > opened:
            new = {a for a in range(opened + 1, age + 1) if a == 0 or a == age or skipped_in}
            deck += sum(k[5] for k in kinds if k[3] in new) + discard
            discard = 0
            opened = age
            ages |= new
        in_play = sum(k[5] for k in kinds if k[3] in ages)
        uniques = sum(k[5] for k in kinds if k[4] and k[3] in ages)
        left = in_play - removed if reshuffle else deck
        if left < need:
            hint = "" if reshuffle else " without reshuffling the discard (rules.reshuffle_discard = false)"
            raise ConfigError("deck", sum(k[5] for k in kinds),
                              f"cannot deal {players} players (rules.max_players) x {per_seat} cards "
                              f"(destiny_cards + hand_size) = {need} on turn {t} ({name}): at worst only "
                              f"{left} cards are available{hint}; add cards or lower rules.max_players")
        deck -= need
        discard += need - min(need, uniques)
        removed = min(uniques, removed + need)
