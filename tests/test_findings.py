"""Findings on planted summaries: the right sentences, and none of the wrong ones."""
from __future__ import annotations

from analysis.findings import box, findings, section_links


def rate(est, lo, hi, n=4000, **extra):
    return {"estimate": est, "ci_low": lo, "ci_high": hi, "n": n, **extra}


def by_id(items):
    return {f["id"]: f for f in items}


def texts(items):
    return " ".join(f["text"] for f in items)


def test_a_60_percent_starter_edge_is_the_first_finding_with_its_interval():
    summary = {"first_player_round_win_rate": rate(0.60, 0.585, 0.615, population="mirror"),
               "first_player_match_win_rate": rate(0.52, 0.49, 0.55, population="mirror"),
               "minutes_per_match": rate(12.3, 12.1, 12.5)}
    items = findings(summary, seconds_per_turn=8)
    assert items[0]["id"] == "seat_gap"
    assert items[0]["figure"] == "first_player_round_win_rate"
    assert "60.0%" in items[0]["text"] and "58.5%-61.5%" in items[0]["text"]
    assert "real 10.0-point edge" in items[0]["text"]
    assert "No seat edge" not in texts(items)
    assert "12.3 minutes" in by_id(items)["length"]["text"]


def test_a_fair_game_says_no_edge_and_never_real():
    summary = {"first_player_round_win_rate": rate(0.502, 0.488, 0.516),
               "first_player_match_win_rate": rate(0.499, 0.48, 0.52),
               "seat0_match_win_rate": rate(0.497, 0.478, 0.516)}
    item = by_id(findings(summary))["seat_gap"]
    assert item["text"].startswith("No seat edge we can detect")
    assert "real" not in item["text"] and "handicap" not in item["text"]


def test_positions_name_the_best_and_worst_placed_player():
    summary = {"position_win_rate[0]": rate(0.336, 0.32, 0.35, population="mirror"),
               "position_win_rate[1]": rate(0.407, 0.39, 0.42, population="mirror"),
               "position_win_rate[2]": rate(0.257, 0.24, 0.27, population="mirror"),
               "position_win_rate[1][mirror=greedy]": rate(0.9, 0.8, 0.95),
               "seat_win_rate[0]": rate(0.33, 0.31, 0.35), "seat_win_rate[1]": rate(0.34, 0.32, 0.36),
               "seat_win_rate[2]": rate(0.33, 0.31, 0.35)}
    item = by_id(findings(summary))["seat_gap"]
    assert "player after the round-1 first player wins 40.7%" in item["text"]
    assert "the player two seats after 25.7%" in item["text"]
    assert "33.3%" in item["text"] and "15.0-point spread" in item["text"]
    assert item["figure"] == "position_win_rate[1]"


def test_a_dominant_strategy_is_called_dominant():
    summary = {"strength[hoarder]": rate(233, 227, 238), "strength[racer]": rate(-114, -118, -109),
               "strength[greedy]": rate(-120, -125, -115),
               "nash_weight[hoarder]": rate(1.0, 1.0, 1.0), "nash_weight[racer]": rate(0.0, 0.0, 0.0)}
    item = by_id(findings(summary))["strongest_strategy"]
    assert item["text"].startswith("hoarder dominates")
    assert "+233 Elo, 95% CI +227 to +238" in item["text"] and "100%" in item["text"]


def test_a_tie_names_no_winner_and_no_dominance():
    summary = {"strength[a]": rate(5, -3, 13), "strength[b]": rate(-5, -13, 3),
               "nash_weight[a]": rate(1.0, 0.2, 1.0), "nash_weight[b]": rate(0.0, 0.0, 0.8)}
    text = by_id(findings(summary))["strongest_strategy"]["text"]
    assert text.startswith("Toss-up between a and b")  # a's weight runs 20%-100%: the games do not fix the mix
    assert "dominat" not in text


def test_a_mixed_equilibrium_is_not_dominance_and_a_non_unique_one_says_so():
    summary = {"strength[a]": rate(100, 90, 110), "strength[b]": rate(0, -10, 10), "strength[c]": rate(-100, -110, -90),
               "nash_weight[a]": rate(0.6, 0.4, 0.8), "nash_weight[b]": rate(0.4, 0.2, 0.6),
               "nash_weight[c]": rate(0.0, 0.0, 0.0)}
    text = by_id(findings(summary))["strongest_strategy"]["text"]
    assert "none dominates" in text and "a 60%, b 40%" in text
    summary.update({"nash_weight[a]": rate(1.0, 0.9, 1.0), "nash_unique": False})
    text = by_id(findings(summary))["strongest_strategy"]["text"]
    assert "not unique" in text and "dominates" not in text


def test_a_one_sided_strength_is_flagged_with_or_without_the_bound_key():
    base = {"strength[a]": rate(200, 190, 210), "strength[b]": rate(0, -10, 10), "strength[c]": rate(-50, -60, -40)}
    old = by_id(findings({**base, "strength[r]": rate(-2000, -2700, -1300)}))
    assert "strength_bound[r]" in old and "rarely or never" in old["strength_bound[r]"]["text"]
    new = by_id(findings({**base, "strength[r]": rate(-2000, -2700, -1300, bound="upper")}))
    assert "at most -1300 Elo" in new["strength_bound[r]"]["text"]
    assert not any(k.startswith("strength_bound") for k in by_id(findings(base)))
    # a summary that flags bounds but flags none here: a wide interval from a few wins is two-sided, not a bound
    # (Muziris -s all: random at -695 Elo +-36 from its 88 wins, the others +-6, read as "bounded one way")
    wide = {**base, "strength[r]": rate(-695, -800, -590)}
    assert "strength_bound[r]" in by_id(findings(wide))  # an older summary: the width is the only sign
    assert not any(k.startswith("strength_bound") for k in by_id(findings({**wide, "nash_unique": True})))


def test_flags_rank_first_and_the_top_lever_is_named():
    summary = {"first_player_round_win_rate": rate(0.55, 0.54, 0.56),
               "decisive_rate[goods_diamond]": rate(0.226, 0.223, 0.228),
               "decisive_rate[coin_token]": rate(0.096, 0.095, 0.098),
               "decisive_rate[goods_diamond][certain]": rate(0.5, 0.4, 0.6),
               "round_cap_rate": rate(0.03, 0.02, 0.04), "partial": True}
    items = findings(summary, warnings=["cards: the deck holds exactly the deal"])
    assert [f["id"] for f in items[:3]] == ["partial", "degenerate_configuration[0]", "round_cap_rate"]
    lever = by_id(items)["top_lever"]
    assert "diamond tokens" in lever["text"] and "22.6%" in lever["text"] and "next the coin token" in lever["text"]
    assert by_id(findings({"round_cap_rate": rate(0.0, 0.0, 0.001)})) == {}


def test_the_top_lever_is_ranked_on_what_it_surely_decides_and_says_both_parts():
    """The bonus tokens' half-counted rate (10.6%) tops the coin token's (9.6%) only through their unfinished
    matches: the coin token surely decides more (7.0% against 6.3%); the lever is the coin token, both parts said."""
    summary = {"decisive_rate[coin_token]": rate(0.096, 0.093, 0.098),
               "decisive_rate[coin_token][certain]": rate(0.070, 0.068, 0.072),
               "decisive_rate[coin_token][ambiguous]": rate(0.052, 0.050, 0.054),
               "decisive_rate[bonus_tokens]": rate(0.106, 0.103, 0.109),
               "decisive_rate[bonus_tokens][certain]": rate(0.063, 0.061, 0.065),
               "decisive_rate[bonus_tokens][ambiguous]": rate(0.086, 0.083, 0.088)}
    text = by_id(findings(summary))["top_lever"]["text"]
    assert text.startswith("The coin token and the bonus tokens, not told apart")  # 6.3% + up to 8.8% reaches 6.8%
    assert "without its points the winner surely changes in 7.0%" in text
    assert "5.2% more are left unfinished (9.6% counting them half)" in text and "the bonus tokens 6.3% surely" in text
    summary["decisive_rate[bonus_tokens][ambiguous]"] = rate(0.0, 0.0, 0.001)
    text = by_id(findings(summary))["top_lever"]["text"]
    assert "not told apart" not in text and text.startswith("The strongest lever on who wins is the coin token")
    assert "next the bonus tokens at 6.3% surely" in text


def test_no_figures_no_findings_and_at_most_seven():
    assert findings({}) == []
    many = {f"strength[s{i}]": rate(100 - 200 * (i > 0) - 10 * i, 95 - 200 * (i > 0) - 10 * i,
                                    105 - 200 * (i > 0) - 10 * i) for i in range(8)}
    many.update({f"strength[w{i}]": rate(-3000, -3800, -2200, bound="upper") for i in range(8)})
    assert len(findings(many)) == 7


def test_summary_only_runs_use_win_rates_and_say_whose_lineup():
    summary = {"win_rate[a]": rate(0.7, 0.68, 0.72), "win_rate[b]": rate(0.3, 0.28, 0.32)}
    text = by_id(findings(summary))["strongest_strategy"]["text"]
    assert text.startswith("a wins most often of the play styles: 70.0%") and "lineup" in text


def test_the_box_links_each_finding_to_its_section():
    items = findings({"first_player_round_win_rate": rate(0.6, 0.58, 0.62),
                      "decisive_rate[x]": rate(0.2, 0.18, 0.22)})
    html = box(items, section_links(["Who wins", "First-player advantage", "What decides games"]))
    assert "href='#first-player-advantage'" in html and "href='#what-decides-games'" in html
    assert box([]) == ""


def test_minutes_from_an_assumed_pace_say_so_and_name_the_key_a_designer_sets():
    """Mughal's and Muziris' rulebooks give no playing time: their minutes rest on a configured assumption, and
    the finding says so and names the key; Mohur's on its pace per turn, with the rulebook's 10 to 15 minutes."""
    from analysis import mohur, mughal, muziris
    cases = [(mughal, {"report": {"seconds_per_pick": 10.0}}, "minutes_per_game", "report.seconds_per_pick",
              "the rulebook gives no playing time"),
             (muziris, {"report": {"seconds_per_action": 12.0}}, "minutes_per_game", "report.seconds_per_action",
              "the rulebook gives no playing time"),
             (mohur, {"report": {"seconds_per_turn": 8.0}}, "minutes_per_match", "report.seconds_per_turn",
              "10 to 15 minutes a match")]
    for module, config, key, setting, source in cases:
        context = module.finding_context({"config": config})
        text = by_id(findings({key: rate(5.8, 5.8, 5.8)}, **context))["length"]["text"]
        assert "5.8 minutes" in text and "assumed" in text and setting in text and source in text, text
    assert mughal.finding_context({"config": {}})["pace"] is None


def test_muziris_minutes_count_every_character_use_at_the_configured_pace():
    import pandas as pd

    from analysis.muziris import _minutes_metrics
    games = pd.DataFrame({"uses": [40, 60]})  # 50 character uses a game on average
    m = _minutes_metrics(games, {"config": {"report": {"seconds_per_action": 12.0}}})["minutes_per_game"]
    assert m["estimate"] == 10.0 and m["ci_low"] < 10.0 < m["ci_high"]
    assert _minutes_metrics(games, {"config": {}}) == {}


def test_a_flag_under_one_percent_does_not_lead_the_answers():
    """Mohur (seed 7101): "1 of 45,909 rounds ... end on a safety rule" came third, above how the answers move with
    skill and the top lever, because it is real (it happened); under 1% it ranks with the rest, by its rank."""
    summary = {"first_player_round_win_rate": rate(0.56, 0.552, 0.568),
               "decisive_rate[goods_diamond]": rate(0.226, 0.223, 0.228),
               "decisive_rate[coin_token]": rate(0.221, 0.218, 0.224),
               "safety_end_rate": {**rate(1 / 45909, 0.000004, 0.000123), "n": 45909}}
    ids = [f["id"] for f in findings(summary)]
    assert ids.index("top_lever") < ids.index("safety_end_rate")  # a lever not told apart (47) above the flag (35)
    big = {**summary, "safety_end_rate": {**rate(0.03, 0.028, 0.032), "n": 45909}}
    assert [f["id"] for f in findings(big)][0] == "safety_end_rate"  # from 1%, the results themselves are in doubt


def test_a_paired_lead_below_zero_reads_as_trailing_not_as_a_lead():
    """The split lead is the first's sure part less the next's possible part: -13.7 points means the diamond
    tokens trail the gold tokens once every unfinished match counts for gold, said in those words (it read
    'paired lead -13.7', as if gold led); plural labels take plural words."""
    summary = {"decisive_rate[diamond_tokens]": rate(0.214, 0.21, 0.22),
               "decisive_rate[diamond_tokens][certain]": rate(0.133, 0.128, 0.138),
               "decisive_rate[diamond_tokens][ambiguous]": rate(0.163, 0.16, 0.17),
               "decisive_rate[gold_tokens]": rate(0.20, 0.19, 0.21),
               "decisive_rate[gold_tokens][certain]": rate(0.117, 0.112, 0.122),
               "decisive_rate[gold_tokens][ambiguous]": rate(0.15, 0.14, 0.16),
               "decisive_lead": {**rate(-0.137, -0.145, -0.129), "first": "diamond_tokens", "second": "gold_tokens"}}
    text = by_id(findings(summary))["top_lever"]["text"]
    assert "not told apart" in text and "without their points" in text
    assert "the diamond tokens trail them by 13.7 points (95% CI 12.9-14.5)" in text
    summary["decisive_lead"] = {**rate(0.02, 0.01, 0.03), "first": "diamond_tokens", "second": "gold_tokens"}
    text = by_id(findings(summary))["top_lever"]["text"]
    assert text.startswith("The strongest lever") and "the diamond tokens lead them by 2.0 points (95% CI 1.0-3.0)" in text
