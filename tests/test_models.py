"""Strengths, equal-skill seat edges and the meta-game, each on simulated data with a planted truth."""
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

from analysis import common, edges, models, mohur as mohur_analysis, stats, summary as summaries
from analysis.formatting import fmt_metric, plain_name
from analysis.style import clip_upper, overflow_note
from sim.runner import Plan, lineups


# ---- Bradley-Terry / Luce ----
def _two_player_games(rng, beta, n, mirrors=True, seat_edge=0.0):
    """n games between strategies of log-strength `beta`, pairings drawn uniformly (mirror pairings included
    when `mirrors`); seat 0 gets `seat_edge` on the log-odds scale."""
    k = len(beta)
    pairs = np.array([(i, j) for i in range(k) for j in range(k) if mirrors or i != j])
    pick = pairs[rng.integers(0, len(pairs), n)]
    p0 = expit(beta[pick[:, 0]] - beta[pick[:, 1]] + seat_edge)
    w0 = (rng.random(n) < p0).astype(float)
    return pick, np.stack([w0, 1 - w0], axis=1)


def _diff_and_se(fit, i, j):
    d = fit.beta[i] - fit.beta[j]
    se = np.sqrt(fit.cov[i, i] + fit.cov[j, j] - 2 * fit.cov[i, j])
    return d, se


def test_luce_with_two_players_is_the_logistic_regression_statsmodels_fits():
    import statsmodels.api as sm
    rng = np.random.default_rng(1)
    beta = np.array([0.8, 0.0, -0.5])
    pick, win = _two_player_games(rng, beta, 6000, mirrors=False, seat_edge=0.2)
    fit = models.fit_luce(pick, win, ["a", "b", "c"], None, 2)
    # reference: seat-0 win ~ seat intercept + (x_i - x_j), strategy c as the baseline
    x = np.zeros((len(pick), 2))
    for col in range(2):
        x[:, col] = (pick[:, 0] == col).astype(float) - (pick[:, 1] == col).astype(float)
    ref = sm.Logit(win[:, 0], sm.add_constant(x)).fit(disp=0)
    for col in range(2):
        d, se = _diff_and_se(fit, col, 2)
        assert d == pytest.approx(ref.params[col + 1], abs=2e-3)
        assert se == pytest.approx(ref.bse[col + 1], rel=2e-2)
    # the seat term: position 1's effect is minus seat 0's edge
    assert -fit.beta[3] == pytest.approx(ref.params[0], abs=2e-3)


def test_luce_with_more_players_matches_statsmodels_conditional_logit():
    from statsmodels.discrete.conditional_models import ConditionalLogit
    rng = np.random.default_rng(2)
    beta = np.array([0.6, 0.0, -0.4, 0.2])
    n, p = 1500, 3
    strat = rng.integers(0, 4, (n, p))
    u = beta[strat]
    prob = np.exp(u) / np.exp(u).sum(axis=1, keepdims=True)
    winner = (prob.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1)
    win = np.zeros((n, p))
    win[np.arange(n), winner] = 1
    fit = models.fit_luce(strat, win, list("abcd"), None, 1)
    exog = np.stack([(strat == c).astype(float).ravel() for c in range(3)], axis=1)  # d is the baseline
    ref = ConditionalLogit(win.ravel(), exog, groups=np.repeat(np.arange(n), p)).fit(disp=0)
    for c in range(3):
        d, se = _diff_and_se(fit, c, 3)
        assert d == pytest.approx(ref.params[c], abs=5e-3)
        assert se == pytest.approx(ref.bse[c], rel=3e-2)


def test_strengths_recover_planted_elo_including_a_strategy_that_never_wins():
    rng = np.random.default_rng(3)
    elo = np.array([200.0, 0.0, -150.0, -2500.0])   # the last one practically never wins
    pick, win = _two_player_games(rng, elo / models.ELO, 20000)
    mirror = pick[:, 0] == pick[:, 1]
    assert win[~mirror][pick[~mirror] == 3].sum() == 0  # the planted truth as described: d never wins
    table = models.strengths(models.fit_luce(pick[~mirror], win[~mirror], list("abcd"), None, 2))
    assert np.isfinite(table[["elo", "ci_high"]].to_numpy(dtype=float)).all()
    assert np.isfinite(table.loc[["a", "b", "c"], "ci_low"]).all() and np.isnan(table.loc["d", "ci_low"])
    assert list(table.index) == ["a", "b", "c", "d"] and table.loc["d", "bound"] == "upper"
    assert table.loc["d", "ci_high"] < table.loc["c", "elo"] - 500
    # the differences among the others lie within their intervals' reach (about 3 standard errors)
    for x, y in (("a", "b"), ("b", "c"), ("a", "c")):
        d = table.loc[x, "elo"] - table.loc[y, "elo"]
        half = (table.loc[x, "ci_high"] - table.loc[x, "ci_low"]) / 2 + (table.loc[y, "ci_high"] - table.loc[y, "ci_low"]) / 2
        assert abs(d - (elo["abcd".index(x)] - elo["abcd".index(y)])) < half
    # a strategy that never wins does not widen the others' intervals: a few Elo at this size
    assert (table.loc[["a", "b", "c"], "ci_high"] - table.loc[["a", "b", "c"], "ci_low"]).max() / 2 < 25


def test_strength_intervals_shrink_like_one_over_root_n():
    beta = np.array([0.5, 0.0, -0.3])
    widths = []
    for n in (5000, 20000):
        pick, win = _two_player_games(np.random.default_rng(4), beta, n)
        t = models.strengths(models.fit_luce(pick, win, list("abc"), None, 2))
        widths.append((t["ci_high"] - t["ci_low"]).to_numpy())
    ratio = widths[0] / widths[1]
    assert np.all((ratio > 1.8) & (ratio < 2.2))


def test_strength_difference_intervals_cover_about_95_percent():
    beta = np.array([0.4, 0.0, -0.6])
    hits = 0
    reps = 200
    for seed in range(reps):
        pick, win = _two_player_games(np.random.default_rng(100 + seed), beta, 600)
        fit = models.fit_luce(pick, win, list("abc"), None, 2)
        d, se = _diff_and_se(fit, 0, 2)
        hits += abs(d - 1.0) < 1.959963984540054 * se
    assert 0.90 <= hits / reps <= 0.99


# ---- first-player edge with a catch-up rule ----
def _mohur_like(rng, beta, n_matches, edge, mirrors=True):
    """Best-of-three matches: round 1's starter is random, later rounds are started by the previous loser;
    P(starter wins) = expit(logit(edge) + strength(starter) - strength(other)). Returns (games, rounds)."""
    k = len(beta)
    pairs = np.array([(i, j) for i in range(k) for j in range(k) if mirrors or i != j])
    pick = pairs[rng.integers(0, len(pairs), n_matches)]
    starter = rng.integers(0, 2, n_matches)
    first = starter.copy()
    won = np.zeros((n_matches, 2), dtype=int)
    winner = np.full(n_matches, -1)
    rows = []
    for rnd in (1, 2, 3):
        live = winner < 0
        idx = np.nonzero(live)[0]
        s = starter[idx]
        own, other = pick[idx, s], pick[idx, 1 - s]
        starter_wins = rng.random(len(idx)) < expit(logit(edge) + beta[own] - beta[other])
        w = np.where(starter_wins, s, 1 - s)
        rows.append(pd.DataFrame({"match": idx, "round": rnd, "starter": s, "winner": w}))
        won[idx, w] += 1
        starter[idx] = 1 - w  # the loser starts the next round
        done = won[idx].max(axis=1) >= 2
        winner[idx[done]] = won[idx[done]].argmax(axis=1)
    names = np.array([f"s{i}" for i in range(k)])
    games = pd.DataFrame({"match": np.arange(n_matches), "first_starter": first, "winner": winner,
                          "strategy_0": names[pick[:, 0]], "strategy_1": names[pick[:, 1]]})
    rounds = pd.concat(rows, ignore_index=True).merge(games[["match", "strategy_0", "strategy_1"]], on="match")
    return games, rounds


def test_headline_starter_edge_recovers_the_planted_edge_and_the_raw_rate_does_not():
    rng = np.random.default_rng(5)
    games, rounds = _mohur_like(rng, np.array([1.5, 0.0, -1.5]), 30000, 0.53)
    out = mohur_analysis.first_player_metrics(games, rounds)
    head, naive = out["first_player_round_win_rate"], out["first_player_round_win_rate[all_games]"]
    assert head["population"] == "mirror"
    assert head["ci_low"] <= 0.53 <= head["ci_high"]
    assert not naive["ci_low"] <= 0.53 <= naive["ci_high"]   # today's report would have been caught
    assert naive["estimate"] < 0.5                            # ...it even reverses the sign
    r1 = out["first_player_round_win_rate[round=1]"]
    assert r1["ci_low"] <= 0.53 <= r1["ci_high"]
    for s in ("s0", "s1", "s2"):
        m = out[f"first_player_round_win_rate[mirror={s}]"]
        assert m["ci_low"] - 0.01 <= 0.53 <= m["ci_high"] + 0.01


def test_without_mirror_matches_the_model_recovers_the_planted_edge():
    rng = np.random.default_rng(6)
    games, rounds = _mohur_like(rng, np.array([1.5, 0.0, -1.5]), 30000, 0.53, mirrors=False)
    out = mohur_analysis.first_player_metrics(games, rounds)
    head = out["first_player_round_win_rate"]
    assert head["population"] == "model"
    assert head["ci_low"] <= 0.53 <= head["ci_high"]
    naive = out["first_player_round_win_rate[all_games]"]
    assert not naive["ci_low"] <= 0.53 <= naive["ci_high"]
    assert "first_player_round_win_rate[mirror=s0]" not in out


def test_model_starter_edge_interval_covers_about_95_percent():
    hits, reps = 0, 100
    for seed in range(reps):
        games, rounds = _mohur_like(np.random.default_rng(1000 + seed), np.array([1.0, 0.0, -1.0]), 1500,
                                    0.53, mirrors=False)
        r = rounds[["winner", "starter", "strategy_0", "strategy_1"]]
        m = edges.two_seat_edges(r, r["starter"])["rates"][0]
        hits += m["ci_low"] <= 0.53 <= m["ci_high"]
    assert 0.88 <= hits / reps <= 1.0


def test_seat_edges_with_more_players_at_equal_skill():
    """Four seats with planted position effects, strategies of very different strength placed so the strong one
    sits in seat 0 more often: the raw seat rates are confounded, mirror games and the model are not."""
    rng = np.random.default_rng(8)
    n, p = 40000, 4
    delta = np.array([0.3, 0.0, 0.0, -0.2])
    beta = np.array([1.2, 0.0, -1.0])
    truth = np.exp(delta) / np.exp(delta).sum()
    strat = rng.integers(0, 3, (n, p))
    strat[: n // 2, 0] = 0  # the strong strategy holds seat 0 in half the games
    mirror = np.arange(n) % 3 == 0
    strat[mirror] = rng.integers(0, 3, mirror.sum())[:, None]
    mirror = edges.is_mirror(strat)  # (random lineups are sometimes mirrors too)
    u = beta[strat] + delta
    prob = np.exp(u) / np.exp(u).sum(axis=1, keepdims=True)
    winner = (prob.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1)
    win = np.zeros((n, p))
    win[np.arange(n), winner] = 1
    pos = np.tile(np.arange(p), (n, 1))
    names = ["a", "b", "c"]
    with_mirrors = edges.position_edges(strat, pos, win, names, p)
    without = edges.position_edges(strat[~mirror], pos[~mirror], win[~mirror], names, p)
    assert with_mirrors["population"] == "mirror" and without["population"] == "model"
    for e in (with_mirrors, without):
        for k in range(p):  # eight checks at once: allow 1.5 half-widths (about 3 standard errors)
            r = e["rates"][k]
            assert abs(r["estimate"] - truth[k]) < 1.5 * (r["ci_high"] - r["ci_low"]) / 2
    assert with_mirrors["naive"][0]["ci_low"] > truth[0] + 0.02


# ---- the meta-game ----
def test_nash_of_rock_paper_scissors_is_uniform():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    assert models.nash_mix(rps) == pytest.approx([1 / 3] * 3, abs=1e-9)


def test_nash_puts_all_weight_on_a_dominant_strategy():
    a = np.array([[0, 0.2, 0.3, 0.1], [-0.2, 0, 0.1, -0.1], [-0.3, -0.1, 0, 0.2], [-0.1, 0.1, -0.2, 0]])
    assert models.nash_mix(a) == pytest.approx([1, 0, 0, 0], abs=1e-9)


def test_nash_table_from_head_to_head_records():
    names = ["rock", "paper", "scissors"]
    n = pd.DataFrame(1000.0, index=names, columns=names)
    rate = pd.DataFrame([[0.5, 0.3, 0.7], [0.7, 0.5, 0.3], [0.3, 0.7, 0.5]], index=names, columns=names)
    table = models.nash_table(rate * n, n, reps=100)
    assert table["weight"].to_numpy() == pytest.approx([1 / 3] * 3, abs=1e-6)
    assert (table["ci_low"] <= table["weight"]).all() and (table["weight"] <= table["ci_high"]).all()
    assert models.nash_metrics(table, 3000)["nash_weight[rock]"]["estimate"] == pytest.approx(1 / 3, abs=1e-6)


def test_meta_game_metrics_on_two_player_games():
    rng = np.random.default_rng(8)
    pick, win = _two_player_games(rng, np.array([1.0, 0.0, -0.5]), 3000)
    out = common.meta_game_metrics(pick, win, ["a", "b", "c"])
    assert sum(out[f"nash_weight[{s}]"]["estimate"] for s in "abc") == pytest.approx(1.0)
    assert out["nash_weight[a]"]["estimate"] == pytest.approx(1.0)  # a beats everything
    assert out["strength[a]"]["estimate"] > out["strength[b]"]["estimate"] > out["strength[c]"]["estimate"]


def test_a_strength_the_data_bound_on_one_side_is_flagged_with_a_bound_from_the_data():
    """d never wins: its strength is flagged `bound: upper` and given as the Elo at which winning none of its
    games has probability 5%: true (d is far below it) at 6,000 and 50,000 games alike, not the prior's value."""
    elo = np.array([200.0, 0.0, -150.0, -2500.0])
    bounds = []
    for n in (6000, 50000):
        pick, win = _two_player_games(np.random.default_rng(3), elo / models.ELO, n)
        mirror = pick[:, 0] == pick[:, 1]
        fit = models.fit_luce(pick[~mirror], win[~mirror], list("abcd"), None, 2)
        out = models.strength_metrics(models.strengths(fit))
        d = out["strength[d]"]
        assert d["bound"] == "upper" and d["ci_low"] is None and d["ci_high"] == d["estimate"]
        assert "bound" not in out["strength[a]"] and out["strength[a]"]["ci_low"] is not None
        assert elo[3] - elo[1] < d["estimate"] - out["strength[b]"]["estimate"]  # the truth lies below the bound
        # the record's chance at the bound is 5%: 0 wins in n_d games against the others at their strengths
        bounds.append(d["estimate"])
    assert bounds[1] < bounds[0] < -1000  # more games, a tighter bound; both true statements
    # one that always wins is bounded from below
    pick, win = _two_player_games(np.random.default_rng(4), np.array([2500.0, 0.0, -100.0]) / models.ELO, 6000)
    mirror = pick[:, 0] == pick[:, 1]
    table = models.strengths(models.fit_luce(pick[~mirror], win[~mirror], list("abc"), None, 2))
    assert table.loc["a", "bound"] == "lower" and np.isnan(table.loc["a", "ci_high"])
    assert table.loc["a", "elo"] < 2500 + 50


@pytest.mark.slow
def test_one_sided_strength_bound_holds_about_95_percent_of_the_time():
    """A planted strategy 900 Elo below b, in runs small enough that it often wins nothing: whenever it is
    flagged, its bound lies above the truth in at least ~95% of runs."""
    beta = np.array([0.0, -900.0]) / models.ELO
    flagged, wrong = 0, 0
    for rep in range(300):
        rng = np.random.default_rng(900 + rep)
        pick = np.tile([0, 1], (150, 1))
        pick[1::2] = pick[1::2, ::-1]
        p0 = expit(beta[pick[:, 0]] - beta[pick[:, 1]])
        w0 = (rng.random(len(pick)) < p0).astype(float)
        table = models.strengths(models.fit_luce(pick, np.stack([w0, 1 - w0], axis=1), ["b", "d"], None, 2))
        if table.loc["d", "bound"] == "upper":
            flagged += 1
            wrong += (table.loc["d", "elo"] - table.loc["b", "elo"]) < -900
    assert flagged > 100 and wrong / flagged <= 0.07


def _grouped_mixed_games(rng, elo, n):
    """n games between different strategies of the planted Elo strengths, the ordered pair drawn uniformly,
    grouped by pair (fit_luce's `weights`): (pairs, summed win shares, games per pair)."""
    k = len(elo)
    pairs = np.array([(i, j) for i in range(k) for j in range(k) if i != j])
    games = rng.multinomial(n, np.full(len(pairs), 1 / len(pairs))).astype(float)
    w0 = rng.binomial(games.astype(int), expit((elo[pairs[:, 0]] - elo[pairs[:, 1]]) / models.ELO))
    return pairs, np.stack([w0, games - w0], axis=1).astype(float), games


def _statement(fit, name):
    """What a run says about `name`'s strength: (low, high) on the table's Elo scale (a one-sided bound leaves
    one end open) and the bound's side (None: two-sided)."""
    row = models.strengths(fit).loc[name]
    low = -np.inf if np.isnan(row.ci_low) else row.ci_low
    high = np.inf if np.isnan(row.ci_high) else row.ci_high
    return low, high, row.bound


@pytest.mark.slow
def test_strength_bounds_at_6000_and_50000_games_hold_and_never_contradict_each_other():
    """d (1550 Elo below b) wins nothing in ~64% of 6,000-game runs and a handful in 50,000 (which extend them).
    Each run's bound or interval holds the truth ~95% of the time, one side at a time; the larger run's statement
    overlaps the smaller's, and where both bound d the larger's bound is lower by about ELO * ln(games ratio)."""
    elo = np.array([200.0, 0.0, -150.0, -1550.0])
    reps, misses, disjoint = 200, {6000: [0, 0], 50000: [0, 0]}, 0
    for rep in range(reps):
        rng = np.random.default_rng(7000 + rep)
        small = _grouped_mixed_games(rng, elo, 6000)
        more = _grouped_mixed_games(rng, elo, 44000)
        said = {}
        for n, (pairs, wins, games) in ((6000, small), (50000, (small[0], small[1] + more[1], small[2] + more[2]))):
            fit = models.fit_luce(pairs, wins, list("abcd"), None, 2, weights=games)
            truth = elo[3] - fit.info / fit.info.sum() @ elo  # the table's anchor: weighted by information
            low, high, bound = said[n] = _statement(fit, "d")
            misses[n][0] += truth < low
            misses[n][1] += truth > high
        (l6, h6, b6), (l50, h50, b50) = said[6000], said[50000]
        disjoint += l50 > h6 or h50 < l6
        if b6 == b50 == "upper":
            assert h50 < h6
    for n, (low_misses, high_misses) in misses.items():
        assert low_misses / reps <= 0.05 and high_misses / reps <= 0.05, (n, misses)
    assert disjoint / reps <= 0.05
    # d planted far below: always bounded; the bound tightens as the record lengthens, by its chance alone
    elo = np.array([200.0, 0.0, -150.0, -2500.0])
    rng = np.random.default_rng(11)
    small = _grouped_mixed_games(rng, elo, 6000)
    more = _grouped_mixed_games(rng, elo, 44000)
    big = (small[0], small[1] + more[1], small[2] + more[2])
    fits = [models.fit_luce(p, w, list("abcd"), None, 2, weights=g) for p, w, g in (small, big)]
    (_, h6, b6), (_, h50, b50) = (_statement(f, "d") for f in fits)
    assert b6 == b50 == "upper" and -2500 < h50 < h6
    d_games = [g[(p == 3).any(axis=1)].sum() for p, _, g in (small, big)]
    assert h6 - h50 == pytest.approx(models.ELO * np.log(d_games[1] / d_games[0]), abs=30)



def test_a_strategy_that_almost_always_wins_is_bounded_from_below_and_its_few_losses_counted():
    """d planted 1300 Elo above a: in 6,000 games it loses none (a lower bound) or a few (an interval counted
    from its losses); either statement holds the truth, one side at a time, in ~95% of runs or more."""
    elo = np.array([0.0, -100.0, -250.0, 1300.0])
    reps, kinds, misses = 150, {"lower": 0, None: 0}, [0, 0]
    for rep in range(reps):
        pairs, wins, games = _grouped_mixed_games(np.random.default_rng(300 + rep), elo, 6000)
        fit = models.fit_luce(pairs, wins, list("abcd"), None, 2, weights=games)
        low, high, bound = _statement(fit, "d")
        kinds[bound] += 1
        truth = elo[3] - fit.info / fit.info.sum() @ elo
        misses[0] += truth < low
        misses[1] += truth > high
    assert kinds["lower"] > 20 and kinds[None] > 20  # both kinds of statement are tested
    assert misses[0] / reps <= 0.05 and misses[1] / reps <= 0.05

def test_a_strength_bound_does_not_come_from_the_prior(monkeypatch):
    """The bound (d never wins) and a rare record's interval (e wins a few games) barely move when the prior
    is three times narrower or ten times wider: they come from the games."""
    for weakest, bound in ((-2500.0, "upper"), (-1300.0, None)):
        elo = np.array([200.0, 0.0, -150.0, weakest])
        pairs, wins, games = _grouped_mixed_games(np.random.default_rng(12), elo, 20000)
        won = wins[pairs[:, 0] == 3, 0].sum() + wins[pairs[:, 1] == 3, 1].sum()
        assert won == 0 if bound else 0 < won < models.RARE_RECORD
        tables = []
        for sd in (models.PRIOR_SD_ELO / 3, models.PRIOR_SD_ELO, models.PRIOR_SD_ELO * 10):
            monkeypatch.setattr(models, "PRIOR_SD_ELO", sd)
            tables.append(models.strengths(models.fit_luce(pairs, wins, list("abcd"), None, 2, weights=games)))
        assert tables[1].loc["d", "bound"] == bound
        for t in (tables[0], tables[2]):
            for col in ("elo", "ci_high"):
                assert t.loc["d", col] == pytest.approx(tables[1].loc["d", col], abs=5)


def test_the_strength_reading_gives_a_bound_as_one_from_the_record(tmp_path):
    elo = np.array([200.0, 0.0, -150.0, -2500.0])
    pairs, wins, games = _grouped_mixed_games(np.random.default_rng(13), elo, 6000)
    summary = models.strength_metrics(models.strengths(models.fit_luce(pairs, wins, list("abcd"), None, 2,
                                                                       weights=games)))
    sections, _ = common.meta_game_section(summary, tmp_path, {}, 2)
    reading = sections[0]["reading"]
    bound = summary["strength[d]"]["estimate"]
    assert "d never beat another strategy" in reading and f"below {bound:+.0f} Elo" in reading
    assert "not the prior" in reading and "about 120 Elo" in reading

def test_equilibrium_set_ranges_unique_and_continuum():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    low, high = models.equilibrium_ranges(rps)
    assert low == pytest.approx([1 / 3] * 3, abs=1e-6) and high == pytest.approx([1 / 3] * 3, abs=1e-6)
    # c beats g, g beats r, c and r exactly even: every mix of c and r with r <= 1/3 is an equilibrium
    a = np.array([[0, 0.2, 0.0], [-0.2, 0, 0.4], [0.0, -0.4, 0]])
    low, high = models.equilibrium_ranges(a)
    assert low == pytest.approx([2 / 3, 0, 0], abs=1e-6) and high == pytest.approx([1, 0, 1 / 3], abs=1e-6)


def _records(rate: np.ndarray, names, games=4000):
    n = pd.DataFrame(float(games), index=names, columns=names)
    return pd.DataFrame(rate, index=names, columns=names) * n, n


def test_nash_weight_gives_the_range_over_a_continuum_of_equilibria_and_never_a_false_one_one():
    names = ["condition", "greedy", "random"]
    wins, n = _records(np.array([[0.5, 0.7, 0.5], [0.3, 0.5, 0.9], [0.5, 0.1, 0.5]]), names)
    out = models.nash_metrics(models.nash_table(wins, n, reps=50), 12000)
    assert out["nash_unique"] is False
    c, r = out["nash_weight[condition]"], out["nash_weight[random]"]
    assert (c["range_low"], c["range_high"]) == pytest.approx((2 / 3, 1), abs=1e-6)
    assert (r["range_low"], r["range_high"]) == pytest.approx((0, 1 / 3), abs=1e-6)
    assert c["ci_low"] <= 2 / 3 + 1e-6 and r["ci_high"] >= 1 / 3 - 1e-6  # the interval spans the set
    # a unique answer keeps its exact interval
    wins, n = _records(np.array([[0.5, 0.7, 0.6], [0.3, 0.5, 0.9], [0.4, 0.1, 0.5]]), names)
    out = models.nash_metrics(models.nash_table(wins, n, reps=50), 12000)
    assert out["nash_unique"] is True
    c = out["nash_weight[condition]"]
    assert c["estimate"] == c["range_low"] == c["range_high"] == c["ci_low"] == c["ci_high"] == 1.0


def test_an_unmeasured_pair_is_unknown_not_even():
    names = ["condition", "greedy", "random"]
    wins, n = _records(np.array([[0.5, 0.7, 0.5], [0.3, 0.5, 0.9], [0.5, 0.1, 0.5]]), names)
    n.loc["condition", "random"] = n.loc["random", "condition"] = 0
    wins.loc["condition", "random"] = wins.loc["random", "condition"] = 0
    assert models.unmeasured_pairs(n) == [("condition", "random")]
    with pytest.raises(ValueError, match="never met"):
        models.nash_table(wins, n)
    # three players, every pair meets only through the line-ups: the summary says which cell is unknown
    strategy = np.array([[0, 1, 1], [1, 2, 2], [0, 1, 1], [2, 1, 1]])
    win = np.array([[1, 0, 0], [0, 1, 0], [0, 1, 0], [1, 0, 0]], dtype=float)
    out = common.meta_game_metrics(strategy, win, names)
    assert out["nash_unmeasured"] == ["condition vs random"] and not [k for k in out if k.startswith("nash_w")]


def test_every_pair_of_strategies_meets_in_a_multi_player_round_robin():
    for c, p in ((6, 3), (7, 3), (9, 4), (5, 3)):
        seats = lineups(Plan("muziris", p, 3000, 1, tuple(range(c)), 3000, True), 0, 3000)
        met = {pair for row in seats for pair in itertools.combinations(sorted(set(row.tolist())), 2)}
        assert len(met) == c * (c - 1) // 2, (c, p)
        for seat in range(p):  # and every strategy sits in every seat about equally often
            counts = np.bincount(seats[:, seat], minlength=c)
            assert counts.max() - counts.min() <= 0.05 * counts.mean()


# ---- readability helpers ----
def test_plain_names_and_clipped_histograms():
    assert plain_name("first_player_round_win_rate") == "Round starter wins the round"
    assert plain_name("first_player_round_win_rate[mirror=greedy]").endswith("mirror games of greedy")
    assert plain_name("strength[racer]") == "racer's strength (Elo)"
    assert plain_name("something_new[x]") == "something_new[x]"
    assert edges.p_text(0.0) == "p < 0.0001" and edges.p_text(0.03) == "p = 0.03"
    values = np.concatenate([np.full(9990, 40), np.full(10, 1000)])
    kept, cap, left_off, largest = clip_upper(values)
    assert kept.max() == 40 and left_off == 10 and largest == 1000
    assert "10 rounds" in overflow_note(left_off, len(values), cap, largest, "rounds")


# ---- --summary-only: model estimates merge as lineup cells ----
def test_model_estimate_merges_across_batches_exactly():
    rng = np.random.default_rng(9)
    games, rounds = _mohur_like(rng, np.array([1.0, 0.0, -1.0]), 4000, 0.53, mirrors=False)
    r = rounds[["winner", "starter", "strategy_0", "strategy_1"]]
    whole = edges.two_seat_edges(r, r["starter"])["rates"][0]
    total = {}
    with stats.aggregating():
        for part in (r.iloc[:3000], r.iloc[3000:]):
            summaries.merge(total, {"x": edges.two_seat_edges(part, part["starter"])["rates"][0]})
    merged = summaries.finalize(total)["x"]
    assert merged["population"] == "model" and merged["n"] == whole["n"]
    for key in ("estimate", "ci_low", "ci_high"):
        assert merged[key] == pytest.approx(whole[key], rel=1e-9)


def test_mirror_rate_wins_over_a_batch_without_mirror_games():
    rng = np.random.default_rng(10)
    games, rounds = _mohur_like(rng, np.array([1.0, 0.0, -1.0]), 3000, 0.53)
    r = rounds[["winner", "starter", "strategy_0", "strategy_1"]]
    mixed = r[r["strategy_0"] != r["strategy_1"]]
    for order in ((r, mixed), (mixed, r)):
        total = {}
        with stats.aggregating():
            for part in order:
                summaries.merge(total, {"x": edges.two_seat_edges(part, part["starter"])["rates"][0]})
        merged = summaries.finalize(total)["x"]
        assert merged == edges.two_seat_edges(r, r["starter"])["rates"][0]


def test_lineup_grouping_is_numpys_row_unique():
    """group_lineups packs small codes into one integer per row to sort them quickly; rows and the inverse must
    be exactly those of np.unique(axis=0) (their order decides the summation order, hence summary.json's bits),
    also where packing is refused (a negative code, too many combinations) and on an empty table."""
    rng = np.random.default_rng(3)
    cases = [rng.integers(0, hi, (n, c)) for n, c, hi in ((1, 2, 1), (500, 4, 3), (3000, 8, 7), (2000, 3, 40))]
    cases += [np.array([[0, -1], [2, 0], [0, -1]]), np.array([[2 ** 40, 1], [5, 2 ** 30], [5, 0]]),
              np.zeros((0, 4), dtype=np.int64)]
    for key in cases:
        key = key.astype(np.int64)
        rows, inverse = models.unique_rows(key)
        want_rows, want_inverse = np.unique(key, axis=0, return_inverse=True)
        assert np.array_equal(rows, want_rows) and rows.dtype == want_rows.dtype
        assert np.array_equal(inverse, want_inverse.ravel()) and inverse.dtype == want_inverse.dtype


def test_names_of_is_astype_str():
    """common.names_of builds `astype(str)` from a categorical's categories: the same Series, dtype included."""
    values = pd.Series(["greedy", "random", "greedy", "hoarder"] * 5, index=range(100, 120), name="strategy")
    for column in (values, values.astype("category"),
                   pd.Series(pd.Categorical(values, categories=["random", "hoarder", "greedy", "unused"]),
                             index=values.index, name="strategy"),
                   pd.Series(pd.Categorical([1, 2, 1]))):
        got, want = common.names_of(column), column.astype(str)
        pd.testing.assert_series_equal(got, want)
        assert got.dtype == want.dtype


def test_nash_answers_a_dominant_strategy_as_the_linear_program_does():
    """nash_mix skips the linear program when one strategy beats every other; HiGHS's answer is then exactly that
    pure strategy, bit for bit (summary.json's weights and bootstrap intervals must not change), down to edges of
    a billionth. Without such a strategy (a zero: a pair that never met, or a cycle) the program still runs."""
    rng = np.random.default_rng(11)
    for _ in range(400):
        k = int(rng.integers(2, 9))
        a = rng.normal(0, rng.choice([1e-3, 0.1, 0.3]), (k, k))
        a = (a - a.T) / 2
        i = int(rng.integers(k))
        a[i] = np.abs(a[i]) + rng.choice([1e-9, 1e-5, 0.01]) * rng.random(k)
        a[:, i] = -a[i]
        np.fill_diagonal(a, 0.0)
        assert (np.delete(a[i], i) > 0).all()
        want = models._nash_lp(a)
        assert np.array_equal(models.nash_mix(a), want) and want[i] == 1.0
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    never_met = np.array([[0, 0.2, 0.0], [-0.2, 0, 0.1], [0.0, -0.1, 0]])
    for a in (rps, never_met):
        assert np.array_equal(models.nash_mix(a), models._nash_lp(a))


# ---- figures that must not drift or mix populations ----
def _mirror_matches(rng, n, seat0=0.5085, strategies=("a", "b", "c", "d")):
    """n decided mirror matches, strategies in turn, seat 0 winning with probability `seat0` whoever plays."""
    names = np.array(strategies)[np.arange(n) % len(strategies)]
    winner = (rng.random(n) >= seat0).astype(int)
    return pd.DataFrame({"winner": winner, "strategy_0": names, "strategy_1": names})


def test_balance_does_not_drift_with_run_size():
    """Mirror matches with a planted seat gap (balance 0.983): the pooled figure reads the same on average at 6,000
    and 50,000 matches (the worst per-strategy gap would drift from 0.95 up), and the two intervals agree."""
    means, inside = {6000: [], 50000: []}, []
    for rep in range(40):
        rng = np.random.default_rng(70 + rep)
        got = {}
        for n in means:
            frame = _mirror_matches(rng, n)
            got[n] = edges.balance(edges.two_seat_edges(frame, np.zeros(n, dtype=np.int64))["rates"][0])
            means[n].append(got[n]["estimate"])
        small, large = got[6000], got[50000]
        inside.append(small["ci_low"] <= large["estimate"] <= small["ci_high"])
        assert small["ci_low"] <= large["ci_high"] and large["ci_low"] <= small["ci_high"]
        assert small["population"] == edges.MIRROR
    assert abs(np.mean(means[6000]) - np.mean(means[50000])) < 0.006
    assert abs(np.mean(means[50000]) - 0.983) < 0.004
    assert np.mean(inside) >= 0.85


def test_balance_without_mirror_matches_is_the_models_and_says_so():
    rng = np.random.default_rng(5)
    n = 6000
    frame = pd.DataFrame({"winner": (rng.random(n) >= 0.6).astype(int),
                          "strategy_0": np.where(np.arange(n) % 2, "a", "b"),
                          "strategy_1": np.where(np.arange(n) % 2, "b", "a")})
    b = edges.balance(edges.two_seat_edges(frame, np.zeros(n, dtype=np.int64))["rates"][0])
    assert b["population"] == edges.MODEL and b["estimate"] == pytest.approx(0.8, abs=0.03)


def test_win_rate_vs_field_leaves_out_the_strategys_own_mirror_games():
    """a beats b every time; half the games are mirrors. win_rate[a] mixes in its mirrors' 50%; against the
    field it is 100%."""
    rows = []
    for g in range(400):
        kind = g % 4  # a-b, b-a, a-a, b-b
        s0, s1 = [("a", "b"), ("b", "a"), ("a", "a"), ("b", "b")][kind]
        winner = 0 if s0 == "a" and s1 == "b" else 1 if s1 == "a" and s0 == "b" else g % 2
        rows.append({"match": g, "winner": winner, "strategy_0": s0, "strategy_1": s1})
    long = common.two_player_long(pd.DataFrame(rows), "match")
    plain, field = common.win_rate_metrics(long), common.win_rate_vs_field_metrics(long, "game")
    assert plain["win_rate[a]"]["estimate"] == pytest.approx(0.75)
    assert field["win_rate_vs_field[a]"]["estimate"] == 1.0 and field["win_rate_vs_field[b]"]["estimate"] == 0.0
    assert field["win_rate_vs_field[a]"]["n"] == 200
    assert common.win_rate_vs_field_metrics(long[~common.mirror_rows(long, "game")], "game") == {}


def test_a_model_figure_on_too_few_games_says_so_and_is_not_plotted(tmp_path):
    table = pd.DataFrame({"rate": [0.094, 0.906], "ci_low": [0.0, 0.0], "ci_high": [1.0, 1.0]})
    tiny, enough = models.model_rate(table, 0, 1), models.model_rate(table, 0, edges.MIN_MODEL_GAMES)
    assert tiny["too_few_games"] and edges.too_few(tiny) and not edges.too_few(enough)
    assert fmt_metric("first_player_round_win_rate[round=4]", tiny).startswith("too few games (n = 1")
    summary = {"first_player_round_win_rate": {"estimate": 0.55, "ci_low": 0.5, "ci_high": 0.6, "n": 900,
                                               "population": "model"},
               "first_player_round_win_rate[round=1]": {**enough, "n": 500},
               "first_player_round_win_rate[round=4]": tiny}
    section = mohur_analysis._first_player(None, summary, tmp_path)
    assert "Round 4 left out: too few games" in section["figures"][0]["reading"]
