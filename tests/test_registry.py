"""The generated dispatcher: a kernel playing heuristics only never compiles (or can call) a search player."""
import importlib

import pytest

from sim.config import build
from sim.errors import ConfigError, UserError
from sim.game import game_names, get_game
from sim.interface import STRATEGY_ARGS
from sim.registry import (HEURISTIC_ONLY, MAX_PARAMS, MODEL_AT, POLICY_AT, SEARCH_WIDTH, WITH_SEARCH,
                          _dispatch_source, check_presets, choices, kernel_mode, observer, param_table, registered,
                          round_robin_names, saved_choice, strategy)
from sim.setup import load_setup

GAMES = game_names()


@pytest.mark.parametrize("game", GAMES)
def test_kernel_mode_follows_the_lineup(game):
    defs = registered(game)
    heuristic = [i for i, d in enumerate(defs) if not d.search]
    search = [i for i, d in enumerate(defs) if d.search]
    assert search, "every game has a search player"
    assert kernel_mode(game, heuristic) == HEURISTIC_ONLY
    assert kernel_mode(game, heuristic[:1] + search[:1]) == WITH_SEARCH


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_dispatch_has_no_search_branch(game):
    defs = registered(game)
    source = _dispatch_source(game, STRATEGY_ARGS)
    heuristic_impl = source.split("def _choose_heuristic(", 1)[1]
    heuristic_fn = source.split("def choose_heuristic(", 1)[1].split("\n\n\n", 1)[0]
    for i, d in enumerate(defs):
        call = f"_s{i}("
        assert (call in heuristic_impl) != d.search, d.name
        assert (call in heuristic_fn) != d.search, d.name


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_dispatch_counts_references_only_where_a_heuristic_needs_it(game):
    """Without reference counting (8 atomic operations a decision saved) exactly when every heuristic is compiled
    without it: a dispatcher without it cannot call a strategy that allocates."""
    lean = all(getattr(importlib.import_module(d.module), d.function).targetoptions.get("_nrt", True) is False
               for d in registered(game) if not d.search)
    source = _dispatch_source(game, STRATEGY_ARGS)
    assert f"'_nrt': {not lean}}})\ndef _choose_heuristic(" in source
    assert f"@njit(cache=True, _nrt={not lean})\ndef choose_heuristic(" in source
    assert "'_nrt': True})\ndef _choose_search(" in source
    assert lean or game != "mughal", "Mughal's heuristics allocate nothing: its dispatcher should skip the counts"


@pytest.mark.parametrize("game", GAMES)
def test_observer_skips_only_strategies_that_read_no_observation(game):
    """The play loop skips `observe` exactly for strategies registered with observes=False (random play);
    the search player and every heuristic still get their observation."""
    defs = registered(game)
    observes = observer(game)
    assert [observes(i) for i in range(len(defs))] == [d.observes for d in defs]
    assert [d.name for d in defs if not d.observes] == ["random"]


@pytest.mark.parametrize("game", GAMES)
def test_a_listing_its_game_does_not_declare_is_refused_at_registration(game):
    """`@strategy(listing=...)` names one of the engine's LISTINGS (how legal actions can be listed); anything else
    is refused when the strategy registers, naming what the game allows, and nothing is registered."""
    with pytest.raises(ValueError, match=r"strategy probe: listing='every other' is not one .* declares in LISTINGS"):
        strategy(game, "probe", listing="every other")(lambda *args: 0)
    assert "probe" not in [d.name for d in registered(game)]


@pytest.mark.parametrize("game", GAMES)
def test_parameters_have_named_index_constants(game):
    """Each strategy's module holds P_<NAME> = the parameter's index in the vector, for every declared name."""
    for d in registered(game):
        module = importlib.import_module(d.module)
        assert [getattr(module, f"P_{name.upper()}") for name in d.params] == list(range(len(d.params)))


@pytest.mark.parametrize("game", GAMES)
def test_rollout_is_named_and_resolved_to_its_id(game):
    spec = get_game(game)
    names = [d.name for d in registered(game)]
    search = next(d for d in registered(game) if d.search)
    preset = (f'strategies.probe={{base="{search.name}", rollout="random"}}',)
    cfg = spec.validate(build(spec.package, None, preset), spec.default_players)
    fast, plain = choices(game, cfg.presets, ["probe", search.name])
    rollout = list(search.params).index("rollout")
    assert fast.params[rollout] == names.index("random")
    assert plain.params[rollout] == names.index(search.params["rollout"])  # the declared default, by name
    for bad in (names.index("random"), -1, "no-such-strategy", search.name):
        with pytest.raises(ConfigError) as refused:
            check_presets(game, {"mine": {"base": search.name, "rollout": bad}}, 2)
        assert "strategies.mine.rollout" in str(refused.value) and "random" in str(refused.value)


@pytest.mark.parametrize("game", GAMES)
def test_any_preset_of_a_heuristic_is_a_rollout_policy_or_an_opponent_model(game):
    """`rollout = "tuned"`, `opponent_model = "<another preset>"`: the search player's vector carries each policy's
    base id and its preset's parameters (not the base's defaults) at POLICY_AT and MODEL_AT; the default
    opponent model is the rollout policy; a saved vector reads back; a search preset or unknown name is refused in
    one line listing the allowed names (presets included)."""
    spec = get_game(game)
    names = [d.name for d in registered(game)]
    search = next(d for d in registered(game) if d.search)
    raw = build(spec.package, None, ('strategies.fixed={base="greedy"}',
                                     f'strategies.probe={{base="{search.name}", rollout="tuned", opponent_model="fixed"}}',
                                     f'strategies.same={{base="{search.name}", rollout="tuned"}}'))
    cfg = spec.validate(raw, spec.default_players)
    tuned, probe, same = choices(game, cfg.presets, ["tuned", "probe", "same"])
    order = list(search.params)
    assert len(probe.params) == SEARCH_WIDTH
    assert probe.params[order.index("rollout")] == names.index("weighted") == tuned.base_id
    assert probe.params[order.index("opponent_model")] == names.index("greedy")
    assert probe.params[POLICY_AT: POLICY_AT + len(tuned.params)] == tuned.params  # tuned's weights, not defaults
    greedy = choices(game, cfg.presets, ["greedy"])[0]
    assert probe.params[MODEL_AT: MODEL_AT + len(greedy.params)] == greedy.params
    assert same.params[order.index("opponent_model")] == same.params[order.index("rollout")]
    assert same.params[MODEL_AT:] == same.params[POLICY_AT: MODEL_AT]
    table = param_table([greedy, probe])
    assert table.shape == (2, SEARCH_WIDTH) and table[0, MAX_PARAMS:].sum() == 0
    assert param_table([greedy]).shape == (1, MAX_PARAMS)  # heuristic play stays narrow
    back = saved_choice(game, {"name": "probe", "base": search.name, "params": list(probe.params)}, "meta")
    assert back == probe
    planted = list(probe.params)
    planted[order.index("opponent_model")] = names.index(search.name)
    with pytest.raises(UserError, match="opponent_model"):
        saved_choice(game, {"name": "probe", "base": search.name, "params": planted}, "meta")
    for key in ("rollout", "opponent_model"):
        for bad in ("expert", "no-such", 3):
            with pytest.raises(ConfigError) as refused:
                check_presets(game, {**raw["strategies"], "mine": {"base": search.name, key: bad}}, 2)
            said = str(refused.value)
            assert f"strategies.mine.{key}" in said and "tuned" in said and "fixed" in said and "\n" not in said


@pytest.mark.parametrize("game", GAMES)
def test_a_search_player_saved_before_policy_vectors_reads_back_as_the_same_player(game):
    """meta.json of an older run (no opponent_model, no policy vectors): read as the rollout policy at its defaults
    for every seat, which is what it played."""
    search = next(d for d in registered(game) if d.search)
    names = [d.name for d in registered(game)]
    now = choices(game, {}, [search.name])[0]
    old = [v for i, v in enumerate(now.params[: len(search.params)]) if list(search.params)[i] != "opponent_model"]
    back = saved_choice(game, {"name": search.name, "base": search.name, "params": old}, "meta")
    assert back.params == now.params and back.params[list(search.params).index("rollout")] == names.index("greedy")
    older = old[:-2]  # as such files were written: before opponent_alt and alt_share too
    assert saved_choice(game, {"name": search.name, "base": search.name, "params": older}, "meta").params == now.params


@pytest.mark.parametrize("game", GAMES)
def test_a_preset_may_hold_values_for_some_player_counts(game):
    """`[strategies.<name>.players.<n>]`: values played only with n players, over the preset's own; checked like
    the preset's (known parameters, within bounds), with the key named in the error."""
    spec = get_game(game)
    search = next(d for d in registered(game) if d.search)
    n = spec.default_players
    other = next((c for c in range(2, 9) if c != n and spec_allows(spec, c)), None)
    preset = (f'strategies.probe={{base="{search.name}", iterations=50, players={{"{n}"={{iterations=70}}}}}}',)
    cfg = spec.validate(build(spec.package, None, preset), n)
    at = list(search.params).index("iterations")
    assert choices(game, cfg.presets, ["probe"])[0].params[at] == 70
    assert "players" not in cfg.presets["probe"]
    if other is not None:
        cfg = spec.validate(build(spec.package, None, preset), other)
        assert choices(game, cfg.presets, ["probe"])[0].params[at] == 50
    for bad, key in (({"2": {"no_such": 1}}, "strategies.mine.players.2.no_such"),
                     ({"2": {"iterations": -5}}, "strategies.mine.players.2.iterations"),
                     ({"two": {"iterations": 5}}, "strategies.mine.players.two"),
                     ({"2": 400}, "strategies.mine.players"),
                     ({"2": {"base": "greedy"}}, "strategies.mine.players.2.base")):
        with pytest.raises(ConfigError) as refused:
            check_presets(game, {"mine": {"base": search.name, "players": bad}}, 2)
        assert key in str(refused.value)


@pytest.mark.parametrize("game", GAMES)
def test_a_preset_with_round_robin_plays_in_all(game):
    """`round_robin = true` puts a preset in `-s all` (after the registered heuristics), whatever its base's own
    flag; false, or no flag, leaves it to be named. Only a bool is accepted, and never on a search player's
    preset. The flag is no parameter: the preset's vector is the same with or without it."""
    base = next(d for d in registered(game) if not d.search and not d.round_robin)  # `weighted` in every game
    heuristics = [d.name for d in registered(game) if not d.search and d.round_robin]
    presets = check_presets(game, {"in": {"base": base.name, "round_robin": True},
                                   "out": {"base": base.name, "round_robin": False},
                                   "named": {"base": base.name}}, 2)
    assert round_robin_names(game, presets) == heuristics + ["in"]
    assert choices(game, presets, ["in"])[0].params == choices(game, presets, ["named"])[0].params
    probe = f"strategies.probe={{base=\"{base.name}\", round_robin=true}}"
    _, _, cfg, chosen, everyone = load_setup(game, None, (probe,), None, "all")
    assert everyone and [c.name for c in chosen] == round_robin_names(game, cfg.presets)
    assert "probe" in [c.name for c in chosen] and base.name not in [c.name for c in chosen]
    assert not any(registered(game)[c.base_id].search for c in chosen)
    search = next(d for d in registered(game) if d.search)
    for bad in ("yes", 1, 0.0, [True]):
        with pytest.raises(ConfigError) as refused:
            check_presets(game, {"mine": {"base": base.name, "round_robin": bad}}, 2)
        assert "strategies.mine.round_robin" in str(refused.value) and "true" in str(refused.value)
    with pytest.raises(ConfigError) as refused:
        check_presets(game, {"mine": {"base": search.name, "round_robin": True}}, 2)
    assert "search player" in str(refused.value)


def spec_allows(spec, players: int) -> bool:
    try:
        spec.check_players(players)
        return True
    except UserError:
        return False


@pytest.mark.parametrize("game", GAMES)
def test_the_alternative_opponent_model_is_a_heuristic_id_and_its_share_a_probability(game):
    """`opponent_alt = "<heuristic>"` is stored as its id, "none" as -1 (the default: no alternative); a preset, a
    search player or an unknown name, or an alt_share outside 0-1, is refused in one line naming the key; vectors
    saved before the two parameters existed (trailing zeros, or no opponent_model at all) read as no alternative."""
    spec = get_game(game)
    names = [d.name for d in registered(game)]
    search = next(d for d in registered(game) if d.search)
    heuristic = next(d.name for d in registered(game) if not d.search)
    raw = build(spec.package, None, (f'strategies.mix={{base="{search.name}", opponent_alt="{heuristic}", '
                                     f'alt_share=0.25}}',))
    cfg = spec.validate(raw, spec.default_players)
    mix, plain = choices(game, cfg.presets, ["mix", search.name])
    order = list(search.params)
    at = order.index("opponent_alt")
    assert order[at + 1] == "alt_share" and at + 2 == len(order)  # last: vectors saved before read the same
    assert mix.params[at] == names.index(heuristic) and mix.params[at + 1] == 0.25
    assert plain.params[at] == -1.0 and plain.params[at + 1] == 0.0
    assert saved_choice(game, {"name": "mix", "base": search.name, "params": list(mix.params)}, "meta") == mix
    before = list(plain.params)
    before[at] = 0.0  # a vector of the previous layout: padding zeros where the two parameters now sit
    assert saved_choice(game, {"name": "x", "base": search.name, "params": before}, "meta").params[at + 1] == 0.0
    planted = list(mix.params)
    planted[at] = names.index(search.name)
    with pytest.raises(UserError, match="opponent_alt"):
        saved_choice(game, {"name": "mix", "base": search.name, "params": planted}, "meta")
    for key, bad in (("opponent_alt", "tuned"), ("opponent_alt", search.name), ("opponent_alt", "no-such"),
                     ("opponent_alt", 2), ("alt_share", 1.5), ("alt_share", -0.1)):
        with pytest.raises(ConfigError) as refused:
            check_presets(game, {**raw["strategies"], "mine": {"base": search.name, key: bad}}, 2)
        said = str(refused.value)
        assert f"strategies.mine.{key}" in said and "\n" not in said
