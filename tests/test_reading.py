"""Issue 29's reading fixes: units on the charts a test can read, tune.html's verdict, the words of the command
line (game names, player counts, another game's configuration, the renamed strategy), progress lines."""
import json
import re
import threading

import numpy as np
import pandas as pd
import pytest

from analysis import progress, sensitivity, sweep
from analysis.common import meta_game_section
from analysis.tune import build_tune_report, tune_findings
from sim.game import get_game
from sim.registry import alias_of, registered
from sim.setup import load_setup
from sim.variants import Target
from cli_runs import ok, one_line_error


@pytest.fixture
def drawn(monkeypatch):
    """The figures the plotting functions save, kept for inspection instead of being written."""
    figures = []
    for module in (sweep, sensitivity):
        monkeypatch.setattr(module, "save", lambda fig, path: figures.append(fig))
    return figures


def test_a_sweep_plot_draws_the_target_band_in_percent_and_keeps_it_in_view(drawn):
    table = pd.DataFrame({"rules.coin_token": [0, 5, 10], "first_player_match_win_rate": [0.545, 0.55, 0.555],
                          "first_player_match_win_rate.ci_low": [0.54, 0.545, 0.55],
                          "first_player_match_win_rate.ci_high": [0.55, 0.555, 0.56]})
    band = Target("first_player_match_win_rate", 0.49, 0.51)
    sweep._plot_1d(table, "rules.coin_token", "first_player_match_win_rate", "x.png", [band])
    ax = drawn[0].axes[0]
    assert "(%)" in ax.get_ylabel() and "Match starter wins the match" in ax.get_ylabel()
    low, high = ax.get_ylim()
    assert low <= 49 and high >= 55.5  # the band (49-51%) and the estimates (54-56%) both on screen
    line = sweep.closest_line(table, ["rules.coin_token"], band)
    assert "rules.coin_token=0" in line and "3.5 points above the band" in line and "49.0% to 51.0%" in line


def _grid(estimates):
    """A 2x2 sweep table over coin_token x hand_limit, intervals one point either side of each estimate."""
    est = np.asarray(estimates, dtype=float)
    return pd.DataFrame({"rules.coin_token": [0, 0, 5, 5], "rules.hand_limit": [6, 7, 6, 7],
                         "first_player_match_win_rate": est, "first_player_match_win_rate.ci_low": est - 0.01,
                         "first_player_match_win_rate.ci_high": est + 0.01, "first_player_match_win_rate.n": 99})


def _band_outlines(ax) -> list[str]:
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle
    return [p.get_linestyle() for p in ax.patches if isinstance(p, Rectangle) and not p.get_fill()
            and to_hex(p.get_edgecolor()) == sweep.BAND_MARK]


def test_a_two_parameter_sweep_heatmap_draws_the_target_band_and_marks_the_cells_in_it(drawn):
    keys = ["rules.coin_token", "rules.hand_limit"]
    band = Target("first_player_match_win_rate", 0.49, 0.51)
    sweep._plot_2d(_grid([0.545, 0.55, 0.50, 0.515]), keys, "first_player_match_win_rate", "x.png", [band])
    ax, bar = drawn[0].axes
    low, high = bar.get_ylim()
    assert low <= 49 and high >= 54.9  # the colour bar holds the band (49-51%) and the estimates, in %
    assert any(abs(p.get_y() - 49) < 1e-9 and abs(p.get_height() - 2) < 1e-9 for p in bar.patches)  # its stripe
    assert _band_outlines(ax) == ["-"]  # only the 50.0% cell (interval 49-51%) is inside, and surely so
    assert "49.0% to 51.0%" in ax.get_title()
    sweep._plot_2d(_grid([0.545, 0.55, 0.56, 0.535]), keys, "first_player_match_win_rate", "y.png", [band])
    assert _band_outlines(drawn[1].axes[0]) == [":"]  # none inside: the closest cell, dotted
    line = sweep.closest_line(_grid([0.545, 0.55, 0.56, 0.535]), keys, band)
    assert "rules.coin_token=5, rules.hand_limit=7 at 53.5%" in line and "2.5 points above the band" in line


def test_the_sensitivity_tornado_reads_rates_in_points(drawn):
    rows = pd.DataFrame({"knob": ["a", "b"], "mu_star": [0.015, 0.002], "mu_star_low": [0.01, 0.0],
                         "mu_star_high": [0.02, 0.004], "mu": [0.015, -0.002], "noise": [0.001, 0.001]})
    sensitivity.tornado("first_player_round_win_rate", rows, "morris", "t.png", {"a": "1-2", "b": "3-4"})
    ax = drawn[0].axes[0]
    assert "percentage points" in ax.get_xlabel()
    assert ax.get_xlim()[1] >= 2.0  # the 1.5-point effect and its 2-point interval end, not 0.015


def _tune_doc(verdicts):
    ranking = [{"candidate": i, "params": {"rules.coin_token": i}, "games": 4000, "distance": 0.5 * i,
                "targets": {"first_player_match_win_rate": {"estimate": 0.52, "ci_low": 0.50, "ci_high": 0.54,
                                                            "n": 4000, "band": [0.49, 0.51], "verdict": v}}}
               for i, v in enumerate(verdicts)]
    return {"game": "mohur", "budget": 20000, "spent": 18000, "seed": 1, "method": "successive halving",
            "ranking": ranking}


def test_tune_says_plainly_when_no_candidate_meets_every_target(tmp_path):
    doc = _tune_doc(["plausible", "misses"])
    items = tune_findings(doc)
    assert items[0]["text"].startswith("No candidate meets every target") and "rules.coin_token=0" in items[0]["text"]
    assert any("49.0% to 51.0%" in f["text"] and "52.0%" in f["text"] for f in items)  # one unit: %
    build_tune_report(doc, pd.DataFrame({"round": [0, 0], "candidate": [0, 1], "games": [2000, 2000],
                                         "loss": [0.5, 1.0]}), tmp_path)
    page = (tmp_path / "tune.html").read_text()
    assert "id='findings'" in page and "No candidate meets every target" in page and "18,000" in page
    assert tune_findings(_tune_doc(["meets", "misses"]))[0]["id"] == "meets"
    assert tune_findings(_tune_doc(["misses"]))[0]["text"].endswith("widen the parameter range or the bands.")


def test_a_meta_game_taken_by_one_strategy_is_a_table_not_a_chart(tmp_path):
    summary = {"nash_weight[a]": {"estimate": 1.0, "ci_low": 1.0, "ci_high": 1.0, "n": 10},
               "nash_weight[b]": {"estimate": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 10}}
    _, sections = meta_game_section(summary, tmp_path, {}, 2)
    assert "<table>" in sections[0]["html"] and not sections[0].get("figures")
    assert not (tmp_path / "nash.png").exists()


# ---- the command line ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args,words", [
    (["Mohr"], ["unknown game 'Mohr'", "did you mean 'mohur'?"]),
    (["mohur", "-p", "3"], ["mohur is a 2-player game", "allowed: 2"]),
])
def test_game_names_and_player_counts_read_plainly(cli, tmp_path, args, words):
    one_line_error(cli("run", *args, "-n", "10", "--no-report", "-o", tmp_path / "out"), *words)


def test_game_names_ignore_case():
    assert get_game("MOHUR").name == "mohur" and get_game(" Muziris").name == "muziris"


def test_another_games_configuration_is_named_in_one_line(cli, tmp_path):
    path = tmp_path / "muz.toml"
    path.write_text(cli("config", "muziris").output)
    result = cli("run", "mohur", "--config", path, "-n", "10", "--no-report", "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"balance-sim: error: --config {path}: this is a muziris configuration (keys characters, conditions, "
        f"produce), not a mohur one; use it with 'balance-sim run muziris --config {path}'"]
    mistake = tmp_path / "mohur.toml"  # this game's file with one wrong key: still the key's own message
    mistake.write_text("[rules]\nhand_limt = 3\n")
    result = cli("run", "mohur", "--config", mistake, "-n", "10", "--no-report", "-o", tmp_path / "out")
    assert "hand_limt" in result.stderr and "configuration" not in result.stderr.split("error:")[1][:30]


def test_the_renamed_strategy_keeps_its_old_name_as_an_alias_that_says_so():
    names = [d.name for d in registered("muziris")]
    assert "endgame" in names and "condition" not in names
    assert names.index("endgame") == sorted(names).index("endgame")  # sorted where the old name was: same ids
    assert alias_of("muziris", "condition") == "endgame"
    *_, chosen, _ = load_setup("muziris", None, (), 3, "condition,greedy")
    assert [c.name for c in chosen] == ["endgame", "greedy"]


def test_the_alias_note_is_one_line_on_stderr(cli, tmp_path):
    result = ok(cli("run", "muziris", "-s", "condition,greedy,greedy", "-n", "4", "--batch-size", "4", "-q",
                    "--no-report", "-o", tmp_path / "out"))
    assert "strategy 'condition' is now called 'endgame'" in result.stderr
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert [s["name"] for s in meta["strategies"]] == ["endgame", "greedy", "greedy"]


class _Clock:
    """analysis.progress's timer under the test's control: a phase's QUIET_BELOW mark passes when `fire()` is called
    (or at once with `at_once`), never by the machine's speed."""

    def __init__(self, at_once=False):
        self.at_once, self.timers = at_once, []

    def Timer(self, interval, function):  # noqa: N802 (threading.Timer's name)
        clock = self

        class Timer:
            daemon = False

            def start(self):
                if clock.at_once:
                    function()
                else:
                    clock.timers.append(function)

            def cancel(self):
                if function in clock.timers:
                    clock.timers.remove(function)

        return Timer()

    def fire(self):
        for function in list(self.timers):
            function()

    Lock = staticmethod(threading.Lock)


def test_a_phase_speaks_only_once_past_the_quiet_mark_and_then_says_when_it_is_done(monkeypatch):
    clock, said = _Clock(), []
    monkeypatch.setattr(progress, "threading", clock)
    with progress.reporting(said.append):
        with progress.phase("quick"):
            pass  # ended before the mark: nothing
        with progress.phase("slow"):
            clock.fire()
        with pytest.raises(ValueError), progress.phase("failing"):
            clock.fire()
            raise ValueError  # its error follows the announcement, not "done"
    with progress.phase("unreported"):  # outside `reporting`: silent whatever the time
        clock.fire()
    assert len(said) == 3 and said[0] == "slow..." and said[2] == "failing...", said
    assert re.fullmatch(r"slow: done in \d+\.\d s", said[1]), said


@pytest.mark.slow
def test_report_and_compare_say_what_they_are_doing_unless_quiet(cli, tmp_path, monkeypatch):
    """Every phase past the quiet mark at once (a clock of the test's: how long a phase takes is the machine's)."""
    monkeypatch.setattr(progress, "threading", _Clock(at_once=True))
    out = tmp_path / "run"
    assert cli("run", "mohur", "-n", "200", "--batch-size", "100", "-s", "greedy,racer", "-q", "--no-report",
               "-o", out).exit_code == 0
    loud = cli("report", out)
    assert loud.exit_code == 0 and "mohur report: plots..." in loud.stderr and "done in" in loud.stderr
    quiet = cli("report", out, "-q", "-o", tmp_path / "again")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    compared = cli("compare", out, out, "-o", tmp_path / "cmp")
    assert compared.exit_code == 0 and f"compare: reading A ({out})..." in compared.stderr
    assert f"compare: reading A ({out}): done in" in compared.stderr
    assert cli("compare", out, out, "-o", tmp_path / "cmp", "-q").stderr == ""
    assert np.isfinite(json.loads((out / "summary.json").read_text())["minutes_per_match"]["estimate"])


def test_the_sensitivity_findings_name_each_figure_plainly_with_its_top_knob_in_one_sentence():
    rows = pd.DataFrame({"metric": "first_player_round_win_rate", "knob": ["a", "b", "c"], "range": "1..5",
                         "mu_star": [0.04, 0.02, 0.0001], "mu_star_low": [0.03, 0.015, 0.0],
                         "mu_star_high": [0.05, 0.025, 0.0002], "mu": [0.04, -0.02, 0.0], "sigma": 0.001,
                         "effect_across_range": [0.04, -0.02, 0.0], "effect_ci_low": [0.03, -0.025, -0.001],
                         "effect_ci_high": [0.05, -0.015, 0.001], "noise": 0.001, "status": "ok"})
    line = sensitivity.finding_line("first_player_round_win_rate", rows, "morris")
    assert line.startswith("Round starter wins the round: raising a across its range (1..5) raises it: +4.0 points")
    assert line.endswith("; 1 more knob clearly moves it.") and len(line) < 200
    assert sensitivity.finding_line("x", rows.assign(status="constant"), "morris").endswith("none of these knobs "
                                                                                            "moves it.")


def test_a_knob_whose_change_across_the_range_was_not_measured_reads_no_n_a():
    rows = pd.DataFrame({"metric": "score_margin", "knob": ["a", "b"], "range": ["4..6", "5..7"],
                         "mu_star": [1.8, 0.6], "mu_star_low": [0.0, 0.0], "mu_star_high": [3.8, 1.3],
                         "mu": [1.8, 0.6], "sigma": 0.03, "effect_across_range": [np.nan, np.nan],
                         "effect_ci_low": np.nan, "effect_ci_high": np.nan, "noise": 0.6, "status": "ok"})
    text = sensitivity.reading("score_margin", rows, "morris")
    assert "n/a" not in text and "a (4..6: mu* 1.8; too few steps to measure its change across the range)" in text
    movers = rows.assign(mu_star_low=[1.2, 0.0])  # a clears its noise: it leads the reading and the finding
    for line in (sensitivity.reading("score_margin", movers, "morris"),
                 sensitivity.finding_line("score_margin", movers, "morris")):
        assert "n/a" not in line and "a moves it (mu* 1.8, 95% CI 1.2 to 3.8); too few steps" in line, line
