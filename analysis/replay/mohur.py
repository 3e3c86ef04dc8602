"""Mohur frames: one per round start, action, round end and the match end (see analysis.replay). Extra fields
per frame: `round`, `seals` [x, y], `won` (per seat: `goods` token values and `bonus` values sold this round),
`piles` (bonus tokens left per pile, "3"/"4"/"5"), `rupees` (the round's final rupees, on its end only). Bonus
values are hidden until scoring: the table's version of a sale and of the running score leaves them out."""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.formatting import and_join
from analysis.replay.samples import formatted, plural
from sim.mohur.engine import END, END_NAMES
from analysis.common import names_of

SCORE_NAME = "rupees this round"  # what the running score counts, under the board


def _n(count: int, word: str) -> str:
    """'1 coin', '3 coins'; goods are mass nouns ('3 cloth')."""
    return plural(count, word) if word == "coin" else f"{count} {word}"


def action_text(seat: int, action: dict, before: dict | None, public: bool = False) -> str:
    """One action in words. `before` is the state the action was taken in (for 'all 3 coins');
    `public` leaves out what the table does not see (bonus token values)."""
    who = f"Seat {seat}"
    kind = action["type"]
    if kind == "take_good":
        return f"{who} takes one {action['good']} from the market."
    if kind == "take_coins":
        n = before["market"].get("coin", 0) if before else None
        return f"{who} takes all {n} coins from the market." if n else f"{who} takes the coins from the market."
    if kind == "exchange":
        return (f"{who} exchanges {and_join(_n(c, k) for k, c in action['give'].items() if c)} for "
                f"{and_join(_n(c, k) for k, c in action['take'].items() if c)} from the market.")
    if kind == "sell":
        tokens, bonus = action["gained"]["tokens"], action["gained"]["bonus"]
        text = f"{who} sells {action['count']} {action['good']}"
        if tokens:
            text += f" for {'+'.join(str(t) for t in tokens)} rupee" + ("" if sum(tokens) == 1 else "s")
        else:
            text += " for nothing (its token stack is empty)"
        if bonus is not None:
            text += " and a bonus token (its value stays hidden until scoring)" if public else \
                f" and a {bonus}-rupee bonus"
        return text + "."
    if kind == "pass":
        return f"{who} has no legal action and passes."
    return f"{who}: {kind}."


def round_end_text(event: dict, config: dict) -> str:
    reason = {"stacks": f"{config.get('empty_stacks_to_end', 3)} goods stacks are empty",
              "deck": "the deck is empty", "stalled": "both traders passed in a row",
              "turn_cap": f"the turn cap of {config.get('turn_cap')} turns was reached (a safety rule)",
              }.get(event["reason"], event["reason"])
    a, b = event["rupees"]
    coin = event["coin_token"]
    text = (f"Round {event['round']} ends: {reason}. Seat 0 has {a} rupees, seat 1 {b}"
            + (f" (seat {coin} took the {config.get('coin_token', '')}-rupee coin token)" if coin is not None
               else " (nobody took the coin token)") + ". ")
    seals = event["seals"]
    if event["winner"] is None:
        return text + f"The round is drawn; seals {seals[0]}-{seals[1]}."
    return text + f"Seat {event['winner']} wins the seal; seals {seals[0]}-{seals[1]}."


def match_end_text(event: dict, strategies: list) -> str:
    seals = event["seals"]
    if event["winner"] is None:
        return (f"No winner: the round cap (a safety rule) stopped the match after {event['rounds']} rounds, "
                f"seals {seals[0]}-{seals[1]}.")
    w = event["winner"]
    name = f" ({strategies[w]})" if w < len(strategies) else ""
    return f"Seat {w}{name} wins the match, {seals[w]} seals to {seals[1 - w]}, after {event['rounds']} rounds."


def frames(events: list[dict]) -> list[dict]:
    start = events[0]
    config, strategies = start.get("config", {}), start.get("strategies", [])
    piles_full = {k: len(v) for k, v in config.get("bonus", {}).items()}
    out: list[dict] = []
    state_at, before = None, None
    rnd, seals = 0, [0, 0]
    won = [{"goods": [], "bonus": []}, {"goods": [], "bonus": []}]
    piles = dict(piles_full)
    for i, ev in enumerate(events):
        kind = ev["event"]
        frame = {"e": i, "seat": None}
        if kind == "match_start" or (kind == "match_end" and events[i + 1:i + 2]
                                     and events[i + 1]["event"] == "game_end"):
            continue  # game_end repeats match_end's fields: one frame shows them
        if kind == "round_start":
            rnd = ev["round"]
            state_at, before = i, ev
            won = [{"goods": [], "bonus": []}, {"goods": [], "bonus": []}]
            piles = dict(piles_full)
            frame.update(where=f"Round {rnd} · start",
                         text=f"Round {rnd} is dealt: seat {ev['starter']} starts; {ev['deck']} cards in the deck.")
        elif kind == "action":
            action, seat = ev["action"], ev["seat"]
            frame.update(seat=seat, where=f"Round {rnd} · turn {ev['turn']}",
                         text=action_text(seat, action, before))
            if action["type"] == "sell":
                gained = action["gained"]
                won[seat]["goods"] = won[seat]["goods"] + list(gained["tokens"])
                if gained["bonus"] is not None:
                    won[seat]["bonus"] = won[seat]["bonus"] + [gained["bonus"]]
                    pile = str(min(action["count"], 5))
                    piles[pile] = piles.get(pile, 1) - 1
                    frame["public"] = action_text(seat, action, before, public=True)
            state_at, before = i, ev["state"]
        elif kind == "round_end":
            seals = list(ev["seals"])
            frame.update(seat=ev["winner"], where=f"Round {rnd} · end", text=round_end_text(ev, config),
                         rupees=list(ev["rupees"]))
        elif kind in ("match_end", "game_end"):
            seals = list(ev["seals"])
            frame.update(seat=ev["winner"], where="Match end", text=match_end_text(ev, strategies),
                         winners=[] if ev["winner"] is None else [ev["winner"]], final=True)
        else:  # an event kind added later: shown in words, the board unchanged
            frame.update(where=f"Round {rnd}", text=kind.replace("_", " "))
        everything = [sum(w["goods"]) + sum(w["bonus"]) for w in won]
        table = [sum(w["goods"]) for w in won]
        if "rupees" in frame:
            everything = table = frame["rupees"]
        elif kind in ("match_end", "game_end") and out:
            everything = table = out[-1]["score"]
        frame.update(s=state_at, round=rnd, seals=list(seals), won=[dict(w) for w in won], piles=dict(piles),
                     score=everything)
        if table != everything:
            frame["score_public"] = table
        out.append(frame)
    return out


def games_frame(tables, meta):
    """The report's sample-game figures (analysis.replay.samples.games_frame)."""
    games, rounds = tables["games"], tables["rounds"]
    last = rounds.sort_values(["match", "round"]).groupby("match").tail(1).set_index("match")
    gap = (last["rupees_0"].astype(int) - last["rupees_1"].astype(int)).abs().reindex(games["match"]).to_numpy()
    seals = (games["seals_0"].astype(int) - games["seals_1"].astype(int)).abs().to_numpy()
    unsafe = rounds[rounds["end_reason"].isin([END["stalled"], END["turn_cap"]])]
    reason = unsafe.groupby("match")["end_reason"].first()
    reason = {m: f"a round ended by the {END_NAMES[r].replace('_', ' ')} rule" for m, r in reason.items()}
    winner = games["winner"].astype(int).to_numpy()
    ids = games["match"].astype(int).to_numpy()
    safety = np.where(winner < 0, "the round cap ended the match with no winner", None).astype(object)
    at = pd.Index(ids).get_indexer(list(reason))
    safety[at[at >= 0]] = np.array(list(reason.values()), dtype=object)[at >= 0]
    frame = pd.DataFrame({
        "game": ids,
        "margin": seals * 1000 + gap,
        "closeness": formatted(lambda a, b, g: f"{max(a, b)}-{min(a, b)} on seals, "
                               + (f"the last round by {plural(g, 'rupee')}" if g
                                  else "the last round level on rupees and settled by the tie-break"),
                               games["seals_0"], games["seals_1"], gap),
        "decided": winner >= 0,
        "length": games["turns"].astype(int).to_numpy(),
        "length_words": formatted(lambda t, r: f"{t} turns over {r} rounds", games["turns"], games["rounds"]),
        "safety": safety,
    })
    seats = pd.concat([pd.DataFrame({"game": ids, "strategy": names_of(games[f"strategy_{s}"]).to_numpy(),
                                     "share": (winner == s).astype(float)}) for s in (0, 1)], ignore_index=True)
    return frame, seats
