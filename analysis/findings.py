"""Findings: the three to seven sentences a designer reads first, from a summary: {id, text, figure (its
summary.json key), section (the report topic that explains it)}, ranked as docs/findings.md says."""
from __future__ import annotations

import html
import re
import statistics

from analysis import across_skill
from analysis.across_skill import ci_text, pct

MAX_FINDINGS = 7
DOMINANT_WEIGHT = 0.99  # an equilibrium weight this close to 1: one strategy takes the whole mix
LOOSE_FACTOR = 5  # a strength interval this many times the median width: the prior, not the games, bounds it

# section topics -> words a report section's title contains (report.py links the first that matches)
TOPICS = {"seats": r"first-player|seat", "strategies": r"who wins|strategies", "meta": r"meta-game",
          "length": r"length|rounds per game", "decisive": r"what decides",
          "flags": r"rounds per game|length", "supply": r"boxed coin", "skill": r"across skill",
          "strata": r"where the edge lives"}


def _metric(summary: dict, key: str) -> dict | None:
    return across_skill.finite_metric(summary.get(key))


def _indexed(summary: dict, prefix: str) -> dict[str, dict]:
    """`prefix[<name>]` figures with exactly one bracket (not `[mirror=...]` or `[certain]` variants)."""
    pattern = re.compile(re.escape(prefix) + r"\[([^\[\]]+)\]")
    return {match.group(1): summary[key] for key in summary
            if (match := pattern.fullmatch(key)) and _metric(summary, key)}


def _elo(m: dict) -> str:
    return f"{m['estimate']:+.0f} Elo, 95% CI {m['ci_low']:+.0f} to {m['ci_high']:+.0f}"


def _finding(fid: str, rank: float, text: str, figure: str, section: str, m: dict | None = None) -> dict:
    out = {"id": fid, "rank": rank, "text": text, "figure": figure, "section": section}
    if m:
        out.update({k: m.get(k) for k in ("estimate", "ci_low", "ci_high")})
    return out


# ---- seats and positions -------------------------------------------------------------------------------------
TWO_SEAT = {  # Mohur's figures: each a rate whose fair value is 50%
    "first_player_round_win_rate": "the trader who starts a round wins it",
    "first_player_match_win_rate": "the trader who starts the match wins it",
    "seat0_match_win_rate": "seat 0 wins the match",
}
ORDINAL = {1: "the player after the round-1 first player", 2: "the player two seats after",
           3: "the player three seats after"}


def _position_words(prefix: str, k: int) -> str:
    if prefix == "seat_win_rate":
        return f"the player in seat {k}"
    if k == 0:
        return "the round-1 first player"
    return ORDINAL.get(k, f"the player {k} seats after the round-1 first player")


def seat_finding(summary: dict) -> dict | None:
    """The largest gap between a seat (or position, or starting the round) and its fair share."""
    candidates = []  # (largest distance from fair, family rows [(words, key, m)], fair)
    for key, words in TWO_SEAT.items():
        m = _metric(summary, key)
        if m:
            candidates.append((abs(m["estimate"] - 0.5), [(words, key, m)], 0.5))
    for prefix in ("position_win_rate", "seat_win_rate"):
        rows = _indexed(summary, prefix)
        if len(rows) >= 2 and all(k.isdigit() for k in rows):
            fair = 1 / len(rows)
            family = [(_position_words(prefix, int(k)), f"{prefix}[{k}]", m) for k, m in sorted(rows.items())]
            candidates.append((max(abs(m["estimate"] - fair) for _, _, m in family), family, fair))
    if not candidates:
        return None
    _, family, fair = max(candidates, key=lambda c: c[0])
    real = [row for row in family if not row[2]["ci_low"] <= fair <= row[2]["ci_high"]]
    equal_skill = " at equal skill" if any(row[2].get("population") for row in family) else ""
    if len(family) == 1:
        words, key, m = family[0]
        gap = (m["estimate"] - fair) * 100
        if real:
            kind = "edge" if gap > 0 else "handicap"
            text = (f"{words[:1].upper() + words[1:]} {pct(m['estimate'])} of the time{equal_skill} ({ci_text(m)}) "
                    f"against a fair 50%: a real {abs(gap):.1f}-point {kind}.")
            return _finding("seat_gap", 80 + abs(gap), text, key, "seats", m)
        text = (f"No seat edge we can detect: {words} {pct(m['estimate'])} of the time{equal_skill} ({ci_text(m)}), "
                "and a fair 50% lies inside that interval.")
        return _finding("seat_gap", 40, text, key, "seats", m)
    ranked = sorted(family, key=lambda row: -row[2]["estimate"])
    (top_words, top_key, top), (low_words, _, low) = ranked[0], ranked[-1]
    spread = (top["estimate"] - low["estimate"]) * 100
    if real:
        text = (f"Seating matters: {top_words} wins {pct(top['estimate'])}{equal_skill} ({ci_text(top)}) and "
                f"{low_words} {pct(low['estimate'])} ({ci_text(low)}), against a fair share of {pct(fair)}: a "
                f"{spread:.1f}-point spread.")
        return _finding("seat_gap", 80 + max(abs(r[2]["estimate"] - fair) for r in family) * 100, text, top_key,
                        "seats", top)
    text = (f"No seat or position edge we can detect: the best placed, {top_words}, wins {pct(top['estimate'])}"
            f"{equal_skill} ({ci_text(top)}), and every position's interval holds the fair share of {pct(fair)}.")
    return _finding("seat_gap", 40, text, top_key, "seats", top)


# ---- strategies ----------------------------------------------------------------------------------------------
def _loose(strengths: dict[str, dict], summary: dict) -> list[str]:
    """Strategies whose strength the data bound only one way: by `bound` in summaries that write it (or would:
    they say `nash_unique`), else (older summaries) by an interval many times wider than the others'."""
    if any("bound" in m for m in strengths.values()) or "nash_unique" in summary or "nash_unmeasured" in summary:
        return [s for s, m in strengths.items() if m.get("bound") in ("upper", "lower")]
    half = {s: (m["ci_high"] - m["ci_low"]) / 2 for s, m in strengths.items()}
    median = statistics.median(half.values())
    return [s for s, h in half.items() if len(half) >= 3 and median > 0 and h > LOOSE_FACTOR * median]


def strategy_findings(summary: dict) -> list[dict]:
    strengths = _indexed(summary, "strength")
    weights = _indexed(summary, "nash_weight")
    out = []
    if len(strengths) >= 2:
        ranked = sorted(strengths.items(), key=lambda kv: -kv[1]["estimate"])
        (best, m), (second, m2) = ranked[0], ranked[1]
        loose = _loose(strengths, summary)
        top_weight = weights.get(best)
        one_mix = summary.get("nash_unique") is not False
        if m["ci_low"] <= m2["ci_high"]:
            text = (f"No single strongest strategy: {best} ({_elo(m)}) and {second} ({_elo(m2)}) cannot be told "
                    "apart with these games.")
            out.append(_finding("strongest_strategy", 50, text, f"strength[{best}]", "strategies", m))
        elif top_weight and top_weight["estimate"] >= DOMINANT_WEIGHT and one_mix:
            text = (f"{best} dominates: strongest at {_elo(m)} ({second} next at {m2['estimate']:+.0f}), and it "
                    f"takes {top_weight['estimate']:.0%} of the equilibrium mix ({ci_text(top_weight)}), so no other "
                    "strategy is worth playing against this field; whatever makes it strong may be too strong.")
            out.append(_finding("strongest_strategy", 75, text, f"nash_weight[{best}]", "meta", top_weight))
        else:
            text = (f"{best} is the strongest strategy ({_elo(m)}), {m['estimate'] - m2['estimate']:.0f} Elo "
                    f"ahead of {second}")
            mixed = sorted(((s, w) for s, w in weights.items() if w["estimate"] >= 0.01),
                           key=lambda kv: -kv[1]["estimate"])
            if len(mixed) >= 2 and one_mix:
                text += (", but none dominates: the equilibrium mix keeps "
                         + ", ".join(f"{s} {w['estimate']:.0%}" for s, w in mixed) + ".")
            elif summary.get("nash_unique") is False:
                text += "; the equilibrium mix is not unique, so no single strategy can be called dominant."
            else:
                text += "."
            out.append(_finding("strongest_strategy", 60, text, f"strength[{best}]", "strategies", m))
        for name in loose:
            s = strengths[name]
            bound = s.get("bound")
            if bound == "lower":
                how = f"at least {s['ci_low']:+.0f} Elo: it (almost) always wins, so the games bound it only below"
            elif bound == "upper":
                how = f"at most {s['ci_high']:+.0f} Elo: it (almost) never wins, so the games bound it only above"
            else:
                how = (f"{_elo(s)}: it rarely or never beats the others, so the weak prior, not the games, "
                       "sets how far down it sits")
            out.append(_finding(f"strength_bound[{name}]", 30, f"{name}'s strength is only bounded one way: {how}.",
                                f"strength[{name}]", "strategies", s))
        return out
    rates = _indexed(summary, "win_rate_vs_field") or _indexed(summary, "win_rate")
    field = bool(_indexed(summary, "win_rate_vs_field"))
    if len(rates) >= 2:  # --summary-only runs have no strengths
        ranked = sorted(rates.items(), key=lambda kv: -kv[1]["estimate"])
        (best, m), (second, m2) = ranked[0], ranked[1]
        key = f"{'win_rate_vs_field' if field else 'win_rate'}[{best}]"
        what = "against the field" if field else "of its games, against the lineup this run played"
        if m["ci_low"] <= m2["ci_high"]:
            text = (f"No single strongest strategy: {best} wins {pct(m['estimate'])} ({ci_text(m)}) and {second} "
                    f"{pct(m2['estimate'])} ({ci_text(m2)}) {what}; they cannot be told apart.")
            out.append(_finding("strongest_strategy", 50, text, key, "strategies", m))
        else:
            text = f"{best} wins most often: {pct(m['estimate'])} {what} ({ci_text(m)}); {second} next at " \
                   f"{pct(m2['estimate'])}."
            out.append(_finding("strongest_strategy", 55, text, key, "strategies", m))
    return out


def strata_finding(summary: dict) -> dict | None:
    """Where a real seat edge lives (analysis.strata's `edge_location[...]` conclusions in summary["strata"]): the
    first real one in its short words (the section gives the tests), ranked just under a real seat gap (80+)."""
    found = [c for c in summary.get("strata") or [] if isinstance(c, dict) and c.get("verdict") == "real"
             and str(c.get("id", "")).startswith("edge_location[") and c.get("text")]
    if not found:
        return None
    c = found[0]
    return _finding(c["id"], 79.5, c.get("short") or c["text"], c.get("figure", c["id"]), "strata",
                    across_skill.finite_metric(c))


# ---- length, levers, flags -----------------------------------------------------------------------------------
def assumed_pace(seconds, per: str, key: str, source: str = "the rulebook gives no playing time") -> str | None:
    """How a report turns counts into minutes, said as the assumption it is with the key that sets it ("at an
    assumed 10 seconds an action step (...: set report.seconds_per_pick for your table)"); None without a pace."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        return None
    return f"at an assumed {seconds:g} seconds {per} ({source}: set {key} for your table)"


def length_finding(summary: dict, seconds_per_turn: float | None = None, pace: str | None = None) -> dict | None:
    """`pace`: how the minutes were reckoned (`assumed_pace`; default "at 8 seconds a turn" from
    `seconds_per_turn`)."""
    for key, unit in (("minutes_per_match", "match"), ("minutes_per_game", "game")):
        m = _metric(summary, key)
        if m:
            pace = f", {pace}" if pace else f", at {seconds_per_turn:g} seconds a turn" if seconds_per_turn else ""
            spread = (f" (95% CI {m['ci_low']:.1f}-{m['ci_high']:.1f})" if m["ci_high"] > m["ci_low"]
                      else " (every game the same length)")
            text = f"A {unit} lasts about {m['estimate']:.1f} minutes{spread}"
            rounds, turns = _metric(summary, "rounds_per_match") or _metric(summary, "rounds_per_game"), \
                _metric(summary, "turns_per_round")
            if rounds and turns:
                text += f": {rounds['estimate']:.2f} rounds of {turns['estimate']:.1f} turns"
            elif rounds:
                text += f": {rounds['estimate']:.2f} rounds"
            return _finding("length", 45, text + pace + ".", key, "length", m)
    m = _metric(summary, "picks_per_game")
    if m and not _metric(summary, "rounds_per_game"):
        text = (f"A game is {m['estimate']:.0f} action steps for every player; no playing time per step is "
                "configured (set report.seconds_per_pick), so there is no figure in minutes.")
        return _finding("length", 45, text, "picks_per_game", "length", m)
    m = _metric(summary, "rounds_per_game") or _metric(summary, "rounds_per_match")
    if m:
        key = "rounds_per_game" if _metric(summary, "rounds_per_game") else "rounds_per_match"
        text = (f"A game lasts {m['estimate']:.2f} rounds on average (95% CI {m['ci_low']:.2f}-{m['ci_high']:.2f}); "
                "no playing time is configured, so there is no figure in minutes.")
        return _finding("length", 45, text, key, "length", m)
    return None


def source_label(source: str, labels: dict | None = None) -> str:
    """A decisive source's plain name: the game's own label when given, else its key spelled out."""
    if labels and source in labels:
        label = labels[source]  # "diamond tokens" reads "the diamond tokens" in a sentence; "Jahan's bonus" as is
        return label if not label[:1].islower() or label.startswith("the ") else "the " + label
    for prefix, fmt in (("goods_", "the {} tokens"), ("emperor_", "{}'s bonus"), ("orders_", "{} orders"),
                        ("action_", "the {}'s action"), ("ability_", "{}'s ability")):
        if source.startswith(prefix):
            name = source[len(prefix):].replace("_", " ")
            return fmt.format(name.title() if prefix == "emperor_" else name)
    return "the " + source.replace("_", " ")


def lever_finding(summary: dict, labels: dict | None = None, unit: str = "games") -> dict | None:
    """The source whose points decide most games; where a rate is split (`[certain]`, `[ambiguous]`: Mohur's
    matches), ranked on the certain part and both parts said, the half-counted total being a convention."""
    rates = _indexed(summary, "decisive_rate")
    if not rates:
        return None
    parts = {s: (_metric(summary, f"decisive_rate[{s}][certain]"), _metric(summary, f"decisive_rate[{s}][ambiguous]"))
             for s in rates}
    split = any(a for _, a in parts.values())
    if split:
        certain = {s: parts[s][0] or rates[s] for s in rates}
        ambiguous = {s: a["estimate"] if a else 0.0 for s, (_, a) in parts.items()}
        high = {s: a["ci_high"] if a else 0.0 for s, (_, a) in parts.items()}
        ranked = sorted(rates.items(), key=lambda kv: (-certain[kv[0]]["estimate"], -kv[1]["estimate"]))
    else:
        ranked = sorted(rates.items(), key=lambda kv: -kv[1]["estimate"])
    source, m = ranked[0]
    if split:
        c = certain[source]
        text = (f"The strongest lever on who wins is {source_label(source, labels)}: taking those points away surely "
                f"changes the winner of {pct(c['estimate'])} of {unit} ({ci_text(c)}), and leaves "
                f"{pct(ambiguous[source])} more unfinished ({pct(m['estimate'])} with those counted as half)")
    else:
        text = (f"The strongest lever on who wins is {source_label(source, labels)}: taking those points away changes "
                f"the winner of {pct(m['estimate'])} of {unit} ({ci_text(m)})")
    if len(ranked) > 1:
        other, m2 = ranked[1]
        if split:  # ordered only if the next one's certain part plus every unfinished game stays under this one
            tie = " (not told apart)" if certain[other]["estimate"] + high[other] >= certain[source]["ci_low"] else ""
            text += f"; next {source_label(other, labels)} at {pct(certain[other]['estimate'])} surely{tie}"
        else:
            tie = " (not told apart)" if m["ci_low"] <= m2["ci_high"] else ""
            text += f"; next {source_label(other, labels)} at {pct(m2['estimate'])}{tie}"
    return _finding("top_lever", 55, text + ".", f"decisive_rate[{source}]", "decisive", m)


FLAG_RATES = {  # key -> (words, rank when at least 1%, rank below)
    "round_cap_rate": ("of games stop at the simulator's round cap instead of ending by the rules: their results "
                       "are artificial", 90, 35),
    "safety_end_rate": ("of rounds end on a safety rule (stalled or at the turn cap) instead of by the rules",
                        90, 35),
    "coins_short_rate": ("of games would need more coins than the box holds", 50, 25),
}


def flag_findings(summary: dict, warnings=()) -> list[dict]:
    out = []
    if summary.get("partial"):
        out.append(_finding("partial", 100, "This run is partial: only the batches that finished are counted, so "
                            "intervals are wider than the run asked for.", "partial", "headline"))
    for i, line in enumerate(warnings):
        out.append(_finding(f"degenerate_configuration[{i}]", 95,
                            f"Degenerate configuration: {line}; read every figure with that in mind.",
                            "configuration", "headline"))
    for key, (words, big, small) in FLAG_RATES.items():
        m = _metric(summary, key)
        if m and m["estimate"] > 0:
            out.append(_finding(key, big if m["estimate"] >= 0.01 else small,
                                f"{pct(m['estimate'])} ({ci_text(m)}) {words}.", key,
                                "supply" if key == "coins_short_rate" else "flags", m))
    return out


def findings(summary: dict, warnings=(), labels: dict | None = None, unit: str = "games",
             seconds_per_turn: float | None = None, pace: str | None = None) -> list[dict]:
    """The ranked findings of a game's summary (at most MAX_FINDINGS); `warnings`: the configuration's
    degenerate-setting lines, `labels`: plain names of decisive sources, `unit`: what a game is called."""
    found = [seat_finding(summary), *strategy_findings(summary), lever_finding(summary, labels, unit),
             length_finding(summary, seconds_per_turn, pace), *flag_findings(summary, warnings),
             across_skill.finding(summary, labels), strata_finding(summary)]
    found = sorted((f for f in found if f), key=lambda f: -f["rank"])[:MAX_FINDINGS]
    return [{k: v for k, v in f.items() if k != "rank"} for f in found]


# ---- presentation --------------------------------------------------------------------------------------------
CSS = """
.findings{border:2px solid #1b6ca8;border-radius:6px;padding:.4em 1.2em .6em;margin:.8em 0 1.2em;
background:#f5f9fd}.findings h2{margin:.2em 0 .2em;border:0;font-size:1.25em}
.findings ol{margin:.2em 0;padding-left:1.3em}.findings li{margin:.25em 0}.findings a{font-size:.85em}
"""


def anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def section_links(titles: list[str]) -> dict[str, str]:
    """Topic -> anchor of the first section title that matches it (missing topics link to the headline table)."""
    hits = {topic: next((t for t in titles if re.search(pattern, t, re.IGNORECASE)), None)
            for topic, pattern in TOPICS.items()}
    return {topic: anchor(hit) for topic, hit in hits.items() if hit}


def box(items: list[dict], links: dict[str, str] | None = None, default: str = "headline-figures") -> str:
    """The Findings box: one list item per finding, each with a link to the section that explains it: `links`
    maps a finding's topic to an anchor (a report); without it the finding's section is the anchor (other pages)."""
    if not items:
        return ""
    links = links or {}
    rows = []
    for f in items:
        section = f.get("section") or default
        target = links[section] if section in links else (default if links else section)
        link = f" <a href='#{html.escape(target)}'>details</a>"
        rows.append(f"<li>{html.escape(f['text'])}{link}</li>")
    return ("<div class='findings' id='findings'><h2>Findings</h2><ol>" + "".join(rows) + "</ol></div>")
