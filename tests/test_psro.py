"""PSRO (analysis.psro) on a rock-paper-scissors-like matrix game whose mixed equilibrium is known: each best
response found by `evolve`'s own search (sim.evolve.Evolution, noisy games) against the pool's equilibrium mix,
the pool's mix converging to the game's equilibrium."""
import numpy as np
import pytest

from analysis.psro import psro
from sim import evolve as E

# Rock, paper, scissors with unequal stakes: winning with rock pays 2. Equilibrium: (1/4, 1/2, 1/4).
PAYOFF = np.array([[0, -1, 2], [1, 0, -1], [-2, 1, 0]], dtype=float)
EQUILIBRIUM = np.array([0.25, 0.5, 0.25])
SPACE = E.Space(("action",), np.array([0.0]), np.array([2.0]), (True,))


def chance(a, b):
    """Win probability of pure action a against b: 0 to 1 (a stake of 2 wins or loses always)."""
    return 0.5 + PAYOFF[int(a), int(b)] / 4


def games(rng, a, members, n):
    """shares[member, game]: a's wins in n games against each member."""
    return np.array([(rng.random(n) < chance(a, b)).astype(float) for b in members])


def best_response_by_evolve(seed):
    def best_response(members, mix, r):
        rng = np.random.default_rng([seed, r])

        def evaluate(gen, candidates, n):
            return np.array([games(rng, c["action"], members, n) for c in candidates])

        start = {"action": float(members[-1])}
        ev = E.run(E.Evolution(SPACE, start, np.maximum(mix, 1e-9), E.Settings(30_000, seed + r, 2)), evaluate)
        return ev.winner()["action"]
    return best_response


def versus(seed):
    rng = np.random.default_rng([seed, 99])

    def measured(a, members):
        row = games(rng, a, members, 4000).mean(axis=1)
        return row, 1.0 - row  # two players, seats alternating: what one wins the other loses
    return measured


def by_action(pop):
    """The pool's equilibrium mix, summed over members playing the same action."""
    out = np.zeros(3)
    np.add.at(out, np.array(pop.members, dtype=int), pop.mix())
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_psro_converges_to_the_known_mixed_equilibrium(seed):
    pop = psro(0.0, best_response_by_evolve(seed), versus(seed), rounds=6, stop_gain=0.02)
    assert sorted(set(pop.members)) == [0.0, 1.0, 2.0], pop.members  # rock, then paper, then scissors
    assert np.abs(by_action(pop) - EQUILIBRIUM).max() < 0.06, (by_action(pop), pop.rounds)
    assert pop.rounds[-1]["gain"] <= 0.02, "the last best response no longer beats the mix"
    assert pop.rounds[0]["gain"] > 0.2, "paper beats a pool of rock: the first round gains"


def test_psro_with_exact_best_responses_stops_at_the_equilibrium():
    """Exact best responses and exact shares: rock, paper, scissors, then no gain; the mix is the equilibrium."""
    def exact(members, mix, r):
        value = [sum(w * chance(a, b) for w, b in zip(mix, members)) for a in range(3)]
        return float(np.argmax(value))

    def shares(a, members):
        return [chance(a, b) for b in members], [chance(b, a) for b in members]

    pop = psro(0.0, exact, shares, rounds=10)
    assert pop.members[:3] == [0.0, 1.0, 2.0] and len(pop.members) == 4
    assert np.allclose(by_action(pop), EQUILIBRIUM, atol=1e-6)


def test_psro_in_a_game_grows_its_pool_and_writes_its_best_responses(tmp_path):
    """A small Mohur population: the best responses join the pool with their head-to-head shares measured, the
    mix is over the pool, preset.toml holds every response as a preset `run` accepts."""
    import json
    from cli_runs import cli as invoke, ok
    out = tmp_path / "psro"
    ok(invoke("psro", "mohur", "--strategy", "hoarder", "--against", "greedy,racer", "--rounds", "2", "--budget", "800",
              "--popsize", "4", "--games", "20", "-j", "1", "--seed", "3", "-o", out, "-q"))
    result = json.loads((out / "psro.json").read_text())
    assert "self-play of hoarder" in (out / "psro.html").read_text()
    names = [m["name"] for m in result["members"]]
    assert names[:2] == ["greedy", "racer"] and names[2] == "hoarder-psro1" and len(names) in (3, 4)
    shares = np.array(result["shares"])
    assert shares.shape == (len(names),) * 2 and np.allclose(np.diag(shares), 0.5)
    assert abs(sum(result["mix"].values()) - 1) < 1e-9 and len(result["history"]) == len(names) - 2
    ok(invoke("run", "mohur", "--config", out / "preset.toml", "-s", "hoarder-psro1,greedy", "-n", "4", "-j", "1",
              "-q", "--no-report", "-o", tmp_path / "check"))
    bad = invoke("psro", "mohur", "--strategy", "hoarder", "--rounds", "0", "-o", tmp_path / "bad")
    assert bad.exit_code == 2 and "--rounds" in bad.output and not (tmp_path / "bad").exists()


def test_a_best_response_trains_only_against_the_members_its_mix_weighs():
    """Members under 1% of the mix leave the best response's pool (evolve plays every member equally often, so
    they would only take games); the rest keep their weights, renormalised."""
    from analysis.psro import support
    pool, weights = support(["tuned", "hoarder", "br1", "br2"], [0.6, 0.004, 0.3, 0.096])
    assert pool == ["tuned", "br1", "br2"]
    assert np.allclose(weights, np.array([0.6, 0.3, 0.096]) / 0.996)
    assert support(["a", "b"], [1.0, 0.0]) == (["a"], pytest.approx(np.array([1.0])))


def test_each_round_searches_from_the_mixs_heaviest_member_of_its_own_family():
    """The start is the heaviest member of the same base strategy, in the registry's parameter order; with none
    of the family in the mix, the strategy's own start."""
    from types import SimpleNamespace as Member
    from analysis.psro import warm_start
    base = Member(base_id=3)
    members = [Member(base_id=3, params=(1.0, 2.0, 3.0)), Member(base_id=5, params=(9.0,)),
               Member(base_id=3, params=(4.0, 5.0, 6.0)), Member(base_id=3, params=(7.0, 8.0, 0.0))]
    start = {"c": 0.5, "a": 0.1}
    assert warm_start(members, [0.2, 0.5, 0.3, 0.0], base, ("a", "b", "c"), start) == {"c": 6.0, "a": 4.0}
    assert warm_start(members, [0.0, 1.0, 0.0, 0.0], base, ("a", "b", "c"), start) == start


def test_with_more_players_the_gain_is_measured_from_the_fair_share():
    """Four players: a member against three copies of itself wins 1/4. `b` wins 30% as one seat against three
    `a` (a, 22% against three b): round 1 gains 0.05 and the loop goes on; a copy of `b` then gains nothing. A
    diagonal of 0.5 would have read round 1 as -0.20 and stopped."""
    from analysis.psro import Population, psro_from
    table = {("b", "a"): 0.30, ("a", "b"): 0.22, ("a", "a"): 0.25, ("b", "b"): 0.25}

    def shares(x, members):
        return [table[x, m] for m in members], [table[m, x] for m in members]

    pop = psro_from(Population(["a"], np.full((1, 1), 0.25)), lambda members, mix, r: "b", shares, rounds=5,
                    fair=0.25)
    assert [round(r["gain"], 9) for r in pop.rounds] == [0.05, 0.0] and pop.members == ["a", "b", "b"]
    assert pop.shares[2, 2] == 0.25 and pop.mix()[0] == pytest.approx(0, abs=1e-9)  # a, beaten, leaves the mix


def planted_result(gains, stop_gain=0.01):
    names = ["tuned", "<b>&bad", "tuned-psro1"]
    return {"setup": {"game": "mohur", "players": 2, "strategy": "tuned", "against": names[:2], "seed": 3,
                      "budget": 1000},
            "stop_gain": stop_gain, "games_played_per_pair": 400,
            "members": [{"name": n} for n in names], "mix": dict(zip(names, [0.0, 0.25, 0.75])),
            "shares": [[0.5, 0.6, 0.45], [0.4, 0.5, 0.3], [0.55, 0.7, 0.5]],
            "history": [{"round": r, "gain": g, "mix_before": [1, 0], "mix_after": [0.0, 0.25, 0.75]}
                        for r, g in enumerate(gains)]}


def test_the_psro_verdict_says_whether_the_loop_stopped_or_ran_out_of_rounds():
    from analysis.psro_page import verdict
    stopped = verdict(planted_result([0.08, 0.004]))
    assert "Round 2" in stopped and "+0.4 points" in stopped and "the loop stopped" in stopped
    ran_out = verdict(planted_result([0.08, 0.03]))
    assert "All 2 rounds" in ran_out and "+3.0 points" in ran_out and "more rounds may find more" in ran_out
    assert "stopped" not in ran_out


def test_the_psro_page_escapes_every_name_and_gives_wilson_intervals():
    from statsmodels.stats.proportion import proportion_confint
    from analysis.psro_page import page
    html = page(planted_result([0.08, 0.004]))
    assert "<b>&bad" not in html and "&lt;b&gt;&amp;bad" in html
    low, high = proportion_confint(0.6 * 400, 400, method="wilson")
    assert f"60.0% ({100 * low:.1f}-{100 * high:.1f})" in html  # tuned against <b>&bad, 400 games
    assert "&lt;b&gt;&amp;bad 0.25, tuned-psro1 0.75" in html and "Fair share 50.0%" in html


PSRO_SMALL = ("psro", "mohur", "--strategy", "hoarder", "--against", "greedy,racer", "--rounds", "2", "--budget",
              "800", "--popsize", "4", "--games", "20", "--stop-gain", "0", "-j", "1", "--seed", "3", "-q")


def test_an_interrupted_psro_resumes_to_the_same_result_and_refuses_an_edited_state(tmp_path, monkeypatch):
    """Ctrl-C after round 1 is saved: `--resume` goes on to the psro.json of a run never stopped; a saved state
    whose round does not follow from its table (a gain edited, the checksum redone) is refused in one line."""
    import json
    from cli_runs import cli as invoke, ok
    from sim.commands import psro_cmd
    ok(invoke(*PSRO_SMALL, "-o", tmp_path / "whole"))
    whole = json.loads((tmp_path / "whole" / "psro.json").read_text())
    if len(whole["history"]) < 2:
        pytest.skip("this seed's loop stopped after round 1: nothing to interrupt between rounds")
    real = psro_cmd.save_state

    def stop_after_round_1(folder, state):
        real(folder, state)
        if len(state["rounds"]) == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(psro_cmd, "save_state", stop_after_round_1)
    cut = invoke(*PSRO_SMALL, "-o", tmp_path / "cut")
    assert cut.exit_code == 2 and "1 round(s) are saved" in cut.output and "--resume" in cut.output
    monkeypatch.setattr(psro_cmd, "save_state", real)
    staging = tmp_path / "cut.partial"
    saved = (staging / psro_cmd.STATE).read_text()
    edited = {k: v for k, v in json.loads(saved).items() if k != "digest"}
    edited["rounds"][0]["gain"] += 0.01
    (staging / psro_cmd.STATE).write_text(json.dumps({**edited, "digest": psro_cmd._digest(edited)}))
    bad = invoke("psro", "--resume", tmp_path / "cut", "-q")
    assert bad.exit_code == 2 and "does not follow from the share table" in bad.output
    (staging / psro_cmd.STATE).write_text(saved)
    assert invoke("psro", "--resume", tmp_path / "cut", "--seed", "4").exit_code == 2  # settings come from the folder
    ok(invoke("psro", "--resume", tmp_path / "cut", "-q"))
    assert json.loads((tmp_path / "cut" / "psro.json").read_text()) == whole
