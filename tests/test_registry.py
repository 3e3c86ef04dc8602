"""The generated dispatcher: a kernel playing heuristics only never compiles (or can call) a search player."""
import pytest

from sim.registry import HEURISTIC_ONLY, WITH_SEARCH, _dispatch_source, kernel_mode, registered

ARGS = ("obs", "actions", "n_actions", "params", "cfg")


@pytest.mark.parametrize("game", ["mohur", "mughal", "muziris"])
def test_kernel_mode_follows_the_lineup(game):
    defs = registered(game)
    heuristic = [i for i, d in enumerate(defs) if not d.search]
    search = [i for i, d in enumerate(defs) if d.search]
    assert search, "every game has a search player"
    assert kernel_mode(game, heuristic) == HEURISTIC_ONLY
    assert kernel_mode(game, heuristic[:1] + search[:1]) == WITH_SEARCH


@pytest.mark.parametrize("game", ["mohur", "mughal", "muziris"])
def test_heuristic_dispatch_has_no_search_branch(game):
    defs = registered(game)
    source = _dispatch_source(game, ARGS)
    heuristic_impl = source.split("    else:\n", 1)[1]
    heuristic_fn = source.split("def choose_heuristic(", 1)[1].split("\n\n\n", 1)[0]
    for i, d in enumerate(defs):
        call = f"_s{i}("
        assert (call in heuristic_impl) != d.search, d.name
        assert (call in heuristic_fn) != d.search, d.name
