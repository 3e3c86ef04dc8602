"""Every game's report in a real browser at 1366x768: the Findings box is in the first screen, before any scrolling.
Headless Chromium and chromedriver (tests/headless_chromium.py); without them the test skips and says why."""
import pytest

from sim.game import game_names
from headless_chromium import chromium_session
from cli_runs import cli, ok

pytestmark = pytest.mark.slow  # `make test-fast` leaves these out

WIDTH, HEIGHT = 1366, 768


@pytest.fixture(scope="module")
def screen():
    yield from chromium_session("report-chromium-", WIDTH, HEIGHT)


def first_screen_box(browser, path) -> dict:
    """Where the Findings box sits on a page opened at the top, and the viewport's height."""
    browser.get(path.resolve().as_uri())
    return browser.execute_script(
        "const box = document.getElementById('findings'); if (!box) return null;"
        "const r = box.getBoundingClientRect(); const items = box.querySelectorAll('li');"
        "return {top: r.top, bottom: r.bottom, width: r.width, items: items.length, view: window.innerHeight,"
        "visible: getComputedStyle(box).visibility === 'visible' && getComputedStyle(box).display !== 'none',"
        "links: Array.from(box.querySelectorAll('a')).map(a => a.getAttribute('href'))};")


@pytest.mark.parametrize("game", game_names())
def test_findings_fill_the_first_screen_of_every_report(game, screen, tmp_path):
    out = tmp_path / game
    ok(cli("run", game, "-n", 400, "--batch-size", 200, "-o", out, "-q"))
    box = first_screen_box(screen, out / "report.html")
    assert box is not None, "no Findings box"
    assert box["view"] <= HEIGHT and box["visible"]
    assert 0 <= box["top"] and box["bottom"] <= box["view"], box
    assert 3 <= box["items"] <= 7
    for href in box["links"]:  # every "details" link lands on a section of the page
        assert screen.execute_script(f"return document.getElementById('{href[1:]}') !== null"), href


def test_findings_fill_the_first_screen_of_compare_sweep_and_tune_pages(screen, tmp_path):
    import pandas as pd

    from analysis.sweep import build_sweep_report
    from analysis.tune import build_tune_report
    from sim.variants import Target
    from test_reading import _tune_doc

    runs = []
    for name, extra in (("a", ["-s", "greedy,racer"]), ("b", ["--set", "rules.coin_token=3"])):
        out = tmp_path / name
        ok(cli("run", "mohur", "-n", 200, "--batch-size", 100, "-q", "--no-report", "-o", out, *extra))
        runs.append(out)
    ok(cli("compare", *runs, "-o", tmp_path / "cmp", "-q"))
    table = pd.DataFrame({"variant": [0, 1], "rules.coin_token": [0, 5],
                          **{f"turns_per_round{s}": v for s, v in (("", [40.0, 41.0]), (".ci_low", [39.0, 40.0]),
                                                                    (".ci_high", [41.0, 42.0]), (".n", [99, 99]))}})
    (tmp_path / "sweep").mkdir()
    build_sweep_report(table, [("rules.coin_token", [0, 5])], [Target("turns_per_round", 25, 35)], "mohur", 100, 1,
                       tmp_path / "sweep")
    (tmp_path / "tune").mkdir()
    build_tune_report(_tune_doc(["plausible", "misses"]), pd.DataFrame(columns=["round", "games", "loss"]),
                      tmp_path / "tune")
    for page in (tmp_path / "cmp" / "compare.html", tmp_path / "sweep" / "sweep_report.html",
                 tmp_path / "tune" / "tune.html"):
        box = first_screen_box(screen, page)
        assert box is not None and box["visible"], page
        assert 0 <= box["top"] and box["bottom"] <= box["view"] <= HEIGHT, (page, box)


def _planted_sensitivity(metrics, knobs) -> tuple:
    """A Morris screening's table and meta.json as sim.sensitivity writes them: knob k moves every figure by
    (k + 1) units of its scale, so the first-screen box has a reading per figure to show."""
    import pandas as pd
    rows = []
    for metric in metrics:
        scale = 0.01 if "rate" in metric else 1.0
        for k, knob in enumerate(knobs):
            effect = (k + 1) * scale
            rows.append({"metric": metric, "knob": knob, "range": "1..5", "mu_star": effect,
                         "mu_star_low": 0.8 * effect, "mu_star_high": 1.2 * effect, "mu": effect, "sigma": 0.1 * effect,
                         "effect_across_range": effect, "effect_ci_low": 0.7 * effect,
                         "effect_ci_high": 1.3 * effect, "noise": 0.1 * scale, "status": "ok"})
    meta = {"game": "mohur", "method": "morris", "knobs": [{"key": k, "range": "1..5"} for k in knobs],
            "strategies": [{"name": "greedy"}, {"name": "greedy"}], "blocks_analysed": 10, "sampled_blocks": 10,
            "blocks": 10, "design_points": 10 * (len(knobs) + 1), "points_played": 40, "games_per_point": 1000,
            "games": 10_000 * (len(knobs) + 1), "budget": 100_000, "seed": 1, "skipped_points": 0}
    return pd.DataFrame(rows), meta


def test_findings_fill_the_first_screen_of_the_sensitivity_page(screen, tmp_path):
    """Issue 29: the sensitivity page opens with its Findings box in the first screen, as the other pages do,
    with one linked reading per figure (the most a page shows: seven)."""
    from analysis.sensitivity import build_sensitivity_report
    metrics = ["first_player_round_win_rate", "first_player_match_win_rate", "turns_per_round", "score_margin",
               "rounds_per_match", "minutes_per_match", "drawn_round_rate", "coin_token_rate"]
    table, meta = _planted_sensitivity(metrics, ["rules.coin_token", "rules.hand_limit", "tokens.diamond.1",
                                                 "rules.empty_stacks_to_end"])
    build_sensitivity_report(table, meta, tmp_path)
    box = first_screen_box(screen, tmp_path / "sensitivity.html")
    assert box is not None and box["visible"], "no Findings box on the sensitivity page"
    assert 0 <= box["top"] and box["bottom"] <= box["view"] <= HEIGHT, box
    assert box["items"] == 7
    for href in box["links"]:
        assert screen.execute_script(f"return document.getElementById('{href[1:]}') !== null"), href
