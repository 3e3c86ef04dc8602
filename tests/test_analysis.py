"""Report machinery: intervals against known values, metrics against hand-computed tables, summary.json against
the Parquet tables, and a report built end to end."""
import json

import numpy as np
import pandas as pd
import pytest

from analysis import common, mohur as mohur_analysis, stats, summary as summaries
from cli_runs import cli, ok


def test_wilson_known_values():
    # Wilson 95% for 8/10 (Agresti & Coull 1998 / any statistics table): 0.4902-0.9433
    lo, hi = stats.wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    # 0 successes: the interval starts at 0 and is not degenerate
    lo, hi = stats.wilson(0, 20)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.1611, abs=1e-4)
    r = stats.rate(540, 1000)
    assert r["estimate"] == 0.54 and r["n"] == 1000 and r["ci_low"] < 0.54 < r["ci_high"]


def test_mean_interval_and_power():
    m = stats.mean([1, 2, 3, 4, 5])
    # sd 1.5811, se 0.7071, 1.96 se = 1.3859
    assert m["estimate"] == 3 and m["ci_low"] == pytest.approx(3 - 1.3859, abs=1e-3)
    # detecting 51% against 50% at 5% two-sided and 80% power takes about 19,600 trials
    assert 19_000 < stats.games_to_detect(0.01) < 20_000
    assert stats.binomial_test_half(500, 1000) == pytest.approx(1.0, abs=0.05)
    assert stats.binomial_test_half(600, 1000) < 1e-9


def test_binomial_test_is_scipys_binomtest_bit_for_bit():
    """stats.binomial_test spares the report scipy.stats' import; its p-values must be scipy's exactly (the
    report prints them), for every k of small n and for counts like a run's around and far from the fair share."""
    from scipy.special import ndtr
    from scipy.stats import binomtest, norm
    rng = np.random.default_rng(7)
    cases = [(k, n, p) for n in range(1, 30) for k in range(n + 1) for p in (0.5, 1 / 3, 0.25, 0.1)]
    for _ in range(300):
        n, p = int(rng.integers(100, 200_000)), float(rng.choice([1 / 2, 1 / 3, 1 / 4, rng.random()]))
        cases.append((int(np.clip(round(rng.normal(n * p, 4 * np.sqrt(n * p * (1 - p)))), 0, n)), n, p))
    for k, n, p in cases:
        assert stats.binomial_test(k, n, p) == float(binomtest(k, n, p).pvalue), (k, n, p)
    with pytest.raises(ValueError):
        stats.binomial_test(5, 4, 0.5)
    z = np.concatenate([rng.normal(0, 3, 200), [0.0, np.inf, np.nan]])
    assert np.array_equal(ndtr(-z), norm.sf(z), equal_nan=True)  # the Wald tests' 2 * norm.sf, without scipy.stats


def test_merge_of_aggregated_summaries_is_exact():
    values = np.arange(20, dtype=float) ** 1.5
    with stats.aggregating():
        parts = [{"m": stats.mean(values[:7]), "r": stats.rate(3, 7)},
                 {"m": stats.mean(values[7:]), "r": stats.rate(9, 13)}]
    total = {}
    for p in parts:
        summaries.merge(total, p)
    merged = summaries.finalize(total)
    whole = stats.mean(values)
    assert merged["m"]["estimate"] == pytest.approx(whole["estimate"])
    assert merged["m"]["ci_low"] == pytest.approx(whole["ci_low"])
    assert merged["r"] == stats.rate(12, 20)


def test_aggregating_is_per_thread():
    """--backend threading summarises batches side by side in one process: a thread inside aggregating() must
    not switch sufficient statistics on for another thread, nor off when it leaves while another is inside."""
    import threading

    inside, leave, left = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def worker():
        with stats.aggregating():
            inside.set()
            leave.wait(10)
        left.set()

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(10)
    seen["other thread, outside"] = stats.rate(3, 7)
    with stats.aggregating():
        leave.set()
        left.wait(10)  # the other thread has left its block while this one is still inside
        seen["inside after the other left"] = stats.mean([1.0, 2.0])
    thread.join()
    assert "_kind" not in seen["other thread, outside"]
    assert seen["inside after the other left"]["_kind"] == "mean"
    assert "_kind" not in stats.rate(1, 2)


def _tiny_tables():
    """Four matches, hand-made: the round starter wins 3 of 5 decided rounds, one drawn round."""
    games = pd.DataFrame({"match": [0, 1, 2, 3], "first_starter": [0, 1, 0, 1], "winner": [0, 0, 1, 1],
                          "seals_0": [2, 2, 0, 1], "seals_1": [0, 0, 2, 2], "rounds": [2, 2, 1, 1],
                          "turns": [80, 90, 40, 50],
                          "strategy_0": ["a", "a", "b", "a"], "strategy_1": ["b", "b", "a", "a"]})
    base = {k: 0 for k in ("decisions", "goods_tokens_0", "goods_tokens_1", "goods_rupees_0", "goods_rupees_1",
                           "bonus_tokens_0", "bonus_tokens_1", "bonus_rupees_0", "bonus_rupees_1", "coins_0",
                           "coins_1", "tie_break", "end_reason")}
    rows = [dict(match=0, round=1, starter=0, winner=0, turns=40, rupees_0=50, rupees_1=45, coin_token=0),
            dict(match=0, round=2, starter=1, winner=0, turns=40, rupees_0=60, rupees_1=58, coin_token=-1),
            dict(match=1, round=1, starter=1, winner=0, turns=45, rupees_0=40, rupees_1=30, coin_token=1),
            dict(match=1, round=2, starter=1, winner=-1, turns=45, rupees_0=30, rupees_1=30, coin_token=-1),
            dict(match=2, round=1, starter=0, winner=1, turns=40, rupees_0=20, rupees_1=21, coin_token=1),
            dict(match=3, round=1, starter=1, winner=1, turns=50, rupees_0=30, rupees_1=40, coin_token=-1)]
    rounds = pd.DataFrame([{**base, **r} for r in rows])
    rounds["decisions"] = rounds["turns"] // 2
    rounds["end_reason"] = [1, 2, 2, 1, 2, 2]
    rounds = rounds.merge(games[["match", "strategy_0", "strategy_1"]], on="match")
    return {"games": games, "rounds": rounds}


def test_mohur_metrics_against_hand_computed_table():
    tables = _tiny_tables()
    meta = {"game": "mohur", "games": 4, "config": {"report": {"seconds_per_turn": 6.0}}}
    s = mohur_analysis.summarize(tables, meta)
    # decided rounds: starters 0,1,1,0,1 against winners 0,0,0,1,1 -> starter won rounds 1, 5 (match 0 r1,
    # match 3 r1): 2 of 5
    assert s["first_player_round_win_rate[all_games]"]["estimate"] == pytest.approx(2 / 5)
    assert s["first_player_round_win_rate[all_games]"]["n"] == 5
    assert s["first_player_match_win_rate[all_games]"]["estimate"] == pytest.approx(2 / 4)  # matches 0 and 3
    assert s["seat0_match_win_rate[all_games]"]["estimate"] == pytest.approx(2 / 4)
    # the headline figures come from the mirror match (3: a against a): its starter (seat 1) won its one round
    for key in ("first_player_round_win_rate", "first_player_match_win_rate", "first_player_round_win_rate[mirror=a]"):
        assert s[key]["estimate"] == 1 and s[key]["n"] == 1 and s[key]["population"] == "mirror"
    assert s["seat0_match_win_rate"]["estimate"] == 0
    assert "first_player_round_win_rate[mirror=b]" not in s
    assert s["drawn_round_rate"]["estimate"] == pytest.approx(1 / 6)
    assert s["turns_per_round"]["estimate"] == pytest.approx(260 / 6)
    assert s["rounds_per_match"]["estimate"] == pytest.approx(6 / 4)
    assert s["coin_token_rate"]["estimate"] == pytest.approx(3 / 6)
    assert s["minutes_per_match"]["estimate"] == pytest.approx(np.mean([80, 90, 40, 50]) * 6 / 60)
    assert s["close_round_rate"]["estimate"] == pytest.approx(3 / 6)  # margins 5, 2, 10, 0, 1, 10
    # strategy a wins matches 0 and 1 (seat 0), 2 (seat 1) and is both seats of match 3 (one win, two plays)
    assert s["win_rate[a]"]["estimate"] == pytest.approx(4 / 5) and s["win_rate[a]"]["n"] == 5
    assert s["win_rate[b]"]["estimate"] == pytest.approx(0 / 3) and s["win_rate[b]"]["n"] == 3
    assert s["decision_move_rate"]["estimate"] == pytest.approx((20 + 20 + 22 + 22 + 20 + 25) / 260)


def test_bradley_terry_orders_strengths():  # planted-truth tests of the fit itself: tests/test_models.py
    rng = np.random.default_rng(0)
    n = 3000
    strength = {"strong": 2.0, "mid": 1.0, "weak": 0.5}
    names = list(strength)
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(1, 3, n)) % 3
    p = np.array([strength[names[i]] / (strength[names[i]] + strength[names[j]]) for i, j in zip(a, b)])
    win = rng.random(n) < p
    games = pd.DataFrame({"match": np.arange(n), "winner": np.where(win, 0, 1),
                          "strategy_0": [names[i] for i in a], "strategy_1": [names[j] for j in b]})
    bt = common.bradley_terry(common.two_player_long(games, "match"))
    assert list(bt.index) == ["strong", "mid", "weak"]
    # true gap strong-weak: 400 log10(4) = 241 Elo points
    gap = bt.loc["strong", "elo"] - bt.loc["weak", "elo"]
    assert 180 < gap < 300
    assert (bt["ci_low"] < bt["elo"]).all() and (bt["elo"] < bt["ci_high"]).all()


@pytest.mark.slow
def test_report_end_to_end_and_summary_agrees_with_parquet(tmp_path):
    out = tmp_path / "run"
    ok(cli("run", "mohur", "-n", 600, "--batch-size", 300, "-o", out, "-q", "-s", "greedy,racer,setbuilder"))
    html = (out / "report.html").read_text()
    assert "First-player advantage" in html and "data:image/png;base64," in html
    assert "src='http" not in html  # self-contained: nothing to fetch
    for png in ("win_rate_by_strategy.png", "matchups.png", "strength.png", "first_player_by_round.png",
                "turns_per_round.png", "stack_split.png", "score_margin.png"):
        assert (out / png).stat().st_size > 1000
    summary = json.loads((out / "summary.json").read_text())
    games = pd.read_parquet(out / "games.parquet")
    rounds = pd.read_parquet(out / "rounds.parquet")
    assert summary["game"] == "mohur" and summary["games"] == 600 == len(games)
    decided = rounds[rounds["winner"] >= 0]
    assert summary["first_player_round_win_rate[all_games]"]["estimate"] == pytest.approx(
        (decided["winner"] == decided["starter"]).mean())
    mirror = decided[decided["strategy_0"] == decided["strategy_1"]]
    assert summary["first_player_round_win_rate"]["estimate"] == pytest.approx(
        (mirror["winner"] == mirror["starter"]).mean())
    assert summary["first_player_round_win_rate"]["population"] == "mirror"
    won = games[games["winner"] >= 0]
    assert summary["first_player_match_win_rate[all_games]"]["estimate"] == pytest.approx(
        (won["winner"] == won["first_starter"]).mean())
    mirror_games = won[won["strategy_0"] == won["strategy_1"]]
    assert summary["seat0_match_win_rate"]["estimate"] == pytest.approx((mirror_games["winner"] == 0).mean())
    for strat in ("greedy", "racer", "setbuilder"):
        assert np.isfinite(summary[f"strength[{strat}]"]["estimate"])
    assert sum(summary[f"nash_weight[{s}]"]["estimate"] for s in ("greedy", "racer", "setbuilder")) == \
        pytest.approx(1.0)
    assert "Round starter wins the round" in html and "p = 0 " not in html and "p = 0)" not in html
    assert summary["turns_per_round"]["estimate"] == pytest.approx(rounds["turns"].mean())
    assert summary["rounds_per_match"]["estimate"] == pytest.approx(games["rounds"].mean())
    assert summary["coin_token_rate"]["estimate"] == pytest.approx((rounds["coin_token"] >= 0).mean())
    for strat in ("greedy", "racer", "setbuilder"):
        wins = ((games["strategy_0"] == strat) & (games["winner"] == 0)).sum() + \
               ((games["strategy_1"] == strat) & (games["winner"] == 1)).sum()
        played = (games["strategy_0"] == strat).sum() + (games["strategy_1"] == strat).sum()
        assert summary[f"win_rate[{strat}]"]["estimate"] == pytest.approx(wins / played)
        assert summary[f"win_rate[{strat}]"]["n"] == played
    for m in summary.values():
        if isinstance(m, dict) and m.get("estimate") is not None and m.get("ci_low") is not None:
            assert m["ci_low"] <= m["estimate"] + 1e-12 <= m["ci_high"] + 2e-12
    # the report command rebuilds the same summary from the folder
    ok(cli("report", out, "-o", tmp_path / "again"))
    assert json.loads((tmp_path / "again" / "summary.json").read_text()) == summary


@pytest.mark.parametrize("game,players", [("mughal", 4), ("muziris", 3)])
@pytest.mark.slow
def test_other_games_report_end_to_end(game, players, tmp_path):
    out = tmp_path / game
    ok(cli("run", game, "-n", 400, "--batch-size", 200, "-p", players, "-o", out, "-q"))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["game"] == game and summary["games"] == 400
    for seat in range(players):
        assert f"seat_win_rate[{seat}]" in summary
        assert summary[f"seat_win_rate[{seat}]"]["population"] == "mirror"  # -s all plays mirror games too
    assert any(k.startswith("strength[") for k in summary)
    assert sum(m["estimate"] for k, m in summary.items() if k.startswith("nash_weight[")) == pytest.approx(1.0)
    assert "tie_rate" in summary and any(k.startswith("win_rate[") for k in summary)
    assert "data:image/png;base64," in (out / "report.html").read_text()
