"""How a figure reads: a summary.json value in words and units (`fmt_metric`), a code name in a designer's words
(`plain_name`), the mirror-games table and the pages' shared style sheet (pages are built with `analysis.markup`,
re-exported here). Every page module formats through here."""
from __future__ import annotations

import base64
import math

from analysis import findings, percent
from analysis.markup import Markup, esc, markup, tag, table  # noqa: F401 (re-exported: pages build here)
from analysis.models import MIN_MODEL_GAMES


def and_join(items) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def is_rate(name: str) -> bool:
    """Rates are shown in % (and their differences in percentage points)."""
    return "rate" in name or name == "balance"


def fmt_band(metric: str, low, high) -> str:
    """A target band in the unit the figures are shown in: `49.0% to 51.0%` for rates."""
    value = lambda v: "n/a" if v is None else percent.pct(v) if is_rate(metric) else f"{v:.3g}"
    return f"{value(low)} to {value(high)}"


EDGE_VERDICT = {"real": "a real edge", "within noise": "within noise", "too few games": "too few games"}  # analysis.conclusions' verdicts of a seat family


def fmt_metric(name: str, m) -> str:
    if not isinstance(m, dict) or m.get("estimate") is None:
        return "n/a"
    est, lo, hi = m["estimate"], m["ci_low"], m["ci_high"]
    if name == "largest_edge" and m.get("figure"):  # the figure furthest from its fair share, named
        verdict = EDGE_VERDICT.get(m.get("verdict"), "")  # the seat conclusion's, so the table agrees with it
        if m.get("verdict") == "real" and (m.get("seats") or 1) > 2:  # the family's verdict, not this seat's
            verdict = "seating matters"
        elif m.get("verdict") == "real" and m["estimate"] < m.get("fair", 0.5):
            verdict = "a real handicap"
        return (f"{plain_name(str(m['figure']))}: {percent.with_ci(m)} against a fair "
                f"{percent.pct(m.get('fair', 0.5))}" + (f": {verdict}" if verdict else ""))
    if m.get("too_few_games"):  # a model fit to a handful of games: its number would mislead
        return f"too few games (n = {m['n']:,}; a model figure needs {MIN_MODEL_GAMES:,})"
    if name.startswith("strength["):
        if m.get("bound") in ("upper", "lower"):  # the data bound it on one side only
            return f"{'below' if m['bound'] == 'upper' else 'above'} {est:+.0f} Elo (one-sided 95% bound)"
        return f"{est:+.0f} Elo (95% CI {lo:+.0f} to {hi:+.0f})"
    if name.startswith("nash_weight["):
        span = m.get("range_low"), m.get("range_high")
        if None not in span and span[1] - span[0] > 1e-6:  # the equilibrium is not unique
            return f"{span[0]:.0%} to {span[1]:.0%} over the equilibria (95% CI {lo:.0%}-{hi:.0%})"
        return f"{est:.0%} (95% CI {lo:.0%}-{hi:.0%})"
    if is_rate(name):
        return percent.with_ci(m)
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return f"{est:.2f}"
    return f"{est:.2f} (95% CI {lo:.2f}-{hi:.2f})"


def mirror_names(summary: dict, key: str) -> list[str]:
    """The strategies of the `<key>[mirror=<strategy>]` figures, as written (a name may hold `=` or `]`)."""
    prefix = f"{key}[mirror="
    return sorted(k[len(prefix):-1] for k in summary if k.startswith(prefix) and k.endswith("]"))


def mirror_table(summary: dict, keys: list[str], heads: list[str], class_: str | None = None) -> Markup:
    """Each strategy's mirror games, a row of `<key>[mirror=<strategy>]` per strategy ("" without mirror games)."""
    rows = [[name] + [fmt_metric("rate", summary.get(f"{k}[mirror={name}]")) for k in keys]
            for name in mirror_names(summary, keys[0])]
    return table(["mirror games of", *heads], rows, class_=class_) if rows else Markup("")


# plain names for the code names of summary.json (a game adds its own in its module's LABELS)
LABELS = {
    "first_player_round_win_rate": "Round starter wins the round",
    "first_player_match_win_rate": "Match starter wins the match",
    "first_player_win_rate": "Round-1 first player wins",
    "seat0_match_win_rate": "Seat 0 wins the match",
    "drawn_round_rate": "Round is drawn",
    "turns_per_round": "Turns per round",
    "rounds_per_match": "Rounds per match",
    "rounds_per_game": "Rounds per game",
    "coin_token_rate": "Coin token awarded in a round",
    "minutes_per_match": "Minutes per match",
    "minutes_per_game": "Minutes per game (at an assumed pace)",
    "picks_per_game": "Action steps per game",
    "balance": "Balance (1 - seat 0's win-rate gap at equal skill)",
    "largest_edge": "Largest edge at equal skill (the seat, position or starter figure furthest from fair)",
    "close_round_rate": "Round decided by 3 rupees or fewer",
    "decision_move_rate": "Turns with a real choice",
    "score_margin": "Winning margin of a round (rupees)",
    "tie_rate": "Game tied (shared win)",
    "vt_total": "Final VT per player",
    "round_cap_rate": "Game reaches the round cap",
    "coins_short_rate": "Game needs more coins than the box holds",
}
_PREFIXES = {"win_rate": "{} wins (share of its games, its own mirror games included)",
             "win_rate_vs_field": "{} wins against the other strategies (its mirror games left out)",
             "strength": "{}'s strength (Elo)",
             "nash_weight": "{}'s weight in the equilibrium mix", "seat_win_rate": "Seat {} wins",
             "position_win_rate": "Player {} seats after the round-1 first player wins",
             "decisive_rate": "Winner changes without {}"}
_SUFFIXES = {"all_games": "over every game (not at equal skill)", "later_rounds": "in rounds 2 and later",
             "heuristic": "in heuristic-only games", "expert": "in search-only games",
             "certain": "certain changes only", "ambiguous": "unfinished without it (counted as half)"}


SOURCE_WORDS = {"condition": "the market condition"}  # decisive sources whose key alone reads badly


def plain_name(name: str, labels: dict | None = None) -> str:
    """A designer's words for a summary.json key: `first_player_round_win_rate[mirror=greedy]` reads "Round
    starter wins the round, mirror games of greedy". Unknown keys come back as they are."""
    labels = {**LABELS, **(labels or {})}
    base, _, rest = name.partition("[")
    parts = [p.rstrip("]") for p in rest.split("[")] if rest else []
    if base == "decisive_rate" and parts:  # a source in words ("the pepper orders"), not its code name
        text = _PREFIXES[base].format(findings.source_label(parts.pop(0), {**SOURCE_WORDS, **(labels or {})}))
    elif base in _PREFIXES and parts:
        text = _PREFIXES[base].format(parts.pop(0))
        if base == "position_win_rate" and text.startswith("Player 0 seats"):
            text = "Round-1 first player wins"
    elif base in labels:
        text = labels[base]
    else:
        return name
    for part in parts:
        key, _, value = part.partition("=")
        if key == "mirror":
            text += f", mirror games of {value}"
        elif key == "round":
            text += f", round {value}"
        elif key == "condition":  # a market condition's key in words: royal_treasury -> Royal Treasury
            text += f", under the {value.replace('_', ' ').title()} market condition"
        elif key in _SUFFIXES:
            text += f", {_SUFFIXES[key]}"
        else:
            text += f" [{part}]"
    return text


def figure_html(path, reading: str, alt_first: bool = False) -> str:
    """A PNG inlined (the page stays one self-contained file) with its reading under it."""
    src = f"src='data:image/png;base64,{base64.b64encode(path.read_bytes()).decode()}'"
    alt = f"alt='{esc(reading)}'"
    return Markup(f"<div class='fig'><img {f'{alt} {src}' if alt_first else f'{src} {alt}'}>"
                  f"<p class='reading'>{esc(reading)}</p></div>")


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:980px;margin:2em auto;
padding:0 1em;color:#1f2933;line-height:1.5}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #e4e7eb;padding-bottom:.2em;margin-top:2em}
.meta{color:#52606d}.fig{margin:1.2em 0}.fig img{max-width:100%;border:1px solid #e4e7eb;border-radius:4px}
.reading{margin:.3em 0 0 0;color:#323f4b;font-style:italic}
table{border-collapse:collapse;margin:1em 0;display:block;max-width:100%;overflow-x:auto}
td,th{padding:.3em .8em;border-bottom:1px solid #e4e7eb;text-align:left}
th{font-size:.92em;overflow-wrap:anywhere;min-width:5em}code{color:#52606d;font-size:.85em;overflow-wrap:anywhere}
.partial{background:#fff3cd;border:1px solid #e0b000;padding:.6em 1em;border-radius:4px}
.lead{font-size:1.08em;background:#f0f4f8;padding:.8em 1em;border-radius:4px}
""" + findings.CSS
