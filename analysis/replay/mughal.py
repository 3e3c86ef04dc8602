"""Mughal frames: one per turn start, declaration step, action step, scoring and the game end. Extra fields per
frame: `turn`, `emperor` {name, bonus, favoured, direction} of the turn, `placed` [per seat: the card id placed
or declared in this step, or null], `scoring` (on scoring frames: the event's `seats`)."""
from __future__ import annotations

import pandas as pd

from analysis.formatting import and_join
from analysis.replay.samples import formatted, plural, seats_frame

SCORE_NAME = "VT"  # what the running score counts, under the board


def _card(card: dict) -> str:
    suit = card.get("suit")
    return f"{card['kind']} ({suit})" if suit and suit not in ("undeclared",) else card["kind"]


def turn_start_text(ev: dict) -> str:
    favoured = ev["favoured"]
    fav = "any suit" if len(favoured) >= 4 or favoured == ["any"] else " and ".join(favoured)
    return (f"Turn {ev['turn']}: {ev['emperor']} rules and favours {fav} ({ev['bonus']} VT to the highest "
            f"favoured total). Destiny and fate are dealt; hands will pass to the {ev['direction']}.")


def declare_text(ev: dict) -> str:
    said = [f"seat {p} declares {c['kind']} as {c['suit']}" for p, c in enumerate(ev["choices"]) if c]
    return "Declarations: " + ("; ".join(said) if said else "nothing to declare") + "."


def step_text(ev: dict, direction: str) -> str:
    placed = [f"seat {p} places {_card(c)}" for p, c in enumerate(ev["choices"]) if c]
    tail = f" Hands pass to the {direction}." if ev.get("passed") else " The hands are played out."
    return f"Step {ev['step']}: " + "; ".join(placed) + "." + tail


def scoring_text(ev: dict) -> str:
    parts = []
    for s in ev["seats"]:
        pieces = [f"{name.replace('_', ' ')} {s[key]:+d}" for key, name in
                  (("majority", "majorities"), ("all_suits", "all suits"), ("emperor", "emperor"),
                   ("disaster", "disasters")) if s[key]]
        gained = s["majority"] + s["all_suits"] + s["emperor"] + s["disaster"]
        parts.append(f"seat {s['seat']} {gained:+d} VT" + (f" ({', '.join(pieces)})" if pieces else "")
                     + f", {s['vt']} in all")
    emperor = [s["seat"] for s in ev["seats"] if s["emperor"] > 0]
    crown = (f" The emperor's bonus goes to {and_join(f'seat {s}' for s in emperor)}." if emperor
             else " Nobody wins the emperor's favour.")
    return f"Scoring of turn {ev['turn']}: " + "; ".join(parts) + "." + crown


def winners_of(ev: dict) -> list[int]:
    return [p for p, share in enumerate(ev["win_share"]) if share > 0]


def game_end_text(ev: dict, strategies: list) -> str:
    winners = winners_of(ev)
    vt = ev["vt"]
    if not winners:
        return f"Nobody wins: the top of the table is tied and ties have no winner. VT: {vt}."
    if len(winners) == 1:
        w = winners[0]
        others = sorted((v for p, v in enumerate(vt) if p != w), reverse=True)
        name = f" ({strategies[w]})" if w < len(strategies) else ""
        return f"Seat {w}{name} wins with {vt[w]} VT" + (f", {vt[w] - others[0]} ahead of the next." if others
                                                          else ".")
    return f"{and_join(f'seat {s}' for s in winners).capitalize()} share the win with {vt[winners[0]]} VT each."


def frames(events: list[dict]) -> list[dict]:
    start = events[0]
    players = int(start.get("players", 0))
    strategies = start.get("strategies", [])
    out: list[dict] = []
    state_at, emperor, turn, direction = None, None, 0, "left"
    score = [0] * players
    for i, ev in enumerate(events):
        kind = ev["event"]
        frame = {"e": i, "seat": None, "placed": [None] * players}
        if kind == "game_start":
            continue
        if kind == "turn_start":
            turn, direction = ev["turn"], ev["direction"]
            emperor = {k: ev[k] for k in ("emperor", "bonus", "favoured", "direction")}
            frame.update(where=f"Turn {turn} · deal", text=turn_start_text(ev))
        elif kind == "declare":
            frame.update(where=f"Turn {turn} · declarations", text=declare_text(ev),
                         placed=[c["id"] if c else None for c in ev["choices"]])
        elif kind == "step":
            frame.update(where=f"Turn {turn} · step {ev['step']}", text=step_text(ev, direction),
                         placed=[c["id"] if c else None for c in ev["choices"]])
        elif kind == "scoring":
            score = [s["vt"] for s in ev["seats"]]
            frame.update(where=f"Turn {turn} · scoring", text=scoring_text(ev), scoring=ev["seats"])
        elif kind == "game_end":
            score = list(ev["vt"])
            frame.update(where="Game end", text=game_end_text(ev, strategies), winners=winners_of(ev),
                         final=True)
        else:
            frame.update(where=f"Turn {turn}", text=kind.replace("_", " "))
        # a scoring frame shows the tables being scored, not a state after the clean-up
        if "state" in ev and kind != "scoring":
            state_at = i
            score = [s["vt"] for s in ev["state"]["seats"]]
        frame.update(s=state_at, turn=turn, emperor=emperor, score=list(score))
        out.append(frame)
    return out


def games_frame(tables, meta):
    """The report's sample-game figures (analysis.replay.samples.games_frame)."""
    games = tables["games"]
    margin = games["vt_margin"].astype(int).to_numpy()
    resh = games["reshuffles"].astype(int).to_numpy()
    frame = pd.DataFrame({
        "game": games["game"].astype(int).to_numpy(),
        "margin": margin,
        "closeness": formatted(lambda m: f"won by {m} VT", margin),
        "decided": games["n_winners"].astype(int).to_numpy() == 1,
        "length": games["decisions"].astype(int).to_numpy(),
        "length_words": formatted(lambda d, t: f"{d} decisions (every game has {t} turns)", games["decisions"],
                                  games["turns"]),
        "safety": formatted(lambda r: f"the deck ran out and the discard was shuffled back {plural(r, 'time')}"
                            if r else None, resh),
    })
    return frame, seats_frame(tables["players"])
