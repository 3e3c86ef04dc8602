"""Configuration: every kind of bad input is a ConfigError naming the key (one line), good input validates."""
import pytest

from mohur_helpers import E, make_cfg, play_batch
from sim.config import apply_set, build, load_defaults
from sim.errors import ConfigError, UserError
from sim.mohur.config import validate


def config_error(*sets, config_file=None):
    with pytest.raises(ConfigError) as info:
        validate(build("sim.mohur", config_file, tuple(sets)))
    err = info.value
    assert "\n" not in str(err), "a config error is one line"
    return err


def test_defaults_validate_to_rulebook_numbers():
    v = make_cfg().vector
    assert list(v[E.CFG_CARDS:E.CFG_CARDS + 7]) == [6, 6, 6, 8, 8, 10, 11]
    assert sum(v[E.CFG_CARDS:E.CFG_CARDS + 7]) == 55
    assert sum(v[E.CFG_NTOK:E.CFG_NTOK + 6]) == 38
    assert list(v[E.CFG_MIN_SALE:E.CFG_MIN_SALE + 6]) == [2, 2, 2, 1, 1, 1]
    assert list(v[E.CFG_NBONUS:E.CFG_NBONUS + 3]) == [7, 6, 5]
    assert (v[E.CFG_HAND_LIMIT], v[E.CFG_MARKET_SIZE], v[E.CFG_HAND_SIZE], v[E.CFG_MARKET_COINS],
            v[E.CFG_COIN_TOKEN], v[E.CFG_SEALS], v[E.CFG_STACKS_END], v[E.CFG_MIN_EXCHANGE]) == (7, 5, 5, 3, 5, 2,
                                                                                                 3, 2)
    assert v[E.CFG_FIRST_STARTER] == -1 and v[E.CFG_DRAWN_OTHER] == 1
    assert v[E.CFG_TURN_CAP] == 1000 and v[E.CFG_STALL] == 2
    for g in range(6):
        stack = list(v[E.CFG_TOK + g * E.MAX_TOK: E.CFG_TOK + g * E.MAX_TOK + v[E.CFG_NTOK + g]])
        assert stack == sorted(stack, reverse=True)


@pytest.mark.parametrize("assignment,key,hint", [
    ("tokens.diamond=[5,7]", "tokens.diamond", "[7, 5]"),           # unsorted stack: refused, not sorted
    ("tokens.leather=[4,3,5]", "tokens.leather", "highest to lowest"),
    ("tokens.cloth=[3,-1]", "tokens.cloth", ">= 0"),
    ("tokens.cloth=5", "tokens.cloth", "list"),
    ('tokens.cloth=[5,"x"]', "tokens.cloth", "list"),
    ("tokens.cloth=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", "tokens.cloth", "at most"),
    ("cards.gold=-1", "cards.gold", "0 to"),
    ("cards.coin=-3", "cards.coin", "0 to"),
    ("bonus.3=[2,-1]", "bonus.3", ">= 0"),
    ("rules.hand_limit=-1", "rules.hand_limit", "1 to 30"),
    ("rules.hand_limit=0", "rules.hand_limit", "1 to 30"),
    ('rules.hand_limit="7"', "rules.hand_limit", "whole number"),
    ("rules.hand_limit=7.5", "rules.hand_limit", "whole number"),
    ("rules.hand_limit=true", "rules.hand_limit", "whole number"),
    ("cards.diamond=[6]", "cards.diamond", "whole number"),
    ("min_sale.diamond=0", "min_sale.diamond", "1 to"),
    ("rules.min_exchange=1", "rules.min_exchange", "2 to"),   # one-for-one exchanges must stay impossible
    ("rules.seals_to_win=0", "rules.seals_to_win", "1 to"),
    ("rules.turn_cap=0", "rules.turn_cap", "1 to"),
    ("rules.stall_passes=0", "rules.stall_passes", "1 to"),
    ("rules.empty_stacks_to_end=7", "rules.empty_stacks_to_end", "1 to 6"),
    ("rules.market_size=0", "rules.market_size", "1 to"),
    ("rules.market_coins=6", "rules.market_coins", "market_size"),
    ('rules.first_starter="north"', "rules.first_starter", "random, seat0, seat1"),
    ("rules.first_starter=seat2", "rules.first_starter", "random, seat0, seat1"),
    ('rules.drawn_round_starter="loser"', "rules.drawn_round_starter", "other, same"),
    ("rules.drawn_round_starter=1", "rules.drawn_round_starter", "other, same"),
    ("cards.coin=2", "rules.market_coins", "cards.coin"),  # more coins in the market than in the deck
])
def test_bad_value_names_the_key(assignment, key, hint):
    err = config_error(assignment)
    assert err.key == key
    assert key in str(err) and hint in str(err)


UNKNOWN_KEYS = {"rules.hand_limt=3": ("rules.hand_limt", "hand_limit"), "nosuch=1": ("nosuch", "rules"),
                "cards.gems=3": ("cards.gems", "diamond"), "tokens.golld=[6,5]": ("tokens.golld", "gold"),
                "bonus.6=[1]": ("bonus.6", "3, 4, 5"), "rule.hand_limit=3": ("rule", "rules"),
                "rules.seal_to_win=3": ("rules.seal_to_win", "did you mean 'seals_to_win'")}  # the key named, a hint


@pytest.mark.parametrize("assignment", UNKNOWN_KEYS)
def test_unknown_key_with_suggestion(assignment):
    key, suggestion = UNKNOWN_KEYS[assignment]
    err = config_error(assignment)
    assert err.key == key
    assert "unknown key" in str(err) and suggestion in str(err)


def test_deck_too_small():
    sets = [f"cards.{g}=1" for g in ("diamond", "gold", "silver", "cloth", "spice", "leather")] + ["cards.coin=3"]
    err = config_error(*sets)  # 9 cards < 2 x 5 + 5
    assert err.key == "cards" and "15" in str(err)
    make_cfg(*sets[:-1], "cards.coin=9")  # exactly 15 is enough


def test_preset_without_base(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text('[strategies.mine]\nmin_set = 3\n')
    err = config_error(config_file=str(f))
    assert err.key == "strategies.mine" and "base" in str(err)


def test_preset_from_config_file(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text('[strategies.mine]\nbase = "setbuilder"\nmin_set = 6\n')
    cfg = validate(build("sim.mohur", str(f)))
    assert cfg.presets["mine"] == {"base": "setbuilder", "min_set": 6}


def test_new_preset_can_be_defined_with_set():
    """(Broken when this suite was written: sim/config.py apply_set created the new table under [strategies],
    then refused its first key as 'unknown key; valid keys here: ' with an empty list.)"""
    cfg = validate(build("sim.mohur", None, ('strategies.mine.base="setbuilder"', "strategies.mine.min_set=6")))
    assert cfg.presets["mine"] == {"base": "setbuilder", "min_set": 6}


def test_config_file_unknown_key_and_bad_value(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("[rules]\nhand_limitt = 8\n")
    err = config_error(config_file=str(f))
    assert err.key == "rules.hand_limitt" and "hand_limit" in str(err)
    f.write_text("[tokens]\nsilver = [5, 6]\n")
    assert config_error(config_file=str(f)).key == "tokens.silver"


def test_missing_or_broken_config_file(tmp_path):
    with pytest.raises(UserError, match="missing.toml"):
        build("sim.mohur", str(tmp_path / "missing.toml"))
    f = tmp_path / "broken.toml"
    f.write_text("[rules\nhand_limit = ")
    with pytest.raises(UserError, match="broken.toml"):
        build("sim.mohur", str(f))


def test_set_without_equals_sign():
    with pytest.raises(UserError, match="KEY=VALUE"):
        apply_set(load_defaults("sim.mohur"), "rules.hand_limit")


def test_overrides_reach_the_vector():
    v = make_cfg("tokens.diamond=[9,8]", "rules.hand_limit=9", "rules.first_starter=seat1",
                 'rules.drawn_round_starter="same"', "bonus.3=[4]", "tokens.leather.1=6").vector
    assert v[E.CFG_NTOK] == 2 and list(v[E.CFG_TOK:E.CFG_TOK + 2]) == [9, 8]
    assert v[E.CFG_HAND_LIMIT] == 9 and v[E.CFG_FIRST_STARTER] == 1 and v[E.CFG_DRAWN_OTHER] == 0
    assert v[E.CFG_NBONUS] == 1 and v[E.CFG_BONUS] == 4 and v[E.CFG_PILE_MEAN] == 400
    assert v[E.CFG_TOK + 5 * E.MAX_TOK] == 6


def test_defaults_file_is_valid_toml_with_every_rule_key():
    raw = load_defaults("sim.mohur")
    assert {"cards", "tokens", "min_sale", "bonus", "rules"} <= set(raw)
    assert {"hand_limit", "market_size", "hand_size", "market_coins", "coin_token", "seals_to_win",
            "empty_stacks_to_end", "min_exchange", "first_starter", "drawn_round_starter", "turn_cap",
            "stall_passes"} <= set(raw["rules"])


def test_hand_size_over_hand_limit_is_refused_or_plays():
    """A configuration that validates must play under --debug. (Broken when this suite was written:
    `--set rules.hand_size=9` validated, the deal gave a trader up to 9 goods, and `run --debug` died with
    'invariant: hand over the limit'.) Either fix is accepted: a ConfigError naming the key, or a clean run."""
    try:
        cfg = make_cfg("rules.hand_size=9")
    except ConfigError as err:
        assert "rules.hand_size" in str(err) or "rules.hand_limit" in str(err)
        return
    play_batch(cfg, ["greedy", "random"], 20, 1, debug=True)
