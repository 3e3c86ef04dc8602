"""The replay page in a real browser: headless Chromium (Debian's `chromium` and `chromium-driver`) driven by
selenium. Without them the tests skip and say what is missing (`.ci/run` installs them with apt-get)."""
import json

import pytest

from analysis.replay import write_replay
from sim.setup import load_setup
from sim.game import game_names
from headless_chromium import chromium_session
from test_replay import lineup, traced_winners

pytestmark = pytest.mark.slow  # `make test-fast` leaves these out

LINEUPS = {"mohur": ("greedy,racer", 2), "mughal": ("greedy,random,denier,emperor", 4),
           "muziris": ("greedy,random,blocker", 3)}


@pytest.fixture(scope="module")
def browser():
    yield from chromium_session("replay-chromium-", 1300, 900)


def _page(game, tmp_path):
    names, players = LINEUPS.get(game) or lineup(game)
    spec, players, cfg, chosen, _ = load_setup(game, None, (), players, names)
    events = list(spec.trace(cfg, players, list(chosen), 5))
    return write_replay(tmp_path / f"{game}.html", events), events



@pytest.mark.parametrize("game", game_names())
def test_replay_steps_through_the_game_in_a_browser(game, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    path, events = _page(game, tmp_path)
    browser.get(path.resolve().as_uri())
    by_id = lambda name: browser.find_element(By.ID, name)  # noqa: E731
    steps = json.loads(browser.execute_script("return JSON.stringify(F.length)"))
    assert by_id("counter").text == f"Step 1 of {steps}"
    board, caption = by_id("board").get_attribute("innerHTML"), by_id("text").text

    by_id("next").click()
    assert by_id("counter").text == f"Step 2 of {steps}"
    assert by_id("board").get_attribute("innerHTML") != board and by_id("text").text != caption
    by_id("prev").click()
    assert by_id("counter").text == f"Step 1 of {steps}" and by_id("board").get_attribute("innerHTML") == board
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert by_id("counter").text == f"Step 2 of {steps}"

    hidden = len(browser.find_elements(By.CSS_SELECTOR, "#board .chip.back"))
    assert hidden > 0  # the table does not see the hands
    by_id("view-all").click()
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .chip.back")
    by_id("view-table").click()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .chip.back")) == hidden

    assert not by_id("outcome").is_displayed()
    by_id("last").click()
    assert by_id("counter").text == f"Step {steps} of {steps}"
    outcome = by_id("outcome")
    assert outcome.is_displayed()
    winners = traced_winners(events[-1])
    assert json.loads(outcome.get_attribute("data-winners")) == winners
    if len(winners) == 1:
        assert f"Seat {winners[0]} " in outcome.text
    assert all(str(seat) in outcome.text for seat in winners)
    assert browser.find_elements(By.CSS_SELECTOR, "#chart polyline")
    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
    assert errors == []


def test_a_replay_of_the_default_lineup_says_so_where_the_designer_looks(browser, tmp_path):
    """Issue 29: without -s every seat plays greedy; the page says so in a line of its own under the title (and
    a page made with -s shows no such line)."""
    from selenium.webdriver.common.by import By
    spec, players, cfg, chosen, _ = load_setup("mohur", None, (), 2, "greedy")
    events = list(spec.trace(cfg, players, list(chosen) * 2, 3))
    note = "no -s given: every seat plays greedy"
    for name, given in (("default.html", note), ("chosen.html", "")):
        path = write_replay(tmp_path / name, events, note=given)
        browser.get(path.resolve().as_uri())
        shown = browser.find_element(By.ID, "note")
        assert shown.is_displayed() == bool(given)
        if given:
            assert note in shown.text and "-s A,B" in shown.text and shown.location["y"] < 150
