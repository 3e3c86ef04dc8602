"""The settled rule readings re-derived from the traces alone (docs/trace.md: events and `game_start`'s configuration,
never the engines' functions), over a few dozen games with random players among them so every option is taken.
- Muziris (2-4 players): the discard is reshuffled the moment the deck empties (an empty deck beside a non-empty
  discard only when both ran dry); Monsoon goes to the player whose turn saw the first reshuffle (the next first
  player when it came with the end-of-round refill); Cinnamon offers 1 or 2 cards of a type, the Captain all of it;
  the Broker's extra coin comes even with an empty hand; every `use` records its choice with the options offered;
  hand-limit discards and `round_ended` agree with the states.
- Mughal (2-8 players): card ids map to deck rows in order, `kind` is the documented label; the game starts with
  the Early cards only; a track that skips an age never brings its cards; `scoring` states are after the clean-up;
  `emperor_winners` counts the seats with the highest favoured total."""
import json

import pytest

from sim.config import build
from sim.game import get_game
from sim.registry import choices

MUZIRIS_LINEUPS = {2: ["random", "greedy"], 3: ["random", "blocker", "collector"],
                   4: ["random", "condition", "grabber", "random"]}
MUGHAL_LINEUPS = {2: ["random", "greedy"], 5: ["random", "denier", "dodger", "emperor", "random"],
                  8: ["random", "greedy"] * 4}


def _traces(game, players, lineup, seeds, sets=()):
    spec = get_game(game)
    cfg = spec.validate(build(spec.package, sets=tuple(sets)), players)
    chosen = choices(game, cfg.presets, lineup)
    return [[json.loads(json.dumps(e)) for e in spec.trace(cfg, players, chosen, seed)] for seed in seeds]


# ---------------------------------------------------------------- Merchants of Muziris

def _steps(text_list):
    return [(w[0], [int(a) for a in w[1:]]) for w in (t.split() for t in text_list)]


@pytest.fixture(scope="module")
def muziris_games():
    games = []
    for players, lineup in MUZIRIS_LINEUPS.items():
        games += _traces("muziris", players, lineup, range(100, 112))
        games += _traces("muziris", players, lineup, range(200, 206), sets=("rules.condition=\"monsoon\"",))
    return games


def _check_muziris_game(events, seen):
    config = events[0]["config"]
    limit = config["rules"]["hand_limit"]
    produce = config["produce"]
    characters = config["characters"]
    prev = events[0]["state"]
    kinds = [e["event"] for e in events]
    dry = False              # deck and discard both ran dry since the last reshuffle
    first_reshuffle = None   # the event whose state first shows a reshuffle
    for i, e in enumerate(events[1:], 1):
        st = e.get("state")
        if e["event"] == "use":
            ch = e["choices"][0]
            assert ch["decision"] == "character" and ch["character"] == e["character"]
            final = prev["final_round"] and config["rules"]["final_round_reuse"]
            assert ch["options"] == sum(1 for c in prev["characters"] if final or c["markers"] == 0)
            _check_use(e, prev, produce, characters, seen)
        if e["event"] == "hand_limit":
            assert all(c["decision"] == "discard" for c in e["choices"])
            assert [c["produce"] for c in e["choices"]] == e["discarded"]
            if not e["round_ended"]:
                assert sum(st["hands"][e["seat"]].values()) == limit
        if e["event"] in ("use", "hand_limit"):  # the round ended: a new round began, or the game is over
            assert e["round_ended"] == (st["round"] != e["round"] or "use" not in kinds[i + 1:])
        if e["event"] == "trigger":
            assert st["final_round"]
        if st is not None:
            if st["reshuffles"] > prev["reshuffles"]:
                dry = False
            if st["deck"] == 0 and st["discard"] == 0:
                dry = True
            # the rulebook's reading: the discard becomes the deck the moment the last card leaves it
            assert st["deck"] > 0 or st["discard"] == 0 or dry, f"{e['event']} round {e.get('round')}: deck 0"
            if first_reshuffle is None and st["reshuffles"] > 0:
                first_reshuffle = e
            prev = st
    end = events[-1]
    trigger = next((e for e in events if e["event"] == "trigger"), None)
    if config["conditions"][events[0]["condition"]]["trigger"] == "reshuffles_at_least" and trigger is not None:
        e1 = first_reshuffle
        refill = e1["event"] == "end_of_round" or (e1.get("round_ended") and e1 is not end and
                                                   e1["state"]["round"] != e1["round"])
        if refill:  # came with the end-of-round refill: the next round's first turn ends with the trigger
            assert (trigger["seat"], trigger["round"]) == (e1["state"]["first_player"], e1["state"]["round"])
        else:
            assert (trigger["seat"], trigger["round"]) == (e1["seat"], e1["round"])
        seen["monsoon"] += 1


def _check_use(e, prev, produce, characters, seen):
    seat = e["seat"]
    action = _steps(characters[e["character"]]["action"])
    market = dict(prev["market"])
    step_choices = [c for c in e["choices"][1:] if c["decision"] != "discard"]
    if action[0][0] == "market_ability" and step_choices:
        t = step_choices[0]["produce"]
        market[t] -= 1
        action = _steps(produce[t]["ability"])
        step_choices = step_choices[1:]
    for kind, args in action:
        if kind == "take_type":
            most = args[0] if args and args[0] > 0 else None
            offered = sum(m if most is None else min(most, m) for m in market.values() if m > 0)
            if most is None:  # every card of the type, no choice of how many
                offered = sum(1 for m in market.values() if m > 0)
            if offered == 0:
                assert not step_choices or step_choices[0]["decision"] != "take_type"
                continue
            c = step_choices.pop(0)
            assert c["decision"] == "take_type" and c["options"] == offered
            m = market[c["produce"]]
            assert 1 <= c["count"] <= m and (c["count"] == m if most is None else c["count"] <= most)
            if most is not None and m >= most:
                seen["take_type_counts"].add(c["count"])
            market[c["produce"]] -= c["count"]
        elif kind == "fulfil" and args and args[0] > 0:
            hand = prev["hands"][seat]
            if sum(hand.values()) == 0 and not e["round_ended"]:
                assert not [c for c in e["choices"] if c["decision"] == "fulfil"]
                assert e["coins_gained"] == e["coins_taken"] + args[0]  # the extra coin without an order
                seen["broker_empty"] += 1
        elif kind in ("take", "fulfil", "cycle", "hand_ability", "market_ability"):
            break  # their choices are not re-checked here


def test_muziris_traces_follow_the_settled_readings(muziris_games):
    seen = {"monsoon": 0, "take_type_counts": set(), "broker_empty": 0}
    for events in muziris_games:
        _check_muziris_game(events, seen)
    assert seen["monsoon"] >= 10 and seen["take_type_counts"] == {1, 2}


def test_muziris_broker_with_an_empty_hand_in_play():
    seen = {"monsoon": 0, "take_type_counts": set(), "broker_empty": 0}
    # an empty hand is common when every card goes to orders: small hands, Broker always in play
    for events in _traces("muziris", 2, ["random", "random"], range(300, 316),
                          sets=("rules.starting_hand=0", "characters.beggar.action=[\"fulfil 1\"]",
                                "characters.farmer.action=[\"fulfil 1\"]", "characters.captain.action=[\"fulfil 1\"]",
                                "characters.scholar.action=[\"fulfil 1\"]")):
        _check_muziris_game(events, seen)
    assert seen["broker_empty"] > 0


# ---------------------------------------------------------------- Mughal

def _labels(config):
    """Card id -> documented kind label: ids count through the deck rows in order."""
    out = []
    for row in config["deck"]:
        base = "D" if row["suits"] == "D" else f"{row['suits'].upper()}{row['level']}"
        out += [f"{base} {row['age']}" + (" unique" if row["unique"] else "")] * row["count"]
    return out


def _cards_in(state):
    for seat in state["seats"]:
        yield from seat["table"]
        yield from seat["hand"]


def _check_mughal_game(events, ages_in_play_by_turn):
    config = events[0]["config"]
    labels = _labels(config)
    last_step = None
    for e in events[1:]:
        st = e.get("state")
        if st is not None:
            for c in _cards_in(st):
                assert c["kind"] == labels[c["id"]]
                assert c["kind"].split()[1] in ages_in_play_by_turn[st["turn"]]
        if e["event"] == "turn_start" and e["turn"] == 1:
            assert st["deck"] + sum(1 for _ in _cards_in(st)) == sum(1 for k in labels if " early" in k)
        if e["event"] == "step":
            last_step = e
        if e["event"] == "scoring":
            before = last_step["state"]
            tables = [c for seat in before["seats"] for c in seat["table"]]
            unique = sum(1 for c in tables if c["kind"].endswith("unique"))
            assert all(seat["table"] == [] for seat in st["seats"])
            assert st["removed"] == before["removed"] + unique
            assert st["discard"] == before["discard"] + len(tables) - unique
            emp = config["emperors"][e["turn"] - 1]
            fav = emp["favoured"]
            suits = ["military", "building", "culture", "wealth"] if fav == ["any"] else fav
            best = [max(seat["totals"][k] for k in suits) for seat in before["seats"]]
            top = max(best)
            tied = sum(1 for b in best if b == top) if top > 0 else 0
            assert e["emperor_winners"] == tied
            for seat, b in zip(e["seats"], best):
                want = (emp["bonus"] if tied == 1 else emp["bonus"] // 2) if tied and b == top else 0
                assert seat["emperor"] == want


@pytest.mark.parametrize("players", sorted(MUGHAL_LINEUPS))
def test_mughal_traces_follow_the_rules_page(players):
    ages = {t: {"early"} | ({"middle"} if t >= 3 else set()) | ({"late"} if t >= 5 else set()) for t in range(8)}
    for events in _traces("mughal", players, MUGHAL_LINEUPS[players], range(10, 22)):
        _check_mughal_game(events, ages)


def test_mughal_track_that_skips_an_age_brings_only_that_ages_cards():
    ages = {t: {"early"} | ({"late"} if t >= 3 else set()) for t in range(8)}
    for events in _traces("mughal", 4, ["random", "greedy"] * 2, range(10, 22),
                          sets=('emperors.3.age="late"', 'emperors.4.age="late"')):
        _check_mughal_game(events, ages)
