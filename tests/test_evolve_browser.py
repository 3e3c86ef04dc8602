"""evolve.html in a real browser (headless Chromium through selenium, as tests/test_replay_browser.py; skipped
with the reason when absent): it loads, its two plots render, and it states the parameters and the validation."""
import numpy as np
import pytest

from analysis import evolve_page
from sim import evolve as E
from test_evolve import SPACE, quadratic
from test_replay_browser import browser  # noqa: F401 - the fixture

pytestmark = pytest.mark.slow  # `make test-fast` leaves these out


def _result():
    ev = E.run(E.Evolution(SPACE, {"a": -4.0, "b": 1.0, "k": 9.0}, [1, 1], E.Settings(4000, 3, 2)), quadratic)
    rng = np.random.default_rng(0)
    games = 40
    val = {"games": games, "winner": (rng.random((2, games)) < 0.7).astype(float).tolist(),
           "start": (rng.random((2, games)) < 0.5).astype(float).tolist(),
           "head_to_head": (rng.random(games) < 0.6).astype(float).tolist()}
    setup = {"kind": "evolve", "game": "toy", "players": 2, "strategy": "planted", "budget": 4000, "seed": 3,
             "config": {}}
    return {"setup": setup, "space": {"names": list(SPACE.names), "low": SPACE.low.tolist(),
                                      "high": SPACE.high.tolist(), "whole": list(SPACE.whole)},
            "base": "planted", "start": {"a": -4.0, "b": 1.0, "k": 9.0}, "winner": ev.winner(), "pool": ["x", "y"],
            "weights": [0.5, 0.5], "history": ev.history, "validation": val, "stopped": ev.stopped,
            "popsize": ev.popsize, "spent": ev.spent}


def test_evolve_page_renders_in_a_browser(browser, tmp_path):  # noqa: F811
    lines = evolve_page.publish(tmp_path, _result())
    assert any("95% CI" in line for line in lines)
    browser.get((tmp_path / "evolve.html").as_uri())
    assert "evolving planted" in browser.find_element("tag name", "h1").text
    images = browser.find_elements("tag name", "img")
    assert len(images) == 2
    assert all(browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img)
               for img in images)
    text = browser.find_element("tag name", "body").text
    assert "a: raised, -4 -> " in text and "Head to head" in text and "Validation on fresh deals" in text
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert (tmp_path / "preset.toml").read_text().splitlines()[1] == "[strategies.planted-evolved]"
