"""`balance-sim replay` without a browser: the page carries the trace unchanged, its words and scores follow the
events, `--game K` reproduces game K of a run exactly, and reports link to sample games."""
import json
import shlex

import numpy as np
import pandas as pd
import pytest

from analysis.replay import build_page, embedded_data, mohur, mughal, muziris
from analysis.replay.samples import command, pick
from sim.setup import load_setup
from sim.game import game_names, get_game
from sim.registry import registered
from cli_runs import cli, ok, traced

GAMES = game_names()
LINEUPS = {"mohur": ("greedy,racer", 2), "mughal": ("greedy,random,denier", 3),  # what the sentence tests read
           "muziris": ("greedy,random,blocker", 3)}


def lineup(game):
    """(strategies, players): the game's entry in LINEUPS, else its heuristics at its default player count."""
    if game in LINEUPS:
        return LINEUPS[game]
    players = get_game(game).default_players
    names = [d.name for d in registered(game) if not d.search]
    return ",".join(names[k % len(names)] for k in range(players)), players


def trace_events(game, seed=7, **which):
    names, players = lineup(game)
    spec, players, cfg, chosen, _ = load_setup(game, None, (), players, names)
    return list(spec.trace(cfg, players, list(chosen), seed, **which))


@pytest.fixture(scope="module")
def traces():
    return {game: trace_events(game) for game in GAMES}


def traced_winners(end):
    if "winners" in end:
        return end["winners"]
    if "win_share" in end:
        return [p for p, s in enumerate(end["win_share"]) if s > 0]
    return [] if end["winner"] is None else [end["winner"]]


@pytest.mark.parametrize("game", GAMES)
def test_page_embeds_the_trace_unchanged(game, traces):
    events = traces[game]
    page = build_page(events)
    assert "<script src" not in page and "http://" not in page and "https://" not in page  # opens offline
    data = embedded_data(page)
    assert data["events"] == json.loads(json.dumps(events))
    assert data["game"] == game and data["strategies"] == events[0]["strategies"]
    frames = data["frames"]
    assert [f["e"] for f in frames] == sorted(f["e"] for f in frames)
    for f in frames:
        shown = events[f["s"]]
        assert "state" in shown or shown["event"] == "round_start"  # Mohur's round start holds its state inline
        assert f["text"] and len(f["score"]) == data["players"]
    last = frames[-1]
    assert last["final"] and last["e"] == len(events) - 1
    assert last["winners"] == traced_winners(events[-1])


def test_scores_follow_the_trace(traces):
    end = traces["mughal"][-1]
    assert mughal.frames(traces["mughal"])[-1]["score"] == end["vt"]
    end = traces["muziris"][-1]
    assert muziris.frames(traces["muziris"])[-1]["score"] == end["coins"]
    events = traces["mohur"]
    for f in mohur.frames(events):
        ev = events[f["e"]]
        if ev["event"] == "round_end":
            assert f["score"] == ev["rupees"]
        if ev["event"] == "action":  # the running score is what the seat sold for this round
            assert f["score"][ev["seat"]] == sum(f["won"][ev["seat"]]["goods"]) + sum(f["won"][ev["seat"]]["bonus"])


def test_mohur_sentences():
    sell = {"type": "sell", "good": "cloth", "count": 3, "gained": {"tokens": [5, 3, 3], "bonus": 2}}
    assert mohur.action_text(0, sell, None) == "Seat 0 sells 3 cloth for 5+3+3 rupees and a 2-rupee bonus."
    assert mohur.action_text(0, sell, None, public=True) == (
        "Seat 0 sells 3 cloth for 5+3+3 rupees and a bonus token (its value stays hidden until scoring).")
    before = {"market": {"coin": 3}}
    assert mohur.action_text(1, {"type": "take_coins"}, before) == "Seat 1 takes all 3 coins from the market."
    swap = {"type": "exchange", "take": {"gold": 2}, "give": {"coin": 1, "spice": 1}}
    assert mohur.action_text(1, swap, before) == "Seat 1 exchanges 1 coin and 1 spice for 2 gold from the market."
    assert mohur.action_text(0, {"type": "pass"}, before) == "Seat 0 has no legal action and passes."
    end = {"round": 2, "reason": "turn_cap", "rupees": [40, 41], "coin_token": None, "winner": 1, "seals": [1, 1]}
    assert "turn cap of 1000 turns" in mohur.round_end_text(end, {"turn_cap": 1000})


def test_mohur_bonus_values_stay_off_the_table_view():
    start = {"event": "match_start", "game": "mohur", "seed": 1, "strategies": ["a", "b"],
             "config": {"bonus": {"3": [3, 2], "4": [6], "5": [10]}}}
    state = {"market": {}, "hands": [{}, {}], "coffers": [0, 0], "deck": 5, "tokens": {}}
    events = [start, {"event": "round_start", "round": 1, "starter": 0, **state},
              {"event": "action", "round": 1, "turn": 1, "seat": 0, "state": state,
               "action": {"type": "sell", "good": "cloth", "count": 3, "gained": {"tokens": [5, 3, 3], "bonus": 2}}}]
    sale = mohur.frames(events)[-1]
    assert sale["score"] == [13, 0] and sale["score_public"] == [11, 0]
    assert "2-rupee" in sale["text"] and "2" not in sale["public"].replace("Seat 0", "")
    assert sale["piles"] == {"3": 1, "4": 1, "5": 1}


def test_mughal_scoring_sentence_and_a_scoring_state_after_clean_up(traces):
    events = json.loads(json.dumps(traces["mughal"]))
    scoring = next(i for i, e in enumerate(events) if e["event"] == "scoring")
    text = mughal.scoring_text(events[scoring])
    for s in events[scoring]["seats"]:
        assert f"seat {s['seat']} " in text and f"{s['vt']} in all" in text
    # a later schema may add the state after the clean-up: the scoring frame still shows the tables scored
    cleared = json.loads(json.dumps(events[scoring - 1]["state"]))
    for seat in cleared["seats"]:
        seat["table"] = []
    events[scoring]["state"] = cleared
    frame = next(f for f in mughal.frames(events) if f["e"] == scoring)
    assert frame["s"] == scoring - 1


def test_muziris_use_sentence_tolerates_new_choices_and_fields():
    use = {"event": "use", "round": 2, "seat": 1, "character": "merchant", "coins_taken": 2, "coins_gained": 5,
           "round_ended": False, "future_field": 1,
           "choices": [{"decision": "character", "character": "merchant", "options": 4},
                       {"decision": "take", "produce": "pepper", "options": 3},
                       {"decision": "fulfil", "produce": "pepper", "size": 2, "options": 2},
                       {"decision": "cycle", "produce": "banana", "options": 2},
                       {"decision": "discard", "produce": "mango", "options": 3},
                       {"decision": "brand_new", "produce": "ginger", "options": 2}]}
    assert muziris.use_text(use) == (
        "Seat 1 takes the merchant with the 2 coins lying on it: takes pepper from the market, fulfils an order of "
        "2 pepper, discards banana to draw again, discards mango, brand new ginger; +5 coins.")
    public = muziris.use_text(use, public=True)
    assert "banana" not in public and "mango" not in public and "discards a card" in public


def run_folder(tmp_path, game, n=12, batch=5):
    names, players = LINEUPS[game]
    out = tmp_path / game
    ok(cli("run", game, "-n", n, "--batch-size", batch, "--seed", 4, "-s", names, "-p", players, "-o", out, "-q",
           "--no-report"))
    return out


def test_replay_command_writes_the_page_and_refuses_mistakes(tmp_path):
    out = run_folder(tmp_path, "mohur", n=6, batch=4)
    page = tmp_path / "r.html"
    ok(cli("replay", "--run", out, "--game", 5, "-o", page))
    data = embedded_data(page.read_text())
    assert data["events"] == traced("--run", out, "--game", 5) and data["game_index"] == 5
    bad = [["replay", "--run", str(out), "--game", "6", "-o", str(tmp_path / "x.html")],
           ["replay", "mohur", "--batch-size", "4", "-o", str(tmp_path / "x.html")],
           ["replay", "--run", str(out), "--set", "rules.hand_limit=8", "-o", str(tmp_path / "x.html")],
           ["replay", "mohur", "--game", "-1", "-o", str(tmp_path / "x.html")]]
    for args in bad:
        result = cli(*args)
        assert result.exit_code == 2, (args, result.output)
        assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
        assert not (tmp_path / "x.html").exists()


def test_trace_and_replay_without_s_say_they_seat_greedy_everywhere(tmp_path):
    """Issue 29: a designer who forgot -s must not take greedy against greedy for the game they meant."""
    note = "no -s given: every seat plays greedy"
    unseated = cli("trace", "mohur", "--seed", 3)
    assert unseated.exit_code == 0 and note in unseated.stderr and note not in unseated.stdout
    assert [json.loads(line) for line in unseated.stdout.splitlines()] == traced("mohur", "--seed", 3, "-s", "greedy")
    page = tmp_path / "r.html"
    made = cli("replay", "mohur", "--seed", 3, "-o", page)
    assert made.exit_code == 0 and note in made.stderr and embedded_data(page.read_text())["note"] == note
    for chosen_args in (["trace", "mohur", "-s", "greedy"], ["replay", "mohur", "-s", "greedy", "-o", str(page)]):
        chosen = cli(*chosen_args)
        assert chosen.exit_code == 0 and "note" not in chosen.stderr, chosen_args
    assert embedded_data(page.read_text())["note"] == ""
    refused = cli("trace", "mohur", "--seed", -1)  # a refusal stays the one line
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1 and note not in refused.stderr


def test_sample_games_are_picked_from_planted_tables():
    frame = pd.DataFrame({
        "game": [0, 1, 2, 3, 4],
        "margin": [5, 1, 9, 1, 3],
        "closeness": ["c"] * 5,
        "decided": [True] * 5,
        "length": [10, 50, 20, 50, 5],
        "length_words": ["l"] * 5,
        "safety": [None, None, None, "the turn cap", "the turn cap"],
    })
    winner = [0, 0, 1, 0, 1]  # seat 0 plays a, seat 1 plays b: b wins 2 of 5
    seats = pd.DataFrame({"game": list(range(5)) * 2, "strategy": ["a"] * 5 + ["b"] * 5,
                          "share": [float(w == 0) for w in winner] + [float(w == 1) for w in winner]})
    got = {s.key: s for s in pick(frame, seats)}
    assert got["closest"].game == 1          # smallest margin, lowest index on a tie
    assert got["longest"].game == 1
    assert got["upset"].game == 2 and "(b)" in got["upset"].title  # b is the weaker; its widest win
    assert got["safety"].game == 3 and "2 of 5" in got["safety"].why
    ranked = frame.assign(safety_rank=[1, 1, 1, 1, 0])  # e.g. a round cap before a coins-short game
    assert {s.key: s for s in pick(ranked, seats)}["safety"].game == 4
    undecided = frame.assign(decided=[True, False, True, False, True])
    assert {s.key: s for s in pick(undecided, seats)}["closest"].game == 4
    mirror = seats.assign(strategy="a")
    assert {s.key for s in pick(frame.assign(safety=None), mirror)} == {"closest", "longest"}


def test_sample_command_rebuilds_the_configuration(tmp_path):
    meta = {"game": "mohur", "seed": 3, "players": 2, "batch_size": 64, "round_robin": False,
            "strategies": [{"name": "greedy"}, {"name": "racer"}], "config": {}}
    from sim.config import load_defaults
    meta["config"] = load_defaults("sim.mohur")
    meta["config"]["rules"]["hand_limit"] = 8
    meta["config"]["tokens"]["diamond"] = [8, 7, 5, 5, 5]
    cmd = command(meta, 12)
    assert cmd == ("balance-sim replay mohur --seed 3 -s greedy,racer -p 2 --game 12 --batch-size 64 "
                   "--set rules.hand_limit=8 --set 'tokens.diamond=[8, 7, 5, 5, 5]'")
    words = shlex.split(cmd)
    sets = tuple(words[i + 1] for i, w in enumerate(words) if w == "--set")
    _, _, cfg, _, _ = load_setup("mohur", None, sets, 2, "greedy,racer")
    assert cfg.raw == meta["config"]  # the flags rebuild the run's configuration


def test_formatted_words_are_the_per_row_words():
    """samples.formatted formats each distinct combination once; every row must read as if formatted alone,
    missing (None) included, for integer and boolean columns, other columns (formatted row by row) and none."""
    from analysis.replay.samples import formatted, plural
    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 4, 3000).astype(np.int8), pd.Series(rng.integers(0, 40, 3000), dtype="int16")
    flag = rng.random(3000) < 0.2
    cases = [(lambda x, y: f"{max(x, y)} by {plural(y, 'coin')}" if y else None, (a, b)),
             (lambda f, x: "capped" if f else None, (flag, a)),
             (lambda x: f"{x} turns", (rng.random(50),)),
             (lambda x: f"{x}", (np.zeros(0, dtype=np.int64),))]
    for fmt, columns in cases:
        want = [fmt(*row) for row in zip(*columns)]
        got = formatted(fmt, *columns)
        assert len(got) == len(want)
        assert [None if pd.isna(x) else x for x in got] == want
