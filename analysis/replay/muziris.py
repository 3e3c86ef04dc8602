"""Merchants of Muziris frames: the setup, then one per character use, hand-limit discard, trigger, end of round
and the game end. Extra fields per frame: `round`, `condition` (the market condition in play), `final_round`.
Hands are hidden, so the table's version of a use says "discards a card" where a hand card leaves unseen."""
from __future__ import annotations

import pandas as pd

from analysis.replay.samples import formatted, margins, plural, seats_frame
from sim.muziris.engine import END

SCORE_NAME = "coins"  # what the running score counts, under the board


def _choice(c: dict, used: str, public: bool) -> str | None:
    d = c.get("decision")
    produce = c.get("produce")
    if d == "character":
        return None if c.get("character") == used else f"chooses the {c.get('character')}"
    said = {"take": f"takes {produce} from the market", "take_type": f"takes every {produce} it can from the market",
            "fulfil": f"fulfils an order of {c.get('size')} {produce}",
            "hand_ability": f"discards {produce} from hand for its ability",
            "market_ability": f"discards {produce} from the market for its ability"}
    if d in said:
        return said[d]
    if d == "cycle":
        if c.get("stop"):
            return "stops discarding"
        return "discards a card to draw again" if public else f"discards {produce} to draw again"
    if d == "discard":
        return "discards a card" if public else f"discards {produce}"
    what = produce or c.get("character") or ""
    return f"{str(d).replace('_', ' ')} {what}".strip()


def use_text(ev: dict, public: bool = False) -> str:
    text = f"Seat {ev['seat']} takes the {ev['character']}"
    if ev.get("coins_taken"):
        text += f" with the {plural(ev['coins_taken'], 'coin')} lying on it"
    steps = [s for s in (_choice(c, ev["character"], public) for c in ev.get("choices", [])) if s]
    if steps:
        text += ": " + ", ".join(steps)
    gained = ev.get("coins_gained", 0)
    text += f"; {gained:+d} coin{'s' if abs(gained) != 1 else ''}." if gained else "; no coins."
    if ev.get("round_ended"):
        text += " That ends the round."
    return text


def hand_limit_text(ev: dict, public: bool = False) -> str:
    cards = ev["discarded"]
    if public:
        return f"Seat {ev['seat']} is over the hand limit and discards {plural(len(cards), 'card')}."
    return f"Seat {ev['seat']} is over the hand limit and discards {', '.join(cards)}."


def trigger_text(ev: dict) -> str:
    if ev.get("seat") is None:
        return f"The {ev['condition']} condition is met at the end of the round: the game ends."
    return (f"Seat {ev['seat']} meets the {ev['condition']} condition and takes its card: this is the final "
            "round, which the others still play.")


def end_of_round_text(ev: dict) -> str:
    added = ev.get("coins_added_to", [])
    coins = (f" An unused coin goes on the {', '.join(added)}." if added else "")
    return f"Round {ev['round']} ends.{coins} Seat {ev['next_first_player']} is first player next."


def game_end_text(ev: dict, strategies: list) -> str:
    winners, coins = ev["winners"], ev["coins"]
    why = (" The round cap (a safety rule) ended it." if ev.get("end_reason") == "round_cap" else "")
    short = " The box's coins would have run short." if ev.get("coins_short") else ""
    listing = ", ".join(f"seat {p} {c}" for p, c in enumerate(coins))
    if len(winners) == 1:
        w = winners[0]
        name = f" ({strategies[w]})" if w < len(strategies) else ""
        head = f"Seat {w}{name} wins with {coins[w]} coins after {ev['rounds']} rounds."
    elif winners:
        head = "Seats " + " and ".join(str(w) for w in winners) + f" share the win with {coins[winners[0]]} coins."
    else:
        head = "Nobody wins."
    return f"{head}{why}{short} Coins: {listing}."


def frames(events: list[dict]) -> list[dict]:
    start = events[0]
    strategies = start.get("strategies", [])
    condition = start.get("condition")
    out: list[dict] = []
    state_at, rnd, final = None, 1, False
    score = list(start.get("state", {}).get("coins", []))
    for i, ev in enumerate(events):
        kind = ev["event"]
        frame = {"e": i, "seat": ev.get("seat")}
        if kind == "game_start":
            chars = ", ".join(start.get("characters_in_play", []))
            frame.update(where="Setup", text=f"Setup: characters {chars}; the market condition is {condition}.")
        elif kind == "use":
            frame.update(where=f"Round {ev['round']}", text=use_text(ev), public=use_text(ev, public=True))
        elif kind == "hand_limit":
            frame.update(where=f"Round {ev['round']}", text=hand_limit_text(ev),
                         public=hand_limit_text(ev, public=True))
        elif kind == "trigger":
            frame.update(where=f"Round {ev['round']}", text=trigger_text(ev))
        elif kind == "end_of_round":
            frame.update(seat=None, where=f"Round {ev['round']} · end", text=end_of_round_text(ev))
        elif kind == "game_end":
            frame.update(seat=None, where="Game end", text=game_end_text(ev, strategies), winners=ev["winners"],
                         final=True)
        else:
            frame.update(where=f"Round {rnd}", text=kind.replace("_", " "))
        if frame.get("public") == frame.get("text"):
            del frame["public"]
        if "state" in ev:
            state_at = i
            rnd, final = ev["state"]["round"], ev["state"]["final_round"]
            score = list(ev["state"]["coins"])
        if kind == "game_end":
            score = list(ev["coins"])
        frame.update(s=state_at, round=rnd, condition=condition, final_round=final, score=list(score))
        out.append(frame)
    return out


def games_frame(tables, meta):
    """The report's sample-game figures (analysis.replay.samples.games_frame)."""
    games = tables["games"]
    ids = games["game"].astype(int).to_numpy()
    margin = margins(tables["players"], "coins").reindex(ids).to_numpy()
    capped = games["end_reason"].astype(int).to_numpy() == END["round_cap"]
    short = games["coins_short"].astype(bool).to_numpy()
    frame = pd.DataFrame({
        "game": ids,
        "margin": margin,
        "closeness": formatted(lambda m: f"won by {plural(m, 'coin')}" if m
                               else "level on coins at the top and settled by the tie-break", margin),
        "decided": games["n_winners"].astype(int).to_numpy() == 1,
        "length": games["rounds"].astype(int).to_numpy() * 1000 + games["uses"].astype(int).to_numpy(),
        "length_words": formatted(lambda r, u: f"{r} rounds, {u} character uses", games["rounds"], games["uses"]),
        "safety": formatted(lambda c, s: "the round cap (a safety rule) ended it" if c else
                            "it needed more coins than the box holds (coins_short)" if s else None, capped, short),
        "safety_rank": (~capped).astype(int),  # a round-cap game first, then a coins-short one
    })
    return frame, seats_frame(tables["players"])
