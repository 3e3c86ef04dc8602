"""What decides games: hand-built games whose answer is known, and the kernels' score-by-source bookkeeping
(per-source columns sum to the total; the winners recomputed from them are the recorded winners)."""
import json

import numpy as np
import pandas as pd
import pytest

from analysis import decisive as D, mohur as M, mughal as G, muziris as muziris_analysis
from analysis.summary import summary_for
from sim.runner import execute
from cli_runs import cli as _invoke, default_plan, ok

GOODS = M.GOODS


# ---- Mohur: hand-built rounds ---------------------------------------------------------------------------------
def _round(match, rnd, **kw):
    row = {"match": match, "round": rnd, "coin_token": -1}
    for p in (0, 1):
        row.update({f"bonus_rupees_{p}": 0, f"bonus_tokens_{p}": 0})
        for g in GOODS:
            row.update({f"taken_{g}_{p}": 0, f"tokens_{g}_{p}": 0})
    row.update(kw)
    for p in (0, 1):  # totals follow from the parts, as in the kernel
        row[f"goods_rupees_{p}"] = sum(row[f"taken_{g}_{p}"] for g in GOODS)
        row[f"goods_tokens_{p}"] = sum(row[f"tokens_{g}_{p}"] for g in GOODS)
        row[f"rupees_{p}"] = (row[f"goods_rupees_{p}"] + row[f"bonus_rupees_{p}"]
                              + (5 if row["coin_token"] == p else 0))
    return row


MOHUR_CFG = {"rules": {"coin_token": 5, "seals_to_win": 2}}


def _mohur(rows, n_matches):
    return pd.DataFrame({"match": np.arange(n_matches)}), pd.DataFrame(rows)


def test_mohur_round_won_by_exactly_the_coin_token_is_decided_by_it():
    # seat 0: 20 rupees of diamonds (one token) + the coin token = 25; seat 1: 20 of gold (two tokens). Won by
    # exactly the token's 5: without it 20 and 20, no bonus tokens, and seat 1's two goods tokens win the round
    close = _round(0, 1, coin_token=0, taken_diamond_0=20, tokens_diamond_0=1, taken_gold_1=20, tokens_gold_1=2)
    actual, without = M.round_winners_without(pd.DataFrame([close]), 5)
    assert actual.tolist() == [0]
    assert without["coin_token"].tolist() == [1]
    assert without["goods_gold"].tolist() == [0]          # seat 1 loses its gold: 25 against 0
    assert without["goods_diamond"].tolist() == [1]       # seat 0 loses its diamonds: 5 against 20
    assert without["bonus_tokens"].tolist() == [0]        # nobody drew one


def test_mohur_blowout_is_decided_by_nothing():
    blowout = _round(0, 1, coin_token=0, taken_diamond_0=30, taken_gold_0=25, taken_silver_0=20,
                     tokens_diamond_0=5, tokens_gold_0=5, tokens_silver_0=5, bonus_rupees_0=8, bonus_tokens_0=1,
                     taken_cloth_1=3, tokens_cloth_1=3)
    games, rounds = _mohur([blowout, {**blowout, "round": 2}], 1)
    s = M.decisive_metrics(games, rounds, MOHUR_CFG)
    s.pop("decisive_lead", None)  # the paired lead of the top two (analysis.decisive.lead), tested there
    sources = ["coin_token", "bonus_tokens"] + [f"goods_{g}" for g in GOODS]
    assert set(s) == ({f"{k}[{src}]" for k in ("decisive_rate", "decisive_round_rate") for src in sources}
                      | {f"decisive_rate[{src}][{part}]" for src in sources for part in ("certain", "ambiguous")})
    assert all(m["estimate"] == 0 for m in s.values())
    assert s["decisive_rate[coin_token]"]["n"] == 1 and s["decisive_round_rate[coin_token]"]["n"] == 2


def test_mohur_token_count_tie_breaks_lose_the_removed_tokens():
    # level on rupees (10 each); seat 0 has the only bonus token (worth 0 here: tie-break material only), so it
    # wins on bonus-token count. Without bonus tokens the goods-token count decides: seat 1 has 3 against 1.
    tie = _round(0, 1, taken_diamond_0=10, tokens_diamond_0=1, bonus_tokens_0=1,
                 taken_cloth_1=10, tokens_cloth_1=3)
    actual, without = M.round_winners_without(pd.DataFrame([tie]), 5)
    assert actual.tolist() == [0]
    assert without["bonus_tokens"].tolist() == [1]
    # without cloth, seat 1 has 0 rupees: seat 0 wins anyway; without diamonds seat 1 wins on rupees
    assert without["goods_cloth"].tolist() == [0] and without["goods_diamond"].tolist() == [1]
    # level on rupees and bonus tokens: the goods-token count decides, and removing spice (the good that made
    # seat 0's count larger, worth nothing in rupees here) leaves the round drawn
    level = _round(0, 1, taken_gold_0=6, tokens_gold_0=1, tokens_spice_0=1, taken_gold_1=6, tokens_gold_1=1)
    actual, without = M.round_winners_without(pd.DataFrame([level]), 5)
    assert actual.tolist() == [0] and without["goods_spice"].tolist() == [-1]


def test_mohur_match_level_replays_the_seals():
    coin1 = dict(coin_token=1, taken_diamond_0=22, tokens_diamond_0=3, taken_gold_1=20, tokens_gold_1=3)  # 1 by 3
    big0 = dict(taken_diamond_0=40, tokens_diamond_0=3, taken_gold_1=10, tokens_gold_1=3)
    rows = [
        # match 0: 2-0 for seat 0; the coin token never matters -> decisive for nothing
        _round(0, 1, **big0), _round(0, 2, **big0),
        # match 1: 1-1 then seat 0 wins round 3; seat 1 won round 2 by 3 rupees with the coin token (22 against
        # 20 + 5): without the token seat 0 wins round 2 and the match 2-0: the same winner -> not decisive
        _round(1, 1, **big0), _round(1, 2, **coin1), _round(1, 3, **big0),
        # match 2: seat 1 wins 2-1, its first win by the coin token; without it seat 0 reaches 2 seals in round 2
        _round(2, 1, **coin1), _round(2, 2, **big0), _round(2, 3, coin_token=1, taken_gold_1=40, tokens_gold_1=1),
        # match 3: 2-0 for seat 1, round 2 by the coin token; without it 1-1 and no third round was played:
        # the deciding round is a toss-up -> half a change
        _round(3, 1, coin_token=1, taken_gold_1=40, tokens_gold_1=1), _round(3, 2, **coin1),
    ]
    games, rounds = _mohur(rows, 4)
    actual, without = M.round_winners_without(rounds, 5)
    match_row, position = rounds["match"].to_numpy(), rounds["round"].to_numpy() - 1
    assert M.match_winners(match_row, position, actual, 4, 2).tolist() == [0, 0, 1, 1]
    assert M.match_winners(match_row, position, without["coin_token"], 4, 2).tolist() == [0, 0, 0, -1]
    s = M.decisive_metrics(games, rounds, MOHUR_CFG)
    s.pop("decisive_lead", None)  # the paired lead of the top two (analysis.decisive.lead), tested there
    assert M.match_change(np.array([0, 0, 1, 1]), np.array([0, 0, 0, -1])).tolist() == [0, 0, 1, 0.5]
    assert M.match_change(np.array([-1, -1]), np.array([1, -1])).tolist() == [1, 0]  # a round-cap match
    assert s["decisive_rate[coin_token]"]["estimate"] == pytest.approx(1.5 / 4)
    assert s["decisive_round_rate[coin_token]"]["estimate"] == pytest.approx(3 / 10)  # rounds 1.2, 2.1, 3.2
    assert s["decisive_rate[goods_gold]"]["estimate"] == pytest.approx(1.5 / 4)  # match 2 flips, 3 unfinished
    # the two parts: one match surely changes (match 2), one is left unfinished (match 3); the figure lies between
    assert s["decisive_rate[coin_token][certain]"]["estimate"] == pytest.approx(1 / 4)
    assert s["decisive_rate[coin_token][ambiguous]"]["estimate"] == pytest.approx(1 / 4)


def test_sources_are_ranked_on_the_certain_part_and_overlaps_are_said():
    """The audit's case: the coin token decides 6.25% surely plus 6.64% unfinished (9.6% counting halves); bonus
    tokens outrank it only through the half-counting. Ranked on the certain part, and the overlap is named."""
    def fig(est, lo=None, hi=None):
        return {"estimate": est, "ci_low": est - 0.005 if lo is None else lo, "ci_high": est + 0.005, "n": 4000}
    summary = {"decisive_rate[coin_token]": fig(0.0957), "decisive_rate[coin_token][certain]": fig(0.0625),
               "decisive_rate[coin_token][ambiguous]": fig(0.0664),
               "decisive_rate[bonus_tokens]": fig(0.0990), "decisive_rate[bonus_tokens][certain]": fig(0.0500),
               "decisive_rate[bonus_tokens][ambiguous]": fig(0.0980),
               "decisive_rate[goods_leather]": fig(0.0010), "decisive_rate[goods_leather][certain]": fig(0.0010),
               "decisive_rate[goods_leather][ambiguous]": fig(0.0)}
    table = D.ranked(D._table(summary, "decisive_rate", M.decisive_labels()))
    assert list(table["source"]) == ["coin_token", "bonus_tokens", "goods_leather"]
    assert D.overlapping(table) == [("coin token", "bonus tokens")]
    text = D._reading(table, "matches")
    assert "6.2% surely" in text and "cannot order coin token and bonus tokens" in text


def test_mohur_results_without_token_counts_have_no_decisive_figures():
    games, rounds = _mohur([_round(0, 1)], 1)
    assert M.decisive_metrics(games, rounds.drop(columns=["tokens_gold_1"]), MOHUR_CFG) == {}


# ---- Mughal and Muziris: hand-built player rows --------------------------------------------------------------
MUGHAL_CFG = {"rules": {"final_tie": "share"},
              "emperors": [{"name": "Babur the Tiger"}, {"name": "Humayun"}]}


def _mughal(games):
    rows = []
    for g, seats in enumerate(games):
        for seat, (maj, allsuits, dis, e1, e2) in enumerate(seats):
            rows.append({"game": g, "seat": seat, "vt_majority": maj, "vt_all_suits": allsuits,
                         "vt_disaster": dis, "emp_vt_1": e1, "emp_vt_2": e2, "vt_emperor": e1 + e2,
                         "vt_total": maj + allsuits + dis + e1 + e2})
    return pd.DataFrame(rows).sample(frac=1, random_state=0)  # row order must not matter


def test_mughal_emperor_bonus_decides_a_close_game_and_not_a_blowout():
    players = _mughal([
        [(10, 2, 0, 7, 0), (12, 2, -1, 0, 3), (4, 0, 0, 0, 0)],   # 19 against 16: Babur's 7 decides it
        [(30, 4, 0, 7, 3), (6, 0, -2, 0, 0), (4, 0, 0, 0, 0)],    # blowout: nothing decides it
        [(10, 0, 0, 3, 0), (12, 0, -1, 0, 2), (2, 0, 0, 0, 0)],   # 13 and 13 shared; without Disasters seat 1
    ])
    s = G.decisive_metrics(players, MUGHAL_CFG, 3)
    s.pop("decisive_lead", None)  # the paired lead of the top two (analysis.decisive.lead), tested there
    rate = {k[len("decisive_rate["):-1]: v["estimate"] for k, v in s.items()}
    # game 0: 19, 16, 4; without Babur 12 against 16. Game 2: 13 and 13 shared: any source that only one of
    # the two scored breaks the tie (Babur, Humayun, majorities 3 against 1, Disasters 13 against 14)
    assert rate == pytest.approx({"emperor_babur_the_tiger": 2 / 3, "emperor_humayun": 1 / 3,
                                  "majorities": 1 / 3, "all_suits": 0.0, "disasters": 1 / 3})
    assert all(v["n"] == 3 for v in s.values())


def test_mughal_emperor_named_twice_is_one_source_and_no_winner_rule_counts():
    players = _mughal([[(10, 0, 0, 2, 2), (11, 0, 0, 0, 0)]])  # 14 against 11: the two turns' 4 VT decide
    cfg = {"rules": {"final_tie": "none"}, "emperors": [{"name": "Akbar"}, {"name": "Akbar"}]}
    s = G.decisive_metrics(players, cfg, 2)
    s.pop("decisive_lead", None)  # the paired lead of the top two (analysis.decisive.lead), tested there
    assert s["decisive_rate[emperor_akbar]"]["estimate"] == 1.0
    tie = _mughal([[(10, 0, -1, 0, 0), (9, 0, 0, 0, 0)]])  # 9 and 9: nobody wins under "none"; without
    s = G.decisive_metrics(tie, {"rules": {"final_tie": "none"}, "emperors": []}, 2)  # Disasters seat 0 does
    assert s["decisive_rate[disasters]"]["estimate"] == 1.0


def _muziris(games):
    cols = ("coins_order_banana", "coins_order_pepper", "coins_characters", "coins_action_beggar",
            "coins_action_advisor", "coins_ability_coconut", "coins_setup", "coins_condition")
    rows = []
    for g, seats in enumerate(games):
        for seat, parts in enumerate(seats):
            row = {"game": g, "seat": seat, **dict(zip(cols, parts))}
            row["coins"] = sum(parts)
            rows.append(row)
    return pd.DataFrame(rows)


MUZIRIS_CFG = {"produce": {"banana": {"ability": ["draw 2"]}, "pepper": {"ability": ["coins_per_order 1 4"]},
                           "coconut": {"ability": ["gain 2"]}},
               "characters": {"beggar": {"action": ["gain 2"]}, "advisor": {"action": ["market_ability"]}}}


def test_muziris_sources_follow_the_rules_and_the_condition_tie_break():
    players = _muziris([
        # 22 against 20; without pepper's 2 order coins 20 and 20, and seat 0 keeps the win on condition coins
        [(10, 2, 5, 0, 0, 0, 0, 5), (10, 0, 6, 0, 0, 0, 1, 3)],
        # 20 and 20, condition 5 against 3: seat 0 wins on the tie-break; without the condition 15 against 17
        [(10, 0, 5, 0, 0, 0, 0, 5), (10, 0, 4, 2, 0, 0, 1, 3)],
        # 20 and 20, no condition coins: shared; without seat 1's Beggar coins seat 0 wins alone
        [(10, 0, 8, 0, 0, 2, 0, 0), (10, 0, 7, 2, 0, 0, 1, 0)],
    ])
    s = muziris_analysis.decisive_metrics(players, MUZIRIS_CFG, 2)
    s.pop("decisive_lead", None)  # the paired lead of the top two (analysis.decisive.lead), tested there
    rate = {k[len("decisive_rate["):-1]: v["estimate"] for k, v in s.items()}
    # banana has no coin ability and the advisor's action gives none: no ability sources for them
    assert set(rate) == {"orders_banana", "orders_pepper", "character_coins", "action_beggar", "ability_coconut",
                         "setup_coins", "condition"}
    assert rate == pytest.approx({
        "orders_banana": 0.0,            # 10 from each seat: nothing changes
        "orders_pepper": 0.0,            # game 0: 20 and 20, seat 0 still first on condition coins
        "character_coins": 2 / 3,        # game 1: 15 against 16; game 2: 12 against 13
        "action_beggar": 1 / 3,          # game 2: 20 against 18 (game 1: 20 against 18 keeps seat 0 first)
        "ability_coconut": 1 / 3,        # game 2: 18 against 20
        "setup_coins": 1 / 3,            # game 2: 20 against 19 (game 1: seat 0 keeps its win)
        "condition": 2 / 3})             # game 0: 17 and 17 -> shared; game 1: 15 against 17


# ---- kernels: per-source columns sum to the totals, and the recomputed winners are the recorded ones ---------
def _play(game, players, n=300, lineup=("greedy",)):
    spec, cfg, plan = default_plan(game, players, n, 5, lineup, 150)
    tables, _ = execute(spec, cfg, plan, jobs=1, progress=False)
    return tables, cfg


@pytest.fixture(scope="module")
def mohur_run():
    return _play("mohur", 2, lineup=("greedy", "hoarder", "racer"))


@pytest.fixture(scope="module")
def mughal_run():
    return _play("mughal", 4, n=200, lineup=("greedy", "emperor", "dodger"))


@pytest.fixture(scope="module")
def muziris_run():
    return _play("muziris", 3, lineup=("greedy", "collector", "grabber"))


def test_mohur_kernel_books_every_rupee_and_token_by_source(mohur_run):
    tables, cfg = mohur_run
    games, rounds = tables["games"], tables["rounds"]
    coin = cfg.raw["rules"]["coin_token"]
    for p in (0, 1):
        taken = sum(rounds[f"taken_{g}_{p}"].astype(int) for g in GOODS)
        tokens = sum(rounds[f"tokens_{g}_{p}"].astype(int) for g in GOODS)
        assert (taken == rounds[f"goods_rupees_{p}"]).all()
        assert (tokens == rounds[f"goods_tokens_{p}"]).all()
        total = rounds[f"goods_rupees_{p}"] + rounds[f"bonus_rupees_{p}"] + np.where(rounds["coin_token"] == p, coin, 0)
        assert (total == rounds[f"rupees_{p}"]).all()
    assert all(rounds[f"tokens_{g}_0"].sum() > 0 for g in GOODS)
    actual, without = M.round_winners_without(rounds, coin)
    assert (actual == rounds["winner"].to_numpy()).all()
    match_row = pd.Index(games["match"]).get_indexer(rounds["match"])
    played = M.match_winners(match_row, rounds["round"].to_numpy() - 1, actual, len(games),
                             cfg.raw["rules"]["seals_to_win"])
    assert (played == games["winner"].to_numpy()).all()
    assert any((w != actual).any() for w in without.values())


def test_mughal_kernel_vt_parts_sum_to_the_total(mughal_run):
    tables, cfg = mughal_run
    pl = tables["players"]
    emperor = sum(pl[f"emp_vt_{t}"].astype(int) for t in range(1, len(cfg.raw["emperors"]) + 1))
    assert (emperor == pl["vt_emperor"]).all()
    parts = pl["vt_majority"] + pl["vt_all_suits"] + pl["vt_emperor"] + pl["vt_disaster"]
    assert (parts == pl["vt_total"]).all()
    winners = D.winner_mask([D.seat_grid(pl, 4, "vt_total")])
    assert (winners == (D.seat_grid(pl.assign(w=pl["win_share"] > 0), 4, "w") > 0)).all()


def test_muziris_kernel_books_every_coin_by_source(muziris_run):
    tables, cfg = muziris_run
    pl = tables["players"]
    orders = sum(pl[f"coins_order_{t}"].astype(int) for t in cfg.produce)
    abilities = (sum(pl[f"coins_action_{c}"].astype(int) for c in cfg.characters)
                 + sum(pl[f"coins_ability_{t}"].astype(int) for t in cfg.produce))
    assert (orders == pl["coins_orders"]).all()
    assert (abilities == pl["coins_abilities"]).all()
    parts = pl["coins_orders"] + pl["coins_characters"] + pl["coins_abilities"] + pl["coins_setup"] + pl["coins_condition"]
    assert (parts == pl["coins"]).all()
    # the split goes where the rules say: coconut and pepper abilities, the Beggar's and the Broker's actions
    for column in ("coins_ability_coconut", "coins_ability_pepper", "coins_action_beggar", "coins_action_broker"):
        assert pl[column].sum() > 0, column
    for column in ("coins_ability_banana", "coins_action_advisor", "coins_action_scholar", "coins_action_farmer"):
        assert pl[column].sum() == 0, column
    winners = D.winner_mask([D.seat_grid(pl, 3, "coins"), D.seat_grid(pl, 3, "coins_condition")])
    assert (winners == (D.seat_grid(pl.assign(w=pl["win_share"] > 0), 3, "w") > 0)).all()


def test_summaries_carry_decisive_rates_for_every_source(mohur_run, mughal_run, muziris_run):
    for game, players, (tables, cfg) in (("mohur", 2, mohur_run), ("mughal", 4, mughal_run),
                                         ("muziris", 3, muziris_run)):
        s = summary_for(tables, {"game": game, "games": len(tables["games"]), "players": players, "config": cfg.raw})
        rates = {k: v for k, v in s.items() if k.startswith("decisive_rate[") and k.count("[") == 1}
        assert len(rates) >= 8, game
        for m in rates.values():
            assert m["n"] == len(tables["games"]) and m["ci_low"] <= m["estimate"] <= m["ci_high"]
        by_condition = {k: v for k, v in s.items() if k.startswith("decisive_rate[") and "[condition=" in k}
        assert bool(by_condition) == (game == "muziris"), game  # Muziris: split by the market condition drawn
        for source in rates:  # the conditions' games add up to all games
            parts = [m for k, m in by_condition.items() if k.startswith(source[:-1] + "][")]
            assert not parts or sum(m["n"] for m in parts) == len(tables["games"])
    assert "decisive_rate[emperor_babur_the_tiger]" in summary_for(
        mughal_run[0], {"game": "mughal", "games": 200, "players": 4, "config": mughal_run[1].raw})


# ---- the designer's commands: summary-only runs, sweeps and tune targets -------------------------------------
SMALL = ["-s", "greedy,racer", "--seed", "5", "--batch-size", "500", "-q"]


def test_summary_only_run_gives_the_same_decisive_rates(tmp_path):
    full, agg = tmp_path / "full", tmp_path / "agg"
    assert _invoke("run", "mohur", "-n", "1000", "-o", full, *SMALL).exit_code == 0
    assert _invoke("run", "mohur", "-n", "1000", "-o", agg, "--summary-only", *SMALL).exit_code == 0
    a = json.loads((full / "summary.json").read_text())
    b = json.loads((agg / "summary.json").read_text())
    names = [k for k in a if k.startswith(("decisive_rate[", "decisive_round_rate["))]
    assert len(names) == 32  # 8 sources: rounds, matches, and the matches' certain and ambiguous parts
    for name in names:
        assert b[name] == pytest.approx(a[name], rel=1e-12), name
    assert "What decides games" in (full / "report.html").read_text()


@pytest.mark.slow
def test_sweep_and_tune_accept_decisive_rate_targets(tmp_path):
    # without a coin token (0 rupees) it can decide nothing; at 10 rupees it decides some matches
    target = "decisive_rate[coin_token]=0..0.02"
    r = ok(_invoke("sweep", "mohur", "--param", "rules.coin_token", "--values", "0", "10", "-n", "1000",
                   "-o", tmp_path / "sweep", "--target", target, *SMALL))
    table = pd.read_csv(tmp_path / "sweep" / "sweep.csv")
    assert table["decisive_rate[coin_token]"].tolist()[0] == 0 and table["decisive_rate[coin_token]"][1] > 0.02
    assert "decisive_rate[coin_token]" in (tmp_path / "sweep" / "sweep_report.html").read_text()
    assert ("inside every target (Winner changes without the coin token in 0.0% to 2.0%): rules.coin_token=0."
            in r.output)
    r = ok(_invoke("tune", "mohur", "--param", "rules.coin_token", "--values", "0", "10", "--target", target,
                   "--budget", "2000", "-o", tmp_path / "tune", *SMALL))
    best = json.loads((tmp_path / "tune" / "tune.json").read_text())["ranking"][0]
    assert best["params"] == {"rules.coin_token": 0}
    assert best["targets"]["decisive_rate[coin_token]"]["verdict"] == "meets"


def test_winner_mask_is_the_lexicographic_maximum():
    """winner_mask takes each key's row maximum a column at a time; it must mark exactly the seats whose keys
    are the row's lexicographic maximum, for any number of seats and keys, ties shared or void."""
    rng = np.random.default_rng(2)
    for _ in range(200):
        n, p = int(rng.integers(0, 60)), int(rng.integers(1, 6))
        keys = [rng.integers(-3, 4, (n, p)) for _ in range(int(rng.integers(1, 4)))]
        best = [max(tuple(int(k[r, s]) for k in keys) for s in range(p)) for r in range(n)]
        want = np.array([[tuple(int(k[r, s]) for k in keys) == best[r] for s in range(p)] for r in range(n)],
                        dtype=bool).reshape(n, p)
        assert np.array_equal(D.winner_mask(keys), want)
        assert np.array_equal(D.winner_mask(keys, "none"), want & (want.sum(axis=1, keepdims=True) == 1))
