import pytest

from sim import config as C
from sim.errors import ConfigError
from mughal_helpers import make_cfg


@pytest.mark.parametrize("sets,key", [
    (("deck.1.count=-1",), "deck.1.count"),
    (("deck.1.suits=\"X\"",), "deck.1.suits"),
    (("deck.1.suits=\"M/M\"",), "deck.1.suits"),
    (("deck.17.level=2",), "deck.17.level"),          # a Disaster with a level
    (("deck.1.age=\"modern\"",), "deck.1.age"),
    (("emperors.1.favoured=[\"navy\"]",), "emperors.1.favoured"),
    (("emperors.3.age=\"early\"", "emperors.2.age=\"middle\""), "emperors.3.age"),
    (("rules.emperor_tie=\"split\"",), "rules.emperor_tie"),
    (("rules.skipped_ages=\"dropped\"",), "rules.skipped_ages"),
    (("rules.hand_size=0",), "rules.hand_size"),
    (("rules.max_players=9",), "rules.max_players"),
    (("rules.zero_total_scores=1",), "rules.zero_total_scores"),
    (("deck.1.count=4",), "deck"),                    # 55 Early cards cannot deal 8 x 7
    (("rules.reshuffle_discard=false",), "deck"),     # 8 players empty the Early deck on turn 1
])
def test_bad_values_name_the_key(sets, key):
    with pytest.raises(ConfigError) as err:
        make_cfg(4, sets)
    assert err.value.key == key
    assert key in str(err.value)


def test_deck_too_small_message_says_why():
    with pytest.raises(ConfigError, match="cannot deal 8 players"):
        make_cfg(4, ("deck.1.count=4",))
    make_cfg(4, ("deck.1.count=4", "rules.max_players=7"))  # fine for a smaller table


def test_players_above_max_players_refused():
    with pytest.raises(ConfigError, match="allows 2 to 6"):
        make_cfg(7, ("rules.max_players=6",))


def test_unknown_keys_refused():
    raw = C.load_defaults("sim.mughal")
    with pytest.raises(ConfigError):
        C.apply_set(raw, "rules.hand_sise=4")
    raw["deck"][0]["colour"] = "red"
    from sim.mughal.config import validate
    with pytest.raises(ConfigError, match="deck.1.colour"):
        validate(raw, 4)


def test_default_deck_is_112_cards_by_age():
    cfg = make_cfg(4)
    counts = {}
    raw = cfg.raw
    for row in raw["deck"]:
        counts[row["age"]] = counts.get(row["age"], 0) + row["count"]
    assert counts == {"early": 56, "middle": 28, "late": 28}
    assert sum(r["count"] for r in raw["deck"] if r["suits"] == "D") == 16
    assert sum(r["count"] for r in raw["deck"] if r["unique"]) == 8
    r = raw["rules"]
    assert (r["destiny_cards"], r["hand_size"], r["majority_vt"], r["majority_tie_vt"], r["all_suits_vt"],
            r["disaster_vt"], r["emperor_tie"], r["final_tie"], r["max_players"]) == \
        (2, 5, 2, 1, 2, -1, "half_floor", "share", 8)


def test_emperor_list_is_configuration():
    cfg = make_cfg(4, ("emperors.1.bonus=9", "emperors.1.favoured=[\"wealth\"]"))
    assert cfg.emperors[0][1:3] == (9, 8)
