"""Paired comparisons (analysis/paired.py, `balance-sim compare`, sweep differences from a baseline): intervals
on planted differences (paired ones narrower, Welch's on independent runs), then the command on tiny Mohur runs."""
import json
import shutil

import numpy as np
import pandas as pd
import pytest

from analysis import paired, stats
from cli_runs import cli as invoke, ok, one_line_error

TRUE_RATE_DIFF = 0.02   # B's round-win probability minus A's
TRUE_MEAN_DIFF = 1.5    # B's turns per round minus A's


def _simulate(rng, common: bool, n_games: int = 2000, blocks: int = 100):
    """Per-block (sum, count) of a round-level rate and a round-level mean for runs A and B. Games have a random
    number of rounds (B sometimes one more) and a game-level effect, so both figures are ratio estimators over
    correlated rounds. With `common`, B reuses A's random numbers (as variants of a sweep do)."""
    def play(shift_p, shift_t, extra_rounds, draws):
        k, e, u, z = draws
        k = k + extra_rounds
        game = np.repeat(np.arange(n_games), k)
        first = np.concatenate([np.arange(x) for x in k])
        idx = game * 8 + first  # the round's own random numbers, shared between runs when common
        win = (u[idx] < 0.55 + shift_p + e[game]).astype(float)
        turns = 40 + 6 * e[game] / 0.15 + 5 * z[idx] + shift_t
        block = np.searchsorted(paired.block_edges(n_games, blocks), game, side="right") - 1
        count = np.bincount(block, minlength=blocks).astype(float)
        return (np.column_stack([np.bincount(block, win, blocks), count]),
                np.column_stack([np.bincount(block, turns, blocks), count]))

    def draws(r):
        return (1 + np.minimum(r.poisson(1.5, n_games), 6), r.uniform(-0.15, 0.15, n_games),
                r.random(n_games * 8), r.normal(size=n_games * 8))

    d_a = draws(rng)
    d_b = d_a if common else draws(rng)
    extra = (rng.random(n_games) < 0.2).astype(int)  # B's games sometimes run a round longer
    return play(0.0, 0.0, 0, d_a), play(TRUE_RATE_DIFF, TRUE_MEAN_DIFF, extra, d_b)


def _coverage(common: bool, reps: int = 300):
    hits = {"rate": 0, "mean": 0}
    width = {"paired": [], "unpaired": []}
    for seed in range(reps):
        (rate_a, mean_a), (rate_b, mean_b) = _simulate(np.random.default_rng(seed), common)
        for name, a, b, truth in (("rate", rate_a, rate_b, TRUE_RATE_DIFF), ("mean", mean_a, mean_b, TRUE_MEAN_DIFF)):
            d = paired.difference(a, b, paired=common)
            hits[name] += d["ci_low"] <= truth <= d["ci_high"]
            if common and name == "rate":
                width["paired"].append(d["ci_high"] - d["ci_low"])
                width["unpaired"].append(d["unpaired_ci_high"] - d["unpaired_ci_low"])
    return {k: v / reps for k, v in hits.items()}, width


@pytest.mark.parametrize("common", [True, False], ids=["paired and narrower", "unpaired on independent runs"])
@pytest.mark.slow
def test_interval_covers_planted_difference(common):
    coverage, width = _coverage(common)
    # 300 repetitions: a true 95% gives 92.5%-97.5% with probability ~0.95 each; the bounds allow chance only
    assert 0.92 <= coverage["rate"] <= 0.98, coverage
    assert 0.92 <= coverage["mean"] <= 0.98, coverage
    if common:
        assert np.mean(width["paired"]) < 0.5 * np.mean(width["unpaired"]), width


def test_multiple_comparison_correction_on_known_p_values():
    adjusted, real = paired.adjust([0.001, 0.012, 0.03, 0.04, 0.2, None])
    # Holm by hand: 5 x 0.001, 4 x 0.012, max(3 x 0.03, ...) = 0.09 twice, 0.2; the missing p stays missing
    assert adjusted[:5] == pytest.approx([0.005, 0.048, 0.09, 0.09, 0.2])
    assert np.isnan(adjusted[5])
    assert real.tolist() == [True, True, False, False, False, False]  # uncorrected, four would pass 0.05


def test_block_statistics_reproduce_the_summary_and_drop_what_is_not_a_sum_over_games():
    rng = np.random.default_rng(7)
    games = pd.DataFrame({"game": rng.permutation(500), "x": rng.normal(size=500)})  # rows out of order
    rounds = pd.DataFrame({"game": np.repeat(np.arange(500), 3), "won": rng.random(1500) < 0.4})

    def summarize(tables, meta):
        g, r = tables["games"], tables["rounds"]
        return {"x_mean": stats.mean(g["x"]), "round_win_rate": stats.rate(r["won"].sum(), len(r)),
                # decided on the whole table: a block's first ten rounds are not the run's first ten
                "first_rounds_rate": stats.rate(r["won"].head(10).sum(), len(r.head(10)))}

    tables = {"games": games, "rounds": rounds}
    meta = {"game": "synthetic", "games": 500}
    full = summarize(tables, meta)
    blocks = paired.block_statistics(tables, meta, full, summarize, id_column="game", blocks=20)
    assert set(blocks) == {"x_mean", "round_win_rate"}
    block = np.arange(500) // 25
    expected = np.bincount(block[games["game"]], games["x"], 20)
    assert blocks["x_mean"][:, 0] == pytest.approx(expected)
    assert blocks["round_win_rate"][:, 1].tolist() == [75.0] * 20
    assert paired.pseudo_values(blocks["round_win_rate"]).mean() == pytest.approx(full["round_win_rate"]["estimate"])


# ---- the command, end to end on tiny Mohur runs ------------------------------------------------------------
@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    common = ["-n", 400, "--batch-size", 200, "-s", "greedy,racer", "--no-report", "-q"]
    for name, extra in (("base", ["--seed", 3]), ("rich", ["--seed", 3, "--set", "rules.coin_token=10"]),
                        ("other", ["--seed", 4]), ("summary", ["--seed", 3, "--summary-only"]),
                        ("lineup", ["--seed", 3, "--set", "rules.coin_token=3", "-s", "greedy,racer,setbuilder"])):
        ok(invoke("run", "mohur", *common, *extra, "-o", root / name))
    return root


def compared(runs, b):
    """`compare` of the base run with run `b` into cmp-<b>: (compare.json, the folder)."""
    out = runs / f"cmp-{b}"
    ok(invoke("compare", runs / "base", runs / b, "-o", out))
    return json.loads((out / "compare.json").read_text()), out


def test_compare_same_seed_is_paired(runs):
    doc, out = compared(runs, "rich")
    assert doc["paired"] is True and doc["why_not_paired"] == []
    assert doc["differences_in_configuration"] == ["rules.coin_token = 10 (A: 5)"]
    metrics = doc["metrics"]
    assert "first_player_round_win_rate" in metrics and "win_rate[racer]" in metrics
    for name, m in metrics.items():
        assert {"a", "b", "diff", "ci_low", "ci_high", "paired", "p", "p_adjusted", "verdict"} <= set(m), name
        assert m["ci_low"] <= m["diff"] <= m["ci_high"]
        assert m["diff"] == pytest.approx(m["b"] - m["a"])
    # greedy against racer has no mirror matches, so the starter's edge is a model estimate: not a sum over games,
    # so it is compared with each run's own interval (marked), never paired wrongly; sums over games pair
    assert metrics["first_player_round_win_rate"]["paired"] is False
    assert "not a sum over games" in metrics["first_player_round_win_rate"]["method"]
    assert metrics["turns_per_round"]["paired"] is True and metrics["win_rate[racer]"]["paired"] is True
    # common random numbers: the paired intervals are narrower than the same runs' unpaired ones
    ratios = [(m["ci_high"] - m["ci_low"]) / (m["unpaired_ci_high"] - m["unpaired_ci_low"])
              for m in metrics.values() if m["paired"] and m["unpaired_ci_high"] > m["unpaired_ci_low"]]
    assert len(ratios) >= 5 and np.median(ratios) < 0.8, ratios
    page = (out / "compare.html").read_text()
    assert "Round starter wins the round" in page and "first_player_round_win_rate" in page
    assert "Paired game by game" in page and (out / "compare.png").is_file()


def test_compare_different_seeds_is_unpaired(runs):
    doc, out = compared(runs, "other")
    assert doc["paired"] is False and "seeds differ" in doc["why_not_paired"][0]
    assert all(m["paired"] is False for m in doc["metrics"].values())
    assert "Not paired" in (out / "compare.html").read_text()


def test_compare_summary_only_run_falls_back_to_its_intervals(runs):
    doc, _ = compared(runs, "summary")
    assert doc["paired"] is False and any("summary-only" in w for w in doc["why_not_paired"])
    fp = doc["metrics"]["first_player_round_win_rate"]
    assert fp["diff"] == pytest.approx(0, abs=1e-12)  # the same games, summarised batch by batch


def test_compare_run_with_itself_finds_no_change(runs):
    for m in compared(runs, "base")[0]["metrics"].values():
        assert m["diff"] == 0 and m["verdict"] == "within noise"


@pytest.mark.slow
def test_compare_of_different_lineups_lists_them_and_gives_strategy_figures_no_verdict(runs):
    """The trap of issue 29: B forgot A's -s, so its win rates move because other strategies played."""
    doc, out = compared(runs, "lineup")
    assert doc["differences_in_lineup"] == ["strategies = greedy, racer, setbuilder (A: greedy, racer)"]
    assert doc["differences_in_configuration"] == ["rules.coin_token = 3 (A: 5)"]
    metrics = doc["metrics"]
    for name in ("win_rate[greedy]", "strength[racer]", "nash_weight[greedy]"):
        assert metrics[name]["comparable"] is False and metrics[name]["verdict"] == "not comparable", name
    assert metrics["turns_per_round"]["comparable"] is True and "caution" in metrics["turns_per_round"]
    assert any(k.startswith("decisive_rate[") for k in metrics)
    assert doc["findings"][0]["id"] == "lineup_differs"
    page = (out / "compare.html").read_text()
    assert "strategies = greedy, racer, setbuilder (A: greedy, racer)" in page and "id='findings'" in page
    same = compared(runs, "rich")[0]  # same lineup: every figure comparable, strengths compared too
    assert same["differences_in_lineup"] == [] and all(m["comparable"] for m in same["metrics"].values())
    assert "strength[greedy]" in same["metrics"] and "nash_weight[racer]" in same["metrics"]


def test_an_interval_that_misses_zero_only_before_the_correction_shows_the_corrected_one():
    from analysis.compare import call_real, compare_findings, fmt_corrected
    rows = {f"m{i}_rate": {"label": f"m{i}", "a": 0.5, "b": 0.5, "diff": 0.0, "ci_low": -0.01, "ci_high": 0.01,
                           "p": 0.9, "paired": True} for i in range(12)}
    rows["minutes_per_match"] = {"label": "Minutes per match", "a": 12.0, "b": 12.023, "diff": 0.023,
                                 "ci_low": 0.006, "ci_high": 0.040, "p": 0.008, "paired": True}
    call_real(rows)
    row = rows["minutes_per_match"]
    assert row["verdict"] == "within noise" and row["corrected_ci_low"] < 0 < row["corrected_ci_high"]
    assert "corrected for every figure compared" in fmt_corrected("minutes_per_match", row)
    assert "corrected_ci_low" not in rows["m0_rate"]
    doc = {"metrics": rows, "differences_in_lineup": [], "differences_in_configuration": ["x = 1 (A: 2)"]}
    assert any(f["id"] == "excludes_zero_before_correction" for f in compare_findings(doc))


def test_compare_bad_input_one_line_exit_2_nothing_written(runs, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    other_game = tmp_path / "other-game"
    shutil.copytree(runs / "base", other_game)
    meta = json.loads((other_game / "meta.json").read_text())
    (other_game / "meta.json").write_text(json.dumps({**meta, "game": "mughal"}))
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    cases = [((tmp_path / "missing", runs / "base", tmp_path / "o1"), "no such folder"),
             ((empty, runs / "base", tmp_path / "o2"), "not a results folder"),
             ((runs / "base", other_game, tmp_path / "o3"), "same game"),
             ((runs / "base", runs / "rich", keep), "not a balance-sim comparison folder"),
             ((runs / "base", runs / "rich", runs / "rich"), "one of the folders compared")]
    for (a, b, out), words in cases:
        r = invoke("compare", a, b, "-o", out)
        one_line_error(r, words)  # before it, reading A may have said it was slow (a loaded machine)
        assert r.stdout == "", (a, b, out, r.output)
    assert not any((tmp_path / f"o{i}").exists() for i in (1, 2, 3))
    assert sorted(p.name for p in keep.iterdir()) == ["notes.txt"]
    assert not (runs / "rich" / "compare.json").exists()


@pytest.mark.slow
def test_sweep_differences_from_baseline(tmp_path):
    out = tmp_path / "sweep"
    # greedy,greedy: mirror matches, so the starter edge is a rate over games and pairs game by game
    ok(invoke("sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "5", "10", "-n", 400,
              "--batch-size", 200, "-s", "greedy,greedy", "--seed", 3, "-o", out, "-q", "--baseline", "5"))
    table = pd.read_csv(out / "sweep.csv")
    assert table["baseline"].tolist() == [False, True, False]
    m = "first_player_round_win_rate"
    for col in ("diff", "diff_ci_low", "diff_ci_high", "diff_p", "diff_p_adjusted", "diff_paired", "diff_real"):
        assert f"{m}.{col}" in table
    assert table[f"{m}.diff"].isna().tolist() == [False, True, False]
    assert table[f"{m}.diff"][0] == pytest.approx(table[m][0] - table[m][1])
    assert table[f"{m}.diff_paired"][0] == True  # noqa: E712 (a CSV bool)
    page = (out / "sweep_report.html").read_text()
    assert "Differences from the baseline" in page and "Holm" in page
    assert (out / "sweep_differences.png").is_file()


def test_sweep_unknown_baseline_writes_nothing(tmp_path):
    out = tmp_path / "sweep"
    r = invoke("sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "5", "-n", 100, "-o", out,
               "--baseline", "7")
    assert r.exit_code == 2 and "--baseline" in r.output and "rules.coin_token=5" in r.output
    assert not out.exists() and not out.with_name("sweep.partial").exists()


def test_baseline_resolution():
    from sim.errors import UserError
    from sim.variants import grid, resolve_baseline
    one = [("rules.coin_token", [0, 5, 10])]
    assert resolve_baseline(one, grid(one), []) == 0
    assert resolve_baseline(one, grid(one), ["10"]) == 2
    assert resolve_baseline(one, grid(one), ["#1"]) == 1
    two = [("rules.coin_token", [0, 5]), ("rules.hand_limit", [6, 7])]
    assert resolve_baseline(two, grid(two), ["rules.coin_token=5", "rules.hand_limit=6"]) == 2
    with pytest.raises(UserError, match="matches no variant"):
        resolve_baseline(one, grid(one), ["7"])
    with pytest.raises(UserError, match="no such variant"):
        resolve_baseline(one, grid(one), ["#3"])
    with pytest.raises(UserError, match="matches several variants"):
        resolve_baseline(two, grid(two), ["rules.hand_limit=7"])
    with pytest.raises(UserError, match="not swept"):
        resolve_baseline(one, grid(one), ["rules.seals=2"])
