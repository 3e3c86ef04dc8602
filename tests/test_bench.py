"""`balance-sim bench`: search players' decisions per CPU-second beside their win share against greedy (95% interval),
a bad `--strength-games` refused; figures are parsed as numbers, never compared with a time."""
import re

import pytest

from sim.commands.bench_cmd import _strength
from sim.config import build
from sim.game import get_game
from cli_runs import cli, ok, one_line_error

NUMBER = r"([\d,]+(?:\.\d+)?(?:e[-+]?\d+)?)"
LINE = re.compile(rf"^  (\S+) +{NUMBER} decisions/CPU-s \(\d+ mirror games\); vs greedy wins {NUMBER}% "
                  rf"\({NUMBER}%-{NUMBER}%\) of (\d+) games \(even: 25%\), {NUMBER} CPU-s/game$")


def _number(text: str) -> float:
    return float(text.replace(",", ""))


@pytest.fixture(scope="module")
def mughal_bench():
    return cli("bench", "mughal", "-n", 100, "-j", 1, "--strength-games", 4)


def test_bench_prints_each_search_preset_with_its_decision_rate_and_win_rate(mughal_bench):
    assert mughal_bench.exit_code == 0, mughal_bench.output
    found = {}
    for line in mughal_bench.stdout.splitlines():
        m = LINE.match(line)
        if m:
            found[m.group(1)] = [_number(g) for g in m.groups()[1:]]
    assert set(found) == {"expert-fast", "expert"}, mughal_bench.stdout
    for rate, won, low, high, games, cpu in found.values():
        assert rate > 0 and cpu > 0 and games == 4
        assert 0 <= low <= won <= high <= 100


def test_zero_strength_games_skips_the_win_rate(cli):
    result = ok(cli("bench", "mughal", "-n", "100", "-j", "1", "--strength-games", "0"))
    lines = [line for line in result.stdout.splitlines() if "decisions/CPU-s" in line]
    assert len(lines) == 2 and not any("wins" in line for line in lines), result.stdout


@pytest.mark.parametrize("value", ["-1", "100001", "many"])
def test_bad_strength_games_is_one_line_and_exit_2(cli, value):
    one_line_error(cli("bench", "mughal", "--strength-games", value), "--strength-games")


@pytest.mark.parametrize("game", ["mohur", "mughal"])  # a `winner` column and a `players` table of win shares
def test_strength_credits_the_rotated_seat_of_the_first_strategy(game):
    """Greedy almost always beats random players; reading the wrong seat would show random winning often."""
    spec = get_game(game)
    players = spec.default_players
    cfg = spec.validate(build(spec.package), players)
    kernel = spec.function("kernel")

    def won(name, opponent):
        text = _strength(spec, cfg, players, kernel, name, opponent, 40)
        return _number(re.search(rf"wins {NUMBER}%", text).group(1)) / 100

    assert won("greedy", "random") > 0.8
    assert won("random", "greedy") < 0.2


def test_search_only_prints_just_the_search_presets_against_the_named_opponent(cli):
    """`--search-only` leaves out the heuristics' games/s lines; `--against tuned` names the strength opponent."""
    result = ok(cli("bench", "mughal", "-n", "100", "-j", "1", "--strength-games", "4", "--search-only",
                    "--against", "tuned"))
    lines = [line for line in result.stdout.splitlines() if line.startswith("  ")]
    assert len(lines) == 2 and all("decisions/CPU-s" in line and "vs tuned wins" in line for line in lines), \
        result.stdout
    assert "games/s" not in result.stdout


def test_unknown_against_is_one_line_and_exit_2(cli):
    one_line_error(cli("bench", "mughal", "--search-only", "--against", "nobody"), "--against")
